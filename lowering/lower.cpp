// ir::Schedule -> CUDA C++ with inline PTX: the driver and the analyses.
// See lower.h and docs/gpu.md.
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
#include "lowering/lower_internal.h"
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

bool isReserved(const std::string& n) {
  for (const char* k : kReserved)
    if (n == k) return true;
  for (const char* k : kLowerCaseMacros)
    if (n == k) return true;
  for (const char* k : kMacroPrefixes)
    if (n.rfind(k, 0) == 0) return true;
  return errnoLike(n);
}

}  // namespace

namespace detail {

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

bool exprEqual(const ir::ExprPtr& a, const ir::ExprPtr& b) {
  if (!a || !b) return !a && !b;
  if (a->kind != b->kind || a->value != b->value || a->index != b->index || a->args.size() != b->args.size())
    return false;
  for (size_t i = 0; i < a->args.size(); ++i)
    if (!exprEqual(a->args[i], b->args[i])) return false;
  return true;
}

bool exprUses(const Expr& e, ExprKind k) {
  if (e.kind == k) return true;
  for (const auto& a : e.args)
    if (a && exprUses(*a, k)) return true;
  return false;
}

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
    case Wg: return fmt::format("wgmma accumulator layout ({} warpgroup{})", G, G > 1 ? "s" : "");
    case Mma: return fmt::format("mma.sync accumulator layout (warp grid {}x{})", wm, wn);
    default: return "none";
  }
}

// ------------------------------------------------------------- basics

void Lowering::error(const char* rule, const ir::SourceRange& r, std::string msg) {
  findings_.push_back(ir::makeFinding(ir::rule(rule), r, std::move(msg)));
}

void Lowering::line(const std::string& l) {
  if (l.empty()) {
    out_ += "\n";
    return;
  }
  out_.append(static_cast<size_t>(std::max(indent_, 0)) * 2, ' ');
  out_ += l;
  out_ += "\n";
}

std::string Lowering::uniqueName(const std::string& raw) {
  std::string base = sanitizeIdent(raw), n = base;
  for (int i = 2; usedNames_.count(n); ++i) n = fmt::format("{}_{}", base, i);
  usedNames_.insert(n);
  return n;
}

void Lowering::assignNames() {
  for (const auto& p : s_.params) paramNames_.push_back(uniqueName(p.name));
  for (const auto& p : s_.pools) poolNames_.push_back(uniqueName(p.name));
  for (const auto& v : s_.views) viewNames_.push_back(uniqueName(v.name));
  for (const auto& t : s_.tmems) tmemNames_.push_back(uniqueName(t.name));
  for (const auto& r : s_.regs) regsNames_.push_back(uniqueName(r.name));
  for (const auto& b : s_.barriers) barNames_.push_back(uniqueName(b.name));
  // loop variables live in their own scopes: unique against the names above only
  const std::set<std::string> globals = usedNames_;
  for (const auto& l : s_.loop_vars) {
    std::string base = sanitizeIdent(l.name), n = base;
    for (int i = 2; globals.count(n); ++i) n = fmt::format("{}_{}", base, i);
    loopNames_.push_back(n);
  }
}

std::string Lowering::kernelName() const { return "cake_" + sanitizeIdent(s_.name) + "_kernel"; }

// ------------------------------------------------------------- expressions

bool Lowering::nonneg(const Expr& e) const {
  switch (e.kind) {
    case ExprKind::Const: return e.value >= 0;
    case ExprKind::Param:
      if (auto it = spec_.find(e.index); it != spec_.end()) return it->second >= 0;
      return nonnegParams_.count(e.index) > 0;
    case ExprKind::LoopVar:
      return e.index >= 0 && e.index < static_cast<int>(loopNonneg_.size()) && loopNonneg_[e.index];
    case ExprKind::BlockIdx:
    case ExprKind::GridDim:
    case ExprKind::Instance:
      return true;
    case ExprKind::Add:
    case ExprKind::Mul:
    case ExprKind::FloorDiv:
    case ExprKind::CDiv:
    case ExprKind::Min:
      return nonneg(*e.args[0]) && nonneg(*e.args[1]);
    case ExprKind::Mod:
      return nonneg(*e.args[1]);
    case ExprKind::Max:
      return nonneg(*e.args[0]) || nonneg(*e.args[1]);
    case ExprKind::Lt: case ExprKind::Le: case ExprKind::Gt: case ExprKind::Ge:
    case ExprKind::Eq: case ExprKind::Ne: case ExprKind::And: case ExprKind::Or: case ExprKind::Not:
      return true;
    default:
      return false;
  }
}

std::string Lowering::expr(const ir::ExprPtr& e, bool host) const { return e ? expr(*e, host) : "0"; }

std::string Lowering::expr(const Expr& e, bool host) const {
  auto a = [&](int i) { return expr(*e.args[i], host); };
  auto bin = [&](const char* op) { return "(" + a(0) + " " + op + " " + a(1) + ")"; };
  switch (e.kind) {
    case ExprKind::Const:
      if (e.value > 2147483647 || e.value < -2147483647) return fmt::format("{}LL", e.value);
      return std::to_string(e.value);
    case ExprKind::Param:
      if (auto it = spec_.find(e.index); it != spec_.end()) return std::to_string(it->second);
      return paramName(e.index);
    case ExprKind::LoopVar: return loopNames_[e.index];
    case ExprKind::BlockIdx:
      if (!host && raster_ && e.index < 2) return e.index == 0 ? "cake_bx" : "cake_by";
      return host ? "0" : std::string("static_cast<int>(blockIdx.") + "xyz"[e.index] + ")";
    case ExprKind::GridDim:
      return host ? "1" : std::string("static_cast<int>(gridDim.") + "xyz"[e.index] + ")";
    case ExprKind::Instance: return host ? "0" : "cake_instance";
    case ExprKind::Neg: return "(-" + a(0) + ")";
    case ExprKind::Add: return bin("+");
    case ExprKind::Sub: return bin("-");
    case ExprKind::Mul: return bin("*");
    case ExprKind::FloorDiv:
      if (nonneg(*e.args[0]) && nonneg(*e.args[1])) return bin("/");
      return "cake_floordiv(" + a(0) + ", " + a(1) + ")";
    case ExprKind::Mod:
      if (nonneg(*e.args[0]) && nonneg(*e.args[1])) return bin("%");
      return "cake_mod(" + a(0) + ", " + a(1) + ")";
    case ExprKind::Min: return "cake_min(" + a(0) + ", " + a(1) + ")";
    case ExprKind::Max: return "cake_max(" + a(0) + ", " + a(1) + ")";
    case ExprKind::CDiv:
      if (nonneg(*e.args[0]) && nonneg(*e.args[1]))
        return "((" + a(0) + " + " + a(1) + " - 1) / " + a(1) + ")";
      return "cake_cdiv(" + a(0) + ", " + a(1) + ")";
    case ExprKind::Lt: return bin("<");
    case ExprKind::Le: return bin("<=");
    case ExprKind::Gt: return bin(">");
    case ExprKind::Ge: return bin(">=");
    case ExprKind::Eq: return bin("==");
    case ExprKind::Ne: return bin("!=");
    case ExprKind::And: return bin("&&");
    case ExprKind::Or: return bin("||");
    case ExprKind::Not: return "(!" + a(0) + ")";
  }
  return "0";
}

std::string Lowering::pyText(const ir::ExprPtr& e) const {
  return e ? sanitizeComment(ir::exprToString(*e, s_)) : "?";
}

// ------------------------------------------------------------- shapes

std::vector<int64_t> Lowering::viewShape(int v) const {
  std::vector<int64_t> d;
  for (const auto& x : s_.views[v].shape) d.push_back(constOf(x).value_or(1));
  return d;
}

Tile Lowering::viewTile(int v) const {
  auto d = viewShape(v);
  Tile t;
  if (d.empty()) return t;
  t.C = d.back();
  t.R = 1;
  for (size_t i = 0; i + 1 < d.size(); ++i) t.R *= d[i];
  return t;
}

int64_t Lowering::viewSlotBytes(int v) const {
  Tile t = viewTile(v);
  return t.R * t.C * ir::dtypeBytes(s_.views[v].dtype);
}

std::string Lowering::viewOffset(int v, const std::string& row, const std::string& colBytes) const {
  const int W = viewBlock_.empty() ? 0 : viewBlock_[v];
  if (!W) {
    const int sw = ir::swizzleBytes(s_.views[v].swizzle);
    return fmt::format("cake_swz<{}>(static_cast<uint32_t>(({}) * {} + ({})))", sw, row, viewRowBytes(v), colBytes);
  }
  const Tile t = viewTile(v);
  return fmt::format("(static_cast<uint32_t>({2}) / {0}u * {1}u + cake_swz<{0}>(static_cast<uint32_t>(({3}) * {0} + "
                     "static_cast<uint32_t>({2}) % {0}u)))",
                     W, t.R * W, colBytes, row);
}

bool Lowering::blockView(int v) {
  const int64_t rb = viewRowBytes(v);
  const int sw = ir::swizzleBytes(s_.views[v].swizzle);
  if (sw && rb == sw) return true;  // already canonical
  int W = sw;
  if (!W) W = rb % 128 == 0 ? 128 : rb % 64 == 0 ? 64 : rb % 32 == 0 ? 32 : 0;
  const Tile t = viewTile(v);
  auto off = constOf(s_.views[v].offset);
  if (!W || rb % W || t.R % 8 || !off || *off % (8 * W) || viewShape(v).size() > 2) return false;
  viewBlock_[v] = W;
  return true;
}

// Unswizzled views that a TMA store reads are staging tiles written from
// registers (an accumulator copy, an element-wise op). Row-major with rows of
// 128 B or more, the 8 rows a warp writes at once share their banks (8-way
// conflicts for a wgmma accumulator); stored blocked and swizzled (the TMA
// store swizzles back), each row's chunk lands in its own banks. Only the
// physical layout changes: every access goes through viewOffset and the TMA
// boxes, so the synchronisation the checker verified is emitted unchanged.
void Lowering::blockStagingViews() {
  using K = ir::BufferRef::Kind;
  for (const auto& body : s_.bodies)
    ir::forEachOp(body.body, [&](const Stmt& st) {
      const auto& op = st.op;
      if (op.kind != OpKind::TmaStore || op.src.kind != K::View) return;
      const int v = op.src.index;
      if (ir::swizzleBytes(s_.views[v].swizzle) || viewBlock_[v] || viewRowBytes(v) < 64) return;
      blockView(v);
    });
}

std::vector<int64_t> Lowering::tmaBox(int v, int rank) const {
  std::vector<int64_t> shape = viewShape(v);
  if (viewBlock_[v]) shape.back() = viewBlock_[v] / ir::dtypeBytes(s_.views[v].dtype);
  while (static_cast<int>(shape.size()) > rank) {
    shape[1] *= shape[0];
    shape.erase(shape.begin());
  }
  while (static_cast<int>(shape.size()) < rank) shape.insert(shape.begin(), 1);
  return shape;
}

Tile Lowering::regsTile(int r) const {
  if (r < static_cast<int>(regsTiles_.size())) return regsTiles_[r];
  Tile t;
  const auto& sh = s_.regs[r].shape;
  if (sh.empty()) return t;
  t.C = constOf(sh.back()).value_or(1);
  for (size_t i = 0; i + 1 < sh.size(); ++i) t.R *= constOf(sh[i]).value_or(1);
  return t;
}

Tile Lowering::tmemTile(int m) const {
  Tile t;
  const auto& sh = s_.tmems[m].shape;
  if (sh.empty()) return t;
  t.C = constOf(sh.back()).value_or(1);
  for (size_t i = 0; i + 1 < sh.size(); ++i) t.R *= constOf(sh[i]).value_or(1);
  return t;
}

namespace {
// hi - lo of a slice when it is the same at every point (evaluated at two)
std::optional<int64_t> sliceExtent(const ir::Schedule& s, const ir::Slice& sl, int64_t full,
                                   const std::map<int, int64_t>& spec = {}) {
  auto evalAt = [&](int64_t base) -> std::optional<int64_t> {
    ir::EvalEnv env;
    for (size_t p = 0; p < s.params.size(); ++p) env.params[static_cast<int>(p)] = base + 3 * p;
    for (const auto& [p, v] : spec) env.params[p] = v;
    for (size_t l = 0; l < s.loop_vars.size(); ++l) env.loop_vars[static_cast<int>(l)] = base / 2 + l;
    env.instance = base % 3;
    for (int d = 0; d < 3; ++d) env.block_idx[d] = base % 5 + d, env.grid_dim[d] = 7 + d;
    auto lo = sl.lo ? ir::evaluate(*sl.lo, env) : std::optional<int64_t>(0);
    auto hi = sl.hi ? ir::evaluate(*sl.hi, env) : std::optional<int64_t>(full);
    if (!lo || !hi) return std::nullopt;
    return *hi - *lo;
  };
  auto a = evalAt(4096), b = evalAt(1 << 20);
  if (!a || !b || *a != *b || *a <= 0) return std::nullopt;
  return *a;
}

// Narrows a 2-D tile by `[r0:r1]` or `[r0:r1, c0:c1]`; false when a slice
// has no constant extent.
template <typename TileT>
bool narrowRowsCols(const ir::Schedule& s, const std::vector<ir::Slice>& slices, TileT& t,
                    const std::map<int, int64_t>& spec) {
  auto r = sliceExtent(s, slices[0], t.R, spec);
  if (!r) return false;
  t.R = *r;
  if (slices.size() > 1) {
    auto c = sliceExtent(s, slices[1], t.C, spec);
    if (!c) return false;
    t.C = *c;
  }
  return true;
}
}  // namespace

bool Lowering::refTile(const ir::BufferRef& ref, Tile& t, int64_t*, int64_t*) const {
  switch (ref.kind) {
    case ir::BufferRef::Kind::View: {
      t = viewTile(ref.index);
      if (ref.slices.empty()) return true;
      const auto d = viewShape(ref.index);
      if (d.size() > 2) return false;
      if (d.size() == 1) {
        auto e = sliceExtent(s_, ref.slices[0], t.C, spec_);
        if (!e) return false;
        t.C = *e;
        return true;
      }
      return narrowRowsCols(s_, ref.slices, t, spec_);
    }
    case ir::BufferRef::Kind::Regs: {
      t = regsTile(ref.index);
      if (ref.slices.empty()) return true;
      if (s_.regs[ref.index].shape.size() > 2) return false;
      if (s_.regs[ref.index].shape.size() == 1) {
        int64_t& e = t.R > 1 ? t.R : t.C;
        auto x = sliceExtent(s_, ref.slices[0], e, spec_);
        if (!x) return false;
        e = *x;
        return true;
      }
      return narrowRowsCols(s_, ref.slices, t, spec_);
    }
    case ir::BufferRef::Kind::Tmem: {
      t = tmemTile(ref.index);
      if (ref.slices.empty()) return true;
      if (s_.tmems[ref.index].shape.size() != 2) return false;
      auto r = sliceExtent(s_, ref.slices[0], t.R, spec_);
      if (!r || *r != t.R) return false;  // lanes are not sliced
      if (ref.slices.size() > 1) {
        auto c = sliceExtent(s_, ref.slices[1], t.C, spec_);
        if (!c) return false;
        t.C = *c;
      }
      return true;
    }
    case ir::BufferRef::Kind::Scalar:
      t = Tile{1, 1};
      return true;
    default:
      return false;
  }
}

ir::DType Lowering::refDtype(const ir::BufferRef& ref) const {
  switch (ref.kind) {
    case ir::BufferRef::Kind::View: return s_.views[ref.index].dtype;
    case ir::BufferRef::Kind::Regs: return s_.regs[ref.index].dtype;
    case ir::BufferRef::Kind::Tmem: return s_.tmems[ref.index].dtype;
    case ir::BufferRef::Kind::Param: return tensors_[ref.index].dtype;
    case ir::BufferRef::Kind::Scalar: return ref.scalar ? ir::DType::I32 : ir::DType::F32;
    default: return ir::DType::F32;
  }
}

// ------------------------------------------------------------- analysis

void Lowering::analyzeParams() {
  tensors_.assign(s_.params.size(), TensorInfo{});
  for (size_t i = 0; i < s_.params.size(); ++i) tensors_[i].rank = ir::tmaRank(s_.params[i].type);
  auto note = [&](int p, size_t rank, const ir::SourceRange& r, std::optional<ir::DType> dt, bool ptr) {
    auto& t = tensors_[p];
    if (t.rank == 0) t.rank = static_cast<int>(rank);
    else if (t.rank != static_cast<int>(rank))
      error("lower.layout", r,
            fmt::format("tensor '{}' is addressed with {} coordinates here and {} elsewhere", s_.params[p].name,
                        rank, t.rank));
    if (dt && !t.dtypeKnown) {
      t.dtype = *dt;
      t.dtypeKnown = true;
    }
    if (ptr) t.ptr = true;
  };
  for (const auto& body : s_.bodies)
    ir::forEachOp(body.body, [&](const Stmt& st) {
      const auto& op = st.op;
      using K = ir::BufferRef::Kind;
      switch (op.kind) {
        case OpKind::TmaLoad:
        case OpKind::TmaStore: {
          const auto& view = op.kind == OpKind::TmaLoad ? op.dst : op.src;
          const auto& tensor = op.kind == OpKind::TmaLoad ? op.src : op.dst;
          if (view.kind != K::View || tensor.kind != K::Param) return;
          tmaps_.insert({tensor.index, view.index});
          note(tensor.index, op.coords.size(), op.range, s_.views[view.index].dtype, false);
          break;
        }
        case OpKind::CpAsync:
          if (op.dst.kind == K::View && op.src.kind == K::Param)
            note(op.src.index, op.coords.size(), op.range, s_.views[op.dst.index].dtype, true);
          break;
        case OpKind::Copy: case OpKind::Fill: case OpKind::Unary: case OpKind::Binary: case OpKind::Reduce: {
          std::optional<ir::DType> other;
          for (const auto* r : {&op.dst, &op.src, &op.src2})
            if (r->kind == K::View || r->kind == K::Regs || r->kind == K::Tmem) {
              other = refDtype(*r);
              break;
            }
          for (const auto* r : {&op.dst, &op.src, &op.src2})
            if (r->kind == K::Param) note(r->index, op.coords.size(), op.range, other, true);
          break;
        }
        default:
          break;
      }
    });
  // parameters known to be >= 0 (lm.assume(p > c), p >= c with c >= 0) index without floor corrections
  std::function<void(const Expr&)> scan = [&](const Expr& c) {
    if (c.kind == ExprKind::And) {
      scan(*c.args[0]);
      scan(*c.args[1]);
      return;
    }
    auto isP = [](const Expr& e) { return e.kind == ExprKind::Param; };
    auto cst = [](const Expr& e) { return e.kind == ExprKind::Const ? std::optional<int64_t>(e.value) : std::nullopt; };
    if (c.args.size() != 2) return;
    const Expr &l = *c.args[0], &r = *c.args[1];
    if ((c.kind == ExprKind::Gt || c.kind == ExprKind::Ge) && isP(l) && cst(r) && *cst(r) >= -1 + (c.kind == ExprKind::Ge))
      nonnegParams_.insert(l.index);
    if ((c.kind == ExprKind::Lt || c.kind == ExprKind::Le) && isP(r) && cst(l) && *cst(l) >= -1 + (c.kind == ExprKind::Le))
      nonnegParams_.insert(r.index);
  };
  for (const auto& a : s_.assumes)
    if (a.cond) scan(*a.cond);
}

void Lowering::needConst(const ir::ExprPtr& e, const ir::SourceRange& r, const std::string& what) {
  if (!e || constOf(e)) return;
  std::set<int> ps;
  std::function<void(const Expr&)> walk = [&](const Expr& x) {
    if (x.kind == ExprKind::Param && !spec_.count(x.index)) ps.insert(x.index);
    for (const auto& a : x.args)
      if (a) walk(*a);
  };
  walk(*e);
  std::vector<std::string> names;
  for (int p : ps) {
    names.push_back(s_.params[p].name);
    unspecialized_.insert(s_.params[p].name);
  }
  error("lower.unsupported", r,
        names.empty()
            ? fmt::format("{} is not a constant", what)
            : fmt::format("{} depends on {}: lowering needs constant shapes; specialise the kernel for a value "
                          "(LowerOptions::specialize, `cake lower --set {}=...`)",
                          what, fmt::join(names, ", "), names[0]));
}

void Lowering::layoutSmem() {
  int64_t off = 0;
  for (const auto& p : s_.pools) {
    auto bytes = constOf(p.bytes);
    if (!bytes || *bytes <= 0) {
      if (!bytes) needConst(p.bytes, p.range, fmt::format("the size of pool '{}'", p.name));
      else error("lower.unsupported", p.range, fmt::format("pool '{}' needs a positive size", p.name));
      return;
    }
    off = (off + 1023) / 1024 * 1024;
    poolOffset_.push_back(off);
    off += *bytes;
  }
  for (size_t v = 0; v < s_.views.size(); ++v) {
    const auto& view = s_.views[v];
    auto o = constOf(view.offset);
    bool shape_ok = !view.shape.empty();
    for (const auto& d : view.shape) shape_ok = shape_ok && constOf(d) && *constOf(d) > 0;
    if (!o || !shape_ok) {
      needConst(view.offset, view.range, fmt::format("the offset of view '{}'", view.name));
      for (const auto& d : view.shape) needConst(d, view.range, fmt::format("the shape of view '{}'", view.name));
      if (!failed())
        error("lower.unsupported", view.range, fmt::format("view '{}': lowering needs a positive shape", view.name));
      continue;
    }
    const int sw = ir::swizzleBytes(view.swizzle);
    const int vi = static_cast<int>(v);
    if (sw) {
      const int64_t period = sw * 8;  // 256 / 512 / 1024 B
      if (*o % period || viewSlotBytes(vi) % period)
        error("lower.layout", view.range,
              fmt::format("view '{}': with a {}B swizzle its offset and slot size must be multiples of {} B", view.name,
                          sw, period));
    } else if (*o % 16) {
      error("lower.layout", view.range, fmt::format("view '{}': offset must be a multiple of 16 B", view.name));
    }
  }
  off = (off + 7) / 8 * 8;
  barOffset_ = off;
  int slots = 0;
  for (const auto& b : s_.barriers) {
    barSlotBase_.push_back(slots);
    slots += b.count;
  }
  smemUsed_ = barOffset_ + 8 * slots;
  if (!s_.tmems.empty()) {
    tmemSlotOffset_ = smemUsed_;
    smemUsed_ += 8;
  }
}

bool Lowering::opIsElected(const ir::Op& op) const {
  switch (op.kind) {
    case OpKind::Wait: case OpKind::Arrive: case OpKind::ExpectTx: case OpKind::TmaLoad:
    case OpKind::TmaStore: case OpKind::TmaStoreCommit: case OpKind::TmaStoreWait: case OpKind::FenceProxy:
      return true;
    case OpKind::Mma:
      return op.dst.kind == ir::BufferRef::Kind::Tmem;
    case OpKind::MmaCommit:
    case OpKind::MmaWait:
      return target_ == ir::Target::SM100a;
    default:
      return false;
  }
}

void Lowering::analyzeRoles() {
  warps_ = s_.warpCount();
  threads_ = warps_ * 32;
  const ir::TargetLimits& lim = ir::targetLimits(target_);
  if (threads_ <= 0 || warps_ > lim.max_warps_per_block) {
    error("lower.unsupported", s_.range,
          fmt::format("{} threads per block (1..{} lower)", threads_, 32 * lim.max_warps_per_block));
    return;
  }
  regCap_ = lim.launchRegsPerThread(threads_);
  for (size_t r = 0; r < s_.roles.size(); ++r) {
    const auto& role = s_.roles[r];
    bool single = true;
    for (const auto& body : s_.bodies)
      if (body.role == static_cast<int>(r))
        ir::forEachOp(body.body, [&](const Stmt& st) { single = single && opIsElected(st.op); });
    roleSingle_.push_back(single);
    for (int w : role.warps)
      if (w >= warps_)
        error("lower.unsupported", role.range,
              fmt::format("role '{}' uses warp {} but the block has {} warps (decorator warps=)", role.name, w, warps_));
    if (role.regs && target_ != ir::Target::SM80) {
      // setmaxnreg is warpgroup-wide: the role must own whole aligned warpgroups
      std::set<int> w(role.warps.begin(), role.warps.end());
      bool ok = threads_ % 128 == 0;
      for (int x : role.warps)
        for (int k = 0; k < 4; ++k) ok = ok && w.count(x / 4 * 4 + k);
      if (!ok)
        error("lower.layout", role.range,
              fmt::format("role '{}' has regs={} but does not own whole warpgroups (setmaxnreg is per warpgroup)",
                          role.name, *role.regs));
      if (*role.regs < 24 || *role.regs > 256 || *role.regs % 8)
        error("lower.layout", role.range,
              fmt::format("role '{}': regs={} must be a multiple of 8 in [24, 256]", role.name, *role.regs));
    }
    if (role.group > 0 && role.warps.size() % role.group)
      error("lower.layout", role.range, fmt::format("role '{}': {} warps do not split into groups of {}", role.name,
                                                    role.warps.size(), role.group));
  }
  // named barriers: ids 1..n
  int id = 1;
  for (const auto& nb : s_.named_barriers) {
    namedBarId_.push_back(id++);
    int t = 0;
    for (int r : nb.roles) t += static_cast<int>(s_.roles[r].warps.size()) * 32;
    namedBarThreads_.push_back(t);
    for (int r : nb.roles) roleSingle_[r] = false;  // bar.sync needs every thread
  }
  // then one per instance of each multi-warp role that syncs its own warps
  roleInstBar_.assign(s_.roles.size(), -1);
  for (size_t r = 0; r < s_.roles.size(); ++r) {
    const auto& role = s_.roles[r];
    if (roleSingle_[r] || role.warpsPerInstance() <= 1) continue;
    if (role.instanceCount() == 1 && static_cast<int>(role.warps.size()) == warps_) continue;  // __syncthreads
    roleInstBar_[r] = id;
    id += role.instanceCount();
  }
  if (id > 16)
    error("lower.unsupported", s_.range,
          fmt::format("{} named barriers + the multi-warp instances' own barriers need {} of the 15 hardware barriers",
                      s_.named_barriers.size(), id - 1));
}

void Lowering::analyzeBarriers() {
  std::set<int> commitBars;
  for (const auto& body : s_.bodies)
    ir::forEachOp(body.body, [&](const Stmt& st) {
      if (st.op.kind == OpKind::MmaCommit && st.op.barrier >= 0) commitBars.insert(st.op.barrier);
    });
  txPlan_ = ir::planDerivedTx(s_);
  for (size_t b = 0; b < s_.barriers.size(); ++b) {
    int64_t w = 1;
    if (!commitBars.count(static_cast<int>(b)))
      for (int r : s_.barriers[b].prod)
        if (!roleSingle_[r] && s_.roles[r].warpsPerInstance() > 1) w = lcm64(w, s_.roles[r].warpsPerInstance());
    barWeight_.push_back(static_cast<int>(w));
  }
}

void Lowering::analyzeLoops(const ir::Block& b) {
  for (const auto& st : b) {
    if (st.kind == Stmt::Kind::For) {
      if (st.loop_var >= static_cast<int>(loopNonneg_.size())) loopNonneg_.resize(st.loop_var + 1, false);
      auto step = st.step ? constOf(st.step) : std::optional<int64_t>(1);
      loopNonneg_[st.loop_var] = step && *step > 0 && nonneg(*st.lo);
      analyzeLoops(st.body);
    } else if (st.kind == Stmt::Kind::If) {
      analyzeLoops(st.body);
      analyzeLoops(st.orelse);
    }
  }
}

namespace {
// the instance's warps are whole aligned warpgroups
bool alignedWarpgroups(const ir::Role& role) {
  const int wpi = role.warpsPerInstance();
  if (wpi % 4) return false;
  for (int i = 0; i < role.instanceCount(); ++i) {
    const int first = role.warps[i * wpi];
    if (first % 4) return false;
    for (int k = 1; k < wpi; ++k)
      if (role.warps[i * wpi + k] != first + k) return false;
  }
  return true;
}
}  // namespace

void Lowering::planMmas() {
  using K = ir::BufferRef::Kind;
  // roles with an mma whose a is a fragment: their mma.sync accumulators use
  // one warp column (wn = 1) so that a fragment holds whole rows of K
  std::set<int> rsRoles;
  for (const auto& body : s_.bodies)
    ir::forEachOp(body.body, [&](const Stmt& st) {
      if (st.op.kind == OpKind::Mma && st.op.src.kind == K::Regs) rsRoles.insert(body.role);
    });
  for (const auto& body : s_.bodies) {
    const auto& role = s_.roles[body.role];
    ir::forEachOp(body.body, [&](const Stmt& st) {
      const auto& op = st.op;
      if (op.kind != OpKind::Mma) return;
      auto fail = [&](const char* rule, const std::string& m) { error(rule, op.range, m); };
      if (op.src2.kind != K::View) return fail("lower.unsupported", "an mma whose b operand is not a view slot");
      const int vb = op.src2.index;
      const auto& B = s_.views[vb];
      Tile tb, ta, tacc;
      if (!refTile(op.src2, tb)) return fail("lower.unsupported", "the mma b operand's slice has no constant extent");
      if (!refTile(op.src, ta)) return fail("lower.unsupported", "the mma a operand's slice has no constant extent");
      if (!refTile(op.dst, tacc) || !op.dst.slices.empty())
        return fail("lower.unsupported", "a sliced mma accumulator");
      if (op.src.kind == K::View && viewShape(op.src.index).size() != 2)
        return fail("lower.unsupported", "an mma operand view that is not 2-D");
      if (viewShape(vb).size() != 2) return fail("lower.unsupported", "an mma operand view that is not 2-D");
      if (op.src.slices.size() > 1 || op.src2.slices.size() > 1) {
        const auto& sl = op.src.slices.size() > 1 ? op.src.slices[1] : op.src2.slices[1];
        if (sl.lo || sl.hi) return fail("lower.layout", "an mma operand may be sliced along rows only");
      }
      const int64_t K = ta.C;
      if (tb.C != K || ta.R != tacc.R || tb.R != tacc.C)
        return fail("lower.layout", fmt::format("mma shapes: acc {}x{}, a {}x{}, b {}x{}: need acc = a rows x b rows "
                                                "and a common K", tacc.R, tacc.C, ta.R, ta.C, tb.R, tb.C));
      const ir::DType adt = refDtype(op.src), bdt = B.dtype;
      auto tyName = [](ir::DType d) -> std::string {
        switch (d) {
          case ir::DType::BF16: return "bf16";
          case ir::DType::F16: return "f16";
          case ir::DType::E4M3: return "e4m3";
          case ir::DType::E5M2: return "e5m2";
          case ir::DType::F32: return "tf32";
          default: return "";
        }
      };
      auto smemOk = [&](int v) { return blockView(v); };
      MmaPlan p;
      if (op.dst.kind == K::Tmem) {
        if (target_ != ir::Target::SM100a)
          return fail("lower.unsupported", "an mma into TMEM (tcgen05) needs sm_100a");
        if (op.src.kind != K::View) return fail("lower.unsupported", "tcgen05.mma with a from registers or TMEM");
        p.kind = MmaPlan::Tcgen05;
        p.ty = tyName(adt);
        if (adt != bdt || p.ty.empty())
          return fail("lower.layout", "tcgen05.mma operands must have one type of bf16, f16, e4m3, e5m2 or f32 (tf32)");
        p.kstep = 32 / ir::dtypeBytes(adt);
        if (!smemOk(op.src.index) || !smemOk(vb))
          return fail("lower.layout", "tcgen05.mma operands need the K-major canonical layout: rows of a multiple of 32 "
                                      "bytes, a multiple of 8 rows, and an offset aligned to the swizzle atom (8 rows)");
        if (ta.R != 64 && ta.R != 128) return fail("lower.layout", fmt::format("tcgen05.mma M = {} (64 or 128)", ta.R));
        if (tb.R % (ta.R == 64 ? 8 : 16) || tb.R < 8 || tb.R > 256)
          return fail("lower.layout", fmt::format("tcgen05.mma N = {} (a multiple of {} up to 256)", tb.R,
                                                  ta.R == 64 ? 8 : 16));
        if (K % p.kstep) return fail("lower.layout", fmt::format("tcgen05.mma K = {} is not a multiple of {}", K, p.kstep));
        usesTmem_ = true;
        mma_[&op] = p;
        return;
      }
      if (op.dst.kind != K::Regs) return fail("lower.unsupported", "an mma accumulator that is not regs or TMEM");
      if (s_.regs[op.dst.index].dtype != ir::DType::F32)
        return fail("lower.layout", "mma accumulators are f32 fragments");
      const int wpi = role.warpsPerInstance();
      std::string whyNotWgmma;
      bool wg = target_ == ir::Target::SM90a;
      if (!wg) whyNotWgmma = "wgmma is sm_90a only";
      if (wg && !alignedWarpgroups(role)) {
        wg = false;
        whyNotWgmma = fmt::format("role '{}' instances are not whole aligned warpgroups", role.name);
      }
      const int G = std::max(1, wpi / 4);
      if (wg && (tacc.R % (64 * G) || tacc.C % 8 || tacc.C > 256)) {
        wg = false;
        whyNotWgmma = fmt::format("accumulator {}x{} is not {} x (multiple of 64) rows by 8..256 columns", tacc.R,
                                  tacc.C, G);
      }
      const std::string ty = tyName(bdt);
      if (wg && (ty.empty() || (op.src.kind == K::View && adt != bdt))) {
        wg = false;
        whyNotWgmma = "operand types";
      }
      if (wg && (!smemOk(vb) || (op.src.kind == K::View && !smemOk(op.src.index)))) {
        wg = false;
        whyNotWgmma = "wgmma operands need the K-major canonical layout (rows of a multiple of 32 bytes, 8-row atoms)";
      }
      if (op.src.kind == K::Regs && !wg) {
        // mma.sync m16n8k16 with A from the fragment (its mma.sync layout, one warp column)
        if (bdt != ir::DType::BF16 && bdt != ir::DType::F16)
          return fail("lower.layout", "mma.sync with a from registers needs bf16 or f16 b");
        if (adt != bdt && adt != ir::DType::F32)
          return fail("lower.layout", "the a fragment of an mma must have b's type (or f32, converted)");
        if (K % 16) return fail("lower.layout", fmt::format("mma.sync K = {} is not a multiple of 16", K));
        if (tacc.R % (16 * wpi) || tacc.C % 16)
          return fail("lower.layout", fmt::format("mma.sync with a from registers: accumulator {}x{} must split into "
                                                  "{} warps of 16-row multiples, columns a multiple of 16 ({})",
                                                  tacc.R, tacc.C, wpi, whyNotWgmma));
        if (viewRowBytes(vb) % 16) return fail("lower.layout", "ldmatrix needs operand rows of a multiple of 16 bytes");
        p.kind = MmaPlan::MmaSync;
        p.rs = true;
        p.ty = tyName(bdt);
        p.wm = wpi;
        p.wn = 1;
        p.kstep = 16;
      } else if (op.src.kind == K::Regs) {
        if (bdt != ir::DType::BF16 && bdt != ir::DType::F16)
          return fail("lower.layout", "wgmma with a from registers needs bf16 or f16 operands");
        if (adt != bdt && adt != ir::DType::F32)
          return fail("lower.layout", "the a fragment of a wgmma must have b's type (or f32, converted)");
        p.kind = MmaPlan::Wgmma;
        p.rs = true;
        p.G = G;
        p.ty = ty;
        p.kstep = 16;
        if (K % 16) return fail("lower.layout", fmt::format("wgmma K = {} is not a multiple of 16", K));
      } else if (op.src.kind != K::View) {
        return fail("lower.unsupported", "an mma whose a operand is not a view slot or regs");
      } else if (wg) {
        p.kind = MmaPlan::Wgmma;
        p.G = G;
        p.ty = ty;
        p.kstep = 32 / ir::dtypeBytes(bdt);
        if (K % p.kstep) return fail("lower.layout", fmt::format("wgmma K = {} is not a multiple of {}", K, p.kstep));
      } else {
        // mma.sync m16n8k16 over a warp grid of the instance
        if ((adt != ir::DType::BF16 && adt != ir::DType::F16) || adt != bdt)
          return fail("lower.layout", "mma.sync (" + whyNotWgmma + ") takes bf16 or f16 operands of one type");
        if (K % 16) return fail("lower.layout", fmt::format("mma.sync K = {} is not a multiple of 16", K));
        if (viewRowBytes(op.src.index) % 16 || viewRowBytes(vb) % 16)
          return fail("lower.layout", "ldmatrix needs operand rows of a multiple of 16 bytes");
        int best = -1;
        for (int wm = 1; wm <= wpi; ++wm) {
          if (wpi % wm) continue;
          if (rsRoles.count(body.role) && wm != wpi) continue;
          const int wn = wpi / wm;
          if (tacc.R % (16 * wm) || tacc.C % (16 * wn)) continue;
          const int score = static_cast<int>(std::abs(tacc.R / wm - tacc.C / wn));
          if (best < 0 || score < best) {
            best = score;
            p.wm = wm;
            p.wn = wn;
          }
        }
        if (best < 0)
          return fail("lower.layout", fmt::format("mma.sync accumulator {}x{} does not split over {} warps in m16 x "
                                                  "n16 tiles ({})", tacc.R, tacc.C, wpi, whyNotWgmma));
        p.kind = MmaPlan::MmaSync;
        p.ty = ty;
        p.kstep = 16;
      }
      mma_[&op] = p;
    });
  }
}

std::optional<Dist> Lowering::distFor(const Family& f, bool row, int64_t E, std::string* why) const {
  Dist d;
  d.E = E;
  if (E == 1) return d;
  switch (f.kind) {
    case Family::Generic:
    case Family::None:
      if (row != f.colsMajor) {
        d.kind = Dist::Cyclic;
        d.T = f.T;
        d.n = static_cast<int>((E + f.T - 1) / f.T);
      } else {
        d.kind = Dist::Full;
        d.n = static_cast<int>(E);
      }
      return d;
    case Family::Wg:
      if (row) {
        if (E % (64 * f.G)) break;
        d.kind = Dist::WgRow;
        d.G = f.G;
        d.n = static_cast<int>(2 * E / (64 * f.G));
      } else {
        if (E % 8) break;
        d.kind = Dist::WgCol;
        d.n = static_cast<int>(E / 4);
      }
      return d;
    case Family::Mma:
      d.wm = f.wm;
      d.wn = f.wn;
      if (row) {
        if (E % (16 * f.wm)) break;
        d.kind = Dist::MmaRow;
        d.n = static_cast<int>(E / (8 * f.wm));
      } else {
        if (E % (8 * f.wn)) break;
        d.kind = Dist::MmaCol;
        d.n = static_cast<int>(E / (4 * f.wn));
      }
      return d;
  }
  if (why) *why = fmt::format("{} {} do not fit the {}", E, row ? "rows" : "columns", f.describe());
  return std::nullopt;
}

std::optional<Layout> Lowering::layoutFor(const Family& f, Tile t, std::string* why) const {
  auto r = distFor(f, true, t.R, why);
  if (!r) return std::nullopt;
  auto c = distFor(f, false, t.C, why);
  if (!c) return std::nullopt;
  return Layout{f, t, *r, *c};
}

const Layout* Lowering::layoutOf(int regs) const {
  auto it = frag_.find({role_, regs});
  return it == frag_.end() ? nullptr : &it->second;
}

void Lowering::analyzeFragments() {
  using K = ir::BufferRef::Kind;
  // normalised tiles: a rank-1 fragment is a row (1, n), except the result
  // of a reduction over the last axis of a 2-D fragment, which is a column
  regsTiles_.clear();
  std::vector<Tile> tiles;
  for (size_t r = 0; r < s_.regs.size(); ++r) tiles.push_back(regsTile(static_cast<int>(r)));
  regsTiles_ = tiles;
  for (const auto& body : s_.bodies)
    ir::forEachOp(body.body, [&](const Stmt& st) {
      const auto& op = st.op;
      if (op.kind == OpKind::Reduce && op.dst.kind == K::Regs && s_.regs[op.dst.index].shape.size() == 1) {
        size_t srank = 0;
        if (op.src.kind == K::Regs) srank = s_.regs[op.src.index].shape.size();
        if (op.src.kind == K::View) srank = s_.views[op.src.index].shape.size();
        if (srank == 2 && op.axis == 1) std::swap(regsTiles_[op.dst.index].R, regsTiles_[op.dst.index].C);
      }
    });

  // union-find over (role, regs)
  std::map<std::pair<int, int>, int> id;
  std::vector<int> parent;
  std::vector<std::vector<Family>> anchors;
  auto node = [&](int role, int regs) {
    auto [it, inserted] = id.insert({{role, regs}, static_cast<int>(parent.size())});
    if (inserted) {
      parent.push_back(it->second);
      anchors.emplace_back();
    }
    return it->second;
  };
  std::function<int(int)> find = [&](int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); };
  auto unite = [&](int a, int b) { parent[find(a)] = find(b); };
  for (const auto& body : s_.bodies) {
    const int r = body.role;
    const auto& role = s_.roles[r];
    const int T = role.warpsPerInstance() * 32;
    ir::forEachOp(body.body, [&](const Stmt& st) {
      const auto& op = st.op;
      std::vector<int> regsOps;
      for (const auto* ref : {&op.dst, &op.src, &op.src2})
        if (ref->kind == K::Regs) {
          if (!ref->slices.empty() && (op.kind == OpKind::Mma || op.kind == OpKind::Reduce ||
                                       (op.kind == OpKind::Copy && (op.dst.kind == K::Tmem || op.src.kind == K::Tmem)))) {
            error("lower.unsupported", op.range,
                  fmt::format("a sliced register fragment ('{}') as an mma, reduce or TMEM operand",
                              s_.regs[ref->index].name));
            return;
          }
          regsOps.push_back(node(r, ref->index));
        }
      if (op.kind == OpKind::Mma) {
        auto it = mma_.find(&op);
        if (it == mma_.end() || op.dst.kind != K::Regs) return;
        Family f;
        f.T = T;
        if (it->second.kind == MmaPlan::Wgmma) {
          f.kind = Family::Wg;
          f.G = it->second.G;
        } else {
          f.kind = Family::Mma;
          f.wm = it->second.wm;
          f.wn = it->second.wn;
        }
        anchors[find(node(r, op.dst.index))].push_back(f);
        if (op.src.kind == K::Regs) unite(node(r, op.src.index), node(r, op.dst.index));
        return;
      }
      if (op.kind == OpKind::Copy && (op.dst.kind == K::Tmem || op.src.kind == K::Tmem)) {
        const auto& rr = op.dst.kind == K::Regs ? op.dst : op.src;
        if (rr.kind != K::Regs) return;
        Family f;
        f.kind = Family::Generic;
        f.T = T;
        f.tmem = true;
        anchors[find(node(r, rr.index))].push_back(f);
        return;
      }
      for (size_t i = 1; i < regsOps.size(); ++i) unite(regsOps[i], regsOps[0]);
    });
  }
  // merge anchors per component
  std::map<int, std::vector<std::pair<int, int>>> members;
  for (const auto& [key, x] : id) members[find(x)].push_back(key);
  for (auto& [root, keys] : members) {
    std::vector<Family> fams;
    for (const auto& key : keys)
      for (const auto& f : anchors[id[key]]) fams.push_back(f);
    const auto& role = s_.roles[keys[0].first];
    Family fam;
    fam.kind = Family::Generic;
    fam.T = role.warpsPerInstance() * 32;
    if (!fams.empty()) {
      fam = fams[0];
      for (const auto& f : fams)
        if (!(f == fam)) {
          error("lower.layout", s_.regs[keys[0].second].range,
                fmt::format("fragments connected to '{}' in role '{}' need two register layouts ({} and {}): split "
                            "them or copy through shared memory",
                            s_.regs[keys[0].second].name, role.name, fam.describe(), f.describe()));
          break;
        }
      for (const auto& f : fams) fam.tmem = fam.tmem || f.tmem;
    } else {
      bool allRows = true, anyCol = false;
      for (const auto& key : keys) {
        allRows = allRows && regsTiles_[key.second].R == 1;
        anyCol = anyCol || regsTiles_[key.second].C > 1;
      }
      fam.colsMajor = allRows && anyCol;
    }
    for (const auto& key : keys) {
      std::string why;
      auto l = layoutFor(fam, regsTiles_[key.second], &why);
      if (!l) {
        error("lower.layout", s_.regs[key.second].range,
              fmt::format("fragment '{}' ({}x{}) in role '{}': {}", s_.regs[key.second].name,
                          regsTiles_[key.second].R, regsTiles_[key.second].C, role.name, why));
        continue;
      }
      if (static_cast<int64_t>(l->NR()) * l->NC() > 1024)
        error("lower.layout", s_.regs[key.second].range,
              fmt::format("fragment '{}' needs {} elements per thread in role '{}' (at most 1024 are lowered)",
                          s_.regs[key.second].name, static_cast<int64_t>(l->NR()) * l->NC(), role.name));
      frag_[key] = *l;
    }
  }
}

bool Lowering::regsShift(const ir::BufferRef& ref, const Layout& full, Tile sub, int& di, int& dj,
                         std::string* why) const {
  di = dj = 0;
  if (ref.slices.empty()) return true;
  int64_t off[2] = {0, 0};
  const bool oneD = s_.regs[ref.index].shape.size() == 1;
  for (size_t k = 0; k < ref.slices.size() && k < 2; ++k) {
    const auto& lo = ref.slices[k].lo;
    auto c = lo ? constOf(lo) : std::optional<int64_t>(0);
    if (!c) {
      if (why) *why = "a register fragment slice needs constant bounds";
      return false;
    }
    const int dim = oneD ? (full.t.R > 1 ? 0 : 1) : static_cast<int>(k);
    off[dim] = *c;
  }
  auto shiftOf = [&](const Dist& d, int64_t o, int64_t ext, int& sh) -> bool {
    if (o == 0 && ext == d.E) return true;
    switch (d.kind) {
      case Dist::One: return o == 0;
      case Dist::Full: sh = static_cast<int>(o); return true;
      case Dist::Cyclic:
        if (o % d.T || ext == 1) return false;
        sh = static_cast<int>(o / d.T);
        return true;
      case Dist::WgRow:
        if (o % (64 * d.G) || ext % (64 * d.G)) return false;
        sh = static_cast<int>(2 * o / (64 * d.G));
        return true;
      case Dist::WgCol:
        if (o % 8 || ext % 8) return false;
        sh = static_cast<int>(o / 4);
        return true;
      case Dist::MmaRow:
        if (d.wm != 1 || o % 16 || ext % 16) return false;
        sh = static_cast<int>(o / 8);
        return true;
      case Dist::MmaCol:
        if (d.wn != 1 || o % 8 || ext % 8) return false;
        sh = static_cast<int>(o / 4);
        return true;
    }
    return false;
  };
  if (!shiftOf(full.row, off[0], sub.R, di) || !shiftOf(full.col, off[1], sub.C, dj)) {
    if (why)
      *why = fmt::format("the slice at ({}, {}) of fragment '{}' is not a whole part of its {}", off[0], off[1],
                         s_.regs[ref.index].name, full.fam.describe());
    return false;
  }
  return true;
}

int Lowering::reduceDim(const ir::Op& op) const {
  using K = ir::BufferRef::Kind;
  std::vector<int64_t> shape;
  Tile t;
  if (op.src.kind == K::Regs) {
    for (const auto& d : s_.regs[op.src.index].shape) shape.push_back(constOf(d).value_or(1));
    t = regsTile(op.src.index);
  } else if (op.src.kind == K::View) {
    shape = viewShape(op.src.index);
    t = viewTile(op.src.index);
  } else {
    return op.axis == 0 ? 0 : 1;  // a tensor operand takes the other operands' 2-D tile
  }
  const int rank = static_cast<int>(shape.size());
  if (op.axis < 0 || op.axis >= rank) return -1;
  if (rank == 1) return t.R == 1 ? 1 : 0;
  if (op.axis == rank - 1) return 1;
  int64_t others = 1;
  for (int i = 0; i + 1 < rank; ++i)
    if (i != op.axis) others *= shape[i];
  return others == 1 ? 0 : -1;
}

void Lowering::analyzeScratch() {
  using K = ir::BufferRef::Kind;
  roleScratch_.assign(s_.roles.size(), -1);
  roleScratchStride_.assign(s_.roles.size(), 0);
  int64_t off = (smemUsed_ + 15) / 16 * 16;
  for (const auto& body : s_.bodies) {
    const int r = body.role;
    const auto& role = s_.roles[r];
    const int W = role.warpsPerInstance();
    if (W <= 1 || roleScratch_[r] >= 0) continue;
    bool need = false;
    for (const auto& b2 : s_.bodies) {
      if (b2.role != r) continue;
      ir::forEachOp(b2.body, [&](const Stmt& st) {
        const auto& op = st.op;
        if (op.kind != OpKind::Reduce || op.src.kind != K::Regs) return;
        auto it = frag_.find({r, op.src.index});
        if (it == frag_.end()) return;
        const int rd = reduceDim(op);
        if (rd < 0) return;
        const Dist& dd = rd == 0 ? it->second.row : it->second.col;
        if (dd.kind == Dist::Cyclic || dd.kind == Dist::WgRow || (dd.kind == Dist::MmaRow && dd.wm > 1) ||
            (dd.kind == Dist::MmaCol && dd.wn > 1))
          need = true;
      });
    }
    if (!need) continue;
    roleScratch_[r] = off;
    roleScratchStride_[r] = static_cast<int64_t>(W) * 32 * scratchSlots_ * 8;
    off += roleScratchStride_[r] * role.instanceCount();
  }
  smemUsed_ = std::max(smemUsed_, off);
  const ir::TargetLimits& lim = ir::targetLimits(target_);
  if (smemUsed_ + 1024 > lim.smem_per_block)
    error("lower.layout", s_.range,
          fmt::format("shared memory {} B (+1024 B alignment slack) exceeds the {} B a block can have on {}", smemUsed_,
                      lim.smem_per_block, ir::targetName(target_)));
}

void Lowering::deriveGrid() {
  using K = ir::BufferRef::Kind;
  bool usesGrid = false;
  auto visit = [&](const ir::ExprPtr& e) {
    if (e && exprUses(*e, ExprKind::GridDim)) usesGrid = true;
  };
  const ir::Op* out = nullptr;
  std::function<void(const ir::Block&)> walk = [&](const ir::Block& b) {
    for (const auto& st : b) {
      if (st.kind == Stmt::Kind::For) {
        visit(st.lo);
        visit(st.hi);
        walk(st.body);
      } else if (st.kind == Stmt::Kind::If) {
        visit(st.cond);
        walk(st.body);
        walk(st.orelse);
      } else {
        for (const auto& c : st.op.coords) visit(c);
        visit(st.op.sel.index);
        if (!out && st.op.dst.kind == K::Param && !st.op.coords.empty()) out = &st.op;
      }
    }
  };
  for (const auto& body : s_.bodies) walk(body.body);
  for (auto& g : gridHost_) g = "1";
  if (usesGrid) {
    persistent_ = true;
    gridDerived_ = true;
    gridHost_[0] = "cake_num_sms";
    return;
  }
  if (!out) return;
  const int p = out->dst.index;
  int tindex = 0;
  for (int i = 0; i < p; ++i) tindex += ir::isTensorParam(s_.params[i].type) ? 1 : 0;
  ir::EvalEnv env;
  for (size_t q = 0; q < s_.params.size(); ++q) env.params[static_cast<int>(q)] = 1 << 20;
  specEnv(env);
  for (size_t v = 0; v < s_.loop_vars.size(); ++v) env.loop_vars[static_cast<int>(v)] = 0;
  env.instance = 0;
  for (int d = 0; d < 3; ++d) {
    env.block_idx[d] = 0;
    env.grid_dim[d] = 1;
  }
  bool any = false;
  for (int d = 0; d < 3; ++d) {
    for (size_t c = 0; c < out->coords.size(); ++c) {
      ir::EvalEnv e1 = env;
      e1.block_idx[d] = 1;
      auto v0 = ir::evaluate(*out->coords[c], env), v1 = ir::evaluate(*out->coords[c], e1);
      if (!v0 || !v1) return;
      const int64_t step = *v1 - *v0;
      if (step > 0) {
        gridHost_[d] = fmt::format("cake_cdiv(static_cast<int>(cake_t[{}].dims[{}]), {})", tindex, c, step);
        any = true;
        break;
      }
    }
  }
  gridDerived_ = any;
  // A 2-D grid of independent CTAs (no clusters) is walked in groups of
  // block rows (see emitRaster); a persistent schedule orders its own tiles.
  raster_ = any && gridHost_[0] != "1" && gridHost_[1] != "1" && s_.cluster[0] * s_.cluster[1] * s_.cluster[2] == 1;
}

void Lowering::checkOps() {
  using K = ir::BufferRef::Kind;
  const bool hopperPlus = target_ == ir::Target::SM90a || target_ == ir::Target::SM100a;
  for (const auto& body : s_.bodies) {
    ir::forEachOp(body.body, [&](const Stmt& st) {
      const auto& op = st.op;
      auto unsupported = [&](const std::string& what) {
        error("lower.unsupported", op.range, fmt::format("{} is not lowered for {}", what, ir::targetName(target_)));
      };
      auto constPending = [&] {
        if (op.pending && !constOf(op.pending)) error("lower.unsupported", op.range, "pending= must be a constant");
      };
      switch (op.kind) {
        case OpKind::TmaLoad:
        case OpKind::TmaStore: {
          if (!hopperPlus) return unsupported("a TMA copy (sm_90a and later)");
          const auto& view = op.kind == OpKind::TmaLoad ? op.dst : op.src;
          const auto& tensor = op.kind == OpKind::TmaLoad ? op.src : op.dst;
          if (view.kind != K::View || tensor.kind != K::Param)
            return unsupported("a TMA copy that is not between a view slot and a tensor parameter");
          if (!view.slices.empty()) return unsupported("a TMA copy of a sliced slot");
          const int rank = ir::tmaRank(s_.params[tensor.index].type);
          if (rank == 0) return unsupported("a TMA copy of an LM.gmem parameter");
          if (static_cast<int>(op.coords.size()) != rank)
            return unsupported(fmt::format("a TMA copy with {} coordinates of a rank-{} tensor", op.coords.size(), rank));
          for (auto d : tmaBox(view.index, rank))
            if (d > 256) error("lower.layout", op.range, fmt::format("TMA box dimension {} > 256", d));
          if (viewRowBytes(view.index) % 16) error("lower.layout", op.range, "TMA box rows must be multiples of 16 B");
          const int sw = ir::swizzleBytes(s_.views[view.index].swizzle);
          // rows up to the swizzle span are what TMA takes; wider rows are stored as blocked columns
          if (sw && viewRowBytes(view.index) > sw && !viewBlock_[view.index]) blockView(view.index);
          if (sw && !viewBlock_[view.index] && (viewRowBytes(view.index) > sw || sw % viewRowBytes(view.index)))
            error("lower.layout", op.range,
                  fmt::format("view '{}': TMA with a {}B swizzle needs rows of at most {} B that divide it (rows are "
                              "{} B)", s_.views[view.index].name, sw, sw, viewRowBytes(view.index)));
          if (op.kind == OpKind::TmaLoad && op.barrier < 0) error("lower.unsupported", op.range, "a TMA load needs barrier=");
          break;
        }
        case OpKind::TmaStoreCommit:
        case OpKind::TmaStoreWait:
          if (!hopperPlus) return unsupported("lm." + std::string(ir::opName(op.kind)));
          constPending();
          break;
        case OpKind::ExpectTx:
          if (!hopperPlus) return unsupported("lm.expect_tx (sm_90a and later)");
          break;
        case OpKind::MmaWait:
        case OpKind::CpAsyncWait:
          constPending();
          break;
        case OpKind::MmaCommit:
          if (op.barrier >= 0 && target_ == ir::Target::SM90a)
            break;  // wgmma groups cannot arrive: wait_group 0, then arrive (see emitMmaCommit)
          break;
        case OpKind::CpAsync: {
          if (op.dst.kind != K::View || op.src.kind != K::Param || !op.dst.slices.empty())
            return unsupported("a cp_async that is not a whole view slot from a tensor");
          if (op.coords.empty()) return unsupported("a cp_async without coords=");
          if (op.coords.size() == 1 && viewTile(op.dst.index).R != 1)
            return unsupported("a cp_async of a 2-D slot from a rank-1 tensor");
          if (viewShape(op.dst.index).size() > 2 && viewShape(op.dst.index)[0] != 1)
            return unsupported("a cp_async into a view of rank > 2");
          break;
        }
        case OpKind::Arrive:
          if (op.count && !constOf(op.count)) error("lower.unsupported", op.range, "arrive count= must be a constant");
          break;
        case OpKind::Copy: {
          const auto dk = op.dst.kind, sk = op.src.kind;
          if (dk == K::Tmem || sk == K::Tmem) {
            if (!((dk == K::Tmem && sk == K::Regs) || (dk == K::Regs && sk == K::Tmem)))
              return unsupported("a TMEM copy that is not TMEM <-> regs (tcgen05.ld / tcgen05.st)");
            if (target_ != ir::Target::SM100a) return unsupported("a TMEM copy (sm_100a)");
            usesTmem_ = true;
            break;
          }
          if (dk == K::Param && sk == K::Param) return unsupported("a copy between two tensors");
          if ((dk == K::Param || sk == K::Param) && op.coords.empty()) return unsupported("a tensor copy without coords=");
          break;
        }
        case OpKind::Fill:
          if (op.dst.kind == K::Tmem || op.dst.kind == K::Param) return unsupported("lm.fill of TMEM or a tensor");
          break;
        case OpKind::Unary:
        case OpKind::Binary:
        case OpKind::Reduce: {
          int tensorsSeen = 0;
          for (const auto* r : {&op.dst, &op.src, &op.src2}) {
            if (r->kind == K::Tmem) return unsupported("a compute op on TMEM (copy it to regs first)");
            if (r->kind == K::Param) ++tensorsSeen;
          }
          if (tensorsSeen > 1) return unsupported("a compute op on two tensor operands (one coords=)");
          if (tensorsSeen && op.coords.empty()) return unsupported("a tensor operand without coords=");
          if (op.kind == OpKind::Reduce && op.dst.kind == K::Param) return unsupported("a reduction into a tensor");
          break;
        }
        default:
          break;
      }
    });
  }
}

bool Lowering::bindGemm(bool report) {
  std::vector<int> tp;
  bool ok = true;
  auto bad = [&](const ir::SourceRange& r, const std::string& m) {
    ok = false;
    if (report) error("lower.binding", r, m);
  };
  for (size_t i = 0; i < s_.params.size(); ++i) {
    const auto& p = s_.params[i];
    if (ir::isTensorParam(p.type)) {
      tp.push_back(static_cast<int>(i));
      const auto& t = tensors_[i];
      if (!(p.type == ir::ParamType::Tma2d || (p.type == ir::ParamType::Gmem && (t.rank == 2 || t.rank == 0))))
        bad(p.range, fmt::format("tensor parameter '{}' is {} (rank {}): a GEMM binds rank-2 tensors", p.name,
                                 ir::paramTypeName(p.type), t.rank));
      if (t.dtypeKnown && t.dtype != ir::DType::BF16)
        bad(p.range, fmt::format("tensor parameter '{}' holds {}: the GEMM run is bf16", p.name, ir::dtypeName(t.dtype)));
    } else if (p.type == ir::ParamType::I32) {
      if (p.name != "M" && p.name != "N" && p.name != "K")
        bad(p.range, fmt::format("i32 parameter '{}' has no value in a GEMM run (only M, N and K are bound)", p.name));
    } else {
      bad(p.range, fmt::format("parameter '{}' ({}) has no value in a GEMM run", p.name, ir::paramTypeName(p.type)));
    }
  }
  if (tp.size() != 3)
    bad(s_.range, fmt::format("a GEMM binds three tensor parameters A [M,K], B [N,K], C [M,N]; schedule '{}' has {}",
                              s_.name, tp.size()));
  if (ok && !gridDerived_) {
    ok = false;
    if (report)
      error("lower.grid", s_.range,
            "no store to an output tensor whose coordinates move with lm.block_idx (and no lm.grid_dim): the grid "
            "of a GEMM run cannot be derived");
  }
  return ok;
}

// ------------------------------------------------------------- the driver

LowerResult Lowering::run() {
  LowerResult res;
  auto finish = [&]() {
    res.findings = findings_;
    return res;
  };
  target_ = opts_.target != ir::Target::Unspecified ? opts_.target : s_.target;
  if (target_ == ir::Target::Unspecified) target_ = s_.tmems.empty() ? ir::Target::SM90a : ir::Target::SM100a;
  res.target = target_;
  if (opts_.target != ir::Target::Unspecified && s_.target != ir::Target::Unspecified && opts_.target != s_.target) {
    error("lower.unsupported", s_.range,
          fmt::format("schedule '{}' is written for {}, not {}: lowering never retargets a schedule", s_.name,
                      ir::targetName(s_.target), ir::targetName(opts_.target)));
    return finish();
  }
  auto plainIdent = [](const std::string& n) {
    if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
    for (char c : n)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return !isReserved(n);
  };
  if (!opts_.namespace_name.empty() && !plainIdent(opts_.namespace_name)) {
    error("lower.unsupported", s_.range,
          fmt::format("namespace name '{}' is not a plain C++ identifier", sanitizeComment(opts_.namespace_name)));
    return finish();
  }
  for (const auto& [name, v] : opts_.specialize) {
    bool found = false;
    for (size_t i = 0; i < s_.params.size(); ++i)
      if (s_.params[i].name == name && s_.params[i].type == ir::ParamType::I32) {
        spec_[static_cast<int>(i)] = v;
        found = true;
      }
    if (!found)
      error("lower.unsupported", s_.range,
            fmt::format("specialize: schedule '{}' has no i32 parameter '{}'", s_.name, sanitizeComment(name)));
  }
  specEnv(specEnv_);
  for (const auto& a : s_.assumes)
    if (!spec_.empty() && a.cond)
      if (auto v = ir::evaluate(*a.cond, specEnv_); v && *v == 0)
        error("lower.unsupported", a.range,
              fmt::format("the specialised values violate lm.assume({})", pyText(a.cond)));
  if (failed()) return finish();
  assignNames();
  viewBlock_.assign(s_.views.size(), 0);
  analyzeParams();
  layoutSmem();
  for (const auto& r : s_.regs)
    for (const auto& d : r.shape) needConst(d, r.range, fmt::format("the shape of fragment '{}'", r.name));
  for (const auto& t : s_.tmems) {
    needConst(t.cols, t.range, fmt::format("the columns of '{}'", t.name));
    needConst(t.width, t.range, fmt::format("the width of '{}'", t.name));
    for (const auto& d : t.shape) needConst(d, t.range, fmt::format("the shape of '{}'", t.name));
  }
  if (failed()) return finish();
  analyzeRoles();
  if (failed()) return finish();
  analyzeBarriers();
  for (const auto& b : s_.bodies) analyzeLoops(b.body);
  if (opts_.problem == Problem::Gemm)
    for (size_t i = 0; i < s_.params.size(); ++i)
      if (s_.params[i].type == ir::ParamType::I32 &&
          (s_.params[i].name == "M" || s_.params[i].name == "N" || s_.params[i].name == "K"))
        nonnegParams_.insert(static_cast<int>(i));
  planMmas();
  blockStagingViews();
  analyzeFragments();
  checkOps();
  if (usesTmem_ && target_ != ir::Target::SM100a)
    error("lower.unsupported", s_.range, "TMEM needs sm_100a");
  if (usesTmem_) {
    int64_t need = 0;
    for (const auto& t : s_.tmems) need = std::max(need, constOf(t.cols).value_or(0) + constOf(t.width).value_or(0));
    int cols = 32;
    while (cols < need) cols *= 2;
    if (cols > ir::hw::kTmemColumns)
      error("lower.layout", s_.range,
            fmt::format("TMEM columns [0, {}) exceed the {} of an SM", need, ir::hw::kTmemColumns));
    tmemCols_ = cols;
    if (tmemSlotOffset_ < 0) {
      tmemSlotOffset_ = smemUsed_;
      smemUsed_ += 8;
    }
  }
  analyzeScratch();
  deriveGrid();
  if (opts_.problem == Problem::Gemm) gemm_ = bindGemm(true);
  else if (opts_.problem == Problem::Auto) gemm_ = bindGemm(false);
  if (failed()) return finish();

  out_.clear();
  emitKernel();
  std::string kernel = std::move(out_);
  out_.clear();
  emitHost();
  std::string host = std::move(out_);
  if (failed()) return finish();

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
  src += preludeSm80Text();
  if (target_ == ir::Target::SM100a) src += preludeTcgen05Text();
  for (const auto& [n, ty, rs] : wgmmaHelpers_) src += "\n" + wgmmaHelper(n, ty, rs);
  src += "\n";
  src += kernel;
  if (!tmaps_.empty()) src += preludeHostText();
  src += host;
  if (!opts_.namespace_name.empty()) src += fmt::format("\n}}  // namespace {}\n", opts_.namespace_name);
  res.ok = true;
  res.source = std::move(src);
  res.kernel_name = kernelName();
  res.problem = gemm_ ? Problem::Gemm : Problem::None;
  res.arch_flags = flags;
  res.launch.threads = threads_;
  res.launch.smem_bytes = static_cast<int>(smemUsed_ + 1024);
  res.launch.grid = hostGridText();
  res.launch.persistent = persistent_;
  for (int d = 0; d < 3; ++d) res.launch.cluster[d] = s_.cluster[d];
  return finish();
}

}  // namespace detail

LowerResult lowerToCuda(const ir::Schedule& schedule, const LowerOptions& opts) {
  detail::Lowering l(schedule, opts);
  return l.run();
}

std::span<const ir::RuleInfo> loweringRules() { return ir::rulesOf(ir::RuleOwner::Lowering); }

}  // namespace cake::lowering
