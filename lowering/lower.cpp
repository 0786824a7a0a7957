// ir::Schedule -> CUDA C++ with inline PTX: the driver (plan, validate,
// emit; see lower_internal.h) and the text helpers the stages share. See
// lower.h and docs/gpu.md.
//
// Structure of the output:
//   includes + ABI | [namespace {] prelude helpers | per-shape wgmma helpers |
//   the kernel | host launch code [}]
// The kernel: barrier init by thread 0 (and TMEM allocation by warp 0),
// then one branch per role (an if / else-if chain on the warp index, so
// setmaxnreg sits in a single branch per warpgroup), each running the
// role's body for its instance.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

#include "ir/target.h"
#include "lowering/emit.h"
#include "lowering/prelude.h"

namespace cake::lowering {

namespace {

const char* kReserved[] = {
    // C++ keywords and alternative tokens
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
    "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
    "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
    "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
    "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
    "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
    "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
    "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
    // names the generated code or the CUDA headers use
    "min", "max", "dim3", "threadIdx", "blockIdx", "gridDim", "blockDim", "warpSize", "uint8_t", "uint16_t",
    "uint32_t", "uint64_t", "int8_t", "int16_t", "int32_t", "int64_t", "size_t", "uintptr_t", "float2", "uint2",
    "int2", "int4", "float4", "half", "half2", "nv_bfloat16", "nv_bfloat162", "CUtensorMap", "cudaStream_t",
    "cudaError_t", "memcpy", "printf", "exp2f", "fabsf", "fmaxf", "fminf", "sqrtf", "rsqrtf", "expf", "logf",
    "INFINITY", "NAN", "NULL", "EOF", "HUGE_VAL", "HUGE_VALF", "INT_MAX", "INT_MIN", "UINT_MAX", "FLT_MAX",
    "FLT_MIN", "DBL_MAX", "CHAR_BIT", "RAND_MAX", "assert", "errno", "offsetof", "main", "std", "M_PI", "M_E",
    "signbit", "isnan", "isinf", "isfinite", "fpclassify", "abs", "exp2", "sqrt", "floor", "ceil", "round"};

// Macros of the C, POSIX and CUDA headers the generated code includes
// (directly or not): a parameter named like one would be macro-expanded.
// Lower-case ones are listed; upper-case ones come in families, matched by
// prefix, so that INT32_MAX, SIZE_MAX, EINVAL, SIGINT, FLT_EPSILON, ... all
// are renamed without listing each.
const char* kLowerCaseMacros[] = {
    "stdin", "stdout", "stderr", "errno", "assert", "offsetof", "setjmp", "longjmp", "va_start", "va_arg",
    "va_end", "va_copy", "va_list", "alloca", "major", "minor", "makedev", "unix", "linux", "i386", "bool",
    "static_assert", "alignas", "alignof", "noreturn", "complex", "imaginary", "I", "sigsetjmp", "siglongjmp",
    "getc", "putc", "getchar", "putchar", "isgreater", "isless", "islessgreater", "isunordered", "isnormal",
    "fmin", "fmax"};
const char* kMacroPrefixes[] = {
    "INT", "UINT", "SIZE_", "SSIZE_", "PTRDIFF_", "INTPTR_", "UINTPTR_", "INTMAX_", "UINTMAX_", "WCHAR_",
    "WINT_", "SIG", "FLT_", "DBL_", "LDBL_", "FP_", "M_", "SEEK_", "EXIT_", "CHAR_", "SCHAR_", "UCHAR_",
    "SHRT_", "USHRT_", "LONG_", "ULONG_", "LLONG_", "ULLONG_", "MB_", "LC_", "CLOCK", "TIME_", "BUFSIZ", "FILENAME_",
    "FOPEN_", "L_", "TMP_", "_IO", "MATH_", "HUGE_", "RAND_", "PATH_", "PIPE_", "NAME_", "IOV_", "NL_", "NZERO",
    "BYTE_", "LITTLE_", "BIG_", "PDP_", "WORD_", "FD_", "O_", "S_", "F_", "R_OK", "W_OK", "X_OK", "STD", "CUB_",
    "THRUST_", "CUTLASS_", "CCCL_", "LIBCUDACXX", "NDEBUG", "DEBUG", "CU", "MAX", "MIN"};

// errno values: E followed by upper-case letters (EINVAL, EDOM, ERANGE, ...).
bool errnoLike(const std::string& n) {
  if (n.size() < 3 || n[0] != 'E') return false;
  for (size_t i = 1; i < n.size(); ++i)
    if (!std::isupper(static_cast<unsigned char>(n[i])) && !std::isdigit(static_cast<unsigned char>(n[i])))
      return false;
  return true;
}


}  // namespace

namespace detail {

// A name the generated code cannot use as an identifier (keyword, macro).
bool isReserved(const std::string& n) {
  for (const char* k : kReserved)
    if (n == k) return true;
  for (const char* k : kLowerCaseMacros)
    if (n == k) return true;
  for (const char* k : kMacroPrefixes)
    if (n.rfind(k, 0) == 0) return true;
  return errnoLike(n);
}

// ------------------------------------------------------------- helpers

// A schedule name as a C++ identifier: kept as written unless it clashes
// with a keyword, a name of the generated code or of the CUDA headers.
std::string sanitizeIdent(const std::string& raw) {
  std::string s;
  for (char c : raw) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "u_" + s;
  auto lower = s;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.rfind("cake_", 0) == 0 || s.rfind("__", 0) == 0 || (s.size() > 1 && s[0] == '_' && std::isupper(s[1])) ||
      s.rfind("CU_", 0) == 0 || s.rfind("CUDA", 0) == 0 || s.rfind("cuda", 0) == 0 || s.rfind("cu", 0) == 0 ||
      s.rfind("nv", 0) == 0 || s.rfind("NV", 0) == 0)
    s = "u_" + s;
  if (isReserved(s)) s += "_";
  return s;
}

std::string sanitizeComment(std::string_view s) {
  std::string o;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    char out = c;
    if (c == '\\') out = '/';
    else if (u < 0x20 || u >= 0x7f) out = (c == '\t' ? ' ' : '?');
    // No "??": with trigraphs on (-std=c++14 and older), ??/ is a backslash
    // that splices the next line into the comment.
    if (out == '?' && !o.empty() && o.back() == '?') o += ' ';
    o += out;
  }
  // a trailing '/' can't form "*/" or a line splice in a // comment; trim spaces
  while (!o.empty() && o.back() == ' ') o.pop_back();
  return o;
}

std::string cType(ir::DType d) {
  switch (d) {
    case ir::DType::BF16: return "__nv_bfloat16";
    case ir::DType::F16: return "__half";
    case ir::DType::F32: return "float";
    case ir::DType::I32: return "int";
    case ir::DType::I8: return "int8_t";
    case ir::DType::E4M3: return "__nv_fp8_e4m3";
    case ir::DType::E5M2: return "__nv_fp8_e5m2";
  }
  return "float";
}

int64_t lcm64(int64_t a, int64_t b) { return a / std::gcd(a, b) * b; }

std::string floatLiteral(double v) {
  if (std::isnan(v)) return "NAN";
  if (std::isinf(v) || std::fabs(v) > 3.4028234663852886e38) return v < 0 ? "(-INFINITY)" : "INFINITY";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  s += "f";
  if (v < 0) s = "(" + s + ")";
  return s;
}

std::string Family::describe() const {
  switch (kind) {
    case Generic:
      return fmt::format("{} cycle over the instance's {} threads{}", colsMajor ? "columns" : "rows", T,
                         tmem ? " (row = TMEM lane)" : "");
    case Wg:
      return fmt::format("{}wgmma accumulator layout ({} warpgroup{})", trans ? "transposed " : "", G, G > 1 ? "s" : "");
    case Mma:
      return fmt::format("mma.sync {} layout (warp grid {}x{})",
                         operand == OperandA ? "a-operand" : operand == OperandB ? "b-operand" : "accumulator", wm, wn);
    default: return "none";
  }
}

namespace {
// The file: header comment, prelude, wgmma helpers, kernel, host code.
void assemble(const KernelPlan& p, const std::string& kernel, const std::string& host, LowerResult& res) {
  const auto& s_ = p.s_;
  const auto& opts_ = p.opts_;
  const auto target_ = p.target_;

  std::vector<std::string> flags;
  switch (target_) {
    case ir::Target::SM80: flags = {"-gencode=arch=compute_80,code=sm_80", "-gencode=arch=compute_80,code=sm_90"}; break;
    case ir::Target::SM100a: flags = {"-gencode=arch=compute_100a,code=sm_100a"}; break;
    default: flags = {"-gencode=arch=compute_90a,code=sm_90a"}; break;
  }
  std::string src;
  const std::string file = s_.range.file ? sanitizeComment(s_.range.file->name) : std::string("<schedule>");
  src += fmt::format("// Generated by cake lowering from schedule '{}' ({}). Do not edit.\n", sanitizeComment(s_.name),
                     file);
  src += fmt::format("// target {}: nvcc -std=c++17 -shared -Xcompiler -fPIC -cudart shared {}\n",
                     ir::targetName(target_), fmt::join(flags, " "));
  if (target_ == ir::Target::SM100a)
    src += "// sm_100a: compile-only here (no sm_100a device is available to run it).\n";
  src += preludeGlobalText();
  if (!opts_.namespace_name.empty()) src += fmt::format("\nnamespace {} {{\n", opts_.namespace_name);
  src += preludeText();
  if (target_ != ir::Target::SM80) src += preludeTmaText();
  if (target_ == ir::Target::SM90a) src += preludeWgmmaText();
  if (s_.cluster_ops && target_ != ir::Target::SM80) src += preludeClusterText();
  src += preludeSm80Text();
  if (target_ == ir::Target::SM100a) src += preludeTcgen05Text();
  for (const auto& [n, ty, rs, tr] : p.wgmmaHelpers_) src += "\n" + wgmmaHelper(n, ty, rs, tr);
  src += "\n";
  src += kernel;
  if (!p.tmaps_.empty()) src += preludeHostText();
  src += host;
  if (!opts_.namespace_name.empty()) src += fmt::format("\n}}  // namespace {}\n", opts_.namespace_name);
  res.ok = true;
  res.source = std::move(src);
  res.kernel_name = p.kernelName();
  res.problem = p.gemm_ ? Problem::Gemm : Problem::None;
  res.arch_flags = flags;
  res.launch.threads = p.threads_;
  res.launch.smem_bytes = static_cast<int>(ir::requestedSmemBytes(p.smemUsed_));
  res.launch.grid = p.hostGridText();
  res.launch.persistent = p.persistent_;
  for (int d = 0; d < 3; ++d) res.launch.cluster[d] = s_.cluster[d];
}
}  // namespace

}  // namespace detail

LowerResult lowerToCuda(const ir::Schedule& schedule, const LowerOptions& opts) {
  LowerResult res;
  detail::PlanBuilder plan(schedule, opts);
  const bool ok = plan.build();  // stages 1 and 2
  res.target = plan.target_;
  res.findings = plan.findings_;
  if (!ok) return res;
  detail::Emitter emitter(plan);  // stage 3: reads the plan only, cannot fail on a validated one
  const std::string kernel = emitter.kernel();
  const std::string host = emitter.host();
  detail::assemble(plan, kernel, host, res);
  return res;
}

std::span<const ir::RuleInfo> loweringRules() { return ir::rulesOf(ir::RuleOwner::Lowering); }

}  // namespace cake::lowering
