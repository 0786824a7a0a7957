// Resolver and type checker: ast::Module -> ir::Module (ir/schedule.h).
//
// Names resolve to indices into the schedule's tables; integer names are
// substituted into the expressions that use them; constants are folded with
// Python semantics and checked for overflow and division by zero. Every
// problem is a type.* finding at the offending source range.
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "ir/target.h"
#include "ir/ast.h"
#include "ir/expr_canon.h"
#include "ir/frontend.h"
#include "ir/int_eval.h"
#include "ir/ops.h"

namespace cake::ir {

namespace {

using AE = ast::Expr;
using AK = ast::ExprKind;

void nameSlotsByIteration(Schedule& s);
void waitsByIteration(Schedule& s);

constexpr int kMaxIrDepth = 200;
constexpr int64_t kMaxIrSize = 100000;

enum class VK {
  Error,     // already reported: propagate silently
  Int, Float, Str, None, Tuple, List,
  Builder, ModCake, ModLM, DType,
  Param, Pool, View, Tmem, Regs, Role, Pipeline, Barrier, NamedBarrier,
  Buffer,    // a view slot / sliced sub-tile / sliced regs or tmem
};

struct Value {
  VK k = VK::Error;
  ExprPtr i;                 // Int
  bool isBool = false;       // Int from True/False/comparison
  double f = 0;              // Float
  std::string s;             // Str
  std::vector<Value> elems;  // Tuple / List
  int idx = -1;              // resource index
  DType dt = DType::BF16;
  BufferRef buf;             // Buffer
  SourceRange range;
};

std::string kindName(const Value& v) {
  switch (v.k) {
    case VK::Error: return "an invalid value";
    case VK::Int: return v.isBool ? "a boolean" : "an integer";
    case VK::Float: return "a float";
    case VK::Str: return "a string";
    case VK::None: return "None";
    case VK::Tuple: return "a tuple";
    case VK::List: return "a list";
    case VK::Builder: return "the builder";
    case VK::ModCake: return "the module 'cake'";
    case VK::ModLM: return "the module 'LM'";
    case VK::DType: return "a dtype";
    case VK::Param: return "a parameter";
    case VK::Pool: return "a shared-memory pool";
    case VK::View: return "a view";
    case VK::Tmem: return "a tensor-memory region";
    case VK::Regs: return "a register fragment";
    case VK::Role: return "a role";
    case VK::Pipeline: return "a pipeline";
    case VK::Barrier: return "a barrier";
    case VK::NamedBarrier: return "a named barrier";
    case VK::Buffer: return "a buffer slot";
  }
  return "a value";
}

struct Sym {
  Value v;
  SourceRange def;
};

// Thrown to abandon the current statement after an error was reported.
struct Abandon {};

enum class CallClass { Decl, Op, IntFn, Assume, GridDependency, Range, Other };

const std::set<std::string> kBuilderDecls = {"smem", "tmem", "regs", "role", "pipeline", "barrier", "named_barrier"};
const std::set<std::string> kBuilderIntFns = {"cdiv", "block_idx", "grid_dim", "instance", "cluster_rank"};
bool isBuilderOp(std::string_view n) { return findOp(n, OpReceiver::Builder).has_value(); }
bool isViewOp(std::string_view n) { return findOp(n, OpReceiver::View).has_value(); }

std::optional<DType> dtypeByName(std::string_view n) {
  if (n == "bf16") return DType::BF16;
  if (n == "f16") return DType::F16;
  if (n == "f32") return DType::F32;
  if (n == "e4m3") return DType::E4M3;
  if (n == "e5m2") return DType::E5M2;
  if (n == "i8") return DType::I8;
  if (n == "i32") return DType::I32;
  return std::nullopt;
}

std::optional<ParamType> paramTypeByName(std::string_view n) {
  if (n == "tma1d") return ParamType::Tma1d;
  if (n == "tma2d") return ParamType::Tma2d;
  if (n == "tma3d") return ParamType::Tma3d;
  if (n == "tma4d") return ParamType::Tma4d;
  if (n == "tma5d") return ParamType::Tma5d;
  if (n == "gmem") return ParamType::Gmem;
  if (n == "i32") return ParamType::I32;
  if (n == "f32") return ParamType::F32;
  return std::nullopt;
}

// Keyword/positional binding of one call.
struct Args {
  std::map<std::string, const AE*> kw;
  const AE* get(const std::string& n) const {
    auto it = kw.find(n);
    return it == kw.end() ? nullptr : it->second;
  }
  bool has(const std::string& n) const { return kw.count(n) != 0; }
};

struct ArgSpec {
  std::string_view name;
  bool required = false;
};

class Resolver {
 public:
  Resolver(const ast::Module& m, const FrontendOptions& o, DiagnosticSink& sink) : m_(m), opts_(o), sink_(sink) {}

  std::optional<Module> run() {
    size_t before = sink_.errorCount();
    Module out;
    out.file = m_.file;
    std::map<std::string, SourceRange> names;
    bool sawDef = false;
    for (const ast::StmtPtr& sp : m_.body) {
      const ast::Stmt& s = *sp;
      try {
        switch (s.kind) {
          case ast::Stmt::Kind::Import:
          case ast::Stmt::Kind::FromImport:
          case ast::Stmt::Kind::Pass:
            break;
          case ast::Stmt::Kind::Expr:
            if (s.value->kind == AK::Str) break;  // docstring
            [[fallthrough]];
          default:
            error("type.misplaced", s.range,
                  "only imports, a docstring and @cake.schedule functions may appear at the top level of a file");
            break;
          case ast::Stmt::Kind::Def: {
            sawDef = true;
            auto prev = names.find(s.target);
            if (prev != names.end()) {
              Finding f = frontendFinding("type.duplicate", s.target_range,
                                          fmt::format("a schedule named '{}' is already defined", s.target));
              f.notes.push_back({prev->second, "previous definition is here"});
              sink_.add(std::move(f));
              break;
            }
            names[s.target] = s.target_range;
            std::optional<Schedule> sc = schedule(s);
            if (sc) out.schedules.push_back(std::move(*sc));
            break;
          }
        }
      } catch (const Abandon&) {
      }
    }
    if (!sawDef && sink_.errorCount() == before) {
      SourceRange r;
      r.file = m_.file;
      r.line = r.col = r.end_line = 1;
      r.end_col = 2;
      error("type.misplaced", r, "no @cake.schedule function in the file");
    }
    if (sink_.errorCount() != before) return std::nullopt;
    return out;
  }

 private:
  // ------------------------------------------------------------ reporting
  void error(std::string_view rule, const SourceRange& r, std::string msg) {
    sink_.add(frontendFinding(rule, r, std::move(msg)));
  }
  [[noreturn]] void fail(std::string_view rule, const SourceRange& r, std::string msg) {
    error(rule, r, std::move(msg));
    throw Abandon{};
  }

  // -------------------------------------------------------------- scopes
  const Sym* lookup(const std::string& n) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(n);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }

  void define(const std::string& n, const SourceRange& r, Value v) {
    if (const Sym* prev = lookup(n)) {
      Finding f = frontendFinding(
          "type.duplicate", r,
          fmt::format("'{}' is already defined; names in a schedule are assigned once", n));
      if (prev->def.valid()) f.notes.push_back({prev->def, "previous definition is here"});
      sink_.add(std::move(f));
      throw Abandon{};
    }
    scopes_.back()[n] = Sym{std::move(v), r};
  }

  // ------------------------------------------------------- integer exprs
  ExprPtr keep(std::shared_ptr<Expr> e, int depth, int64_t size) {
    info_[e.get()] = {depth, size};
    keep_.push_back(e);
    return e;
  }

  ExprPtr leaf(ExprKind k, int64_t value, int index, const SourceRange& r) {
    auto e = std::make_shared<Expr>();
    e->kind = k;
    e->value = value;
    e->index = index;
    e->range = r;
    return keep(std::move(e), 1, 1);
  }
  ExprPtr cnst(int64_t v, const SourceRange& r) { return leaf(ExprKind::Const, v, 0, r); }

  std::pair<int, int64_t> infoOf(const ExprPtr& e) const {
    auto it = info_.find(e.get());
    return it == info_.end() ? std::pair<int, int64_t>{1, 1} : it->second;
  }

  static std::optional<int64_t> constOf(const ExprPtr& e) {
    if (e && e->kind == ExprKind::Const) return e->value;
    return std::nullopt;
  }

  ExprPtr op(ExprKind k, std::vector<ExprPtr> args, const SourceRange& r) {
    // division by a constant zero, even with a symbolic dividend
    if ((k == ExprKind::FloorDiv || k == ExprKind::Mod || k == ExprKind::CDiv) && constOf(args[1]) == 0)
      fail("type.division-by-zero", r, fmt::format("{} by zero", k == ExprKind::Mod ? "modulo" : "division"));
    if (std::all_of(args.begin(), args.end(), [](const ExprPtr& a) { return constOf(a).has_value(); })) {
      // the divisor is not zero here, so no value means overflow
      std::optional<int64_t> v = applyIntOp(k, *constOf(args[0]), args.size() > 1 ? *constOf(args[1]) : 0);
      if (!v) fail("type.int-overflow", r, "integer overflow: the constant value does not fit in 64 bits");
      return cnst(*v, r);
    }
    int depth = 0;
    int64_t size = 1;
    for (const ExprPtr& a : args) {
      auto [d, s] = infoOf(a);
      depth = std::max(depth, d);
      size = std::min<int64_t>(size + s, kMaxIrSize + 1);
    }
    ++depth;
    if (depth > kMaxIrDepth || size > kMaxIrSize)
      fail("syntax.too-deep", r,
           fmt::format("expression too large after substituting integer names (more than {} levels or {} nodes)",
                       kMaxIrDepth, kMaxIrSize));
    auto e = std::make_shared<Expr>();
    e->kind = k;
    e->args = std::move(args);
    e->range = r;
    return keep(std::move(e), depth, size);
  }

  // ---------------------------------------------------------- evaluation
  Value mkv(VK k, const SourceRange& r, int idx = -1) {
    Value v;
    v.k = k;
    v.range = r;
    v.idx = idx;
    return v;
  }
  Value intv(ExprPtr e, const SourceRange& r, bool isBool = false) {
    Value v = mkv(VK::Int, r);
    v.i = std::move(e);
    v.isBool = isBool;
    return v;
  }

  // An integer operand; reports a mismatch for anything else.
  ExprPtr needInt(const Value& v, std::string_view what) {
    if (v.k == VK::Int) return v.i;
    if (v.k == VK::Error) throw Abandon{};
    if (v.k == VK::Param && sch_)
      fail("type.mismatch", v.range,
           fmt::format("expected an integer for {}, found the {} parameter '{}' (only LM.i32 parameters are integers)",
                       what, paramTypeName(sch_->params[v.idx].type), sch_->params[v.idx].name));
    fail("type.mismatch", v.range, fmt::format("expected an integer for {}, found {}", what, kindName(v)));
  }
  ExprPtr intOf(const AE& e, std::string_view what) { return needInt(eval(e), what); }

  // A step that is positive for every value of its symbols: a positive
  // constant, lm.grid_dim(d) (at least 1), and sums, products and maxima
  // of such terms (a persistent kernel's `lm.range(lm.block_idx(0), tiles,
  // lm.grid_dim(0))`).
  static bool positiveForAllValues(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Const: return e.value > 0;
      case ExprKind::GridDim: return true;
      case ExprKind::Add:
      case ExprKind::Mul:
        return positiveForAllValues(*e.args[0]) && positiveForAllValues(*e.args[1]);
      case ExprKind::Max: return positiveForAllValues(*e.args[0]) || positiveForAllValues(*e.args[1]);
      default: return false;
    }
  }

  // `for v in lm.range(lo, hi, step)` with a positive step that is no
  // constant (IR.md allows any step; the loop forms the checks take have a
  // constant one): the loop counts its trips n from 0 to
  // lm.cdiv(max(hi - lo, 0), step) and v is lo + n * step, the values
  // Python's range gives (docs/semantics.md "Loops with a symbolic step").
  // Returns v's expression; `st` becomes the counting loop.
  ExprPtr countLoopFromZero(Stmt& st, const ExprPtr& step, const ExprPtr& trip) {
    const SourceRange& r = st.range;
    ExprPtr span = op(ExprKind::Max, {op(ExprKind::Sub, {st.hi, st.lo}, r), cnst(0, r)}, r);
    ExprPtr lo = st.lo;
    st.hi = op(ExprKind::CDiv, {span, step}, r);
    st.lo = cnst(0, r);
    st.step = cnst(1, r);
    ExprPtr var = op(ExprKind::Add, {lo, op(ExprKind::Mul, {trip, step}, r)}, r);
    stepped_vars_[var.get()] = SteppedVar{lo, trip, step};
    return var;
  }

  // A loop variable of a symbolic step, v = lo + n * step (countLoopFromZero).
  struct SteppedVar {
    ExprPtr lo, trip, step;
  };
  std::map<const Expr*, SteppedVar> stepped_vars_;

  // `(v - lo) // step` of such a variable, as CUDA's grid-strided loops
  // recover their trip number (`t = (tile - blockIdx.x) / gridDim.x`), is
  // the trip count n itself: (lo + n * step - lo) // step = n for every
  // value, the step being positive (positiveForAllValues). Read as n, the
  // proofs see the loop's own trip variable, not the block index around it.
  ExprPtr tripOfSteppedVar(ExprKind k, const ExprPtr& a, const ExprPtr& b) const {
    if (k != ExprKind::FloorDiv || !a || a->kind != ExprKind::Sub || a->args.size() != 2) return nullptr;
    const auto it = stepped_vars_.find(a->args[0].get());
    if (it == stepped_vars_.end()) return nullptr;
    const SteppedVar& v = it->second;
    return sameExpr(*a->args[1], *v.lo) && sameExpr(*b, *v.step) ? v.trip : nullptr;
  }

  int64_t constInt(const AE& e, std::string_view what) {
    ExprPtr x = intOf(e, what);
    if (auto c = constOf(x)) return *c;
    fail("type.non-constant", e.range,
         fmt::format("{} must be a constant integer; it depends on a parameter, a loop variable or the instance",
                     what));
  }
  int constIntRange(const AE& e, std::string_view what, int64_t lo, int64_t hi, std::string_view why = {}) {
    int64_t v = constInt(e, what);
    if (v < lo || v > hi)
      fail("type.mismatch", e.range,
           hi == INT32_MAX ? fmt::format("{} must be at least {}, found {}", what, lo, v)
                           : fmt::format("{} must be in [{}, {}]{}, found {}", what, lo, hi, why, v));
    return static_cast<int>(v);
  }

  // Sizes beyond what any GPU allows are rejected here, with their location,
  // before a later stage allocates for them (ir/target.h).
  // IR.md: a pipeline is "a depth that views and barriers can share", so where
  // a depth is asked for (stages=, count=) the pipeline itself gives its own.
  std::optional<int> pipelineDepth(const AE& e) {
    if (e.kind != AK::Name) return std::nullopt;
    Value v = eval(e);
    if (v.k != VK::Pipeline) return std::nullopt;
    return sch_->pipelines[v.idx].stages;
  }
  int barrierSlots(const AE& e) {
    if (auto d = pipelineDepth(e)) return *d;
    const int64_t max = ir::hw::maxSmemPerBlock() / ir::hw::kMbarrierBytes;
    return constIntRange(e, "count=", 1, max,
                         fmt::format(" (each slot is an {}-byte mbarrier in shared memory, at most {} bytes on any "
                                     "target)",
                                     ir::hw::kMbarrierBytes, ir::hw::maxSmemPerBlock()));
  }
  int arrivalCount(const AE& e, std::string_view what) {
    return constIntRange(e, what, 1, ir::hw::kMaxArrivalCount, " (an mbarrier counts arrivals in 20 bits)");
  }
  int stageCount(const AE& e) {
    if (auto d = pipelineDepth(e)) return *d;
    return constIntRange(e, "stages=", 1, ir::hw::maxSmemPerBlock(),
                         fmt::format(" (every stage takes shared memory, at most {} bytes on any target)",
                                     ir::hw::maxSmemPerBlock()));
  }

  Value eval(const AE& e) {
    switch (e.kind) {
      case AK::Int:
        if (e.overflow)
          fail("type.int-overflow", e.range, fmt::format("integer literal {} does not fit in 64 bits", e.raw));
        return intv(cnst(e.ival, e.range), e.range);
      case AK::Float: {
        Value v = mkv(VK::Float, e.range);
        v.f = e.fval;
        return v;
      }
      case AK::Str: {
        Value v = mkv(VK::Str, e.range);
        v.s = e.text;
        return v;
      }
      case AK::True: return intv(cnst(1, e.range), e.range, true);
      case AK::False: return intv(cnst(0, e.range), e.range, true);
      case AK::None: return mkv(VK::None, e.range);
      case AK::Name: {
        const Sym* s = lookup(e.text);
        if (!s) {
          if (e.text == "min" || e.text == "max" || e.text == "range" || e.text == "print" || e.text == "len")
            fail("type.mismatch", e.range, fmt::format("'{}' can only be called", e.text));
          fail("type.undefined-name", e.range, fmt::format("undefined name '{}'", e.text));
        }
        if (s->v.k == VK::Error) throw Abandon{};
        Value v = s->v;
        if (v.k != VK::Int) v.range = e.range;  // integers keep their definition's ranges
        return v;
      }
      case AK::Tuple:
      case AK::List: {
        Value v = mkv(e.kind == AK::Tuple ? VK::Tuple : VK::List, e.range);
        for (const ast::ExprPtr& a : e.args) v.elems.push_back(eval(*a));
        return v;
      }
      case AK::Attribute: return attribute(e);
      case AK::Call: return call(e, false, nullptr);
      case AK::Subscript: return subscript(e);
      case AK::Slice: fail("type.mismatch", e.range, "a slice is only allowed inside a subscript");
      case AK::UnaryOp: {
        Value x = eval(*e.args[0]);
        if (e.text == "not") return intv(op(ExprKind::Not, {needInt(x, "'not'")}, e.range), e.range, true);
        if (x.k == VK::Float) {
          if (e.text == "-") x.f = -x.f;
          x.range = e.range;
          return x;
        }
        ExprPtr a = needInt(x, fmt::format("unary '{}'", e.text));
        if (e.text == "+") return intv(a, e.range);
        return intv(op(ExprKind::Neg, {a}, e.range), e.range);
      }
      case AK::BinOp: {
        ExprPtr a = intOf(*e.args[0], fmt::format("'{}'", e.text));
        ExprPtr b = intOf(*e.args[1], fmt::format("'{}'", e.text));
        ExprKind k = e.text == "+" ? ExprKind::Add : e.text == "-" ? ExprKind::Sub : e.text == "*" ? ExprKind::Mul
                   : e.text == "//" ? ExprKind::FloorDiv : ExprKind::Mod;
        if (ExprPtr trip = tripOfSteppedVar(k, a, b)) return intv(trip, e.range);
        return intv(op(k, {a, b}, e.range), e.range);
      }
      case AK::Compare: {
        std::vector<ExprPtr> xs;
        for (const ast::ExprPtr& a : e.args) xs.push_back(intOf(*a, "a comparison"));
        ExprPtr acc;
        for (size_t i = 0; i < e.ops.size(); ++i) {
          const std::string& o = e.ops[i];
          ExprKind k = o == "<" ? ExprKind::Lt : o == "<=" ? ExprKind::Le : o == ">" ? ExprKind::Gt
                     : o == ">=" ? ExprKind::Ge : o == "==" ? ExprKind::Eq : ExprKind::Ne;
          ExprPtr c = op(k, {xs[i], xs[i + 1]}, e.range);
          acc = acc ? op(ExprKind::And, {acc, c}, e.range) : c;
        }
        return intv(acc, e.range, true);
      }
      case AK::BoolOp: {
        ExprKind k = e.text == "and" ? ExprKind::And : ExprKind::Or;
        ExprPtr acc;
        for (const ast::ExprPtr& a : e.args) {
          ExprPtr x = intOf(*a, fmt::format("'{}'", e.text));
          acc = acc ? op(k, {acc, x}, e.range) : x;
        }
        return intv(acc, e.range, true);
      }
    }
    fail("type.mismatch", e.range, "unsupported expression");
  }

  Value attribute(const AE& e) {
    Value base = eval(*e.args[0]);
    const std::string& n = e.text;
    switch (base.k) {
      case VK::Builder:
        if (auto d = dtypeByName(n)) {
          Value v = mkv(VK::DType, e.range);
          v.dt = *d;
          return v;
        }
        if (kBuilderDecls.count(n) || isBuilderOp(n) || kBuilderIntFns.count(n) || n == "range" ||
            n == "assume" || n == "grid_dependency")
          fail("type.mismatch", e.range, fmt::format("'{}.{}' must be called", builder_, n));
        fail("type.unknown-op", e.range,
             fmt::format("'{}.{}' is not part of CAKE IR (see docs/ir-reference.md)", builder_, n));
      case VK::ModLM:
        if (paramTypeByName(n))
          fail("type.mismatch", e.range, fmt::format("'LM.{}' is a parameter type; it is only used as an annotation", n));
        fail("type.unknown-op", e.range, fmt::format("'LM.{}' is not part of CAKE IR", n));
      default:
        break;
    }
    // The depths a declaration was given, as constants (`k - pipe.stages`).
    if (base.k == VK::Pipeline && n == "stages") return intv(cnst(sch_->pipelines[base.idx].stages, e.range), e.range);
    if (base.k == VK::View && n == "stages") return intv(cnst(sch_->views[base.idx].stages, e.range), e.range);
    if (base.k == VK::Barrier && n == "count") return intv(cnst(sch_->barriers[base.idx].count, e.range), e.range);
    if ((base.k == VK::View && isViewOp(n)) || (base.k == VK::Pool && n == "view"))
      fail("type.mismatch", e.range, fmt::format("'{}' must be called", n));
    fail("type.unknown-op", e.range, fmt::format("{} has no attribute '{}'", kindName(base), n));
  }

  // ----------------------------------------------------------- subscripts
  const std::vector<ExprPtr>* shapeOf(const BufferRef& b, const Schedule& s) const {
    switch (b.kind) {
      case BufferRef::Kind::View: return &s.views[b.index].shape;
      case BufferRef::Kind::Tmem: return &s.tmems[b.index].shape;
      case BufferRef::Kind::Regs: return &s.regs[b.index].shape;
      default: return nullptr;
    }
  }

  // Constant slice bounds must lie in the dimension (0 <= lo < hi <= dim):
  // the model clamps a bound to the buffer, the lowering would address past it.
  void checkSliceBounds(const Slice& sl, const ExprPtr& dim, const SourceRange& r) {
    const auto lo = sl.lo ? constOf(sl.lo) : std::optional<int64_t>(0);
    const auto hi = sl.hi ? constOf(sl.hi) : constOf(dim);
    const auto d = constOf(dim);
    if (lo && *lo < 0) fail("type.mismatch", r, fmt::format("slice start {} is negative", *lo));
    if (hi && d && *hi > *d) fail("type.mismatch", r, fmt::format("slice end {} is past the dimension's {} elements", *hi, *d));
    if (lo && hi && *lo >= *hi) fail("type.mismatch", r, fmt::format("empty slice {}:{}", *lo, *hi));
  }

  Value subscript(const AE& e) {
    Value base = eval(*e.args[0]);
    const AE& idx = *e.args[1];
    bool isSlice = idx.kind == AK::Slice || idx.kind == AK::Tuple;
    Value out = mkv(VK::Buffer, e.range);
    if (base.k == VK::View) {
      if (isSlice)
        fail("type.mismatch", idx.range,
             fmt::format("index the slot of view '{}' first, then slice it: {}[e][r0:r1, :]",
                         sch_->views[base.idx].name, sch_->views[base.idx].name));
      out.buf.kind = BufferRef::Kind::View;
      out.buf.index = base.idx;
      out.buf.slot = intOf(idx, "a view slot");
      out.buf.range = e.range;
      return out;
    }
    if (base.k == VK::Tmem || base.k == VK::Regs || base.k == VK::Buffer) {
      BufferRef b;
      if (base.k == VK::Buffer) {
        b = base.buf;
      } else {
        b.kind = base.k == VK::Tmem ? BufferRef::Kind::Tmem : BufferRef::Kind::Regs;
        b.index = base.idx;
      }
      if (!b.slices.empty()) fail("type.mismatch", e.range, "a sub-tile cannot be sliced again");
      if (!isSlice)
        fail("type.mismatch", idx.range,
             base.k == VK::Buffer ? "a view slot is selected once; slice it with [r0:r1, :]"
                                  : fmt::format("{} has no slots; slice it with [r0:r1, :]", kindName(base)));
      std::vector<const AE*> items;
      if (idx.kind == AK::Tuple)
        for (const ast::ExprPtr& a : idx.args) items.push_back(a.get());
      else
        items.push_back(&idx);
      const std::vector<ExprPtr>* shape = shapeOf(b, *sch_);
      if (shape && items.size() > shape->size())
        fail("type.mismatch", idx.range,
             fmt::format("{} slices for a buffer of rank {}", items.size(), shape->size()));
      for (const AE* it : items) {
        if (it->kind != AK::Slice)
          fail("type.mismatch", it->range, "use a range 'r0:r1' (or ':') in every dimension of a sub-tile");
        Slice sl;
        if (it->args[0]) sl.lo = intOf(*it->args[0], "a slice bound");
        if (it->args[1]) sl.hi = intOf(*it->args[1], "a slice bound");
        if (shape) checkSliceBounds(sl, (*shape)[b.slices.size()], it->range);
        b.slices.push_back(sl);
      }
      b.range = e.range;
      out.buf = b;
      return out;
    }
    if (base.k == VK::Param)
      fail("type.mismatch", e.range, "a global tensor is not indexed; give its tile position with coords=(...)");
    fail("type.mismatch", e.range, fmt::format("{} cannot be indexed", kindName(base)));
  }

  // ---------------------------------------------------------------- calls
  // An op's arguments, as its line of ir/ops.def declares them.
  Args bind(const AE& call, std::string_view fname, const OpInfo& op) {
    std::vector<ArgSpec> sp;
    for (const OpArg& x : op.args) sp.push_back({x.name, x.required});
    return bind(call, fname, sp, static_cast<size_t>(op.positional));
  }

  Args bind(const AE& call, std::string_view fname, const std::vector<ArgSpec>& sp, size_t maxPositional,
            std::initializer_list<std::pair<const char*, const char*>> aliases = {}) {
    Args a;
    size_t npos = call.args.size() - 1;
    if (npos > maxPositional)
      fail("type.unknown-argument", call.args[maxPositional + 1]->range,
           maxPositional == 0 ? fmt::format("{} takes no positional arguments", fname)
                              : fmt::format("{} takes at most {} positional argument{}", fname, maxPositional,
                                            maxPositional == 1 ? "" : "s"));
    std::map<std::string, std::string> spelled;
    for (size_t i = 0; i < npos; ++i) a.kw[std::string(sp[i].name)] = call.args[i + 1].get();
    for (const ast::Keyword& k : call.kwargs) {
      std::string name = k.name;
      for (auto& [alias, canon] : aliases)
        if (name == alias) name = canon;
      bool known = std::any_of(sp.begin(), sp.end(), [&](const ArgSpec& s) { return name == s.name; });
      if (!known) {
        std::string list;
        for (const ArgSpec& s : sp) list += (list.empty() ? "" : ", ") + std::string(s.name) + "=";
        fail("type.unknown-argument", k.name_range,
             fmt::format("{} has no argument '{}'{}", fname, k.name,
                         list.empty() ? std::string(" (it takes none)") : fmt::format(" (it takes {})", list)));
      }
      if (a.kw.count(name)) {
        std::string other = spelled.count(name) ? spelled[name] : name;
        fail("type.duplicate", k.name_range,
             other != k.name ? fmt::format("'{}' and '{}' are the same argument of {}; give one", other, k.name, fname)
                             : fmt::format("argument '{}' of {} is given twice", k.name, fname));
      }
      a.kw[name] = k.value.get();
      spelled[name] = k.name;
    }
    for (const ArgSpec& s : sp)
      if (s.required && !a.has(std::string(s.name)))
        fail("type.missing-argument", call.range, fmt::format("{} needs the argument '{}='", fname, s.name));
    return a;
  }

  // What a call is; for an op, `*op` (when given) is its kind: the one place
  // an op's name is looked up.
  CallClass classify(const AE& call, std::string* name, OpKind* op = nullptr) {
    const AE& fn = *call.args[0];
    if (fn.kind == AK::Attribute) {
      const AE& obj = *fn.args[0];
      const std::string& n = fn.text;
      *name = n;
      if (obj.kind == AK::Name) {
        const Sym* s = lookup(obj.text);
        if (s && s->v.k == VK::Builder) {
          if (kBuilderDecls.count(n)) return CallClass::Decl;
          if (std::optional<OpKind> k = findOp(n, OpReceiver::Builder)) {
            if (op) *op = *k;
            return CallClass::Op;
          }
          if (kBuilderIntFns.count(n)) return CallClass::IntFn;
          if (n == "assume") return CallClass::Assume;
          if (n == "grid_dependency") return CallClass::GridDependency;
          if (n == "range") return CallClass::Range;
          return CallClass::Other;
        }
        if (s && s->v.k == VK::Pool && n == "view") return CallClass::Decl;
        if (s && s->v.k == VK::View)
          if (std::optional<OpKind> k = findOp(n, OpReceiver::View)) {
            if (op) *op = *k;
            return CallClass::Op;
          }
      }
      // view[e].tma_load(...): the slot written is named by the receiver,
      // the barrier slot by iter=/stage= (docs/ir-extensions.md)
      if (obj.kind == AK::Subscript && obj.args[0]->kind == AK::Name && n == "tma_load") {
        const Sym* s = lookup(obj.args[0]->text);
        if (s && s->v.k == VK::View) {
          if (op) *op = OpKind::TmaLoad;
          return CallClass::Op;
        }
      }
    }
    return CallClass::Other;
  }

  // Evaluates a call in expression position. `declName` is the name being
  // assigned when the call is the whole right-hand side.
  Value call(const AE& e, bool asStatement, const ast::Stmt* assign) {
    std::string n;
    CallClass cc = classify(e, &n);
    switch (cc) {
      case CallClass::Decl:
        if (!assign)
          fail("type.misplaced", e.range, fmt::format("a declaration must be assigned to a name: 'x = ...{}(...)'", n));
        if (inRole_)
          fail("type.misplaced", e.range,
               "declarations belong at the top level of the schedule, not inside a role block");
        return declaration(e, n, *assign);
      case CallClass::Op:
        fail("type.mismatch", e.range, fmt::format("'{}' is an op and has no value; call it as a statement", n));
      case CallClass::Assume:
        fail("type.mismatch", e.range, "lm.assume(...) has no value; call it as a statement");
      case CallClass::GridDependency:
        fail("type.mismatch", e.range, "lm.grid_dependency(...) has no value; call it as a statement");
      case CallClass::Range:
        fail("type.mismatch", e.range, "lm.range(...) is only allowed as the iterable of a 'for' loop");
      case CallClass::IntFn: return intFn(e, n);
      case CallClass::Other: break;
    }
    (void)asStatement;
    const AE& fn = *e.args[0];
    if (fn.kind == AK::Name) {
      if (const Sym* s = lookup(fn.text)) {
        if (s->v.k == VK::Error) throw Abandon{};
        fail("type.mismatch", fn.range, fmt::format("'{}' is {} and cannot be called", fn.text, kindName(s->v)));
      }
      if (fn.text == "min" || fn.text == "max") {
        if (!e.kwargs.empty())
          fail("type.unknown-argument", e.kwargs[0].name_range, fmt::format("{}() takes no keyword arguments", fn.text));
        if (e.args.size() < 3) fail("type.missing-argument", e.range, fmt::format("{}() needs at least two integers", fn.text));
        ExprPtr acc;
        for (size_t i = 1; i < e.args.size(); ++i) {
          ExprPtr x = intOf(*e.args[i], fmt::format("{}()", fn.text));
          acc = acc ? op(fn.text == "min" ? ExprKind::Min : ExprKind::Max, {acc, x}, e.range) : x;
        }
        return intv(acc, e.range);
      }
      if (fn.text == "range")
        fail("type.unknown-op", fn.range, fmt::format("use {}.range(lo, hi[, step]) instead of Python's range", builder_));
      fail("type.unknown-op", fn.range, fmt::format("unknown function '{}'", fn.text));
    }
    if (fn.kind == AK::Attribute) {
      Value obj = eval(*fn.args[0]);
      const std::string& m = fn.text;
      if (obj.k == VK::Builder)
        fail("type.unknown-op", fn.range, fmt::format("unknown op '{}.{}' (see docs/ir-reference.md)", builder_, m));
      if (obj.k == VK::ModCake)
        fail("type.unknown-op", fn.range,
             m == "schedule" ? "@cake.schedule(...) is a decorator" : fmt::format("unknown function 'cake.{}'", m));
      if (obj.k == VK::View && (m == "view"))
        fail("type.unknown-op", fn.range, "'view' is a method of a pool (lm.smem), not of a view");
      if ((obj.k == VK::View || obj.k == VK::Buffer) && isViewOp(m))
        fail("type.mismatch", fn.args[0]->range,
             fmt::format("'{}' is called on the view itself, with stage=/iter= naming the slot", m));
      if (obj.k == VK::Pool)
        fail("type.unknown-op", fn.range, fmt::format("a pool has no method '{}' (it has .view)", m));
      if (obj.k == VK::View)
        fail("type.unknown-op", fn.range,
             fmt::format("a view has no method '{}' (it has .tma_load, .tma_store, .cp_async)", m));
      fail("type.unknown-op", fn.range, fmt::format("{} has no method '{}'", kindName(obj), m));
    }
    eval(fn);
    fail("type.mismatch", fn.range, "this expression cannot be called");
  }

  // lm.cluster_rank(), %cluster_ctarank: clusters tile the grid in boxes of
  // cluster=(x, y, z) blocks, so the rank is (bx % x) + (by % y) * x +
  // (bz % z) * x * y. Written with lm.block_idx so that every stage (the
  // model checker's per-CTA block indices, lowering) evaluates it alike.
  ExprPtr clusterRank(SourceRange r) {
    Schedule& s = *sch_;
    cluster_rank_used_ = true;  // the rank is lm.block_idx arithmetic below: not derivable later
    ExprPtr rank;
    int64_t scale = 1;
    for (int d = 0; d < 3; ++d) {
      if (s.cluster[d] == 1) continue;
      ExprPtr term = op(ExprKind::Mod, {leaf(ExprKind::BlockIdx, 0, d, r), cnst(s.cluster[d], r)}, r);
      if (scale != 1) term = op(ExprKind::Mul, {term, cnst(scale, r)}, r);
      rank = rank ? op(ExprKind::Add, {rank, term}, r) : term;
      scale *= s.cluster[d];
    }
    return rank ? rank : cnst(0, r);
  }

  Value intFn(const AE& e, const std::string& n) {
    if (n == "instance") {
      bind(e, "lm.instance", {}, 0);
      return intv(leaf(ExprKind::Instance, 0, 0, e.range), e.range);
    }
    if (n == "cluster_rank") {
      bind(e, "lm.cluster_rank", {}, 0);
      return intv(clusterRank(e.range), e.range);
    }
    if (n == "block_idx" || n == "grid_dim") {
      Args a = bind(e, "lm." + n, {{"dim", true}}, 1);
      int d = constIntRange(*a.get("dim"), "the dimension", 0, 2);
      return intv(leaf(n == "block_idx" ? ExprKind::BlockIdx : ExprKind::GridDim, 0, d, e.range), e.range);
    }
    // cdiv
    Args a = bind(e, "lm.cdiv", {{"a", true}, {"b", true}}, 2);
    ExprPtr x = intOf(*a.get("a"), "lm.cdiv");
    ExprPtr y = intOf(*a.get("b"), "lm.cdiv");
    return intv(op(ExprKind::CDiv, {x, y}, e.range), e.range);
  }

  // ---------------------------------------------------- typed arguments
  DType dtypeArg(const AE& e) {
    Value v = eval(e);
    if (v.k == VK::DType) return v.dt;
    if (v.k == VK::Error) throw Abandon{};
    fail("type.mismatch", e.range,
         fmt::format("expected a dtype ({0}.bf16, {0}.f16, {0}.f32, {0}.e4m3, {0}.e5m2, {0}.i8, {0}.i32), found {1}",
                     builder_, kindName(v)));
  }

  std::vector<ExprPtr> shapeArg(const AE& e) {
    Value v = eval(e);
    std::vector<ExprPtr> out;
    if (v.k == VK::Int) {
      out.push_back(v.i);
      return out;
    }
    if (v.k != VK::Tuple && v.k != VK::List) {
      if (v.k == VK::Error) throw Abandon{};
      fail("type.mismatch", e.range, fmt::format("expected a shape such as (128, 64), found {}", kindName(v)));
    }
    if (v.elems.empty()) fail("type.mismatch", e.range, "a shape needs at least one dimension");
    for (const Value& x : v.elems) {
      ExprPtr d = needInt(x, "a shape dimension");
      if (auto c = constOf(d); c && *c <= 0)
        fail("type.mismatch", x.range, fmt::format("a shape dimension must be positive, found {}", *c));
      out.push_back(d);
    }
    return out;
  }

  int resourceArg(const AE& e, VK want, std::string_view what) {
    Value v = eval(e);
    if (v.k == want) return v.idx;
    if (v.k == VK::Error) throw Abandon{};
    fail("type.mismatch", e.range, fmt::format("expected {} for {}, found {}", kindName(mkv(want, {})), what, kindName(v)));
  }

  // `union=` (docs/ir-extensions.md "Union members"): the view it names,
  // declared before this one (so no chain of unions is a cycle), of the
  // same pool and over some of the same bytes - a union of views that share
  // no byte says nothing, and is a typo.
  int unionPartner(const AE& e, const View& v) {
    if (e.kind == AK::Name && e.text == v.name)
      fail("type.mismatch", e.range,
           fmt::format("union= names '{}' itself: a view joins the union of a view declared before it", v.name));
    const int other = resourceArg(e, VK::View, "union=");
    const View& o = sch_->views[other];
    if (o.pool != v.pool)
      fail("type.mismatch", e.range,
           fmt::format("'{}' is a view of pool '{}', not of '{}': union members are views of one pool's bytes", o.name,
                       sch_->pools[o.pool].name, sch_->pools[v.pool].name));
    const auto [lo, hi] = unionBytes(v, e);
    const auto [olo, ohi] = unionBytes(o, e);
    if (hi <= olo || ohi <= lo)
      fail("type.mismatch", e.range,
           fmt::format("'{}' (bytes [{}, {})) and '{}' (bytes [{}, {})) share no byte: union members are views of the "
                       "same bytes",
                       v.name, lo, hi, o.name, olo, ohi));
    return other;
  }

  // The bytes [lo, hi) of a union member's pool its slots cover; they must
  // be constants for the union's overlap to be checked.
  std::pair<int64_t, int64_t> unionBytes(const View& v, const AE& at) {
    const auto offset = constOf(v.offset);
    __int128 bytes = static_cast<__int128>(v.stages) * dtypeBytes(v.dtype);
    for (const ExprPtr& d : v.shape) {
      const auto c = constOf(d);
      if (!offset || !c)
        fail("type.non-constant", at.range,
             fmt::format("union= needs the byte ranges of its views: '{}''s offset and shape must be constants", v.name));
      bytes = std::min<__int128>(bytes * *c, INT64_MAX);
    }
    return {*offset, static_cast<int64_t>(std::min<__int128>(*offset + bytes, INT64_MAX))};
  }

  std::vector<int> roleList(const AE& e, std::string_view what) {
    Value v = eval(e);
    std::vector<int> out;
    std::vector<Value> items;
    if (v.k == VK::Role) items.push_back(v);
    else if (v.k == VK::List || v.k == VK::Tuple) items = v.elems;
    else if (v.k == VK::Error) throw Abandon{};
    else fail("type.mismatch", e.range, fmt::format("expected a list of roles for {}, found {}", what, kindName(v)));
    for (const Value& x : items) {
      if (x.k != VK::Role)
        fail("type.mismatch", x.range, fmt::format("expected a role in {}, found {}", what, kindName(x)));
      if (std::find(out.begin(), out.end(), x.idx) != out.end())
        fail("type.duplicate", x.range, fmt::format("role '{}' is listed twice in {}", sch_->roles[x.idx].name, what));
      out.push_back(x.idx);
    }
    return out;
  }

  // A storage operand. `allow` lists the kinds the op accepts.
  BufferRef bufferArg(const AE& e, std::initializer_list<BufferRef::Kind> allow, std::string_view what,
                      bool allowScalar = false) {
    Value v = eval(e);
    BufferRef b;
    b.range = e.range;
    switch (v.k) {
      case VK::View: {
        b.kind = BufferRef::Kind::View;
        b.index = v.idx;
        const View& vw = sch_->views[v.idx];
        if (vw.stages > 1)
          fail("type.mismatch", e.range,
               fmt::format("view '{}' has {} slots: name one, e.g. {}[k]", vw.name, vw.stages, vw.name));
        break;
      }
      case VK::Buffer: b = v.buf; b.range = e.range; break;
      case VK::Tmem: b.kind = BufferRef::Kind::Tmem; b.index = v.idx; break;
      case VK::Regs: b.kind = BufferRef::Kind::Regs; b.index = v.idx; break;
      case VK::Param:
        if (allowScalar && sch_->params[v.idx].type == ParamType::F32) {
          // an LM.f32 parameter (IR.md: a scalar) as the operand: a softmax scale, say
          b.kind = BufferRef::Kind::Scalar;
          b.index = v.idx;
          return b;
        }
        b.kind = BufferRef::Kind::Param;
        b.index = v.idx;
        if (!isTensorParam(sch_->params[v.idx].type))
          fail("type.mismatch", e.range,
               fmt::format("'{}' is a scalar parameter, not a tensor", sch_->params[v.idx].name));
        break;
      case VK::Int:
        if (!allowScalar) break;
        if (!constOf(v.i)) fail("type.non-constant", e.range, fmt::format("the scalar operand of {} must be a constant", what));
        b.kind = BufferRef::Kind::Scalar;
        b.scalar = v.i;
        b.scalar_f = static_cast<double>(*constOf(v.i));
        return b;
      case VK::Float:
        if (!allowScalar) break;
        b.kind = BufferRef::Kind::Scalar;
        b.scalar_f = v.f;
        return b;
      case VK::Error: throw Abandon{};
      default: break;
    }
    if (b.kind == BufferRef::Kind::None || std::find(allow.begin(), allow.end(), b.kind) == allow.end()) {
      std::string kinds;
      for (BufferRef::Kind k : allow) {
        if (!kinds.empty()) kinds += " or ";
        kinds += k == BufferRef::Kind::View ? "a view slot" : k == BufferRef::Kind::Tmem ? "tensor memory"
               : k == BufferRef::Kind::Regs ? "a register fragment" : "a global tensor";
      }
      fail("type.mismatch", e.range, fmt::format("{} must be {}, found {}", what, kinds, kindName(v)));
    }
    return b;
  }

  int tensorParamArg(const AE& e, std::string_view what, bool tmaOnly) {
    Value v = eval(e);
    if (v.k == VK::Error) throw Abandon{};
    if (v.k != VK::Param || !isTensorParam(sch_->params[v.idx].type))
      fail("type.mismatch", e.range, fmt::format("{} must be a global tensor parameter, found {}", what, kindName(v)));
    if (tmaOnly && tmaRank(sch_->params[v.idx].type) == 0)
      fail("type.mismatch", e.range,
           fmt::format("{} needs a TMA tensor (LM.tma1d ... LM.tma5d); '{}' is LM.gmem", what, sch_->params[v.idx].name));
    return v.idx;
  }

  std::vector<ExprPtr> coordsArg(const AE& e, int rank) {
    Value v = eval(e);
    std::vector<Value> items;
    if (v.k == VK::Tuple || v.k == VK::List) items = v.elems;
    else if (v.k == VK::Int) items.push_back(v);
    else if (v.k == VK::Error) throw Abandon{};
    else fail("type.mismatch", e.range, fmt::format("coords= must be a tuple of integers, found {}", kindName(v)));
    std::vector<ExprPtr> out;
    for (const Value& x : items) out.push_back(needInt(x, "a coordinate"));
    if (rank > 0 && static_cast<int>(out.size()) != rank)
      fail("type.mismatch", e.range,
           fmt::format("coords= has {} coordinate{} but the tensor has rank {}", out.size(), out.size() == 1 ? "" : "s",
                       rank));
    return out;
  }

  // stage= / iter= / phase= of an op on a resource with `slots` slots.
  SlotSel selector(const Args& a, const AE& call, int slots, bool phaseAllowed, std::string_view what) {
    SlotSel sel;
    const AE* it = a.get("iter");
    const AE* st = a.get("stage");
    if (it && st)
      fail("type.duplicate", call.range, "give either iter= or stage=, not both");
    if (it) {
      sel.mode = SlotSel::Mode::Iter;
      sel.index = intOf(*it, "iter=");
    } else if (st) {
      sel.mode = SlotSel::Mode::Stage;
      sel.index = intOf(*st, "stage=");
    } else if (slots > 1) {
      fail("type.missing-argument", call.range,
           fmt::format("{} has {} slots: name one with iter= or stage=", what, slots));
    }
    if (const AE* ph = phaseAllowed ? a.get("phase") : nullptr) {
      Value pv = eval(*ph);
      if (pv.k != VK::None) {
        if (sel.mode == SlotSel::Mode::Iter)
          fail("type.mismatch", ph->range, "phase= goes with stage=; with iter= the phase is iter // count");
        if (sel.mode == SlotSel::Mode::None) {  // a single slot: stage 0
          sel.mode = SlotSel::Mode::Stage;
          sel.index = cnst(0, call.range);
        }
        sel.phase = needInt(pv, "phase=");
      }
    }
    return sel;
  }

  // ---------------------------------------------------------- declarations
  Value declaration(const AE& e, const std::string& n, const ast::Stmt& assign) {
    const std::string& name = assign.target;
    Schedule& s = *sch_;
    const std::string fname = (n == "view" ? "view" : builder_ + "." + n);
    if (n == "smem") {
      Args a = bind(e, fname, {{"bytes", true}}, 1);
      Pool p;
      p.name = name;
      p.bytes = intOf(*a.get("bytes"), "the pool size");
      if (auto c = constOf(p.bytes); c && *c <= 0)
        fail("type.mismatch", a.get("bytes")->range, fmt::format("a pool size must be positive, found {}", *c));
      p.range = assign.range;
      s.pools.push_back(std::move(p));
      return mkv(VK::Pool, assign.range, static_cast<int>(s.pools.size()) - 1);
    }
    if (n == "view") {
      int pool = resourceArg(*e.args[0]->args[0], VK::Pool, "the pool");
      Args a = bind(e, "pool.view",
                    {{"offset", true},
                     {"shape", true},
                     {"dtype", true},
                     {"stages", false},
                     {"swizzle", false},
                     {"union", false},
                     {"pipeline", false}},
                    5,
                    {{"stage", "stages"}});
      View v;
      v.name = name;
      v.pool = pool;
      v.offset = intOf(*a.get("offset"), "offset=");
      if (auto c = constOf(v.offset); c && *c < 0)
        fail("type.mismatch", a.get("offset")->range, fmt::format("offset= must not be negative, found {}", *c));
      v.shape = shapeArg(*a.get("shape"));
      v.dtype = dtypeArg(*a.get("dtype"));
      if (const AE* p = a.get("pipeline")) {  // as a barrier's: the default depth
        Value pv = eval(*p);
        if (pv.k != VK::None) v.stages = sch_->pipelines[resourceArg(*p, VK::Pipeline, "pipeline=")].stages;
      }
      if (const AE* st = a.get("stages")) v.stages = stageCount(*st);
      if (const AE* sw = a.get("swizzle")) {
        Value x = eval(*sw);
        if (x.k == VK::None) v.swizzle = Swizzle::None;
        else if (x.k == VK::Str && x.s == "32B") v.swizzle = Swizzle::B32;
        else if (x.k == VK::Str && x.s == "64B") v.swizzle = Swizzle::B64;
        else if (x.k == VK::Str && x.s == "128B") v.swizzle = Swizzle::B128;
        else fail("type.mismatch", sw->range,
                  fmt::format("swizzle= must be None, \"32B\", \"64B\" or \"128B\", found {}",
                              x.k == VK::Str ? "\"" + x.s + "\"" : kindName(x)));
      }
      if (const AE* un = a.get("union")) v.union_with = unionPartner(*un, v);
      v.range = assign.range;
      s.views.push_back(std::move(v));
      return mkv(VK::View, assign.range, static_cast<int>(s.views.size()) - 1);
    }
    if (n == "tmem") {
      Args a = bind(e, fname, {{"cols", true}, {"width", true}, {"shape", true}, {"dtype", true}}, 4);
      Tmem t;
      t.name = name;
      t.cols = intOf(*a.get("cols"), "cols=");
      t.width = intOf(*a.get("width"), "width=");
      t.shape = shapeArg(*a.get("shape"));
      t.dtype = dtypeArg(*a.get("dtype"));
      t.range = assign.range;
      s.tmems.push_back(std::move(t));
      return mkv(VK::Tmem, assign.range, static_cast<int>(s.tmems.size()) - 1);
    }
    if (n == "regs") {
      Args a = bind(e, fname, {{"shape", true}, {"dtype", true}}, 2);
      Regs r;
      r.name = name;
      r.shape = shapeArg(*a.get("shape"));
      r.dtype = dtypeArg(*a.get("dtype"));
      r.range = assign.range;
      s.regs.push_back(std::move(r));
      return mkv(VK::Regs, assign.range, static_cast<int>(s.regs.size()) - 1);
    }
    if (n == "role") {
      Args a = bind(e, fname, {{"warps", true}, {"group", false}, {"regs", false}}, 3);
      Role r;
      r.name = name;
      const AE& w = *a.get("warps");
      Value wv = eval(w);
      std::vector<Value> items;
      if (wv.k == VK::List || wv.k == VK::Tuple) items = wv.elems;
      else if (wv.k == VK::Error) throw Abandon{};
      else fail("type.mismatch", w.range, fmt::format("warps= must be a list of warp indices, found {}", kindName(wv)));
      if (items.empty()) fail("type.mismatch", w.range, "a role needs at least one warp");
      for (const Value& x : items) {
        ExprPtr xi = needInt(x, "a warp index");
        auto c = constOf(xi);
        if (!c) fail("type.non-constant", x.range, "warp indices must be constants");
        if (*c < 0 || *c > 1023) fail("type.mismatch", x.range, fmt::format("warp index {} is out of range [0, 1023]", *c));
        if (std::find(r.warps.begin(), r.warps.end(), *c) != r.warps.end())
          fail("type.duplicate", x.range, fmt::format("warp {} is listed twice", *c));
        r.warps.push_back(static_cast<int>(*c));
      }
      if (const AE* g = a.get("group")) {
        Value gv = eval(*g);
        if (gv.k != VK::None) {
          r.group = constIntRange(*g, "group=", 1, 1024, " (warps of a block)");
          if (r.warps.size() % static_cast<size_t>(r.group) != 0)
            fail("type.mismatch", g->range,
                 fmt::format("group={} does not divide the role's {} warps", r.group, r.warps.size()));
        }
      }
      if (const AE* rg = a.get("regs")) {
        Value rv = eval(*rg);
        if (rv.k != VK::None) r.regs = constIntRange(*rg, "regs=", 1, INT32_MAX);
      }
      r.range = assign.range;
      s.roles.push_back(std::move(r));
      return mkv(VK::Role, assign.range, static_cast<int>(s.roles.size()) - 1);
    }
    if (n == "pipeline") {
      Args a = bind(e, fname, {{"stages", true}}, 1, {{"stage", "stages"}});
      Pipeline p;
      p.name = name;
      p.stages = stageCount(*a.get("stages"));
      p.range = assign.range;
      s.pipelines.push_back(std::move(p));
      return mkv(VK::Pipeline, assign.range, static_cast<int>(s.pipelines.size()) - 1);
    }
    if (n == "barrier") {
      Args a = bind(e, fname,
                    {{"count", false}, {"prod", true}, {"cons", true}, {"init_count", false}, {"pipeline", false}}, 5);
      Barrier b;
      b.name = name;
      if (const AE* p = a.get("pipeline")) {
        Value pv = eval(*p);
        if (pv.k != VK::None) b.pipeline = resourceArg(*p, VK::Pipeline, "pipeline=");
      }
      b.count = b.pipeline >= 0 ? s.pipelines[b.pipeline].stages : 1;
      if (const AE* c = a.get("count")) b.count = barrierSlots(*c);
      b.prod = roleList(*a.get("prod"), "prod=");
      b.cons = roleList(*a.get("cons"), "cons=");
      if (const AE* ic = a.get("init_count")) b.init_count = arrivalCount(*ic, "init_count=");
      b.range = assign.range;
      s.barriers.push_back(std::move(b));
      return mkv(VK::Barrier, assign.range, static_cast<int>(s.barriers.size()) - 1);
    }
    // named_barrier
    Args a = bind(e, fname, {{"roles", true}}, 1);
    NamedBarrier nb;
    nb.name = name;
    nb.roles = roleList(*a.get("roles"), "roles=");
    if (nb.roles.empty()) fail("type.mismatch", a.get("roles")->range, "a named barrier needs at least one role");
    nb.range = assign.range;
    s.named_barriers.push_back(std::move(nb));
    return mkv(VK::NamedBarrier, assign.range, static_cast<int>(s.named_barriers.size()) - 1);
  }

  // ------------------------------------------------------------ clusters
  // multicast=: a mask of cluster CTA ranks, bit r for rank r; a constant
  // one must name at least one CTA and none beyond the cluster (a symbolic
  // one is checked per CTA by the model checker and lowering).
  ExprPtr clusterMask(const AE& e) {
    Schedule& s = *sch_;
    ExprPtr m = intOf(e, "multicast=");
    if (auto c = constOf(m); c && (*c < 1 || *c >= (int64_t{1} << s.clusterSize())))
      fail("type.mismatch", e.range,
           fmt::format("multicast= is a mask of the cluster's CTA ranks (bit r: rank r); a cluster of {} CTA{} "
                       "takes masks in [1, {}], found {}",
                       s.clusterSize(), s.clusterSize() == 1 ? "" : "s", (int64_t{1} << s.clusterSize()) - 1, *c));
    return m;
  }
  // cta=: the cluster rank whose barrier an arrive lands on.
  ExprPtr clusterCta(const AE& e) {
    Schedule& s = *sch_;
    ExprPtr c = intOf(e, "cta=");
    if (auto k = constOf(c); k && (*k < 0 || *k >= s.clusterSize()))
      fail("type.mismatch", e.range,
           fmt::format("cta= is a rank in the cluster, in [0, {}] for cluster=({}, {}, {}), found {}",
                       s.clusterSize() - 1, s.cluster[0], s.cluster[1], s.cluster[2], *k));
    return c;
  }

  // ------------------------------------------------------------------ ops
  // An op statement; `kind` is what classify() found for the callee's name.
  // The argument names, which are required and how many go by position come
  // from the op table (ir/ops.def).
  Op opCall(const AE& e, OpKind kind) {
    const OpInfo& info = opInfo(kind);
    const std::string n(info.name);
    Op o;
    o.kind = kind;
    o.range = e.range;
    Schedule& s = *sch_;
    const AE& fn = *e.args[0];
    auto barrierSlots = [&](int b) { return s.barriers[b].count; };
    if (info.receiver == OpReceiver::View) {
      const bool slotted = fn.args[0]->kind == AK::Subscript;
      BufferRef vref;
      if (slotted) {
        vref = bufferArg(*fn.args[0], {BufferRef::Kind::View}, "the destination of tma_load");
        if (!vref.slot || !vref.slices.empty())
          fail("type.mismatch", fn.args[0]->range,
               "view[e].tma_load(...) names one whole slot of the view (no slice)");
      } else {
        vref.kind = BufferRef::Kind::View;
        vref.index = resourceArg(*fn.args[0], VK::View, n);
      }
      const int view = vref.index;
      const View& vw = s.views[view];
      Args a = bind(e, vw.name + "." + n, info);
      vref.range = fn.args[0]->range;
      BufferRef tref;
      tref.kind = BufferRef::Kind::Param;
      if (kind == OpKind::TmaLoad) {
        tref.index = tensorParamArg(*a.get("tensor"), "the source of tma_load", true);
        tref.range = a.get("tensor")->range;
        o.coords = coordsArg(*a.get("coords"), tmaRank(s.params[tref.index].type));
        o.barrier = resourceArg(*a.get("barrier"), VK::Barrier, "barrier=");
        o.sel = slotted ? selector(a, e, barrierSlots(o.barrier), true,
                                   fmt::format("barrier '{}'", s.barriers[o.barrier].name))
                        : selector(a, e, std::max(vw.stages, barrierSlots(o.barrier)), true,
                                   fmt::format("view '{}' / barrier '{}'", vw.name, s.barriers[o.barrier].name));
        o.dst = vref;
        o.src = tref;
        if (const AE* mc = a.get("multicast")) o.multicast = clusterMask(*mc);
      } else {
        bool store = kind == OpKind::TmaStore;
        tref.index = tensorParamArg(*a.get("tensor"), store ? "the destination of tma_store" : "the source of cp_async", store);
        tref.range = a.get("tensor")->range;
        o.coords = coordsArg(*a.get("coords"), tmaRank(s.params[tref.index].type));
        o.sel = selector(a, e, vw.stages, false, fmt::format("view '{}'", vw.name));
        if (store) { o.src = vref; o.dst = tref; }
        else { o.dst = vref; o.src = tref; }
      }
      return o;
    }
    const std::string fname = builder_ + "." + n;
    Args a = bind(e, fname, info);
    using BK = BufferRef::Kind;
    auto fnArg = [&]() {
      const AE* f = a.get("op");
      Value v = eval(*f);
      if (v.k != VK::Str) {
        if (v.k == VK::Error) throw Abandon{};
        fail("type.mismatch", f->range, fmt::format("op= must be a string, found {}", kindName(v)));
      }
      if (std::optional<ElemFn> x = findElemFn(v.s, kind)) return *x;
      std::string list;
      for (const ElemFnInfo& x : allElemFns())
        if (x.ops & elemFnOpsOf(kind)) list += (list.empty() ? "\"" : ", \"") + std::string(x.name) + "\"";
      fail("type.unknown-op", f->range, fmt::format("unknown {} op \"{}\" (expected one of {})", fname, v.s, list));
    };
    switch (kind) {
      case OpKind::TmaLoad:
      case OpKind::TmaStore:
      case OpKind::CpAsync:
        break;  // called on a view, above
      case OpKind::TmaStoreCommit:
      case OpKind::CpAsyncCommit:
      case OpKind::FenceProxy:
      case OpKind::TmemLoadWait:
      case OpKind::TmemStoreWait:
      case OpKind::GridDepWait:
      case OpKind::LaunchDependents:
        return o;
      case OpKind::TmemLoad:
        o.dst = bufferArg(*a.get("dst"), {BK::Regs}, "the destination of tmem_load");
        o.src = bufferArg(*a.get("src"), {BK::Tmem}, "the source of tmem_load");
        return o;
      case OpKind::TmemStore:
        o.dst = bufferArg(*a.get("dst"), {BK::Tmem}, "the destination of tmem_store");
        o.src = bufferArg(*a.get("src"), {BK::Regs}, "the source of tmem_store");
        return o;
      case OpKind::TmaStoreWait:
      case OpKind::CpAsyncWait:
      case OpKind::MmaWait:
        if (const AE* p = a.get("pending")) o.pending = cnst(constIntRange(*p, "pending=", 0, INT32_MAX), p->range);
        else o.pending = cnst(0, e.range);
        return o;
      case OpKind::ExpectTx:
        o.barrier = resourceArg(*a.get("barrier"), VK::Barrier, "the barrier of expect_tx");
        o.bytes = intOf(*a.get("bytes"), "bytes");
        o.sel = selector(a, e, barrierSlots(o.barrier), true, fmt::format("barrier '{}'", s.barriers[o.barrier].name));
        return o;
      case OpKind::Arrive:
        o.barrier = resourceArg(*a.get("barrier"), VK::Barrier, "the barrier of arrive");
        o.sel = selector(a, e, barrierSlots(o.barrier), true, fmt::format("barrier '{}'", s.barriers[o.barrier].name));
        o.count = a.get("count") ? cnst(arrivalCount(*a.get("count"), "count="), a.get("count")->range)
                                 : cnst(1, e.range);
        if (const AE* c = a.get("cta")) o.cta = clusterCta(*c);
        return o;
      case OpKind::ClusterSync: return o;
      case OpKind::Wait:
        o.barrier = resourceArg(*a.get("barrier"), VK::Barrier, "the barrier of wait");
        o.sel = selector(a, e, barrierSlots(o.barrier), true, fmt::format("barrier '{}'", s.barriers[o.barrier].name));
        return o;
      case OpKind::Sync:
      case OpKind::BarArrive:
        o.named_barrier = resourceArg(*a.get("barrier"), VK::NamedBarrier, "the barrier of " + fname);
        return o;
      case OpKind::Copy: {
        o.dst = bufferArg(*a.get("dst"), {BK::View, BK::Tmem, BK::Regs, BK::Param}, "the destination of copy");
        o.src = bufferArg(*a.get("src"), {BK::View, BK::Tmem, BK::Regs, BK::Param}, "the source of copy");
        bool dstG = o.dst.kind == BK::Param, srcG = o.src.kind == BK::Param;
        if (dstG && srcG) fail("type.mismatch", e.range, "copy between two global tensors is not an op");
        if (const AE* c = a.get("coords")) {
          if (!dstG && !srcG) fail("type.mismatch", c->range, "coords= places a tile in a global tensor; neither side is one");
          int p = dstG ? o.dst.index : o.src.index;
          o.coords = coordsArg(*c, tmaRank(s.params[p].type));
        }
        // Without coords= (the core form of IR.md, `lm.copy(dst, src)` with a
        // global side) the copy is valid: the checks do not depend on where
        // the tile lands in the tensor, and lowering refuses to place it
        // (lowering/validate.cpp: "a tensor copy without coords=").
        return o;
      }
      case OpKind::Mma:
        o.dst = bufferArg(*a.get("acc"), {BK::Regs, BK::Tmem}, "the accumulator of mma");
        o.src = bufferArg(*a.get("a"), {BK::View, BK::Regs, BK::Tmem}, "operand a of mma");
        o.src2 = bufferArg(*a.get("b"), {BK::View, BK::Regs}, "operand b of mma");
        if (const AE* i = a.get("init")) o.init = intOf(*i, "init=");
        return o;
      case OpKind::MmaCommit:
        if (const AE* b = a.get("barrier")) {
          Value bv = eval(*b);
          if (bv.k != VK::None) o.barrier = resourceArg(*b, VK::Barrier, "barrier=");
        }
        if (o.barrier >= 0)
          o.sel = selector(a, e, barrierSlots(o.barrier), true, fmt::format("barrier '{}'", s.barriers[o.barrier].name));
        else if (a.has("stage") || a.has("iter") || a.has("phase"))
          fail("type.mismatch", e.range, "stage=/iter=/phase= of mma_commit name a slot of its barrier=; there is none");
        return o;
      case OpKind::Fill: {
        o.dst = bufferArg(*a.get("dst"), {BK::Regs, BK::View}, "the destination of fill");
        Value v = eval(*a.get("value"));
        if (v.k == VK::Float) {
          o.fill_value_f = v.f;
        } else {
          o.fill_value = needInt(v, "the fill value");
          auto c = constOf(o.fill_value);
          if (!c) fail("type.non-constant", a.get("value")->range, "the fill value must be a constant");
          o.fill_value_f = static_cast<double>(*c);
        }
        return o;
      }
      case OpKind::Unary:
        o.dst = bufferArg(*a.get("dst"), {BK::Regs, BK::View}, "the destination of unary");
        o.src = bufferArg(*a.get("src"), {BK::Regs, BK::View, BK::Tmem}, "the source of unary");
        o.fn = fnArg();
        return o;
      case OpKind::Binary:
        o.dst = bufferArg(*a.get("dst"), {BK::Regs, BK::View}, "the destination of binary");
        o.src = bufferArg(*a.get("a"), {BK::Regs, BK::View, BK::Tmem}, "operand a of binary");
        o.src2 = bufferArg(*a.get("b"), {BK::Regs, BK::View, BK::Tmem}, "operand b of binary", true);
        o.fn = fnArg();
        return o;
      case OpKind::Reduce:
        o.dst = bufferArg(*a.get("dst"), {BK::Regs, BK::View}, "the destination of reduce");
        o.src = bufferArg(*a.get("src"), {BK::Regs, BK::View, BK::Tmem}, "the source of reduce");
        o.fn = fnArg();
        o.axis = constIntRange(*a.get("axis"), "axis=", 0, 7);
        if (const std::vector<ExprPtr>* sh = shapeOf(o.src, s); sh && o.axis >= static_cast<int>(sh->size()))
          fail("type.mismatch", a.get("axis")->range,
               fmt::format("axis={} is out of range for a source of rank {}", o.axis, sh->size()));
        // a running argmin/argmax: value= holds the best values so far (dst the
        // best indices), folded with this source's, whose indices start at base=
        for (const char* k : {"value", "base"})
          if (const AE* v = a.get(k); v && o.fn != ElemFn::ArgMin && o.fn != ElemFn::ArgMax)
            fail("type.mismatch", v->range, fmt::format("{}= goes with op=\"argmin\" or op=\"argmax\"", k));
        if (const AE* v = a.get("value")) {
          o.src2 = bufferArg(*v, {BK::Regs}, "the running values (value=) of reduce");
          if (o.dst.kind != BK::Regs)
            fail("type.mismatch", v->range, "value= keeps a running result: the destination must be registers too");
        }
        if (const AE* b = a.get("base")) o.base = intOf(*b, "base=");
        return o;
    }
    throw std::logic_error("opCall: an op kind without a case");
  }

  // ----------------------------------------------------------- statements
  struct ScopeGuard {
    Resolver& r;
    explicit ScopeGuard(Resolver& r_) : r(r_) { r.scopes_.emplace_back(); }
    ~ScopeGuard() { r.scopes_.pop_back(); }
  };

  void assignStmt(const ast::Stmt& s) {
    Value v;
    if (s.value->kind == AK::Call) v = call(*s.value, false, &s);
    else v = eval(*s.value);
    if (v.k == VK::Int) v.range = s.value->range;
    try {
      define(s.target, s.target_range, v);
    } catch (const Abandon&) {
      throw;
    }
  }

  // Binds the name as an error value so that later uses stay quiet.
  void poison(const ast::Stmt& s) {
    if (s.kind == ast::Stmt::Kind::Assign && !lookup(s.target)) scopes_.back()[s.target] = Sym{Value{}, s.target_range};
  }

  void topStmt(const ast::Stmt& s) {
    switch (s.kind) {
      case ast::Stmt::Kind::Pass: return;
      case ast::Stmt::Kind::Assign: assignStmt(s); return;
      case ast::Stmt::Kind::Expr: {
        if (s.value->kind == AK::Str) return;  // docstring
        if (s.value->kind == AK::Call) {
          std::string n;
          CallClass cc = classify(*s.value, &n);
          if (cc == CallClass::Assume) {
            Args a = bind(*s.value, builder_ + ".assume", {{"cond", true}}, 1);
            Assume as;
            as.cond = intOf(*a.get("cond"), "lm.assume");
            as.range = s.value->range;
            sch_->assumes.push_back(std::move(as));
            return;
          }
          if (cc == CallClass::GridDependency) {
            Args a = bind(*s.value, builder_ + ".grid_dependency", {{"tensor", true}}, 1);
            GridDependency d;
            d.param = tensorParamArg(*a.get("tensor"), "the tensor of lm.grid_dependency", false);
            d.range = s.value->range;
            sch_->grid_deps.push_back(std::move(d));
            return;
          }
          if (cc == CallClass::Op)
            fail("type.misplaced", s.value->range,
                 fmt::format("op '{}' outside a role block; put it inside 'with ROLE:'", n));
          call(*s.value, true, nullptr);
        } else {
          eval(*s.value);
        }
        fail("type.mismatch", s.range, "this statement has no effect");
      }
      case ast::Stmt::Kind::With: {
        int role = resourceArg(*s.value, VK::Role, "'with'");
        RoleBody rb;
        rb.role = role;
        rb.range = s.range;
        inRole_ = true;
        {
          ScopeGuard g(*this);
          rb.body = block(s.body);
        }
        inRole_ = false;
        sch_->bodies.push_back(std::move(rb));
        return;
      }
      case ast::Stmt::Kind::For:
      case ast::Stmt::Kind::If:
        fail("type.misplaced", s.range, "control flow outside a role block; put it inside 'with ROLE:'");
      case ast::Stmt::Kind::Def:
        fail("type.misplaced", s.range, "functions cannot be nested");
      case ast::Stmt::Kind::Import:
      case ast::Stmt::Kind::FromImport:
        fail("type.misplaced", s.range, "imports belong at the top level of the file");
    }
  }

  Block block(const ast::Block& b) {
    Block out;
    for (const ast::StmtPtr& sp : b) {
      try {
        roleStmt(*sp, out);
      } catch (const Abandon&) {
        poison(*sp);
      }
    }
    return out;
  }

  void roleStmt(const ast::Stmt& s, Block& out) {
    switch (s.kind) {
      case ast::Stmt::Kind::Pass: return;
      case ast::Stmt::Kind::Assign: assignStmt(s); return;
      case ast::Stmt::Kind::Expr: {
        if (s.value->kind == AK::Str) return;
        if (s.value->kind == AK::Call) {
          std::string n;
          OpKind kind{};
          CallClass cc = classify(*s.value, &n, &kind);
          if (cc == CallClass::Op) {
            Stmt st;
            st.kind = Stmt::Kind::Op;
            st.range = s.range;
            st.op = opCall(*s.value, kind);
            out.push_back(std::move(st));
            return;
          }
          if (cc == CallClass::Assume) fail("type.misplaced", s.value->range, "lm.assume(...) belongs at the top level of the schedule");
          if (cc == CallClass::GridDependency)
            fail("type.misplaced", s.value->range, "lm.grid_dependency(...) belongs at the top level of the schedule");
          if (cc == CallClass::Decl)
            fail("type.misplaced", s.value->range, "declarations belong at the top level of the schedule, not inside a role block");
          call(*s.value, true, nullptr);
        } else {
          eval(*s.value);
        }
        fail("type.mismatch", s.range, "this statement has no effect");
      }
      case ast::Stmt::Kind::With:
        fail("type.misplaced", s.range, "'with' blocks sit at the top level of the schedule and do not nest");
      case ast::Stmt::Kind::For: {
        const AE& it = *s.value;
        std::string n;
        if (it.kind != AK::Call || classify(it, &n) != CallClass::Range) {
          if (it.kind == AK::Call && it.args[0]->kind == AK::Name && it.args[0]->text == "range")
            fail("type.unknown-op", it.args[0]->range,
                 fmt::format("use {}.range(lo, hi[, step]) instead of Python's range", builder_));
          fail("type.mismatch", it.range, fmt::format("a loop iterates over {}.range(lo, hi[, step])", builder_));
        }
        // lm.range(hi) counts from 0, as Python's range(stop) does.
        bool stopOnly = it.args.size() == 2 && it.kwargs.empty();
        Args a = stopOnly ? bind(it, builder_ + ".range", {{"hi", true}}, 1)
                          : bind(it, builder_ + ".range", {{"lo", true}, {"hi", true}, {"step", false}}, 3);
        Stmt st;
        st.kind = Stmt::Kind::For;
        st.range = s.range;
        st.lo = stopOnly ? cnst(0, it.range) : intOf(*a.get("lo"), "the loop start");
        st.hi = intOf(*a.get("hi"), "the loop end");
        ExprPtr symbolic_step;  // a positive step that is no constant (normalised below)
        if (const AE* stp = a.get("step")) {
          ExprPtr x = intOf(*stp, "the loop step");
          if (!constOf(x) && positiveForAllValues(*x)) {
            symbolic_step = x;
          } else {
            int64_t v = constInt(*stp, "the loop step");
            if (v == 0) fail("type.mismatch", stp->range, "the loop step must not be zero");
            st.step = cnst(v, stp->range);
          }
        } else {
          st.step = cnst(1, s.range);
        }
        LoopVar lv;
        lv.name = symbolic_step ? s.target + "#trip" : s.target;
        lv.range = s.target_range;
        sch_->loop_vars.push_back(lv);
        st.loop_var = static_cast<int>(sch_->loop_vars.size()) - 1;
        ScopeGuard g(*this);
        ExprPtr var = leaf(ExprKind::LoopVar, 0, st.loop_var, s.target_range);
        if (symbolic_step) var = countLoopFromZero(st, symbolic_step, var);
        define(s.target, s.target_range, intv(var, s.target_range));
        st.body = block(s.body);
        out.push_back(std::move(st));
        return;
      }
      case ast::Stmt::Kind::If: {
        // if/elif/else -> nested Stmt::If in orelse
        std::vector<Stmt> chain;
        for (const ast::Branch& br : s.branches) {
          if (!br.cond) break;
          Stmt st;
          st.kind = Stmt::Kind::If;
          st.range = br.header;
          st.cond = intOf(*br.cond, "an 'if' condition");
          ScopeGuard g(*this);
          st.body = block(br.body);
          chain.push_back(std::move(st));
        }
        if (!s.branches.empty() && !s.branches.back().cond) {
          ScopeGuard g(*this);
          Block els = block(s.branches.back().body);
          chain.back().orelse = std::move(els);
        }
        for (size_t i = chain.size() - 1; i > 0; --i) chain[i - 1].orelse.push_back(std::move(chain[i]));
        out.push_back(std::move(chain[0]));
        return;
      }
      case ast::Stmt::Kind::Def: fail("type.misplaced", s.range, "functions cannot be nested");
      case ast::Stmt::Kind::Import:
      case ast::Stmt::Kind::FromImport:
        fail("type.misplaced", s.range, "imports belong at the top level of the file");
    }
  }

  // ------------------------------------------------------------ schedules
  void decorator(const ast::Stmt& def, Schedule& s) {
    if (def.decorators.empty())
      fail("type.misplaced", def.target_range,
           fmt::format("function '{}' is not a schedule: mark it with @cake.schedule(...)", def.target));
    if (def.decorators.size() > 1)
      fail("type.unknown-op", def.decorators[1].range, "a schedule takes exactly one decorator, @cake.schedule(...)");
    const AE& d = *def.decorators[0].expr;
    const AE* callee = d.kind == AK::Call ? d.args[0].get() : &d;
    bool ok = callee->kind == AK::Attribute && callee->text == "schedule" && callee->args[0]->kind == AK::Name &&
              callee->args[0]->text == "cake";
    if (!ok) fail("type.unknown-op", d.range, "unknown decorator; a schedule is marked @cake.schedule(...)");
    const AE* targetArg = nullptr;
    if (d.kind == AK::Call) {
      Args a = bind(d, "@cake.schedule", {{"target", false}, {"warps", false}, {"cluster", false}}, 0);
      if (const AE* t = a.get("target")) {
        Value v = eval(*t);
        if (v.k != VK::None) {
          if (v.k != VK::Str)
            fail("type.mismatch", t->range, fmt::format("target= must be a string such as \"sm_90a\", found {}", kindName(v)));
          std::optional<Target> tg = parseTarget(v.s);
          if (!tg || *tg == Target::Unspecified)
            fail("type.mismatch", t->range,
                 fmt::format("unknown target \"{}\" (expected \"sm_80\", \"sm_90a\" or \"sm_100a\")", v.s));
          s.target = *tg;
          targetArg = t;
        }
      }
      if (const AE* w = a.get("warps")) {
        Value v = eval(*w);
        if (v.k != VK::None) s.warps = constIntRange(*w, "warps=", 1, 1024);
      }
      if (const AE* c = a.get("cluster")) {
        Value v = eval(*c);
        if (v.k != VK::None) {
          std::vector<Value> items;
          if (v.k == VK::Tuple || v.k == VK::List) items = v.elems;
          else if (v.k == VK::Int) items.push_back(v);
          else fail("type.mismatch", c->range, fmt::format("cluster= must be a tuple (x, y, z), found {}", kindName(v)));
          if (items.empty() || items.size() > 3)
            fail("type.mismatch", c->range, "cluster= has one to three dimensions");
          for (size_t i = 0; i < items.size(); ++i) {
            auto k = constOf(needInt(items[i], "a cluster dimension"));
            if (!k) fail("type.non-constant", items[i].range, "cluster dimensions must be constants");
            if (*k < 1 || *k > 16)
              fail("type.mismatch", items[i].range, fmt::format("a cluster dimension must be in [1, 16], found {}", *k));
            s.cluster[i] = static_cast<int>(*k);
          }
        }
      }
    }
    if (opts_.target_override != Target::Unspecified) {
      if (s.target != Target::Unspecified && s.target != opts_.target_override)
        fail("type.target-mismatch", targetArg ? targetArg->range : d.range,
             fmt::format("schedule '{}' is written for {} but the requested target is {}; cake never lowers a "
                         "schedule to another GPU generation",
                         s.name, targetName(s.target), targetName(opts_.target_override)));
      s.target = opts_.target_override;
    }
  }

  std::optional<Schedule> schedule(const ast::Stmt& def) {
    Schedule s;
    s.name = def.target;
    s.range = def.range;
    sch_ = &s;
    inRole_ = false;
    cluster_rank_used_ = false;
    scopes_.clear();
    scopes_.emplace_back();
    scopes_.back()["cake"] = Sym{mkv(VK::ModCake, {}), {}};
    scopes_.back()["LM"] = Sym{mkv(VK::ModLM, {}), {}};
    size_t before = sink_.errorCount();
    decorator(def, s);  // Abandon propagates: without the decorator the schedule means nothing
    if (def.params.empty())
      fail("type.missing-argument", def.target_range,
           fmt::format("schedule '{}' needs the builder as its first parameter: def {}(lm, ...)", def.target, def.target));
    scopes_.emplace_back();
    for (size_t i = 0; i < def.params.size(); ++i) {
      const ast::Param& p = def.params[i];
      try {
        if (i == 0) {
          if (p.annotation)
            fail("type.mismatch", p.annotation->range,
                 fmt::format("the first parameter '{}' is the builder and takes no type", p.name));
          builder_ = p.name;
          define(p.name, p.range, mkv(VK::Builder, p.range));
          continue;
        }
        if (!p.annotation)
          fail("type.mismatch", p.range,
               fmt::format("parameter '{}' needs a type: LM.tma1d ... LM.tma5d, LM.gmem, LM.i32 or LM.f32", p.name));
        const AE& an = *p.annotation;
        std::optional<ParamType> pt;
        if (an.kind == AK::Attribute && an.args[0]->kind == AK::Name && an.args[0]->text == "LM")
          pt = paramTypeByName(an.text);
        if (!pt)
          fail("type.mismatch", an.range,
               fmt::format("unknown parameter type '{}' (expected LM.tma1d ... LM.tma5d, LM.gmem, LM.i32 or LM.f32)",
                           ast::printExpr(an)));
        Param prm;
        prm.name = p.name;
        prm.type = *pt;
        prm.range = p.range;
        s.params.push_back(prm);
        int idx = static_cast<int>(s.params.size()) - 1;
        Value v = mkv(VK::Param, p.range, idx);
        if (*pt == ParamType::I32) v = intv(leaf(ExprKind::Param, 0, idx, p.range), p.range);
        define(p.name, p.range, v);
      } catch (const Abandon&) {
        if (!lookup(p.name)) scopes_.back()[p.name] = Sym{Value{}, p.range};
      }
    }
    scopes_.emplace_back();
    for (const ast::StmtPtr& sp : def.body) {
      try {
        topStmt(*sp);
      } catch (const Abandon&) {
        inRole_ = false;
        poison(*sp);
      }
    }
    sch_ = nullptr;
    if (sink_.errorCount() != before) return std::nullopt;
    s.cluster_ops = cluster_rank_used_ || reachesCluster(s);
    waitsByIteration(s);
    nameSlotsByIteration(s);
    return s;
  }

  // An op that reaches across the cluster: multicast=, cta=, lm.cluster_sync().
  static bool reachesCluster(const Schedule& s) {
    bool any = false;
    for (const RoleBody& b : s.bodies)
      forEachOp(b.body,
                [&](const Stmt& st) { any |= st.op.multicast || st.op.cta || st.op.kind == OpKind::ClusterSync; });
    return any;
  }

  const ast::Module& m_;
  FrontendOptions opts_;
  DiagnosticSink& sink_;
  Schedule* sch_ = nullptr;
  std::vector<std::map<std::string, Sym>> scopes_;
  std::string builder_ = "lm";
  bool inRole_ = false;
  bool cluster_rank_used_ = false;  // lm.cluster_rank() in this schedule (Schedule::cluster_ops)
  std::unordered_map<const Expr*, std::pair<int, int64_t>> info_;
  std::vector<ExprPtr> keep_;
};

// The view an op fills or drains by its slot selector (`view.tma_load(...,
// iter=e)`, `view.cp_async`, `view.tma_store`), or -1.
int viewOfSelector(const Op& o) {
  const BufferRef* r = o.kind == OpKind::TmaLoad || o.kind == OpKind::CpAsync ? &o.dst
                       : o.kind == OpKind::TmaStore                            ? &o.src
                                                                               : nullptr;
  return r && r->kind == BufferRef::Kind::View && !r->slot ? r->index : -1;
}

// `x + c` (or `c + x`, `x - c`) with c a constant multiple of `stages`:
// x; else the expression.
ExprPtr withoutStageMultiple(const ExprPtr& e, int stages) {
  if ((e->kind != ExprKind::Add && e->kind != ExprKind::Sub) || e->args.size() != 2) return e;
  auto multiple = [&](const ExprPtr& c) { return c->kind == ExprKind::Const && c->value % stages == 0; };
  if (multiple(e->args[1])) return e->args[0];
  if (e->kind == ExprKind::Add && multiple(e->args[0])) return e->args[1];
  return e;
}

// `e % m` with m a positive multiple of `stages`: e, less a constant
// multiple of `stages` added to it; else the expression. A modulus names
// the slot of its operand and no more: `smem_a[(it + 4) % 8]` on a 4-slot
// ring is the slot of `smem_a[it]`, and read as `smem_a[it + 4]` it named
// iteration it + 4, whose data the ring does not hold while iteration it's
// does (a false data.stale-read). Written without a modulus, `smem_a[it + 4]`
// stays iteration it + 4.
ExprPtr withoutSlotModulus(ExprPtr e, int stages) {
  bool reduced = false;
  while (stages > 1 && e->kind == ExprKind::Mod && e->args[1]->kind == ExprKind::Const) {
    const int64_t m = e->args[1]->value;
    if (m <= 0 || m % stages != 0) break;
    e = e->args[0];
    reduced = true;
  }
  return reduced ? withoutStageMultiple(e, stages) : e;
}

void dropSlotModulus(Block& b, const std::set<int>& views, const Schedule& s) {
  for (Stmt& st : b) {
    if (st.kind != Stmt::Kind::Op) {
      dropSlotModulus(st.body, views, s);
      dropSlotModulus(st.orelse, views, s);
      continue;
    }
    for (BufferRef* r : {&st.op.dst, &st.op.src, &st.op.src2})
      if (r->kind == BufferRef::Kind::View && r->slot && views.count(r->index))
        r->slot = withoutSlotModulus(r->slot, s.views[r->index].stages);
  }
}

// IR.md: `view[e]` is slot `e % stages`, so `view[e % m]` (m a multiple of
// the stages) selects the slot of `view[e]`. On a view whose slots an op
// names by iteration (`iter=`), the data is named by iteration and so is
// an index that reaches `stages` (docs/semantics.md "Stale data"): there
// `view[e % m]` is kept as `view[e]`, one operand for every reader of the
// IR (the model checker names the read's data by its index; lowering takes
// the same slot of either). On a view only stages name, `e % m` stays a
// stage: its lap is what the reader's synchronization says, and a counter
// that restarts per tile (`smem_d[h % 2]`) is no iteration of the ring.
void nameSlotsByIteration(Schedule& s) {
  std::set<int> by_iter;
  for (const RoleBody& b : s.bodies)
    forEachOp(b.body, [&](const Stmt& st) {
      if (st.op.sel.mode == SlotSel::Mode::Iter && viewOfSelector(st.op) >= 0) by_iter.insert(viewOfSelector(st.op));
    });
  if (by_iter.empty()) return;
  for (RoleBody& b : s.bodies) dropSlotModulus(b.body, by_iter, s);
}

// `stage=E % S, phase=E // S + c` on a barrier of S slots (c a constant) is
// the slot and phase IR.md gives `iter=E + c * S`: that expression, or null.
ExprPtr iterationOfStageAndPhase(const SlotSel& sel, int slots) {
  if (sel.mode != SlotSel::Mode::Stage || !sel.phase || slots < 1) return nullptr;
  const Expr& stage = *sel.index;
  if (stage.kind != ExprKind::Mod || stage.args[1]->kind != ExprKind::Const || stage.args[1]->value != slots)
    return nullptr;
  const ExprPtr& e = stage.args[0];
  const ExprPtr lap = makeExpr(ExprKind::FloorDiv, {e, makeConst(slots)});
  const ExprPtr shift = makeExpr(ExprKind::Sub, {sel.phase, lap});
  constexpr int kLaps = 8;  // the laps a written phase sits ahead of or behind E's
  for (int c = -kLaps; c <= kLaps; ++c)
    if (equalForAllValues(*shift, *makeConst(c)))
      return c == 0 ? e : makeExpr(ExprKind::Add, {e, makeConst(int64_t{c} * slots)});
  return nullptr;
}

// D with `cond` true exactly when D >= 0 (a comparison, possibly negated), or null.
ExprPtr nonNegativeForm(const Expr& cond) {
  const Expr* c = &cond;
  bool negated = false;
  while (c->kind == ExprKind::Not) {
    negated = !negated;
    c = c->args[0].get();
  }
  ExprKind k = c->kind;
  if (negated) {
    static const std::map<ExprKind, ExprKind> complement = {
        {ExprKind::Lt, ExprKind::Ge}, {ExprKind::Ge, ExprKind::Lt}, {ExprKind::Le, ExprKind::Gt}, {ExprKind::Gt, ExprKind::Le}};
    auto it = complement.find(k);
    if (it == complement.end()) return nullptr;
    k = it->second;
  }
  const ExprPtr& a = c->args.size() == 2 ? c->args[0] : nullptr;
  const ExprPtr& b = c->args.size() == 2 ? c->args[1] : nullptr;
  switch (k) {
    case ExprKind::Ge: return makeExpr(ExprKind::Sub, {a, b});
    case ExprKind::Gt: return makeExpr(ExprKind::Sub, {makeExpr(ExprKind::Sub, {a, b}), makeConst(1)});
    case ExprKind::Le: return makeExpr(ExprKind::Sub, {b, a});
    case ExprKind::Lt: return makeExpr(ExprKind::Sub, {makeExpr(ExprKind::Sub, {b, a}), makeConst(1)});
    default: return nullptr;
  }
}

// The least value of each enclosing loop's variable: `lo` of a loop from a
// constant start by a positive constant step (the loops counted from 0,
// a grid-strided loop's trip variable among them, give 0). Inside the
// loop's body its variable is lo, lo + step, ...: never below lo.
using LoopFloors = std::map<int, int64_t>;

LoopFloors withLoopFloor(LoopFloors floors, const Stmt& loop) {
  const std::optional<int64_t> lo = constValue(loop.lo);
  const std::optional<int64_t> step = loop.step ? constValue(loop.step) : std::optional<int64_t>(1);
  if (lo && step && *step > 0) floors[loop.loop_var] = *lo;
  return floors;
}

// The parts of `cond` that are all false where it is false: its `or`
// operands (and `not (a and b)` as `not a or not b`), nested.
void collectDisjuncts(const ExprPtr& cond, std::vector<ExprPtr>& out) {
  if (cond->kind == ExprKind::Or) {
    for (const ExprPtr& a : cond->args) collectDisjuncts(a, out);
    return;
  }
  if (cond->kind == ExprKind::Not && cond->args[0]->kind == ExprKind::And) {
    for (const ExprPtr& a : cond->args[0]->args) collectDisjuncts(makeExpr(ExprKind::Not, {a}), out);
    return;
  }
  out.push_back(cond);
}

// The loop variable a false `d` pins, and its value there: d says v >= lo + 1
// (`t > 0`, `t >= 1`, `not t < 1`, ...) for a variable whose floor is lo,
// false only at v = lo; or d is `v != c` or `not v == c` (either order),
// false only at v = c.
std::optional<std::pair<int, int64_t>> pinnedWhereFalse(const Expr& d, const LoopFloors& floors) {
  const Expr* ne = d.kind == ExprKind::Ne                                           ? &d
                   : d.kind == ExprKind::Not && d.args[0]->kind == ExprKind::Eq ? d.args[0].get()
                                                                                    : nullptr;
  if (ne)
    for (int i = 0; i < 2; ++i)
      if (ne->args[i]->kind == ExprKind::LoopVar)
        if (auto c = constValue(ne->args[1 - i])) return std::make_pair(ne->args[i]->index, *c);
  const ExprPtr D = nonNegativeForm(d);
  if (!D) return std::nullopt;
  for (const auto& [var, lo] : floors) {
    auto v = std::make_shared<Expr>();
    v->kind = ExprKind::LoopVar;
    v->index = var;
    if (constantDifference(*D, *v) == -(lo + 1)) return std::make_pair(var, lo);
  }
  return std::nullopt;
}

// Whether X < 0 wherever every disjunct is false, at every value the
// enclosing loops give their variables (floors). Either one disjunct's
// falsity alone says so (it reads D >= 0 and X - D is a constant c <= 0:
// D < 0 gives X = D + c < 0), or a false disjunct pins a loop variable
// (pinnedWhereFalse) and, that value put into X and the other disjuncts,
// their falsity says so.
bool falsityImpliesNegative(const std::vector<ExprPtr>& disjuncts, const ExprPtr& x, const LoopFloors& floors) {
  for (const ExprPtr& d : disjuncts)
    if (ExprPtr D = nonNegativeForm(*d))
      if (std::optional<int64_t> c = constantDifference(*x, *D); c && *c <= 0) return true;
  for (size_t i = 0; i < disjuncts.size(); ++i) {
    const auto pin = pinnedWhereFalse(*disjuncts[i], floors);
    if (!pin) continue;
    const ExprPtr value = makeConst(pin->second);
    std::vector<ExprPtr> rest;
    for (size_t j = 0; j < disjuncts.size(); ++j)
      if (j != i) rest.push_back(substituteLoopVar(disjuncts[j], pin->first, value));
    LoopFloors others = floors;
    others.erase(pin->first);  // (each pin removes a disjunct: the recursion ends)
    if (falsityImpliesNegative(rest, substituteLoopVar(x, pin->first, value), others)) return true;
  }
  return false;
}

// A guard around nothing but `lm.wait(b, iter=X)` whose falsity implies X < 0
// wherever it is evaluated (falsityImpliesNegative, the enclosing loops'
// floors known): IR.md's wait on a negative iteration passes at once, so
// where the guard is false the wait it skips would have done nothing, and
// where it is true the wait runs either way: the guard changes nothing.
// `k >= 4` for X = k - 4 (true exactly where X >= 0), and the first-lap
// guard of a flat ring iteration `t > 0 or k >= 4` for X = t * n + k - 4
// inside `for t in lm.range(0, ...)` (false only at t = 0, k < 4, where X =
// k - 4 < 0). Kept: `t > 1 or k >= 4` (false at t = 1, k = 0, where X = n -
// 4 may be >= 0) and `k >= 5` (false at k = 4, where X = 0): those skip
// real waits.
bool guardOnlySkipsNegativeIterations(const Stmt& st, const LoopFloors& floors) {
  if (st.kind != Stmt::Kind::If || !st.orelse.empty() || st.body.size() != 1) return false;
  const Stmt& w = st.body[0];
  if (w.kind != Stmt::Kind::Op || w.op.kind != OpKind::Wait || w.op.sel.mode != SlotSel::Mode::Iter) return false;
  std::vector<ExprPtr> disjuncts;
  collectDisjuncts(st.cond, disjuncts);
  return falsityImpliesNegative(disjuncts, w.op.sel.index, floors);
}

// An op whose selector names a barrier slot and nothing else (a TMA load's
// also names its view slot, whose data is named by how it is written).
bool namesBarrierSlotOnly(OpKind k) {
  return k == OpKind::Wait || k == OpKind::Arrive || k == OpKind::ExpectTx || k == OpKind::MmaCommit;
}

void spellWaitsByIteration(Block& b, const Schedule& s, const LoopFloors& floors) {
  for (Stmt& st : b) {
    spellWaitsByIteration(st.body, s, st.kind == Stmt::Kind::For ? withLoopFloor(floors, st) : floors);
    spellWaitsByIteration(st.orelse, s, floors);
    if (st.kind == Stmt::Kind::Op && namesBarrierSlotOnly(st.op.kind) && st.op.barrier >= 0)
      if (ExprPtr it = iterationOfStageAndPhase(st.op.sel, s.barriers[st.op.barrier].count)) {
        st.op.sel.mode = SlotSel::Mode::Iter;
        st.op.sel.index = it;
        st.op.sel.phase = nullptr;
      }
    if (guardOnlySkipsNegativeIterations(st, floors)) {
      Stmt wait = std::move(st.body[0]);
      st = std::move(wait);
    }
  }
}

// One spelling for a ring op (docs/semantics.md "Ring ops spelled by stage and
// phase"): `lm.wait(b, stage=E % S, phase=E // S + c)` is `lm.wait(b, iter=E + c * S)`
// (and so for an arrive, expect_tx or mma_commit),
// and a guard that only skips the waits on negative iterations is dropped, so
// `if k >= 4: lm.wait(empty, stage=k % 4, phase=k // 4 - 1)` and
// `lm.wait(empty, iter=k - 4)` reach the checks alike (the bounded check could
// not place the guard of a flat iteration `t * k_tiles + k >= 4` under a strided
// tile loop; the proof's ring and lap arguments take iterations).
void waitsByIteration(Schedule& s) {
  for (RoleBody& b : s.bodies) spellWaitsByIteration(b.body, s, {});
}

}  // namespace

std::optional<Module> compileModule(const SourceFilePtr& file, const FrontendOptions& opts, DiagnosticSink& sink) {
  try {
    std::optional<ast::Module> m = ast::parse(file, sink);
    if (!m) return std::nullopt;
    return Resolver(*m, opts, sink).run();
  } catch (const std::exception& e) {
    SourceRange r;
    r.file = file;
    r.line = r.col = r.end_line = 1;
    r.end_col = 2;
    sink.add(frontendFinding("syntax.invalid-input", r, std::string("internal error in the front end: ") + e.what()));
  } catch (...) {
    SourceRange r;
    r.file = file;
    r.line = r.col = r.end_line = 1;
    r.end_col = 2;
    sink.add(frontendFinding("syntax.invalid-input", r, "internal error in the front end"));
  }
  return std::nullopt;
}

}  // namespace cake::ir
