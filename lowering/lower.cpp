// ir::Schedule -> CUDA C++ with inline PTX. See lower.h and docs/gpu.md.
//
// Structure of the output:
//   prelude (fixed helpers) | per-shape wgmma helpers | the kernel | host launch code
// The kernel: barrier init by thread 0, then one branch per role (an
// if / else-if chain on the warp index, so setmaxnreg sits in a single
// branch per warpgroup), each running the role's body for its instance.
#include "lowering/lower.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "lowering/prelude.h"

namespace cake::lowering {

using ir::Expr;
using ir::ExprKind;
using ir::OpKind;
using ir::Stmt;

namespace {

const ir::RuleInfo kRules[] = {
    {"lower.unsupported", ir::Severity::Error, ir::Category::HardwareConformance,
     "the lowering has no emission for this construct on this target",
     "The schedule is valid CAKE IR, but `cake lower` / `cake run` cannot emit it yet for the chosen target "
     "(for example an op with no lowering, a rank other than 2, or a target without a backend). The message "
     "names the construct. docs/gpu.md lists what each target lowers."},
    {"lower.binding", ir::Severity::Error, ir::Category::ScheduleSemantics,
     "the schedule's parameters do not match the problem it is run as",
     "`cake run` binds the runtime problem to the schedule's parameters. For a GEMM the tensor parameters are, "
     "in order, A [M, K], B [N, K] and C [M, N], and i32 parameters named M, N and K receive the sizes. A "
     "schedule with other parameters cannot be run as a GEMM."},
    {"lower.layout", ir::Severity::Error, ir::Category::HardwareConformance,
     "an operand's shape or layout does not fit the instruction the lowering emits",
     "Each op lowers to fixed instructions (wgmma m64nNk16 with shared-memory descriptors, ldmatrix + "
     "mma.sync m16n8k16, cp.async of 16-byte chunks, TMA boxes). An operand whose shape, swizzle, alignment or "
     "element type these instructions cannot take is reported here with the constraint it breaks."},
    {"lower.grid", ir::Severity::Error, ir::Category::ScheduleSemantics,
     "the launch grid cannot be derived from the schedule",
     "Lowering derives the grid from the output: each lm.block_idx(d) that moves the coordinates of the store "
     "to the output tensor by T elements along a dimension of extent E gives grid dimension d = cdiv(E, T); a "
     "schedule that uses lm.grid_dim is persistent and gets one CTA per multiprocessor. A schedule with no "
     "store to its output, or whose coordinates do not move with lm.block_idx, has no derivable grid."},
};

// --------------------------------------------------------------- helpers

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

const char* cppKeywords[] = {"alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char",
                             "class", "const", "constexpr", "continue", "default", "delete", "do", "double",
                             "else", "enum", "explicit", "export", "extern", "float", "for", "friend", "goto",
                             "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "operator",
                             "private", "protected", "public", "register", "return", "short", "signed", "sizeof",
                             "static", "struct", "switch", "template", "this", "throw", "try", "typedef",
                             "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "while",
                             "min", "max", "dim3", "threadIdx", "blockIdx", "gridDim", "blockDim", "warpSize"};

// A schedule name as a C++ identifier: kept as written unless it clashes
// with a keyword or with the generated cake_* names.
std::string ident(const std::string& n) {
  for (const char* k : cppKeywords)
    if (n == k) return n + "_";
  if (n.rfind("cake_", 0) == 0 || n.rfind("__", 0) == 0) return "u_" + n;
  return n;
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

// ------------------------------------------------------- register layouts

struct FragLayout {
  enum class Kind { None, Wgmma, MmaSync };
  Kind kind = Kind::None;
  int rows = 0, cols = 0;  // the instance's tile
  int mblocks = 0;         // wgmma: rows / 64
  int wm = 1, wn = 1;      // mma.sync: warp grid
  int mt = 0, nt = 0;      // mma.sync: m16 / n8 tiles per warp
  std::string dims() const {
    if (kind == Kind::Wgmma) return fmt::format("[{}][{}]", mblocks, cols / 2);
    if (kind == Kind::MmaSync) return fmt::format("[{}][{}][4]", mt, nt);
    return "[1]";
  }
  int perThread() const {
    if (kind == Kind::Wgmma) return mblocks * cols / 2;
    if (kind == Kind::MmaSync) return mt * nt * 4;
    return 0;
  }
};

// ------------------------------------------------------------- the lowering

class Lowering {
 public:
  Lowering(const ir::Schedule& s, const LowerOptions& o) : s_(s), opts_(o) {}
  LowerResult run();

 private:
  const ir::Schedule& s_;
  const LowerOptions& opts_;
  ir::Target target_ = ir::Target::Unspecified;
  std::vector<ir::Finding> findings_;

  // analysis results
  int threads_ = 0;
  int regCap_ = 0;
  std::vector<int> tensorRole_;  // param index -> 0 A, 1 B, 2 C, -1 scalar
  std::vector<int> tensorParams_;
  std::vector<int64_t> poolOffset_;
  int64_t barOffset_ = 0, smemUsed_ = 0;
  std::vector<int> barSlotBase_;     // index of the first mbarrier of each barrier
  std::vector<int> barWeight_;       // arrivals one instance-arrive is worth
  std::vector<bool> deriveTx_;       // expect_tx derived from the TMA loads
  std::vector<bool> roleSingle_;     // runs on one elected thread per instance
  std::vector<int> roleInstBase_;    // global index of the role's first instance
  int instBarBase_ = 0;              // named barrier id of instance 0's own barrier
  std::vector<int> namedBarId_;
  std::vector<int> namedBarThreads_;
  std::vector<FragLayout> frag_;     // per regs
  std::vector<bool> loopNonneg_;     // per loop var
  std::set<std::pair<int, int>> tmaps_;  // (param, view) pairs used by TMA
  std::set<std::pair<int, std::string>> wgmmaShapes_;
  std::set<int> gmemParams_;         // tensor params accessed through a pointer
  bool persistent_ = false;
  std::string gridHost_[3];

  // emission state
  std::string out_;
  int indent_ = 0;
  int role_ = -1;          // role being emitted
  bool single_ = false;    // role runs on one elected thread
  std::set<int> stagePhaseBars_;  // barriers waited with stage= and no phase= (per-role phase bits)

  // ---- diagnostics
  void error(const char* rule, const ir::SourceRange& r, std::string msg) {
    const ir::RuleInfo* info = nullptr;
    for (const auto& k : kRules)
      if (k.id == rule) info = &k;
    findings_.push_back(ir::makeFinding(*info, r, std::move(msg)));
  }
  bool failed() const { return !findings_.empty(); }

  // ---- emission
  void line(const std::string& l) {
    if (l.empty()) {
      out_ += "\n";
      return;
    }
    out_.append(static_cast<size_t>(indent_) * 2, ' ');
    out_ += l;
    out_ += "\n";
  }
  void comment(const std::string& c) {
    if (opts_.comments) line("// " + c);
  }
  struct Indent {
    Lowering& l;
    explicit Indent(Lowering& x) : l(x) { ++l.indent_; }
    ~Indent() { --l.indent_; }
  };
  void open(const std::string& head) {
    line(head + " {");
    ++indent_;
  }
  void openScope() {
    line("{");
    ++indent_;
  }
  void close(const std::string& tail = "}") {
    --indent_;
    line(tail);
  }

  // ---- expressions
  bool nonneg(const Expr& e) const;
  std::string expr(const ir::ExprPtr& e, bool host = false) const;
  std::string expr(const Expr& e, bool host) const;
  std::string pyText(const ir::ExprPtr& e) const { return e ? ir::exprToString(*e, s_) : "?"; }
  std::optional<int64_t> constOf(const ir::ExprPtr& e) const { return e ? ir::constValue(e) : std::nullopt; }

  // ---- analysis
  void bindProblem();
  void layoutSmem();
  void analyzeRoles();
  void analyzeBarriers();
  void analyzeFragments();
  void analyzeLoops(const ir::Block& b);
  void deriveGrid();
  void checkOps();

  // ---- names
  std::string viewName(int v) const { return ident(s_.views[v].name); }
  std::string barName(int b) const { return ident(s_.barriers[b].name); }
  std::string regsName(int r) const { return ident(s_.regs[r].name); }
  std::string paramName(int p) const { return ident(s_.params[p].name); }
  std::string tmapName(int p, int v) const { return "cake_tmap_" + s_.params[p].name + "_" + s_.views[v].name; }
  int64_t viewSlotBytes(int v) const;
  int64_t viewRows(int v) const { return *constOf(s_.views[v].shape[0]); }
  int64_t viewCols(int v) const { return *constOf(s_.views[v].shape[1]); }
  int64_t viewRowBytes(int v) const { return viewCols(v) * ir::dtypeBytes(s_.views[v].dtype); }
  std::string slotOf(const ir::ExprPtr& e, int stages) const;
  std::string viewSlotAddr(const ir::BufferRef& ref) const;
  // the slot an async copy names with stage= / iter= (IR.md "Slots and phases")
  std::string viewSlotAddrSel(const ir::BufferRef& ref, const ir::SlotSel& sel) const {
    ir::BufferRef r = ref;
    if (sel.mode != ir::SlotSel::Mode::None) r.slot = sel.index;
    return viewSlotAddr(r);
  }
  std::string barSlotAddr(int b, const ir::SlotSel& sel, const ir::SourceRange& r);

  // ---- kernel pieces
  void emitKernel();
  void emitRole(int role, const std::vector<const ir::RoleBody*>& bodies);
  void emitBlock(const ir::Block& b);
  void emitStmt(const Stmt& st, const std::map<size_t, int64_t>& txBefore, size_t idx);
  void emitOp(const ir::Op& op);
  void emitWait(const ir::Op& op);
  void emitArrive(const ir::Op& op, int64_t tx_bytes, bool explicit_tx);
  void emitTmaLoad(const ir::Op& op);
  void emitTmaStore(const ir::Op& op);
  void emitCpAsync(const ir::Op& op);
  void emitMmaSm90(const ir::Op& op);
  void emitMmaSm80(const ir::Op& op);
  void emitCopy(const ir::Op& op);
  void emitFill(const ir::Op& op);
  void instSync();
  void elected(const std::function<void()>& body);
  void emitHost();
  std::string kernelName() const { return "cake_" + ident(s_.name) + "_kernel"; }
};

// ------------------------------------------------------------- expressions

bool Lowering::nonneg(const Expr& e) const {
  switch (e.kind) {
    case ExprKind::Const: return e.value >= 0;
    case ExprKind::Param: return true;  // the problem's sizes (M, N, K) are positive
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
    case ExprKind::Const: return std::to_string(e.value);
    case ExprKind::Param: return paramName(e.index);
    case ExprKind::LoopVar: return ident(s_.loop_vars[e.index].name);
    case ExprKind::BlockIdx: return std::string("static_cast<int>(blockIdx.") + "xyz"[e.index] + ")";
    case ExprKind::GridDim: return std::string("static_cast<int>(gridDim.") + "xyz"[e.index] + ")";
    case ExprKind::Instance: return "cake_instance";
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

// ------------------------------------------------------------- analysis

void Lowering::bindProblem() {
  tensorRole_.assign(s_.params.size(), -1);
  for (size_t i = 0; i < s_.params.size(); ++i) {
    const auto& p = s_.params[i];
    if (ir::isTensorParam(p.type)) {
      if (tensorParams_.size() < 3) tensorRole_[i] = static_cast<int>(tensorParams_.size());
      tensorParams_.push_back(static_cast<int>(i));
      if (p.type != ir::ParamType::Tma2d && p.type != ir::ParamType::Gmem)
        error("lower.binding", p.range,
              fmt::format("tensor parameter '{}' is {}: a GEMM binds rank-2 tensors (LM.tma2d or LM.gmem)", p.name,
                          ir::paramTypeName(p.type)));
    } else if (p.type == ir::ParamType::I32) {
      if (p.name != "M" && p.name != "N" && p.name != "K")
        error("lower.binding", p.range,
              fmt::format("i32 parameter '{}' has no value in a GEMM run (only M, N and K are bound)", p.name));
    } else {
      error("lower.binding", p.range, fmt::format("parameter '{}' ({}) has no value in a GEMM run", p.name,
                                                  ir::paramTypeName(p.type)));
    }
  }
  if (tensorParams_.size() != 3)
    error("lower.binding", s_.range,
          fmt::format("a GEMM binds three tensor parameters A [M,K], B [N,K], C [M,N]; schedule '{}' has {}", s_.name,
                      tensorParams_.size()));
}

int64_t Lowering::viewSlotBytes(int v) const {
  int64_t n = ir::dtypeBytes(s_.views[v].dtype);
  for (const auto& d : s_.views[v].shape) n *= constOf(d).value_or(0);
  return n;
}

void Lowering::layoutSmem() {
  int64_t off = 0;
  for (const auto& p : s_.pools) {
    auto bytes = constOf(p.bytes);
    if (!bytes || *bytes <= 0) {
      error("lower.unsupported", p.range, fmt::format("pool '{}' needs a constant positive size", p.name));
      return;
    }
    off = (off + 1023) / 1024 * 1024;
    poolOffset_.push_back(off);
    off += *bytes;
  }
  for (size_t v = 0; v < s_.views.size(); ++v) {
    const auto& view = s_.views[v];
    auto o = constOf(view.offset);
    bool shape_ok = view.shape.size() == 2;
    for (const auto& d : view.shape) shape_ok = shape_ok && constOf(d) && *constOf(d) > 0;
    if (!o || !shape_ok) {
      error("lower.unsupported", view.range,
            fmt::format("view '{}': lowering needs a constant offset and a constant 2-D shape", view.name));
      continue;
    }
    const int sw = ir::swizzleBytes(view.swizzle);
    if (sw) {
      const int64_t period = sw * 8;  // 256 / 512 / 1024 B
      if (*o % period || viewSlotBytes(static_cast<int>(v)) % period)
        error("lower.layout", view.range,
              fmt::format("view '{}': with a {}B swizzle its offset and slot size must be multiples of {} B", view.name,
                          sw, period));
      if (viewRowBytes(static_cast<int>(v)) != sw)
        error("lower.layout", view.range,
              fmt::format("view '{}': rows of {} B with a {}B swizzle; lowering needs rows of exactly {} B", view.name,
                          viewRowBytes(static_cast<int>(v)), sw, sw));
    } else if (*o % 128) {
      error("lower.layout", view.range, fmt::format("view '{}': offset must be a multiple of 128 B", view.name));
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
  if (smemUsed_ + 1024 > 232448)
    error("lower.layout", s_.range,
          fmt::format("shared memory {} B (+1024 B alignment slack) exceeds the 227 KiB a block can have",
                      smemUsed_));
}

bool onlyElectedOps(const ir::Block& b) {
  bool ok = true;
  ir::forEachOp(b, [&](const Stmt& st) {
    switch (st.op.kind) {
      case OpKind::Wait: case OpKind::Arrive: case OpKind::ExpectTx: case OpKind::TmaLoad:
      case OpKind::TmaStore: case OpKind::TmaStoreCommit: case OpKind::TmaStoreWait: case OpKind::FenceProxy:
        break;
      default:
        ok = false;
    }
  });
  return ok;
}

void Lowering::analyzeRoles() {
  threads_ = s_.warpCount() * 32;
  if (threads_ <= 0 || threads_ > 1024) {
    error("lower.unsupported", s_.range, fmt::format("{} threads per block", threads_));
    return;
  }
  regCap_ = std::min(255, 65536 / threads_) / 8 * 8;
  int inst = 0;
  for (size_t r = 0; r < s_.roles.size(); ++r) {
    const auto& role = s_.roles[r];
    bool single = true;
    for (const auto& body : s_.bodies)
      if (body.role == static_cast<int>(r)) single = single && onlyElectedOps(body.body);
    roleSingle_.push_back(single);
    roleInstBase_.push_back(inst);
    inst += role.instanceCount();
    if (role.regs) {
      // setmaxnreg is warpgroup-wide: the role must own whole aligned warpgroups
      std::set<int> w(role.warps.begin(), role.warps.end());
      bool ok = threads_ % 128 == 0;
      for (int x : role.warps) ok = ok && w.count(x / 4 * 4) && w.count(x / 4 * 4 + 1) && w.count(x / 4 * 4 + 2) &&
                                       w.count(x / 4 * 4 + 3);
      if (!ok)
        error("lower.layout", role.range,
              fmt::format("role '{}' has regs={} but does not own whole warpgroups (setmaxnreg is per warpgroup)",
                          role.name, *role.regs));
      if (*role.regs < 24 || *role.regs > 256 || *role.regs % 8)
        error("lower.layout", role.range,
              fmt::format("role '{}': regs={} must be a multiple of 8 in [24, 256]", role.name, *role.regs));
      if (target_ != ir::Target::SM90a && target_ != ir::Target::SM100a)
        error("lower.unsupported", role.range, "setmaxnreg (regs=) needs sm_90a or later");
    }
    if (role.group > 0 && role.warps.size() % role.group)
      error("lower.layout", role.range, fmt::format("role '{}': {} warps do not split into groups of {}", role.name,
                                                    role.warps.size(), role.group));
  }
  // named barriers: ids 1..n; then one per instance for its own syncs
  int id = 1;
  for (const auto& nb : s_.named_barriers) {
    namedBarId_.push_back(id++);
    int t = 0;
    for (int r : nb.roles) t += static_cast<int>(s_.roles[r].warps.size()) * 32;
    namedBarThreads_.push_back(t);
    for (int r : nb.roles) roleSingle_[r] = false;  // bar.sync needs every thread
  }
  instBarBase_ = id;
  if (instBarBase_ + inst > 16)
    error("lower.unsupported", s_.range,
          fmt::format("{} named barriers + {} instances need more than the 16 hardware barriers",
                      s_.named_barriers.size(), inst));
}

void Lowering::analyzeBarriers() {
  std::set<int> explicitTx;
  for (const auto& body : s_.bodies)
    ir::forEachOp(body.body, [&](const Stmt& st) {
      if (st.op.kind == OpKind::ExpectTx) explicitTx.insert(st.op.barrier);
    });
  for (size_t b = 0; b < s_.barriers.size(); ++b) {
    int64_t w = 1;
    for (int r : s_.barriers[b].prod)
      if (!roleSingle_[r] && s_.roles[r].warpsPerInstance() > 1) w = lcm64(w, s_.roles[r].warpsPerInstance());
    barWeight_.push_back(static_cast<int>(w));
    deriveTx_.push_back(!explicitTx.count(static_cast<int>(b)));
  }
}

void Lowering::analyzeFragments() {
  frag_.assign(s_.regs.size(), FragLayout{});
  // mma destinations fix the accumulator layout
  for (const auto& body : s_.bodies) {
    const auto& role = s_.roles[body.role];
    ir::forEachOp(body.body, [&](const Stmt& st) {
      const auto& op = st.op;
      if (op.kind != OpKind::Mma || op.dst.kind != ir::BufferRef::Kind::Regs) return;
      const auto& regs = s_.regs[op.dst.index];
      auto rows = regs.shape.size() == 2 ? constOf(regs.shape[0]) : std::nullopt;
      auto cols = regs.shape.size() == 2 ? constOf(regs.shape[1]) : std::nullopt;
      if (!rows || !cols) {
        error("lower.layout", regs.range, fmt::format("regs '{}': lowering needs a constant 2-D shape", regs.name));
        return;
      }
      FragLayout f;
      f.rows = static_cast<int>(*rows);
      f.cols = static_cast<int>(*cols);
      if (target_ == ir::Target::SM90a) {
        f.kind = FragLayout::Kind::Wgmma;
        if (f.rows % 64 || f.cols % 8 || f.cols > 256 || f.cols < 8 || (f.cols > 128 && f.cols % 16)) {
          error("lower.layout", op.range,
                fmt::format("wgmma accumulator '{}' is {}x{}: rows must be a multiple of 64, columns a multiple of 8 "
                            "up to 256", regs.name, f.rows, f.cols));
          return;
        }
        f.mblocks = f.rows / 64;
      } else {
        f.kind = FragLayout::Kind::MmaSync;
        const int w = role.warpsPerInstance();
        int best = -1;
        for (int wm = 1; wm <= w; ++wm) {
          if (w % wm) continue;
          const int wn = w / wm;
          if (f.rows % (16 * wm) || f.cols % (16 * wn)) continue;
          const int score = std::abs(f.rows / wm - f.cols / wn);
          if (best < 0 || score < best) {
            best = score;
            f.wm = wm;
            f.wn = wn;
          }
        }
        if (best < 0) {
          error("lower.layout", op.range,
                fmt::format("mma.sync accumulator '{}' ({}x{}) does not split over {} warps in m16 x n16 tiles",
                            regs.name, f.rows, f.cols, w));
          return;
        }
        f.mt = f.rows / f.wm / 16;
        f.nt = f.cols / f.wn / 8;
      }
      auto& cur = frag_[op.dst.index];
      if (cur.kind != FragLayout::Kind::None &&
          (cur.kind != f.kind || cur.rows != f.rows || cur.cols != f.cols || cur.wm != f.wm)) {
        error("lower.layout", op.range, fmt::format("regs '{}' is the accumulator of two different mma shapes",
                                                    regs.name));
        return;
      }
      cur = f;
    });
  }
  // converting copies between fragments keep the layout
  for (int pass = 0; pass < 4; ++pass)
    for (const auto& body : s_.bodies)
      ir::forEachOp(body.body, [&](const Stmt& st) {
        const auto& op = st.op;
        if (op.kind == OpKind::Copy && op.dst.kind == ir::BufferRef::Kind::Regs &&
            op.src.kind == ir::BufferRef::Kind::Regs && frag_[op.dst.index].kind == FragLayout::Kind::None &&
            frag_[op.src.index].kind != FragLayout::Kind::None)
          frag_[op.dst.index] = frag_[op.src.index];
      });
}

void Lowering::analyzeLoops(const ir::Block& b) {
  for (const auto& st : b) {
    if (st.kind == Stmt::Kind::For) {
      if (st.loop_var >= static_cast<int>(loopNonneg_.size())) loopNonneg_.resize(st.loop_var + 1, false);
      auto step = st.step ? constOf(st.step) : std::optional<int64_t>(1);
      // nonneg if it counts up from a nonneg start
      loopNonneg_[st.loop_var] = step && *step > 0 && nonneg(*st.lo);
      analyzeLoops(st.body);
    } else if (st.kind == Stmt::Kind::If) {
      analyzeLoops(st.body);
      analyzeLoops(st.orelse);
    }
  }
}

void Lowering::deriveGrid() {
  // persistent: the schedule strides over tiles by lm.grid_dim
  std::function<void(const ir::ExprPtr&)> visit;
  bool usesGrid = false;
  visit = [&](const ir::ExprPtr& e) {
    if (e && exprUses(*e, ExprKind::GridDim)) usesGrid = true;
  };
  const ir::Op* out = nullptr;
  for (const auto& body : s_.bodies) {
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
          const bool toTensor = st.op.dst.kind == ir::BufferRef::Kind::Param;
          if (!out && toTensor && (st.op.kind == OpKind::TmaStore || st.op.kind == OpKind::Copy)) out = &st.op;
        }
      }
    };
    walk(body.body);
  }
  for (auto& g : gridHost_) g = "1";
  if (usesGrid) {
    persistent_ = true;
    gridHost_[0] = "cake_num_sms";
    return;
  }
  if (!out) {
    error("lower.grid", s_.range, "no store to an output tensor (tma_store or copy with coords=) to derive the grid from");
    return;
  }
  const int outParam = out->dst.index;
  if (out->coords.size() != 2) {
    error("lower.grid", out->range, "the output store needs two coordinates");
    return;
  }
  const int role = tensorRole_[outParam];
  const char* ext[3][2] = {{"M", "K"}, {"N", "K"}, {"M", "N"}};
  ir::EvalEnv env;
  for (size_t p = 0; p < s_.params.size(); ++p) env.params[static_cast<int>(p)] = 1 << 20;
  for (size_t v = 0; v < s_.loop_vars.size(); ++v) env.loop_vars[static_cast<int>(v)] = 0;
  env.instance = 0;
  for (int d = 0; d < 3; ++d) {
    env.block_idx[d] = 0;
    env.grid_dim[d] = 1;
  }
  bool any = false;
  for (int d = 0; d < 3; ++d) {
    for (int c = 0; c < 2; ++c) {
      ir::EvalEnv e1 = env;
      e1.block_idx[d] = 1;
      auto v0 = ir::evaluate(*out->coords[c], env), v1 = ir::evaluate(*out->coords[c], e1);
      if (!v0 || !v1) {
        error("lower.grid", out->range, "cannot evaluate the output coordinates");
        return;
      }
      const int64_t step = *v1 - *v0;
      if (step > 0 && role >= 0) {
        gridHost_[d] = fmt::format("cake_cdiv({}, {})", ext[role][c], step);
        any = true;
      }
    }
  }
  if (!any)
    error("lower.grid", out->range, "the output coordinates do not move with lm.block_idx: every CTA would write "
                                    "the same tile");
}

void Lowering::checkOps() {
  for (const auto& body : s_.bodies) {
    ir::forEachOp(body.body, [&](const Stmt& st) {
      const auto& op = st.op;
      const bool sm90 = target_ == ir::Target::SM90a, sm80 = target_ == ir::Target::SM80;
      auto unsupported = [&](const std::string& what) {
        error("lower.unsupported", op.range,
              fmt::format("{} is not lowered for {}", what, ir::targetName(target_)));
      };
      switch (op.kind) {
        case OpKind::TmaLoad:
        case OpKind::TmaStore: {
          if (!sm90) return unsupported("lm." + std::string(ir::opName(op.kind)));
          const auto& view = op.kind == OpKind::TmaLoad ? op.dst : op.src;
          const auto& tensor = op.kind == OpKind::TmaLoad ? op.src : op.dst;
          if (view.kind != ir::BufferRef::Kind::View || tensor.kind != ir::BufferRef::Kind::Param)
            return unsupported("a TMA copy that is not between a view slot and a tensor parameter");
          if (!view.slices.empty()) return unsupported("a TMA copy of a sliced slot");
          if (s_.params[tensor.index].type != ir::ParamType::Tma2d)
            return unsupported("a TMA copy of a parameter that is not LM.tma2d");
          if (op.coords.size() != 2) return unsupported("a TMA copy without two coordinates");
          tmaps_.insert({tensor.index, view.index});
          const int64_t rows = viewRows(view.index), cols = viewCols(view.index);
          if (rows > 256 || cols > 256)
            error("lower.layout", op.range, fmt::format("TMA box {}x{}: each box dimension must be <= 256", rows, cols));
          if (viewRowBytes(view.index) % 16)
            error("lower.layout", op.range, "TMA box rows must be a multiple of 16 bytes");
          if (op.kind == OpKind::TmaLoad && op.barrier < 0)
            error("lower.unsupported", op.range, "a TMA load needs barrier=");
          break;
        }
        case OpKind::TmaStoreCommit:
        case OpKind::TmaStoreWait:
        case OpKind::MmaCommit:
        case OpKind::MmaWait:
          if (!sm90) return unsupported("lm." + std::string(ir::opName(op.kind)));
          if ((op.kind == OpKind::TmaStoreWait || op.kind == OpKind::MmaWait) && !constOf(op.pending) && op.pending)
            error("lower.unsupported", op.range, "pending= must be a constant");
          if (op.kind == OpKind::MmaCommit && op.barrier >= 0) return unsupported("lm.mma_commit(barrier=)");
          break;
        case OpKind::CpAsync:
          if (!sm80 && !sm90) return unsupported("lm.cp_async");
          if (op.dst.kind != ir::BufferRef::Kind::View || op.src.kind != ir::BufferRef::Kind::Param ||
              !op.dst.slices.empty() || op.coords.size() != 2)
            return unsupported("a cp_async that is not a whole view slot from a rank-2 tensor");
          gmemParams_.insert(op.src.index);
          if (viewRowBytes(op.dst.index) % 16) error("lower.layout", op.range, "cp.async rows must be 16-byte multiples");
          if (roleSingle_[body.role]) roleSingle_[body.role] = false;
          break;
        case OpKind::CpAsyncCommit:
        case OpKind::CpAsyncWait:
          if (!sm80 && !sm90) return unsupported("lm." + std::string(ir::opName(op.kind)));
          if (op.kind == OpKind::CpAsyncWait && op.pending && !constOf(op.pending))
            error("lower.unsupported", op.range, "pending= must be a constant");
          break;
        case OpKind::Mma:
          if (!sm90 && !sm80) return unsupported("lm.mma");
          if (op.dst.kind != ir::BufferRef::Kind::Regs || op.src.kind != ir::BufferRef::Kind::View ||
              op.src2.kind != ir::BufferRef::Kind::View)
            return unsupported("an mma whose accumulator is not regs or whose operands are not view slots");
          break;
        case OpKind::Copy:
          if (op.dst.kind == ir::BufferRef::Kind::Param) gmemParams_.insert(op.dst.index);
          if (!((op.src.kind == ir::BufferRef::Kind::Regs &&
                 (op.dst.kind == ir::BufferRef::Kind::Regs || op.dst.kind == ir::BufferRef::Kind::View ||
                  op.dst.kind == ir::BufferRef::Kind::Param))))
            return unsupported("this lm.copy (lowered: regs -> regs, regs -> view slot, regs -> tensor)");
          if (frag_[op.src.index].kind == FragLayout::Kind::None)
            error("lower.layout", op.range,
                  fmt::format("regs '{}' has no layout: it is never an mma accumulator or a copy of one",
                              s_.regs[op.src.index].name));
          break;
        case OpKind::Fill:
          if (op.dst.kind != ir::BufferRef::Kind::Regs) return unsupported("lm.fill of anything but regs");
          if (frag_[op.dst.index].kind == FragLayout::Kind::None)
            error("lower.layout", op.range, fmt::format("regs '{}' has no layout", s_.regs[op.dst.index].name));
          break;
        case OpKind::Unary:
        case OpKind::Binary:
        case OpKind::Reduce:
          return unsupported("lm." + std::string(ir::opName(op.kind)));
        default:
          break;
      }
    });
  }
}

// ------------------------------------------------------------ addresses

std::string Lowering::slotOf(const ir::ExprPtr& e, int stages) const {
  if (stages == 1) return "0";
  if (auto c = constOf(e)) return std::to_string(((*c % stages) + stages) % stages);
  if (nonneg(*e)) return "(" + expr(e) + ") % " + std::to_string(stages);
  return "cake_mod(" + expr(e) + ", " + std::to_string(stages) + ")";
}

std::string Lowering::viewSlotAddr(const ir::BufferRef& ref) const {
  const int v = ref.index;
  const int stages = s_.views[v].stages;
  if (stages == 1 || !ref.slot) return viewName(v);
  return "(" + viewName(v) + " + " + std::to_string(viewSlotBytes(v)) + " * (" + slotOf(ref.slot, stages) + "))";
}

std::string Lowering::barSlotAddr(int b, const ir::SlotSel& sel, const ir::SourceRange& r) {
  const int count = s_.barriers[b].count;
  if (count == 1) return barName(b);
  if (sel.mode == ir::SlotSel::Mode::None) {
    error("lower.unsupported", r, fmt::format("barrier '{}' has {} slots: name one with iter= or stage=",
                                              s_.barriers[b].name, count));
    return barName(b);
  }
  return "(" + barName(b) + " + 8 * (" + slotOf(sel.index, count) + "))";
}

// ------------------------------------------------------------ emission

void Lowering::elected(const std::function<void()>& body) {
  if (single_ || threads_ == 0) {
    body();
    return;
  }
  open("if (cake_elected)");
  body();
  close();
}

void Lowering::instSync() {
  const auto& role = s_.roles[role_];
  if (single_) return;
  if (role.warpsPerInstance() == 1)
    line("__syncwarp();");
  else if (role.instanceCount() == 1 && static_cast<int>(role.warps.size()) * 32 == threads_)
    line("__syncthreads();  // the instance is the whole block");
  else
    line(fmt::format("cake_bar_sync(cake_inst_bar, {});  // this instance's {} threads", role.warpsPerInstance() * 32,
                     role.warpsPerInstance() * 32));
}

void Lowering::emitWait(const ir::Op& op) {
  const int b = op.barrier;
  const auto& bar = s_.barriers[b];
  const auto& sel = op.sel;
  if (sel.mode == ir::SlotSel::Mode::Iter) {
    const auto& e = sel.index;
    const std::string es = expr(e);
    const std::string cnt = std::to_string(bar.count);
    auto waitLine = [&](const std::string& idx) {
      const std::string slot = bar.count == 1 ? "0" : "(" + idx + ") % " + cnt;
      const std::string parity = bar.count == 1 ? "(" + idx + ") & 1" : "((" + idx + ") / " + cnt + ") & 1";
      line(fmt::format("cake_mbar_wait({} + 8 * ({}), {});", barName(b), slot, parity));
    };
    if (auto c = constOf(e)) {
      if (*c < 0) {
        comment(fmt::format("wait({}, iter={}): a negative iteration passes at once", bar.name, *c));
        return;
      }
      waitLine(std::to_string(*c));
    } else if (nonneg(*e)) {
      waitLine(es);
    } else {
      comment(fmt::format("wait({}, iter={}): slot = iter % {}, phase = iter // {}; iter < 0 passes at once",
                          bar.name, pyText(e), bar.count, bar.count));
      open(fmt::format("if ({} >= 0)", es));
      waitLine(es);
      close();
    }
    return;
  }
  if (sel.mode == ir::SlotSel::Mode::Stage) {
    const std::string slot = slotOf(sel.index, bar.count);
    if (sel.phase) {
      line(fmt::format("cake_mbar_wait({} + 8 * ({}), ({}) & 1);", barName(b), slot, expr(sel.phase)));
    } else {
      comment(fmt::format("wait({}, stage={}): phase = this instance's earlier waits on the slot (bit per slot)",
                          bar.name, pyText(sel.index)));
      line(fmt::format("cake_mbar_wait({} + 8 * ({}), (cake_phase_{} >> ({})) & 1u);", barName(b), slot, bar.name,
                       slot));
      line(fmt::format("cake_phase_{} ^= 1u << ({});", bar.name, slot));
    }
    return;
  }
  // no selector: a one-slot barrier waited in order (phase bit of slot 0)
  if (sel.phase) {
    line(fmt::format("cake_mbar_wait({}, ({}) & 1);", barName(b), expr(sel.phase)));
  } else {
    line(fmt::format("cake_mbar_wait({}, cake_phase_{} & 1u);", barName(b), bar.name));
    line(fmt::format("cake_phase_{} ^= 1u;", bar.name));
  }
}

// One instance-arrive on barrier b (worth barWeight_[b] hardware arrivals).
void Lowering::emitArrive(const ir::Op& op, int64_t tx_bytes, bool explicit_tx) {
  const int b = op.barrier;
  const auto& role = s_.roles[role_];
  const int w = barWeight_[b];
  const std::string addr = barSlotAddr(b, op.sel, op.range);
  const int64_t count = op.count ? constOf(op.count).value_or(1) : 1;
  if (op.count && !constOf(op.count)) error("lower.unsupported", op.range, "arrive count= must be a constant");
  if (tx_bytes > 0 || explicit_tx) {
    // expect_tx: the arrival is the elected thread's
    elected([&] {
      if (explicit_tx)
        line(fmt::format("cake_mbar_arrive_expect_tx({}, {});", addr, expr(op.bytes)));
      else
        line(fmt::format("cake_mbar_arrive_expect_tx({}, {});  // derived: the bytes of the TMA loads below", addr,
                         tx_bytes));
      if (w > 1) line(fmt::format("cake_mbar_arrive({}, {});", addr, w - 1));
    });
    return;
  }
  if (single_ || role.warpsPerInstance() == 1 || w == 1) {
    if (!single_) line("__syncwarp();");
    if (!single_ && role.warpsPerInstance() > 1) instSync();
    elected([&] { line(fmt::format("cake_mbar_arrive({}, {});", addr, count * w)); });
  } else {
    // each warp of the instance arrives once it is done: count * weight / warps each
    const int per = static_cast<int>(count * w / role.warpsPerInstance());
    if (opts_.comments)
      line(fmt::format("// one arrival per warp ({} warps x {} = {} = the instance's arrive)", role.warpsPerInstance(),
                       per, count * w));
    line("__syncwarp();");
    line(fmt::format("if (cake_lane == 0) cake_mbar_arrive({}, {});", addr, per));
  }
}

void Lowering::emitTmaLoad(const ir::Op& op) {
  const int v = op.dst.index, p = op.src.index;
  const std::string dst = viewSlotAddrSel(op.dst, op.sel);
  const std::string bar = barSlotAddr(op.barrier, op.sel, op.range);
  // coords are outermost first; TMA takes the innermost first
  elected([&] {
    line(fmt::format("cake_tma_load_2d({}, &{}, {}, {}, {});", dst, tmapName(p, v), bar, expr(op.coords[1]),
                     expr(op.coords[0])));
  });
}

void Lowering::emitTmaStore(const ir::Op& op) {
  const int v = op.src.index, p = op.dst.index;
  if (!single_ && s_.roles[role_].warpsPerInstance() > 1) {
    comment("the instance's threads wrote the slot: sync them before the elected thread stores it");
    instSync();
  } else if (!single_) {
    line("__syncwarp();");
  }
  elected([&] {
    line(fmt::format("cake_tma_store_2d(&{}, {}, {}, {});", tmapName(p, v), viewSlotAddrSel(op.src, op.sel), expr(op.coords[1]),
                     expr(op.coords[0])));
  });
}

void Lowering::emitCpAsync(const ir::Op& op) {
  const int v = op.dst.index, p = op.src.index;
  const auto& view = s_.views[v];
  const int eb = ir::dtypeBytes(view.dtype);
  const int64_t rows = viewRows(v), rowBytes = viewRowBytes(v);
  const int64_t perRow = rowBytes / 16, chunks = rows * perRow;
  const int instThreads = s_.roles[role_].warpsPerInstance() * 32;
  const int sw = ir::swizzleBytes(view.swizzle);
  const std::string pn = paramName(p);
  openScope();
  comment(fmt::format("{}[{}] <- {}[{} : +{}, {} : +{}] in 16-byte cp.async chunks ({} per thread, zero-fill outside)",
                      view.name, pyText(op.sel.index ? op.sel.index : op.dst.slot), s_.params[p].name, pyText(op.coords[0]), rows,
                      pyText(op.coords[1]), viewCols(v), (chunks + instThreads - 1) / instThreads));
  line(fmt::format("const uint32_t cake_dst = {};", viewSlotAddrSel(op.dst, op.sel)));
  line(fmt::format("const int cake_r0 = {}, cake_c0 = {};", expr(op.coords[0]), expr(op.coords[1])));
  line("#pragma unroll");
  open(fmt::format("for (int cake_q = cake_inst_thread; cake_q < {}; cake_q += {})", chunks, instThreads));
  line(fmt::format("const int cake_r = cake_q / {}, cake_c = (cake_q % {}) * {};", perRow, perRow, 16 / eb));
  line(fmt::format("const bool cake_in = cake_r0 + cake_r < cake_{0}_rows && cake_c0 + cake_c < cake_{0}_cols;", pn));
  line(fmt::format("cake_cp_async_16(cake_dst + cake_swz<{}>(cake_r * {} + cake_c * {}),", sw, rowBytes, eb));
  line(fmt::format("                 {0} + (cake_in ? static_cast<size_t>(cake_r0 + cake_r) * cake_{0}_ld + cake_c0 + "
                   "cake_c : 0), cake_in);",
                   pn));
  close();
  close();
}

void Lowering::emitMmaSm90(const ir::Op& op) {
  const auto& f = frag_[op.dst.index];
  if (f.kind != FragLayout::Kind::Wgmma) return;
  const auto& role = s_.roles[role_];
  if (role.warpsPerInstance() != 4 || role.warps[0] % 4) {
    error("lower.layout", op.range,
          fmt::format("wgmma is issued by a warpgroup: role '{}' needs instances of 4 warps starting at a warp index "
                      "divisible by 4 (group=4)", role.name));
    return;
  }
  const int va = op.src.index, vb = op.src2.index;
  const auto &A = s_.views[va], &B = s_.views[vb];
  if (A.dtype != B.dtype || (A.dtype != ir::DType::BF16 && A.dtype != ir::DType::F16)) {
    error("lower.layout", op.range, "wgmma operands must both be bf16 or both f16");
    return;
  }
  const std::string ty = A.dtype == ir::DType::BF16 ? "bf16" : "f16";
  auto rowsOf = [&](const ir::BufferRef& r, int v, int64_t& lo, std::string& loExpr) -> int64_t {
    lo = 0;
    loExpr = "0";
    if (r.slices.empty()) return viewRows(v);
    if (r.slices.size() > 1 && (r.slices[1].lo || r.slices[1].hi)) {
      if (!(constOf(r.slices[1].lo).value_or(0) == 0 &&
            constOf(r.slices[1].hi).value_or(viewCols(v)) == viewCols(v))) {
        error("lower.layout", op.range, "an mma operand may be sliced along rows only");
        return -1;
      }
    }
    const auto& s = r.slices[0];
    loExpr = s.lo ? expr(s.lo) : "0";
    if (!s.hi) return viewRows(v) - constOf(s.lo).value_or(0);
    // hi - lo must be constant: evaluate with the free symbols at two points
    ir::EvalEnv env;
    for (size_t p = 0; p < s_.params.size(); ++p) env.params[static_cast<int>(p)] = 1 << 12;
    for (size_t l = 0; l < s_.loop_vars.size(); ++l) env.loop_vars[static_cast<int>(l)] = 0;
    env.instance = 0;
    for (int d = 0; d < 3; ++d) env.block_idx[d] = 0, env.grid_dim[d] = 1;
    auto h = ir::evaluate(*s.hi, env);
    auto l = s.lo ? ir::evaluate(*s.lo, env) : std::optional<int64_t>(0);
    if (!h || !l) return -1;
    lo = *l;
    return *h - *l;
  };
  int64_t aLo, bLo;
  std::string aLoE, bLoE;
  const int64_t aRows = rowsOf(op.src, va, aLo, aLoE), bRows = rowsOf(op.src2, vb, bLo, bLoE);
  const int64_t K = viewCols(va);
  if (aRows != f.rows || bRows != f.cols || viewCols(vb) != K || K % 16) {
    error("lower.layout", op.range,
          fmt::format("mma shapes: acc {}x{}, a {}x{}, b {}x{}: need acc = a rows x b rows and a common K (multiple of "
                      "16)", f.rows, f.cols, aRows, K, bRows, viewCols(vb)));
    return;
  }
  if (A.swizzle == ir::Swizzle::None || B.swizzle == ir::Swizzle::None) {
    error("lower.layout", op.range, "wgmma operands from shared memory must be swizzled views (32B, 64B or 128B)");
    return;
  }
  const int modeA = A.swizzle == ir::Swizzle::B128 ? 1 : A.swizzle == ir::Swizzle::B64 ? 2 : 3;
  const int modeB = B.swizzle == ir::Swizzle::B128 ? 1 : B.swizzle == ir::Swizzle::B64 ? 2 : 3;
  wgmmaShapes_.insert({f.cols, ty});
  const int64_t rbA = viewRowBytes(va), rbB = viewRowBytes(vb);
  openScope();
  comment(fmt::format("{} {}= {} . {}^T: wgmma m64n{}k16 x {} (K = {}), descriptors: {}B swizzle, SBO {} B",
                      s_.regs[op.dst.index].name, op.init ? "(init ? 0 : acc) +" : "+", A.name, B.name, f.cols,
                      f.mblocks * K / 16, K, ir::swizzleBytes(A.swizzle), 8 * rbA));
  line(fmt::format("const uint32_t cake_a = {} + ({}) * {};", viewSlotAddr(op.src), aLoE, rbA));
  line(fmt::format("const uint32_t cake_b = {} + ({}) * {};", viewSlotAddr(op.src2), bLoE, rbB));
  line(fmt::format("const int cake_scale_d = {};", op.init ? "(" + expr(op.init) + ") ? 0 : 1" : std::string("1")));
  line("cake_wgmma_fence();");
  line("#pragma unroll");
  open(fmt::format("for (int cake_k = 0; cake_k < {}; ++cake_k)", K / 16));
  for (int i = 0; i < f.mblocks; ++i)
    line(fmt::format("cake_wgmma_m64n{}k16_{}({}[{}], cake_wgmma_desc(cake_a + {} + cake_k * {}, {}, {}), "
                     "cake_wgmma_desc(cake_b + cake_k * {}, {}, {}), cake_k == 0 ? cake_scale_d : 1);",
                     f.cols, ty, regsName(op.dst.index), i, i * 64 * rbA, 16 * ir::dtypeBytes(A.dtype), 8 * rbA,
                     modeA, 16 * ir::dtypeBytes(B.dtype), 8 * rbB, modeB));
  close();
  close();
}

void Lowering::emitMmaSm80(const ir::Op& op) {
  const auto& f = frag_[op.dst.index];
  if (f.kind != FragLayout::Kind::MmaSync) return;
  const int va = op.src.index, vb = op.src2.index;
  const auto &A = s_.views[va], &B = s_.views[vb];
  if (A.dtype != B.dtype || (A.dtype != ir::DType::BF16 && A.dtype != ir::DType::F16)) {
    error("lower.layout", op.range, "mma.sync operands must both be bf16 or both f16");
    return;
  }
  if (!op.src.slices.empty() || !op.src2.slices.empty()) {
    error("lower.unsupported", op.range, "sliced mma operands on sm_80");
    return;
  }
  const int64_t K = viewCols(va);
  if (viewRows(va) != f.rows || viewRows(vb) != f.cols || viewCols(vb) != K || K % 16) {
    error("lower.layout", op.range,
          fmt::format("mma shapes: acc {}x{}, a {}x{}, b {}x{}", f.rows, f.cols, viewRows(va), K, viewRows(vb),
                      viewCols(vb)));
    return;
  }
  if (f.nt % 2) {
    error("lower.layout", op.range, "mma.sync lowering loads B in pairs of n8 tiles: warp tile columns must be a "
                                    "multiple of 16");
    return;
  }
  const std::string ty = A.dtype == ir::DType::BF16 ? "bf16" : "f16";
  const std::string acc = regsName(op.dst.index);
  const int64_t rbA = viewRowBytes(va), rbB = viewRowBytes(vb);
  const int swA = ir::swizzleBytes(A.swizzle), swB = ir::swizzleBytes(B.swizzle);
  openScope();
  comment(fmt::format("{} {}= {} . {}^T: mma.sync m16n8k16, warp grid {}x{}, warp tile {}x{} ({} x {} tiles)",
                      s_.regs[op.dst.index].name, op.init ? "(init ? 0 : acc) +" : "+", A.name, B.name, f.wm, f.wn,
                      f.rows / f.wm, f.cols / f.wn, f.mt, f.nt));
  if (op.init) {
    open(fmt::format("if ({})", expr(op.init)));
    line("#pragma unroll");
    line(fmt::format("for (int i = 0; i < {}; ++i)", f.mt));
    line("#pragma unroll");
    line(fmt::format("  for (int j = 0; j < {}; ++j)", f.nt));
    line(fmt::format("    {0}[i][j][0] = {0}[i][j][1] = {0}[i][j][2] = {0}[i][j][3] = 0.f;", acc));
    close();
  }
  line(fmt::format("const uint32_t cake_a = {}, cake_b = {};", viewSlotAddr(op.src), viewSlotAddr(op.src2)));
  line("#pragma unroll");
  open(fmt::format("for (int cake_k = 0; cake_k < {}; ++cake_k)", K / 16));
  line(fmt::format("uint32_t cake_af[{}][4], cake_bf[{}][4];", f.mt, f.nt / 2));
  line("#pragma unroll");
  line(fmt::format("for (int i = 0; i < {}; ++i)", f.mt));
  line(fmt::format("  cake_ldmatrix_x4(cake_af[i], cake_a + cake_swz<{}>((cake_wrow + 16 * i + cake_lane % 16) * {} + "
                   "(2 * cake_k + cake_lane / 16) * 16));",
                   swA, rbA));
  line("#pragma unroll");
  line(fmt::format("for (int j = 0; j < {}; ++j)", f.nt / 2));
  line(fmt::format("  cake_ldmatrix_x4(cake_bf[j], cake_b + cake_swz<{}>((cake_wcol + 16 * j + cake_lane % 8 + "
                   "(cake_lane / 16) * 8) * {} + (2 * cake_k + (cake_lane / 8) % 2) * 16));",
                   swB, rbB));
  line("#pragma unroll");
  line(fmt::format("for (int i = 0; i < {}; ++i)", f.mt));
  line("#pragma unroll");
  line(fmt::format("  for (int j = 0; j < {}; ++j)", f.nt));
  line(fmt::format("    cake_mma_16816_{}({}[i][j], cake_af[i], cake_bf[j / 2][(j % 2) * 2], cake_bf[j / 2][(j % 2) * 2 "
                   "+ 1]);",
                   ty, acc));
  close();
  close();
}

// Pairs of consecutive columns of a fragment: calls fn(elem0, elem1, row, col)
// with C++ expressions for the two elements and their tile coordinates.
static void forEachPair(const FragLayout& f, const std::string& name,
                        const std::function<void(const std::string&, const std::string&, const std::string&,
                                                 const std::string&)>& fn,
                        const std::function<void(const std::string&)>& line) {
  if (f.kind == FragLayout::Kind::Wgmma) {
    line("#pragma unroll");
    line(fmt::format("for (int i = 0; i < {}; ++i)", f.mblocks));
    line("#pragma unroll");
    line(fmt::format("  for (int j = 0; j < {}; ++j)", f.cols / 8));
    line("#pragma unroll");
    line("    for (int h = 0; h < 2; ++h) {");
    fn(name + "[i][4 * j + 2 * h]", name + "[i][4 * j + 2 * h + 1]",
       "64 * i + 16 * cake_wwarp + cake_lane / 4 + 8 * h", "8 * j + 2 * (cake_lane % 4)");
    line("    }");
  } else {
    line("#pragma unroll");
    line(fmt::format("for (int i = 0; i < {}; ++i)", f.mt));
    line("#pragma unroll");
    line(fmt::format("  for (int j = 0; j < {}; ++j)", f.nt));
    line("#pragma unroll");
    line("    for (int h = 0; h < 2; ++h) {");
    fn(name + "[i][j][2 * h]", name + "[i][j][2 * h + 1]", "cake_wrow + 16 * i + cake_lane / 4 + 8 * h",
       "cake_wcol + 8 * j + 2 * (cake_lane % 4)");
    line("    }");
  }
}

static std::string toFloat(ir::DType d, const std::string& v) {
  if (d == ir::DType::BF16) return "__bfloat162float(" + v + ")";
  if (d == ir::DType::F16) return "__half2float(" + v + ")";
  return v;
}

static std::string packPair(ir::DType dst, ir::DType src, const std::string& a, const std::string& b) {
  const std::string fa = toFloat(src, a), fb = toFloat(src, b);
  if (dst == ir::DType::BF16) {
    if (src == ir::DType::BF16) return "__halves2bfloat162(" + a + ", " + b + ")";
    return "__floats2bfloat162_rn(" + fa + ", " + fb + ")";
  }
  if (dst == ir::DType::F16) {
    if (src == ir::DType::F16) return "__halves2half2(" + a + ", " + b + ")";
    return "__floats2half2_rn(" + fa + ", " + fb + ")";
  }
  return "make_float2(" + fa + ", " + fb + ")";
}

static std::string pairType(ir::DType d) {
  if (d == ir::DType::BF16) return "__nv_bfloat162";
  if (d == ir::DType::F16) return "__half2";
  return "float2";
}

void Lowering::emitCopy(const ir::Op& op) {
  const auto& f = frag_[op.src.index];
  const ir::DType sd = s_.regs[op.src.index].dtype;
  const std::string src = regsName(op.src.index);
  auto L = [&](const std::string& l) { line(l); };
  if (op.dst.kind == ir::BufferRef::Kind::Regs) {
    const auto& g = frag_[op.dst.index];
    const ir::DType dd = s_.regs[op.dst.index].dtype;
    if (g.kind != f.kind || g.rows != f.rows || g.cols != f.cols) {
      error("lower.layout", op.range, "a copy between fragments of different shapes");
      return;
    }
    comment(fmt::format("{} <- {} ({} -> {}), same layout", s_.regs[op.dst.index].name, s_.regs[op.src.index].name,
                        ir::dtypeName(sd), ir::dtypeName(dd)));
    const std::string dst = regsName(op.dst.index);
    forEachPair(
        f, src,
        [&](const std::string& a, const std::string& b, const std::string&, const std::string&) {
          std::string da = a, db = b;
          da.replace(0, src.size(), dst);
          db.replace(0, src.size(), dst);
          auto conv = [&](const std::string& v) {
            const std::string fv = toFloat(sd, v);
            if (dd == ir::DType::BF16) return sd == dd ? v : "__float2bfloat16_rn(" + fv + ")";
            if (dd == ir::DType::F16) return sd == dd ? v : "__float2half_rn(" + fv + ")";
            return fv;
          };
          line("      " + da + " = " + conv(a) + ";");
          line("      " + db + " = " + conv(b) + ";");
        },
        L);
    return;
  }
  if (op.dst.kind == ir::BufferRef::Kind::View) {
    const int v = op.dst.index;
    const auto& view = s_.views[v];
    if (view.dtype != ir::DType::BF16 && view.dtype != ir::DType::F16 && view.dtype != ir::DType::F32) {
      error("lower.unsupported", op.range, "a register -> shared copy into this element type");
      return;
    }
    std::string rowOff = "0", colOff = "0";
    if (!op.dst.slices.empty()) {
      if (op.dst.slices[0].lo) rowOff = expr(op.dst.slices[0].lo);
      if (op.dst.slices.size() > 1 && op.dst.slices[1].lo) colOff = expr(op.dst.slices[1].lo);
    } else if (viewRows(v) != f.rows || viewCols(v) != f.cols) {
      error("lower.layout", op.range,
            fmt::format("copy of a {}x{} fragment into a {}x{} slot", f.rows, f.cols, viewRows(v), viewCols(v)));
      return;
    }
    const int eb = ir::dtypeBytes(view.dtype);
    const int sw = ir::swizzleBytes(view.swizzle);
    openScope();
    comment(fmt::format("{}[{}] <- {} ({} -> {}): st.shared of column pairs{}", view.name, pyText(op.dst.slot),
                        s_.regs[op.src.index].name, ir::dtypeName(sd), ir::dtypeName(view.dtype),
                        sw ? fmt::format(", {}B swizzle", sw) : std::string()));
    line(fmt::format("const uint32_t cake_dst = {};", viewSlotAddr(op.dst)));
    forEachPair(
        f, src,
        [&](const std::string& a, const std::string& b, const std::string& r, const std::string& c) {
          line(fmt::format("      const {} cake_v = {};", pairType(view.dtype), packPair(view.dtype, sd, a, b)));
          line(fmt::format("      const uint32_t cake_off = cake_swz<{}>(({} + {}) * {} + ({} + {}) * {});", sw, rowOff,
                           r, viewRowBytes(v), colOff, c, eb));
          if (view.dtype == ir::DType::F32)
            line("      asm volatile(\"st.shared.v2.f32 [%0], {%1, %2};\" :: \"r\"(cake_dst + cake_off), "
                 "\"f\"(cake_v.x), \"f\"(cake_v.y) : \"memory\");");
          else
            line("      asm volatile(\"st.shared.b32 [%0], %1;\" :: \"r\"(cake_dst + cake_off), "
                 "\"r\"(*reinterpret_cast<const uint32_t*>(&cake_v)) : \"memory\");");
        },
        L);
    close();
    return;
  }
  // regs -> global tensor
  const int p = op.dst.index;
  if (op.coords.size() != 2) {
    error("lower.unsupported", op.range, "a copy to a tensor needs coords=(row, col)");
    return;
  }
  const std::string pn = paramName(p);
  openScope();
  comment(fmt::format("{}[{} : +{}, {} : +{}] <- {} ({} -> bf16): st.global of column pairs, guarded",
                      s_.params[p].name, pyText(op.coords[0]), f.rows, pyText(op.coords[1]), f.cols,
                      s_.regs[op.src.index].name, ir::dtypeName(sd)));
  line(fmt::format("const int cake_r0 = {}, cake_c0 = {};", expr(op.coords[0]), expr(op.coords[1])));
  forEachPair(
      f, src,
      [&](const std::string& a, const std::string& b, const std::string& r, const std::string& c) {
        line(fmt::format("      const int cake_r = cake_r0 + {}, cake_c = cake_c0 + {};", r, c));
        line(fmt::format("      if (cake_r < cake_{0}_rows && cake_c < cake_{0}_cols)", pn));
        line(fmt::format("        *reinterpret_cast<__nv_bfloat162*>({0} + static_cast<size_t>(cake_r) * cake_{0}_ld + "
                         "cake_c) = {1};",
                         pn, packPair(ir::DType::BF16, sd, a, b)));
      },
      L);
  close();
}

void Lowering::emitFill(const ir::Op& op) {
  const auto& f = frag_[op.dst.index];
  const std::string name = regsName(op.dst.index);
  const std::string v = op.fill_value ? expr(op.fill_value) : fmt::format("{}", op.fill_value_f);
  auto L = [&](const std::string& l) { line(l); };
  forEachPair(
      f, name,
      [&](const std::string& a, const std::string& b, const std::string&, const std::string&) {
        line("      " + a + " = " + v + ";");
        line("      " + b + " = " + v + ";");
      },
      L);
}

void Lowering::emitOp(const ir::Op& op) {
  const auto& role = s_.roles[role_];
  switch (op.kind) {
    case OpKind::Wait: emitWait(op); break;
    case OpKind::Arrive: emitArrive(op, 0, false); break;
    case OpKind::ExpectTx: emitArrive(op, 0, true); break;
    case OpKind::TmaLoad: emitTmaLoad(op); break;
    case OpKind::TmaStore: emitTmaStore(op); break;
    case OpKind::TmaStoreCommit: elected([&] { line("cake_tma_store_commit();"); }); break;
    case OpKind::TmaStoreWait: {
      const int64_t n = op.pending ? constOf(op.pending).value_or(0) : 0;
      elected([&] { line(fmt::format("cake_tma_store_wait<{}>();  // reads of the stored slots done", n)); });
      if (!single_ && role.warpsPerInstance() > 1) instSync();
      break;
    }
    case OpKind::CpAsync: emitCpAsync(op); break;
    case OpKind::CpAsyncCommit: line("cake_cp_async_commit();"); break;
    case OpKind::CpAsyncWait: {
      const int64_t n = op.pending ? constOf(op.pending).value_or(0) : 0;
      line(fmt::format("cake_cp_async_wait<{}>();", n));
      comment("every thread's copies landed: sync the instance so each sees all of them");
      instSync();
      break;
    }
    case OpKind::Sync: {
      const int nb = op.named_barrier;
      line(fmt::format("cake_bar_sync({}, {});  // {}", namedBarId_[nb], namedBarThreads_[nb],
                       s_.named_barriers[nb].name));
      break;
    }
    case OpKind::BarArrive: {
      const int nb = op.named_barrier;
      line(fmt::format("cake_bar_arrive({}, {});  // {}", namedBarId_[nb], namedBarThreads_[nb],
                       s_.named_barriers[nb].name));
      break;
    }
    case OpKind::FenceProxy: line("cake_fence_proxy_async();"); break;
    case OpKind::Mma:
      if (target_ == ir::Target::SM90a)
        emitMmaSm90(op);
      else
        emitMmaSm80(op);
      break;
    case OpKind::MmaCommit: line("cake_wgmma_commit();"); break;
    case OpKind::MmaWait: {
      const int64_t n = op.pending ? constOf(op.pending).value_or(0) : 0;
      line(fmt::format("cake_wgmma_wait<{}>();", n));
      break;
    }
    case OpKind::Copy: emitCopy(op); break;
    case OpKind::Fill: emitFill(op); break;
    default: break;
  }
}

void Lowering::emitStmt(const Stmt& st, const std::map<size_t, int64_t>& txBefore, size_t idx) {
  if (st.kind == Stmt::Kind::For) {
    const std::string v = ident(s_.loop_vars[st.loop_var].name);
    const auto step = st.step ? constOf(st.step).value_or(1) : 1;
    const std::string cmp = step > 0 ? "<" : ">";
    const std::string inc = step == 1 ? "++" + v : fmt::format("{} += {}", v, step);
    open(fmt::format("for (int {0} = {1}; {0} {2} {3}; {4})", v, expr(st.lo), cmp, expr(st.hi), inc));
    emitBlock(st.body);
    close();
    return;
  }
  if (st.kind == Stmt::Kind::If) {
    open(fmt::format("if ({})", expr(st.cond)));
    emitBlock(st.body);
    if (!st.orelse.empty()) {
      close("} else {");
      ++indent_;
      emitBlock(st.orelse);
    }
    close();
    return;
  }
  if (opts_.comments) {
    std::string src(st.range.file ? st.range.file->lineText(st.range.line) : "");
    src.erase(0, src.find_first_not_of(" \t"));
    if (!src.empty()) line(fmt::format("// {}:{}  {}", st.range.file->name, st.range.line, src));
  }
  auto it = txBefore.find(idx);
  if (it != txBefore.end()) {
    ir::Op tx = st.op;  // same barrier and selector as the load
    emitArrive(tx, it->second, false);
  }
  emitOp(st.op);
}

void Lowering::emitBlock(const ir::Block& b) {
  // derived expect_tx: one arrive.expect_tx per group of TMA loads that name
  // the same barrier slot in this block (same barrier and selector)
  std::map<size_t, int64_t> txBefore;
  std::vector<bool> covered(b.size(), false);
  for (size_t i = 0; i < b.size(); ++i) {
    const auto& st = b[i];
    if (st.kind != Stmt::Kind::Op || st.op.kind != OpKind::TmaLoad || covered[i] || st.op.barrier < 0 ||
        !deriveTx_[st.op.barrier])
      continue;
    int64_t bytes = viewSlotBytes(st.op.dst.index);
    for (size_t j = i + 1; j < b.size(); ++j) {
      const auto& sj = b[j];
      if (sj.kind != Stmt::Kind::Op) break;
      if (sj.op.kind == OpKind::TmaLoad && sj.op.barrier == st.op.barrier && sj.op.sel.mode == st.op.sel.mode &&
          exprEqual(sj.op.sel.index, st.op.sel.index) && !covered[j]) {
        bytes += viewSlotBytes(sj.op.dst.index);
        covered[j] = true;
      }
      if (sj.op.kind == OpKind::Wait && sj.op.barrier == st.op.barrier) break;
    }
    txBefore[i] = bytes;
  }
  for (size_t i = 0; i < b.size(); ++i) emitStmt(b[i], txBefore, i);
}

void Lowering::emitRole(int r, const std::vector<const ir::RoleBody*>& bodies) {
  const auto& role = s_.roles[r];
  role_ = r;
  single_ = roleSingle_[r];
  const auto& w = role.warps;
  bool contiguous = true;
  for (size_t i = 1; i < w.size(); ++i) contiguous = contiguous && w[i] == w[i - 1] + 1;
  std::string pred, pos;
  if (contiguous) {
    pred = w.size() == 1 ? fmt::format("cake_warp == {}", w[0])
                         : fmt::format("cake_warp >= {} && cake_warp < {}", w[0], w.back() + 1);
    pos = fmt::format("cake_warp - {}", w[0]);
  } else {
    uint32_t mask = 0;
    for (int x : w) mask |= 1u << x;
    pred = fmt::format("(0x{:x}u >> cake_warp) & 1u", mask);
    pos = fmt::format("__popc(0x{:x}u & ((1u << cake_warp) - 1u))", mask);
  }
  const int wpi = role.warpsPerInstance();
  line(fmt::format("if ({}) {{", pred));
  ++indent_;
  comment(fmt::format("role '{}': warps [{}], {} instance{} of {} warp{}{}{}", role.name, fmt::join(w, ", "),
                      role.instanceCount(), role.instanceCount() > 1 ? "s" : "", wpi, wpi > 1 ? "s" : "",
                      role.regs ? fmt::format(", setmaxnreg {}", *role.regs) : std::string(),
                      single_ ? "; only waits, arrivals and TMA: runs on one elected thread per instance" : ""));
  if (role.regs && *role.regs != regCap_) {
    if (*role.regs > regCap_)
      line(fmt::format("cake_setmaxnreg_inc<{}>();  // from {} at launch", *role.regs, regCap_));
    else
      line(fmt::format("cake_setmaxnreg_dec<{}>();  // from {} at launch", *role.regs, regCap_));
  }
  line(fmt::format("const int cake_instance = ({}) / {};", pos, wpi));
  line(fmt::format("const int cake_inst_thread = (({}) % {}) * 32 + cake_lane;", pos, wpi));
  line("const bool cake_elected = cake_inst_thread == 0;");
  line(fmt::format("const int cake_inst_bar = {} + cake_instance;  // named barrier of this instance",
                   instBarBase_ + roleInstBase_[r]));
  line("const int cake_wwarp = cake_inst_thread / 32;  // warp within the instance");
  line("(void)cake_instance; (void)cake_elected; (void)cake_inst_bar; (void)cake_wwarp;");
  // fragments this role touches
  std::set<int> regsUsed;
  stagePhaseBars_.clear();
  for (const auto* body : bodies)
    ir::forEachOp(body->body, [&](const Stmt& st) {
      for (const auto* ref : {&st.op.dst, &st.op.src, &st.op.src2})
        if (ref->kind == ir::BufferRef::Kind::Regs) regsUsed.insert(ref->index);
      if (st.op.kind == OpKind::Wait && !st.op.sel.phase && st.op.sel.mode != ir::SlotSel::Mode::Iter)
        stagePhaseBars_.insert(st.op.barrier);
    });
  for (int b : stagePhaseBars_)
    line(fmt::format("uint32_t cake_phase_{} = 0;  // phase bit per slot of '{}' for this instance",
                     s_.barriers[b].name, s_.barriers[b].name));
  bool mmaSync = false;
  for (int x : regsUsed) {
    const auto& f = frag_[x];
    if (f.kind == FragLayout::Kind::None) continue;
    if (f.kind == FragLayout::Kind::MmaSync) {
      if (!mmaSync) {
        line(fmt::format("const int cake_wrow = (cake_wwarp / {}) * {}, cake_wcol = (cake_wwarp % {}) * {};", f.wn,
                         f.rows / f.wm, f.wn, f.cols / f.wn));
        mmaSync = true;
      }
    }
    line(fmt::format("{} {}{};  // {} {}x{} per instance, {} per thread", cType(s_.regs[x].dtype), regsName(x),
                     f.dims(), s_.regs[x].name, f.rows, f.cols, f.perThread()));
  }
  if (single_) open("if (cake_elected)");
  for (const auto* body : bodies) emitBlock(body->body);
  if (single_) close();
  --indent_;
  line("}");
}

void Lowering::emitKernel() {
  // kernel parameters
  std::vector<std::string> params;
  for (size_t i = 0; i < s_.params.size(); ++i) {
    const auto& p = s_.params[i];
    const int pi = static_cast<int>(i);
    if (ir::isTensorParam(p.type)) {
      for (const auto& [tp, tv] : tmaps_)
        if (tp == pi) params.push_back("const __grid_constant__ CUtensorMap " + tmapName(tp, tv));
      if (gmemParams_.count(pi)) params.push_back(fmt::format("__nv_bfloat16* __restrict__ {}", paramName(pi)));
      params.push_back(fmt::format("int cake_{0}_rows, int cake_{0}_cols, int cake_{0}_ld", paramName(pi)));
    } else {
      params.push_back("int " + paramName(pi));
    }
  }
  comment(fmt::format("schedule '{}' ({}): {} threads, {} B shared memory (+1024 alignment slack)", s_.name,
                      ir::targetName(target_), threads_, smemUsed_));
  line(fmt::format("__global__ void __launch_bounds__({}, 1) {}(", threads_, kernelName()));
  for (size_t i = 0; i < params.size(); ++i) line("    " + params[i] + (i + 1 < params.size() ? "," : ") {"));
  if (params.empty()) line("    ) {");
  ++indent_;
  for (size_t i = 0; i < s_.params.size(); ++i)
    if (ir::isTensorParam(s_.params[i].type))
      line(fmt::format("(void)cake_{0}_rows; (void)cake_{0}_cols; (void)cake_{0}_ld;", paramName(static_cast<int>(i))));
  line("extern __shared__ __align__(1024) uint8_t cake_smem_raw[];");
  line("const uint32_t cake_smem = (cake_smem_u32(cake_smem_raw) + 1023u) & ~1023u;");
  for (size_t p = 0; p < s_.pools.size(); ++p)
    line(fmt::format("const uint32_t cake_pool_{} = cake_smem + {};  // {} ({} B)", s_.pools[p].name, poolOffset_[p],
                     s_.pools[p].name, *constOf(s_.pools[p].bytes)));
  for (size_t v = 0; v < s_.views.size(); ++v) {
    const auto& view = s_.views[v];
    line(fmt::format("const uint32_t {} = cake_pool_{} + {};  // {}x{} {}, {} slot{} of {} B{}", viewName(static_cast<int>(v)),
                     s_.pools[view.pool].name, *constOf(view.offset), viewRows(static_cast<int>(v)),
                     viewCols(static_cast<int>(v)), ir::dtypeName(view.dtype), view.stages, view.stages > 1 ? "s" : "",
                     viewSlotBytes(static_cast<int>(v)),
                     view.swizzle != ir::Swizzle::None ? fmt::format(", {} swizzle", ir::swizzleName(view.swizzle))
                                                        : std::string()));
    line(fmt::format("(void){};", viewName(static_cast<int>(v))));
  }
  for (size_t b = 0; b < s_.barriers.size(); ++b) {
    const auto& bar = s_.barriers[b];
    line(fmt::format("const uint32_t {} = cake_smem + {};  // {} mbarrier{}, 8 B each", barName(static_cast<int>(b)),
                     barOffset_ + 8 * barSlotBase_[b], bar.count, bar.count > 1 ? "s" : ""));
  }
  line("const int cake_warp = threadIdx.x / 32, cake_lane = threadIdx.x % 32;");
  line("(void)cake_lane;");
  line("");
  open("if (threadIdx.x == 0)");
  for (size_t b = 0; b < s_.barriers.size(); ++b) {
    const auto& bar = s_.barriers[b];
    const int w = barWeight_[b];
    std::string why = fmt::format("init_count {}", bar.init_count);
    if (w > 1) why += fmt::format(" x {} (one arrival per warp of an arriving instance)", w);
    line(fmt::format("for (int s = 0; s < {}; ++s) cake_mbar_init({} + 8 * s, {});  // {}", bar.count,
                     barName(static_cast<int>(b)), bar.init_count * w, why));
  }
  if (!s_.barriers.empty()) line("cake_fence_mbarrier_init();");
  for (const auto& [tp, tv] : tmaps_) line(fmt::format("cake_prefetch_tensormap(&{});", tmapName(tp, tv)));
  close();
  line("__syncthreads();");
  line("");
  // one branch per role
  bool first = true;
  for (size_t r = 0; r < s_.roles.size(); ++r) {
    std::vector<const ir::RoleBody*> bodies;
    for (const auto& b : s_.bodies)
      if (b.role == static_cast<int>(r)) bodies.push_back(&b);
    if (bodies.empty()) continue;
    if (!first) {
      out_.resize(out_.size() - 1);  // "}\n" -> "} else "
      out_ += " else ";
      const size_t pos = out_.size();
      emitRole(static_cast<int>(r), bodies);
      // strip the indentation emitted before "if"
      size_t k = pos;
      while (k < out_.size() && out_[k] == ' ') ++k;
      out_.erase(pos, k - pos);
    } else {
      emitRole(static_cast<int>(r), bodies);
    }
    first = false;
  }
  --indent_;
  line("}");
}

void Lowering::emitHost() {
  line("");
  line("// ---- host: tensor maps, grid, launch ------------------------------------");
  line(fmt::format("extern \"C\" int cake_abi_version(void) {{ return CAKE_ABI_VERSION; }}"));
  line("");
  open("extern \"C\" void cake_kernel_info(CakeKernelInfo* info)");
  line(fmt::format("info->name = \"{}\";", s_.name));
  line(fmt::format("info->target = \"{}\";", ir::targetName(target_)));
  line("info->block_m = info->block_n = info->block_k = 0;");
  int stages = 1;
  for (const auto& v : s_.views) stages = std::max(stages, v.stages);
  line(fmt::format("info->stages = {};", stages));
  comment("16-byte row strides for TMA / cp.async and bf16x2 stores");
  line("info->m_multiple = 1;");
  line("info->n_multiple = 8;");
  line("info->k_multiple = 8;");
  close();
  line("");
  open("extern \"C\" int cake_gemm_launch(const CakeGemmArgs* cake_args, void* cake_stream)");
  line("const int M = cake_args->M, N = cake_args->N, K = cake_args->K;");
  line("(void)M; (void)N; (void)K;");
  for (const auto& a : s_.assumes) {
    bool hostable = true;
    for (auto k : {ExprKind::LoopVar, ExprKind::BlockIdx, ExprKind::GridDim, ExprKind::Instance})
      if (exprUses(*a.cond, k)) hostable = false;
    if (hostable)
      line(fmt::format("if (!({})) return cudaErrorInvalidValue;  // lm.assume({})", expr(a.cond, true),
                       pyText(a.cond)));
  }
  const char* names[3] = {"A", "B", "C"};
  const char* rows[3] = {"M", "N", "M"};
  const char* cols[3] = {"K", "K", "N"};
  const char* lds[3] = {"lda", "ldb", "ldc"};
  for (const auto& [tp, tv] : tmaps_) {
    const int role = tensorRole_[tp];
    const auto& view = s_.views[tv];
    const char* sw = view.swizzle == ir::Swizzle::B128  ? "CU_TENSOR_MAP_SWIZZLE_128B"
                     : view.swizzle == ir::Swizzle::B64 ? "CU_TENSOR_MAP_SWIZZLE_64B"
                     : view.swizzle == ir::Swizzle::B32 ? "CU_TENSOR_MAP_SWIZZLE_32B"
                                                        : "CU_TENSOR_MAP_SWIZZLE_NONE";
    const char* dt = view.dtype == ir::DType::F16 ? "CU_TENSOR_MAP_DATA_TYPE_FLOAT16"
                     : view.dtype == ir::DType::F32 ? "CU_TENSOR_MAP_DATA_TYPE_FLOAT32"
                                                    : "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16";
    line(fmt::format("CUtensorMap {};  // {} [{}, {}], box {}x{} = one slot of '{}'", tmapName(tp, tv),
                     s_.params[tp].name, rows[role], cols[role], viewRows(tv), viewCols(tv), view.name));
    line(fmt::format("if (int e = cake_encode_2d(&{}, {}, {}, cake_args->{}, {}, {}, cake_args->{}, {}, {}, {})) "
                     "return e;",
                     tmapName(tp, tv), dt, ir::dtypeBytes(view.dtype), names[role], rows[role], cols[role], lds[role],
                     viewRows(tv), viewCols(tv), sw));
  }
  line(fmt::format("const int cake_smem_bytes = {};", smemUsed_ + 1024));
  line("static bool cake_attr = false;");
  open("if (!cake_attr)");
  line(fmt::format("cudaError_t e = cudaFuncSetAttribute({}, cudaFuncAttributeMaxDynamicSharedMemorySize, "
                   "cake_smem_bytes);",
                   kernelName()));
  line("if (e != cudaSuccess) return e;");
  line("cake_attr = true;");
  close();
  if (persistent_) {
    line("int cake_dev = 0, cake_num_sms = 0;");
    line("cudaGetDevice(&cake_dev);");
    line("cudaDeviceGetAttribute(&cake_num_sms, cudaDevAttrMultiProcessorCount, cake_dev);");
    comment("persistent: the schedule strides over its tiles by lm.grid_dim(0)");
  }
  line(fmt::format("const dim3 cake_grid({}, {}, {});", gridHost_[0], gridHost_[1], gridHost_[2]));
  std::vector<std::string> args;
  for (size_t i = 0; i < s_.params.size(); ++i) {
    const int pi = static_cast<int>(i);
    const auto& p = s_.params[i];
    if (ir::isTensorParam(p.type)) {
      const int role = tensorRole_[pi];
      for (const auto& [tp, tv] : tmaps_)
        if (tp == pi) args.push_back(tmapName(tp, tv));
      if (gmemParams_.count(pi))
        args.push_back(fmt::format("static_cast<__nv_bfloat16*>(const_cast<void*>(static_cast<const void*>(cake_args->{})))",
                                   names[role]));
      args.push_back(fmt::format("{}, {}, cake_args->{}", rows[role], cols[role], lds[role]));
    } else {
      args.push_back(p.name);
    }
  }
  line(fmt::format("{}<<<cake_grid, {}, cake_smem_bytes, static_cast<cudaStream_t>(cake_stream)>>>(", kernelName(),
                   threads_));
  for (size_t i = 0; i < args.size(); ++i) line("    " + args[i] + (i + 1 < args.size() ? "," : ");"));
  line("return cudaGetLastError();");
  close();
}

LowerResult Lowering::run() {
  LowerResult res;
  target_ = opts_.target != ir::Target::Unspecified ? opts_.target : s_.target;
  if (target_ == ir::Target::Unspecified) target_ = ir::Target::SM90a;
  res.target = target_;
  if (target_ != ir::Target::SM90a && target_ != ir::Target::SM80) {
    error("lower.unsupported", s_.range,
          fmt::format("no CUDA backend for {} yet (lowered targets: sm_90a, sm_80)", ir::targetName(target_)));
    res.findings = findings_;
    return res;
  }
  if (opts_.target != ir::Target::Unspecified && s_.target != ir::Target::Unspecified && opts_.target != s_.target) {
    error("lower.unsupported", s_.range,
          fmt::format("schedule '{}' is written for {}, not {}: lowering never retargets a schedule", s_.name,
                      ir::targetName(s_.target), ir::targetName(opts_.target)));
    res.findings = findings_;
    return res;
  }
  for (int d = 0; d < 3; ++d)
    if (s_.cluster[d] != 1) error("lower.unsupported", s_.range, "clusters (cluster=) are not lowered yet");
  bindProblem();
  layoutSmem();
  analyzeRoles();
  if (failed()) {
    res.findings = findings_;
    return res;
  }
  analyzeBarriers();
  for (const auto& b : s_.bodies) analyzeLoops(b.body);
  analyzeFragments();
  checkOps();
  deriveGrid();
  if (failed()) {
    res.findings = findings_;
    return res;
  }
  // kernel body first (it decides which wgmma helpers are needed)
  out_.clear();
  emitKernel();
  std::string kernel = std::move(out_);
  out_.clear();
  emitHost();
  std::string host = std::move(out_);
  if (failed()) {
    res.findings = findings_;
    return res;
  }
  std::string src;
  src += fmt::format("// Generated by cake lowering from schedule '{}' ({}). Do not edit.\n", s_.name,
                     s_.range.file ? s_.range.file->name : std::string("<schedule>"));
  src += fmt::format("// target {}: nvcc -shared -Xcompiler -fPIC -cudart shared {}\n", ir::targetName(target_),
                     target_ == ir::Target::SM80
                         ? "-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_80,code=sm_90"
                         : "-gencode=arch=compute_90a,code=sm_90a");
  src += preludeText();
  if (target_ == ir::Target::SM90a) src += preludeSm90Text();
  src += preludeSm80Text();
  for (const auto& [n, ty] : wgmmaShapes_) src += "\n" + wgmmaHelper(n, ty);
  src += "\n";
  src += kernel;
  if (!tmaps_.empty()) src += preludeHostText();
  src += host;
  res.ok = true;
  res.source = std::move(src);
  res.kernel_name = kernelName();
  res.launch.threads = threads_;
  res.launch.smem_bytes = static_cast<int>(smemUsed_ + 1024);
  res.launch.grid = fmt::format("({}, {}, {})", gridHost_[0], gridHost_[1], gridHost_[2]);
  res.launch.persistent = persistent_;
  res.findings = findings_;
  return res;
}

}  // namespace

LowerResult lowerToCuda(const ir::Schedule& schedule, const LowerOptions& opts) {
  Lowering l(schedule, opts);
  return l.run();
}

std::span<const ir::RuleInfo> loweringRules() { return kRules; }

}  // namespace cake::lowering
