// The typed schedule: what the front end produces from a `.cake` file and
// what every later stage (checks, encoder, lowering, cost model) reads.
//
// Names are resolved to indices into the Schedule's tables; local integer
// assignments (`m0 = 64 * lm.instance()`) are substituted into the
// expressions that use them, so an Expr only refers to parameters, loop
// variables and builtins.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/ops.h"
#include "ir/source.h"

namespace cake::ir {

// ---------------------------------------------------------------- targets

enum class Target { Unspecified, SM80, SM90a, SM100a };
std::string_view targetName(Target t);            // "sm_90a", "" for Unspecified
std::optional<Target> parseTarget(std::string_view s);

// ------------------------------------------------------------------ types

enum class DType { BF16, F16, F32, E4M3, E5M2, I8, I32 };
std::string_view dtypeName(DType d);              // "bf16", ...
int dtypeBytes(DType d);

enum class Swizzle { None, B32, B64, B128 };
std::string_view swizzleName(Swizzle s);          // "None", "32B", ...
int swizzleBytes(Swizzle s);                      // 0, 32, 64, 128

enum class ParamType { Tma1d, Tma2d, Tma3d, Tma4d, Tma5d, Gmem, I32, F32 };
std::string_view paramTypeName(ParamType t);      // "LM.tma2d", ...
inline bool isTensorParam(ParamType t) { return t != ParamType::I32 && t != ParamType::F32; }
int tmaRank(ParamType t);                          // 1..5 for TMA, 0 otherwise

// ------------------------------------------------------------ expressions

enum class ExprKind {
  Const,      // value
  Param,      // index into Schedule::params (an LM.i32 scalar)
  LoopVar,    // index into Schedule::loop_vars
  BlockIdx,   // lm.block_idx(dim)    dim in `index`
  GridDim,    // lm.grid_dim(dim)
  Instance,   // lm.instance()
  // arithmetic on args
  Neg, Add, Sub, Mul, FloorDiv, Mod, Min, Max, CDiv,
  // comparisons and logic: value 0 or 1
  Lt, Le, Gt, Ge, Eq, Ne, And, Or, Not,
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

// Integer expressions use Python semantics: `//` and `%` floor toward
// negative infinity; lm.cdiv(a, b) = -((-a) // b). Division by zero in a
// constant is a type error; with symbolic operands the checks treat it as
// undefined behaviour.
struct Expr {
  ExprKind kind = ExprKind::Const;
  int64_t value = 0;                // Const
  int index = 0;                    // Param / LoopVar / BlockIdx / GridDim dim
  std::vector<ExprPtr> args;
  SourceRange range;
};

ExprPtr makeConst(int64_t v, SourceRange r = {});
ExprPtr makeExpr(ExprKind k, std::vector<ExprPtr> args, SourceRange r = {});

// Values for free symbols during evaluation. Missing entries make
// evaluate() return nullopt.
struct EvalEnv {
  std::map<int, int64_t> params;      // param index -> value
  std::map<int, int64_t> loop_vars;   // loop var index -> value
  std::optional<int64_t> instance;
  std::optional<int64_t> block_idx[3];
  std::optional<int64_t> grid_dim[3];
  // The trip-count proof (encoder/trip_proof.h) evaluates a schedule with one
  // expression (a loop bound such as lm.cdiv(K, 64)) replaced by a value:
  // every sub-expression equal to `replace` (sameExpr) evaluates to
  // `replace_value`, and counts one in *replace_hits.
  const Expr* replace = nullptr;
  int64_t replace_value = 0;
  int64_t* replace_hits = nullptr;
  // When set, the index of every parameter an evaluation reads is added;
  // lm.block_idx(d) adds -1 - d and lm.grid_dim(d) adds -4 - d.
  std::set<int>* params_read = nullptr;
};
std::optional<int64_t> evaluate(const Expr& e, const EvalEnv& env);
// Structural equality (same kinds, values, indices and arguments).
bool sameExpr(const Expr& a, const Expr& b);
// Both absent, or both present and sameExpr (an optional operand).
bool sameOptExpr(const ExprPtr& a, const ExprPtr& b);
std::optional<int64_t> constValue(const ExprPtr& e);   // evaluate with an empty env
// True when e or any of its sub-expressions satisfies pred (pre-order; it
// stops at the first). Every "does e read ..." walk below is one of these.
template <class Pred>
bool anySubExpr(const Expr& e, const Pred& pred) {
  if (pred(e)) return true;
  for (const ExprPtr& a : e.args)
    if (a && anySubExpr(*a, pred)) return true;
  return false;
}
// Reads the symbol of this kind and index: a parameter, a loop variable,
// lm.block_idx(d) or lm.grid_dim(d).
bool readsSymbol(const Expr& e, ExprKind kind, int index);
bool dependsOnLoopVar(const Expr& e, int loop_var);  // readsSymbol(e, LoopVar, loop_var)
// True when e or any sub-expression has one of these kinds.
bool exprUses(const Expr& e, std::initializer_list<ExprKind> kinds);
// e is an affine function of loop variable `var` (`k`, `k - 4`, `k * 64 +
// m0`): free of it, or sums, differences and negations of such terms, or
// products of one with a factor free of `var`. Then e(v + P) - e(v) does
// not depend on v (Python integers: no overflow).
bool affineIn(const Expr& e, int var);
// Python-like rendering with the schedule's names, e.g. "k - 4".
struct Schedule;
std::string exprToString(const Expr& e, const Schedule& s);

// -------------------------------------------------------------- resources

struct Param {
  std::string name;
  ParamType type;
  SourceRange range;
};

struct Pool {                 // lm.smem(bytes)
  std::string name;
  ExprPtr bytes;
  SourceRange range;
};

struct View {                 // pool.view(...)
  std::string name;
  int pool = -1;
  ExprPtr offset;             // bytes from the pool start
  std::vector<ExprPtr> shape; // elements per dimension, outermost first
  DType dtype = DType::BF16;
  int stages = 1;             // constant
  Swizzle swizzle = Swizzle::None;
  // `union=u`: a member of u's union (docs/ir-extensions.md "Union members"):
  // a view declared before it in the same pool, over common bytes. A read
  // through a member of bytes last written through another member of the
  // same union means that write's data (encoder/sim_state.cpp staleData).
  int union_with = -1;
  SourceRange range;
};

// The view that names view v's union: the first view of the chain of
// `union=` (each names a view declared before it, so the chain ends); v
// itself when it names none.
int unionRoot(const Schedule& s, int view);
// Are two distinct views members of one union?
bool sameUnion(const Schedule& s, int a, int b);

struct Tmem {                 // lm.tmem(cols=, width=, shape=, dtype=)
  std::string name;
  ExprPtr cols, width;
  std::vector<ExprPtr> shape;
  DType dtype = DType::F32;
  SourceRange range;
};

struct Regs {                 // lm.regs(shape=, dtype=)
  std::string name;
  std::vector<ExprPtr> shape;
  DType dtype = DType::F32;
  SourceRange range;
};

struct Role {                 // lm.role(warps=[...], group=, regs=)
  std::string name;
  std::vector<int> warps;     // as written, in order
  int group = 0;              // 0: the whole role is one instance
  std::optional<int> regs;    // setmaxnreg budget
  SourceRange range;
  int instanceCount() const {
    return group > 0 ? static_cast<int>(warps.size()) / group : 1;
  }
  int warpsPerInstance() const {
    return group > 0 ? group : static_cast<int>(warps.size());
  }
};

struct Pipeline {             // lm.pipeline(stages=)
  std::string name;
  int stages = 1;
  SourceRange range;
};

struct Barrier {              // lm.barrier(...)
  std::string name;
  int count = 1;              // number of slots (mbarriers)
  std::vector<int> prod;      // role indices that arrive
  std::vector<int> cons;      // role indices that wait
  int init_count = 1;         // arrivals expected per phase
  int pipeline = -1;          // index into pipelines, or -1
  SourceRange range;
};

struct NamedBarrier {         // lm.named_barrier(roles=[...])
  std::string name;
  std::vector<int> roles;
  SourceRange range;
};

struct Assume {               // lm.assume(cond)
  ExprPtr cond;
  SourceRange range;
};

struct GridDependency {       // lm.grid_dependency(T)
  int param = -1;             // a tensor the preceding grid in the stream accesses
  SourceRange range;
};

struct LoopVar {
  std::string name;
  SourceRange range;
};

// -------------------------------------------------------------- operands

// A reference to storage: a view slot (optionally sliced), a TMEM region,
// a register fragment, or a global tensor parameter.
struct Slice {
  ExprPtr lo, hi;             // nullptr = open end (`:`)
};

struct BufferRef {
  enum class Kind { None, View, Tmem, Regs, Param, Scalar };
  Kind kind = Kind::None;
  int index = -1;             // into views / tmems / regs / params
  ExprPtr slot;               // view[e]: e (slot = e % stages); nullptr if unindexed
  std::vector<Slice> slices;  // view[e][r0:r1, :]
  ExprPtr scalar;             // Kind::Scalar: a literal operand (lm.binary b)
  double scalar_f = 0;        // Kind::Scalar with a float literal
  SourceRange range;
};

// How an op names its barrier slot / view slot (IR.md "Slots and phases").
struct SlotSel {
  enum class Mode { None, Iter, Stage };
  Mode mode = Mode::None;
  ExprPtr index;              // value of iter= or stage=
  ExprPtr phase;              // phase= (only with Stage), else nullptr
};

// ------------------------------------------------------------------- ops

// OpKind, opName and what each op is: the op table (ir/ops.h, ir/ops.def).

struct Op {
  OpKind kind = OpKind::FenceProxy;
  SourceRange range;

  // Storage operands. For tma_load/cp_async: dst = view, src = tensor.
  // tma_store: dst = tensor, src = view. copy/unary/reduce: dst, src.
  // binary: dst, src (a), src2 (b). mma: dst = acc, src = a, src2 = b.
  // reduce argmin/argmax with value=: src2 = the running values (read and
  // written, like dst). fill: dst.
  BufferRef dst, src, src2;
  std::vector<ExprPtr> coords;      // tma/cp_async/copy coords=

  SlotSel sel;                      // stage= / iter= / phase=
  int barrier = -1;                 // tma_load barrier=, expect_tx/arrive/wait b, mma_commit barrier=
  int named_barrier = -1;           // sync / bar_arrive
  ExprPtr bytes;                    // expect_tx bytes
  ExprPtr count;                    // arrive count= (default 1)
  ExprPtr pending;                  // *_wait(pending=) (default 0)
  ExprPtr init;                     // mma init= (nullptr: False)
  ElemFn fn = ElemFn::None;         // unary/binary/reduce op="..." (ir/ops.h)
  ExprPtr fill_value;               // fill value (integer literal) ...
  double fill_value_f = 0;          // ... or float literal
  int axis = -1;                    // reduce axis=
  ExprPtr base;                     // reduce base= (argmin/argmax: added to the indices; nullptr: 0)
  // Thread-block clusters (docs/ir-extensions.md): tma_load multicast= (a
  // mask of cluster CTA ranks; nullptr: this CTA only) and arrive cta= (the
  // cluster rank whose barrier slot it arrives on; nullptr: this CTA's).
  ExprPtr multicast;
  ExprPtr cta;
};

// ------------------------------------------------------------- statements

struct Stmt;
using Block = std::vector<Stmt>;

struct Stmt {
  enum class Kind { Op, For, If };
  Kind kind = Kind::Op;
  SourceRange range;
  Op op;                            // Kind::Op
  int loop_var = -1;                // Kind::For: `for v in lm.range(lo, hi, step)`
  ExprPtr lo, hi, step;             //   step defaults to 1 (constant, non-zero)
  ExprPtr cond;                     // Kind::If
  Block body;                       // For body / If then-branch
  Block orelse;                     // If else-branch
};

struct RoleBody {                   // one `with ROLE:` block
  int role = -1;
  Block body;
  SourceRange range;
};

// ------------------------------------------------------------- schedule

struct Schedule {
  std::string name;
  SourceRange range;                // the `def` line
  Target target = Target::Unspecified;
  std::optional<int> warps;         // decorator warps=
  int cluster[3] = {1, 1, 1};
  // Whether any op or expression reaches across the cluster (multicast=,
  // cta=, lm.cluster_sync(), lm.cluster_rank()): the model checker then
  // models every CTA of one cluster (docs/semantics.md "Clusters").
  bool cluster_ops = false;
  int clusterSize() const { return cluster[0] * cluster[1] * cluster[2]; }

  std::vector<Param> params;        // excluding the builder `lm`
  std::vector<Pool> pools;
  std::vector<View> views;
  std::vector<Tmem> tmems;
  std::vector<Regs> regs;
  std::vector<Role> roles;
  std::vector<Pipeline> pipelines;
  std::vector<Barrier> barriers;
  std::vector<NamedBarrier> named_barriers;
  std::vector<Assume> assumes;
  std::vector<GridDependency> grid_deps;  // programmatic dependent launch
  std::vector<LoopVar> loop_vars;
  std::vector<RoleBody> bodies;     // in source order; a role may have several

  // Total warps: decorator warps= if given, else 1 + the highest warp used.
  int warpCount() const;
};

// A parsed and checked file.
struct Module {
  SourceFilePtr file;
  std::vector<Schedule> schedules;
};

// Call `fn(const Stmt&)` for every op statement, depth first, in order.
template <typename Fn>
void forEachOp(const Block& b, Fn&& fn) {
  for (const Stmt& s : b) {
    if (s.kind == Stmt::Kind::Op) fn(s);
    else { forEachOp(s.body, fn); forEachOp(s.orelse, fn); }
  }
}

}  // namespace cake::ir
