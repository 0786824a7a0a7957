// Lap induction: the proof for every trip count (trip_proof.h says what it
// establishes and how; docs/z3.md gives the argument).
#include "encoder/trip_proof.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "encoder/bv_prover.h"
#include "encoder/sim_graph.h"
#include "encoder/sim_model.h"
#include "encoder/sim_por.h"
#include "encoder/simulator.h"

namespace cake::encoder {

namespace {

using sim::Async;
using sim::Model;
using sim::State;

// A reason the proof does not apply or does not go through (-> Unknown).
struct Fail : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A violation of the simulator's rules met on the way, at trip count T (for
// one met while the trip count was still open: the least T it can be).
// proveEveryTripCount() answers Violation with it, for the caller to check
// on concrete parameter values.
struct Met : Fail {
  Met(const std::string& what, Violation v, int64_t T, bool open = false)
      : Fail(what), violation(std::move(v)), trip(T) {
    violation.trip_open = open;
  }
  Violation violation;
  int64_t trip;
};
// The unrolled window was too short for the exploration (-> retry, wider).
struct WindowTooSmall {};

// Milliseconds since the proof started (its budget is wall-clock time).
double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// ================================================================ the trip expression

// Does e or any of its sub-expressions satisfy `pred`?
bool anySubExpr(const ir::Expr& e, const std::function<bool(const ir::Expr&)>& pred) {
  if (pred(e)) return true;
  return std::any_of(e.args.begin(), e.args.end(), [&](const ir::ExprPtr& a) { return a && anySubExpr(*a, pred); });
}

bool mentionsParam(const ir::Expr& e) {
  return anySubExpr(e, [](const ir::Expr& x) { return x.kind == ir::ExprKind::Param; });
}

void collectLoops(const ir::Block& b, std::vector<const ir::Stmt*>& out) {
  for (const ir::Stmt& st : b) {
    if (st.kind == ir::Stmt::Kind::For) out.push_back(&st);
    collectLoops(st.body, out);
    collectLoops(st.orelse, out);
  }
}

// Is `inner` a statement inside block b (at any depth)?
bool inBlock(const ir::Block& b, const ir::Stmt* inner) {
  return std::any_of(b.begin(), b.end(), [&](const ir::Stmt& st) {
    return &st == inner || inBlock(st.body, inner) || inBlock(st.orelse, inner);
  });
}

// The loops whose bound depends on a parameter: each is
// `for v in lm.range(lo, E + off)` with one expression E (the trip count).
struct TripLoops {
  ir::ExprPtr trip;
  std::map<int, int64_t> lo;   // loop var -> constant start
  std::map<int, int64_t> off;  // loop var -> constant offset of its bound
  // Parameters read besides E, fixed to one of their (finitely many)
  // allowed values for this proof, and those values as facts (`BK == 8`).
  std::map<int, int64_t> fixed;
  std::vector<ir::ExprPtr> facts;
};

// The bit-vector prover with the facts of one proof (the values of the
// fixed parameters) added to every query.
class FactProver {
 public:
  FactProver(const ir::Schedule& s, const Limits& limits, const std::vector<ir::ExprPtr>& facts)
      : prover_(s, limits), facts_(facts) {}
  BvResult prove(const ir::ExprPtr& goal, std::vector<ir::ExprPtr> premises = {}) {
    premises.insert(premises.end(), facts_.begin(), facts_.end());
    return prover_.prove(goal, premises);
  }

 private:
  BvProver prover_;
  std::vector<ir::ExprPtr> facts_;
};

// e = core + offset with a constant offset (`E`, `E - 1`, `1 + E`, ...).
std::pair<ir::ExprPtr, int64_t> splitOffset(const ir::ExprPtr& e) {
  if (e->args.size() == 2 && (e->kind == ir::ExprKind::Add || e->kind == ir::ExprKind::Sub)) {
    auto c1 = ir::constValue(e->args[1]);
    if (c1) {
      auto [core, off] = splitOffset(e->args[0]);
      return {core, e->kind == ir::ExprKind::Add ? off + *c1 : off - *c1};
    }
    auto c0 = ir::constValue(e->args[0]);
    if (c0 && e->kind == ir::ExprKind::Add) {
      auto [core, off] = splitOffset(e->args[1]);
      return {core, off + *c0};
    }
  }
  return {e, 0};
}

// The parameters an expression reads.
std::set<int> paramsOf(const ir::Expr& e) {
  std::set<int> out;
  anySubExpr(e, [&](const ir::Expr& x) {
    if (x.kind == ir::ExprKind::Param) out.insert(x.index);
    return false;
  });
  return out;
}

// `finite`: parameters proved value by value (few allowed values); a loop
// whose bound reads only those is not a symbolic loop (`for b in
// lm.range(0, has_bias)` with 0 <= has_bias <= 1): with the values fixed,
// the builder unrolls it.
TripLoops findTrip(const ir::Schedule& s, const std::set<int>& finite = {}) {
  std::vector<const ir::Stmt*> loops;
  for (const ir::RoleBody& body : s.bodies) collectLoops(body.body, loops);
  TripLoops tl;
  const ir::Stmt* first = nullptr;  // the first symbolic loop
  auto onlyFinite = [&](const ir::ExprPtr& e) {
    std::set<int> ps = paramsOf(*e);
    return std::all_of(ps.begin(), ps.end(), [&](int p) { return finite.count(p) > 0; });
  };
  for (const ir::Stmt* st : loops) {
    bool sym_hi = st->hi && mentionsParam(*st->hi) && !onlyFinite(st->hi);
    bool sym_other = (st->lo && mentionsParam(*st->lo)) || (st->step && mentionsParam(*st->step));
    if (sym_other) throw Fail("a loop's start or step depends on a parameter");
    if (!sym_hi) continue;
    auto lo = ir::constValue(st->lo);
    auto step = st->step ? ir::constValue(st->step) : std::optional<int64_t>(1);
    if (!lo || !step || *step != 1) throw Fail("a loop with a symbolic bound has a start that is not a constant or a step other than 1");
    auto [core, off] = splitOffset(st->hi);
    if (!tl.trip) {
      tl.trip = core;
      first = st;
    } else if (!ir::sameExpr(*tl.trip, *core)) {
      // A loop around another with its own symbolic bound: a persistent
      // kernel's tile loop around its K loop (docs/z3.md, "Persistent kernels").
      const ir::Stmt* outer = inBlock(first->body, st) ? first : inBlock(st->body, first) ? st : nullptr;
      if (outer)
        throw Fail(fmt::format("the symbolic loops have different bounds ({} around {}: a persistent kernel's tile "
                               "and K loops, two symbolic dimensions, not proved yet)",
                               ir::exprToString(*outer->hi, s), ir::exprToString(*(outer == st ? first : st)->hi, s)));
      throw Fail(fmt::format("the symbolic loops have different bounds ({} and {})", ir::exprToString(*tl.trip, s),
                             ir::exprToString(*st->hi, s)));
    }
    tl.lo[st->loop_var] = *lo;
    tl.off[st->loop_var] = off;
  }
  if (!tl.trip) throw Fail("no loop bound depends on a parameter");
  return tl;
}

// ================================================================ instruction comparison

bool sameAccess(const Access& a, const Access& b) {
  return a.space == b.space && a.lo == b.lo && a.hi == b.hi && a.write == b.write && a.proxy == b.proxy &&
         a.async == b.async && a.view == b.view && a.index == b.index && a.gen == b.gen &&
         a.stage_like == b.stage_like && a.view_written == b.view_written;
}

bool sameInstr(const Instr& a, const Instr& b) {
  if (a.kind != b.kind || a.stmt != b.stmt || a.derived != b.derived || a.slot != b.slot || a.phase != b.phase ||
      a.count != b.count || a.bytes != b.bytes || a.pending != b.pending || a.named != b.named ||
      a.grid_dep_early != b.grid_dep_early || a.iteration != b.iteration || a.loops != b.loops ||
      a.accesses.size() != b.accesses.size())
    return false;
  for (size_t i = 0; i < a.accesses.size(); ++i)
    if (!sameAccess(a.accesses[i], b.accesses[i])) return false;
  return true;
}

// How far one period moves each quantity (learned from the instructions).
struct Deltas {
  std::map<int, int64_t> slot_phase;      // flat slot -> phase
  std::map<int, int64_t> view_index;      // view -> index of iteration-like accesses
  std::map<int, int64_t> view_gen;        // view -> generation of iteration-like accesses
  std::map<int, int64_t> view_gen_stage;  // view -> generation of stage-like accesses

  static bool learn(std::map<int, int64_t>& m, int key, int64_t d) {
    auto [it, fresh] = m.emplace(key, d);
    return fresh || it->second == d;
  }
  static int64_t of(const std::map<int, int64_t>& m, int key) {
    auto it = m.find(key);
    return it == m.end() ? 0 : it->second;
  }
  bool viewMoves(int view) const {
    return of(view_index, view) != 0 || of(view_gen, view) != 0 || of(view_gen_stage, view) != 0;
  }
};

// Is b the instruction a, one period later? Learns the deltas it implies.
bool shiftedInstr(const Instr& a, const Instr& b, Deltas& d) {
  if (a.kind != b.kind || a.stmt != b.stmt || a.derived != b.derived || a.slot != b.slot || a.count != b.count ||
      a.bytes != b.bytes || a.pending != b.pending || a.named != b.named || a.grid_dep_early != b.grid_dep_early ||
      a.accesses.size() != b.accesses.size())
    return false;
  if (a.slot >= 0 ? !Deltas::learn(d.slot_phase, a.slot, b.phase - a.phase) : a.phase != b.phase) return false;
  for (size_t i = 0; i < a.accesses.size(); ++i) {
    const Access &x = a.accesses[i], &y = b.accesses[i];
    if (x.space != y.space || x.lo != y.lo || x.hi != y.hi || x.write != y.write || x.proxy != y.proxy ||
        x.async != y.async || x.view != y.view || x.stage_like != y.stage_like || x.view_written != y.view_written)
      return false;
    if (x.view < 0) continue;
    if (x.stage_like) {
      if (x.index != y.index || !Deltas::learn(d.view_gen_stage, x.view, y.gen - x.gen)) return false;
    } else if (!Deltas::learn(d.view_index, x.view, y.index - x.index) ||
               !Deltas::learn(d.view_gen, x.view, y.gen - x.gen)) {
      return false;
    }
  }
  return true;
}

// Are the instruction lists b = a shifted by a period? Deltas change only
// when they are.
bool shiftedRange(const std::vector<Instr>& pa, size_t a0, size_t a1, const std::vector<Instr>& pb, size_t b0,
                  size_t b1, Deltas& d) {
  if (a1 - a0 != b1 - b0) return false;
  Deltas trial = d;
  for (size_t i = 0; i < a1 - a0; ++i)
    if (!shiftedInstr(pa[a0 + i], pb[b0 + i], trial)) return false;
  d = std::move(trial);
  return true;
}

// ================================================================ the unrolled window

// The shape of one process's program in the system for trip count W.
struct ProcShape {
  bool loops = false;            // runs the symbolic loop
  int var = -1;
  int64_t lo = 0, off = 0;       // the loop runs its steady iterations while v < T + off
  int64_t end = 0;               // W + off: the first iteration the window does not run steadily
  int64_t full_end = 0;          // the first iteration the window's system does not run at all
  std::vector<int> head;         // head[v - lo]: first pc of iteration v; head[end - lo]: end of the loop
  std::vector<int64_t> iter_of;  // pc -> iteration (loop part), -1 elsewhere
  int headOf(int64_t v) const { return head[static_cast<size_t>(v - lo)]; }
  int loopEnd() const { return headOf(end); }
  // The iteration at whose head the loop ends for trip count T.
  int64_t lastHead(int64_t T) const { return std::max(T + off, lo); }
};

ProcShape shapeOf(const Process& proc, const TripLoops& tl, int64_t W) {
  ProcShape sh;
  const auto& prog = proc.program;
  sh.iter_of.assign(prog.size(), -1);
  int first = -1, last = -1;
  for (size_t pc = 0; pc < prog.size(); ++pc) {
    for (const auto& [var, value] : prog[pc].loops) {
      if (!tl.lo.count(var)) continue;
      if (sh.var >= 0 && sh.var != var) throw Fail(fmt::format("{} runs two symbolic loops", proc.name));
      sh.var = var;
      sh.iter_of[pc] = value;
    }
    if (sh.iter_of[pc] < 0) continue;
    if (last >= 0 && (last != static_cast<int>(pc) - 1 || sh.iter_of[pc] < sh.iter_of[last]))
      throw Fail(fmt::format("{} runs its symbolic loop more than once, or not in one piece", proc.name));
    if (first < 0) first = static_cast<int>(pc);
    last = static_cast<int>(pc);
  }
  if (first < 0) return sh;
  sh.loops = true;
  sh.lo = tl.lo.at(sh.var);
  sh.off = tl.off.at(sh.var);
  sh.end = sh.full_end = W + sh.off;
  if (sh.end <= sh.lo) throw WindowTooSmall{};
  sh.head.assign(static_cast<size_t>(sh.end - sh.lo + 1), -1);
  for (int pc = first; pc <= last; ++pc) {
    int64_t v = sh.iter_of[pc];
    if (v < sh.lo || v >= sh.end) throw Fail("a symbolic loop's iterations are out of order");
    if (sh.head[v - sh.lo] < 0) sh.head[v - sh.lo] = pc;
  }
  sh.head[sh.end - sh.lo] = last + 1;
  for (int64_t v = sh.lo; v < sh.end; ++v)
    if (sh.head[v - sh.lo] < 0)
      throw Fail(fmt::format("iteration {} of {}'s symbolic loop has no operation (a loop head would be ambiguous)", v,
                             proc.name));
  return sh;
}

// Everything the exploration needs, for one window width W.
struct Window {
  int64_t W = 0, t0 = 0, t1 = 0, j0 = 0, w0 = 0, P = 0;
  System base;                                  // the system for T = W
  std::vector<System> by_trip;                  // [T - t0]: the system for T
  std::vector<ProcShape> shape;
  Deltas d;
  std::map<int, int64_t> named_delta;           // named barrier -> generations per period
  std::vector<int64_t> commit_delta;            // process -> MMA commits per period
  // the combined program
  System comb;
  sim::ControlFlow flow;
  std::vector<std::map<int64_t, int>> exit_to;  // [p][T]: pc after leaving the loop with trip count T
  std::vector<std::vector<int>> shift_pc;       // [p][pc]: pc one period earlier, -1 if none
};

System buildAt(const ir::Schedule& s, Binding b, ir::Target target, const TripLoops& tl, int64_t T) {
  b.replace = tl.trip.get();
  b.replace_value = T;
  for (const auto& [p, value] : tl.fixed) b.params[p] = value;
  std::string err;
  auto sys = buildSystem(s, b, target, &err);
  if (!sys) throw Fail(fmt::format("the system for trip count {} cannot be built: {}", T, err));
  std::set<int> read = sys->params_read;
  for (const auto& [p, value] : tl.fixed) read.erase(p);
  if (!read.empty()) {
    const int r = *read.rbegin();  // parameters first (>= 0), then the builtins
    std::string what = r >= 0 ? s.params[r].name
                       : r >= -3 ? fmt::format("lm.block_idx({})", -1 - r)
                                 : fmt::format("lm.grid_dim({})", -4 - r);
    throw Fail(fmt::format("the schedule reads {} outside the loop bound {}", what, ir::exprToString(*tl.trip, s)));
  }
  return std::move(*sys);
}

// e with every sub-expression equal to `target` replaced by `by`.
ir::ExprPtr substitute(const ir::ExprPtr& e, const ir::Expr& target, const ir::ExprPtr& by) {
  if (!e) return e;
  if (ir::sameExpr(*e, target)) return by;
  if (e->args.empty()) return e;
  auto copy = std::make_shared<ir::Expr>(*e);
  for (ir::ExprPtr& a : copy->args) a = substitute(a, target, by);
  return copy;
}

ir::ExprPtr symbolNode(ir::ExprKind kind, int index) {
  auto x = std::make_shared<ir::Expr>();
  x->kind = kind;
  x->index = index;
  return x;
}

// A symbol no schedule uses (a loop variable index beyond any real one).
constexpr int kFreshSymbol = 1 << 20;

// "e moves by the same amount every period from `from` on": with x the
// sub-expression `target`, e(x + P) - e(x) == e(from + P) - e(from) for
// every x >= from and every value of e's other symbols.
BvVerdict movesWithPeriod(FactProver& prover, const ir::ExprPtr& e, const ir::Expr& target, int64_t P, int64_t from) {
  const ir::ExprPtr x = symbolNode(ir::ExprKind::LoopVar, kFreshSymbol);
  auto plus = [&](const ir::ExprPtr& a, int64_t c) { return ir::makeExpr(ir::ExprKind::Add, {a, ir::makeConst(c)}); };
  auto at = [&](const ir::ExprPtr& value) { return substitute(e, target, value); };
  auto step = [&](const ir::ExprPtr& a) { return ir::makeExpr(ir::ExprKind::Sub, {at(plus(a, P)), at(a)}); };
  auto goal = ir::makeExpr(ir::ExprKind::Eq, {step(x), step(ir::makeConst(from))});
  auto premise = ir::makeExpr(ir::ExprKind::Ge, {x, ir::makeConst(from)});
  return prover.prove(goal, {premise}).kind;
}

bool containsExpr(const ir::Expr& e, const ir::Expr& target) {
  return anySubExpr(e, [&](const ir::Expr& x) { return ir::sameExpr(x, target); });
}

bool mentionsLoopVar(const ir::Expr& e, const std::set<int>& vars) {
  return anySubExpr(e, [&](const ir::Expr& x) { return x.kind == ir::ExprKind::LoopVar && vars.count(x.index) > 0; });
}

// Is e an affine function of loop variable `var` (`k`, `k - 4`, `k * 64 +
// m0`): sums, differences and negations of terms, each free of `var` or
// `var` times factors free of it? Then e(v + P) - e(v) does not depend on
// v, without asking the solver (Python integers: no overflow; the terms
// free of `var` were evaluated in the window, the same for every v).
bool affineIn(const ir::Expr& e, int var) {
  using K = ir::ExprKind;
  auto mentions = [&](const ir::Expr& x) {
    return anySubExpr(x, [&](const ir::Expr& y) { return y.kind == K::LoopVar && y.index == var; });
  };
  if (!mentions(e)) return true;
  if (e.kind == K::LoopVar) return true;
  auto argsAffine = [&] {
    return std::all_of(e.args.begin(), e.args.end(), [&](const ir::ExprPtr& a) { return a && affineIn(*a, var); });
  };
  switch (e.kind) {
    case K::Add: case K::Sub: case K::Neg: return argsAffine();
    case K::Mul:
      return e.args.size() == 2 && e.args[0] && e.args[1] &&
             ((!mentions(*e.args[0]) && affineIn(*e.args[1], var)) ||
              (!mentions(*e.args[1]) && affineIn(*e.args[0], var)));
    default: return false;
  }
}

// The window shows the loop body repeating with the period up to W; beyond
// it the body repeats because every expression it evaluates moves by the
// same amount every period of the loop variable from w0 on (proved; e.g.
// `iter=k - 4` or `k % 4` do, `min(k, 30)` does not).
void checkBodyExprs(const ir::Schedule& s, const TripLoops& tl, const std::vector<const ir::Expr*>& exprs, int64_t P,
                    int64_t w0, const Limits& limits) {
  std::set<int> vars;
  for (const auto& [var, lo] : tl.lo) vars.insert(var);
  std::optional<FactProver> prover;
  for (const ir::Expr* use : exprs) {
    if (!mentionsLoopVar(*use, vars) || containsExpr(*use, *tl.trip)) continue;  // the latter: checkTripUses
    ir::ExprPtr e(std::shared_ptr<const ir::Expr>{}, use);  // non-owning: the schedule owns it
    for (int var : vars) {
      if (affineIn(*use, var)) continue;  // e(v + P) - e(v) is the same for every v
      if (!prover) prover.emplace(s, limits, tl.facts);
      BvVerdict r = movesWithPeriod(*prover, e, *symbolNode(ir::ExprKind::LoopVar, var), P, w0);
      if (r != BvVerdict::Holds)
        throw Fail(fmt::format("the loop body's {} does not move by the same amount every {} iterations ({})",
                               ir::exprToString(*use, s), P, bvVerdictName(r)));
    }
  }
}

// A read of the trip count with the loop variables and lm.instance() it was
// evaluated with bound to their values.
ir::ExprPtr boundUse(const System::ReplacedUse& u) {
  ir::ExprPtr e(std::shared_ptr<const ir::Expr>{}, u.expr);  // non-owning: the schedule owns it
  for (const auto& [var, value] : u.loop_vars)
    e = substitute(e, *symbolNode(ir::ExprKind::LoopVar, var), ir::makeConst(value));
  return substitute(e, *symbolNode(ir::ExprKind::Instance, 0), ir::makeConst(u.instance));
}

// Every read of the trip count T outside loop bounds must be one the shift
// argument covers (proved with the bit-vector prover, the loop variables
// and lm.instance() it was evaluated with bound to their values, the
// symbolic loop variable v and T free):
//   before the loop (prefix, roles without the loop): the same value for
//     every T >= t1;
//   in a steady iteration (v < T + c): the same value for every T, and the
//     same change per period of v from w0 on;
//   in a tail iteration (T + c <= v < T + off) or after the loop: the same
//     change when v and T both move by a period, wherever v - T is, from
//     j0 on (`iter=k_tiles - 1` does; `min(k_tiles, 30)` does not).
void checkTripUses(const ir::Schedule& s, const TripLoops& tl, const Window& w,
                   const std::vector<System::ReplacedUse>& uses, const Limits& limits) {
  if (uses.empty()) return;
  using K = ir::ExprKind;
  auto op = [](K k, ir::ExprPtr a, ir::ExprPtr b) { return ir::makeExpr(k, {std::move(a), std::move(b)}); };
  auto num = [](int64_t v) { return ir::makeConst(v); };
  FactProver prover(s, limits, tl.facts);
  const ir::ExprPtr t = symbolNode(K::LoopVar, kFreshSymbol), t2 = symbolNode(K::LoopVar, kFreshSymbol + 1);
  const int64_t P = w.P;
  for (const System::ReplacedUse& u : uses) {
    ir::ExprPtr e = boundUse(u);
    const ProcShape& sh = w.shape[u.process];
    const ir::ExprPtr v = symbolNode(K::LoopVar, sh.var);
    auto at = [&](const ir::ExprPtr& V, const ir::ExprPtr& T) {
      return substitute(sh.loops ? substitute(e, *v, V) : e, *tl.trip, T);
    };
    auto plusP = [&](const ir::ExprPtr& x) { return op(K::Add, x, num(P)); };
    // moving v and T by a period changes e the same wherever v - T is
    auto repeats = [&](int64_t from, std::vector<ir::ExprPtr> premises) {
      auto D = [&](const ir::ExprPtr& V, const ir::ExprPtr& T) { return op(K::Sub, at(plusP(V), plusP(T)), at(V, T)); };
      ir::ExprPtr v_ref = op(K::Add, op(K::Sub, v, t), num(from));  // the same place relative to T = from
      premises.push_back(op(K::Ge, t, num(from)));
      return prover.prove(op(K::Eq, D(v, t), D(v_ref, num(from))), premises).kind;
    };
    BvVerdict r = BvVerdict::Holds;
    std::string where;
    if (u.region == System::ReplacedUse::Prefix || !sh.loops) {
      where = "before the loop";
      r = prover.prove(op(K::Eq, at(v, t), at(v, num(w.t1))), {op(K::Ge, t, num(w.t1))}).kind;
    } else if (u.region == System::ReplacedUse::Exit) {
      where = "after the loop";
      r = repeats(w.j0, {});
    } else {
      const int64_t c = sh.off, full = tl.off.at(sh.var);
      auto steady = [&](const ir::ExprPtr& V, const ir::ExprPtr& T) { return op(K::Lt, V, op(K::Add, T, num(c))); };
      where = "in a steady iteration";
      r = prover
              .prove(op(K::Eq, at(v, t), at(v, t2)), {op(K::Ge, v, num(sh.lo)), op(K::Ge, t, num(w.t1)),
                                                      op(K::Ge, t2, num(w.t1)), steady(v, t), steady(v, t2)})
              .kind;
      if (r == BvVerdict::Holds) {
        auto step = [&](const ir::ExprPtr& V) { return op(K::Sub, at(plusP(V), t), at(V, t)); };
        r = prover.prove(op(K::Eq, step(v), step(num(w.w0))), {op(K::Ge, v, num(w.w0)), steady(plusP(v), t)}).kind;
      }
      if (r == BvVerdict::Holds && c < full) {
        where = "in a tail iteration";
        r = repeats(w.j0, {op(K::Le, op(K::Add, t, num(c)), v), op(K::Lt, v, op(K::Add, t, num(full)))});
      }
    }
    if (r != BvVerdict::Holds)
      throw Fail(fmt::format("{} reads {} {} in a way that does not stay put or repeat with the period of {} ({})",
                             ir::exprToString(*u.expr, s), ir::exprToString(*tl.trip, s), where, P,
                             bvVerdictName(r)));
  }
}

// The end of the common part of process p in the system for trip count T.
int cutOf(const ProcShape& sh, int64_t T) { return sh.headOf(sh.lastHead(T)); }

// Where the system for T first differs from the window's, per process: a
// looping process parts in some iteration u (its steady iterations end
// there: from u's head on, tail iterations and exit path are the system's
// own), a process without the loop must not part at all.
// Returns u per process (-1 for processes without the loop), or nullopt.
std::optional<std::vector<int64_t>> partingHeads(const Window& w, const System& sys) {
  std::vector<int64_t> heads;
  for (size_t p = 0; p < sys.procs.size(); ++p) {
    const auto& mine = sys.procs[p].program;
    const auto& base = w.base.procs[p].program;
    const ProcShape& sh = w.shape[p];
    size_t d = 0;
    const size_t n = std::min(mine.size(), base.size());
    while (d < n && sameInstr(mine[d], base[d])) ++d;
    if (!sh.loops) {
      if (d != mine.size() || mine.size() != base.size()) return std::nullopt;
      heads.push_back(-1);
      continue;
    }
    // the iteration the first difference falls in: the system's own
    // instructions start at its head (those before d are the same anyway)
    if (d < static_cast<size_t>(sh.headOf(sh.lo)) || d >= static_cast<size_t>(sh.loopEnd())) return std::nullopt;
    heads.push_back(sh.iter_of[d]);
  }
  return heads;
}

// t1 and every looping process's steady offset c (its steady iterations
// are v < T + c): from t1 to W every system parts from the window at
// head(max(T + c, lo)).
void findSteadyOffsets(Window& w) {
  const int64_t W = w.W;
  std::vector<std::optional<int64_t>> c(w.shape.size());
  w.t1 = W + 1;
  for (int64_t T = W - 1; T >= w.t0; --T) {
    auto heads = partingHeads(w, w.by_trip[T - w.t0]);
    if (!heads) break;
    bool ok = true;
    for (size_t p = 0; p < w.shape.size() && ok; ++p) {
      const ProcShape& sh = w.shape[p];
      if (!sh.loops) continue;
      const int64_t u = (*heads)[p];
      if (u > sh.lo) {
        if (!c[p]) c[p] = u - T;
        ok = *c[p] == u - T;
      } else {
        ok = c[p] && T + *c[p] <= sh.lo;  // no steady iteration: the offset must say so too
      }
    }
    if (!ok) break;
    w.t1 = T;
  }
  if (w.t1 > W - 2) throw WindowTooSmall{};
  for (size_t p = 0; p < w.shape.size(); ++p) {
    ProcShape& sh = w.shape[p];
    if (!sh.loops) continue;
    if (!c[p] || *c[p] > sh.off) throw Fail("internal: a loop parts from the window after its end");
    sh.off = *c[p];
    sh.end = W + sh.off;
    if (sh.end <= sh.lo + 1) throw WindowTooSmall{};
  }
}

// Instructions [headOf(v), headOf(v + 1)) of process p: iteration v.
bool bodyShifted(const Window& w, size_t p, int64_t v, int64_t P, Deltas& d) {
  const ProcShape& sh = w.shape[p];
  const auto& prog = w.base.procs[p].program;
  return shiftedRange(prog, sh.headOf(v), sh.headOf(v + 1), prog, sh.headOf(v + P), sh.headOf(v + P + 1), d);
}

// The smallest period P (with the deltas it implies) such that iteration
// v + P is iteration v shifted for every v >= w0 in the window, leaving
// room to shift. False: none in this window.
bool findPeriod(Window& w, int max_period) {
  for (int64_t P = 1; P <= max_period; ++P) {
    Deltas d;
    int64_t w0 = INT64_MIN, end = INT64_MAX;
    bool ok = true;
    for (size_t p = 0; p < w.shape.size() && ok; ++p) {
      const ProcShape& sh = w.shape[p];
      if (!sh.loops) continue;
      int64_t top = sh.end - 1 - P, v = top;
      while (v >= sh.lo && bodyShifted(w, p, v, P, d)) --v;
      if (v == top) ok = false;
      w0 = std::max(w0, v + 1);
      end = std::min(end, sh.end);
    }
    if (!ok || w0 == INT64_MIN || w0 + 2 * P + 2 > end) continue;
    w.P = P;
    w.w0 = w0;
    w.d = std::move(d);
    return true;
  }
  return false;
}

// data.stale-read compares laps (sim::staleData) between the stage-like
// and iteration-like accesses of a view and between views over the same
// bytes. Shifting a state moves every data tag and every read one period
// back, which leaves those comparisons alone only if all of them move by
// the same number of laps per period.
void checkLapDeltas(const Window& w) {
  const ir::Schedule& s = *w.base.schedule;
  struct Span { int space = -1; int64_t lo = INT64_MAX, hi = INT64_MIN; };
  std::map<int, Span> spans;  // view -> bytes its accesses touch
  for (const Process& p : w.base.procs)
    for (const Instr& in : p.program)
      for (const Access& a : in.accesses) {
        if (a.view < 0) continue;
        Span& sp = spans[a.view];
        sp.space = a.space;
        sp.lo = std::min(sp.lo, a.lo);
        sp.hi = std::max(sp.hi, a.hi);
      }
  std::map<int, int64_t> lap;  // view -> laps per period
  for (const auto& [view, sp] : spans) {
    const int64_t stages = s.views[view].stages;
    const int64_t di = Deltas::of(w.d.view_index, view);
    if (di % stages != 0)
      throw Fail(fmt::format("{}'s indices move by {} per period, not a whole number of laps", s.views[view].name, di));
    lap[view] = di / stages;
    if (w.d.view_gen_stage.count(view) && w.d.view_index.count(view) && w.d.view_gen_stage.at(view) != di / stages)
      throw Fail(fmt::format("{}'s stage-named and iteration-named accesses move by different laps per period",
                             s.views[view].name));
    if (w.d.view_gen_stage.count(view)) lap[view] = w.d.view_gen_stage.at(view);
  }
  for (const auto& [a, sa] : spans)
    for (const auto& [b, sb] : spans)
      if (a < b && sa.space == sb.space && sa.lo < sb.hi && sb.lo < sa.hi && lap[a] != lap[b])
        throw Fail(fmt::format("{} and {} share bytes but move by different laps per period", s.views[a].name,
                               s.views[b].name));
}

std::pair<int, int> suffixOf(const Window& w, size_t p, int64_t T) {
  const auto& prog = w.by_trip[static_cast<size_t>(T - w.t0)].procs[p].program;
  return {cutOf(w.shape[p], T), static_cast<int>(prog.size())};
}

// j0: from there on the exit path for T is the one for T - P, shifted.
void findSuffixPeriod(Window& w) {
  w.j0 = w.W + 1;
  for (int64_t T = w.W; T - w.P >= w.t1; --T) {
    bool ok = true;
    for (size_t p = 0; p < w.shape.size() && ok; ++p) {
      if (!w.shape[p].loops) continue;
      auto [a0, a1] = suffixOf(w, p, T - w.P);
      auto [b0, b1] = suffixOf(w, p, T);
      ok = shiftedRange(w.by_trip[T - w.P - w.t0].procs[p].program, a0, a1, w.by_trip[T - w.t0].procs[p].program, b0,
                        b1, w.d);
    }
    if (!ok) break;
    w.j0 = T;
  }
}

// Named-barrier generations and MMA commits per period (steady state).
void periodCounts(Window& w) {
  std::map<int, int64_t> warps;
  w.commit_delta.assign(w.base.procs.size(), 0);
  for (size_t p = 0; p < w.shape.size(); ++p) {
    const ProcShape& sh = w.shape[p];
    if (!sh.loops) continue;
    for (int pc = sh.headOf(w.w0); pc < sh.headOf(w.w0 + w.P); ++pc) {
      const Instr& in = w.base.procs[p].program[pc];
      if (in.kind == InstrKind::SyncArrive || in.kind == InstrKind::BarArrive) warps[in.named] += w.base.procs[p].warps;
      if (in.kind == InstrKind::MmaCommit) ++w.commit_delta[p];
    }
  }
  for (const auto& [n, k] : warps) {
    int64_t expected = w.base.named[n].expected_warps;
    if (expected <= 0 || k % expected != 0)
      throw Fail(fmt::format("{} does not complete a whole number of generations per period", w.base.named[n].name));
    w.named_delta[n] = k / expected;
  }
}

// Does one period leave this instruction's meaning alone (its slot's
// phases, its named barrier's generations, its views' data tags)?
bool unmoved(const Window& w, const Instr& in) {
  if (in.slot >= 0 && Deltas::of(w.d.slot_phase, in.slot) != 0) return false;
  if (in.named >= 0 && Deltas::of(w.named_delta, in.named) != 0) return false;
  return std::none_of(in.accesses.begin(), in.accesses.end(),
                      [&](const Access& a) { return a.view >= 0 && w.d.viewMoves(a.view); });
}

// The combined program: per looping process, the window's prefix and
// iterations, then one exit path per trip count t1..W, each ending in its
// own done pc (program size + T - t1) so that every pc has one predecessor.
void layOut(Window& w) {
  const int64_t ends = w.W - w.t1 + 1;
  w.comb = w.base;
  const size_t P = w.base.procs.size();
  w.flow.next.assign(P, {});
  w.flow.prev.assign(P, {});
  w.exit_to.assign(P, {});
  w.shift_pc.assign(P, {});
  for (size_t p = 0; p < P; ++p) {
    const ProcShape& sh = w.shape[p];
    auto& prog = w.comb.procs[p].program;
    auto& next = w.flow.next[p];
    auto& prev = w.flow.prev[p];
    auto& shift = w.shift_pc[p];
    if (!sh.loops) {
      // A process without the loop stays where it is when a shift moves the
      // others, provided nothing it still does moves with the period
      // (e.g. an epilogue role waiting for the accumulator's barrier).
      const int n = static_cast<int>(prog.size());
      for (int i = 0; i < n; ++i) next.push_back(i + 1);
      for (int i = 0; i <= n; ++i) prev.push_back(i - 1);
      shift.assign(static_cast<size_t>(n) + 1, -1);
      shift[n] = n;  // done stays done
      for (int i = n - 1; i >= 0 && unmoved(w, prog[i]); --i) shift[i] = i;
      continue;
    }
    const int loop_end = sh.loopEnd();
    prog.resize(static_cast<size_t>(loop_end));
    std::map<int64_t, std::pair<int, int>> suffix;
    for (int64_t T = w.t1; T <= w.W; ++T) {
      auto [a, b] = suffixOf(w, p, T);
      const auto& src = w.by_trip[T - w.t0].procs[p].program;
      int start = static_cast<int>(prog.size());
      prog.insert(prog.end(), src.begin() + a, src.begin() + b);
      suffix[T] = {start, static_cast<int>(prog.size())};
    }
    const int n = static_cast<int>(prog.size());
    next.assign(static_cast<size_t>(n), -1);
    prev.assign(static_cast<size_t>(n + ends), -1);
    shift.assign(static_cast<size_t>(n + ends), -1);
    for (int i = 0; i < loop_end; ++i) {
      next[i] = i + 1;
      prev[i] = i - 1;
    }
    for (const auto& [T, range] : suffix) {
      auto [a, b] = range;
      const int done = n + static_cast<int>(T - w.t1);
      const int before = cutOf(sh, T) - 1;
      for (int i = a; i < b; ++i) {
        next[i] = i + 1 < b ? i + 1 : done;
        prev[i] = i == a ? before : i - 1;
      }
      prev[done] = b > a ? b - 1 : before;
      w.exit_to[p][T] = b > a ? a : done;
    }
    for (int i = sh.headOf(w.w0 + w.P); i < loop_end; ++i) {
      int64_t v = sh.iter_of[i];
      shift[i] = sh.headOf(v - w.P) + (i - sh.headOf(v));
    }
    for (int64_t T = std::max(w.j0, w.t1 + w.P); T <= w.W; ++T) {
      auto [a, b] = suffix[T];
      auto [a2, b2] = suffix[T - w.P];
      for (int i = a; i < b; ++i) shift[i] = a2 + (i - a);
      shift[n + (T - w.t1)] = n + static_cast<int>(T - w.P - w.t1);
    }
  }
}

// ================================================================ exploration

class LapExplorer {
 public:
  LapExplorer(const Window& w, const TripProofOptions& opts, std::chrono::steady_clock::time_point start)
      : w_(w), m_(w.comb, &w.flow), opts_(opts), start_(start) {
    for (int p = 0; p < m_.P; ++p) {
      const ProcShape& sh = w_.shape[p];
      layout_.is_head.emplace_back(static_cast<size_t>(m_.programSize(p)), 0);
      layout_.exits_begin.push_back(sh.loops ? sh.loopEnd() : m_.programSize(p));
      if (sh.loops)
        for (int64_t v = sh.lo; v < sh.end; ++v) layout_.is_head[p][sh.headOf(v)] = 1;
    }
    if (opts_.reduce) reducer_.emplace(m_, &layout_);
  }

  // Proved or throws Fail / WindowTooSmall.
  uint64_t run() {
    State init = sim::initialState(m_);
    g_.insert(pack(init, static_cast<int32_t>(w_.t1), -1), -1, {});
    uint64_t per_state = init.v.size() * 4 + 64 + 48;
    uint64_t max_states = std::min<uint64_t>(opts_.max_states, uint64_t{opts_.memory_mb} * 1024 * 1024 / per_state);
    for (size_t n = 0; n < g_.size(); ++n) {
      if (n % 256 == 0) {
        double ms = msSince(start_);
        if (g_.size() > max_states || ms > opts_.timeout_ms)
          throw Fail(fmt::format("budget exceeded after {} states ({:.1f} s)", g_.size(), ms / 1000));
      }
      expand(static_cast<int>(n));
    }
    return g_.size();
  }

 private:
  const Window& w_;
  Model m_;
  const TripProofOptions& opts_;
  std::chrono::steady_clock::time_point start_;
  sim::Graph g_;
  sim::ExitLayout layout_;
  std::optional<sim::Reducer> reducer_;

  static State pack(State s, int32_t L, int32_t T) {
    s.v.push_back(L);
    s.v.push_back(T);
    return s;
  }

  // The iteration whose head process p is at, or nullopt.
  std::optional<int64_t> headAt(int p, int pc) const {
    const ProcShape& sh = w_.shape[p];
    if (!sh.loops || pc >= sh.loopEnd() || sh.iter_of[pc] < 0) return std::nullopt;
    int64_t v = sh.iter_of[pc];
    if (sh.headOf(v) != pc) return std::nullopt;
    return v;
  }

  // `L`: the least trip count the state allows while T is open. A
  // violation the simulator's rules report is `met` (a concrete one for the
  // caller to confirm); the proof's own stand-ins are not.
  [[noreturn]] void failWith(const Violation& v, int32_t T, int32_t L, bool met = true) const {
    std::string where = v.primary.proc >= 0 && v.primary.pc >= 0 && v.primary.pc < m_.programSize(v.primary.proc)
                            ? " at " + opText(*w_.comb.schedule, *m_.instr(v.primary.proc, v.primary.pc).stmt)
                            : "";
    std::string what = fmt::format("the exploration over every trip count meets {}{}{}: {}", v.rule, where,
                                   T >= 0 ? "" : " (trip count still open)", v.message);
    if (met) throw Met(what, v, T >= 0 ? T : std::max<int64_t>(L, w_.t1), T < 0);
    throw Fail(what);
  }

  void expand(int node) {
    State s = g_.state(node);
    const int32_t T = s.v.back();
    s.v.pop_back();
    const int32_t L = s.v.back();
    s.v.pop_back();
    Async a = sim::decodeAsync(m_, s);
    for (int p = 0; p < m_.P; ++p) {
      const ProcShape& sh = w_.shape[p];
      int pc = sim::pcOf(m_, s, p);
      if (sh.loops && pc < sh.loopEnd() && sh.iter_of[pc] >= sh.end - 1) throw WindowTooSmall{};
    }
    std::vector<Step> steps;
    std::vector<std::pair<int, int64_t>> exits;  // (process, trip count it fixes)
    for (const Step& st : sim::enabledSteps(m_, s, a)) {
      if (st.kind == Step::Kind::Exec) {
        auto v = headAt(st.proc, st.pc);
        if (v && T >= 0 && T + w_.shape[st.proc].off <= *v) continue;  // the loop is over for this T
      }
      steps.push_back(st);
    }
    for (int p = 0; p < m_.P; ++p) {
      auto v = headAt(p, sim::pcOf(m_, s, p));
      if (!v) continue;
      // the loop runs while v < T + off
      const int64_t lo = w_.shape[p].lo, off = w_.shape[p].off;
      if (T >= 0) {
        if (T + off > *v) continue;
        if (*v != w_.shape[p].lastHead(T)) throw Fail("internal: a process passed the end of its loop");
        exits.push_back({p, T});
      } else if (*v > lo) {
        if (*v - off >= L) exits.push_back({p, *v - off});  // it ran iteration v - 1: T = v - off exactly
      } else {
        for (int64_t t = L; t <= lo - off; ++t) exits.push_back({p, t});
      }
    }
    std::vector<Violation> here;
    std::vector<Step> live = steps;
    if (!exits.empty()) live.push_back({});
    sim::stateViolations(m_, s, a, live, {}, here);
    if (!here.empty()) failWith(here.front(), T, L);
    if (T < 0 && !exits.empty()) {
      // The exits are steps only for the trip counts they fix. For every
      // larger one, each process at a loop head must enter its iteration:
      // no step but `steps` is enabled then, and if none is, the state is
      // a deadlock for that trip count (a hang from the second tile on:
      // corpus/bugs/sync.arrival-underflow/single_slot_first_release_skipped.cake).
      sim::stateViolations(m_, s, a, steps, {}, here);
      if (!here.empty()) {
        int64_t beyond = L;
        for (const auto& e : exits) beyond = std::max(beyond, e.second + 1);
        failWith(here.front(), -1, static_cast<int32_t>(beyond));
      }
    }
    // A finished run: its async work was checked above (async-at-exit).
    // Phases left incomplete (a courtesy release nobody waits for) are
    // no violation of the runs: the bounded check reports them as the
    // warning sync.phase-annotation-mismatch at most.
    if (sim::allFinished(m_, s)) return;

    // Each returns the successor's node.
    auto follow = [&](const Step& st) {
      State next = s;
      here.clear();
      sim::applyStep(m_, next, a, st, here, nullptr);
      if (!here.empty()) failWith(here.front(), T, L);
      int32_t L2 = L;
      if (st.kind == Step::Kind::Exec && T < 0)
        if (auto v = headAt(st.proc, st.pc))  // iteration v runs: T + off > v
          L2 = std::max<int32_t>(L, static_cast<int32_t>(*v - w_.shape[st.proc].off + 1));
      return add(std::move(next), T < 0 ? L2 : -1, T, node, st);
    };
    auto leave = [&](int p, int64_t t) {
      State next = s;
      next.v[m_.off_pc + p] = w_.exit_to[p].at(t);
      return add(std::move(next), -1, static_cast<int32_t>(t), node, Step{Step::Kind::Exec, p, -1});
    };

    // A persistent subset first (sim_por.h). Every cycle of the explored
    // graph needs a fully expanded state: a subset that leads to a state
    // already expanded (or to this one) is completed (the cycle proviso; in
    // a cycle, the state expanded last has such a successor).
    std::vector<char> done_step(steps.size(), 0), done_exit(exits.size(), 0);
    bool reduced = false, all_new = true;
    auto fresh = [&](int id) { return id > node; };
    if (reducer_) {
      std::vector<char> leaving(static_cast<size_t>(m_.P), 0);
      for (const auto& e : exits) leaving[e.first] = 1;
      if (auto subset = reducer_->reduceWithExits(s, a, steps, leaving)) {
        reduced = true;
        for (const Step& st : *subset) {
          for (size_t i = 0; i < steps.size(); ++i)
            if (!done_step[i] && st.pc >= 0 && steps[i] == st) { done_step[i] = 1; all_new &= fresh(follow(steps[i])); }
          for (size_t i = 0; i < exits.size(); ++i)
            if (!done_exit[i] && st.pc < 0 && exits[i].first == st.proc) {
              done_exit[i] = 1;
              all_new &= fresh(leave(exits[i].first, exits[i].second));
            }
        }
      }
    }
    if (reduced && all_new) return;
    for (size_t i = 0; i < steps.size(); ++i)
      if (!done_step[i]) follow(steps[i]);
    for (size_t i = 0; i < exits.size(); ++i)
      if (!done_exit[i]) leave(exits[i].first, exits[i].second);
  }

  // Inserts the normalized state; returns its node.
  int add(State s, int32_t L, int32_t T, int parent, const Step& st) {
    leaveEagerly(s, T);
    while (shift(s, L, T)) {
    }
    return g_.insert(pack(std::move(s), L, T), parent, st).first;
  }

  // With the trip count fixed, a process at the head of the iteration
  // where its loop ends has nothing left in the loop: it is on its exit
  // path already (the step that takes it there changes nothing else).
  // Taking it at once keeps the head's instruction, which never runs for
  // this trip count, out of the state's rules (a wait there is no lost
  // phase: corpus/basics/single_slot_courtesy_release.cake).
  void leaveEagerly(State& s, int32_t T) const {
    if (T < 0) return;
    for (int p = 0; p < m_.P; ++p) {
      auto v = headAt(p, sim::pcOf(m_, s, p));
      if (!v || T + w_.shape[p].off > *v) continue;
      auto to = w_.exit_to[p].find(T);
      if (to == w_.exit_to[p].end()) throw Fail("internal: a trip count without an exit path");
      s.v[m_.off_pc + p] = to->second;
    }
  }

  // Moves s one period back if every part of it can move; see trip_proof.h.
  bool shift(State& s, int32_t& L, int32_t& T) const {
    const int64_t P = w_.P;
    const int64_t open = T >= 0 ? T : L;
    if (open < w_.j0 || open - P < w_.t1) return false;
    State n = s;
    for (int p = 0; p < m_.P; ++p) {
      int pc = sim::pcOf(m_, s, p);
      int to = w_.shift_pc[p][pc];
      if (to < 0) return false;
      n.v[m_.off_pc + p] = to;
      if (pc < m_.programSize(p) && m_.instr(p, pc).kind == InstrKind::SyncWait)
        n.v[m_.off_sgen + p] -= static_cast<int32_t>(Deltas::of(w_.named_delta, m_.instr(p, pc).named));
      int32_t obs = s.v[m_.off_obs + p];
      if (obs >= 0) {
        obs -= static_cast<int32_t>(w_.commit_delta[p]);
        if (obs < -1) return false;
        n.v[m_.off_obs + p] = obs;
      }
    }
    for (int k = 0; k < m_.S; ++k)
      n.v[m_.off_slot + sim::kSlotFields * k + sim::kCompleted] -= static_cast<int32_t>(Deltas::of(w_.d.slot_phase, k));
    for (int k = 0; k < m_.N; ++k) n.v[m_.off_named + 2 * k] -= static_cast<int32_t>(Deltas::of(w_.named_delta, k));
    for (int t = 0; t < m_.tracked; ++t) {
      int32_t& id = n.v[sim::atomField(m_, t, sim::kData)];
      if (id < 0) continue;
      const Model::WriteRef& wr = m_.writes[id];
      int to = w_.shift_pc[wr.proc][wr.pc];
      if (to >= 0) {
        id = m_.write_id[wr.proc][to][wr.acc];
        if (id < 0) return false;
      } else if (w_.d.viewMoves(m_.access(wr.proc, wr.pc, wr.acc).view)) {
        return false;
      }
    }
    Async a = sim::decodeAsync(m_, s);
    auto movePc = [&](int p, int32_t& pc) {
      if (pc < 0) return true;
      pc = w_.shift_pc[p][pc];
      return pc >= 0;
    };
    for (sim::Load& l : a.loads) {
      l.phase -= static_cast<int32_t>(Deltas::of(w_.d.slot_phase, m_.instr(l.proc, l.pc).slot));
      if (!movePc(l.proc, l.pc)) return false;
    }
    for (int p = 0; p < m_.P; ++p)
      for (int k = 0; k < sim::kGroupKinds; ++k)
        for (sim::Group& g : a.of(p, k)) {
          if (!movePc(p, g.commit_pc)) return false;
          for (int32_t& pc : g.pcs)
            if (!movePc(p, pc)) return false;
        }
    for (sim::Unobserved& u : a.unobserved) {
      u.phase -= static_cast<int32_t>(Deltas::of(w_.d.slot_phase, u.slot));
      if (u.proc >= 0) {
        u.seq -= static_cast<int32_t>(w_.commit_delta[u.proc]);
        if (u.seq < 0) return false;
      }
    }
    sim::encodeAsync(m_, n, a);
    s = std::move(n);
    if (T >= 0) T = static_cast<int32_t>(T - P);
    else L = static_cast<int32_t>(L - P);
    return true;
  }
};

// ================================================================ driver

// A lower bound of e over every value of its symbols (Python integers, so
// no overflow), by intervals; nullopt when this reasoning finds none.
// `param` gives a parameter's lower bound under the lm.assume facts.
std::optional<int64_t> lowerBound(const ir::Expr& e, const std::function<std::optional<int64_t>(int)>& param) {
  using K = ir::ExprKind;
  constexpr int64_t kBig = int64_t{1} << 31;  // keeps the arithmetic below exact
  auto arg = [&](size_t i) { return i < e.args.size() && e.args[i] ? lowerBound(*e.args[i], param) : std::nullopt; };
  auto fits = [&](std::optional<int64_t> v) { return v && *v > -kBig && *v < kBig ? v : std::nullopt; };
  switch (e.kind) {
    case K::Const: return fits(e.value);
    case K::Param: return fits(param(e.index));
    case K::BlockIdx: case K::Instance: return 0;
    case K::GridDim: return 1;
    case K::Add: {
      auto a = arg(0), b = arg(1);
      return a && b ? fits(*a + *b) : std::nullopt;
    }
    case K::Sub: {
      auto a = arg(0);
      auto c = e.args.size() == 2 ? ir::constValue(e.args[1]) : std::nullopt;
      return a && c ? fits(*a - *c) : std::nullopt;
    }
    case K::Mul: {
      auto a = arg(0), b = arg(1);
      return a && b && *a >= 0 && *b >= 0 ? fits(*a * *b) : std::nullopt;
    }
    case K::Max: {  // at least every argument
      std::optional<int64_t> best;
      for (size_t i = 0; i < e.args.size(); ++i)
        if (auto v = arg(i)) best = best ? std::max(*best, *v) : *v;
      return best;
    }
    case K::Min: {
      std::optional<int64_t> least;
      for (size_t i = 0; i < e.args.size(); ++i) {
        auto v = arg(i);
        if (!v) return std::nullopt;
        least = least ? std::min(*least, *v) : *v;
      }
      return least;
    }
    case K::CDiv: case K::FloorDiv: case K::Mod: {  // a >= 0 over b >= 1
      auto a = arg(0), b = arg(1);
      if (!a || !b || *a < 0 || *b < 1) return std::nullopt;
      return e.kind == K::CDiv && *a >= 1 ? 1 : 0;  // lm.cdiv(a, b) >= 1 for a, b >= 1
    }
    default: return std::nullopt;
  }
}

// Does every read of the trip count in `sys` (built for T = low) give the
// same value for every T <= low as for low (proved; the other symbols free)?
bool readsStayBelow(const TripLoops& tl, const System& sys, int64_t low, FactProver& prover) {
  using K = ir::ExprKind;
  // T = a * 2^31 + b with a, b 32-bit symbols: every T down to -2^62 (one
  // symbol alone stops at -2^31, which a count such as `n - 8 * block_idx`
  // passes; the builder's own 64-bit arithmetic ends near -2^63)
  const ir::ExprPtr t = ir::makeExpr(
      K::Add, {ir::makeExpr(K::Mul, {symbolNode(K::LoopVar, kFreshSymbol), ir::makeConst(int64_t{1} << 31)}),
               symbolNode(K::LoopVar, kFreshSymbol + 1)});
  for (const System::ReplacedUse& u : sys.replace_uses) {
    ir::ExprPtr e = boundUse(u);
    auto goal = ir::makeExpr(K::Eq, {substitute(e, *tl.trip, t), substitute(e, *tl.trip, ir::makeConst(low))});
    if (prover.prove(goal, {ir::makeExpr(K::Le, {t, ir::makeConst(low)})}).kind != BvVerdict::Holds) return false;
  }
  return true;
}

// The solver's limits for the proof's queries: `timeout_ms` of wall clock
// (what is left of the proof's budget), its memory cap and resource limit.
Limits solverLimits(const TripProofOptions& opts, unsigned timeout_ms) {
  Limits l;
  l.timeout_ms = timeout_ms;
  l.memory_mb = opts.memory_mb;
  l.rlimit = opts.rlimit;
  return l;
}

// The smallest trip count to prove from: the smallest one the checked
// values give, if the schedule's assumptions guarantee it (else 0, if they
// guarantee that). Else, when the trip expression is only a loop bound,
// the smallest loop start: every
// value at or below every symbolic loop's start (minus its bound's offset)
// builds the same system (no iteration runs) as that value.
int64_t lowestTrip(const ir::Schedule& s, const TripLoops& tl, const std::vector<Binding>& checked,
                   bool only_bounds, const Limits& limits, const std::function<System(int64_t)>& at_min_lo,
                   bool& below) {
  std::optional<int64_t> low;
  for (const Binding& b : checked) {
    ir::EvalEnv env;
    env.params = b.params;
    for (const auto& [p, value] : tl.fixed) env.params[p] = value;
    if (auto v = ir::evaluate(*tl.trip, env)) low = low ? std::min(*low, *v) : *v;
  }
  int64_t min_lo = INT64_MAX;  // at or below it, no symbolic loop runs an iteration
  for (const auto& [var, lo] : tl.lo) min_lo = std::min(min_lo, lo - tl.off.at(var));
  if (only_bounds && (!low || *low <= min_lo)) return min_lo;
  Limits each = limits;  // two queries at most share the budget
  each.timeout_ms = std::max(50u, limits.timeout_ms / 3);
  FactProver prover(s, each, tl.facts);
  // Interval reasoning first: `max(x, 0)` and `lm.cdiv` of non-negative
  // values by grid dimensions are non-linear for the solver (it timed out
  // on the split-K and persistent trip expressions) but plain here.
  std::map<int, std::optional<int64_t>> param_lb;
  auto paramLb = [&](int p) -> std::optional<int64_t> {
    auto [it, fresh] = param_lb.emplace(p, std::nullopt);
    if (fresh) {
      auto x = symbolNode(ir::ExprKind::Param, p);
      for (int64_t c : {int64_t{1}, int64_t{0}})
        if (prover.prove(ir::makeExpr(ir::ExprKind::Ge, {x, ir::makeConst(c)})).kind == BvVerdict::Holds) {
          it->second = c;
          break;
        }
    }
    return it->second;
  };
  const std::optional<int64_t> lb = lowerBound(*tl.trip, paramLb);
  for (int64_t t : {low.value_or(0), int64_t{0}}) {
    if (lb && *lb >= t) return t;
    auto goal = ir::makeExpr(ir::ExprKind::Ge, {tl.trip, ir::makeConst(t)});
    if (prover.prove(goal).kind == BvVerdict::Holds) return t;
  }
  if (only_bounds) return min_lo;
  // Read outside loop bounds too. Below min_lo no symbolic loop runs an
  // iteration, so the system for such a T is the one for min_lo if every
  // read of T outside the bounds gives the value it gives at min_lo (the
  // builder then evaluates the same expressions the same way).
  if (readsStayBelow(tl, at_min_lo(min_lo), min_lo, prover)) {
    below = true;
    return min_lo;
  }
  throw Fail(fmt::format("the schedule's assumptions do not keep {} from being negative, and its reads outside "
                         "the loop bounds are not the same for every value below {}",
                         ir::exprToString(*tl.trip, s), min_lo));
}

std::string attempt(const ir::Schedule& s, ir::Target target, const Binding& binding, const TripLoops& tl,
                    int64_t t0, int64_t W, const TripProofOptions& opts, std::chrono::steady_clock::time_point start,
                    uint64_t& states) {
  Window w;
  w.W = W;
  w.t0 = t0;
  w.base = buildAt(s, binding, target, tl, W);
  for (const Process& p : w.base.procs) w.shape.push_back(shapeOf(p, tl, W));
  if (std::none_of(w.shape.begin(), w.shape.end(), [](const ProcShape& sh) { return sh.loops; }))
    throw Fail("no role runs the symbolic loop");
  for (int64_t T = t0; T <= W; ++T) {
    // a body that grows with T (an inner loop bounded by the loop variable)
    // makes each system larger: the budget holds here too
    if (msSince(start) >= opts.timeout_ms)
      throw Fail(fmt::format("budget exceeded ({:.1f} s, building the system for trip count {} of window {})",
                             msSince(start) / 1000, T, W));
    w.by_trip.push_back(buildAt(s, binding, target, tl, T));
  }
  findSteadyOffsets(w);
  if (!findPeriod(w, opts.max_period)) throw WindowTooSmall{};
  findSuffixPeriod(w);
  if (w.j0 > W - w.P) throw WindowTooSmall{};
  checkLapDeltas(w);
  std::vector<const ir::Expr*> body_exprs;
  std::vector<System::ReplacedUse> uses;
  for (const System& sys : w.by_trip) {
    for (const System::ReplacedUse& u : sys.replace_uses)
      if (std::find(uses.begin(), uses.end(), u) == uses.end()) uses.push_back(u);
    for (const ir::Expr* e : sys.replace_loop_exprs)
      if (std::find(body_exprs.begin(), body_exprs.end(), e) == body_exprs.end()) body_exprs.push_back(e);
  }
  // the solver's queries share the proof's time budget
  const double used_ms = msSince(start);
  if (used_ms >= opts.timeout_ms) throw Fail(fmt::format("budget exceeded ({:.1f} s)", used_ms / 1000));
  const Limits limits = solverLimits(opts, static_cast<unsigned>(std::max(50.0, opts.timeout_ms - used_ms)));
  checkBodyExprs(s, tl, body_exprs, w.P, w.w0, limits);
  checkTripUses(s, tl, w, uses, limits);
  if (msSince(start) >= opts.timeout_ms)
    throw Fail("budget exceeded in the bit-vector proofs");
  periodCounts(w);
  layOut(w);
  // The trip counts before the steady body, one by one.
  for (int64_t T = t0; T < w.t1; ++T) {
    ExploreOptions eo;
    double ms = msSince(start);
    eo.timeout_ms = static_cast<unsigned>(std::max(1.0, opts.timeout_ms - ms));
    eo.memory_mb = opts.memory_mb;
    eo.stop_at_first = true;
    ModelCheckResult r = explore(w.by_trip[T - t0], eo);
    if (r.outcome == Outcome::Violation)
      throw Met(fmt::format("trip count {} meets {}", T, r.violations.front().rule), r.violations.front(), T);
    if (r.outcome != Outcome::Pass) throw Fail(fmt::format("trip count {}: {}", T, r.detail));
    states += r.states;
  }
  states += LapExplorer(w, opts, start).run();
  std::string small = w.t1 > t0 ? fmt::format(", trip counts {}..{} one by one", t0, w.t1 - 1) : "";
  return fmt::format("lap induction: every {} >= {} (period {}, warm-up {}, window {}{})", ir::exprToString(*tl.trip, s),
                     t0, w.P, w.w0, W, small);
}

// Lap induction with tl.fixed set (a value per parameter read besides the
// trip expression): the argument in one line, or throws.
std::string proveFixed(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                       const TripLoops& tl, const TripProofOptions& opts,
                       std::chrono::steady_clock::time_point start, uint64_t& states) {
  const bool only_bounds = buildAt(s, checked.front(), target, tl, opts.first_window).replace_uses.empty();
  const Limits limits = solverLimits(opts, opts.timeout_ms);
  bool below = false;  // values below t0 build t0's system (proved)
  int64_t t0 = lowestTrip(s, tl, checked, only_bounds, limits,
                          [&](int64_t T) { return buildAt(s, checked.front(), target, tl, T); }, below);
  int64_t max_lo = 0;
  for (const auto& [var, lo] : tl.lo) max_lo = std::max(max_lo, lo);
  // The window must see every iteration-indexed view index reach its
  // stage count (the builder treats an index that never does as a stage).
  int64_t max_stages = 1;
  for (const ir::View& v : s.views) max_stages = std::max<int64_t>(max_stages, v.stages);
  for (const ir::Pipeline& p : s.pipelines) max_stages = std::max<int64_t>(max_stages, p.stages);
  for (const ir::Barrier& b : s.barriers) max_stages = std::max<int64_t>(max_stages, b.count);
  for (int64_t W = std::max<int64_t>({opts.first_window, t0 + max_lo + 8, 2 * max_stages + 8});; W *= 2) {
    if (W > opts.max_window) throw Fail(fmt::format("no steady period within {} unrolled iterations", opts.max_window));
    const double ms = msSince(start);
    if (ms >= opts.timeout_ms) throw Fail(fmt::format("budget exceeded ({:.1f} s, window {})", ms / 1000, W));
    try {
      return attempt(s, target, checked.front(), tl, t0, W, opts, start, states) +
             (below ? fmt::format("; every value below {} reads as {} does", t0, t0) : "");
    } catch (const WindowTooSmall&) {
      continue;
    }
  }
}

// The parameters the system reads besides the trip expression (tile sizes
// that set byte counts and offsets, a guard's bound, ...).
std::set<int> paramsBesides(const ir::Schedule& s, Binding b, ir::Target target, const TripLoops& tl, int64_t T) {
  b.replace = tl.trip.get();
  b.replace_value = T;
  std::string err;
  auto sys = buildSystem(s, b, target, &err);
  if (!sys) throw Fail(fmt::format("the system for trip count {} cannot be built: {}", T, err));
  std::set<int> out;
  for (int p : sys->params_read)
    if (p >= 0) out.insert(p);  // builtins (negative) stay refused by buildAt
  return out;
}

ir::ExprPtr factOf(int param, int64_t value) {
  return ir::makeExpr(ir::ExprKind::Eq, {symbolNode(ir::ExprKind::Param, param), ir::makeConst(value)});
}

// Every assignment of the parameters `params` that the lm.assume facts
// allow, if there are at most `cap` (else Fail): each parameter's values
// found one by one as the least allowed value above the last, given the
// values already chosen for the others. Exact: the proof covers every
// allowed value by proving each.
std::vector<std::map<int, int64_t>> allowedAssignments(const ir::Schedule& s, const std::set<int>& params,
                                                       const Limits& limits, size_t cap) {
  BvProver prover(s, limits);
  std::vector<std::map<int, int64_t>> out = {{}};
  for (int p : params) {
    const ir::ExprPtr x = symbolNode(ir::ExprKind::Param, p);
    std::vector<std::map<int, int64_t>> next;
    for (const auto& chosen : out) {
      std::vector<ir::ExprPtr> facts;
      for (const auto& [q, v] : chosen) facts.push_back(factOf(q, v));
      std::optional<int64_t> last;
      const size_t found = next.size();  // this assignment's values are appended from here
      for (;;) {
        ir::ExprPtr cond = last ? ir::makeExpr(ir::ExprKind::Gt, {x, ir::makeConst(*last)}) : ir::makeConst(1);
        BvResult r = prover.smallestWitness(cond, {x}, facts);
        if (r.kind == BvVerdict::Holds) break;
        auto v = r.model.params.find(p);
        if (r.kind != BvVerdict::Fails || v == r.model.params.end())
          throw Fail(fmt::format("the values the lm.assume facts allow for {} cannot be listed ({})", s.params[p].name,
                                 r.kind == BvVerdict::Fails ? "no value in the model" : r.detail));
        last = v->second;
        auto with = chosen;
        with[p] = *last;
        next.push_back(std::move(with));
        if (next.size() > cap)
          throw Fail(fmt::format("the schedule reads {} besides the trip count, and the lm.assume facts allow more "
                                 "than {} values of it (such parameters are proved value by value)",
                                 s.params[p].name, cap));
      }
      // The list is complete whatever the optimizer did: p is one of them.
      ir::ExprPtr one_of = ir::makeConst(0);
      for (size_t i = found; i < next.size(); ++i)
        one_of = ir::makeExpr(ir::ExprKind::Or, {one_of, factOf(p, next[i].at(p))});
      if (prover.prove(one_of, facts).kind != BvVerdict::Holds)
        throw Fail(fmt::format("the values the lm.assume facts allow for {} cannot be listed", s.params[p].name));
    }
    out = std::move(next);
  }
  return out;
}

std::string assignmentText(const ir::Schedule& s, const std::vector<std::map<int, int64_t>>& all) {
  std::vector<std::string> names, values;
  for (const auto& [p, v] : all.front()) names.push_back(s.params[p].name);
  for (const auto& a : all) {
    std::vector<std::string> vs;
    for (const auto& [p, v] : a) vs.push_back(std::to_string(v));
    values.push_back(vs.size() == 1 ? vs.front() : "(" + fmt::format("{}", fmt::join(vs, ", ")) + ")");
  }
  std::string n = names.size() == 1 ? names.front() : "(" + fmt::format("{}", fmt::join(names, ", ")) + ")";
  return fmt::format("{} in {{{}}}", n, fmt::join(values, ","));
}

}  // namespace

ModelCheckResult proveEveryTripCount(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                                     const TripProofOptions& opts) {
  auto start = std::chrono::steady_clock::now();
  ModelCheckResult res;
  res.engine = "lap induction";
  res.outcome = Outcome::Unknown;
  TripLoops tl;
  std::vector<Binding> bindings = checked;  // with the fixed parameters' values of the current proof
  try {
    if (checked.empty()) throw Fail("no parameter values were checked");
    if (s.cluster_ops && s.clusterSize() > 1)
      throw Fail("lap induction does not model thread-block clusters yet (the cluster checks are bounded)");
    try {
      tl = findTrip(s);
    } catch (const Fail&) {
      // Loops bounded by different expressions: those whose parameters the
      // lm.assume facts allow few values of are proved value by value.
      const Limits limits = solverLimits(opts, opts.timeout_ms);
      std::set<int> finite, tried;
      BvProver bounds(s, limits);
      auto bounded = [&](int p) {  // one query rules out the unbounded (M > 0)
        auto x = symbolNode(ir::ExprKind::Param, p);
        auto within = ir::makeExpr(ir::ExprKind::And, {ir::makeExpr(ir::ExprKind::Le, {x, ir::makeConst(1 << 20)}),
                                                       ir::makeExpr(ir::ExprKind::Ge, {x, ir::makeConst(-(1 << 20))})});
        return bounds.prove(within).kind == BvVerdict::Holds;
      };
      std::vector<const ir::Stmt*> loops;
      for (const ir::RoleBody& body : s.bodies) collectLoops(body.body, loops);
      for (const ir::Stmt* st : loops)
        if (st->hi)
          for (int p : paramsOf(*st->hi)) {
            if (!tried.insert(p).second || !bounded(p)) continue;
            try {
              allowedAssignments(s, {p}, limits, opts.max_fixed_values);
              finite.insert(p);
            } catch (const Fail&) {
            }
          }
      if (finite.empty()) throw;
      tl = findTrip(s, finite);
    }
    // Parameters read besides the trip expression: one proof per value the
    // lm.assume facts allow (tile sizes: BK in {32, 64}), when they are few.
    const std::set<int> extra = paramsBesides(s, checked.front(), target, tl, opts.first_window);
    std::vector<std::map<int, int64_t>> assignments = {{}};
    if (!extra.empty()) {
      const Limits limits = solverLimits(opts, opts.timeout_ms);
      assignments = allowedAssignments(s, extra, limits, opts.max_fixed_values);
      if (assignments.empty()) throw Fail("the lm.assume facts allow no value of the parameters read besides the trip count");
    }
    uint64_t states = 0;
    std::string first;
    for (const auto& a : assignments) {
      tl.fixed = a;
      tl.facts.clear();
      for (const auto& [p, v] : a) tl.facts.push_back(factOf(p, v));
      bindings = checked;
      for (Binding& b : bindings)
        for (const auto& [p, v] : a) b.params[p] = v;
      std::string at;  // "L=5: " names the value a failure is for
      for (const auto& [p, v] : a) at += fmt::format("{}{}={}", at.empty() ? "" : ", ", s.params[p].name, v);
      if (!at.empty()) at += ": ";
      std::string engine;
      try {
        engine = proveFixed(s, target, bindings, tl, opts, start, states);
      } catch (const Met& m) {
        throw Met(at + m.what(), m.violation, m.trip, m.violation.trip_open);
      } catch (const Fail& f) {
        throw Fail(at + f.what());
      }
      if (first.empty()) first = std::move(engine);
    }
    res.engine = extra.empty() ? first
                               : fmt::format("for each {}: {}{}", assignmentText(s, assignments), first,
                                             assignments.size() > 1 ? " (shown for the first)" : "");
    res.states = states;
    res.outcome = Outcome::Proved;
  } catch (const Met& m) {
    // The trip expression is a node of the schedule: the pointer stays valid.
    res.outcome = Outcome::Violation;
    res.detail = m.what();
    Violation v = m.violation;  // trip_open as the Met says
    v.trace.clear();  // a trace of the system for trip count T, not of a binding
    v.binding = bindings.front();
    v.binding->replace = tl.trip.get();
    v.binding->replace_value = m.trip;
    res.violations.push_back(std::move(v));
  } catch (const Fail& f) {
    res.detail = f.what();
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return res;
}

}  // namespace cake::encoder
