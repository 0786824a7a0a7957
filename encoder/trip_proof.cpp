// Lap induction: the proof for every trip count (trip_proof.h says what it
// establishes and how; docs/z3.md gives the argument).
#include "encoder/trip_proof.h"
#include "encoder/trip_copy_readings.h"

#include "encoder/empty_loop_sizes.h"
#include "ir/expr_canon.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <utility>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <tuple>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "encoder/bv_prover.h"
#include "encoder/proof_budget.h"
#include "encoder/sim_graph.h"
#include "encoder/sim_model.h"
#include "encoder/sim_por.h"
#include "encoder/sim_symmetry.h"
#include "encoder/simulator.h"
#include "encoder/system_hook.h"
#include "encoder/cluster_exits.h"
#include "encoder/trip_cluster.h"
#include "encoder/trip_pace.h"
#include "encoder/trip_private.h"
#include "encoder/trip_restart.h"
#include "encoder/trip_ring_end.h"
#include "encoder/trip_restart_rotate.h"
#include "encoder/trip_step.h"
#include "encoder/trip_guards.h"
#include "ir/expr_build.h"
#include "ir/expr_fields.h"
#include "encoder/trip_sizes.h"
#include "encoder/trip_tail_cut.h"
#include "encoder/trip_tail_ops.h"
#include "encoder/trip_widen.h"
#include "encoder/value_equality.h"
#include "ir/int_eval.h"

namespace cake::encoder {

namespace {

using sim::Async;
using sim::Model;
using sim::State;
using sim::SymPair;
using sim::pairInModel;
using sim::swapPair;

// A reason the proof does not apply or does not go through (-> Unknown).
// `witnesses`: concrete bindings at which a violation was met on the way
// (ModelCheckResult::witnesses): the bounded check decides them.
struct Fail : std::runtime_error {
  using std::runtime_error::runtime_error;
  std::vector<Binding> witnesses;
  // a system explored whole met a violation (proveUnlooped): no other
  // argument may then prove the schedule (proveFiniteLoopsWhole)
  bool explored_violation = false;
};
Fail failWithWitness(const std::string& what, Binding witness) {
  Fail f(what);
  witness.replace = nullptr;
  witness.replace_value = 0;
  f.witnesses.push_back(std::move(witness));
  return f;
}
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

// Sightings (docs/z3.md "A violation the proof sees is never checked",
// helper net49): a violation met on a run of the schedule itself (an
// exploration of the schedule, or of a copy whose runs at a binding are
// the schedule's there) that the proof could not hand back as a finding.
// A plain Fail carries none, so each is logged where it is met, for the
// outermost proveEveryTripCount to hand back with its Unknown
// (ModelCheckResult::violations of an Unknown answer): the caller then
// says unknown, never *checked*, unless a witness reproduces it. `exact`:
// the schedules whose runs are the proved schedule's (it, and the copies
// that build its systems for every binding), registered while they live;
// a violation met on any other copy (an over-approximation, a guard case,
// a widened read) is not a sighting.
struct SightingLog {
  std::set<const ir::Schedule*> exact;
  std::vector<Violation> seen;   // one per rule
  std::vector<Binding> witnesses;  // bindings the facts allow where one was met
};
thread_local SightingLog* t_sightings = nullptr;

bool runsAreTheSchedules(const ir::Schedule& s) { return t_sightings && t_sightings->exact.count(&s); }

// `copy` builds the systems of `parent` for every binding: while it lives,
// a violation met on it is a sighting where one met on `parent` is.
class ExactCopy {
 public:
  ExactCopy(const ir::Schedule& parent, const ir::Schedule* copy) {
    if (copy && runsAreTheSchedules(parent) && t_sightings->exact.insert(copy).second) copy_ = copy;
  }
  ~ExactCopy() {
    if (copy_ && t_sightings) t_sightings->exact.erase(copy_);
  }
  ExactCopy(const ExactCopy&) = delete;
  ExactCopy& operator=(const ExactCopy&) = delete;

 private:
  const ir::Schedule* copy_ = nullptr;
};

void logSighting(const Violation& v, const std::optional<Binding>& witness) {
  if (!t_sightings) return;
  if (witness) t_sightings->witnesses.push_back(*witness);
  for (const Violation& x : t_sightings->seen)
    if (x.rule == v.rule) return;
  Violation s = v;
  s.trace.clear();
  s.binding.reset();
  s.trip_open = false;
  t_sightings->seen.push_back(std::move(s));
}

// A read of the trip count in a steady iteration of `process` that does not
// stay put for every trip count (checkTripUses): the attempt may end that
// process's steady iterations earlier and try again (lowerSteadyOffset).
struct SteadyUseMoves : Fail {
  SteadyUseMoves(const std::string& what, size_t p) : Fail(what), process(p) {}
  size_t process;
};

// No steady offset or period within the largest window (-> unknown, or,
// with step-1 loops, once more per residue of the trip count modulo 2).
struct NoSteadyPeriod : Fail {
  using Fail::Fail;
};

// More allowed values of the parameters read besides the trip expression
// than the proof lists (-> unknown, or one proof per outcome of the guards
// that read them).
struct TooManyValues : Fail {
  TooManyValues(const std::string& what, int p) : Fail(what), param(p) {}
  int param;  // the parameter with too many values
};
// The persistent proof's K loop trip count E_B may be below 1.
struct InnerMayBeEmpty : Fail {
  InnerMayBeEmpty(const std::string& what, ir::ExprPtr e) : Fail(what), inner(std::move(e)) {}
  ir::ExprPtr inner;
};

// Throws Fail when the proof's budget (work, or the wall-clock safety
// limit) is used up; `where` says what the proof was doing.
void checkBudget(const ProofBudget& budget, const std::string& where) {
  std::string out = budget.exhausted();
  if (!out.empty()) throw Fail(where.empty() ? out : fmt::format("{} ({})", out, where));
}

// ================================================================ the trip expression

using ir::anySubExpr;

bool mentionsParam(const ir::Expr& e) { return ir::exprUses(e, {ir::ExprKind::Param}); }

void collectLoops(const ir::Block& b, std::vector<const ir::Stmt*>& out) {
  for (const ir::Stmt& st : b) {
    if (st.kind == ir::Stmt::Kind::For) out.push_back(&st);
    collectLoops(st.body, out);
    collectLoops(st.orelse, out);
  }
}

// Does e read lm.instance(), or a loop variable of `varying`?
bool readsInstance(const ir::Expr& e, const std::set<int>& varying) {
  return anySubExpr(e, [&](const ir::Expr& x) {
    return x.kind == ir::ExprKind::Instance || (x.kind == ir::ExprKind::LoopVar && varying.count(x.index) > 0);
  });
}

// The loop variables of b whose values differ between the instances of its
// role: those of loops whose start, bound or step reads lm.instance() or
// such a variable (`for j in lm.range(w, w + 1)` with w = lm.instance()),
// outer loops first.
void instanceVaryingVars(const ir::Block& b, std::set<int>& varying) {
  for (const ir::Stmt& st : b) {
    if (st.kind == ir::Stmt::Kind::For)
      for (const ir::ExprPtr& e : {st.lo, st.hi, st.step})
        if (e && readsInstance(*e, varying)) varying.insert(st.loop_var);
    instanceVaryingVars(st.body, varying);
    instanceVaryingVars(st.orelse, varying);
  }
}

// The loops of roles with more than one instance whose bound reads
// lm.instance(), directly or through a loop variable whose value differs
// between the instances: each instance runs its own trip count, where
// every proof reads one per bound for every process (findTripWith and
// findTileLoops refuse such a symbolic bound; segmentsAsTiles and
// passesAsTiles, which read one length per tile, do not take it). Helper
// sound41: `for j in lm.range(w, w + 1): for kb in lm.range(0, lm.cdiv(n +
// 32 * j, 128))`, and a second loop `lm.range(0, 1 + (lm.instance() == 3)
// * (n % 5 == 4))` read as a segment of its own length, were proved with
// warp 3's extra barrier a deadlock (docs/z3.md "A symbolic bound that
// reads the instance").
std::set<const ir::Stmt*> instanceBoundLoops(const ir::Schedule& s) {
  std::set<const ir::Stmt*> out;
  for (const ir::RoleBody& body : s.bodies) {
    if (body.role >= 0 && body.role < static_cast<int>(s.roles.size()) && s.roles[body.role].instanceCount() <= 1)
      continue;
    std::set<int> varying;
    instanceVaryingVars(body.body, varying);
    std::vector<const ir::Stmt*> loops;
    collectLoops(body.body, loops);
    for (const ir::Stmt* st : loops)
      if (st->hi && readsInstance(*st->hi, varying)) out.insert(st);
  }
  return out;
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
  // The guards' outcomes of this proof (trip_guards.h), if split on them.
  const EvalHook* guards = nullptr;
  // Loops that start at lm.instance() arithmetic (its value per process;
  // `lo` holds the least over the instances) or step by more than 1
  // (`lm.range(lm.instance(), E, 2)`, docs/z3.md "Loops with a step"): the
  // proof runs once per residue of E modulo `scale` (the steps' least
  // common multiple); its trip count T stands for E = scale * T + residue,
  // and its iteration v for the loop variable's values [scale * v, scale *
  // v + scale). With scale 1 and constant starts, T is E and v the value.
  std::map<int, ir::ExprPtr> lo_expr;  // loop var -> its start, where it reads lm.instance()
  int64_t scale = 1, residue = 0;
  // Value by value: the keys (trip_sizes.h) of the windows whose
  // explorations passed for an earlier value; a window with one of them
  // explores alike and is not explored again (docs/z3.md "Parameters read
  // only in sizes"). Null: explore every window.
  std::set<std::vector<int64_t>>* explored = nullptr;
  // With `explored`: the shapes (windowShape) of the windows seen so far,
  // when the keys are taken only for a window whose shape an earlier one
  // had (TripProofOptions::least_window: every inner value's window differs
  // in its programs' lengths, and the key costs about what building the
  // systems does). Null: a key for every window.
  std::set<std::vector<int64_t>>* shapes = nullptr;
  // With scale > 1: for every expression the builder evaluated that reads
  // the trip expression inside a symbolic loop, the offsets o = v mod scale
  // of the loop variable's values it was evaluated at, over every system
  // built (checkTripUses). Null: not recorded.
  std::map<const ir::Expr*, std::set<int64_t>>* offsets = nullptr;
  // Loops bounded by `min(c, E + d) + o` (either order, c a constant): the
  // bound is c + o for every E >= c - d, so they are no symbolic loops there.
  // The systems for such E are built with the expression evaluated to c
  // (an evaluation hook, exact for those values); the values of E below
  // the largest c - d are explored one by one, each as the concrete
  // system it is (docs/z3.md "Clamped loop bounds", helper loops3).
  struct Clamp {
    ir::ExprPtr expr;  // the bound's min(c, E + d)
    int64_t value;     // c
    int64_t from;      // c - d: the least E at which the bound is c
    // the loop's bound is expr + offset; its start, when a constant and
    // the step is positive (else nullopt)
    int64_t offset = 0;
    std::optional<int64_t> start;
  };
  std::vector<Clamp> clamps;
  // Loops that run no iteration for any binding the proof covers (their
  // bound node, a copy of its own, -> their start): no symbolic loops; the
  // builder evaluates the bound node as the start (docs/z3.md "A K loop
  // that may run no iteration", helper loops3).
  std::map<const ir::Expr*, int64_t> dead;
};

// `min(c, E + d)` or `min(E + d, c)` plus a constant, c a constant and E
// reading a parameter: {the min, E, c, c - d}.
std::optional<std::tuple<ir::ExprPtr, ir::ExprPtr, int64_t, int64_t>> clampOf(const ir::ExprPtr& bound);

// The value of E a trip count T of the proof stands for (TripLoops::scale).
int64_t tripValue(const TripLoops& tl, int64_t T) { return tl.scale * T + tl.residue; }

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
TripLoops findTripWith(const ir::Schedule& s, const std::set<int>& finite, bool clamps,
                       const std::map<const ir::Expr*, int64_t>& dead) {
  std::vector<const ir::Stmt*> loops;
  std::map<const ir::Stmt*, int> instances;  // loop -> its role's instance count
  for (const ir::RoleBody& body : s.bodies) {
    const size_t from = loops.size();
    collectLoops(body.body, loops);
    const int n = body.role >= 0 && body.role < static_cast<int>(s.roles.size()) ? s.roles[body.role].instanceCount() : 1;
    for (size_t i = from; i < loops.size(); ++i) instances[loops[i]] = std::max(1, n);
  }
  const std::set<const ir::Stmt*> instance_bounds = instanceBoundLoops(s);
  TripLoops tl;
  const ir::Stmt* first = nullptr;  // the first symbolic loop
  auto onlyFinite = [&](const ir::ExprPtr& e) {
    std::set<int> ps = paramsOf(*e);
    return std::all_of(ps.begin(), ps.end(), [&](int p) { return finite.count(p) > 0; });
  };
  std::vector<std::pair<ir::ExprPtr, TripLoops::Clamp>> clamped;  // (E, the clamp)
  for (const ir::Stmt* st : loops) {
    bool sym_hi = st->hi && mentionsParam(*st->hi) && !onlyFinite(st->hi);
    bool sym_other = (st->lo && mentionsParam(*st->lo)) || (st->step && mentionsParam(*st->step));
    if (sym_other) throw Fail("a loop's start or step depends on a parameter");
    if (!sym_hi || dead.count(st->hi.get())) continue;
    // The proof reads one trip count T for every process; a bound that
    // reads lm.instance() gives each instance of the role its own (the
    // per-subgroup causal bound of an FMHA K loop: instances that run fewer
    // iterations leave a barrier the others still wait on). Refused
    // (docs/z3.md "A symbolic bound that reads the instance").
    if (instance_bounds.count(st))
      throw Fail(fmt::format("the symbolic loop bound {} reads lm.instance(): each instance of the role runs its own "
                             "trip count",
                             ir::exprToString(*st->hi, s)));
    if (auto c = clamps ? clampOf(st->hi) : std::nullopt) {  // a constant bound from some E on (TripLoops::clamps)
      TripLoops::Clamp cl{std::get<0>(*c), std::get<2>(*c), std::get<3>(*c), splitOffset(st->hi).second, std::nullopt};
      const auto step = st->step ? ir::constValue(st->step) : std::optional<int64_t>(1);
      if (step && *step > 0) cl.start = ir::constValue(st->lo);
      clamped.emplace_back(std::get<1>(*c), std::move(cl));
      continue;
    }
    auto lo = ir::constValue(st->lo);
    auto step = st->step ? ir::constValue(st->step) : std::optional<int64_t>(1);
    // a start of constants and lm.instance(): its least value over the instances
    const bool by_instance = !lo && st->lo &&
                             !ir::exprUses(*st->lo, {ir::ExprKind::Param, ir::ExprKind::LoopVar, ir::ExprKind::BlockIdx,
                                                     ir::ExprKind::GridDim});
    if (by_instance) {
      for (int i = 0; i < instances.at(st); ++i) {
        ir::EvalEnv env;
        env.instance = i;
        auto v = ir::evaluate(*st->lo, env);
        if (!v) throw Fail("a loop with a symbolic bound has a start that does not evaluate");
        lo = lo ? std::min(*lo, *v) : *v;
      }
      tl.lo_expr[st->loop_var] = st->lo;
    }
    if (!lo || !step || *step < 1 || *step > 64)
      throw Fail("a loop with a symbolic bound has a start that is not a constant or lm.instance() arithmetic, or a "
                 "step that is not a small positive constant");
    tl.scale = std::lcm(tl.scale, *step);
    if (tl.scale > 64) throw Fail("the symbolic loops' steps have a least common multiple above 64");
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
  tl.dead = dead;
  for (const auto& [core, clamp] : clamped) {
    if (!ir::sameExpr(*tl.trip, *core))
      throw Fail(fmt::format("the symbolic loops have different bounds ({} and {})", ir::exprToString(*tl.trip, s),
                             ir::exprToString(*clamp.expr, s)));
    tl.clamps.push_back(clamp);
  }
  return tl;
}

// Loops bounded by min(c, E + d) + o are clamped loops of the trip
// expression E of the other symbolic loops (TripLoops::clamps); where that
// does not apply (no other loop: `lm.range(0, min(8, lm.cdiv(rows, 64) -
// lm.block_idx(0) * 8))` alone, whose bound is the trip expression), as
// before: every bound a trip expression of its own.
TripLoops findTrip(const ir::Schedule& s, const std::set<int>& finite = {},
                   const std::map<const ir::Expr*, int64_t>& dead = {}) {
  try {
    return findTripWith(s, finite, true, dead);
  } catch (const Fail&) {
    return findTripWith(s, finite, false, dead);
  }
}

std::optional<std::tuple<ir::ExprPtr, ir::ExprPtr, int64_t, int64_t>> clampOf(const ir::ExprPtr& bound) {
  const ir::ExprPtr hi = splitOffset(bound).first;  // min(...) + a constant
  if (hi->kind != ir::ExprKind::Min || hi->args.size() != 2) return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    auto c = ir::constValue(hi->args[i]);
    if (!c || ir::constValue(hi->args[1 - i])) continue;
    auto [core, d] = splitOffset(hi->args[1 - i]);
    if (!mentionsParam(*core)) return std::nullopt;
    return std::make_tuple(hi, core, *c, *c - d);
  }
  return std::nullopt;
}

// The least trip count T of the proof from which every clamped bound is its
// constant (TripLoops::clamps), or INT64_MIN if there is none.
int64_t clampsFrom(const TripLoops& tl) {
  int64_t from = INT64_MIN;
  for (const TripLoops::Clamp& c : tl.clamps)
    from = std::max(from, -*ir::floorDiv(tl.residue - c.from, tl.scale));  // least T with scale * T + residue >= c.from
  return from;
}

// ================================================================ instruction comparison

bool sameAccess(const Access& a, const Access& b) {
  return a.space == b.space && a.lo == b.lo && a.hi == b.hi && a.runs == b.runs && a.stride == b.stride &&
         a.write == b.write && a.proxy == b.proxy &&
         a.async == b.async && a.view == b.view && a.index == b.index && a.gen == b.gen &&
         a.stage_like == b.stage_like && a.view_written == b.view_written;
}

bool sameInstr(const Instr& a, const Instr& b) {
  if (a.kind != b.kind || a.stmt != b.stmt || a.derived != b.derived || a.slot != b.slot || a.phase != b.phase ||
      a.count != b.count || a.bytes != b.bytes || a.pending != b.pending || a.named != b.named ||
      a.grid_dep_early != b.grid_dep_early || !(a.regs_hazard == b.regs_hazard) || a.iteration != b.iteration || a.loops != b.loops ||
      a.accesses.size() != b.accesses.size())
    return false;
  for (size_t i = 0; i < a.accesses.size(); ++i)
    if (!sameAccess(a.accesses[i], b.accesses[i])) return false;
  return true;
}

// pairs of views (write's view, read's view): checkLapDeltas's `unmet`
using ViewPairs = std::set<std::pair<int, int>>;

// Whose generations move by one amount per period: (view, stage index, is a
// write) for stage-like accesses, (view, -1, is a write) for iteration-like
// ones. A write's generation counts its process's earlier writes of the
// index and a read's its returns to the index (encoder/system.cpp `tag`),
// so a slot written twice per iteration and read once moves its writes'
// generations twice as fast as its reads' (docs/z3.md "Generations per
// slot"); checkLapDeltas says which differences a shift may have.
// Per process too: a process that reads back what it wrote means its own
// latest write's generation (encoder/system.cpp), the others their returns.
// The byte range is part of the key: a read split by the laps it means per
// range (encoder/system.cpp splitByWrittenLaps) or a process writing a row
// whole and then one entry of it moves each range by its own delta, and a
// data tag names the write's instruction and access, which the shift moves
// one period back with its own delta (docs/z3.md "Generations per byte
// range").
struct GenKey {
  int view;
  int64_t stage;  // a stage-like access's stage index; -1: iteration-like
  bool write;
  int proc;
  int space;
  int64_t lo, hi;  // the byte range
  int64_t runs, stride;  // a strided access's runs
  auto operator<=>(const GenKey&) const = default;
};
GenKey genKey(const Access& a, int proc) {
  return {a.view, a.stage_like ? a.index : -1, a.write, proc, a.space, a.lo, a.hi, a.runs, a.stride};
}
// Keys in member order, view first; a bare view compares with a key's
// view, so that equal_range(view) is the keys of that view.
struct GenKeyOrder {
  using is_transparent = void;
  bool operator()(const GenKey& a, const GenKey& b) const { return a < b; }
  bool operator()(const GenKey& a, int view) const { return a.view < view; }
  bool operator()(int view, const GenKey& b) const { return view < b.view; }
};
using GenDeltas = std::map<GenKey, int64_t, GenKeyOrder>;

// How far one period moves each quantity (learned from the instructions).
struct Deltas {
  std::map<int, int64_t> slot_phase;  // flat slot -> phase
  std::map<int, int64_t> view_index;  // view -> index of iteration-like accesses
  GenDeltas view_gen;                 // (view, -1, write, proc, range) -> generation of iteration-like accesses
  GenDeltas view_gen_stage;           // (view, stage, write, proc, range) -> generation of stage-like accesses

  template <class M>
  static bool learn(M& m, const typename M::key_type& key, int64_t d) {
    auto [it, fresh] = m.emplace(key, d);
    return fresh || it->second == d;
  }
  template <class M>
  static int64_t of(const M& m, const typename M::key_type& key) {
    auto it = m.find(key);
    return it == m.end() ? 0 : it->second;
  }
  static bool anyOf(const GenDeltas& m, int view) {
    auto [from, to] = m.equal_range(view);
    return std::any_of(from, to, [](const auto& kv) { return kv.second != 0; });
  }
  bool viewMoves(int view) const {
    return of(view_index, view) != 0 || anyOf(view_gen, view) || anyOf(view_gen_stage, view);
  }
};

// Is b the instruction a, one period later? Learns the deltas it implies.
bool shiftedInstr(const Instr& a, const Instr& b, Deltas& d, int proc) {
  if (a.kind != b.kind || a.stmt != b.stmt || a.derived != b.derived || a.slot != b.slot || a.count != b.count ||
      a.bytes != b.bytes || a.pending != b.pending || a.named != b.named || a.grid_dep_early != b.grid_dep_early ||
      !(a.regs_hazard == b.regs_hazard) || a.accesses.size() != b.accesses.size())
    return false;
  if (a.slot >= 0 ? !Deltas::learn(d.slot_phase, a.slot, b.phase - a.phase) : a.phase != b.phase) return false;
  for (size_t i = 0; i < a.accesses.size(); ++i) {
    const Access &x = a.accesses[i], &y = b.accesses[i];
    if (x.space != y.space || x.lo != y.lo || x.hi != y.hi || x.runs != y.runs || x.stride != y.stride ||
        x.write != y.write || x.proxy != y.proxy ||
        x.async != y.async || x.view != y.view || x.stage_like != y.stage_like || x.view_written != y.view_written)
      return false;
    if (x.view < 0) continue;
    if (x.stage_like) {
      if (x.index != y.index || !Deltas::learn(d.view_gen_stage, genKey(x, proc), y.gen - x.gen)) return false;
    } else if (!Deltas::learn(d.view_index, x.view, y.index - x.index) ||
               !Deltas::learn(d.view_gen, genKey(x, proc), y.gen - x.gen)) {
      return false;
    }
  }
  return true;
}

// Are the instruction lists b = a shifted by a period? Deltas change only
// when they are.
bool shiftedRange(const std::vector<Instr>& pa, size_t a0, size_t a1, const std::vector<Instr>& pb, size_t b0,
                  size_t b1, Deltas& d, int proc) {
  if (a1 - a0 != b1 - b0) return false;
  Deltas trial = d;
  for (size_t i = 0; i < a1 - a0; ++i)
    if (!shiftedInstr(pa[a0 + i], pb[b0 + i], trial, proc)) return false;
  d = std::move(trial);
  return true;
}

// ================================================================ private data

// (space, lo, hi, process, runs, stride) of every access of the given systems.
using AccessRange = std::tuple<int, int64_t, int64_t, int, int64_t, int64_t>;
AccessRange accessRange(const Access& a, int p) { return {a.space, a.lo, a.hi, p, a.runs, a.stride}; }
std::set<AccessRange> accessRanges(const std::vector<const System*>& systems) {
  std::set<AccessRange> out;
  for (const System* sys : systems)
    for (size_t p = 0; p < sys->procs.size(); ++p)
      for (const Instr& in : sys->procs[p].program)
        for (const Access& a : in.accesses) out.insert(accessRange(a, static_cast<int>(p)));
  return out;
}
// Does no process but p access bytes a accesses (in any of the systems `all` came from)?
bool privateTo(const std::set<AccessRange>& all, const Access& a, int p) {
  for (const auto& [space, lo, hi, q, runs, stride] : all) {
    if (q == p || space != a.space || !(lo < a.hi && a.lo < hi)) continue;
    Access b;
    b.space = space;
    b.lo = lo;
    b.hi = hi;
    b.runs = runs;
    b.stride = stride;
    if (bytesMeet(a, b)) return false;
  }
  return true;
}
// Generation 0 for every view access of a process `which` selects to bytes
// no other process accesses (`all`: accessRanges). The simulator reads a
// generation only in sim::staleData, which sim::staleWrite calls for a read
// and the write whose data it finds when the two are of *different*
// processes (its own data is never stale): an access to bytes only its own
// process touches is in no such pair, so its generation is read by nothing.
template <class Which>
void forgetPrivateIn(const std::set<AccessRange>& all, System& sys, Which&& which) {
  for (size_t p = 0; p < sys.procs.size(); ++p) {
    if (!which(p)) continue;
    for (Instr& in : sys.procs[p].program)
      for (Access& a : in.accesses)
        if (a.view >= 0 && privateTo(all, a, static_cast<int>(p))) a.gen = 0;
  }
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
      sh.iter_of[pc] = tl.scale == 1 ? value : *ir::floorDiv(value, tl.scale);  // its block of `scale` values
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
  if (auto e = tl.lo_expr.find(sh.var); e != tl.lo_expr.end()) {  // this process's start
    ir::EvalEnv env;
    env.instance = proc.instance;
    sh.lo = ir::evaluate(*e->second, env).value();
  }
  if (tl.scale > 1) {
    // in blocks of `scale` values: the window's last block is the one its
    // last iteration lies in (findSteadyOffsets finds the steady offset)
    sh.lo = *ir::floorDiv(sh.lo, tl.scale);
    sh.off = sh.iter_of[last] + 1 - W;
  } else if (sh.iter_of[last] + 1 < W + sh.off) {
    // The last iterations run no operation (a prefetch loop whose whole
    // body is guarded by `if k + S < K:`): the loop's program ends with its
    // last operation, so its end is read there, as for blocks of `scale`
    // values above; findSteadyOffsets then finds the steady offset from the
    // systems themselves (it must be at most this one). An empty iteration
    // followed by one that runs is still refused below.
    sh.off = sh.iter_of[last] + 1 - W;
  }
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
  int64_t last = 0;  // the last iteration v whose shift to v + P findPeriod checked
  System base;                                  // the system for T = W
  std::vector<System> by_trip;                  // [T - t0]: the system for T
  std::vector<ProcShape> shape;
  Deltas d;
  // (write's view, read's view): views over common bytes that the shift
  // moves by different laps, which no explored read may compare
  // (checkLapDeltas, unmetAlias)
  ViewPairs unmet;
  std::map<int, int64_t> named_delta;           // named barrier -> generations per period
  std::vector<int64_t> commit_delta;            // process -> MMA commits per period
  // the combined program
  System comb;
  sim::ControlFlow flow;
  std::vector<std::map<int64_t, int>> exit_to;  // [p][T]: pc after leaving the loop with trip count T
  std::vector<std::vector<int>> shift_pc;       // [p][pc]: pc one period earlier, -1 if none
  // A kind boundary (docs/z3.md "A kind boundary in the lap state"): per
  // process, the iterations of kind B (those below the boundary x, the
  // guard `j >= X` false), laid out after the kind A iterations (the
  // window's own, x = 0). Empty: no kind boundary.
  struct KindCopy {
    bool kinded = false;         // some B iteration differs from the A one
    std::vector<Instr> text;     // the B iterations lo..end-1 (the system for (W, x = W))
    std::vector<int> rel;        // rel[v - lo]: first instruction of B iteration v in text; rel[end - lo]: its size
    int begin = -1;              // where text starts in the combined program
    int64_t commits = 0;         // MMA commits per period in B iterations
    int headOf(int64_t v, int64_t lo) const { return begin + rel[static_cast<size_t>(v - lo)]; }
  };
  std::vector<KindCopy> kind;
};

// A loop that runs no iteration: its bound node read as its start
// (TripLoops::dead); then `next`.
EvalHook deadHook(const TripLoops& tl, const EvalHook* next) {
  return [&tl, next](const ir::Expr& e, const ir::EvalEnv& env) -> std::optional<int64_t> {
    if (auto it = tl.dead.find(&e); it != tl.dead.end()) return it->second;
    return next ? (*next)(e, env) : std::nullopt;
  };
}

System buildAt(const ir::Schedule& s, Binding b, ir::Target target, const TripLoops& tl, int64_t T) {
  b.replace = tl.trip.get();
  b.replace_value = tripValue(tl, T);
  for (const auto& [p, value] : tl.fixed) b.params[p] = value;
  std::string err;
  EvalHook record;
  if (tl.offsets)
    record = [&tl](const ir::Expr& e, const ir::EvalEnv& env) -> std::optional<int64_t> {
      if (tl.guards)
        if (auto v = (*tl.guards)(e, env)) return v;
      if (trip::containsExpr(e, *tl.trip))
        for (const auto& [var, lo] : tl.lo)
          if (auto it = env.loop_vars.find(var); it != env.loop_vars.end())
            (*tl.offsets)[&e].insert(((it->second % tl.scale) + tl.scale) % tl.scale);
      return std::nullopt;
    };
  const EvalHook* hook = tl.offsets ? &record : tl.guards;
  EvalHook clamped;  // min(c, E + d) is c from E = c - d on (TripLoops::clamps)
  if (!tl.clamps.empty() && T >= clampsFrom(tl)) {
    clamped = [&tl, hook](const ir::Expr& e, const ir::EvalEnv& env) -> std::optional<int64_t> {
      if (e.kind == ir::ExprKind::Min)
        for (const TripLoops::Clamp& c : tl.clamps)
          if (ir::sameExpr(e, *c.expr)) return c.value;
      return hook ? (*hook)(e, env) : std::nullopt;
    };
    hook = &clamped;
  }
  const EvalHook dead = deadHook(tl, hook);
  if (!tl.dead.empty()) hook = &dead;
  auto sys = trip::buildForProof(s, b, target, &err, hook);
  if (!sys) throw Fail(fmt::format("the system for trip count {} cannot be built: {}", tripValue(tl, T), err));
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
// e with every node equal to `target` replaced by `by`, except inside nodes
// equal to `skip` where given (a loop bound that must keep its own spelling,
// and so stay the trip expression the proofs replace by T).
ir::ExprPtr substitute(const ir::ExprPtr& e, const ir::Expr& target, const ir::ExprPtr& by,
                       const ir::Expr* skip = nullptr) {
  if (!e || (skip && ir::sameExpr(*e, *skip))) return e;
  if (ir::sameExpr(*e, target)) return by;
  if (e->args.empty()) return e;
  auto copy = std::make_shared<ir::Expr>(*e);
  for (ir::ExprPtr& a : copy->args) a = substitute(a, target, by, skip);
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
// `ranges`: facts on the other variables of e (constantLoopRanges).
BvVerdict movesWithPeriod(FactProver& prover, const ir::ExprPtr& e, const ir::Expr& target, int64_t P, int64_t from,
                          const std::vector<ir::ExprPtr>& ranges = {}) {
  // the syntax shows one step for every x (`k // 3 - 1` for P = 3): a bit-vector
  // query with divisions took seconds (docs/z3.md "Syntactic steps")
  if (trip::constantStep(*e, target, P)) return BvVerdict::Holds;
  const ir::ExprPtr x = symbolNode(ir::ExprKind::LoopVar, kFreshSymbol);
  auto plus = [&](const ir::ExprPtr& a, int64_t c) { return ir::makeExpr(ir::ExprKind::Add, {a, ir::makeConst(c)}); };
  auto at = [&](const ir::ExprPtr& value) { return substitute(e, target, value); };
  auto step = [&](const ir::ExprPtr& a) { return ir::makeExpr(ir::ExprKind::Sub, {at(plus(a, P)), at(a)}); };
  auto goal = ir::makeExpr(ir::ExprKind::Eq, {step(x), step(ir::makeConst(from))});
  std::vector<ir::ExprPtr> premises = ranges;
  premises.push_back(ir::makeExpr(ir::ExprKind::Ge, {x, ir::makeConst(from)}));
  return prover.prove(goal, premises).kind;
}

using trip::containsExpr;

bool mentionsLoopVar(const ir::Expr& e, const std::set<int>& vars) {
  return anySubExpr(e, [&](const ir::Expr& x) { return x.kind == ir::ExprKind::LoopVar && vars.count(x.index) > 0; });
}

// ir::affineIn: e(v + P) - e(v) does not depend on v, without asking the
// solver (the terms free of `var` were evaluated in the window, the same
// for every v).
using ir::affineIn;

// The window shows the loop body repeating with the period up to W; beyond
// it the body repeats because every expression it evaluates moves by the
// same amount every period of the loop variable from w0 on (proved; e.g.
// `iter=k - 4` or `k % 4` do, `min(k, 30)` does not). An expression that
// does not is tried once more from `late`, the start of the last period of
// values whose shift by P the window checked (`if k >= 3:` inside `if k %
// 2 == 1:` with w0 = 2): the iterations before `late` are the window's,
// checked there, and from `late` on the expression moves every period as
// it does in [late, late + P), where the window shows each value's shift
// to be the period's deltas (docs/z3.md "A later start for the body
// check").
void checkBodyExprs(const ir::Schedule& s, const TripLoops& tl, const std::vector<const ir::Expr*>& exprs, int64_t P,
                    int64_t w0, int64_t late, const Limits& limits) {
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
      if (r == BvVerdict::Fails && late > w0)
        r = movesWithPeriod(*prover, e, *symbolNode(ir::ExprKind::LoopVar, var), P, late);
      if (r != BvVerdict::Holds)
        throw Fail(fmt::format("the loop body's {} does not move by the same amount every {} iterations ({})",
                               ir::exprToString(*use, s), P, bvVerdictName(r)));
    }
  }
}

// e with lm.instance() the constant i.
ir::ExprPtr atInstanceOf(const ir::ExprPtr& e, int64_t i) {
  return substitute(e, *symbolNode(ir::ExprKind::Instance, 0), ir::makeConst(i));
}

// A read of the trip count with the loop variables and lm.instance() it was
// evaluated with bound to their values.
ir::ExprPtr boundUse(const System::ReplacedUse& u) {
  ir::ExprPtr e(std::shared_ptr<const ir::Expr>{}, u.expr);  // non-owning: the schedule owns it
  for (const auto& [var, value] : u.loop_vars)
    e = substitute(e, *symbolNode(ir::ExprKind::LoopVar, var), ir::makeConst(value));
  return atInstanceOf(e, u.instance);
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
  // With scale S (docs/z3.md "Loops with a step"; "The parity of the trip
  // count") T stands for E = S * T + r and iteration V for the loop
  // variable's values S * V + o, o in [0, S): each check holds for every o.
  const int64_t S = tl.scale;
  auto offsetsOf = [&](const System::ReplacedUse& u) {
    std::set<int64_t> all;
    if (tl.offsets)
      if (auto it = tl.offsets->find(u.expr); it != tl.offsets->end()) return it->second;
    for (int64_t o = 0; o < S; ++o) all.insert(o);  // not recorded: every offset
    return all;
  };
  for (const System::ReplacedUse& u : uses)
    for (int64_t o : offsetsOf(u)) {
    ir::ExprPtr e = boundUse(u);
    const ProcShape& sh = w.shape[u.process];
    const ir::ExprPtr v = symbolNode(K::LoopVar, sh.var);
    auto at = [&](const ir::ExprPtr& V, const ir::ExprPtr& T) {
      const ir::ExprPtr k = S == 1 ? V : op(K::Add, op(K::Mul, num(S), V), num(o));
      const ir::ExprPtr E = S == 1 ? T : op(K::Add, op(K::Mul, num(S), T), num(tl.residue));
      return substitute(sh.loops ? substitute(e, *v, k) : e, *tl.trip, E);
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
    bool steady_read = false;  // the failing check is the steady iteration's (SteadyUseMoves)
    if (u.region == System::ReplacedUse::Prefix || !sh.loops) {
      where = "before the loop";
      r = prover.prove(op(K::Eq, at(v, t), at(v, num(w.t1))), {op(K::Ge, t, num(w.t1))}).kind;
    } else if (u.region == System::ReplacedUse::Exit) {
      where = "after the loop";
      r = repeats(w.j0, {});
    } else {
      // the last block the loop runs for T: the one of value S * T + r + off - 1
      const int64_t c = sh.off, full = *ir::floorDiv(tl.residue + tl.off.at(sh.var) - 1, S) + 1;
      auto steady = [&](const ir::ExprPtr& V, const ir::ExprPtr& T) { return op(K::Lt, V, op(K::Add, T, num(c))); };
      where = "in a steady iteration";
      steady_read = true;
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
        steady_read = false;
        r = repeats(w.j0, {op(K::Le, op(K::Add, t, num(c)), v), op(K::Lt, v, op(K::Add, t, num(full)))});
      }
    }
    if (r != BvVerdict::Holds) {
      const std::string what =
          fmt::format("{} reads {} {} in a way that does not stay put or repeat with the period of {} ({})",
                      ir::exprToString(*u.expr, s), ir::exprToString(*tl.trip, s), where, P, bvVerdictName(r));
      if (steady_read) throw SteadyUseMoves(what, static_cast<size_t>(u.process));
      throw Fail(what);
    }
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
  return shiftedRange(prog, sh.headOf(v), sh.headOf(v + 1), prog, sh.headOf(v + P), sh.headOf(v + P + 1), d,
                      static_cast<int>(p));
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
    w.last = end - 1 - P;
    w.d = std::move(d);
    return true;
  }
  return false;
}

// Views whose accesses all name iterations (none stage-like) and whose
// bytes no access through another view, or through none, touches: every
// data comparison on them (sim::staleData) is between two accesses of the
// view naming iterations, which compares index for equality and
// generation by order, and a shift that moves every one of the view's
// identities by one delta (index and generation each) keeps every such
// comparison, laps or not (docs/z3.md "Ring shifts by part of the ring
// period").
// Another view over the same bytes leaves the view free when neither reads
// the other's bytes by laps (over the hull of the view's reads that
// compare laps: coarser, so fewer free views): then staleData meets
// the two views' identities together only for a read whose own view is
// written there (Access::view_written), which calls the other view's data
// stale whatever the identities (docs/z3.md "Ring rotations in a cluster":
// an epilogue staged over the A ring). Two members of one union never
// compare each other's identities (sim::viewsDecide: fresh whatever they
// are), so they leave each other free.
std::set<int> freeViews(const System& sys) {
  struct Span { int64_t lo = INT64_MAX, hi = INT64_MIN; };
  std::map<std::pair<int, int>, Span> spans;  // (view, space) -> the bytes its accesses touch
  std::map<std::pair<int, int>, Span> lap_reads;  // (view, space) -> the bytes its reads by laps touch
  std::set<int> staged;
  for (const Process& p : sys.procs)
    for (const Instr& in : p.program)
      for (const Access& a : in.accesses) {
        if (a.view < 0) continue;
        if (a.stage_like) staged.insert(a.view);
        Span& sp = spans[{a.view, a.space}];
        sp.lo = std::min(sp.lo, a.lo);
        sp.hi = std::max(sp.hi, a.hi);
        if (!a.write && !a.view_written) {
          Span& lr = lap_reads[{a.view, a.space}];
          lr.lo = std::min(lr.lo, a.lo);
          lr.hi = std::max(lr.hi, a.hi);
        }
      }
  auto lapReads = [&](int view, int space, int64_t lo, int64_t hi) {
    auto it = lap_reads.find({view, space});
    return it != lap_reads.end() && it->second.lo < hi && lo < it->second.hi;
  };
  std::set<int> out;
  for (const auto& [key, sp] : spans)
    if (!staged.count(key.first)) out.insert(key.first);
  for (const Process& p : sys.procs)
    for (const Instr& in : p.program)
      for (const Access& a : in.accesses)
        for (const auto& [key, sp] : spans)
          if (a.view != key.first && a.space == key.second && a.lo < sp.hi && sp.lo < a.hi &&
              !ir::sameUnion(*sys.schedule, a.view, key.first) &&
              (a.view < 0 || lapReads(key.first, key.second, a.lo, a.hi) || lapReads(a.view, a.space, sp.lo, sp.hi)))
            out.erase(key.first);
  return out;
}

// data.stale-read compares the data tags of a write and of a read of
// another process over common bytes (sim::staleData), and nothing else
// reads a generation. A shift moves every data tag and every read one
// period back, each access's generation (or lap) by its key's delta
// (genKey). Per pair of a write and a read that staleData can meet:
//  * a read through another view than the write's that some instance
//    writes there (view_written) calls the data stale whatever the tags,
//    and one through a member of the write's view's union calls it fresh
//    (sim::viewsDecide);
//  * two iteration-named accesses of one view compare index for equality
//    (one delta per view: kept) and stale iff w.gen < r.gen;
//  * otherwise laps: stale iff lap(w) < lap(r) for a stage-named read,
//    iff lap(w) != lap(r) for an iteration-named one (an iteration-named
//    access's lap is its index // stages: its view's index delta must be a
//    whole number of laps).
// An equality is kept only by equal deltas. An order "stale iff a < b" is
// kept by equal deltas, and *made at least as stale* when a's delta is at
// least b's: the shifted pair is stale whenever the pair it stands for is.
// `exact` (a symmetry, whose images stand for their originals both ways)
// asks equal deltas everywhere. Without it (a shift one period back: the
// explored state stands for the later one, whose futures step for step it
// has, docs/z3.md "Generations per slot"), an order may lose: every
// violation of the later state's runs is one of the shifted state's runs
// (the same steps: no generation enables or disables one), so a clean
// exploration still proves the schedule, and a stale read met that the
// later state would not have is a Met, which the bounded check confirms or
// leaves unknown.
//
// `unmet` (the persistent proof and the one-loop proof's lap exploration):
// a pair of two views (the read's view written by no instance there, so it
// reads the other's data by laps) whose deltas differ is not refused but
// added to it, as (write's view, read's view): the exploration then calls
// every read through the second view that finds another process's data
// written through the first an unknown (unmetAlias), so no explored run
// compares such a pair and the shifts need not keep its comparison
// (docs/z3.md "A view over a ring that moves with the tiles", "Views over
// common bytes in the one-loop proof").
void checkLapDeltas(const std::vector<const System*>& systems, const Deltas& d, bool exact,
                    ViewPairs* unmet = nullptr) {
  const ir::Schedule& s = *systems.front()->schedule;
  // the accesses as staleData sees them (the generation and an
  // iteration-named index apart: their deltas are per key)
  using Key = std::tuple<int, int64_t, int64_t, int, int64_t, bool, bool, bool, int>;
  //                     space lo       hi       view index  write stage written proc
  std::set<Key> keys;
  for (const System* sys : systems)
    for (size_t p = 0; p < sys->procs.size(); ++p)
      for (const Instr& in : sys->procs[p].program)
        for (const Access& a : in.accesses)
          if (a.view >= 0)
            keys.insert({a.space, a.lo, a.hi, a.view, a.stage_like ? a.index : -1, a.write, a.stage_like,
                         a.view_written, static_cast<int>(p)});
  auto acc = [](const Key& k) {
    Access a;
    std::tie(a.space, a.lo, a.hi, a.view, a.index, a.write, a.stage_like, a.view_written, std::ignore) = k;
    return a;
  };
  auto lap = [&](const Access& a, int proc) {
    if (a.stage_like) return Deltas::of(d.view_gen_stage, genKey(a, proc));
    const int64_t stages = s.views[a.view].stages, di = Deltas::of(d.view_index, a.view);
    if (di % stages != 0)
      throw Fail(fmt::format("{}'s indices move by {} per period, not a whole number of laps", s.views[a.view].name, di));
    return di / stages;
  };
  // An access whose key no shift learned is in no instruction a shift maps
  // (shiftedInstr learns the key of every access of every instruction the
  // period and the exit paths' period compare): a prologue's stage-named
  // load of a ring. Where its view moves, no state is shifted with its tag
  // in the bytes (shiftState: a tag that cannot move) and no shifted state
  // runs it (a looping process past its warm-up never returns to its
  // prefix, nor to an exit path below j0 - P; a process without the loop
  // stays only where nothing it still runs moves: `unmoved`), so none of
  // its pairs changes under a shift. Where its view does not move it stays
  // where it is: delta 0, checked. The persistent proof's shifts refuse
  // such tags the same way (shiftState) and its process permutations every
  // tag they do not map; both rest on every instruction they map having
  // been compared, as the per-view deltas before them did.
  auto learned = [&](const Access& a, int proc) {
    return (a.stage_like ? d.view_gen_stage : d.view_gen).count(genKey(a, proc)) > 0;
  };
  std::vector<Access> writes, reads;
  std::vector<int> wproc, rproc;
  for (const Key& k : keys) {
    Access a = acc(k);
    if (!learned(a, std::get<8>(k)) && d.viewMoves(a.view)) continue;
    (a.write ? wproc : rproc).push_back(std::get<8>(k));
    (a.write ? writes : reads).push_back(std::move(a));
  }
  for (size_t i = 0; i < writes.size(); ++i)
    for (size_t j = 0; j < reads.size(); ++j) {
      const Access &w = writes[i], &r = reads[j];
      if (wproc[i] == rproc[j] || w.space != r.space || w.hi <= r.lo || r.hi <= w.lo) continue;
      if (sim::viewsDecide(s, w, r)) continue;
      int64_t dw = 0, dr = 0;
      bool order = true;
      if (!sim::byLaps(w, r)) {
        dw = Deltas::of(d.view_gen, genKey(w, wproc[i]));
        dr = Deltas::of(d.view_gen, genKey(r, rproc[j]));
      } else {
        dw = lap(w, wproc[i]);
        dr = lap(r, rproc[j]);
        order = r.stage_like;
      }
      if (dw == dr || (order && !exact && dw > dr)) continue;
      if (unmet && w.view != r.view) {
        unmet->insert({w.view, r.view});
        continue;
      }
      throw Fail(fmt::format("{} and {} share bytes but move by {} and {} {} per period, and {} compares them",
                             s.views[w.view].name, s.views[r.view].name, dw, dr,
                             sim::byLaps(w, r) ? "laps" : "generations",
                             w.view == r.view ? "a read" : "a read of " + s.views[r.view].name));
    }
}
void checkLapDeltas(const System& base, const Deltas& d, bool exact, ViewPairs* unmet = nullptr) {
  checkLapDeltas(std::vector<const System*>{&base}, d, exact, unmet);
}

// A read through the second view of a pair of `unmet` (checkLapDeltas:
// the shifts move the two by different laps) that finds data another
// process wrote through the first: sim::staleData would compare the two
// laps, which the shifts do not keep, so the exploration stops, unknown
// (docs/z3.md "A view over a ring that moves with the tiles"). Whether a
// read finds such data depends on which write is last in its bytes, not
// on any generation: every shift and process permutation keeps it (a
// data tag moves to the same access one period earlier, through the same
// view, of the permuted process), so a run of the schedule meets it only
// where an explored run does. Checked before the step (the data it
// finds), after the step's own violations (a race there is reported as
// such). Both lap explorations call it: the persistent proof's
// (PersistentExplorer) and the one-loop proof's (LapExplorer, docs/z3.md
// "Views over common bytes in the one-loop proof").
void unmetAlias(const Model& m, const ViewPairs& unmet, const State& s, const Step& st) {
  if (st.pc < 0 || st.pc >= m.programSize(st.proc)) return;
  const Instr& in = m.instr(st.proc, st.pc);
  for (size_t i = 0; i < in.accesses.size(); ++i) {
    const Access& r = in.accesses[i];
    if (r.write || r.view < 0 || r.view_written) continue;
    const sim::AtomRange& ar = m.atoms_of[st.proc][st.pc][i];
    for (int x = ar.a0; x < ar.a1; ++x) {
      const int t = m.tracked_of[x];
      if (t < 0) continue;
      const int32_t d = s.v[sim::atomField(m, t, sim::kData)];
      if (d < 0) continue;
      const Model::WriteRef& w = m.writes[d];
      if (w.proc == st.proc) continue;  // its own data: never stale (sim::staleWrite)
      const int wv = m.access(w.proc, w.pc, w.acc).view;
      if (unmet.count({wv, r.view}))
        throw Fail(fmt::format("{} reads {} where {} wrote it through {}, and the shifts move the two views by "
                               "different laps",
                               m.sys.procs[st.proc].name, r.what, m.sys.procs[w.proc].name,
                               m.sys.schedule->views[wv].name));
    }
  }
}

// Sets to 0 the generations of the views whose every access, in all of
// `group`, is to bytes its own process alone touches (attempt()). A whole
// view or none: the period's generation delta is one per view, and zeroing
// some of a view's accesses only would give it two. With `unread_reads`,
// also the generation of every view read of bytes that no other process
// writes in any of them: sim::staleData compares a read's generation only
// with a write of another process (sim::staleWrite), so nothing reads it.
// Three walks, not one: the views shared need every access's bytes, and
// the zeroing needs the views shared (a write's bytes do not depend on any
// generation, so the first walk gathers the writes too).
void zeroPrivateGenerations(const std::vector<System*>& group, bool unread_reads = false) {
  std::set<AccessRange> all, writes;  // (space, lo, hi, process) of every access, of every write
  for (const System* sys : group)
    for (size_t p = 0; p < sys->procs.size(); ++p)
      for (const Instr& in : sys->procs[p].program)
        for (const Access& a : in.accesses) {
          all.insert(accessRange(a, static_cast<int>(p)));
          if (unread_reads && a.write) writes.insert(accessRange(a, static_cast<int>(p)));
        }
  std::set<int> shared;  // views with an access to bytes another process touches
  for (const System* sys : group)
    for (size_t p = 0; p < sys->procs.size(); ++p)
      for (const Instr& in : sys->procs[p].program)
        for (const Access& a : in.accesses)
          if (a.view >= 0 && !shared.count(a.view) && !privateTo(all, a, static_cast<int>(p))) shared.insert(a.view);
  for (System* sys : group)
    for (size_t p = 0; p < sys->procs.size(); ++p)
      for (Instr& in : sys->procs[p].program)
        for (Access& a : in.accesses)
          if (a.view >= 0 && (!shared.count(a.view) ||
                              (unread_reads && !a.write && privateTo(writes, a, static_cast<int>(p)))))
            a.gen = 0;
}

// Can findPeriod succeed for this window? Asked of the system for W alone,
// before the systems for t0..W are built (w.base and w.shape set, nothing
// else). findPeriod needs some P <= max_period for which every looping
// process has iteration v + P equal to iteration v shifted at its last
// iterations, with one set of deltas for all processes, in the system for
// W after the private generations are zeroed (over every system of the
// window). Here each process only needs *some* iteration v (up to the
// loop's full end, which bounds the steady end that findPeriod uses) with
// deltas of its own, in the system for W with the generations zeroed that
// are private over that system alone: a superset of the views zeroed over
// all systems (an access private among more accesses is private among
// fewer), and a zeroed generation only removes a delta to agree on. So
// false here means false in findPeriod for this window: a body whose
// iterations never repeat within 24 (a view written twice an iteration at
// one index and once at another: its generations move by 2 and by 1)
// fails at once instead of after building every system of every window.
bool periodPossible(const Window& w, int max_period) {
  // On a copy: the views private over W's system alone may be shared over
  // the window's systems (built only if this says yes), and attempt()
  // zeroes w.base over those; so this pass cannot be that one.
  Window pre;
  pre.base = w.base;
  pre.shape = w.shape;
  zeroPrivateGenerations({&pre.base});
  for (int64_t P = 1; P <= max_period; ++P) {
    bool every = true;
    for (size_t p = 0; p < pre.shape.size() && every; ++p) {
      const ProcShape& sh = pre.shape[p];
      if (!sh.loops) continue;
      bool some = false;
      for (int64_t v = sh.lo; v + P + 1 <= sh.end && !some; ++v) {
        Deltas d;
        some = bodyShifted(pre, p, v, P, d);
      }
      every = some;
    }
    if (every) return true;
  }
  return false;
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
                        b1, w.d, static_cast<int>(p));
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
// phases, the generations of the named barriers in `named` that move, its
// views' data tags)? A named barrier's generation is no part of an
// instruction's text: the simulator reads it only against a waiting
// process's own, and shiftState moves the barrier's generation and every
// waiting process's by the same delta. The persistent proof's checks of
// the parts before the K loop therefore pass only the cluster barrier here
// (its generation is also read against 0; gridCounts' textNamed); the
// other callers keep every named barrier, a narrower relaxation than the
// argument allows (docs/z3.md "A named barrier synced before the K loop
// and in it", "A view over a ring that moves with the tiles").
bool unmoved(const Deltas& d, const std::map<int, int64_t>& named, const Instr& in) {
  if (in.slot >= 0 && Deltas::of(d.slot_phase, in.slot) != 0) return false;
  if (in.named >= 0 && Deltas::of(named, in.named) != 0) return false;
  return std::none_of(in.accesses.begin(), in.accesses.end(),
                      [&](const Access& a) { return a.view >= 0 && d.viewMoves(a.view); });
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
      for (int i = n - 1; i >= 0 && unmoved(w.d, w.named_delta, prog[i]); --i) shift[i] = i;
      continue;
    }
    const int loop_end = sh.loopEnd();
    prog.resize(static_cast<size_t>(loop_end));
    // the B iterations after the A ones (a kind boundary)
    Window::KindCopy* kc = w.kind.empty() || !w.kind[p].kinded ? nullptr : &w.kind[p];
    if (kc) {
      kc->begin = loop_end;
      prog.insert(prog.end(), kc->text.begin(), kc->text.end());
    }
    const int b_end = static_cast<int>(prog.size());
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
    for (int i = loop_end; i < b_end; ++i) {  // B iteration lo follows the prefix
      next[i] = i + 1;
      prev[i] = i == loop_end ? sh.headOf(sh.lo) - 1 : i - 1;
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
    if (kc)
      for (int64_t v = w.w0 + w.P; v < sh.end; ++v)
        for (int i = kc->headOf(v, sh.lo); i < kc->headOf(v + 1, sh.lo); ++i)
          shift[i] = kc->headOf(v - w.P, sh.lo) + (i - kc->headOf(v, sh.lo));
    for (int64_t T = std::max(w.j0, w.t1 + w.P); T <= w.W; ++T) {
      auto [a, b] = suffix[T];
      auto [a2, b2] = suffix[T - w.P];
      for (int i = a; i < b; ++i) shift[i] = a2 + (i - a);
      shift[n + (T - w.t1)] = n + static_cast<int>(T - w.P - w.t1);
    }
  }
}

// ================================================================ exploration

// One shift of the explored states (a period back): where each pc moves
// (-1: it cannot), and how far the slots' phases, the views, the named
// barriers' generations and each process's MMA commits move with it.
struct ShiftMap {
  const std::vector<std::vector<int>>& pc;
  const Deltas& d;
  const std::map<int, int64_t>& named;
  const std::vector<int64_t>& commits;
  // For in-flight loads and non-MMA groups (their pcs name an operation's
  // text only): where it differs from `pc`, a copy of the same text.
  const std::vector<std::vector<int>>* ref = nullptr;
  // (tracked atom, write id): a data tag of a write no shift maps that may
  // stay where it is although its view moves (keptTags).
  const std::set<std::pair<int, int>>* kept = nullptr;
};

// Thread-block clusters (docs/z3.md "Clusters"): the simulator reads the
// cluster barrier's generation in one more way than the others, whether it
// completed at all (`clusterReady`: a remote arrive or multicast before the
// first lm.cluster_sync() is a sync.cluster-init). A shift that moves the
// generation must not change that answer, or the shifted state would have
// other futures; such a state is kept as it is.
bool clusterBarrierKept(const Model& m, const State& s, const std::map<int, int64_t>& named) {
  const int nb = m.sys.cluster_named;
  if (nb < 0) return true;
  const int64_t gen = s.v[m.off_named + 2 * nb];
  return (gen > 0) == (gen - Deltas::of(named, nb) > 0);
}

// Whether two instructions come from ops of one kind. The simulator and the
// reducer read an instruction's source statement only for the text of a
// report (its op kind, sim_state.cpp `actor`, and its location), so a shift
// may map an instruction onto one of another statement of the same kind:
// the two branches of `if t % 2 == 0:` that name a stage each (docs/z3.md
// "A named barrier in a shift by part of the tile period").
bool sameSourceKind(const Instr& a, const Instr& b) {
  return a.stmt == b.stmt || (a.stmt && b.stmt && a.stmt->op.kind == b.stmt->op.kind);
}

// A process's observed MMA-commit count (-1 and below: none observed, kept
// as it is) moved back by the `commits` a shift removes; nullopt when it
// would fall below -1 (the shifted state would stand for no run).
std::optional<int32_t> observedCommitsBack(int32_t obs, int64_t commits) {
  if (obs < 0) return obs;
  obs -= static_cast<int32_t>(commits);
  if (obs < -1) return std::nullopt;
  return obs;
}

// The data tags that a shift may leave where they are although their
// write's view moves (docs/z3.md "A write no shift maps, kept in bytes
// whose readers do not move"): (tracked atom t, write id) for each write
// that `pc` does not map (a prologue's, or an iteration's before the
// warm-up's end) whose view moves, and each atom t of its bytes, where
// every read of another process that checks t (sim checkRead: every atom
// of the read's range) is *steady*: its key learned by the shifts (or its
// view moving not at all) with delta 0 in its view's index and in its
// generation. A tag is read only by sim::staleData, which compares the
// write's access with the reading access (index, generation, lap: each
// the access's own fields, the lap from them); the tag left as it is keeps
// the write's fields, and a steady read one period later is the read
// shifted with the same fields (shiftedInstr: its key's delta is 0), so
// every comparison of the tag in the shifted state's runs is the one in
// the state's runs. A read of the writer's own process never compares
// (its own data, sim::staleWrite), nor one through another view that its
// process writes there (stale whatever the tag) or that is a member of the
// write's view's union (fresh whatever the tag: sim::viewsDecide). Anything else leaves
// the pair out, and shiftState refuses the state as before.
std::set<std::pair<int, int>> keptTags(const Model& m, const std::vector<std::vector<int>>& pc, const Deltas& d) {
  std::set<std::pair<int, int>> out;
  std::map<int, std::vector<int>> held;  // tracked atom -> the writes no shift maps in moving views
  for (size_t id = 0; id < m.writes.size(); ++id) {
    const Model::WriteRef& wr = m.writes[id];
    if (pc[wr.proc][wr.pc] >= 0) continue;
    const Access& a = m.access(wr.proc, wr.pc, wr.acc);
    if (a.view < 0 || !d.viewMoves(a.view)) continue;
    const sim::AtomRange& r = m.atoms_of[wr.proc][wr.pc][wr.acc];
    for (int x = r.a0; x < r.a1; ++x)
      if (m.tracked_of[x] >= 0) held[m.tracked_of[x]].push_back(static_cast<int>(id));
  }
  if (held.empty()) return out;
  // the pcs a shifted state can run: every pc a shift moves something to
  // (a process's, an in-flight op's), and every pc after one of them
  std::vector<std::vector<char>> reach(static_cast<size_t>(m.P));
  for (int p = 0; p < m.P; ++p) {
    auto& r = reach[p];
    r.assign(static_cast<size_t>(m.programSize(p)), 0);
    std::vector<int> todo;
    for (int to : pc[p])
      if (to >= 0 && to < m.programSize(p) && !r[to]) {
        r[to] = 1;
        todo.push_back(to);
      }
    while (!todo.empty()) {
      const int x = todo.back();
      todo.pop_back();
      const int n = m.nextPc(p, x);
      if (n >= 0 && n < m.programSize(p) && !r[n]) {
        r[n] = 1;
        todo.push_back(n);
      }
    }
  }
  std::set<std::pair<int, int>> moved;  // pairs some read does not keep
  for (int p = 0; p < m.P; ++p)
    for (int pc0 = 0; pc0 < m.programSize(p); ++pc0) {
      if (!reach[p][pc0]) continue;
      const Instr& in = m.instr(p, pc0);
      for (size_t i = 0; i < in.accesses.size(); ++i) {
        const Access& r = in.accesses[i];
        if (r.write || r.view < 0) continue;
        const GenDeltas& gens = r.stage_like ? d.view_gen_stage : d.view_gen;
        const GenKey key = genKey(r, p);
        const bool steady = (gens.count(key) > 0 || !d.viewMoves(r.view)) && Deltas::of(gens, key) == 0 &&
                            Deltas::of(d.view_index, r.view) == 0;
        if (steady) continue;
        const sim::AtomRange& ar = m.atoms_of[p][pc0][i];
        for (int x = ar.a0; x < ar.a1; ++x) {
          const int t = m.tracked_of[x];
          auto it = t >= 0 ? held.find(t) : held.end();
          if (it == held.end()) continue;
          for (int id : it->second) {
            const Model::WriteRef& wr = m.writes[id];
            if (wr.proc == p) continue;  // its own data: never stale
            if (sim::viewsDecide(*m.sys.schedule, m.access(wr.proc, wr.pc, wr.acc), r)) continue;  // whatever the tag
            moved.insert({t, id});
          }
        }
      }
    }
  for (const auto& [t, ids] : held)
    for (int id : ids)
      if (!moved.count({t, id})) out.insert({t, id});
  return out;
}

// Moves s by `sh` if every part of it can move (program counters,
// completed-phase counts, named-barrier generations, data tags, in-flight
// loads, async groups, unobserved completions); false leaves s alone.
bool shiftState(const Model& m, State& s, const ShiftMap& sh) {
  if (!clusterBarrierKept(m, s, sh.named)) return false;
  for (int p = 0; p < m.P; ++p)  // the common refusal first, before any copy
    if (sh.pc[p][sim::pcOf(m, s, p)] < 0) return false;
  State n = s;
  for (int p = 0; p < m.P; ++p) {
    int pc = sim::pcOf(m, s, p);
    int to = sh.pc[p][pc];
    if (to < 0) return false;
    n.v[m.off_pc + p] = to;
    if (pc < m.programSize(p) && m.instr(p, pc).kind == InstrKind::SyncWait)
      n.v[m.off_sgen + p] -= static_cast<int32_t>(Deltas::of(sh.named, m.instr(p, pc).named));
    const std::optional<int32_t> obs = observedCommitsBack(s.v[m.off_obs + p], m.ordinal(p) ? 0 : sh.commits[p]);
    if (!obs) return false;
    n.v[m.off_obs + p] = *obs;
  }
  for (int k = 0; k < m.S; ++k)
    n.v[m.off_slot + sim::kSlotFields * k + sim::kCompleted] -= static_cast<int32_t>(Deltas::of(sh.d.slot_phase, k));
  for (int k = 0; k < m.N; ++k) n.v[m.off_named + 2 * k] -= static_cast<int32_t>(Deltas::of(sh.named, k));
  for (int t = 0; t < m.tracked; ++t) {
    int32_t& id = n.v[sim::atomField(m, t, sim::kData)];
    if (id < 0) continue;
    const Model::WriteRef& wr = m.writes[id];
    int to = sh.pc[wr.proc][wr.pc];
    if (to >= 0) {
      id = m.write_id[wr.proc][to][wr.acc];
      if (id < 0) return false;
    } else if (sh.d.viewMoves(m.access(wr.proc, wr.pc, wr.acc).view) && !(sh.kept && sh.kept->count({t, id}))) {
      return false;
    }
  }
  Async a = sim::decodeAsync(m, s);
  auto movePc = [&](int p, int32_t& pc, bool by_text) {
    if (pc < 0) return true;
    pc = (by_text && sh.ref ? *sh.ref : sh.pc)[p][pc];
    return pc >= 0;
  };
  std::set<std::pair<int, int>> seen;  // copies of one text must not merge two loads / group ops
  for (sim::Load& l : a.loads) {
    l.phase -= static_cast<int32_t>(Deltas::of(sh.d.slot_phase, m.instr(l.proc, l.pc).slot));
    if (!movePc(l.proc, l.pc, true) || !seen.insert({l.proc, l.pc}).second) return false;
  }
  for (int p = 0; p < m.P; ++p)
    for (int k = 0; k < sim::kGroupKinds; ++k)
      for (sim::Group& g : a.of(p, k)) {
        if (!movePc(p, g.commit_pc, k != sim::kMma)) return false;
        for (int32_t& pc : g.pcs)
          if (!movePc(p, pc, k != sim::kMma) || !seen.insert({p, pc}).second) return false;
      }
  for (sim::Unobserved& u : a.unobserved) {
    u.phase -= static_cast<int32_t>(Deltas::of(sh.d.slot_phase, u.slot));
    if (u.proc >= 0 && !m.ordinal(u.proc)) {  // (ordinals: order only, unmoved)
      u.seq -= static_cast<int32_t>(sh.commits[u.proc]);
      if (u.seq < 0) return false;
    }
  }
  sim::encodeAsync(m, n, a);
  s.v.assign(n.v.begin(), n.v.end());  // keeps s's capacity (the explorer's buffer)
  return true;
}


// What an exploration charges per expanded state besides the state itself
// (ProofBudget::Tally): the instructions of the programs searched, or the
// operations its reducer counted (`ReducerCharge::por`), or both.
struct ReducerCharge {
  const sim::Reducer* por = nullptr;  // whose Work::ops are charged (window_ops)
  bool instrs = true;                 // the programs' instructions per expanded state too
  uint64_t allowance = 0;             // operations per expanded state not charged
  // The persistent-kernel exploration: its reducer's operations instead of
  // the instructions.
  static ReducerCharge instead(const sim::Reducer* r) { return {r, r == nullptr, 0}; }
  // The lap exploration: the operations beyond kLapAllowance per expanded
  // state besides the instructions (docs/z3.md "The lap exploration's
  // windows charged": the weights per state and per instruction, fitted
  // over the corpus, pay for a typical reduction's windows; quack's, 3,000
  // operations a state, cost 35 us of CPU a state and were charged 5 us).
  static constexpr uint64_t kLapAllowance = 1400;
  static ReducerCharge besides(const sim::Reducer* r) { return {r, true, kLapAllowance}; }
  uint64_t ops() const { return por ? por->work().ops : 0; }
  // The operations charged for `done` operations over `expanded` states
  // (expandAll: over the whole exploration so far).
  uint64_t charged(uint64_t done, uint64_t expanded) const {
    return done > allowance * expanded ? done - allowance * expanded : 0;
  }
};

// Expands every state of g in insertion order (expanding adds more) within
// the budget (states, memory, time); returns the number of states.
// `charge_as`: what each expanded state costs (ReducerCharge).
uint64_t expandAll(sim::Graph& g, const sim::Model& m, uint64_t per_state, const TripProofOptions& opts,
                   ProofBudget& budget, const std::function<void(int)>& expand, size_t from = 0,
                   ReducerCharge charge_as = {}) {
  const uint64_t max_states = std::min<uint64_t>(opts.max_states, uint64_t{opts.memory_mb} * 1024 * 1024 / per_state);
  // the work: every state expanded (its copy, its enabled steps, the
  // reduction's walk over the programs), every successor offered to the
  // visited set (hashed, compared)
  uint64_t instrs = 0;
  for (int p = 0; p < m.P; ++p) instrs += static_cast<uint64_t>(m.programSize(p));
  uint64_t words = g.insertedWords(), offered = g.offered(), expanded = 0;
  // (the allowance over the whole exploration, not per batch: the most
  // operations beyond it so far, charged as they grow)
  const uint64_t ops0 = charge_as.ops();
  uint64_t expanded_all = 0, excess_charged = 0;
  auto charge = [&] {
    ProofBudget::Tally t;
    t.expanded = expanded;
    t.offered = g.offered() - offered;
    t.words = g.insertedWords() - words;
    expanded_all += expanded;
    const uint64_t excess = charge_as.charged(charge_as.ops() - ops0, expanded_all);
    t.window_ops = excess > excess_charged ? excess - excess_charged : 0;
    excess_charged = std::max(excess_charged, excess);
    if (charge_as.instrs) t.expanded_instrs = expanded * instrs;
    budget.add(t);
    words = g.insertedWords();
    offered = g.offered();
    expanded = 0;
  };
  for (size_t n = from; n < g.size(); ++n) {
    if ((n - from) % 256 == 0) {
      charge();
      if (g.size() > max_states)
        throw Fail(fmt::format("state cap of {} states exceeded after {} work units", max_states, budget.used()));
      checkBudget(budget, fmt::format("after {} states", g.size()));
    }
    expand(static_cast<int>(n));
    ++expanded;
  }
  charge();
  checkBudget(budget, fmt::format("after {} states", g.size()));
  return g.size();
}

// The cycle proviso checked on the explored graph (docs/z3.md step 13 of
// the persistent exploration): the edges out of states not expanded fully,
// and the states to expand fully so that those states span no cycle.
class ReducedEdges {
 public:
  // Scope of one expansion of `node`: the first records its edges (add())
  // if it ends reduced(); a second, force_full, marks the node full.
  class Record {
   public:
    Record(ReducedEdges& e, int node, bool enabled, bool force_full) : e_(e) {
      if (!enabled) return;
      first_ = static_cast<size_t>(node) == e_.reduced_.size();
      if (first_) {
        e_.reduced_.push_back(0);
        if (e_.edge_at_.empty()) e_.edge_at_.push_back(0);
      } else if (force_full) {
        e_.reduced_[node] = 0;
      }
      node_ = node;
    }
    ~Record() {
      if (first_) e_.edge_at_.push_back(static_cast<uint32_t>(e_.edges_.size()));
    }
    bool on() const { return first_; }
    void reduced() {
      if (first_) e_.reduced_[node_] = 1;
    }
    Record(const Record&) = delete;
    Record& operator=(const Record&) = delete;

   private:
    ReducedEdges& e_;
    bool first_ = false;
    int node_ = -1;
  };
  void add(int id) { edges_.push_back(id); }

  // Sources of edges whose removal leaves the subgraph of reduced states
  // without a cycle: the back edges of a depth-first search over it (every
  // other edge goes from a later-finished node to an earlier-finished one).
  std::vector<int> cycleCuts() const {
    const size_t n = reduced_.size();
    std::vector<char> color(n, 0);  // 0 unvisited, 1 on the stack, 2 done
    std::vector<std::pair<int, uint32_t>> stack;
    std::vector<int> cut;
    for (size_t root = 0; root < n; ++root) {
      if (!reduced_[root] || color[root]) continue;
      stack.push_back({static_cast<int>(root), edge_at_[root]});
      color[root] = 1;
      while (!stack.empty()) {
        auto& [v, e] = stack.back();
        if (e == edge_at_[v + 1]) {
          color[v] = 2;
          stack.pop_back();
          continue;
        }
        const int w = edges_[e++];
        if (static_cast<size_t>(w) >= n || !reduced_[w]) continue;
        if (color[w] == 1) {
          if (cut.empty() || cut.back() != v) cut.push_back(v);
        } else if (color[w] == 0) {
          color[w] = 1;
          stack.push_back({w, edge_at_[w]});
        }
      }
    }
    std::sort(cut.begin(), cut.end());
    cut.erase(std::unique(cut.begin(), cut.end()), cut.end());
    return cut;
  }

 private:
  // reduced_[node]; edges_[edge_at_[node] .. edge_at_[node + 1])
  std::vector<char> reduced_;
  std::vector<uint32_t> edge_at_;
  std::vector<int32_t> edges_;
};

// expandAll, then the cycle proviso checked on the explored graph: each
// state that cycleCuts() names is expanded fully (expand(node, true)), its
// new successors explored in turn, until the reduced states span no cycle.
// Returns the rounds and the states expanded again.
// `charge_as` as for expandAll.
std::pair<uint64_t, uint64_t> expandWithCheckedProviso(sim::Graph& g, const sim::Model& m, uint64_t per_state,
                                                       const TripProofOptions& opts, ProofBudget& budget,
                                                       const ReducedEdges& edges,
                                                       const std::function<void(int, bool)>& expand,
                                                       ReducerCharge charge_as = {}) {
  uint64_t instrs = 0, rounds = 0, again = 0;
  for (int p = 0; p < m.P; ++p) instrs += static_cast<uint64_t>(m.programSize(p));
  for (size_t from = 0;;) {
    expandAll(g, m, per_state, opts, budget, [&](int k) { expand(k, false); }, from, charge_as);
    from = g.size();
    const std::vector<int> cut = edges.cycleCuts();
    if (cut.empty()) break;
    const uint64_t ops = charge_as.ops();
    for (int k : cut) expand(k, true);
    ++rounds;
    again += cut.size();
    ProofBudget::Tally t;  // the re-expanded states, as expandAll counts its own
    t.expanded = cut.size();
    t.window_ops = charge_as.charged(charge_as.ops() - ops, cut.size());
    if (charge_as.instrs) t.expanded_instrs = cut.size() * instrs;
    budget.add(t);
    checkBudget(budget, fmt::format("after {} states", g.size()));
  }
  return {rounds, again};
}

// A violation met while the CTAs of a cluster were shifted one by one
// (docs/z3.md "Independent CTAs"): each CTA had its own trip count, so the
// run need not be one of the schedule's. attempt() explores again with the
// CTAs shifted together, which reports it as before (or proves nothing).
struct MetApart {};

// [x]: atom x is accessed by two processes of the model (an async op
// counts as an access of the process that issues it).
std::vector<char> atomsOfSeveral(const Model& m) {
  std::vector<int> by(static_cast<size_t>(m.atoms), -1);
  std::vector<char> met(static_cast<size_t>(m.atoms), 0);
  for (int p = 0; p < m.P; ++p)
    for (int pc = 0; pc < m.programSize(p); ++pc)
      for (size_t i = 0; i < m.instr(p, pc).accesses.size(); ++i) {
        const sim::AtomRange& r = m.atoms_of[p][pc][i];
        for (int x = r.a0; x < r.a1; ++x) {
          if (by[x] >= 0 && by[x] != p) met[x] = 1;
          by[x] = p;
        }
      }
  return met;
}

class LapExplorer {
 public:
  LapExplorer(const Window& w, const TripProofOptions& opts, ProofBudget& budget)
      : w_(w), m_(w.comb, &w.flow), opts_(opts), budget_(budget) {
    kept_ = keptTags(m_, w_.shift_pc, w_.d);
    for (int p = 0; p < m_.P; ++p) {
      const ProcShape& sh = w_.shape[p];
      layout_.is_head.emplace_back(static_cast<size_t>(m_.programSize(p)), 0);
      layout_.exits_begin.push_back(sh.loops ? sh.loopEnd() : m_.programSize(p));
      if (sh.loops)
        for (int64_t v = sh.lo; v < sh.end; ++v) layout_.is_head[p][sh.headOf(v)] = 1;
      layout_.exit_starts.emplace_back();
      if (sh.loops)
        for (const auto& [T, to] : w_.exit_to[p]) layout_.exit_starts.back().push_back(to);
    }
    if (kinds_) kindTables();
    if (opts_.reduce) reducer_.emplace(m_, &layout_);
    if (reducer_) reducer_->exitsFromBound(opts_.exits_from_bound || m_.sys.ctas > 1);
    checked_proviso_ = reducer_ && reducer_->active() && (m_.sys.ctas > 1 || opts_.checked_proviso);
    group_.assign(static_cast<size_t>(m_.P), 0);
    if (opts_.cta_shift) splitIntoCtas();
    if (opts_.pace_free_loops && groups_ == 1) {
      // docs/z3.md "Loops no barrier paces": the pcs of each process's loop
      std::vector<trip::Pacer::Loop> loops(static_cast<size_t>(m_.P));
      for (int p = 0; p < m_.P; ++p) {
        const ProcShape& sh = w_.shape[p];
        if (!sh.loops) continue;
        loops[p].begin = sh.headOf(sh.lo);
        loops[p].end = sh.loopEnd();
        loops[p].iter.assign(sh.iter_of.begin() + loops[p].begin, sh.iter_of.begin() + loops[p].end);
        loops[p].exit_starts = layout_.exit_starts[p];
      }
      pacer_.emplace(m_, std::move(loops), opts_.pace_alone);
    }
    // (the cycle proviso checked on the explored graph: clusters, one CTA
    // (checked_proviso), and the pacer's held-back states, where "fresh
    // successors only" would expand most of them fully; also for CTAs
    // shifted apart, where no pacer is made)
    record_edges_ = checked_proviso_ || (pacer_ && pacer_->active()) || kinds_;
    // (no pairs with a kind boundary: its argument swaps no processes)
    if (opts_.lap_symmetry && !opts_.meets && !kinds_) setSymmetry();
  }

  // Proved or throws Fail / WindowTooSmall (MetApart: see above).
  uint64_t run() {
    if (opts_.meets) recordingStarts(*opts_.meets);
    State init = sim::initialState(m_);
    std::vector<int32_t> lt;
    for (int g = 0; g < groups_; ++g) lt.insert(lt.end(), {static_cast<int32_t>(w_.t1), -1});
    if (kinds_) lt.insert(lt.end(), {0, kOpen});  // the kind boundary x >= 0, open
    settleKinds(init, lt);
    g_.insert(pack(init, lt), -1, {});
    uint64_t per_state = init.v.size() * 4 + 64 + 48;
    // (the reducer's windows and closures charged besides the programs'
    // instructions: docs/z3.md "The lap exploration's windows charged")
    const ReducerCharge charge = ReducerCharge::besides(reducer_ && reducer_->active() ? &*reducer_ : nullptr);
    if (!record_edges_)
      return expandAll(g_, m_, per_state, opts_, budget_, [&](int n) { expand(n, false); }, 0, charge);
    // Clusters (docs/z3.md "A reduction for cluster proofs") and the
    // pacer's held-back states: the cycle proviso checked on the explored
    // graph, as the persistent explorer's step 13.
    expandWithCheckedProviso(g_, m_, per_state, opts_, budget_, edges_, [&](int n, bool full) { expand(n, full); },
                             charge);
    return g_.size();
  }
  // Whether each CTA kept its own trip count and shift.
  bool apart() const { return groups_ > 1; }
  // The pairs of interchangeable processes the exploration merges.
  const std::vector<SymPair>& pairs() const { return sym_; }

 private:
  const Window& w_;
  Model m_;
  const TripProofOptions& opts_;
  ProofBudget& budget_;
  sim::Graph g_;
  State cur_, next_;  // expand's buffers
  sim::ExitLayout layout_;
  std::optional<sim::Reducer> reducer_;
  std::optional<trip::Pacer> pacer_;  // loops no barrier paces (trip_pace.h)
  bool checked_proviso_ = false;  // the cycle proviso checked on the graph (TripProofOptions::checked_proviso)
  std::set<std::pair<int, int>> kept_;  // data tags a shift leaves where they are (keptTags)
  // The edges of reduced states recorded for that check: clustered systems,
  // and systems where the pacer may hold steps back (its states are checked
  // so; the reduction's keep "fresh successors only" there).
  bool record_edges_ = false;
  ReducedEdges edges_;
  // Trip-count groups: every process in group 0, or (independent CTAs) one
  // group per CTA, each with its own (L, T) at the end of the state and its
  // own shift (the window's shift for its processes, none for the others).
  int groups_ = 1;
  std::vector<int> group_;  // process -> group
  struct GroupShift {
    std::vector<std::vector<int>> pc;
    Deltas d;
    std::map<int, int64_t> named;
    std::vector<int64_t> commits;
  };
  std::vector<GroupShift> group_shift_;
  std::vector<int32_t> lt_;  // expand's (L, T) per group, then (Lx, X) with a kind boundary

  // A kind boundary (docs/z3.md "A kind boundary in the lap state"): the
  // state ends with (Lx, X): X >= 0 fixed, kOpen (at least Lx), or kPassed
  // (every kinded process past it: no future step reads it).
  static constexpr int32_t kOpen = -1, kPassed = -2;
  const bool kinds_ = !w_.kind.empty();
  std::vector<std::vector<int64_t>> b_iter_;  // [p][pc - begin]: the B iteration of a B pc
  size_t tail() const { return 2 * static_cast<size_t>(groups_) + (kinds_ ? 2 : 0); }
  bool kinded(int p) const { return kinds_ && w_.kind[p].kinded; }
  bool inB(int p, int pc) const {
    return kinded(p) && pc >= w_.kind[p].begin && pc < w_.kind[p].begin + static_cast<int>(w_.kind[p].text.size());
  }
  // The iteration of a B pc.
  int64_t bIter(int p, int pc) const { return b_iter_[p][static_cast<size_t>(pc - w_.kind[p].begin)]; }
  int aHead(int p, int64_t v) const { return w_.shape[p].headOf(v); }

  // Atoms one process alone accesses (its registers, also those its own
  // MMAs write): with none of its async work in flight, a plain operation
  // on them commutes with every other step.
  std::vector<char> several_;  // atomsOfSeveral: the others are local
  void kindTables() {
    several_ = atomsOfSeveral(m_);
    b_iter_.assign(static_cast<size_t>(m_.P), {});
    for (int p = 0; p < m_.P; ++p) {
      if (!kinded(p)) continue;
      const ProcShape& sh = w_.shape[p];
      const Window::KindCopy& kc = w_.kind[p];
      for (int64_t v = sh.lo; v < sh.end; ++v)
        for (int i = kc.rel[v - sh.lo]; i < kc.rel[v - sh.lo + 1]; ++i) b_iter_[p].push_back(v);
      // The simulator reads the instruction a process ran last (prev) for
      // races with other processes' steps, and the model counts MMA
      // commits along prev: a head of A reached from B (a switch, or an
      // exit path left from B) has A's last instruction as prev. The two
      // must be alike where another process can meet them.
      for (int64_t v = sh.lo + 1; v <= sh.end; ++v) {
        const int a = sh.headOf(v) - 1, b = kc.headOf(v, sh.lo) - 1;
        if (syncKey(p, a) != syncKey(p, b))
          throw Fail(fmt::format("{} ends iteration {} with synchronous accesses that differ by kind", m_.sys.procs[p].name,
                                 v - 1));
      }
    }
  }
  // A step taken alone in its state (docs/z3.md "A kind boundary in the
  // lap state", the reduction): a plain synchronous operation (no barrier,
  // no async work, no register hazard rule) on local atoms only, not at a
  // loop head (where the trip count and the boundary are chosen).
  bool localKindStep(const Step& st, const Async& a) const {
    if (st.kind != Step::Kind::Exec || st.pc < 0 || headAt(st.proc, st.pc)) return false;
    for (int k = 0; k < sim::kGroupKinds; ++k)
      if (!a.of(st.proc, k).empty()) return false;
    if (std::any_of(a.loads.begin(), a.loads.end(), [&](const sim::Load& l) { return l.proc == st.proc; })) return false;
    const Instr& in = m_.instr(st.proc, st.pc);
    if (in.kind != InstrKind::Generic || in.regs_hazard.regs_space >= 0 || in.regs_hazard.stored ||
        in.regs_hazard.discarded)
      return false;
    for (size_t i = 0; i < in.accesses.size(); ++i) {
      const sim::AtomRange& r = m_.atoms_of[st.proc][st.pc][i];
      for (int x = r.a0; x < r.a1; ++x)
        if (several_[x]) return false;
    }
    return true;
  }
  std::string syncKey(int p, int pc) const {
    if (pc < 0 || !m_.isSyncAccess(p, pc)) return "";
    std::string k = "s";
    for (const Access& a : m_.instr(p, pc).accesses)
      k += fmt::format(" {}:{}-{}:{}{}{}", a.space, a.lo, a.hi, a.write, static_cast<int>(a.proxy), a.async);
    return k;
  }
  // MMA commits of p on the path the model counts to pc (done pcs too).
  int commitsAt(int p, int pc) const {
    if (pc < m_.programSize(p)) return m_.commits_before[p][pc];
    const int before = m_.prevPc(p, pc);
    return before < 0 ? 0 : m_.commits_before[p][before] + (m_.instr(p, before).kind == InstrKind::MmaCommit);
  }
  // Moves p to `to`. Out of the B iterations the model counts p's MMA
  // commits along A's (prev): p's commit numbers are all moved by the
  // difference, which keeps their order and lm.mma_wait's count
  // (knowCompleted); with no MMA group of p in flight (whose completion
  // would take its number from the B text), else unknown.
  void moveTo(State& n, int p, int to) const {
    const int from = sim::pcOf(m_, n, p);
    n.v[m_.off_pc + p] = to;
    if (!inB(p, from) || inB(p, to) || m_.ordinal(p)) return;
    const int32_t D = commitsAt(p, to) - commitsAt(p, from);
    if (D == 0) return;
    Async a = sim::decodeAsync(m_, n);
    if (!a.of(p, sim::kMma).empty())
      throw Fail(fmt::format("{} leaves its kind B iterations with an MMA group in flight", m_.sys.procs[p].name));
    if (n.v[m_.off_obs + p] >= 0) n.v[m_.off_obs + p] += D;
    for (sim::Unobserved& u : a.unobserved)
      if (u.proc == p) u.seq += D;
    sim::encodeAsync(m_, n, a);
  }
  // With X fixed, a kinded process at the B head of X takes kind A there;
  // a boundary every kinded process is past (X fixed: each in its A
  // iterations or after the loop; X open: each after the loop) is no
  // longer read: kPassed.
  void settleKinds(State& s, std::vector<int32_t>& lt) const {
    if (!kinds_) return;
    int32_t& X = lt[lt.size() - 1];
    if (X == kPassed) return;
    bool past = true;
    for (int p = 0; p < m_.P; ++p) {
      if (!kinded(p)) continue;
      // the prefix leads to the A head of lo (the window's layout): a
      // process enters its loop in kind B unless X = lo
      const int64_t lo = w_.shape[p].lo;
      if (sim::pcOf(m_, s, p) == aHead(p, lo) && !(X >= 0 && X <= lo)) s.v[m_.off_pc + p] = w_.kind[p].headOf(lo, lo);
      const int pc = sim::pcOf(m_, s, p);
      if (X >= 0 && inB(p, pc) && bIter(p, pc) >= X) {
        if (bIter(p, pc) != X || w_.kind[p].headOf(X, w_.shape[p].lo) != pc)
          throw Fail("internal: a process ran a kind B iteration past the boundary");
        moveTo(s, p, aHead(p, X));
      }
      const int now = sim::pcOf(m_, s, p);
      past &= !inB(p, now) && now >= (X >= 0 ? w_.shape[p].headOf(w_.shape[p].lo) : w_.shape[p].loopEnd());
    }
    if (past) {
      X = kPassed;
      lt[lt.size() - 2] = -1;
    }
  }

  std::vector<SymPair> sym_;  // disjoint pairs of interchangeable processes (setSymmetry)

  // docs/z3.md "Interchangeable processes in lap induction": pairs whose
  // swap (swapPair) is an automorphism of the explored system, taken
  // greedily and disjoint. Besides the model's conditions (pairInModel)
  // every table the exploration reads per process must be equal for p and
  // q: the loop's shape (heads, iterations, trip-count offset), the exits
  // per trip count, the shift's pc map and commit delta, the control flow
  // and commit counts, the trip-count group; and the tags a shift leaves
  // in place (kept_) must be a set the swap maps onto itself.
  void setSymmetry() {
    sym_ = sim::interchangeablePairs(m_, [&](const SymPair& sp) { return lapTablesAgree(sp); });
  }

  bool lapTablesAgree(const SymPair& sp) const {
    const int p = sp.p, q = sp.q;
    const ProcShape &a = w_.shape[p], &b = w_.shape[q];
    if (a.loops != b.loops || a.var != b.var || a.lo != b.lo || a.off != b.off || a.end != b.end ||
        a.full_end != b.full_end || a.head != b.head || a.iter_of != b.iter_of)
      return false;
    auto same = [&](const auto& v) { return v.empty() || v[p] == v[q]; };
    if (!same(w_.exit_to) || !same(w_.shift_pc) || !same(w_.commit_delta) || !same(group_) ||
        !same(layout_.exit_starts) || !same(layout_.is_head))
      return false;
    for (const auto& [t, id] : kept_)
      if (!kept_.count({sp.tracked[t], sp.write[id]})) return false;
    return true;
  }

  // docs/z3.md "Independent CTAs": when the CTAs share nothing but the
  // cluster barrier and that barrier moves by no generation per period, a
  // step of CTA c commutes with the shift of CTA c' != c (it reads and
  // writes none of what that shift moves), and the shift of CTA c alone is
  // the window's shift restricted to CTA c's objects. Each CTA then keeps
  // its own trip count: the runs explored include every run of the
  // schedule (all CTAs with one trip count) and more, so a clean
  // exploration proves the schedule; a violation is not reported from it
  // (MetApart).
  void splitIntoCtas() {
    const System& sys = m_.sys;
    if (sys.ctas <= 1 || !trip::ctasShareOnlyTheClusterBarrier(sys)) return;
    if (sys.cluster_named >= 0 && Deltas::of(w_.named_delta, sys.cluster_named) != 0) return;
    groups_ = sys.ctas;
    for (int p = 0; p < m_.P; ++p) group_[p] = sys.procs[p].cta;
    for (int c = 0; c < groups_; ++c) {
      GroupShift gs;
      for (int p = 0; p < m_.P; ++p) {
        if (group_[p] == c) {
          gs.pc.push_back(w_.shift_pc[p]);
          gs.commits.push_back(w_.commit_delta[p]);
        } else {
          std::vector<int> same(w_.shift_pc[p].size());
          for (size_t i = 0; i < same.size(); ++i) same[i] = static_cast<int>(i);
          gs.pc.push_back(std::move(same));
          gs.commits.push_back(0);
        }
      }
      gs.d = w_.d;
      gs.d.slot_phase.clear();
      for (const auto& [k, dk] : w_.d.slot_phase)
        if (k >= 0 && k < static_cast<int>(sys.slots.size()) && sys.slots[k].cta == c) gs.d.slot_phase[k] = dk;
      for (const auto& [n, dn] : w_.named_delta)
        if (n != sys.cluster_named && sys.named_per_cta > 0 && n / sys.named_per_cta == c) gs.named[n] = dn;
      group_shift_.push_back(std::move(gs));
    }
  }

  static State pack(State s, const std::vector<int32_t>& lt) {
    s.v.insert(s.v.end(), lt.begin(), lt.end());
    return s;
  }

  // The iteration whose head process p is at, or nullopt.
  std::optional<int64_t> headAt(int p, int pc) const {
    const ProcShape& sh = w_.shape[p];
    if (inB(p, pc)) {  // (a head of a B iteration)
      const int64_t v = bIter(p, pc);
      if (w_.kind[p].headOf(v, sh.lo) != pc) return std::nullopt;
      return v;
    }
    if (!sh.loops || pc >= sh.loopEnd() || sh.iter_of[pc] < 0) return std::nullopt;
    int64_t v = sh.iter_of[pc];
    if (sh.headOf(v) != pc) return std::nullopt;
    return v;
  }

  // `L`: the least trip count the state allows while T is open. A
  // violation the simulator's rules report is `met` (a concrete one for the
  // caller to confirm); the proof's own stand-ins are not.
  [[noreturn]] void failWith(const Violation& v, int32_t T, int32_t L, bool met = true) const {
    if (apart()) throw MetApart{};
    // (a kind boundary's runs are those of every 0 <= x <= T, which the
    // lm.assume facts need not allow: no finding, the bounded check decides)
    if (kinds_) met = false;
    std::string where = v.primary.proc >= 0 && v.primary.pc >= 0 && v.primary.pc < m_.programSize(v.primary.proc)
                            ? " at " + opText(*w_.comb.schedule, *m_.instr(v.primary.proc, v.primary.pc).stmt)
                            : "";
    std::string what = fmt::format("the exploration over every trip count meets {}{}{}: {}", v.rule, where,
                                   T >= 0 ? "" : " (trip count still open)", v.message);
    if (met) throw Met(what, v, T >= 0 ? T : std::max<int64_t>(L, w_.t1), T < 0);
    throw Fail(what);
  }

  // The record of the writers each read meets (trip_restart.h ReadMeets)
  // names a read and a write by (process, view, index, bytes), so a state
  // shifted a period back must hold the same keys: every access keeps its
  // view, index and bytes under the shift (a ring rotation would permute
  // them), else the record is refused.
  void recordingStarts(trip::ReadMeets& rec) const {
    ++rec.explorations;
    for (int p = 0; p < m_.P && rec.refused.empty(); ++p)
      for (int pc = 0; pc < m_.programSize(p); ++pc) {
        const int to = static_cast<size_t>(pc) < w_.shift_pc[p].size() ? w_.shift_pc[p][pc] : -1;
        if (to < 0 || to == pc || to >= m_.programSize(p)) continue;
        const auto& a = m_.instr(p, pc).accesses;
        const auto& b = m_.instr(p, to).accesses;
        const bool same = a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const Access& x, const Access& y) {
          return x.space == y.space && x.view == y.view && x.index == y.index && x.lo == y.lo && x.hi == y.hi &&
                 x.runs == y.runs && x.stride == y.stride && x.write == y.write;
        });
        if (!same) {
          rec.refused = fmt::format("the lap shift moves an access of {} to another index or bytes", m_.sys.procs[p].name);
          break;
        }
      }
  }

  int32_t Lof(int p) const { return lt_[2 * group_[p]]; }
  int32_t Tof(int p) const { return lt_[2 * group_[p] + 1]; }

  void expand(int node, bool force_full) {
    // (checked proviso: the first expansion of a node records its edges when
    // it is reduced; a second one, force_full, expands a reduced node fully)
    ReducedEdges::Record record(edges_, node, record_edges_, force_full);
    // the node's state and each successor in buffers kept across expansions
    // (a state's copy per successor and its reallocation for (L, T) were a
    // fifth of a cluster proof's time)
    State& s = cur_;
    g_.stateInto(node, s);
    lt_.assign(s.v.end() - static_cast<std::ptrdiff_t>(tail()), s.v.end());
    s.v.resize(s.v.size() - tail());
    // (one group: the state's L and T as before)
    const int32_t T = lt_[1];
    const int32_t L = lt_[0];
    Async a = sim::decodeAsync(m_, s);
    for (int p = 0; p < m_.P; ++p) {
      const ProcShape& sh = w_.shape[p];
      int pc = sim::pcOf(m_, s, p);
      if (sh.loops && pc < sh.loopEnd() && sh.iter_of[pc] >= sh.end - 1) throw WindowTooSmall{};
      if (inB(p, pc) && bIter(p, pc) >= sh.end - 1) throw WindowTooSmall{};
    }
    // the kind boundary: X fixed (>= 0), open (at least Lx) or passed
    const int32_t X = kinds_ ? lt_[lt_.size() - 1] : kPassed, Lx = kinds_ ? lt_[lt_.size() - 2] : 0;
    std::vector<Step> steps;
    std::vector<std::pair<int, int64_t>> exits;  // (process, trip count it fixes)
    for (const Step& st : sim::enabledSteps(m_, s, a)) {
      if (st.kind == Step::Kind::Exec) {
        auto v = headAt(st.proc, st.pc);
        const int32_t Tp = Tof(st.proc);
        if (v && Tp >= 0 && Tp + w_.shape[st.proc].off <= *v) continue;  // the loop is over for this T
        // kind B at v with X open: X > v, and X <= T
        if (v && X == kOpen && inB(st.proc, st.pc) && Tp >= 0 && *v + 1 > Tp) continue;
      }
      steps.push_back(st);
    }
    // X open: a kinded process at the B head of v >= Lx may take kind A
    // there, which fixes X = v (X <= T)
    std::vector<std::pair<int, int64_t>> switches;
    if (X == kOpen)
      for (int p = 0; p < m_.P; ++p) {
        const int pc = sim::pcOf(m_, s, p);
        auto v = inB(p, pc) ? headAt(p, pc) : std::nullopt;
        if (v && *v >= Lx && (Tof(p) < 0 || *v <= Tof(p))) switches.push_back({p, *v});
      }
    for (int p = 0; p < m_.P; ++p) {
      auto v = headAt(p, sim::pcOf(m_, s, p));
      if (!v) continue;
      // the loop runs while v < T + off
      const int64_t lo = w_.shape[p].lo, off = w_.shape[p].off;
      const int32_t Tp = Tof(p), Lp = Lof(p);
      if (Tp >= 0) {
        if (Tp + off > *v) continue;
        if (*v != w_.shape[p].lastHead(Tp)) throw Fail("internal: a process passed the end of its loop");
        exits.push_back({p, Tp});
      } else if (*v > lo) {
        if (*v - off >= Lp) exits.push_back({p, *v - off});  // it ran iteration v - 1: T = v - off exactly
      } else {
        for (int64_t t = Lp; t <= lo - off; ++t) exits.push_back({p, t});
      }
    }
    if (X == kOpen)  // X <= T
      std::erase_if(exits, [&](const std::pair<int, int64_t>& e) { return e.second < Lx; });
    std::vector<Violation> here;
    std::vector<Step> live = steps;
    if (!exits.empty() || !switches.empty()) live.push_back({});
    sim::stateViolations(m_, s, a, live, {}, here);
    if (!here.empty()) failWith(here.front(), T, L);
    bool open_exit = false;
    for (const auto& e : exits) open_exit |= Tof(e.first) < 0;
    if (!switches.empty()) {
      // For every X beyond each head (X open), each kinded process at a B
      // head enters kind B: the steps, and the exits only where T is fixed.
      std::vector<Step> beyond = steps;
      if (!exits.empty() && !open_exit) beyond.push_back({});
      sim::stateViolations(m_, s, a, beyond, {}, here);
      if (!here.empty()) failWith(here.front(), T, L, false);
      open_exit = false;  // (T beyond with X at a head: the switch is a step)
    }
    if (open_exit) {
      // The exits are steps only for the trip counts they fix. For every
      // larger one, each process at a loop head must enter its iteration:
      // no step but `steps` is enabled then, and if none is, the state is
      // a deadlock for that trip count (a hang from the second tile on:
      // corpus/bugs/sync.arrival-underflow/single_slot_first_release_skipped.cake).
      // (Groups apart: every group with an open trip count takes a larger
      // one; fewer exits left out leave more steps enabled.)
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
      State& next = next_;
      next.v.reserve(s.v.size() + 64);  // room for the async part to grow and (L, T)
      next.v.assign(s.v.begin(), s.v.end());
      here.clear();
      // (every read may be its process's last of the index: the rule is
      // then that all its reads meet one set of writers)
      if (opts_.meets && st.kind == Step::Kind::Exec) trip::recordMeets(*opts_.meets, m_, s, st.proc, st.pc, true);
      sim::applyStep(m_, next, a, st, here, nullptr);
      if (!here.empty()) failWith(here.front(), T, L);
      if (st.kind == Step::Kind::Exec && !w_.unmet.empty()) unmetAlias(m_, w_.unmet, s, st);
      std::vector<int32_t> lt = lt_;
      const int g = group_[st.proc];
      if (st.kind == Step::Kind::Exec && lt[2 * g + 1] < 0)
        if (auto v = headAt(st.proc, st.pc))  // iteration v runs: T + off > v
          lt[2 * g] = std::max<int32_t>(lt[2 * g], static_cast<int32_t>(*v - w_.shape[st.proc].off + 1));
      if (st.kind == Step::Kind::Exec && X == kOpen && inB(st.proc, st.pc))
        if (auto v = headAt(st.proc, st.pc)) {  // kind B at v: X > v, and T >= X
          int32_t& lx = lt[lt.size() - 2];
          lx = std::max<int32_t>(lx, static_cast<int32_t>(*v + 1));
          if (lt[2 * g + 1] < 0) lt[2 * g] = std::max(lt[2 * g], lx);
        }
      return add(next, lt, node, st);
    };
    auto leave = [&](int p, int64_t t) {
      State& next = next_;
      next.v.reserve(s.v.size() + 64);
      next.v.assign(s.v.begin(), s.v.end());
      moveTo(next, p, w_.exit_to[p].at(t));
      std::vector<int32_t> lt = lt_;
      lt[2 * group_[p]] = -1;
      lt[2 * group_[p] + 1] = static_cast<int32_t>(t);
      return add(next, lt, node, Step{Step::Kind::Exec, p, -1});
    };
    // kind A from v on: X = v (and T >= X)
    auto take = [&](int p, int64_t v) {
      State& next = next_;
      next.v.reserve(s.v.size() + 64);
      next.v.assign(s.v.begin(), s.v.end());
      moveTo(next, p, aHead(p, v));
      std::vector<int32_t> lt = lt_;
      lt[lt.size() - 1] = static_cast<int32_t>(v);
      lt[lt.size() - 2] = -1;
      if (lt[1] < 0) lt[0] = std::max<int32_t>(lt[0], static_cast<int32_t>(v));
      return add(next, lt, node, Step{Step::Kind::Exec, p, -1});
    };
    for (const auto& [p, v] : switches) take(p, v);

    // A persistent subset first (sim_por.h). Every cycle of the explored
    // graph needs a fully expanded state: a subset that leads to a state
    // already expanded (or to this one) is completed (the cycle proviso; in
    // a cycle, the state expanded last has such a successor).
    std::vector<char> done_step(steps.size(), 0), done_exit(exits.size(), 0);
    bool reduced = false, all_new = true;
    auto fresh = [&](int id) {
      if (record.on()) edges_.add(id);
      return id > node;
    };
    // Loops no barrier paces (trip_pace.h, docs/z3.md): the processes
    // ahead of a free one behind them wait for it; every exit is offered.
    // The same proviso as the reduction's: a held-back state with a
    // successor already expanded is expanded fully.
    if (pacer_ && pacer_->active() && !force_full) {
      std::vector<char> unsure(static_cast<size_t>(m_.P), 0);
      for (const auto& e : exits) unsure[e.first] = 1;
      // a free step alone (a persistent set; the same proviso)
      if (auto i = pacer_->aloneStep(s, a, steps, unsure)) {
        fresh(follow(steps[*i]));
        record.reduced();
        return;
      }
      const std::vector<char> held = pacer_->heldBack(s, a, steps, unsure);
      if (!held.empty()) {
        for (size_t i = 0; i < steps.size(); ++i)
          if (!held[i]) {
            done_step[i] = 1;
            all_new &= fresh(follow(steps[i]));
          }
        for (size_t i = 0; i < exits.size(); ++i) {
          done_exit[i] = 1;
          all_new &= fresh(leave(exits[i].first, exits[i].second));
        }
        record.reduced();
        return;
      }
    }
    if (kinds_ && !force_full)
      for (const Step& st : steps)
        if (localKindStep(st, a)) {
          fresh(follow(st));
          record.reduced();
          return;
        }
    if (reducer_ && !force_full) {
      std::vector<char> leaving(static_cast<size_t>(m_.P), 0);
      for (const auto& e : exits) leaving[e.first] = 1;
      // the least head where each process may still leave: T's (fixed), or
      // those of every T >= L (L only grows along a run)
      std::vector<int> leave_from(static_cast<size_t>(m_.P));
      for (int p = 0; p < m_.P; ++p) {
        const ProcShape& sh = w_.shape[p];
        leave_from[p] = m_.programSize(p);
        if (!sh.loops) continue;
        const int32_t Tp = Tof(p), Lp = Lof(p);
        const int64_t v = Tp >= 0 ? sh.lastHead(Tp) : std::max<int64_t>(sh.lo, Lp + sh.off);
        if (v < sh.end) leave_from[p] = sh.headOf(v);
      }
      if (auto subset = reducer_->reduceWithExits(s, a, steps, leaving, &leave_from)) {
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
    if (reduced && (all_new || checked_proviso_)) {
      record.reduced();
      return;
    }
    for (size_t i = 0; i < steps.size(); ++i)
      if (!done_step[i]) follow(steps[i]);
    for (size_t i = 0; i < exits.size(); ++i)
      if (!done_exit[i]) leave(exits[i].first, exits[i].second);
  }

  // Inserts the normalized state (s is left with (L, T) per group
  // appended); returns its node.
  int add(State& s, std::vector<int32_t>& lt, int parent, const Step& st) {
    leaveEagerly(s, lt);
    settleKinds(s, lt);
    if (groups_ == 1) {
      while (shift(s, lt)) {
      }
    } else {
      for (bool moved = true; moved;) {
        moved = false;
        for (int g = 0; g < groups_; ++g)
          while (shiftGroup(s, g, lt[2 * g], lt[2 * g + 1])) moved = true;
      }
    }
    // Interchangeable processes: the smaller of the state and its image
    // under each pair's swap stands for both (docs/z3.md "Interchangeable
    // processes in lap induction").
    sim::canonicalUnderPairs(m_, sym_, s);
    s.v.insert(s.v.end(), lt.begin(), lt.end());
    return g_.insert(s, parent, st).first;
  }

  // With the trip count fixed, a process at the head of the iteration
  // where its loop ends has nothing left in the loop: it is on its exit
  // path already (the step that takes it there changes nothing else).
  // Taking it at once keeps the head's instruction, which never runs for
  // this trip count, out of the state's rules (a wait there is no lost
  // phase: corpus/basics/single_slot_courtesy_release.cake).
  void leaveEagerly(State& s, const std::vector<int32_t>& lt) const {
    for (int p = 0; p < m_.P; ++p) {
      const int32_t T = lt[2 * group_[p] + 1];
      if (T < 0) continue;
      auto v = headAt(p, sim::pcOf(m_, s, p));
      if (!v || T + w_.shape[p].off > *v) continue;
      auto to = w_.exit_to[p].find(T);
      if (to == w_.exit_to[p].end()) throw Fail("internal: a trip count without an exit path");
      moveTo(s, p, to->second);
    }
  }

  // Moves s one period back if every part of it can move; see trip_proof.h.
  bool shift(State& s, std::vector<int32_t>& lt) const {
    int32_t &L = lt[0], &T = lt[1];
    const int64_t P = w_.P;
    const int64_t open = T >= 0 ? T : L;
    if (open < w_.j0 || open - P < w_.t1) return false;
    if (!kinds_) {
      if (!shiftState(m_, s, {w_.shift_pc, w_.d, w_.named_delta, w_.commit_delta, nullptr, &kept_})) return false;
    } else {
      // the boundary moves with the iterations (X - P >= 0: a case of the
      // proof); a process in its B iterations counts B's commits a period
      int32_t &Lx = lt[lt.size() - 2], &X = lt[lt.size() - 1];
      if ((X >= 0 && X - P < 0) || (X == kOpen && Lx - P < 0)) return false;
      std::vector<int64_t> commits = w_.commit_delta;
      for (int p = 0; p < m_.P; ++p)
        if (inB(p, sim::pcOf(m_, s, p))) commits[p] = w_.kind[p].commits;
      if (!shiftState(m_, s, {w_.shift_pc, w_.d, w_.named_delta, commits, nullptr, &kept_})) return false;
      if (X >= 0) X = static_cast<int32_t>(X - P);
      else if (X == kOpen) Lx = static_cast<int32_t>(std::max<int64_t>(0, Lx - P));
    }
    if (T >= 0) T = static_cast<int32_t>(T - P);
    else L = static_cast<int32_t>(L - P);
    return true;
  }
  // The same for group g alone (its CTA's processes, slots, named barriers
  // and MMA commits; the data tags of its writes and its async work).
  bool shiftGroup(State& s, int g, int32_t& L, int32_t& T) const {
    const int64_t P = w_.P;
    const int64_t open = T >= 0 ? T : L;
    if (open < w_.j0 || open - P < w_.t1) return false;
    const GroupShift& gs = group_shift_[g];
    if (!shiftState(m_, s, {gs.pc, gs.d, gs.named, gs.commits})) return false;
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

// Is e >= c for every value the lm.assume facts allow? Interval reasoning
// over e's syntax first (`max(x, 0)` and `lm.cdiv` of non-negative values by
// grid dimensions are non-linear for the solver, which timed out on the
// split-K and persistent trip expressions), then the solver. `param_lb`
// caches each parameter's lower bound.
bool atLeast(FactProver& prover, const ir::ExprPtr& e, int64_t c, std::map<int, std::optional<int64_t>>& param_lb) {
  auto paramLb = [&](int p) -> std::optional<int64_t> {
    auto [it, fresh] = param_lb.emplace(p, std::nullopt);
    if (fresh) {
      auto x = symbolNode(ir::ExprKind::Param, p);
      for (int64_t v : {int64_t{1}, int64_t{0}})
        if (prover.prove(ir::makeExpr(ir::ExprKind::Ge, {x, ir::makeConst(v)})).kind == BvVerdict::Holds) {
          it->second = v;
          break;
        }
    }
    return it->second;
  };
  const std::optional<int64_t> lb = lowerBound(*e, paramLb);
  if (lb && *lb >= c) return true;
  return prover.prove(ir::makeExpr(ir::ExprKind::Ge, {e, ir::makeConst(c)})).kind == BvVerdict::Holds;
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

// The solver's limits for the proof's queries: its resource limit (work,
// deterministic: what decides), its memory cap, and the wall-clock time the
// safety limit leaves (docs/z3.md "The proof's budget").
Limits solverLimits(const TripProofOptions& opts, const ProofBudget& budget) {
  Limits l;
  l.timeout_ms = budget.wallLeftMs();
  l.memory_mb = opts.memory_mb;
  l.rlimit = opts.rlimit;
  return l;
}

// Whether some allowed binding makes the outcomes `conj` of the guards
// true, asked first over unbounded integers with a small resource cap. None
// there: none in 64 bits either (a bit-vector witness is an integer
// witness with the same values; the argument of the bounded check's
// ruledOut pre-tests, checks/model_check.cpp). One there: the outcomes are
// taken as possible without the bit-vector query, the cautious side (an
// outcome vector no binding gives adds a system to prove, and a proof that
// fails on it is unknown, never a pass). Unknown: the bit-vector query
// decides, as before. Both answers came from the bit-vector solver alone,
// and an outcome of `lm.block_idx(0) % n == 0` cost it the proof's whole
// budget (a 64-bit remainder by a free divisor, bit-blasted); the integer
// solver answers in a few thousand units.
// The limits of one integer query of the guards' outcomes: at most Z3's
// resource units of the bounded check's kRuleOutRlimit.
static Limits integerLimits(Limits limits) {
  constexpr uint64_t kIntegerRlimit = 2'000'000;
  limits.rlimit = limits.rlimit > 0 ? std::min(limits.rlimit, kIntegerRlimit) : kIntegerRlimit;
  return limits;
}
static bool outcomesPossible(const ir::Schedule& s, BvProver& prover, const ir::ExprPtr& conj,
                             const std::vector<ir::ExprPtr>& facts, Limits limits) {
  switch (intWitness(s, conj, facts, integerLimits(limits)).kind) {
    case BvVerdict::Holds: return false;
    case BvVerdict::Fails: return true;
    default: return prover.prove(ir::makeExpr(ir::ExprKind::Not, {conj}), facts).kind != BvVerdict::Holds;
  }
}

// Whether the guard `g` holds for every allowed binding, asked first over
// unbounded integers as outcomesPossible does: no integer counterexample,
// none in 64 bits; an integer one is taken as "not shown" without the
// bit-vector query (the cautious side: the guard is then not decided).
static bool holdsForEveryBinding(const ir::Schedule& s, BvProver& prover, const ir::ExprPtr& g, Limits limits) {
  switch (intWitness(s, ir::makeExpr(ir::ExprKind::Not, {g}), {}, integerLimits(limits)).kind) {
    case BvVerdict::Holds: return true;
    case BvVerdict::Fails: return false;
    default: return prover.prove(g).kind == BvVerdict::Holds;
  }
}

// A binding where the guards' outcomes `conj` hold, for the reader of a
// violation met on their system (and for the bounded check to try):
// asked of the integer solver first, as outcomesPossible does, whose
// values the caller checks on the concrete schedule; the bit-vector
// solver where it has none.
static BvResult classWitness(const ir::Schedule& s, BvProver& prover, const ir::ExprPtr& conj,
                             const std::vector<ir::ExprPtr>& facts, Limits limits) {
  BvResult w = intWitness(s, conj, facts, integerLimits(limits));
  return w.kind == BvVerdict::Fails ? w : prover.witness(conj, facts);
}

// The problem sizes of the bindings the facts allow where `at` holds, for a
// loop it leaves empty (empty_loop_sizes.h, docs/semantics.md
// "data.uninitialized"): Degenerate when each has a parameter of `e` at zero
// or below, Positive when none has, else Undecided (both kinds, or not
// known). docs/z3.md "Soundness review, session 33".
EmptyLoopSizes sizesWhere(BvProver& prover, const ir::Expr& e, const ir::ExprPtr& at) {
  ir::ExprPtr positive = ir::makeConst(1);
  for (int p : paramsOf(e))
    positive = ir::makeExpr(ir::ExprKind::And, {positive, ir::makeExpr(ir::ExprKind::Gt, {symbolNode(ir::ExprKind::Param, p), ir::makeConst(0)})});
  if (prover.prove(ir::makeExpr(ir::ExprKind::Not, {positive}), {at}).kind == BvVerdict::Holds)
    return EmptyLoopSizes::Degenerate;
  if (prover.prove(positive, {at}).kind == BvVerdict::Holds) return EmptyLoopSizes::Positive;
  return EmptyLoopSizes::Undecided;
}

// The proof's wall-clock seconds into res; with CAKE_PROOF_STATS set, one
// line on stderr with the work units and the thread's CPU seconds (the
// calibration of ProofBudget::kUnitsPerSecond, bench/proof_budget_calibrate.sh).
void finish(ModelCheckResult& res, const ProofBudget& budget) {
  res.seconds = budget.wallSeconds();
  if (res.outcome == Outcome::Proved) res.engine += fmt::format(" [{} work units]", budget.used());
  if (std::getenv("CAKE_PROOF_STATS"))
    fmt::print(stderr,
               "proof-stats: outcome={} work={} cpu_s={:.3f} wall_s={:.3f} states={} expanded={} offered={} words={} "
               "expanded_instrs={} built={} queries={} rlimit={} window_ops={} laid_out={}\n",
               res.outcome == Outcome::Proved ? "proved" : res.outcome == Outcome::Violation ? "violation" : "unknown",
               budget.used(), budget.cpuSeconds(), budget.wallSeconds(), res.states, budget.tally().expanded,
               budget.tally().offered, budget.tally().words, budget.tally().expanded_instrs, budget.tally().built,
               budget.tally().queries, budget.tally().rlimit, budget.tally().window_ops, budget.tally().laid_out);
}

// The smallest trip count to prove from: the smallest one the checked
// values give, if the schedule's assumptions guarantee it (else 1 or 0,
// if they guarantee that). Else, when the trip expression is only a loop bound,
// the smallest loop start: every
// value at or below every symbolic loop's start (minus its bound's offset)
// builds the same system (no iteration runs) as that value.
int64_t lowestTrip(const ir::Schedule& s, const TripLoops& tl, const std::vector<Binding>& checked,
                   bool only_bounds, const Limits& limits, const std::function<System(int64_t)>& at_min_lo,
                   bool& below, bool* from_facts = nullptr) {
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
  // 1 before 0: `K > 0` keeps every loop running, and a proof from 0
  // would meet what only an empty loop does (an accumulator never written)
  for (int64_t t : {low.value_or(0), int64_t{1}, int64_t{0}})
    if (t <= low.value_or(t) && atLeast(prover, tl.trip, t, param_lb)) {
      if (from_facts) *from_facts = true;
      return t;
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

// The period of the window's steady iterations (findPeriod), of its exit
// paths (findSuffixPeriod), and the proofs that it holds beyond the window:
// the laps of views over common bytes (checkLapDeltas), every expression of
// the body (checkBodyExprs) and every read of the trip count (checkTripUses,
// which throws SteadyUseMoves for a read in a steady iteration that moves).
// From the steady offsets on, so it runs again after lowerSteadyOffset.
void checkPeriod(const ir::Schedule& s, const TripLoops& tl, Window& w, const TripProofOptions& opts,
                 ProofBudget& budget) {
  w.unmet.clear();
  if (!findPeriod(w, opts.max_period)) throw WindowTooSmall{};
  findSuffixPeriod(w);
  if (w.j0 > w.W - w.P) throw WindowTooSmall{};
  {
    // every access the combined program takes from: the base and the exit
    // paths of the trip counts t1..W (those below are explored one by one)
    std::vector<const System*> group = {&w.base};
    for (int64_t T = w.t1; T <= w.W; ++T) group.push_back(&w.by_trip[static_cast<size_t>(T - w.t0)]);
    checkLapDeltas(group, w.d, /*exact=*/false, &w.unmet);
  }
  std::vector<const ir::Expr*> body_exprs;
  std::vector<System::ReplacedUse> uses;
  for (const System& sys : w.by_trip) {
    for (const System::ReplacedUse& u : sys.replace_uses)
      if (std::find(uses.begin(), uses.end(), u) == uses.end()) uses.push_back(u);
    for (const ir::Expr* e : sys.replace_loop_exprs)
      if (std::find(body_exprs.begin(), body_exprs.end(), e) == body_exprs.end()) body_exprs.push_back(e);
  }
  // the solver's queries share the proof's time budget
  checkBudget(budget, "");
  const Limits limits = solverLimits(opts, budget);
  // in the loop variable's values (an iteration is a block of `scale` of them)
  checkBodyExprs(s, tl, body_exprs, w.P * tl.scale, w.w0 * tl.scale, (w.last - w.P + 1) * tl.scale, limits);
  checkTripUses(s, tl, w, uses, limits);
  checkBudget(budget, "in the bit-vector proofs");
}

// A process whose steady iteration reads the trip count in a way that
// moves with it (a prefetch guard `if k + 2 < k_tiles:` around `if w == 0:`
// read by warps 1..3, for which neither branch builds an operation: their
// programs for every T agree with the window's to the loop's end, steady
// offset 0, while the guard turns at T - 2). Its steady iterations are made
// to end where the earliest looping process's do (warp 0's, at T - 2): the
// iterations between are then tail iterations, the system's own, whose
// reads of the trip count checkTripUses proves to repeat when v and T move
// by a period together. Sound for any lower offset: findSteadyOffsets
// showed every system for t1 <= T <= W to agree with the window up to the
// head of T + c, hence up to any earlier head, and everything after the
// head is taken from the system for T itself (its exit path). False where
// no process ends earlier. docs/z3.md "A guard on the trip count that
// builds nothing for some processes" (helper colband, session 29).
bool lowerSteadyOffset(Window& w, size_t p) {
  ProcShape& sh = w.shape.at(p);
  int64_t least = sh.off;
  for (const ProcShape& other : w.shape)
    if (other.loops) least = std::min(least, other.off);
  if (!sh.loops || least >= sh.off) return false;
  sh.off = least;
  sh.end = w.W + sh.off;
  if (sh.end <= sh.lo + 1) throw WindowTooSmall{};
  return true;
}

// Explores the system for one trip count T exhaustively, as the bounded
// check does, within the work budget: its states, or throws (Met with T).
uint64_t exploreTripCount(const System& sys, int64_t T, const TripProofOptions& opts, ProofBudget& budget) {
  ExploreOptions eo;
  eo.timeout_ms = budget.wallLeftMs();
  eo.memory_mb = opts.memory_mb;
  eo.stop_at_first = true;
  // the work budget caps the states (each is hashed and copied at least once)
  const Model m(sys);
  ProofBudget::Tally per;  // a state's least work: expanded once, offered once
  per.expanded = per.offered = 1;
  per.words = sim::initialState(m).v.size();
  for (int p = 0; p < m.P; ++p) per.expanded_instrs += static_cast<uint64_t>(m.programSize(p));
  ProofBudget probe(0, 0);
  probe.add(per);
  const bool capped = budget.left() / probe.used() < eo.max_states;
  if (capped) eo.max_states = budget.left() / probe.used();
  ModelCheckResult r = explore(sys, eo);
  ProofBudget::Tally t;
  t.expanded = r.states;
  t.offered = r.transitions;
  t.words = r.transitions * per.words;
  t.expanded_instrs = r.states * per.expanded_instrs;
  budget.add(t);
  if (r.outcome == Outcome::Violation)
    throw Met(fmt::format("trip count {} meets {}", T, r.violations.front().rule), r.violations.front(), T);
  if (r.outcome != Outcome::Pass) {
    if (capped) budget.charge(budget.left() + 1);  // the work cap ended the search
    checkBudget(budget, fmt::format("trip count {}", T));
    throw Fail(fmt::format("trip count {}: {}", T, r.detail));
  }
  if (opts.meets) {  // clean: one run gives the writers its reads meet (trip_restart.h)
    ++opts.meets->explorations;
    if (auto why = trip::recordMeetsOfOneRun(sys, *opts.meets); !why.empty() && opts.meets->refused.empty())
      opts.meets->refused = fmt::format("trip count {}: {}", T, why);
  }
  return r.states;
}

// Whether the windows remembered up to sizes (TripLoops::explored) have
// room for a key of `words` more: at most 2^25 words (256 MiB) in all. A
// window past that is not remembered, only explored again if it recurs
// (work, never a verdict, depends on it): a tile loop proved once per
// value of 65 (docs/z3.md "A tile loop around loops bounded by few
// values") held 4 GiB of keys of windows of 24 tiles otherwise.
bool roomForKey(const std::set<std::vector<int64_t>>& explored, size_t words) {
  size_t held = words;
  for (const std::vector<int64_t>& k : explored) held += k.size();
  return held <= (size_t{1} << 25);
}

// The least window the period search can use from a loop start (or trip
// count) `from`: findSteadyOffsets asks for t1 <= W - 2 and findPeriod for
// w0 + 2 * P + 2 <= W + off, 4 iterations past the start with P = 1.
int64_t leastWindow(int64_t from) { return std::max<int64_t>(4, from + 4); }

// Does every system of the window for T in t1..W name each (statement, view)
// pair as every larger trip count's system does? The builder names an op's
// view index by stages when no evaluation of it in the whole system reaches
// the view's stage count (or is negative), else by iterations
// (encoder/system.cpp markStageLike), so the naming could change with the
// trip count. True when each pair is named one way in all of them and
//  * by stages: the period check keeps such an index the same every period
//    (shiftedInstr) in the steady iterations and the exit paths, and
//    checkBodyExprs / checkTripUses carry that beyond the window, so a
//    larger system evaluates it to the window's values;
//  * by iterations: in each system an evaluation that reaches the stage
//    count lies before its parting head (the prefix and the steady
//    iterations, which every larger system runs as they are, or a process
//    without the loop).
// A window of at least twice the largest stage count plus 8 is not asked
// (an index that moves per iteration reaches its stage count in it).
bool stagesSettled(const Window& w) {
  const ir::Schedule& s = *w.base.schedule;
  std::map<std::pair<const ir::Stmt*, int>, bool> by_stages;
  for (int64_t T = w.t1; T <= w.W; ++T) {
    const System& sys = w.by_trip[static_cast<size_t>(T - w.t0)];
    std::set<std::pair<const ir::Stmt*, int>> by_iterations, reached;
    for (size_t p = 0; p < sys.procs.size(); ++p) {
      const std::vector<Instr>& prog = sys.procs[p].program;
      const ProcShape& sh = w.shape[p];
      const size_t kept = sh.loops ? static_cast<size_t>(cutOf(sh, T)) : prog.size();
      for (size_t pc = 0; pc < prog.size(); ++pc)
        for (const Access& a : prog[pc].accesses) {
          if (a.view < 0) continue;
          const std::pair<const ir::Stmt*, int> key{prog[pc].stmt, a.view};
          if (by_stages.emplace(key, a.stage_like).first->second != a.stage_like) return false;
          if (a.stage_like) continue;
          by_iterations.insert(key);
          if (pc < kept && (a.index < 0 || a.index >= s.views[a.view].stages)) reached.insert(key);
        }
    }
    if (by_iterations != reached) return false;
  }
  return true;
}

// attempt's text for a window an earlier value explored up to sizes
constexpr std::string_view kReusedWindow = ", explored as an earlier value's window up to sizes";

// What of a window's key (attempt) is cheap to take: its parameters, the
// steady offsets and every program's length in every system. Two windows
// with equal keys have equal shapes.
std::vector<int64_t> windowShape(const Window& w, const TripLoops& tl) {
  std::vector<int64_t> shape = {w.t0, w.W, w.t1, w.P, w.w0, w.j0, tl.scale, tl.residue};
  for (const ProcShape& sh : w.shape) shape.push_back(sh.loops ? sh.off : INT64_MIN);
  for (const System* sys : {&w.base}) {
    shape.push_back(-1);
    for (const Process& p : sys->procs) shape.push_back(static_cast<int64_t>(p.program.size()));
  }
  for (const System& sys : w.by_trip) {
    shape.push_back(-1);
    for (const Process& p : sys.procs) shape.push_back(static_cast<int64_t>(p.program.size()));
  }
  return shape;
}

// The steady offsets and the period of a window whose systems are built
// (findSteadyOffsets, checkPeriod).
void steadyPeriod(const ir::Schedule& s, const TripLoops& tl, Window& w, const TripProofOptions& opts,
                  ProofBudget& budget) {
  findSteadyOffsets(w);
  for (;;) {
    try {
      checkPeriod(s, tl, w, opts, budget);
      return;
    } catch (const SteadyUseMoves& f) {
      // docs/z3.md "A guard on the trip count that builds nothing for some
      // processes": end that process's steady iterations where the first
      // process's end, and find the period again
      if (!lowerSteadyOffset(w, f.process)) throw;
    }
  }
}

std::string attempt(const ir::Schedule& s, ir::Target target, const Binding& binding, const TripLoops& tl,
                    int64_t t0, int64_t W, const TripProofOptions& opts, ProofBudget& budget,
                    uint64_t& states, bool settle = false) {
  Window w;
  w.W = W;
  w.t0 = t0;
  w.base = buildAt(s, binding, target, tl, W);
  chargeBuild(budget, w.base);
  for (const Process& p : w.base.procs) w.shape.push_back(shapeOf(p, tl, W));
  if (std::none_of(w.shape.begin(), w.shape.end(), [](const ProcShape& sh) { return sh.loops; })) {
    // No operation in the loop for W. If the builder read the trip count
    // nowhere but in loop bounds, and evaluated nothing inside the loop that
    // reads a symbolic loop's variable or the trip expression, every
    // iteration of every trip count builds as the window's did: nothing.
    // The system is then the same for every T (a guard decided per case
    // that empties the loop, docs/z3.md "Guards that read the instance
    // under a symbolic loop"): explored once, whole.
    std::set<int> vars;
    for (const auto& [var, lo] : tl.lo) vars.insert(var);
    const bool same =
        w.base.replace_uses.empty() &&
        std::none_of(w.base.replace_loop_exprs.begin(), w.base.replace_loop_exprs.end(),
                     [&](const ir::Expr* e) { return mentionsLoopVar(*e, vars) || containsExpr(*e, *tl.trip); });
    if (!same) throw Fail("no role runs the symbolic loop");
    states += exploreTripCount(w.base, W, opts, budget);
    return fmt::format("the symbolic loop runs no operation and the system reads no trip count: explored whole, "
                       "every {} >= {}",
                       tl.scale > 1 ? std::string("T") : ir::exprToString(*tl.trip, s), t0);
  }
  // The systems for t0..W are built only when W's system alone leaves
  // findPeriod a chance (docs/z3.md "A period seen in the window's last
  // system first"): a body with none is not built t0..W times for nothing.
  if (!periodPossible(w, opts.max_period)) throw WindowTooSmall{};
  for (int64_t T = t0; T <= W; ++T) {
    // a body that grows with T (an inner loop bounded by the loop variable)
    // makes each system larger: the budget holds here too
    checkBudget(budget, fmt::format("building the system for trip count {} of window {}", T, W));
    // (W's system is the base, built above: the builder is deterministic)
    w.by_trip.push_back(T == W ? w.base : buildAt(s, binding, target, tl, T));
    chargeBuild(budget, w.by_trip.back());
  }
  // Generations no rule reads (a view whose every access is to bytes that
  // its own process alone touches: an epilogue's own staging ring,
  // `smem_c[(t * 4 + j) % 3]`) are set to 0, so that they do not keep the
  // period from being found (docs/z3.md "Private generations", helper
  // loops3). Every system for T >= t1 beyond the window repeats the
  // window's byte ranges (the period check compares them for equality), so
  // privacy over the window is privacy in every system.
  {
    std::vector<System*> group = {&w.base};
    for (System& sys : w.by_trip) group.push_back(&sys);
    // Every window also sets to 0 the generations of reads that no rule
    // reads: a read of bytes no *other* process writes finds either nothing
    // (stale whatever it means) or its own process's data (never stale,
    // sim::staleWrite), so sim::staleData never compares its generation.
    // Such a read's generation counts its returns to a slot (a table that
    // one instance writes once and every instance reads in a loop: the
    // writer's own reads grow one lap per iteration, the others' are capped
    // at the lap written) and can keep the period or the lap exploration
    // from closing. Sessions 21-25 did this in the last window only, because
    // with one generation delta per view zeroing some of a view's reads gave
    // the view two deltas; since deltas are learned per access's byte range
    // (GenKey) it is done in every window: a row-reset read-back is proved at
    // window 24 instead of 192 (docs/z3.md "Unread read generations").
    // One pass over the systems does both.
    zeroPrivateGenerations(group, /*unread_reads=*/true);
  }
  steadyPeriod(s, tl, w, opts, budget);
  // a window narrower than the stage counts (TripProofOptions::least_window)
  if (settle && !stagesSettled(w)) throw WindowTooSmall{};
  periodCounts(w);
  layOut(w);
  std::string small = w.t1 > t0 ? fmt::format(", trip counts {}..{} one by one", t0, w.t1 - 1) : "";
  std::string text = fmt::format("lap induction: every {} >= {} (period {}, warm-up {}, window {}{})",
                                 tl.scale > 1 ? std::string("T") : ir::exprToString(*tl.trip, s), t0, w.P, w.w0, W,
                                 small);
  // Everything explored below is a function of the window's systems (and
  // of t0 and W, which choose them): one that a passed exploration had up
  // to sizes passes too (trip_sizes.h).
  std::vector<int64_t> key;
  // (a window whose shape no earlier window had equals none up to sizes:
  // sizeFreeKey holds every program's length; it is then not looked up,
  // and a later window of its shape is explored once more)
  const bool keyed = !tl.shapes || !tl.shapes->insert(windowShape(w, tl)).second;
  if (tl.explored && !opts.meets && keyed) {  // (a window equal up to sizes holds other bytes: the record needs its own)
    std::vector<const System*> group = {&w.base};
    for (const System& sys : w.by_trip) group.push_back(&sys);
    key = trip::sizeFreeKey(group);
    if (!key.empty()) key.insert(key.begin(), {t0, W, w.t1, w.P, w.w0, w.j0, tl.scale, tl.residue});
    // the steady offsets: findSteadyOffsets reads them off the systems,
    // but lowerSteadyOffset may have lowered one
    if (!key.empty())
      for (const ProcShape& sh : w.shape) key.push_back(sh.loops ? sh.off : INT64_MIN);
    if (!key.empty() && tl.explored->count(key)) return text + std::string(kReusedWindow);
  }
  // The trip counts before the steady body, one by one.
  for (int64_t T = t0; T < w.t1; ++T) states += exploreTripCount(w.by_trip[T - t0], T, opts, budget);
  try {
    LapExplorer lap(w, opts, budget);
    states += lap.run();
    if (lap.apart()) text.insert(text.size() - 1, ", the CTAs shifted apart");
  } catch (const MetApart&) {
    // docs/z3.md "Independent CTAs": the runs with the CTAs apart met a
    // violation; the CTAs together say whether the schedule has it.
    TripProofOptions together = opts;
    together.cta_shift = false;
    states += LapExplorer(w, together, budget).run();
  }
  if (!key.empty() && roomForKey(*tl.explored, key.size())) tl.explored->insert(std::move(key));
  return text;
}

// ================================================================ a kind boundary

std::optional<std::pair<ir::ExprPtr, bool>> monotoneGuard(const ir::Expr& c, int var);

// The guards `j >= X` / `j < X` of the loops bounded by the trip count
// (docs/z3.md "A kind boundary in the lap state"): the builder evaluates
// each such condition as `v >= x` with v the iteration it builds and x the
// boundary of the system; every other read of X is a parameter read that
// buildAt refuses. With x = X (a binding with 0 <= X <= T) that is the
// schedule's own evaluation.
struct KindBoundary {
  ir::ExprPtr X;
  std::set<int> vars;  // the loop variables of the loops bounded by the trip count
  int64_t x = 0;       // the boundary of the systems built now
  EvalHook hook;
  KindBoundary(ir::ExprPtr at, std::set<int> loop_vars) : X(std::move(at)), vars(std::move(loop_vars)) {
    hook = [this](const ir::Expr& e, const ir::EvalEnv& env) -> std::optional<int64_t> {
      auto g = e.args.empty() ? std::nullopt : monotoneGuard(e, e.args[0] ? e.args[0]->index : -1);
      if (!g || !vars.count(e.args[0]->index) || !ir::sameExpr(*g->first, *X)) return std::nullopt;
      auto v = env.loop_vars.find(e.args[0]->index);
      if (v == env.loop_vars.end()) return std::nullopt;
      return (v->second >= x) == g->second ? 1 : 0;
    };
  }
};

// Process p's program in the system for (T, x), as the kinds lay it out:
// the window's prefix, iteration v of kind B (the B system's) below x and
// of kind A (the window's) from x on, up to its parting head, then the
// exit path of the system for (T, 0).
bool kindsLaidOut(const Window& w, size_t p, int64_t T, int64_t x, const std::vector<Instr>& prog) {
  const ProcShape& sh = w.shape[p];
  const auto& base = w.base.procs[p].program;
  const auto& own = w.by_trip[static_cast<size_t>(T - w.t0)].procs[p].program;
  if (!sh.loops) return prog.size() == base.size() && std::equal(prog.begin(), prog.end(), base.begin(), sameInstr);
  std::vector<const Instr*> want;
  for (int i = 0; i < sh.headOf(sh.lo); ++i) want.push_back(&base[i]);
  const Window::KindCopy& kc = w.kind[p];
  for (int64_t v = sh.lo; v < sh.lastHead(T); ++v) {
    if (v < x && kc.kinded)
      for (int i = kc.rel[v - sh.lo]; i < kc.rel[v - sh.lo + 1]; ++i) want.push_back(&kc.text[i]);
    else
      for (int i = sh.headOf(v); i < sh.headOf(v + 1); ++i) want.push_back(&base[i]);
  }
  for (size_t i = static_cast<size_t>(cutOf(sh, T)); i < own.size(); ++i) want.push_back(&own[i]);
  if (want.size() != prog.size()) return false;
  for (size_t i = 0; i < prog.size(); ++i)
    if (!sameInstr(*want[i], prog[i])) return false;
  return true;
}

// The B iterations of each looping process (the system for (W, W)), their
// period with the window's deltas (learned into w.d: B's own keys added,
// none changed) and warm-up, and their counts per period.
void kindCopies(Window& w, const System& b_sys, const TripLoops& tl) {
  w.kind.assign(w.shape.size(), {});
  for (size_t p = 0; p < w.shape.size(); ++p) {
    const ProcShape& sh = w.shape[p];
    if (!sh.loops) continue;
    const auto& base = w.base.procs[p].program;
    const auto& prog = b_sys.procs[p].program;
    const ProcShape bs = shapeOf(b_sys.procs[p], tl, w.W);
    if (!bs.loops || bs.lo != sh.lo || bs.end < sh.end || bs.headOf(sh.lo) != sh.headOf(sh.lo) ||
        !std::equal(base.begin(), base.begin() + sh.headOf(sh.lo), prog.begin(), sameInstr))
      throw Fail(fmt::format("{}'s kind B iterations do not follow the same prefix", b_sys.procs[p].name));
    Window::KindCopy& kc = w.kind[p];
    kc.text.assign(prog.begin() + bs.headOf(sh.lo), prog.begin() + bs.headOf(sh.end));
    for (int64_t v = sh.lo; v <= sh.end; ++v) kc.rel.push_back(bs.headOf(v) - bs.headOf(sh.lo));
    kc.kinded = kc.text.size() != static_cast<size_t>(sh.headOf(sh.end) - sh.headOf(sh.lo)) ||
                !std::equal(kc.text.begin(), kc.text.end(), base.begin() + sh.headOf(sh.lo), sameInstr);
    if (!kc.kinded) continue;
    auto iter = [&](int64_t v) { return std::make_pair(kc.rel[v - sh.lo], kc.rel[v - sh.lo + 1]); };
    const int64_t top = sh.end - 1 - w.P;
    int64_t v = top;
    for (; v >= sh.lo; --v) {
      auto [a0, a1] = iter(v);
      auto [b0, b1] = iter(v + w.P);
      if (!shiftedRange(kc.text, a0, a1, kc.text, b0, b1, w.d, static_cast<int>(p))) break;
    }
    if (v == top) throw Fail(fmt::format("{}'s kind B iterations do not repeat with the period {}", b_sys.procs[p].name, w.P));
    w.w0 = std::max(w.w0, v + 1);
  }
  int64_t end = INT64_MAX;
  for (const ProcShape& sh : w.shape)
    if (sh.loops) end = std::min(end, sh.end);
  if (w.w0 + 2 * w.P + 2 > end) throw WindowTooSmall{};
  // counts per period: named-barrier generations as A's, MMA commits B's own
  for (size_t p = 0; p < w.shape.size(); ++p) {
    Window::KindCopy& kc = w.kind[p];
    if (!kc.kinded) continue;
    std::map<int, int64_t> warps_a, warps_b;
    const ProcShape& sh = w.shape[p];
    auto count = [&](const std::vector<Instr>& prog, int a, int b, std::map<int, int64_t>& warps, int64_t* commits) {
      for (int pc = a; pc < b; ++pc) {
        if (prog[pc].kind == InstrKind::SyncArrive || prog[pc].kind == InstrKind::BarArrive) ++warps[prog[pc].named];
        if (commits && prog[pc].kind == InstrKind::MmaCommit) ++*commits;
      }
    };
    count(w.base.procs[p].program, sh.headOf(w.w0), sh.headOf(w.w0 + w.P), warps_a, nullptr);
    count(kc.text, kc.rel[w.w0 - sh.lo], kc.rel[w.w0 + w.P - sh.lo], warps_b, &kc.commits);
    if (warps_a != warps_b)
      throw Fail(fmt::format("{}'s kinds arrive on named barriers differently per period", w.base.procs[p].name));
  }
}

// The lap induction of attempt() with a kind boundary x in [0, T] in the
// state (docs/z3.md "A kind boundary in the lap state"): the systems for
// every (T, x) of the window are built, each must be its kinds' iterations
// (kindsLaidOut), and one exploration covers every T >= t0 and 0 <= x <= T.
std::string attemptKinds(const ir::Schedule& s, ir::Target target, const Binding& binding, const TripLoops& tl,
                         KindBoundary& kb, int64_t t0, int64_t W, const TripProofOptions& opts, ProofBudget& budget,
                         uint64_t& states) {
  auto at = [&](int64_t T, int64_t x) {
    checkBudget(budget, fmt::format("building the system for trip count {} with the kind boundary at {}", T, x));
    kb.x = x;
    System sys = buildAt(s, binding, target, tl, T);
    chargeBuild(budget, sys);
    return sys;
  };
  Window w;
  w.W = W;
  w.t0 = t0;
  w.base = at(W, 0);
  for (const Process& p : w.base.procs) w.shape.push_back(shapeOf(p, tl, W));
  if (std::none_of(w.shape.begin(), w.shape.end(), [](const ProcShape& sh) { return sh.loops; }))
    throw Fail("no role runs the symbolic loop");
  if (!periodPossible(w, opts.max_period)) throw WindowTooSmall{};
  std::vector<std::vector<System>> mixed;  // [T - t0][x - 1]: the system for (T, x), x in 1..T
  for (int64_t T = t0; T <= W; ++T) {
    w.by_trip.push_back(T == W ? w.base : at(T, 0));
    mixed.emplace_back();
    for (int64_t x = 1; x <= T; ++x) mixed.back().push_back(at(T, x));
  }
  {
    std::vector<System*> group = {&w.base};
    for (System& sys : w.by_trip) group.push_back(&sys);
    for (auto& row : mixed)
      for (System& sys : row) group.push_back(&sys);
    zeroPrivateGenerations(group, /*unread_reads=*/true);
  }
  steadyPeriod(s, tl, w, opts, budget);
  kindCopies(w, mixed[W - t0][W - 1], tl);
  for (int64_t T = w.t1; T <= W; ++T)
    for (int64_t x = 1; x <= T; ++x)
      for (size_t p = 0; p < w.shape.size(); ++p)
        if (!kindsLaidOut(w, p, T, x, mixed[T - t0][x - 1].procs[p].program))
          throw Fail(fmt::format("the system for trip count {} with the kind boundary at {} is not its kinds' "
                                 "iterations ({})",
                                 T, x, w.base.procs[p].name));
  // what the kinds' systems evaluate besides the window's: the laps of
  // views over common bytes, the body's expressions, the trip count's reads
  {
    std::vector<const System*> group = {&w.base};
    for (int64_t T = w.t1; T <= W; ++T) {
      group.push_back(&w.by_trip[T - t0]);
      for (const System& sys : mixed[T - t0]) group.push_back(&sys);
    }
    w.unmet.clear();
    checkLapDeltas(group, w.d, /*exact=*/false, &w.unmet);
    std::vector<const ir::Expr*> body_exprs;
    std::vector<System::ReplacedUse> uses;
    for (const System* sys : group) {
      for (const System::ReplacedUse& u : sys->replace_uses)
        if (std::find(uses.begin(), uses.end(), u) == uses.end()) uses.push_back(u);
      for (const ir::Expr* e : sys->replace_loop_exprs)
        if (std::find(body_exprs.begin(), body_exprs.end(), e) == body_exprs.end()) body_exprs.push_back(e);
    }
    const Limits limits = solverLimits(opts, budget);
    checkBodyExprs(s, tl, body_exprs, w.P, w.w0, w.last - w.P + 1, limits);
    try {
      checkTripUses(s, tl, w, uses, limits);
    } catch (const SteadyUseMoves& f) {
      throw Fail(f.what());
    }
  }
  periodCounts(w);
  layOut(w);
  // the trip counts before the steady body, one by one, each boundary
  // (a violation there is at a boundary the facts need not allow: unknown)
  for (int64_t T = t0; T < w.t1; ++T)
    for (int64_t x = 0; x <= T; ++x) try {
        states += exploreTripCount(x == 0 ? w.by_trip[T - t0] : mixed[T - t0][x - 1], T, opts, budget);
      } catch (const Met& m) {
        throw Fail(fmt::format("trip count {} with the kind boundary at {}: {} (no finding: the bounded check decides)",
                               T, x, m.what()));
      }
  TripProofOptions one = opts;  // (no reduction, pacing or CTA groups over the kinds: not shown for them)
  one.reduce = false;
  one.pace_free_loops = false;
  one.cta_shift = false;
  one.meets = nullptr;
  states += LapExplorer(w, one, budget).run();
  return fmt::format("lap induction with the kind boundary in the state: every {} >= {} and boundary in 0..{} "
                     "(period {}, warm-up {}, window {}{})",
                     ir::exprToString(*tl.trip, s), t0, ir::exprToString(*tl.trip, s), w.P, w.w0, W,
                     w.t1 > t0 ? fmt::format(", trip counts {}..{} one by one with each boundary", t0, w.t1 - 1) : "");
}

// Lap induction with tl.fixed set (a value per parameter read besides the
// trip expression) and tl.residue: the argument in one line, or throws.
std::string proveResidue(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                         const TripLoops& tl, const TripProofOptions& opts,
                         ProofBudget& budget, uint64_t& states) {
  int64_t max_lo = 0;
  for (const auto& [var, lo] : tl.lo) max_lo = std::max(max_lo, lo);
  // (the least window: a read outside the loop bounds is one of every
  // system where the loop runs an iteration, which lowestTrip asks about)
  const bool only_bounds =
      buildAt(s, checked.front(), target, tl, opts.least_window ? leastWindow(max_lo) : opts.first_window)
          .replace_uses.empty();
  const Limits limits = solverLimits(opts, budget);
  bool below = false;  // values below t0 build t0's system (proved)
  bool from_facts = false;  // the lm.assume facts keep E >= t0
  int64_t t0 = lowestTrip(s, tl, checked, only_bounds, limits,
                          [&](int64_t T) { return buildAt(s, checked.front(), target, tl, T); }, below,
                          &from_facts);
  const int64_t least = t0;  // (of E)
  // Values of E below t0 are covered by t0's system only where no loop
  // runs an iteration: a clamped loop min(c, E + d) + o from a constant
  // start with a positive step runs none at t0, and so none below (its
  // bound does not grow as E falls), when c' = min(c, t0 + d) + o is at
  // most its start.
  if (!from_facts)
    for (const TripLoops::Clamp& c : tl.clamps)
      if (!c.start || std::min(c.value, t0 + c.value - c.from) + c.offset > *c.start)
        throw Fail(fmt::format("{} may be below {}, where a loop bounded by {} runs (not covered)",
                               ir::exprToString(*tl.trip, s), t0, ir::exprToString(*c.expr, s)));
  if (tl.scale > 1) {
    // every E >= t0 with E = scale * T + residue: T >= ceil((t0 - residue) / scale)
    if (below || t0 < 0)
      throw Fail(fmt::format("loops with a step and a trip expression {} that may be negative (not covered yet)",
                             ir::exprToString(*tl.trip, s)));
    t0 = std::max<int64_t>(0, -*ir::floorDiv(tl.residue - t0, tl.scale));
  }
  std::string clamped;
  if (!tl.clamps.empty()) {
    // Loops bounded by min(c, E + d) (TripLoops::clamps): below the least
    // E at which every such bound is its constant, each trip count is
    // explored as the system it is; from there on the proof goes on with
    // the bounds evaluated to their constants (buildAt).
    const int64_t from = clampsFrom(tl);
    for (int64_t T = t0; T < from; ++T) {
      checkBudget(budget, fmt::format("trip count {} below the clamped bounds' constants", tripValue(tl, T)));
      System sys = buildAt(s, checked.front(), target, tl, T);
      chargeBuild(budget, sys);
      states += exploreTripCount(sys, T, opts, budget);
    }
    if (from > t0) {
      clamped = fmt::format("; trip counts {}..{} one by one, below the clamped loop bounds' constants", t0, from - 1);
      t0 = from;
    }
  }
  // The window must see every iteration-indexed view index reach its
  // stage count (the builder treats an index that never does as a stage).
  int64_t max_stages = 1;
  for (const ir::View& v : s.views) max_stages = std::max<int64_t>(max_stages, v.stages);
  for (const ir::Pipeline& p : s.pipelines) max_stages = std::max<int64_t>(max_stages, p.stages);
  for (const ir::Barrier& b : s.barriers) max_stages = std::max<int64_t>(max_stages, b.count);
  const int64_t wide = std::max<int64_t>({opts.first_window, t0 + max_lo + 8, 2 * max_stages + 8});
  // (TripProofOptions::least_window: narrower windows first, each checked
  // by stagesSettled, then the usual ones)
  for (int64_t W = opts.least_window ? std::min(wide, leastWindow(t0 + max_lo)) : wide;;
       W = W < wide ? std::min(wide, 2 * W) : 2 * W) {
    if (W > opts.max_window)
      throw NoSteadyPeriod(fmt::format("no steady period within {} unrolled iterations", opts.max_window));
    checkBudget(budget, fmt::format("window {}", W));
    try {
      return attempt(s, target, checked.front(), tl, t0, W, opts, budget, states, /*settle=*/W < wide) + clamped +
             (below ? fmt::format("; every value below {} reads as {} does", least, least) : "");
    } catch (const WindowTooSmall&) {
      continue;
    } catch (const Met&) {
      throw;
    } catch (const Fail&) {
      // a narrow window's period may be one a wider window refutes
      // (`k // 4` looks constant over 4 iterations): the wider windows decide
      if (W >= wide || !budget.exhausted().empty()) throw;
    }
  }
}

// Lap induction with tl.fixed set, once per residue of the trip expression
// modulo tl.scale (loops with a step): every value of E is one of them.
std::string proveFixed(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                       const TripLoops& tl, const TripProofOptions& opts,
                       ProofBudget& budget, uint64_t& states) {
  TripLoops each = tl;
  std::map<const ir::Expr*, std::set<int64_t>> offsets;  // (TripLoops::offsets, for step-1 loops by parity)
  if (tl.scale == 1) {
    try {
      return proveResidue(s, target, checked, tl, opts, budget, states);
    } catch (const NoSteadyPeriod&) {
      // A tail that depends on the parity of E (a guard `k + 2 < E + 1` in
      // the odd iterations only): once more per residue of E modulo 2, in
      // blocks of two iterations (docs/z3.md "The parity of the trip count").
      each.scale = 2;
      each.offsets = &offsets;
    }
  }
  std::string first;
  const std::string E = ir::exprToString(*tl.trip, s);
  for (int64_t r = 0; r < each.scale; ++r) {
    each.residue = r;
    const std::string at = fmt::format("{} = {} * T + {}: ", E, each.scale, r);
    try {
      std::string engine = proveResidue(s, target, checked, each, opts, budget, states);
      if (first.empty()) first = std::move(engine);
    } catch (const Met& m) {
      throw Met(at + m.what(), m.violation, tripValue(each, m.trip), m.violation.trip_open);
    } catch (const Fail& f) {
      throw Fail(at + f.what());
    }
  }
  return fmt::format("for each {} = {} * T + r, r in 0..{} (the loops' steps and starts), in iterations of {} values: "
                     "{} (shown for r = 0)",
                     E, each.scale, each.scale - 1, each.scale, first);
}

// The parameters the system reads besides the trip expression (tile sizes
// that set byte counts and offsets, a guard's bound, ...).
std::set<int> paramsBesides(const ir::Schedule& s, Binding b, ir::Target target, const TripLoops& tl, int64_t T) {
  b.replace = tl.trip.get();
  b.replace_value = T;
  std::string err;
  const EvalHook dead = deadHook(tl, tl.guards);
  auto sys = trip::buildForProof(s, b, target, &err, tl.dead.empty() ? tl.guards : &dead);
  if (!sys) throw Fail(fmt::format("the system for trip count {} cannot be built: {}", T, err));
  std::set<int> out;
  for (int p : sys->params_read)
    if (p >= 0) out.insert(p);  // builtins (negative) stay refused by buildAt
  return out;
}

ir::ExprPtr factOf(int param, int64_t value) {
  return ir::makeExpr(ir::ExprKind::Eq, {symbolNode(ir::ExprKind::Param, param), ir::makeConst(value)});
}

std::string tooManyText(const ir::Schedule& s, int p, size_t cap) {
  return fmt::format("the schedule reads {} besides the trip count, and the lm.assume facts allow more than {} values "
                     "of it (such parameters are proved value by value)",
                     s.params[p].name, cap);
}

// Every assignment of the parameters `params` that the lm.assume facts
// allow, if there are at most `cap` (else Fail): each parameter's values,
// given the values already chosen for the others, found one by one by an
// incremental query that excludes each value found (BvProver::
// allowedValues), in ascending order. Exact: the proof covers every
// allowed value by proving each.
std::vector<std::map<int, int64_t>> listAssignments(const ir::Schedule& s, const std::set<int>& params,
                                                    const Limits& limits, size_t cap, const std::function<void()>& tick) {
  BvProver prover(s, limits);
  std::vector<std::map<int, int64_t>> out = {{}};
  for (int p : params) {
    const ir::ExprPtr x = symbolNode(ir::ExprKind::Param, p);
    std::vector<std::map<int, int64_t>> next;
    for (const auto& chosen : out) {
      std::vector<ir::ExprPtr> facts;
      for (const auto& [q, v] : chosen) facts.push_back(factOf(q, v));
      const size_t found = next.size();  // this assignment's values are appended from here
      const BvProver::Values r = prover.allowedValues(p, facts, cap - found, tick);
      if (r.kind == BvVerdict::Fails)
        throw TooManyValues(tooManyText(s, p, cap), p);
      if (r.kind != BvVerdict::Holds)
        throw Fail(fmt::format("the values the lm.assume facts allow for {} cannot be listed ({})", s.params[p].name,
                               r.detail));
      for (const int64_t v : r.values) {
        auto with = chosen;
        with[p] = v;
        next.push_back(std::move(with));
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

// One parameter's listings (allowedAssignments) of one schedule, kept for
// the next listing of the same parameter with the same facts: the
// tile-per-inner-value argument lists `n_sets` four times (its few values
// up to max_equivalent_values, then up to max_fixed_values twice, then up
// to max_equivalent_values again), each a query per value (docs/z3.md "The
// least window for a tile loop unrolled per inner value"). The values are
// the lm.assume facts', the same at every listing; a cap only says where a
// listing stops.
struct ValueListings {
  struct Known {
    std::optional<std::vector<std::map<int, int64_t>>> all;  // every allowed value, once listed whole
    std::optional<size_t> more_than;                         // the largest cap a listing ran past
  };
  std::map<int, Known> of;
};

// Every assignment of the parameters `params` that the lm.assume facts
// allow, if there are at most `cap` (else Fail: TooManyValues past the
// cap). With `known`, a single parameter's earlier listings answer when
// they decide the cap (the same values and the same failure as listing
// again); the others are listed and kept.
std::vector<std::map<int, int64_t>> allowedAssignments(const ir::Schedule& s, const std::set<int>& params,
                                                       const Limits& limits, size_t cap,
                                                       const std::function<void()>& tick = {},
                                                       ValueListings* known = nullptr) {
  if (!known || params.size() != 1) return listAssignments(s, params, limits, cap, tick);
  ValueListings::Known& k = known->of[*params.begin()];
  if (k.all && k.all->size() <= cap) return *k.all;
  if (k.all || (k.more_than && *k.more_than >= cap)) throw TooManyValues(tooManyText(s, *params.begin(), cap), *params.begin());
  try {
    k.all = listAssignments(s, params, limits, cap, tick);
    return *k.all;
  } catch (const TooManyValues&) {
    k.more_than = std::max(k.more_than.value_or(0), cap);
    throw;
  }
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

// Each system explored whole (the bounded check's exploration), systems
// equal up to sizes once (trip_sizes.h); `met(i, m)` is called (and must
// throw) when system i meets a violation. Returns how many were explored.
size_t exploreEachUpToSizes(const std::vector<System>& systems, const TripProofOptions& opts, ProofBudget& budget,
                            uint64_t& states, const std::function<void(size_t, const Met&)>& met) {
  std::set<std::vector<int64_t>> explored;
  size_t n = 0;
  for (size_t i = 0; i < systems.size(); ++i) {
    std::vector<int64_t> key = trip::sizeFreeKey({&systems[i]});
    if (!key.empty() && explored.count(key)) continue;
    ++n;
    try {
      states += exploreTripCount(systems[i], 0, opts, budget);
    } catch (const Met& m) {
      met(i, m);
      throw;
    }
    if (!key.empty()) explored.insert(std::move(key));
  }
  return n;
}

// ================================================================ the block index through guards
//
// docs/z3.md "The block index through guards: one system per class of
// outcomes" (helper cucoll, session 20, issue 11). A schedule without a
// symbolic loop whose system reads lm.block_idx / lm.grid_dim (cuCollections'
// find kernel: `if 128 * b < n:`, `if 128 * b + 32 * w < n:`) is a function
// of its guards' outcomes when it reads them nowhere else. The atoms: every
// `if` condition (a comparison or a logical operation: value 0 or 1) that
// reads a parameter, a block index or a grid size and no loop variable, one
// per lm.instance() value of the role that tests it when it reads the
// instance (structurally equal conditions are one atom per instance). The
// builder is given each atom's outcome by a hook (so the atom reads nothing)
// and everything else it evaluates is recorded as before: a system that then
// reads a block index or grid size is refused; parameters it reads are
// listed value by value (proveUnlooped's R). The outcome vectors are
// enumerated by a search that drops a partial vector only when the bit-vector
// prover shows that no allowed binding (the lm.assume facts, the listed
// values, 0 <= block_idx < grid_dim) gives it; every allowed binding gives
// its atoms some vector, each prefix of which is kept, so the vectors built
// cover every binding, and a binding with a vector builds that vector's
// system (the same expressions to the same values). Each atom must be
// defined for every allowed binding (no division by zero, no overflow),
// shown by the prover, else the hook's 0 / 1 could stand for a binding the
// builder cannot evaluate. In a modelled cluster one system holds several
// block indices (an atom's value would depend on the CTA): refused.
namespace block_classes {

using Atom = trip::GuardAtoms::Atom;  // the guard atoms (trip::guardAtoms, shared with the bounded check)
using trip::isTruthValue;
struct Key {
  int atom = 0;
  int64_t instance = -1;  // -1: the atom reads no lm.instance()
  bool operator<(const Key& o) const { return std::tie(atom, instance) < std::tie(o.atom, o.instance); }
};

// The outcomes to enumerate: one per atom, or one per instance of the role
// that tests it when it reads lm.instance().
std::set<Key> keysOf(const ir::Schedule& s, const trip::GuardAtoms& g) {
  std::set<Key> keys;
  for (const trip::GuardAtoms::Use& u : g.uses) {
    const int atom = static_cast<int>(u.atom);
    if (!g.atoms[u.atom].reads_instance) {
      keys.insert({atom, -1});
      continue;
    }
    const int n = u.role >= 0 ? s.roles[u.role].instanceCount() : 1;
    for (int inst = 0; inst < std::max(1, n); ++inst) keys.insert({atom, inst});
  }
  return keys;
}

// The atom at one instance, as the prover reads it (lm.instance() a constant).
ir::ExprPtr literal(const std::vector<Atom>& atoms, const Key& k, bool value) {
  ir::ExprPtr c = atoms[k.atom].cond;
  if (k.instance >= 0) c = substitute(c, *symbolNode(ir::ExprKind::Instance, 0), ir::makeConst(k.instance));
  return value ? c : ir::makeExpr(ir::ExprKind::Not, {c});
}

std::string text(const ir::Schedule& s, const std::vector<Atom>& atoms, const std::vector<Key>& keys,
                 const std::vector<bool>& v) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < keys.size(); ++i)
    parts.push_back(fmt::format(fmt::runtime(v[i] ? "{}{}" : "not ({}){}"), ir::exprToString(*atoms[keys[i].atom].cond, s),
                                keys[i].instance >= 0 ? fmt::format(" at instance {}", keys[i].instance) : ""));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace block_classes

// The concrete binding a violation of an unlooped system was met for: the
// checked binding with the parameters the proof fixed (`fixed`) and, where
// the prover found one, its witness of the guards' outcome class (the
// block index and grid size included; no modelled cluster here, so the
// binding's block index is the CTA's).
Binding witnessBinding(const Binding& checked, const std::map<int, int64_t>& fixed, const BvModel& model) {
  Binding b = checked;
  for (const auto& [p, v] : fixed) b.params[p] = v;
  for (const auto& [p, v] : model.params) b.params[p] = v;
  for (int d = 0; d < 3; ++d) {
    if (model.block_idx[d]) b.block_idx[d] = *model.block_idx[d];
    if (model.grid_dim[d]) b.grid_dim[d] = *model.grid_dim[d];
    b.grid_dim[d] = std::max(b.grid_dim[d], b.block_idx[d] + 1);
  }
  return b;
}

// `reads`: what made the classes necessary, for the engine line ("the
// block index", or a parameter with more allowed values than are listed:
// docs/z3.md "Parameters with many values read only by guards", session 23).
std::string proveUnloopedPerBlockClass(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                                       const TripProofOptions& opts, ProofBudget& budget, uint64_t& states,
                                       const std::map<const ir::Expr*, int64_t>& dead,
                                       const std::string& reads = "the block index") {
  using namespace block_classes;
  auto refuse = [&reads](const std::string& why) {
    throw Fail(fmt::format("no loop bound reads a parameter, and the schedule reads {}: {} (not covered)", reads,
                           why));
  };
  const trip::GuardAtoms guards = trip::guardAtoms(s);
  const std::vector<Atom>& atoms = guards.atoms;
  const std::set<Key> key_set = keysOf(s, guards);
  const std::vector<Key> keys(key_set.begin(), key_set.end());
  if (keys.empty()) refuse("no guard reads it");
  constexpr size_t kMaxKeys = 16;
  if (keys.size() > kMaxKeys) refuse(fmt::format("{} guard outcomes (at most {} are enumerated)", keys.size(), kMaxKeys));
  const Limits limits = solverLimits(opts, budget);
  BvProver prover(s, limits);
  for (const Key& k : keys) {  // defined for every allowed binding
    checkBudget(budget, "showing the guards defined");
    const ir::ExprPtr lit = literal(atoms, k, true);
    if (prover.prove(ir::makeExpr(ir::ExprKind::Or, {lit, ir::makeExpr(ir::ExprKind::Not, {lit})})).kind !=
        BvVerdict::Holds)
      refuse(fmt::format("the guard {} is not shown defined for every allowed binding", ir::exprToString(*lit, s)));
  }
  TripLoops none;
  none.dead = dead;
  const EvalHook dead_hook = deadHook(none, nullptr);
  auto conjunction = [&](const std::vector<bool>& v) {  // the atoms' outcomes v (a prefix of keys)
    ir::ExprPtr conj = ir::makeConst(1);
    for (size_t i = 0; i < v.size(); ++i) conj = ir::makeExpr(ir::ExprKind::And, {conj, literal(atoms, keys[i], v[i])});
    return conj;
  };
  std::set<int> listed;  // parameters read outside the guards
  for (int round = 0; round < 4; ++round) {
    std::vector<std::map<int, int64_t>> all = {{}};
    if (!listed.empty())
      all = allowedAssignments(s, listed, limits, opts.max_fixed_values,
                               [&] { checkBudget(budget, "listing the parameters' values"); });
    // The outcome vectors no allowed binding is shown to avoid, per assignment.
    std::vector<std::pair<size_t, std::vector<bool>>> classes;
    for (size_t a = 0; a < all.size(); ++a) {
      std::vector<ir::ExprPtr> facts;
      for (const auto& [p, v] : all[a]) facts.push_back(factOf(p, v));
      std::vector<bool> v;
      std::function<void()> search = [&] {
        if (v.size() == keys.size()) {
          if (classes.size() >= opts.max_fixed_values)
            refuse(fmt::format("more than {} outcome vectors of its guards", opts.max_fixed_values));
          classes.push_back({a, v});
          return;
        }
        for (const bool value : {true, false}) {
          v.push_back(value);
          checkBudget(budget, "enumerating the guards' outcomes");
          if (outcomesPossible(s, prover, conjunction(v), facts, limits)) search();
          v.pop_back();
        }
      };
      search();
    }
    std::vector<System> systems;
    std::set<int> more;
    for (const auto& [a, v] : classes) {
      checkBudget(budget, "building the systems of a schedule without a symbolic loop");
      std::map<Key, bool> outcome;
      for (size_t i = 0; i < keys.size(); ++i) outcome[keys[i]] = v[i];
      const EvalHook hook = [&](const ir::Expr& e, const ir::EvalEnv& env) -> std::optional<int64_t> {
        if (auto d = dead_hook(e, env)) return d;
        if (!isTruthValue(e.kind)) return std::nullopt;
        for (int i = 0; i < static_cast<int>(atoms.size()); ++i) {
          if (!ir::sameExpr(e, *atoms[i].cond)) continue;
          if (atoms[i].reads_instance && !env.instance) return std::nullopt;
          auto it = outcome.find({i, atoms[i].reads_instance ? *env.instance : -1});
          if (it == outcome.end()) return std::nullopt;  // evaluated as usual: its reads are recorded
          return it->second ? 1 : 0;
        }
        return std::nullopt;
      };
      Binding b = checked.front();
      b.replace = nullptr;
      for (const auto& [p, x] : all[a]) b.params[p] = x;
      std::string err;
      auto sys = trip::buildForProof(s, b, target, &err, &hook);
      if (!sys) throw Fail(fmt::format("the system for {} cannot be built: {}", text(s, atoms, keys, v), err));
      chargeBuild(budget, *sys);
      if (sys->ctas > 1) refuse("a modelled cluster (one system holds several block indices)");
      for (const int p : sys->params_read) {
        if (p < 0)
          refuse(fmt::format("{} outside the guards",
                             p >= -3 ? fmt::format("lm.block_idx({})", -1 - p) : fmt::format("lm.grid_dim({})", -4 - p)));
        if (!listed.count(p)) more.insert(p);
      }
      systems.push_back(std::move(*sys));
    }
    if (!more.empty()) {
      listed.insert(more.begin(), more.end());
      continue;
    }
    const size_t n = exploreEachUpToSizes(systems, opts, budget, states, [&](size_t i, const Met& m) {
      // A binding of the class, for the reader (the bounded check may not
      // have tried its block index): the prover's witness, if it finds one.
      std::vector<ir::ExprPtr> facts;
      for (const auto& [p, x] : all[classes[i].first]) facts.push_back(factOf(p, x));
      const BvResult w = classWitness(s, prover, conjunction(classes[i].second), facts, solverLimits(opts, budget));
      const std::string what = fmt::format(
          "{}{}: meets {}{} (no finding here: the bounded check decides)",
          all[classes[i].first].empty() ? "" : assignmentText(s, {all[classes[i].first]}) + ", ",
          text(s, atoms, keys, classes[i].second), m.violation.rule,
          w.kind == BvVerdict::Fails ? fmt::format(", e.g. at {}", w.model.toString(s)) : "");
      Fail f = w.kind == BvVerdict::Fails ? failWithWitness(what, witnessBinding(checked.front(), all[classes[i].first], w.model))
                                          : Fail(what);
      f.explored_violation = true;
      throw f;
    });
    return fmt::format("no symbolic loop; {} read only by guards: for each of the {} allowed outcome "
                       "vectors of {} guard outcome{} ({} of {} possible){}, the system explored whole ({} explored, "
                       "the others equal to one of them up to sizes)",
                       reads, classes.size(), keys.size(), keys.size() == 1 ? "" : "s", classes.size(),
                       size_t{1} << keys.size(), listed.empty() ? "" : " and each " + assignmentText(s, all), n);
  }
  refuse("the parameters the systems read keep changing with their values");
  return {};
}

// ================================================================ no symbolic loop
//
// docs/z3.md "No symbolic loop: each system explored whole" (helper
// guardonly, session 18, issue 11). Where no loop bound, start or step
// reads a parameter with more than a few allowed values (none at all, or
// only parameters proved value by value: `lm.range(0, has_bias)`), the
// builder unrolls every loop to a count it evaluates, and the system it
// builds is a function of the values it reads: every parameter, block
// index and grid size it evaluates is recorded (System::params_read; a
// cluster's `lm.block_idx(d) % cluster[d]` evaluates to the CTA's
// coordinate without a read, trip_cluster.h), and everything else it does
// is the same for every binding (a TMA coordinate is not evaluated). So:
// * reads of no parameter: the system is the one of every binding, and its
//   exhaustive exploration (the bounded check's) decides every binding;
// * reads of parameters R only, all builtins excluded: the lm.assume facts'
//   assignments of R are listed exactly (allowedAssignments: at most
//   max_fixed_values, else unknown), and one system per assignment is
//   built with the other parameters at the checked binding's values and
//   explored. A binding with those values of R builds the same system (the
//   builder evaluates the same expressions to the same values). If a system
//   reads a parameter outside R, R grows and the list is made again.
// A guard `if flag > 0:` reads its parameter: such schedules are proved
// once per allowed outcome of their guards (proveGuardCases), on copies
// with the guards decided, where the guard no longer reads it. A violation
// met is no finding here (unknown): the bounded check decides.
std::string proveUnlooped(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                          const TripProofOptions& opts, ProofBudget& budget, uint64_t& states,
                          const std::map<const ir::Expr*, int64_t>& dead) {
  TripLoops none;  // for the hook only: loops that run no iteration (proveInnerCases)
  none.dead = dead;
  const EvalHook hook = deadHook(none, nullptr);
  std::set<int> listed;  // R
  for (int round = 0; round < 4; ++round) {
    std::vector<std::map<int, int64_t>> all = {{}};
    if (!listed.empty()) {
      try {
        all = allowedAssignments(s, listed, solverLimits(opts, budget), opts.max_fixed_values,
                                 [&] { checkBudget(budget, "listing the parameters' values"); });
      } catch (const TooManyValues&) {
        // Too many values to prove one by one (`if 16 * w < n_tok:` with
        // 1 <= n_tok <= 64): where the guards are the only reads of such a
        // parameter, one system per class of the guards' outcomes covers
        // them all, by the argument of the block index's classes (which
        // lists the parameters still read outside the guards, and refuses
        // when there are too many of those too).
        if (trip::guardAtoms(s).atoms.empty()) throw;
        std::string which;
        for (const int p : listed) which += (which.empty() ? "" : ", ") + s.params[p].name;
        return proveUnloopedPerBlockClass(
            s, target, checked, opts, budget, states, dead,
            fmt::format("{} (more allowed values than are proved one by one)", which));
      }
    }
    std::vector<System> systems;
    std::set<int> more;
    for (const auto& values : all) {
      checkBudget(budget, "building the systems of a schedule without a symbolic loop");
      Binding b = checked.front();
      b.replace = nullptr;
      for (const auto& [p, v] : values) b.params[p] = v;
      std::string err;
      auto sys = trip::buildForProof(s, b, target, &err, dead.empty() ? nullptr : &hook);
      if (!sys) throw Fail(fmt::format("the system for {} cannot be built: {}", bindingToString(s, b), err));
      chargeBuild(budget, *sys);
      for (const int p : sys->params_read) {
        // the block index through guards only: one system per class of
        // the guards' outcomes (proveUnloopedPerBlockClass)
        if (p < 0) return proveUnloopedPerBlockClass(s, target, checked, opts, budget, states, dead);
        if (!listed.count(p)) more.insert(p);
      }
      systems.push_back(std::move(*sys));
    }
    if (!more.empty()) {
      listed.insert(more.begin(), more.end());
      continue;
    }
    // Systems equal up to sizes explore alike (trip_sizes.h): one of each.
    const size_t n = exploreEachUpToSizes(systems, opts, budget, states, [&](size_t i, const Met& m) {
      Fail f = failWithWitness(fmt::format("{}meets {} (no finding here: the bounded check decides)",
                                           all[i].empty() ? "" : assignmentText(s, {all[i]}) + ": ", m.violation.rule),
                               witnessBinding(checked.front(), all[i], {}));
      f.explored_violation = true;
      throw f;
    });
    if (listed.empty()) return "no loop bound reads a parameter and the system reads none: explored whole";
    return fmt::format("no symbolic loop; for each {}: the system explored whole ({} of {} explored, the others "
                       "equal to one of them up to sizes)",
                       assignmentText(s, all), n, all.size());
  }
  throw Fail("no loop bound reads a parameter, and the parameters the systems read keep changing with their values");
}

// ================================================================ two tile loops as one
//
// docs/z3.md "Two tile loops as one, a kind per tile" (helper tail64,
// session 16): a role that runs `for t in lm.range(S, B1, c): BIG` and then
// `for u in lm.range(B1 + (S - B1) % c, B2, c): SMALL` runs, with 0 <= S < c
// for every instance, 0 <= B1 and B1 <= B2 for every allowed binding,
// exactly `for t in lm.range(S, B2, c): BIG if t < B1 else SMALL` (SMALL
// with u read as t), in the same order. The merged schedule has that loop
// with the guard `t < B1` as an `if`; the persistent proof does not
// evaluate the guard but explores both bodies at every tile (a kind per
// tile, chosen when a process enters it): the real runs (every tile below
// B1 of the first kind, then every tile of the second) are among the
// explored ones, so a proof covers them and a violation met is unknown.

struct MergedLoops {
  std::shared_ptr<ir::Schedule> s;  // the schedule with the two loops merged
  const ir::Expr* guard = nullptr;  // the merged loop's `t < B1` (the kind: 1 when it holds)
  std::string text;                 // what was merged, for the engine line
};

// e with loop variable `from` read as `to`.
ir::ExprPtr renameLoopVar(const ir::ExprPtr& e, int from, int to) {
  if (!e) return e;
  if (e->kind == ir::ExprKind::LoopVar && e->index == from) return symbolNode(ir::ExprKind::LoopVar, to);
  if (e->args.empty()) return e;
  auto copy = std::make_shared<ir::Expr>(*e);
  for (ir::ExprPtr& a : copy->args) a = renameLoopVar(a, from, to);
  return copy;
}
// Every expression of b (statements, ops, operands; nested blocks too)
// replaced by f of it (f maps a null expression to null).
void mapExprs(ir::Block& b, const std::function<ir::ExprPtr(const ir::ExprPtr&)>& f) {
  auto ref = [&](ir::BufferRef& r) {
    r.slot = f(r.slot);
    r.scalar = f(r.scalar);
    for (ir::Slice& sl : r.slices) {
      sl.lo = f(sl.lo);
      sl.hi = f(sl.hi);
    }
  };
  for (ir::Stmt& st : b) {
    for (ir::ExprPtr* e : {&st.lo, &st.hi, &st.step, &st.cond}) *e = f(*e);
    ir::Op& op = st.op;
    ref(op.dst);
    ref(op.src);
    ref(op.src2);
    for (ir::ExprPtr& c : op.coords) c = f(c);
    for (ir::ExprPtr* e : {&op.sel.index, &op.sel.phase, &op.bytes, &op.count, &op.pending, &op.init, &op.fill_value,
                           &op.base, &op.multicast, &op.cta})
      *e = f(*e);
    mapExprs(st.body, f);
    mapExprs(st.orelse, f);
  }
}
void renameLoopVar(ir::Block& b, int from, int to) {
  mapExprs(b, [&](const ir::ExprPtr& e) { return renameLoopVar(e, from, to); });
}

// e >= 0 for every allowed binding: products, sums and divisions (by
// divisors >= 1) of non-negative values, max with one, min with both, then interval
// reasoning and the solver on the smaller expressions this leaves (the
// solver timed out on the whole products).
bool provedNonNeg(FactProver& prover, const ir::ExprPtr& e, std::map<int, std::optional<int64_t>>& lb) {
  using K = ir::ExprKind;
  if (e->args.size() == 2) {
    const ir::ExprPtr &x = e->args[0], &y = e->args[1];
    switch (e->kind) {
      case K::Mul: case K::Add:
        if (provedNonNeg(prover, x, lb) && provedNonNeg(prover, y, lb)) return true;
        break;
      case K::FloorDiv: case K::CDiv:
        if (provedNonNeg(prover, x, lb) && atLeast(prover, y, 1, lb)) return true;
        break;
      case K::Max: {
        // (a constant side first: it needs no query, where the other may
        // spend the solver's whole limit on a product, `max(tm * tn - b, 0)`)
        const bool y_first = ir::constValue(y).has_value() && !ir::constValue(x).has_value();
        const ir::ExprPtr &a = y_first ? y : x, &b = y_first ? x : y;
        if (provedNonNeg(prover, a, lb) || provedNonNeg(prover, b, lb)) return true;
        break;
      }
      case K::Min:
        if (provedNonNeg(prover, x, lb) && provedNonNeg(prover, y, lb)) return true;
        break;
      default: break;
    }
  }
  return atLeast(prover, e, 0, lb);
}

// a <= b for every allowed binding: the same syntax but where b is larger
// in a place where the expression grows with it (a sum, a difference's
// first operand, max / min, a floor or ceiling division's dividend by the
// same divisor >= 1, b = a + z with z >= 0), each part shown so (the
// solver times out on the non-linear trip counts whole), the solver for
// the parts left (`solver` false: none, the syntax alone).
bool provedLe(FactProver& prover, const ir::ExprPtr& a, const ir::ExprPtr& b,
              std::map<int, std::optional<int64_t>>& lb, bool solver = true) {
  using K = ir::ExprKind;
  if (ir::sameExpr(*a, *b)) return true;
  // x + c <= x + d for constants c <= d (exact integers)
  const auto [core_a, off_a] = splitOffset(a);
  const auto [core_b, off_b] = splitOffset(b);
  if (ir::sameExpr(*core_a, *core_b)) return off_a <= off_b;
  if (a->kind == K::Min && a->args.size() == 2)  // min(b, y) <= b
    for (int i = 0; i < 2; ++i)
      if (ir::sameExpr(*a->args[i], *b)) return true;
  if (b->kind == K::Add && b->args.size() == 2)
    for (int i = 0; i < 2; ++i)
      if (solver && ir::sameExpr(*a, *b->args[i]) && provedNonNeg(prover, b->args[1 - i], lb)) return true;
  if (a->kind == b->kind && a->args.size() == 2 && b->args.size() == 2) {
    switch (a->kind) {
      case K::Add: case K::Max: case K::Min:
        return provedLe(prover, a->args[0], b->args[0], lb, solver) && provedLe(prover, a->args[1], b->args[1], lb, solver);
      case K::Sub:
        return provedLe(prover, a->args[0], b->args[0], lb, solver) && provedLe(prover, b->args[1], a->args[1], lb, solver);
      case K::FloorDiv: case K::CDiv:
        if (ir::sameExpr(*a->args[1], *b->args[1]))
          return solver && atLeast(prover, a->args[1], 1, lb) && provedLe(prover, a->args[0], b->args[0], lb, solver);
        break;
      default: break;
    }
  }
  return solver && prover.prove(ir::makeExpr(K::Le, {a, b})).kind == BvVerdict::Holds;
}

// The first pair of loops of the shape above in a role body (top level),
// merged; nullopt when there is none. Throws Fail when the shape is there
// but a condition is not shown.
std::optional<MergedLoops> mergeTwoTileLoops(const ir::Schedule& s, const Limits& limits) {
  using K = ir::ExprKind;
  for (size_t bi = 0; bi < s.bodies.size(); ++bi) {
    const ir::Block& body = s.bodies[bi].body;
    for (size_t i = 0; i + 1 < body.size(); ++i) {
      const ir::Stmt &l1 = body[i], &l2 = body[i + 1];
      if (l1.kind != ir::Stmt::Kind::For || l2.kind != ir::Stmt::Kind::For || !l1.hi || !l2.hi || !l1.lo || !l2.lo)
        continue;
      if (!mentionsParam(*l1.hi) || !mentionsParam(*l2.hi) || ir::sameExpr(*l1.hi, *l2.hi)) continue;
      const auto c1 = l1.step ? ir::constValue(l1.step) : std::optional<int64_t>(1);
      const auto c2 = l2.step ? ir::constValue(l2.step) : std::optional<int64_t>(1);
      if (!c1 || !c2 || *c1 != *c2 || *c1 < 1 || *c1 > 64) continue;
      const int64_t c = *c1;
      // the second start: B1 + (S - B1) % c (with step 1: B1 alone)
      const ir::ExprPtr s2 = ir::makeExpr(
          K::Add, {l1.hi, ir::makeExpr(K::Mod, {ir::makeExpr(K::Sub, {l1.lo, l1.hi}), ir::makeConst(c)})});
      if (!ir::sameExpr(*l2.lo, *s2) && !(c == 1 && ir::sameExpr(*l2.lo, *l1.hi))) continue;
      const std::string what =
          fmt::format("lm.range({}, {}, {}) then lm.range({}, {}, {})", ir::exprToString(*l1.lo, s),
                      ir::exprToString(*l1.hi, s), c, ir::exprToString(*l2.lo, s), ir::exprToString(*l2.hi, s), c);
      auto refuse = [&](const std::string& why) {
        throw Fail(fmt::format("two tile loops ({}): {}", what, why));
      };
      if (!l1.orelse.empty() || !l2.orelse.empty()) refuse("a loop with an else block");
      // 0 <= S < c for every instance (S reads constants and lm.instance() only)
      if (ir::exprUses(*l1.lo, {K::Param, K::LoopVar, K::BlockIdx, K::GridDim}))
        refuse("the first start reads more than lm.instance()");
      const ir::RoleBody& rb = s.bodies[bi];
      const int n = rb.role >= 0 && rb.role < static_cast<int>(s.roles.size()) ? s.roles[rb.role].instanceCount() : 1;
      for (int inst = 0; inst < std::max(1, n); ++inst) {
        ir::EvalEnv env;
        env.instance = inst;
        auto v = ir::evaluate(*l1.lo, env);
        if (!v || *v < 0 || *v >= c) refuse(fmt::format("the first start is not in 0..{} for instance {}", c - 1, inst));
      }
      FactProver prover(s, limits, {});
      std::map<int, std::optional<int64_t>> lb;
      // Bounds that read lm.instance() (`2 * q + 1 + wg`) are shown for each
      // instance of the role with the instance a constant (the prover has no
      // range for it).
      const bool by_instance = ir::exprUses(*l1.hi, {K::Instance}) || ir::exprUses(*l2.hi, {K::Instance});
      for (int inst = 0; inst < (by_instance ? std::max(1, n) : 1); ++inst) {
        const ir::ExprPtr b1 = by_instance ? atInstanceOf(l1.hi, inst) : l1.hi;
        const ir::ExprPtr b2 = by_instance ? atInstanceOf(l2.hi, inst) : l2.hi;
        const std::string at = by_instance ? fmt::format(" (instance {})", inst) : "";
        if (!atLeast(prover, b1, 0, lb)) refuse(fmt::format("{} >= 0 is not shown{}", ir::exprToString(*l1.hi, s), at));
        if (!provedLe(prover, b1, b2, lb))
          refuse(fmt::format("{} <= {} is not shown{}", ir::exprToString(*l1.hi, s), ir::exprToString(*l2.hi, s), at));
      }
      MergedLoops m;
      m.s = std::make_shared<ir::Schedule>(s);
      ir::Block& mb = m.s->bodies[bi].body;
      ir::Stmt loop = mb[i];  // the first loop, run to B2
      loop.hi = l2.hi;
      ir::Stmt kind;
      kind.kind = ir::Stmt::Kind::If;
      kind.range = l1.range;
      auto guard = ir::makeExpr(K::Lt, {symbolNode(K::LoopVar, l1.loop_var), l1.hi});
      m.guard = guard.get();
      kind.cond = std::move(guard);
      kind.body = std::move(loop.body);
      kind.orelse = mb[i + 1].body;
      renameLoopVar(kind.orelse, l2.loop_var, l1.loop_var);
      loop.body.clear();
      loop.body.push_back(std::move(kind));
      mb[i] = std::move(loop);
      mb.erase(mb.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      m.text = what;
      return m;
    }
  }
  return std::nullopt;
}

// ============================================ loops bounded by a multiple of the trip expression
// (docs/z3.md "Loops bounded by a multiple of the trip expression", helper twoloop, session 30)

// e = c * x with a constant c (either operand): {c, x}.
std::optional<std::pair<int64_t, ir::ExprPtr>> constantMultiple(const ir::ExprPtr& e) {
  if (e->kind != ir::ExprKind::Mul || e->args.size() != 2) return std::nullopt;
  for (int i = 0; i < 2; ++i)
    if (auto c = ir::constValue(e->args[i])) return std::make_pair(*c, e->args[1 - i]);
  return std::nullopt;
}

// e with every `(c * x) // d` and `lm.cdiv(c * x, d)` whose constant d >= 1
// divides the constant c read as `(c / d) * x` (x alone when c = d): equal
// for every integer x, as c * x is a multiple of d (`kt // 2` with `kt = 2 *
// lm.cdiv(K, 128)` is lm.cdiv(K, 128)). Nodes with nothing to cancel are
// kept as they are (the schedule's own).
ir::ExprPtr cancelConstantFactors(const ir::ExprPtr& e) {
  if (!e || e->args.empty()) return e;
  std::vector<ir::ExprPtr> args;
  bool changed = false;
  for (const ir::ExprPtr& a : e->args) {
    args.push_back(cancelConstantFactors(a));
    changed = changed || args.back() != a;
  }
  if ((e->kind == ir::ExprKind::FloorDiv || e->kind == ir::ExprKind::CDiv) && args.size() == 2) {
    const auto d = ir::constValue(args[1]);
    const auto m = constantMultiple(args[0]);
    if (d && *d >= 1 && m && m->first % *d == 0)
      return m->first == *d ? m->second : ir::makeExpr(ir::ExprKind::Mul, {ir::makeConst(m->first / *d), m->second});
  }
  if (!changed) return e;
  auto copy = std::make_shared<ir::Expr>(*e);
  copy->args = std::move(args);
  return copy;
}

// A schedule whose loops bounded by c * X (c a constant) run in blocks of
// c iterations over X, and what was read so (the engine line).
struct BlockLoops {
  std::shared_ptr<ir::Schedule> s;
  std::string text;
};

// The loops of b (at any depth) whose bound reads a parameter.
void symbolicLoops(ir::Block& b, std::vector<ir::Stmt*>& out) {
  for (ir::Stmt& st : b) {
    if (st.kind == ir::Stmt::Kind::For && st.hi && mentionsParam(*st.hi)) out.push_back(&st);
    symbolicLoops(st.body, out);
    symbolicLoops(st.orelse, out);
  }
}

// `for k in lm.range(c * a, c * X):` becomes `for k//c in lm.range(a, X):
// for k%c in lm.range(0, c):` with k read as `c * k//c + k%c` in the body:
// the same values of k in the same order, so the same operations.
void runInBlocks(ir::Schedule& s, ir::Stmt& loop, int64_t c, const ir::ExprPtr& x) {
  const int k = loop.loop_var;
  const std::string name = s.loop_vars.at(static_cast<size_t>(k)).name;
  const int blk = static_cast<int>(s.loop_vars.size()), in = blk + 1;
  s.loop_vars.push_back({fmt::format("{}//{}", name, c), s.loop_vars[static_cast<size_t>(k)].range});
  s.loop_vars.push_back({fmt::format("{}%{}", name, c), s.loop_vars[static_cast<size_t>(k)].range});
  ir::Stmt inner;
  inner.kind = ir::Stmt::Kind::For;
  inner.range = loop.range;
  inner.loop_var = in;
  inner.lo = ir::makeConst(0);
  inner.hi = ir::makeConst(c);
  inner.step = ir::makeConst(1);
  inner.body = std::move(loop.body);
  const ir::ExprPtr value =
      ir::makeExpr(ir::ExprKind::Add, {ir::makeExpr(ir::ExprKind::Mul, {ir::makeConst(c), symbolNode(ir::ExprKind::LoopVar, blk)}),
                                       symbolNode(ir::ExprKind::LoopVar, in)});
  const ir::ExprPtr var = symbolNode(ir::ExprKind::LoopVar, k);
  mapExprs(inner.body, [&](const ir::ExprPtr& e) { return substitute(e, *var, value); });
  loop.loop_var = blk;
  loop.lo = ir::makeConst(*ir::constValue(loop.lo) / c);
  loop.hi = x;
  loop.step = ir::makeConst(1);
  loop.body.clear();
  loop.body.push_back(std::move(inner));
}

// The schedule with constant factors cancelled (cancelConstantFactors) and
// every loop `lm.range(c * a, c * X)` (step 1, c in 2..64) run in blocks of
// c iterations (runInBlocks), when then every loop whose bound reads a
// parameter is bounded by one X plus a constant; nullopt when nothing
// changes or the bounds are not of that shape.
std::optional<BlockLoops> loopsInBlocks(const ir::Schedule& s) {
  auto copy = std::make_shared<ir::Schedule>(s);
  bool cancelled = false;
  for (ir::RoleBody& body : copy->bodies)
    mapExprs(body.body, [&](const ir::ExprPtr& e) {
      ir::ExprPtr x = cancelConstantFactors(e);
      cancelled = cancelled || x != e;
      return x;
    });
  std::vector<ir::Stmt*> loops;
  for (ir::RoleBody& body : copy->bodies) symbolicLoops(body.body, loops);
  ir::ExprPtr trip;  // X
  std::vector<std::pair<ir::Stmt*, int64_t>> multiples;
  auto same = [&](const ir::ExprPtr& x) {
    if (!trip) trip = x;
    return ir::sameExpr(*trip, *x);
  };
  for (ir::Stmt* st : loops) {
    const auto [core, off] = splitOffset(st->hi);
    const auto m = constantMultiple(core);
    if (!m || m->first < 2 || m->first > 64 || off != 0) {
      if (!same(core)) return std::nullopt;
      continue;
    }
    const auto lo = ir::constValue(st->lo);
    const auto step = st->step ? ir::constValue(st->step) : std::optional<int64_t>(1);
    if (!same(m->second) || !lo || *lo < 0 || *lo % m->first != 0 || step != 1 || !st->orelse.empty())
      return std::nullopt;
    multiples.emplace_back(st, m->first);
  }
  if (multiples.empty() && !cancelled) return std::nullopt;
  BlockLoops out{copy, ""};
  for (auto& [st, c] : multiples) {
    out.text += fmt::format("{}lm.range({}, {})", out.text.empty() ? "" : ", ", ir::exprToString(*st->lo, s),
                            ir::exprToString(*st->hi, s));
    runInBlocks(*copy, *st, c, trip);
  }
  out.text = multiples.empty() ? fmt::format("constant factors cancelled (bounds of {})", ir::exprToString(*trip, s))
                               : fmt::format("{} run in blocks over {}", out.text, ir::exprToString(*trip, s));
  return out;
}

// ============================================ a finer quotient of the trip expression's dividend
// (docs/z3.md "A guard on a finer quotient of the loop bound's dividend",
// helper bounds2, session 32)

// One case of the split: the copy with every `lm.cdiv(X, d)` read as `c *
// E - r` (`X // d` as `c * E + r`), the case's equation among its facts.
struct QuotientCase {
  std::shared_ptr<ir::Schedule> s;
  ir::ExprPtr fact;  // lm.cdiv(X, d) == c * E - r
  std::string text;
};

// A loop bound E = lm.cdiv(X, D) (or X // D), a node q = lm.cdiv(X, d)
// (X // d) of the same dividend, and c = D / d.
struct FinerQuotient {
  ir::ExprPtr bound, finer;
  int64_t c = 0;
};
constexpr int64_t kMaxQuotientCases = 8;

// e = lm.cdiv(x, d) or x // d with a constant d >= 1: {x, d}.
std::optional<std::pair<ir::ExprPtr, int64_t>> constantQuotient(const ir::Expr& e) {
  if ((e.kind != ir::ExprKind::CDiv && e.kind != ir::ExprKind::FloorDiv) || e.args.size() != 2) return std::nullopt;
  const auto d = ir::constValue(e.args[1]);
  if (!d || *d < 1) return std::nullopt;
  return std::make_pair(e.args[0], *d);
}

// Every sub-expression of e (e too), once each by value.
void subExprs(const ir::ExprPtr& e, std::vector<ir::ExprPtr>& out) {
  if (!e) return;
  if (std::none_of(out.begin(), out.end(), [&](const ir::ExprPtr& o) { return ir::sameExpr(*o, *e); }))
    out.push_back(e);
  for (const ir::ExprPtr& a : e->args) subExprs(a, out);
}

// Does e read x other than inside a node equal to `skip`?
bool readsOutside(const ir::ExprPtr& e, const ir::Expr& x, const ir::Expr& skip) {
  if (!e || ir::sameExpr(*e, skip)) return false;
  if (ir::sameExpr(*e, x)) return true;
  return std::any_of(e->args.begin(), e->args.end(), [&](const ir::ExprPtr& a) { return readsOutside(a, x, skip); });
}

// The finest quotient, d = 1: a loop bounded by E = lm.cdiv(X, c) (or
// X // c, plus a constant), c in 2..kMaxQuotientCases, X reading the
// parameter `param` (K, lm.cdiv(K, 32)), which the roles' bodies read outside E (a loop over pairs of
// iterations whose second runs under `if 2 * p + 1 < K`, bound
// lm.cdiv(K, 2)); the cases are then X == c * E - r (X == c * E + r),
// docs/z3.md "The dividend itself as the finer quotient". nullopt where
// there is none, or more than one.
std::optional<FinerQuotient> dividendReadBesides(const ir::Schedule& s, int param) {
  std::vector<const ir::Stmt*> loops;
  for (const ir::RoleBody& body : s.bodies) collectLoops(body.body, loops);
  std::optional<FinerQuotient> out;
  for (const ir::Stmt* st : loops) {
    if (!st->hi || !mentionsParam(*st->hi)) continue;
    const ir::ExprPtr bound = splitOffset(st->hi).first;
    const auto coarse = constantQuotient(*bound);
    if (!coarse || !ir::readsSymbol(*coarse->first, ir::ExprKind::Param, param) ||
        coarse->second < 2 || coarse->second > kMaxQuotientCases)
      continue;
    if (out && ir::sameExpr(*out->bound, *bound)) continue;
    bool read = false;
    ir::Schedule probe = s;
    for (ir::RoleBody& body : probe.bodies)
      mapExprs(body.body, [&](const ir::ExprPtr& e) {
        read = read || readsOutside(e, *coarse->first, *bound);
        return e;
      });
    if (!read) continue;
    if (out) return std::nullopt;
    out = FinerQuotient{bound, coarse->first, coarse->second};
  }
  return out;
}

// The bound E (plus a constant) of a loop whose bound reads a parameter and
// a node q read in the roles' bodies, d a constant with D = c * d, c in
// 2..kMaxQuotientCases; nullopt where there is none, or more than one such
// pair, or a c above that.
std::optional<FinerQuotient> finerQuotientOf(const ir::Schedule& s) {
  std::vector<const ir::Stmt*> loops;
  for (const ir::RoleBody& body : s.bodies) collectLoops(body.body, loops);
  std::vector<ir::ExprPtr> nodes;
  ir::Schedule probe = s;
  for (ir::RoleBody& body : probe.bodies)
    mapExprs(body.body, [&](const ir::ExprPtr& e) {
      subExprs(e, nodes);
      return e;
    });
  std::optional<FinerQuotient> out;
  for (const ir::Stmt* st : loops) {
    if (!st->hi || !mentionsParam(*st->hi)) continue;
    const ir::ExprPtr bound = splitOffset(st->hi).first;
    const auto coarse = constantQuotient(*bound);
    if (!coarse || !mentionsParam(*coarse->first)) continue;
    for (const ir::ExprPtr& n : nodes) {
      const auto fine = constantQuotient(*n);
      if (!fine || n->kind != bound->kind || !ir::sameExpr(*fine->first, *coarse->first) || fine->second >= coarse->second ||
          coarse->second % fine->second != 0)
        continue;
      const int64_t c = coarse->second / fine->second;
      if (c > kMaxQuotientCases) return std::nullopt;
      if (out && !(ir::sameExpr(*out->bound, *bound) && ir::sameExpr(*out->finer, *n))) return std::nullopt;
      out = FinerQuotient{bound, n, c};
    }
  }
  return out;
}

// The cases of lm.cdiv(X, d) == c * lm.cdiv(X, c * d) - r, r = 0..c - 1
// (X // d == c * (X // (c * d)) + r for floor division), that the lm.assume
// facts allow, each a copy of the schedule with the finer quotient read so
// (the same value for every binding of the case) and the equation among its
// facts. Empty where the solver does not prove that the cases cover every
// binding the facts allow (they do for every integer X: with q = lm.cdiv(X,
// c * d), (q - 1) * c * d < X <= q * c * d, so lm.cdiv(X, d) is one of (q -
// 1) * c + 1 .. q * c; the solver checks it under the schedule's own facts).
std::vector<QuotientCase> finerQuotientCases(const ir::Schedule& s, const FinerQuotient& fq, BvProver& prover) {
  using K = ir::ExprKind;
  std::vector<ir::ExprPtr> values;  // c * E -+ r
  ir::ExprPtr any = ir::makeConst(0);
  for (int64_t r = 0; r < fq.c; ++r) {
    const ir::ExprPtr cE = ir::makeExpr(K::Mul, {ir::makeConst(fq.c), fq.bound});
    const ir::ExprPtr v = r == 0 ? cE : ir::makeExpr(fq.bound->kind == K::CDiv ? K::Sub : K::Add, {cE, ir::makeConst(r)});
    values.push_back(v);
    any = ir::makeExpr(K::Or, {any, ir::makeExpr(K::Eq, {fq.finer, v})});
  }
  if (prover.prove(any).kind != BvVerdict::Holds) return {};
  std::vector<QuotientCase> out;
  for (const ir::ExprPtr& v : values) {
    QuotientCase c{std::make_shared<ir::Schedule>(s), ir::makeExpr(K::Eq, {fq.finer, v}), ""};
    if (prover.prove(ir::makeExpr(K::Not, {c.fact})).kind == BvVerdict::Holds) continue;  // no binding has it
    for (ir::RoleBody& body : c.s->bodies) mapExprs(body.body, [&](const ir::ExprPtr& e) { return substitute(e, *fq.finer, v, fq.bound.get()); });
    c.s->assumes.push_back({c.fact, s.range});
    c.text = fmt::format("{} == {}", ir::exprToString(*fq.finer, s), ir::exprToString(*v, s));
    out.push_back(std::move(c));
  }
  return out;
}

// Does binding b satisfy e (every fact of s with `all`)?
bool holdsAt(const ir::Schedule& s, const ir::Expr& e, const Binding& b, bool all) {
  ir::EvalEnv env;
  env.params = b.params;
  std::copy(b.block_idx, b.block_idx + 3, env.block_idx);
  std::copy(b.grid_dim, b.grid_dim + 3, env.grid_dim);
  auto v = ir::evaluate(e, env);
  if (!v || *v == 0) return false;
  return !all || std::all_of(s.assumes.begin(), s.assumes.end(), [&](const ir::Assume& a) {
    auto f = a.cond ? ir::evaluate(*a.cond, env) : std::optional<int64_t>(1);
    return f && *f != 0;
  });
}

// The bindings a case's proof is built with: the checked ones its fact
// holds at; where none does (the covering values may all fall in one case),
// a checked binding with one parameter of the fact moved to the least value
// in 1..4096 at which the fact and every lm.assume fact hold, so that the
// proof works with a binding the case allows, as the checked ones are
// allowed. Empty when neither is found.
std::vector<Binding> bindingsOfCase(const ir::Schedule& s, const ir::Expr& fact, const std::vector<Binding>& checked) {
  std::vector<Binding> out;
  for (const Binding& b : checked)
    if (holdsAt(s, fact, b, false)) out.push_back(b);
  if (!out.empty() || checked.empty()) return out;
  for (int p : paramsOf(fact))
    for (int64_t v = 1; v <= 4096; ++v) {
      Binding b = checked.front();
      b.params[p] = v;
      if (holdsAt(s, fact, b, true)) return {b};
    }
  return out;
}

// ============================================ a ring streamed twice by one role
// (docs/z3.md "Two passes over one ring read as tiles of two kinds", helper
// softmax2, session 31)

// The copy of a schedule whose roles stream one ring in two passes, read as
// a persistent kernel with a tile of either kind (passesAsTiles).
struct PassTiles {
  std::shared_ptr<ir::Schedule> s;
  const ir::Expr* guard = nullptr;  // `p < P1`, the `if` of every rewritten role (kind 0: pass 1)
  int first = -1, later = -1;       // the copy's parameters P1 and P2 (tile counts of each kind)
  std::string text;                 // what was read so, for the engine line
};

// e = a * k + b * E + sum(rest) + c, with k a loop variable, E the trip
// expression and each rest term a node that is neither (its own k's
// rewritten by `atom`); false when a coefficient leaves +-2^20.
struct RingLinear {
  int64_t k = 0, trip = 0, c = 0;
  std::vector<std::pair<int64_t, ir::ExprPtr>> rest;
};
bool ringLinear(const ir::ExprPtr& e, int64_t scale, int k, const ir::Expr& E, RingLinear& out,
                const std::function<ir::ExprPtr(const ir::ExprPtr&)>& atom) {
  using K = ir::ExprKind;
  if (scale > (1 << 20) || scale < -(1 << 20)) return false;
  if (e->kind == K::LoopVar && e->index == k) return out.k += scale, true;
  if (ir::sameExpr(*e, E)) return out.trip += scale, true;
  if (e->kind == K::Const) {
    if (e->value > (1 << 20) || e->value < -(1 << 20)) return false;
    return out.c += scale * e->value, true;
  }
  switch (e->kind) {
    case K::Add:
      return ringLinear(e->args[0], scale, k, E, out, atom) && ringLinear(e->args[1], scale, k, E, out, atom);
    case K::Sub:
      return ringLinear(e->args[0], scale, k, E, out, atom) && ringLinear(e->args[1], -scale, k, E, out, atom);
    case K::Neg: return ringLinear(e->args[0], -scale, k, E, out, atom);
    case K::Mul:
      if (auto m = constantMultiple(e); m && m->first <= (1 << 20) && m->first >= -(1 << 20))
        return ringLinear(m->second, scale * m->first, k, E, out, atom);
      break;
    default: break;
  }
  out.rest.emplace_back(scale, atom(e));
  return true;
}

// c * x (x alone for c = 1), and a sum of two terms (either may be null: 0).
ir::ExprPtr scaled(int64_t c, const ir::ExprPtr& x) {
  return c == 1 ? x : ir::makeExpr(ir::ExprKind::Mul, {ir::makeConst(c), x});
}
ir::ExprPtr plus(const ir::ExprPtr& a, int64_t c, const ir::ExprPtr& x) {
  if (c == 0) return a;
  if (!a) return scaled(c, x);
  return c < 0 ? ir::makeExpr(ir::ExprKind::Sub, {a, scaled(-c, x)}) : ir::makeExpr(ir::ExprKind::Add, {a, scaled(c, x)});
}

// Expression e of pass i (0 or 1) of a K loop `for k in lm.range(0, E)`,
// read inside tile p of the copy: equal to e wherever p = i, and written
// with k only as the ring index `p * E + k` where it can be. Each largest
// sum of e that reads k, a * k + b * E + rest, becomes a * (p * E + k) +
// (b - a * i) * E + rest: at p = i that is a * k + a * i * E + (b - a * i)
// * E + rest = e (exact integers). Pass 2's `n + k` is `p * n + k`; a k
// read otherwise keeps a bare E (`(p * n + k) - n`), which the persistent
// proof refuses (the per-tile restart). Nodes that read no k are e's own.
ir::ExprPtr ringIndexed(const ir::ExprPtr& e, int k, const ir::ExprPtr& E, int p, int64_t i) {
  using K = ir::ExprKind;
  if (!e || !anySubExpr(*e, [&](const ir::Expr& x) { return x.kind == K::LoopVar && x.index == k; })) return e;
  auto inner = [&](const ir::ExprPtr& x) { return ringIndexed(x, k, E, p, i); };
  const bool sum = e->kind == K::Add || e->kind == K::Sub || e->kind == K::Neg ||
                   (e->kind == K::LoopVar && e->index == k) || constantMultiple(e);
  RingLinear lin;
  if (!sum || !ringLinear(e, 1, k, *E, lin, [&](const ir::ExprPtr& x) {
        if (x->args.empty()) return x;
        auto copy = std::make_shared<ir::Expr>(*x);
        for (ir::ExprPtr& a : copy->args) a = inner(a);
        return ir::ExprPtr(copy);
      })) {
    auto copy = std::make_shared<ir::Expr>(*e);
    for (ir::ExprPtr& a : copy->args) a = inner(a);
    return copy;
  }
  const ir::ExprPtr ring =
      ir::makeExpr(K::Add, {ir::makeExpr(K::Mul, {symbolNode(K::LoopVar, p), E}), symbolNode(K::LoopVar, k)});
  ir::ExprPtr out = plus(nullptr, lin.k, ring);
  out = plus(out, lin.trip - lin.k * i, E);
  for (const auto& [c, x] : lin.rest) out = plus(out, c, x);
  if (!out) return ir::makeConst(lin.c);
  return lin.c == 0 ? out : ir::makeExpr(lin.c < 0 ? K::Sub : K::Add, {out, ir::makeConst(lin.c < 0 ? -lin.c : lin.c)});
}

// The direct statements of a role body that are loops bounded by a
// parameter, each `for k in lm.range(0, E)` (start 0, step 1, no else);
// nullopt when one is not, or when a loop bounded by a parameter lies
// deeper (passesAsTiles, segmentsAsTiles).
std::optional<std::vector<size_t>> topLevelParamLoops(const ir::Block& body) {
  std::vector<size_t> out;
  for (size_t i = 0; i < body.size(); ++i) {
    const ir::Stmt& st = body[i];
    std::vector<const ir::Stmt*> deeper;
    collectLoops(st.body, deeper);
    collectLoops(st.orelse, deeper);
    if (std::any_of(deeper.begin(), deeper.end(), [](const ir::Stmt* l) { return l->hi && mentionsParam(*l->hi); }))
      return std::nullopt;
    if (st.kind != ir::Stmt::Kind::For || !st.hi || !mentionsParam(*st.hi)) continue;
    const auto step = st.step ? ir::constValue(st.step) : std::optional<int64_t>(1);
    if (!st.lo || ir::constValue(st.lo) != 0 || step != 1 || !st.orelse.empty()) return std::nullopt;
    out.push_back(i);
  }
  return out;
}

// The schedule read as a persistent kernel whose tiles are its passes, when
// every role body with a loop bounded by a parameter holds exactly two such
// loops, both direct statements `for k in lm.range(0, E)` (step 1, no else)
// with one E for the whole schedule (the passes), and nothing deeper: the
// body `pre ; L1 ; mid ; L2 ; post` becomes
//   pre
//   for p in lm.range(0, P1 + P2):
//     if p < P1: L1' ; mid
//     else:      L2'
//   post
// with two fresh parameters P1, P2 >= 0 and L1', L2' the loops with every
// expression of their bodies read by ringIndexed (pass 0 and 1). At P1 = P2
// = 1 the copy runs, in every role, pre, L1 (p = 0, every expression of the
// value it has in L1), mid, L2 (p = 1, likewise), post: the schedule's
// operations in its order with its values, so for every binding b of the
// schedule the copy's system at (b, P1 = 1, P2 = 1) is the schedule's. The
// copy's facts are the schedule's and P1, P2 >= 0, which that binding meets,
// so a proof of the copy for every binding covers the schedule (more runs:
// any number of tiles of each kind, proved too). nullopt when the shape is
// not there.
std::optional<PassTiles> passesAsTiles(const ir::Schedule& s) {
  using K = ir::ExprKind;
  const std::set<const ir::Stmt*> instance_bounds = instanceBoundLoops(s);
  ir::ExprPtr trip;
  std::vector<std::pair<size_t, std::array<size_t, 2>>> rewritten;  // body -> its two passes
  for (size_t bi = 0; bi < s.bodies.size(); ++bi) {
    const ir::Block& body = s.bodies[bi].body;
    std::vector<size_t> passes;
    const std::optional<std::vector<size_t>> loops = topLevelParamLoops(body);
    if (!loops) return std::nullopt;
    for (size_t i : *loops) {
      if (instance_bounds.count(&body[i])) return std::nullopt;  // (one pass length for every instance)
      if (!trip) trip = body[i].hi;
      if (!ir::sameExpr(*trip, *body[i].hi)) return std::nullopt;
      passes.push_back(i);
    }
    if (passes.empty()) continue;
    if (passes.size() != 2) return std::nullopt;
    rewritten.push_back({bi, {passes[0], passes[1]}});
  }
  if (rewritten.empty()) return std::nullopt;
  PassTiles out;
  out.s = std::make_shared<ir::Schedule>(s);
  ir::Schedule& c = *out.s;
  out.first = static_cast<int>(c.params.size());
  out.later = out.first + 1;
  c.params.push_back({"P1", ir::ParamType::I32, s.range});
  c.params.push_back({"P2", ir::ParamType::I32, s.range});
  for (int p : {out.first, out.later})
    c.assumes.push_back({ir::makeExpr(K::Ge, {symbolNode(K::Param, p), ir::makeConst(0)}), s.range});
  const int p = static_cast<int>(c.loop_vars.size());
  c.loop_vars.push_back({"p", s.range});
  const ir::ExprPtr guard = ir::makeExpr(K::Lt, {symbolNode(K::LoopVar, p), symbolNode(K::Param, out.first)});
  out.guard = guard.get();
  for (const auto& [bi, at] : rewritten) {
    ir::Block& body = c.bodies[bi].body;
    ir::Block pass[2] = {{body[at[0]]}, {body[at[1]]}};
    for (int i = 0; i < 2; ++i) {
      const int k = pass[i][0].loop_var;
      mapExprs(pass[i][0].body, [&](const ir::ExprPtr& e) { return ringIndexed(e, k, trip, p, i); });
    }
    pass[0].insert(pass[0].end(), body.begin() + static_cast<std::ptrdiff_t>(at[0]) + 1,
                   body.begin() + static_cast<std::ptrdiff_t>(at[1]));  // mid, after pass 1
    ir::Stmt kind;
    kind.kind = ir::Stmt::Kind::If;
    kind.range = body[at[0]].range;
    kind.cond = guard;
    kind.body = std::move(pass[0]);
    kind.orelse = std::move(pass[1]);
    ir::Stmt tiles;
    tiles.kind = ir::Stmt::Kind::For;
    tiles.range = body[at[0]].range;
    tiles.loop_var = p;
    tiles.lo = ir::makeConst(0);
    tiles.hi = ir::makeExpr(K::Add, {symbolNode(K::Param, out.first), symbolNode(K::Param, out.later)});
    tiles.step = ir::makeConst(1);
    tiles.body.push_back(std::move(kind));
    body.erase(body.begin() + static_cast<std::ptrdiff_t>(at[0]) + 1, body.begin() + static_cast<std::ptrdiff_t>(at[1]) + 1);
    body[at[0]] = std::move(tiles);
  }
  // the copy's statement lists keep the schedule's TMA loads in their
  // order between the same compound statements, unless two selectors that
  // differ became alike (`k + 1`, `1 + k`): then its expect_tx batches differ
  if (!trip::sameDerivedTx(s, c)) return std::nullopt;
  std::vector<std::string> roles;
  for (const auto& [bi, at] : rewritten) {
    const int r = s.bodies[bi].role;
    roles.push_back(r >= 0 && r < static_cast<int>(s.roles.size()) ? s.roles[static_cast<size_t>(r)].name : "?");
  }
  out.text = fmt::format("two passes over {} ({}) read as tiles of two kinds (P1 tiles of pass 1, then P2 of pass 2; "
                         "the schedule is P1 = P2 = 1)",
                         ir::exprToString(*trip, s), fmt::join(roles, ", "));
  return out;
}

// ---------------------------------------------------------------- loops from 0

// A sum of atoms with integer coefficients and a constant (equal atoms,
// sameExpr, merged; in the order they first appear).
struct AtomSum {
  std::vector<std::pair<int64_t, ir::ExprPtr>> terms;
  int64_t c = 0;
  void add(int64_t a, const ir::ExprPtr& x) {
    for (auto& [b, y] : terms)
      if (ir::sameExpr(*x, *y)) return void(b += a);
    terms.emplace_back(a, x);
  }
};

bool smallCoefficient(int64_t c) { return c <= (1 << 20) && c >= -(1 << 20); }

// out += scale * e, with every read of loop variable k read as `lo + k`
// (`lo` given as a sum) and every other node not a sum, difference,
// negation or product by a constant an atom (its own k's rewritten by
// `atom`). False when a coefficient leaves +-2^20.
bool shiftedSum(const ir::ExprPtr& e, int64_t scale, int k, const AtomSum& lo, AtomSum& out,
                const std::function<ir::ExprPtr(const ir::ExprPtr&)>& atom) {
  using K = ir::ExprKind;
  if (!smallCoefficient(scale)) return false;
  switch (e->kind) {
    case K::LoopVar:
      if (e->index != k) break;
      out.add(scale, e);
      for (const auto& [a, x] : lo.terms) out.add(scale * a, x);
      out.c += scale * lo.c;
      return true;
    case K::Const:
      if (!smallCoefficient(e->value)) return false;
      out.c += scale * e->value;
      return true;
    case K::Add: return shiftedSum(e->args[0], scale, k, lo, out, atom) && shiftedSum(e->args[1], scale, k, lo, out, atom);
    case K::Sub:
      return shiftedSum(e->args[0], scale, k, lo, out, atom) && shiftedSum(e->args[1], -scale, k, lo, out, atom);
    case K::Neg: return shiftedSum(e->args[0], -scale, k, lo, out, atom);
    case K::Mul:
      if (auto m = constantMultiple(e); m && smallCoefficient(m->first))
        return shiftedSum(m->second, scale * m->first, k, lo, out, atom);
      break;
    default: break;
  }
  out.add(scale, atom(e));
  return true;
}

// The sum written out (zero terms left out; the constant last).
ir::ExprPtr writeSum(const AtomSum& s) {
  ir::ExprPtr out;
  for (const auto& [a, x] : s.terms) out = plus(out, a, x);
  if (!out) return ir::makeConst(s.c);
  if (s.c == 0) return out;
  return ir::makeExpr(s.c < 0 ? ir::ExprKind::Sub : ir::ExprKind::Add, {out, ir::makeConst(s.c < 0 ? -s.c : s.c)});
}

std::set<int> loopVarsOf(const ir::Expr& e) {
  std::set<int> out;
  anySubExpr(e, [&](const ir::Expr& x) {
    if (x.kind == ir::ExprKind::LoopVar) out.insert(x.index);
    return false;
  });
  return out;
}

// Expression e of the body of `for k in lm.range(lo, hi, c)`, read inside
// `for k in lm.range(0, hi - lo, c)` (k now counts from 0): every read of
// k is `lo + k`, and each largest sum that reads k is written out again
// with equal atoms merged (`(lo + k) - lo` is `k`); in a comparison the
// atoms both sides read that read no k are merged across it too (`lo + k
// == lo` is `k == 0`: a < b iff a - x < b - x, exact integers). Every
// value is e's at the same iteration. The builder reads one thing of an
// expression besides its value, the innermost loop a view index names (its
// keying loop, system.cpp): so every loop variable e reads that `lo_vars`
// (lo's) does not must stay read (lo's are outside the loop, k and the
// loops in its body inside). nullptr: a coefficient leaves +-2^20, or such
// a variable cancels (`k - k`).
ir::ExprPtr shiftedFromZero(const ir::ExprPtr& e, int k, const AtomSum& lo, const std::set<int>& lo_vars) {
  using K = ir::ExprKind;
  if (!e || !ir::dependsOnLoopVar(*e, k)) return e;
  bool ok = true;
  auto inner = [&](const ir::ExprPtr& x) {
    ir::ExprPtr y = shiftedFromZero(x, k, lo, lo_vars);
    if (!y) ok = false;
    return y ? y : x;
  };
  auto atom = [&](const ir::ExprPtr& x) {
    if (x->args.empty()) return x;
    auto copy = std::make_shared<ir::Expr>(*x);
    for (ir::ExprPtr& a : copy->args) a = inner(a);
    return ir::ExprPtr(copy);
  };
  auto sumOf = [&](const ir::ExprPtr& x, AtomSum& s) { return shiftedSum(x, 1, k, lo, s, atom); };
  const bool compare = e->kind == K::Lt || e->kind == K::Le || e->kind == K::Gt || e->kind == K::Ge ||
                       e->kind == K::Eq || e->kind == K::Ne;
  const bool sum = e->kind == K::Add || e->kind == K::Sub || e->kind == K::Neg || e->kind == K::LoopVar ||
                   constantMultiple(e);
  ir::ExprPtr out;
  if (compare) {
    AtomSum l, r;
    if (!sumOf(e->args[0], l) || !sumOf(e->args[1], r)) return nullptr;
    for (auto& [b, y] : r.terms)
      for (auto& [a, x] : l.terms)
        if (!ir::dependsOnLoopVar(*x, k) && ir::sameExpr(*x, *y)) {
          a -= b;
          b = 0;
        }
    out = ir::makeExpr(e->kind, {writeSum(l), writeSum(r)});
  } else if (sum) {
    AtomSum s;
    if (!sumOf(e, s)) return nullptr;
    out = writeSum(s);
  } else {
    out = atom(e);
  }
  if (!ok) return nullptr;
  const std::set<int> kept = loopVarsOf(*out);
  for (int v : loopVarsOf(*e))
    if (!lo_vars.count(v) && !kept.count(v)) return nullptr;
  return out;
}

// The schedule with every loop `for k in lm.range(lo, hi, c)` whose start
// reads a parameter (c a positive constant, no else) run from 0: `for k in
// lm.range(0, hi - lo, c)` with every expression of its body read by
// shiftedFromZero. For every binding the new loop runs k' = 0, c, 2c, ...
// while k' < hi - lo, that is lo + k' = lo, lo + c, ... while lo + k' <
// hi: the old loop's values in its order (none when hi <= lo in both), lo
// evaluated to one value throughout (it reads no k and nothing the body
// changes). Every expression of the body has, at iteration k', the value it
// had at k = lo + k', so the builder emits the same operations in the same
// order with the same fields (the loop's bounds read the same parameters,
// which the builder reads for an empty loop); only the loop values an
// instruction carries (Instr::loops, messages and the proof's own
// comparisons) are k' for k, a bijection per loop. nullopt when no loop
// has such a start or one cannot be rewritten.
struct LoopsFromZero {
  std::shared_ptr<ir::Schedule> s;
  std::string text;  // what was rewritten, for the engine line
};

// A bound of another loop of the schedule (`bounds`: those that read no
// loop variable) equal to `trip` for every value of the free symbols
// (ir::equalForAllValues: a polynomial identity, loop variables included)
// and reading the same parameters, as a node of its own; else `trip`.
// A flat K loop `lm.range(w * kb, (w + 1) * kb)` counted from 0 runs
// `(w + 1) * kb - w * kb` iterations: spelled `kb`, like the other roles'
// K loops, it is the same symbolic loop (findTripWith compares bounds by
// their text). The value is the same for every binding and the parameters
// the bound reads are the same, which is all the builder reads of a bound
// (its value, and its parameters for an empty loop's K = 0 decision).
ir::ExprPtr spelledAsAnotherBound(const ir::ExprPtr& trip, const std::vector<ir::ExprPtr>& bounds) {
  const std::set<int> params = paramsOf(*trip);
  for (const ir::ExprPtr& b : bounds)
    if (paramsOf(*b) == params && ir::equalForAllValues(*trip, *b)) return std::make_shared<ir::Expr>(*b);
  return trip;
}

bool shiftLoops(ir::Block& b, const ir::Schedule& orig, const std::vector<ir::ExprPtr>& bounds,
                std::vector<std::string>& texts) {
  for (ir::Stmt& st : b) {
    if (!shiftLoops(st.body, orig, bounds, texts) || !shiftLoops(st.orelse, orig, bounds, texts)) return false;
    if (st.kind != ir::Stmt::Kind::For || !st.lo || !mentionsParam(*st.lo)) continue;
    const auto step = st.step ? ir::constValue(st.step) : std::optional<int64_t>(1);
    if (!step || *step < 1 || !st.orelse.empty() || !st.hi || ir::dependsOnLoopVar(*st.lo, st.loop_var)) return false;
    AtomSum lo;
    if (!shiftedSum(st.lo, 1, -1, {}, lo, [](const ir::ExprPtr& x) { return x; })) return false;
    const std::set<int> lo_vars = loopVarsOf(*st.lo);
    const std::string was = fmt::format("lm.range({}, {})", ir::exprToString(*st.lo, orig),
                                        ir::exprToString(*st.hi, orig));
    bool ok = true;
    mapExprs(st.body, [&](const ir::ExprPtr& e) {
      if (!e) return e;
      ir::ExprPtr y = shiftedFromZero(e, st.loop_var, lo, lo_vars);
      if (!y) ok = false;
      return y ? y : e;
    });
    if (!ok) return false;
    // (not simplified: the builder reads which parameters a loop's bounds
    // read, for an empty loop's K = 0 decision; `hi - lo` reads those of
    // both - unless another loop's bound of the same value reads the same)
    st.hi = spelledAsAnotherBound(ir::makeExpr(ir::ExprKind::Sub, {st.hi, st.lo}), bounds);
    st.lo = ir::makeConst(0);
    std::string text = fmt::format("{} as lm.range(0, {})", was, ir::exprToString(*st.hi, orig));
    if (std::find(texts.begin(), texts.end(), text) == texts.end()) texts.push_back(std::move(text));
  }
  return true;
}

std::optional<LoopsFromZero> loopsFromZero(const ir::Schedule& s) {
  LoopsFromZero out;
  out.s = std::make_shared<ir::Schedule>(s);
  std::vector<std::string> texts;
  std::vector<const ir::Stmt*> loops;
  for (const ir::RoleBody& body : s.bodies) collectLoops(body.body, loops);
  std::vector<ir::ExprPtr> bounds;  // the loops' bounds that read no loop variable
  for (const ir::Stmt* st : loops)
    if (st->hi && loopVarsOf(*st->hi).empty()) bounds.push_back(st->hi);
  for (ir::RoleBody& body : out.s->bodies)
    if (!shiftLoops(body.body, s, bounds, texts)) return std::nullopt;
  if (texts.empty() || !trip::sameDerivedTx(s, *out.s)) return std::nullopt;
  out.text = fmt::format("{} (k counted from 0)", fmt::join(texts, ", "));
  return out;
}

// ---------------------------------------------------------------- a loop from the block index, counted in trips
// (docs/z3.md "A tile loop from the block index by a constant step, counted
// in trips", helper tlx46, session 46)

ir::ExprPtr substLoopVar(const ir::ExprPtr& e, int var, const ir::ExprPtr& by);

// A start that is the same value at every entry of its loop and reads the
// block's place in the grid: lm.block_idx / lm.grid_dim and constants only.
bool blockStart(const ir::Expr& lo) {
  using K = ir::ExprKind;
  return ir::exprUses(lo, {K::BlockIdx, K::GridDim}) && !ir::exprUses(lo, {K::Param, K::LoopVar, K::Instance});
}

bool countBlockLoops(ir::Block& b, const ir::Schedule& orig, std::vector<std::string>& texts) {
  using K = ir::ExprKind;
  for (ir::Stmt& st : b) {
    if (!countBlockLoops(st.body, orig, texts) || !countBlockLoops(st.orelse, orig, texts)) return false;
    if (st.kind != ir::Stmt::Kind::For || !st.lo || !st.hi || !blockStart(*st.lo)) continue;
    const auto step = st.step ? ir::constValue(st.step) : std::optional<int64_t>(1);
    if (!step || *step < 1 || !st.orelse.empty()) return false;
    const std::string was = fmt::format("lm.range({}, {}, {})", ir::exprToString(*st.lo, orig),
                                        ir::exprToString(*st.hi, orig), *step);
    const ir::ExprPtr trip = symbolNode(K::LoopVar, st.loop_var);
    const ir::ExprPtr value =
        ir::makeExpr(K::Add, {st.lo, *step == 1 ? trip : ir::makeExpr(K::Mul, {ir::makeConst(*step), trip})});
    mapExprs(st.body, [&](const ir::ExprPtr& e) { return substLoopVar(e, st.loop_var, value); });
    const ir::ExprPtr span = ir::makeExpr(K::Max, {ir::makeExpr(K::Sub, {st.hi, st.lo}), ir::makeConst(0)});
    st.hi = ir::makeExpr(K::CDiv, {span, ir::makeConst(*step)});
    st.lo = ir::makeConst(0);
    st.step = ir::makeConst(1);
    texts.push_back(fmt::format("{} as lm.range(0, {})", was, ir::exprToString(*st.hi, orig)));
  }
  return true;
}

// The schedule with every loop `for v in lm.range(lo, hi, c)` whose start
// reads the block index or grid size and nothing that changes in the CTA
// (blockStart; c a positive constant, no else) counted in trips: `for n in
// lm.range(0, lm.cdiv(max(hi - lo, 0), c))` with every read of v in its
// body read as `lo + c * n` (a persistent kernel's `tile_id = pid; tile_id
// += NUM_SMS` with NUM_SMS a constant). Python's range(lo, hi, c) runs v =
// lo + c * n for n = 0, 1, ... while lo + c * n < hi, that is for n below
// cdiv(max(hi - lo, 0), c), in that order; lo has one value in the CTA.
// So every expression of the body has at trip n the value it had at v = lo
// + c * n, and the builder emits the same operations in the same order with
// the same fields; only the loop values instructions carry are n for v, a
// bijection (as for loopsFromZero). The new bound reads lo's symbols
// besides hi's: the block index and grid size, no parameter, so the
// parameters a bound reads (the builder's empty-loop decision) are hi's.
// nullopt where no loop is such or one cannot be rewritten.
std::optional<LoopsFromZero> blockLoopsInTrips(const ir::Schedule& s) {
  LoopsFromZero out;
  out.s = std::make_shared<ir::Schedule>(s);
  std::vector<std::string> texts;
  for (ir::RoleBody& body : out.s->bodies)
    if (!countBlockLoops(body.body, s, texts)) return std::nullopt;
  if (texts.empty() || !trip::sameDerivedTx(s, *out.s)) return std::nullopt;
  std::sort(texts.begin(), texts.end());
  texts.erase(std::unique(texts.begin(), texts.end()), texts.end());
  out.text = fmt::format("{} (a loop from the block index counted in trips)", fmt::join(texts, ", "));
  return out;
}

// ---------------------------------------------------------------- a loop over rounds, read as a strided loop
// (docs/z3.md "A loop over rounds read as a strided loop", lead, session 45)

struct RoundsAsStrided {
  std::shared_ptr<ir::Schedule> s;
  std::string text;  // what was rewritten, for the engine line
};

// hi = lm.cdiv(max(X - a, 0), c) or lm.cdiv(X - a, c), c >= 2 a constant:
// {X, a, c}.
struct RoundsBound {
  ir::ExprPtr end, start;
  int64_t stride = 0;
};
std::optional<RoundsBound> roundsBound(const ir::ExprPtr& hi) {
  using K = ir::ExprKind;
  if (!hi || hi->kind != K::CDiv || hi->args.size() != 2) return std::nullopt;
  const auto c = ir::constValue(hi->args[1]);
  if (!c || *c < 2) return std::nullopt;
  ir::ExprPtr diff = hi->args[0];
  if (diff->kind == K::Max && diff->args.size() == 2) {
    const auto zero = ir::constValue(diff->args[1]);
    if (!zero || *zero != 0) return std::nullopt;
    diff = diff->args[0];
  }
  if (diff->kind != K::Sub || diff->args.size() != 2) return std::nullopt;
  return RoundsBound{diff->args[0], diff->args[1], *c};
}

// e with every sub-expression equal, for every value, to `c * r + a` read
// as the strided loop's variable r, and r elsewhere as (r - a) // c.
ir::ExprPtr stridedFromRound(const ir::ExprPtr& e, int r, const ir::ExprPtr& value, const ir::ExprPtr& round) {
  if (!e || !ir::dependsOnLoopVar(*e, r)) return e;
  if (ir::equalForAllValues(*e, *value)) return symbolNode(ir::ExprKind::LoopVar, r);
  if (e->kind == ir::ExprKind::LoopVar) return round;
  auto copy = std::make_shared<ir::Expr>(*e);
  for (ir::ExprPtr& x : copy->args) x = stridedFromRound(x, r, value, round);
  return copy;
}

bool readRoundsAsStrided(ir::Block& b, const ir::Schedule& s, std::vector<std::string>& texts) {
  using K = ir::ExprKind;
  for (ir::Stmt& st : b) {
    if (!readRoundsAsStrided(st.body, s, texts) || !readRoundsAsStrided(st.orelse, s, texts)) return false;
    if (st.kind != ir::Stmt::Kind::For) continue;
    const auto lo = ir::constValue(st.lo);
    const auto step = st.step ? ir::constValue(st.step) : std::optional<int64_t>(1);
    const std::optional<RoundsBound> rb = roundsBound(st.hi);
    if (!rb || lo != 0 || step != 1 || !st.orelse.empty()) continue;
    // (a start of the block's place alone: blockLoopsInTrips's own form,
    // which this would write back)
    if (blockStart(*rb->start)) continue;
    // the start reads no parameter the end does not: the new bound reads
    // the old one's parameters (the builder reads them for an empty loop)
    std::set<int> end_params = paramsOf(*rb->end);
    bool same_params = true;
    for (int p : paramsOf(*rb->start)) same_params = same_params && end_params.count(p);
    if (!same_params) continue;
    const int r = st.loop_var;
    const ir::ExprPtr c = ir::makeConst(rb->stride);
    const ir::ExprPtr var = symbolNode(K::LoopVar, r);
    const ir::ExprPtr value = ir::makeExpr(K::Add, {ir::makeExpr(K::Mul, {c, var}), rb->start});
    const ir::ExprPtr round = ir::makeExpr(K::FloorDiv, {ir::makeExpr(K::Sub, {var, rb->start}), c});
    texts.push_back(fmt::format("lm.range(0, {}) as lm.range({}, {}, {})", ir::exprToString(*st.hi, s),
                                ir::exprToString(*rb->start, s), ir::exprToString(*rb->end, s), rb->stride));
    mapExprs(st.body, [&](const ir::ExprPtr& e) { return stridedFromRound(e, r, value, round); });
    st.lo = rb->start;
    st.hi = rb->end;
    st.step = c;
  }
  return true;
}

// The schedule with every loop over rounds, `for r in lm.range(0,
// lm.cdiv(max(X - a, 0), c))` (or lm.cdiv(X - a, c); c >= 2 a constant, a
// and X free of r), run as the strided loop `for r in lm.range(a, X, c)`
// whose value r' = a + c * r: the body's sub-expressions equal to c * r + a
// for every value read as r', r elsewhere as (r' - a) // c. For every
// binding the strided loop runs r' = a, a + c, ... while r' < X: max(0,
// lm.cdiv(X - a, c)) values, the old loop's count, in its order, and each
// rewritten expression has at r' the value it had at r (r' - a = c * r, so
// (r' - a) // c = r). The builder then emits the same operations in the
// same order; only the loop values instructions carry are r' for r, a
// bijection (as for loopsFromZero). A ping-pong consumer written over its
// rounds (t = 2 * r + wg) becomes the strided tile loop `lm.range(
// lm.instance(), my_tiles, 2)` the persistent proof takes. nullopt where
// no loop is such.
std::optional<RoundsAsStrided> roundsAsStrided(const ir::Schedule& s) {
  RoundsAsStrided out{std::make_shared<ir::Schedule>(s), ""};
  std::vector<std::string> texts;
  for (ir::RoleBody& body : out.s->bodies)
    if (!readRoundsAsStrided(body.body, s, texts)) return std::nullopt;
  if (texts.empty() || !trip::sameDerivedTx(s, *out.s)) return std::nullopt;
  out.text = fmt::format("{} (a loop over rounds as a strided loop)", fmt::join(texts, ", "));
  return out;
}

// ---------------------------------------------------------------- segments of independent lengths
ir::ExprPtr substLoopVar(const ir::ExprPtr& e, int var, const ir::ExprPtr& by);
// (docs/z3.md "Consecutive loops of independent lengths read as the tiles of
// a persistent kernel", helper streamk, session 34)

// The name of the role whose body is s.bodies[bi] ("?" where none).
std::string bodyRoleName(const ir::Schedule& s, size_t bi) {
  const int r = s.bodies[bi].role;
  return r >= 0 && r < static_cast<int>(s.roles.size()) ? s.roles[static_cast<size_t>(r)].name : "?";
}

// The parameters of a copy read as a persistent kernel (segmentsAsTiles,
// nestsAsTiles): its tile count NT >= 0 and K length B >= 1, the tile loop's
// variable p and the ring start `p * B` the persistent proof reads as the
// tile's (its sum of the lengths before).
struct TileCopyParams {
  int count = -1, length = -1, p = -1;
  ir::ExprPtr ring;
};
TileCopyParams addTileCopyParams(ir::Schedule& c) {
  using K = ir::ExprKind;
  TileCopyParams out;
  out.count = static_cast<int>(c.params.size());
  out.length = out.count + 1;
  c.params.push_back({"NT", ir::ParamType::I32, c.range});
  c.params.push_back({"B", ir::ParamType::I32, c.range});
  c.assumes.push_back({ir::makeExpr(K::Ge, {symbolNode(K::Param, out.count), ir::makeConst(0)}), c.range});
  c.assumes.push_back({ir::makeExpr(K::Ge, {symbolNode(K::Param, out.length), ir::makeConst(1)}), c.range});
  out.p = static_cast<int>(c.loop_vars.size());
  c.loop_vars.push_back({"p", c.range});
  out.ring = ir::makeExpr(K::Mul, {symbolNode(K::LoopVar, out.p), symbolNode(K::Param, out.length)});
  return out;
}

// The copy of a schedule whose roles run n >= 2 consecutive loops over one
// ring with lengths of their own (a stream-K CTA: the tail of one output
// tile, then the head of the next), read as a persistent kernel of exactly n
// tiles, tile j the segment j (segmentsAsTiles).
struct SegmentTiles {
  std::shared_ptr<ir::Schedule> s;
  std::vector<ir::ExprPtr> lengths;  // L_0 .. L_(n-1), the schedule's loop bounds
  TileCopyParams tp;                 // the copy's NT (its tile loop's bound), B (its K loops'), p
  std::set<const ir::Expr*> guards;  // the conditions `p == j` of the copy's `if` chains
  std::string text;                  // what was read so, for the engine line
};

// mapExprs over every expression but the `if` conditions and `init=`:
// those the persistent proof wants in the segment's own k (a first
// iteration `k == 0`), which they are as written.
void mapRingExprs(ir::Block& b, const std::function<ir::ExprPtr(const ir::ExprPtr&)>& f) {
  for (ir::Stmt& st : b) {
    const ir::ExprPtr cond = st.cond, init = st.op.init;
    ir::Block body = std::move(st.body), orelse = std::move(st.orelse);
    ir::Block one;
    one.push_back(std::move(st));
    mapExprs(one, f);  // (the statement alone: its nested blocks were moved out)
    st = std::move(one.front());
    st.cond = cond;
    st.op.init = init;
    st.body = std::move(body);
    st.orelse = std::move(orelse);
    mapRingExprs(st.body, f);
    mapRingExprs(st.orelse, f);
  }
}

// Expression e of segment j (loop variable k), whose ring start in a run is
// G_j = L_0 + ... + L_(j-1) (`start`, a sum), read inside tile p of the
// copy: every read of k is `k - G_j` (shiftedFromZero: each largest sum
// written out again with equal atoms merged, `(KT - S) + k - (KT - S)` is
// `k`), then every k is `p * B + k`. At p = j, where the persistent proof
// reads `p * B` as the tile's ring start G_j, that is e's value
// (exact integers). nullptr where shiftedFromZero refuses.
ir::ExprPtr onTheRing(const ir::ExprPtr& e, int k, const AtomSum& start, const ir::ExprPtr& ring) {
  if (!e || !ir::dependsOnLoopVar(*e, k)) return e;
  AtomSum back;
  for (const auto& [a, x] : start.terms) back.add(-a, x);
  back.c = -start.c;
  const ir::ExprPtr y = shiftedFromZero(e, k, back, {});
  if (!y) return nullptr;
  return substLoopVar(y, k, ir::makeExpr(ir::ExprKind::Add, {ring, symbolNode(ir::ExprKind::LoopVar, k)}));
}

// What a comparison of two blocks' effects on registers (and TMEM) reads
// (sameEffect): the buffers it compares in full (which one, its slot and
// elements; a buffer of another kind by its kind only), the register
// fragments any two of which it takes as one, and the ops it compares (null:
// every op; the others are left out, with every loop and if that holds none
// of them).
struct EffectView {
  std::vector<ir::BufferRef::Kind> full = {ir::BufferRef::Kind::Regs};
  std::set<int> alike;
  std::function<bool(const ir::Op&)> keep;
};
bool sameEffect(const ir::Block& a, const ir::Block& b, const EffectView& v,
                std::vector<std::pair<int, int>> bound = {});
bool namesKind(const ir::Op& o, ir::BufferRef::Kind k);

// Every segment does to the register fragments and TMEM what the first
// does, and the parts between segments nothing. The persistent proof
// decides those hazards (data.uninitialized, data.stale-accumulator,
// data.discarded-product) when it builds its grid, every tile from ring
// index 0, and the explored runs carry those marks; its argument that they
// are a run's own (checkRegsPathIndependent) takes every tile to do the
// same to its fragments. Segments are tiles of different texts: a second
// segment without its reset would be marked at the grid's iteration 0 of
// tile 1 only, which no run enters (it starts at ring index B_0 >= 1). So
// the ops that name a fragment or TMEM, with the loops and ifs around them,
// must be the same in every segment (sameEffect: the same ops on the same
// fragments and TMEM, elements and slots, the same init=, loop bounds and
// conditions, each segment's loop variable read as the first's).
bool registerUniform(const ir::Block& body, const std::vector<size_t>& segs) {
  EffectView v;
  v.full.push_back(ir::BufferRef::Kind::Tmem);
  v.keep = [](const ir::Op& o) { return namesKind(o, ir::BufferRef::Kind::Regs) || namesKind(o, ir::BufferRef::Kind::Tmem); };
  const ir::Stmt& first = body[segs[0]];
  for (size_t j = 1; j < segs.size(); ++j) {
    if (!sameEffect(first.body, body[segs[j]].body, v, {{body[segs[j]].loop_var, first.loop_var}})) return false;
    const ir::Block mid(body.begin() + static_cast<std::ptrdiff_t>(segs[j - 1]) + 1,
                        body.begin() + static_cast<std::ptrdiff_t>(segs[j]));
    if (!sameEffect(mid, {}, v)) return false;
  }
  return true;
}

// The schedule read as a persistent kernel whose tiles are its segments,
// when every role body with a loop bounded by a parameter holds n >= 2 such
// loops, all direct statements `for k in lm.range(0, L_j)` (start 0, step
// 1, no else), the same L_0 .. L_(n-1) in every such body, and nothing
// deeper: the body `pre ; S_0 ; mid_0 ; S_1 ; ... ; S_(n-1) ; post` becomes
//   pre
//   for p in lm.range(0, NT):
//     if p == 0:   S_0' ; mid_0
//     else: if p == 1: S_1' ; mid_1
//     ...   else:  S_(n-1)'
//   post
// with two fresh parameters NT >= 0 and B >= 1, S_j' the loop `for k in
// lm.range(0, B)` with its body's expressions read by onTheRing (but `if`
// conditions and `init=`, as written). The copy is not the schedule at any
// binding (one B for every tile): what stands for the schedule is the
// persistent proof's over-approximation, each tile t of its own length B_t
// with `p * B` read as its ring start B_0 + ... + B_(t-1), run with the tile
// count fixed to n (proveSegmentTiles). nullopt when the shape is not there.
std::optional<SegmentTiles> segmentsAsTiles(const ir::Schedule& s) {
  using K = ir::ExprKind;
  const std::set<const ir::Stmt*> instance_bounds = instanceBoundLoops(s);
  SegmentTiles out;
  std::vector<std::pair<size_t, std::vector<size_t>>> rewritten;  // body -> its segments
  for (size_t bi = 0; bi < s.bodies.size(); ++bi) {
    const ir::Block& body = s.bodies[bi].body;
    const std::optional<std::vector<size_t>> loops = topLevelParamLoops(body);
    if (!loops) return std::nullopt;
    const std::vector<size_t>& segs = *loops;
    for (size_t i : segs)
      if (instance_bounds.count(&body[i])) return std::nullopt;  // (one segment length for every instance)
    if (segs.empty()) continue;
    if (segs.size() < 2) return std::nullopt;
    if (out.lengths.empty())
      for (size_t i : segs) out.lengths.push_back(body[i].hi);
    if (out.lengths.size() != segs.size()) return std::nullopt;
    for (size_t j = 0; j < segs.size(); ++j)
      if (!ir::sameExpr(*out.lengths[j], *body[segs[j]].hi)) return std::nullopt;
    if (!registerUniform(body, segs)) return std::nullopt;
    rewritten.push_back({bi, segs});
  }
  if (rewritten.empty()) return std::nullopt;
  const size_t n = out.lengths.size();
  // the ring start of each segment, a sum of the lengths before it
  std::vector<AtomSum> starts(n);
  for (size_t j = 1; j < n; ++j) {
    starts[j] = starts[j - 1];
    if (!shiftedSum(out.lengths[j - 1], 1, -1, {}, starts[j], [](const ir::ExprPtr& x) { return x; }))
      return std::nullopt;
  }
  out.s = std::make_shared<ir::Schedule>(s);
  ir::Schedule& c = *out.s;
  out.tp = addTileCopyParams(c);
  const int p = out.tp.p;
  for (const auto& [bi, segs] : rewritten) {
    ir::Block& body = c.bodies[bi].body;
    std::vector<ir::Block> part(n);
    for (size_t j = 0; j < n; ++j) {
      ir::Stmt seg = body[segs[j]];
      bool ok = true;
      mapRingExprs(seg.body, [&](const ir::ExprPtr& e) {
        if (!e) return e;
        ir::ExprPtr y = onTheRing(e, seg.loop_var, starts[j], out.tp.ring);
        if (!y) ok = false;
        return y ? y : e;
      });
      if (!ok) return std::nullopt;
      seg.hi = symbolNode(K::Param, out.tp.length);
      part[j].push_back(std::move(seg));
      if (j + 1 < n)  // mid_j, between segment j and the next
        part[j].insert(part[j].end(), body.begin() + static_cast<std::ptrdiff_t>(segs[j]) + 1,
                       body.begin() + static_cast<std::ptrdiff_t>(segs[j + 1]));
    }
    // if p == 0: part 0 else: if p == 1: part 1 ... else: part n - 1
    ir::Block chain = std::move(part[n - 1]);
    for (size_t j = n - 1; j-- > 0;) {
      ir::Stmt which;
      which.kind = ir::Stmt::Kind::If;
      which.range = body[segs[j]].range;
      which.cond = ir::makeExpr(K::Eq, {symbolNode(K::LoopVar, p), ir::makeConst(static_cast<int64_t>(j))});
      out.guards.insert(which.cond.get());
      which.body = std::move(part[j]);
      which.orelse = std::move(chain);
      chain.clear();
      chain.push_back(std::move(which));
    }
    ir::Stmt tiles;
    tiles.kind = ir::Stmt::Kind::For;
    tiles.range = body[segs[0]].range;
    tiles.loop_var = p;
    tiles.lo = ir::makeConst(0);
    tiles.hi = symbolNode(K::Param, out.tp.count);
    tiles.step = ir::makeConst(1);
    tiles.body = std::move(chain);
    body.erase(body.begin() + static_cast<std::ptrdiff_t>(segs[0]) + 1,
               body.begin() + static_cast<std::ptrdiff_t>(segs[n - 1]) + 1);
    body[segs[0]] = std::move(tiles);
  }
  // (as passesAsTiles: the TMA loads' expect_tx batches must be the schedule's)
  if (!trip::sameDerivedTx(s, c)) return std::nullopt;
  std::vector<std::string> roles, lengths;
  for (const auto& [bi, segs] : rewritten) roles.push_back(bodyRoleName(s, bi));
  for (const ir::ExprPtr& l : out.lengths) lengths.push_back(ir::exprToString(*l, s));
  out.text = fmt::format("{} consecutive loops over one ring ({}) of lengths {} read as the tiles of a persistent "
                         "kernel of {} tiles, each its own length",
                         n, fmt::join(roles, ", "), fmt::join(lengths, ", "), n);
  return out;
}

// ---------------------------------------------------------------- sibling tile loops over one ring
// (docs/z3.md "Sibling tile loops over one ring read as one persistent
// kernel", helper group45, session 45)

// The copy of a schedule whose roles run two tile loops one after the
// other, each around its own K loop, over one ring whose index runs on
// across them (a grouped GEMM: the tiles of group 0, `t * kt0 + k`, then
// those of group 1, `T0 * kt0 + t * kt1 + k`), read as one persistent
// kernel whose tile p is of the first nest's kind below T0 and whose tiles
// run lengths of their own (nestsAsTiles).
struct NestTiles {
  std::shared_ptr<ir::Schedule> s;
  std::array<ir::ExprPtr, 2> tiles, lengths;  // T_0, T_1 (the tile loops' bounds), L_0, L_1 (the K loops')
  TileCopyParams tp;                          // the copy's NT (its tile loop's bound), B (its K loops'), p
  const ir::Expr* guard = nullptr;            // the copy's `p < T_0` (kind 0, the first nest, when it holds)
  std::string text;                           // what was read so, for the engine line
};

// A tile loop of the shape nestsAsTiles reads: `for t in lm.range(0, T)`
// (step 1, no else, T reading a parameter) whose body holds at most one
// loop bounded by a parameter, a direct statement `for k in lm.range(0, L)`
// (step 1, no else) with none deeper; the K loop's index in its body (-1:
// none), nullopt when the shape is not there.
std::optional<int> nestKLoop(const ir::Stmt& nest) {
  auto fromZero = [](const ir::Stmt& st) {
    const auto step = st.step ? ir::constValue(st.step) : std::optional<int64_t>(1);
    return st.lo && ir::constValue(st.lo) == 0 && step == 1 && st.orelse.empty();
  };
  if (nest.kind != ir::Stmt::Kind::For || !nest.hi || !mentionsParam(*nest.hi) || !fromZero(nest)) return std::nullopt;
  int at = -1;
  for (size_t i = 0; i < nest.body.size(); ++i) {
    const ir::Stmt& st = nest.body[i];
    const bool symbolic = st.kind == ir::Stmt::Kind::For && st.hi && mentionsParam(*st.hi);
    std::vector<const ir::Stmt*> deeper;
    collectLoops(st.body, deeper);
    collectLoops(st.orelse, deeper);
    if (std::any_of(deeper.begin(), deeper.end(), [](const ir::Stmt* l) { return l->hi && mentionsParam(*l->hi); }))
      return std::nullopt;
    if (!symbolic) continue;
    if (at >= 0 || !fromZero(st)) return std::nullopt;
    at = static_cast<int>(i);
  }
  return at;
}

// Every product of the two expressions of a pair, in either order, written
// in the pair's order (`kt1 * t` as `t * kt1`): the ring's terms are then
// one atom wherever they are spelled (AtomSum merges equal atoms only).
ir::ExprPtr productsInOrder(const ir::ExprPtr& e, const std::vector<std::pair<ir::ExprPtr, ir::ExprPtr>>& pairs) {
  if (!e || e->args.empty()) return e;
  auto copy = std::make_shared<ir::Expr>(*e);
  for (ir::ExprPtr& a : copy->args) a = productsInOrder(a, pairs);
  if (copy->kind == ir::ExprKind::Mul && copy->args.size() == 2 && copy->args[0] && copy->args[1])
    for (const auto& [x, y] : pairs)
      if (ir::sameExpr(*copy->args[0], *y) && ir::sameExpr(*copy->args[1], *x)) std::swap(copy->args[0], copy->args[1]);
  return copy;
}

// Each largest sum or comparison of e that reads both t and k with k read
// as `k + ring_back` (shiftedFromZero); the rest as it is (`k == 0` keeps
// the copy's own k, which is the schedule's). nullptr where shiftedFromZero
// refuses.
ir::ExprPtr ringSums(const ir::ExprPtr& e, int t, int k, int p, const AtomSum& ring_back) {
  using K = ir::ExprKind;
  if (!e || !ir::dependsOnLoopVar(*e, k) || !ir::dependsOnLoopVar(*e, t)) return e;
  const bool sum = e->kind == K::Add || e->kind == K::Sub || e->kind == K::Neg || constantMultiple(e) ||
                   e->kind == K::Lt || e->kind == K::Le || e->kind == K::Gt || e->kind == K::Ge || e->kind == K::Eq ||
                   e->kind == K::Ne;
  if (sum) return shiftedFromZero(e, k, ring_back, {t, p});
  auto copy = std::make_shared<ir::Expr>(*e);
  for (ir::ExprPtr& a : copy->args) {
    a = ringSums(a, t, k, p, ring_back);
    if (!a && e->args[static_cast<size_t>(&a - copy->args.data())]) return nullptr;
  }
  return copy;
}

// Expression e of nest j's tile body (tile loop variable t, K loop
// variable k, -1 outside a K loop) read inside tile p of the copy, whose
// ring start the persistent proof reads `p * B` as. In a run of the
// schedule tile t of nest j is the copy's tile p = P_j + t (P_0 = 0, P_1 =
// T_0) and starts at ring index R_j + t * L_j (R_0 = 0, R_1 = T_0 * L_0):
// every read of k in an expression that reads t too is `k + p * B - R_j -
// t * L_j` (`ring_back`; shiftedFromZero, each largest sum written out
// again with equal atoms merged: `T0 * kt0 + t * kt1 + k` is `k + p * B`),
// then every read of t is `p - P_j` (`tile_back`: `(T0 + t) % 2` is `p %
// 2`). At p * B = R_j + t * L_j each has e's value (exact integers); an
// expression that reads k alone keeps it (the copy's k is the schedule's).
// The loop variables e reads stay read (the builder keys a view index by
// its innermost loop), t as p. nullptr where shiftedFromZero refuses.
ir::ExprPtr nestOnTheRing(const ir::ExprPtr& e, int t, int k, int p, const AtomSum& ring_back,
                          const AtomSum& tile_back, const std::vector<std::pair<ir::ExprPtr, ir::ExprPtr>>& pairs) {
  if (!e || !ir::dependsOnLoopVar(*e, t)) return e;
  ir::ExprPtr y = productsInOrder(e, pairs);
  if (k >= 0) y = ringSums(y, t, k, p, ring_back);
  if (y && ir::dependsOnLoopVar(*y, t)) y = shiftedFromZero(y, t, tile_back, {});
  return y ? renameLoopVar(y, t, p) : nullptr;
}

// The schedule read as one persistent kernel whose tiles are those of its
// two sibling tile loops, when every role body with a loop bounded by a
// parameter holds exactly two such loops, consecutive direct statements,
// each of nestKLoop's shape, with the same T_0, T_1 in every such body and
// the same L_j in every K loop of nest j (one per nest at least), nothing
// bounded by a parameter elsewhere: the body `pre ; N_0 ; N_1 ; post`
// becomes
//   pre
//   for p in lm.range(0, NT):
//     if p < T_0: N_0's body'
//     else:       N_1's body'
//   post
// with two fresh parameters NT >= 0 and B >= 1, each K loop `for k in
// lm.range(0, B)` and every expression read by nestOnTheRing. Each kind
// must do to register fragments and TMEM what the other does (sameEffect,
// as registerUniform asks of segments: the persistent proof marks those
// hazards on the grid of one kind, every tile from ring index 0). The copy
// is not the schedule at any binding (one B for every tile); the persistent
// proof's over-approximation stands for it (proveNestTiles). nullopt when
// the shape is not there.
std::optional<NestTiles> nestsAsTiles(const ir::Schedule& s) {
  using K = ir::ExprKind;
  const std::set<const ir::Stmt*> instance_bounds = instanceBoundLoops(s);
  NestTiles out;
  std::vector<std::pair<size_t, size_t>> rewritten;  // body -> its first nest
  std::array<bool, 2> has_k = {false, false};
  for (size_t bi = 0; bi < s.bodies.size(); ++bi) {
    const ir::Block& body = s.bodies[bi].body;
    std::vector<size_t> nests;
    for (size_t i = 0; i < body.size(); ++i) {
      const ir::Stmt& st = body[i];
      if (st.kind == ir::Stmt::Kind::For && st.hi && mentionsParam(*st.hi)) {
        nests.push_back(i);
        continue;
      }
      std::vector<const ir::Stmt*> deeper;
      collectLoops(st.body, deeper);
      collectLoops(st.orelse, deeper);
      if (std::any_of(deeper.begin(), deeper.end(), [](const ir::Stmt* l) { return l->hi && mentionsParam(*l->hi); }))
        return std::nullopt;
    }
    if (nests.empty()) continue;
    if (nests.size() != 2 || nests[1] != nests[0] + 1) return std::nullopt;
    for (int j = 0; j < 2; ++j) {
      const ir::Stmt& nest = body[nests[static_cast<size_t>(j)]];
      const std::optional<int> kl = nestKLoop(nest);
      if (!kl) return std::nullopt;
      if (!out.tiles[j]) out.tiles[j] = nest.hi;
      if (!ir::sameExpr(*out.tiles[j], *nest.hi) || instance_bounds.count(&nest)) return std::nullopt;
      if (*kl < 0) continue;
      const ir::Stmt& kloop = nest.body[static_cast<size_t>(*kl)];
      if (!out.lengths[j]) out.lengths[j] = kloop.hi;
      if (!ir::sameExpr(*out.lengths[j], *kloop.hi) || instance_bounds.count(&kloop)) return std::nullopt;
      has_k[j] = true;
    }
    rewritten.push_back({bi, nests[0]});
  }
  if (rewritten.empty() || !has_k[0] || !has_k[1] || ir::sameExpr(*out.tiles[0], *out.tiles[1])) return std::nullopt;
  out.s = std::make_shared<ir::Schedule>(s);
  ir::Schedule& c = *out.s;
  out.tp = addTileCopyParams(c);
  const int p = out.tp.p;
  // one guard node for every body: the persistent proof knows the kind's `if` by it
  const ir::ExprPtr guard = ir::makeExpr(K::Lt, {symbolNode(K::LoopVar, p), out.tiles[0]});
  out.guard = guard.get();
  EffectView regs;
  regs.full.push_back(ir::BufferRef::Kind::Tmem);
  regs.keep = [](const ir::Op& o) { return namesKind(o, ir::BufferRef::Kind::Regs) || namesKind(o, ir::BufferRef::Kind::Tmem); };
  for (const auto& [bi, at] : rewritten) {
    ir::Block& body = c.bodies[bi].body;
    std::array<ir::Block, 2> kinds;
    for (int j = 0; j < 2; ++j) {
      const ir::Stmt& nest = body[at + static_cast<size_t>(j)];
      const int t = nest.loop_var;
      const int kl = *nestKLoop(nest);
      const int k = kl >= 0 ? nest.body[static_cast<size_t>(kl)].loop_var : -1;
      // R_j + t * L_j back, T_0 back (nest 1)
      const ir::ExprPtr tile_len = ir::makeExpr(K::Mul, {symbolNode(K::LoopVar, t), out.lengths[j]});
      std::vector<std::pair<ir::ExprPtr, ir::ExprPtr>> pairs = {{symbolNode(K::LoopVar, t), out.lengths[j]}};
      AtomSum ring_back, tile_back;
      ring_back.add(1, out.tp.ring);
      if (j == 1) {
        ring_back.add(-1, ir::makeExpr(K::Mul, {out.tiles[0], out.lengths[0]}));
        pairs.emplace_back(out.tiles[0], out.lengths[0]);
        tile_back.add(-1, out.tiles[0]);
      }
      ring_back.add(-1, tile_len);
      kinds[static_cast<size_t>(j)] = nest.body;
      bool ok = true;
      mapExprs(kinds[static_cast<size_t>(j)], [&](const ir::ExprPtr& e) {
        if (!e) return e;
        ir::ExprPtr y = nestOnTheRing(e, t, k, p, ring_back, tile_back, pairs);
        if (!y) ok = false;
        return y ? y : e;
      });
      if (!ok) return std::nullopt;
      if (kl >= 0) kinds[static_cast<size_t>(j)][static_cast<size_t>(kl)].hi = symbolNode(K::Param, out.tp.length);
    }
    if (!sameEffect(kinds[0], kinds[1], regs)) return std::nullopt;
    ir::Stmt kind;
    kind.kind = ir::Stmt::Kind::If;
    kind.range = body[at].range;
    kind.cond = guard;
    kind.body = std::move(kinds[0]);
    kind.orelse = std::move(kinds[1]);
    ir::Stmt tiles;
    tiles.kind = ir::Stmt::Kind::For;
    tiles.range = body[at].range;
    tiles.loop_var = p;
    tiles.lo = ir::makeConst(0);
    tiles.hi = symbolNode(K::Param, out.tp.count);
    tiles.step = ir::makeConst(1);
    tiles.body.push_back(std::move(kind));
    body.erase(body.begin() + static_cast<std::ptrdiff_t>(at) + 1);
    body[at] = std::move(tiles);
  }
  // (as passesAsTiles: the TMA loads' expect_tx batches must be the schedule's)
  if (!trip::sameDerivedTx(s, c)) return std::nullopt;
  std::vector<std::string> roles;
  for (const auto& [bi, at] : rewritten) roles.push_back(bodyRoleName(s, bi));
  out.text = fmt::format("2 sibling tile loops over one ring ({}) of {} tiles of {} K iterations, then {} of {}, read "
                         "as one persistent kernel (tile p of the first kind while p < {}), each tile its own length",
                         fmt::join(roles, ", "), ir::exprToString(*out.tiles[0], s),
                         ir::exprToString(*out.lengths[0], s), ir::exprToString(*out.tiles[1], s),
                         ir::exprToString(*out.lengths[1], s), ir::exprToString(*out.tiles[0], s));
  return out;
}

// A peeled last iteration (docs/z3.md "A peeled last K iteration"): a loop
// `for j in lm.range(0, E - 1)` whose n body statements follow it once more
// with j read as E - 1 (each expression equal to the body's with j := E - 1
// for every allowed binding, proved), where E >= 1 is shown and nothing
// after the loop reads j, runs the operations of `for j in lm.range(0, E)`
// in the same order with the same values: the loop with that bound and the
// statements after the copy. Every such loop of the schedule is rewritten;
// nullptr when there is none.
ir::ExprPtr substLoopVar(const ir::ExprPtr& e, int var, const ir::ExprPtr& by) {
  if (!e) return e;
  if (e->kind == ir::ExprKind::LoopVar && e->index == var) return by;
  if (e->args.empty()) return e;
  auto copy = std::make_shared<ir::Expr>(*e);
  for (ir::ExprPtr& a : copy->args) a = substLoopVar(a, var, by);
  return copy;
}

// A canonical text of e as a polynomial over the integers: sums,
// differences, negations and products multiplied out, every other node an
// atom whose arguments are canonical in turn (a comparison of a and b by
// a - b, a > b as b < a; Eq / Ne up to the sign). Two expressions with the
// same text have the same value under every binding (Python integers do not
// overflow; where an atom is undefined, a division by zero, so is the
// other's same atom). nullopt: a coefficient past 64 bits (no answer).
using PeelMono = std::vector<std::string>;
using PeelPoly = std::map<PeelMono, int64_t>;
std::optional<PeelPoly> peelPoly(const ir::Expr& e);
std::optional<std::string> peelKey(const ir::Expr& e) {
  auto p = peelPoly(e);
  if (!p) return std::nullopt;
  std::string out = "{";
  for (const auto& [mono, c] : *p) {
    out += std::to_string(c);
    for (const std::string& a : mono) out += "*" + a;
    out += ";";
  }
  return out + "}";
}
std::optional<std::string> peelAtom(const ir::Expr& e) {
  using K = ir::ExprKind;
  if (e.args.empty()) return fmt::format("{}#{}", static_cast<int>(e.kind), e.index);
  auto diff = [&](const ir::ExprPtr& a, const ir::ExprPtr& b) { return peelKey(*ir::makeExpr(K::Sub, {a, b})); };
  if (e.args.size() == 2 && e.args[0] && e.args[1]) {
    std::optional<std::string> k;
    switch (e.kind) {
      case K::Lt: case K::Le: k = diff(e.args[0], e.args[1]); break;
      case K::Gt: case K::Ge: k = diff(e.args[1], e.args[0]); break;
      case K::Eq: case K::Ne: {
        auto a = diff(e.args[0], e.args[1]), b = diff(e.args[1], e.args[0]);
        if (a && b) k = std::min(*a, *b);
        break;
      }
      default: break;
    }
    if (k) {
      const K as = e.kind == K::Gt ? K::Lt : e.kind == K::Ge ? K::Le : e.kind;
      return fmt::format("{}({})", static_cast<int>(as), *k);
    }
  }
  std::string out = fmt::format("{}(", static_cast<int>(e.kind));
  for (const ir::ExprPtr& a : e.args) {
    if (!a) return std::nullopt;
    auto k = peelKey(*a);
    if (!k) return std::nullopt;
    out += *k + ",";
  }
  return out + ")";
}
std::optional<PeelPoly> peelPoly(const ir::Expr& e) {
  using K = ir::ExprKind;
  auto add = [](PeelPoly& into, const PeelPoly& p, int64_t sign) {
    for (const auto& [m, c] : p) {
      int64_t sc = 0, sum = 0;
      if (__builtin_mul_overflow(c, sign, &sc) || __builtin_add_overflow(into[m], sc, &sum)) return false;
      into[m] = sum;
      if (sum == 0) into.erase(m);
    }
    return true;
  };
  if (e.kind == K::Const) return e.value ? PeelPoly{{{}, e.value}} : PeelPoly{};
  const bool two = e.args.size() == 2 && e.args[0] && e.args[1];
  if ((e.kind == K::Add || e.kind == K::Sub || e.kind == K::Mul) && two) {
    auto a = peelPoly(*e.args[0]), b = peelPoly(*e.args[1]);
    if (!a || !b) return std::nullopt;
    PeelPoly out;
    if (e.kind != K::Mul) {
      if (!add(out, *a, 1) || !add(out, *b, e.kind == K::Add ? 1 : -1)) return std::nullopt;
      return out;
    }
    for (const auto& [ma, ca] : *a)
      for (const auto& [mb, cb] : *b) {
        PeelMono m = ma;
        m.insert(m.end(), mb.begin(), mb.end());
        std::sort(m.begin(), m.end());
        int64_t c = 0;
        if (__builtin_mul_overflow(ca, cb, &c) || !add(out, PeelPoly{{m, c}}, 1)) return std::nullopt;
      }
    return out;
  }
  if (e.kind == K::Neg && e.args.size() == 1 && e.args[0]) {
    auto a = peelPoly(*e.args[0]);
    PeelPoly out;
    if (!a || !add(out, *a, -1)) return std::nullopt;
    return out;
  }
  auto atom = peelAtom(e);
  if (!atom) return std::nullopt;
  return PeelPoly{{{*atom}, 1}};
}

// Do two ops agree but for their expressions (kind, barrier, views, slot
// modes, literal fields, the number of coordinates and slices)?
bool sameOpShape(const ir::Op& a, const ir::Op& b) {
  auto ref = [](const ir::BufferRef& x, const ir::BufferRef& y) {
    return x.kind == y.kind && x.index == y.index && x.scalar_f == y.scalar_f && x.slices.size() == y.slices.size();
  };
  return a.kind == b.kind && a.sel.mode == b.sel.mode && a.barrier == b.barrier && a.named_barrier == b.named_barrier &&
         a.fn == b.fn && a.fill_value_f == b.fill_value_f && a.axis == b.axis && a.coords.size() == b.coords.size() &&
         ref(a.dst, b.dst) && ref(a.src, b.src) && ref(a.src2, b.src2);
}

// f(a's field, b's field, its default) on every expression field of two
// ops of one shape (sameOpShape), while f holds; the default is the value
// a left-out field means (init=, pending=, base= 0, count= 1), else null.
// B is ir::Op or const ir::Op (f may set b's fields).
template <typename B, typename F>
bool eachOpExpr(const ir::Op& a, B& b, F&& f) {
  const ir::ExprPtr none, zero = ir::makeConst(0), one = ir::makeConst(1);
  auto ref = [&](const ir::BufferRef& x, auto& y) {
    if (!f(x.slot, y.slot, none) || !f(x.scalar, y.scalar, none)) return false;
    for (size_t i = 0; i < x.slices.size(); ++i)
      if (!f(x.slices[i].lo, y.slices[i].lo, none) || !f(x.slices[i].hi, y.slices[i].hi, none)) return false;
    return true;
  };
  if (!ref(a.dst, b.dst) || !ref(a.src, b.src) || !ref(a.src2, b.src2)) return false;
  for (size_t i = 0; i < a.coords.size(); ++i)
    if (!f(a.coords[i], b.coords[i], none)) return false;
  return f(a.sel.index, b.sel.index, none) && f(a.sel.phase, b.sel.phase, none) && f(a.bytes, b.bytes, none) &&
         f(a.count, b.count, one) && f(a.pending, b.pending, zero) && f(a.init, b.init, zero) &&
         f(a.fill_value, b.fill_value, none) && f(a.base, b.base, zero) && f(a.multicast, b.multicast, none) &&
         f(a.cta, b.cta, none);
}

struct PeelMatch {
  int var;
  ir::ExprPtr by;
  // How the loop's other iterations compare with `by`: later (a peeled
  // first iteration) or earlier (a peeled last one, foldPeeledLastIterations).
  ir::ExprKind others = ir::ExprKind::Gt;
  bool expr(const ir::ExprPtr& tail, const ir::ExprPtr& body) const {
    if (!tail || !body) return !tail && !body;
    const ir::ExprPtr b = substLoopVar(body, var, by);
    if (ir::sameExpr(*tail, *b)) return true;
    auto kt = peelKey(*tail), kb = peelKey(*b);
    return kt && kb && *kt == *kb;
  }
  bool op(const ir::Op& a, const ir::Op& b) const {
    return sameOpShape(a, b) &&
           eachOpExpr(a, b, [&](const ir::ExprPtr& x, const ir::ExprPtr& y, const ir::ExprPtr&) { return expr(x, y); });
  }
  bool block(const ir::Block& a, const ir::Block& b) const {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!stmt(a[i], b[i])) return false;
    return true;
  }
  bool stmt(const ir::Stmt& a, const ir::Stmt& b) const {
    if (a.kind != b.kind) return false;
    switch (a.kind) {
      case ir::Stmt::Kind::Op: return op(a.op, b.op);
      case ir::Stmt::Kind::If: return expr(a.cond, b.cond) && block(a.body, b.body) && block(a.orelse, b.orelse);
      case ir::Stmt::Kind::For: return false;  // a loop of its own in the copy: not matched
    }
    return false;
  }
  // The body's op `b` made to run `a` at j = by and itself at every other
  // j (j > by in the loop; j < by with `others` Lt): each expression field
  // where the two differ becomes `(j == by) * a + (j > by) * b` (`j == by`
  // for a = 1, b = 0; `j > by` for a = 0, b = 1). nullopt where the ops
  // differ otherwise.
  std::optional<ir::Op> merged(const ir::Op& a, const ir::Op& b) const {
    if (!sameOpShape(a, b)) return std::nullopt;
    ir::Op out = b;
    const ir::ExprPtr j = symbolNode(ir::ExprKind::LoopVar, var);
    const ir::ExprPtr first = ir::makeExpr(ir::ExprKind::Eq, {j, by}), later = ir::makeExpr(others, {j, by});
    const bool ok = eachOpExpr(a, out, [&](const ir::ExprPtr& x, ir::ExprPtr& y, const ir::ExprPtr& dflt) {
      if (expr(x, y)) return true;
      const ir::ExprPtr xa = x ? x : dflt, yb = y ? y : dflt;
      if (!xa || !yb) return false;  // (a field one of them leaves out with no default value)
      const auto xc = ir::constValue(xa), yc = ir::constValue(yb);
      if (xc == std::optional<int64_t>(1) && yc == std::optional<int64_t>(0)) y = first;
      else if (xc == std::optional<int64_t>(0) && yc == std::optional<int64_t>(1)) y = later;
      else
        y = ir::makeExpr(ir::ExprKind::Add, {ir::makeExpr(ir::ExprKind::Mul, {first, xa}),
                                             ir::makeExpr(ir::ExprKind::Mul, {later, yb})});
      return true;
    });
    if (!ok) return std::nullopt;
    return out;
  }
};

bool readsLoopVar(const ir::Block& b, int var) {
  bool reads = false;
  ir::Block copy = b;
  mapExprs(copy, [&](const ir::ExprPtr& e) {
    if (e && ir::dependsOnLoopVar(*e, var)) reads = true;
    return e;
  });
  return reads;
}

// The schedule with `at(b, i)` called on every loop b[i] of its copy, the
// loop's body first; `at` says whether it rewrote the copy (it may erase
// statements of b around the loop and then moves i to the loop's place).
// nullptr when nothing was rewritten.
std::shared_ptr<ir::Schedule> rewriteLoops(const ir::Schedule& s, const std::function<bool(ir::Block&, size_t&)>& at) {
  auto out = std::make_shared<ir::Schedule>(s);
  bool changed = false;
  std::function<void(ir::Block&)> walk = [&](ir::Block& b) {
    for (size_t i = 0; i < b.size(); ++i) {
      walk(b[i].body);
      if (b[i].kind != ir::Stmt::Kind::For) {
        walk(b[i].orelse);
        continue;
      }
      changed |= at(b, i);
    }
  };
  for (ir::RoleBody& rb : out->bodies) walk(rb.body);
  return changed ? out : nullptr;
}

std::shared_ptr<ir::Schedule> unpeelLastIterations(const ir::Schedule& s, const Limits& limits, std::string* what) {
  BvProver prover(s, limits);
  return rewriteLoops(s, [&](ir::Block& b, size_t& i) {
      ir::Stmt& l = b[i];
      const size_t n = l.body.size();
      const auto lo = ir::constValue(l.lo);
      const auto step = l.step ? ir::constValue(l.step) : std::optional<int64_t>(1);
      if (n == 0 || !l.hi || !lo || *lo != 0 || !step || *step != 1 || !l.orelse.empty() || i + n >= b.size() ||
          !mentionsParam(*l.hi))
        return false;
      auto [core, off] = splitOffset(l.hi);
      if (off != -1 || !mentionsParam(*core)) return false;
      const PeelMatch m{l.loop_var, l.hi};
      const ir::Block tail(b.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                           b.begin() + static_cast<std::ptrdiff_t>(i + 1 + n));
      if (!m.block(tail, l.body)) return false;
      const ir::Block after(b.begin() + static_cast<std::ptrdiff_t>(i + 1 + n), b.end());
      if (readsLoopVar(after, l.loop_var)) return false;
      if (prover.prove(ir::makeExpr(ir::ExprKind::Ge, {core, ir::makeConst(1)})).kind != BvVerdict::Holds)
        return false;
      if (what && what->empty())
        *what = fmt::format("lm.range(0, {}) and a copy of its body after it", ir::exprToString(*l.hi, s));
      l.hi = core;
      b.erase(b.begin() + static_cast<std::ptrdiff_t>(i) + 1, b.begin() + static_cast<std::ptrdiff_t>(i + 1 + n));
      return true;
  });
}

// How a prologue P (the statements right before a loop) lines up with the
// loop's body read at j = by: pairs (p, q) in increasing order, P[p]
// equal to body[q] there (PeelMatch::stmt) or, for ops of one shape whose
// expressions differ, merged (PeelMatch::merged); P[0] paired. P's other
// statements (no loop in them) run in the first iteration only, the body's
// other statements in the later ones.
struct PeelAlignment {
  std::vector<std::pair<size_t, size_t>> pairs;
  std::vector<std::optional<ir::Op>> merged;  // per pair: the merged op, nullopt where equal
  size_t exact = 0;
};

// The alignment of P = b[from, to) with `body` that pairs the most of the
// body's statements (then the most of them equal); nullopt where P[0] (P's
// last statement where `last`: a peeled last iteration) pairs with none or
// a statement of P left over holds a loop.
std::optional<PeelAlignment> alignPeel(const ir::Block& b, size_t from, size_t to, const ir::Block& body,
                                       const PeelMatch& m, bool last = false) {
  const size_t k = to - from, n = body.size();
  // pair[p][q]: 2 equal, 1 merged, 0 neither
  std::vector<std::vector<int>> pair(k, std::vector<int>(n, 0));
  for (size_t p = 0; p < k; ++p)
    for (size_t q = 0; q < n; ++q) {
      const ir::Stmt &x = b[from + p], &y = body[q];
      pair[p][q] = m.stmt(x, y) ? 2
                   : x.kind == ir::Stmt::Kind::Op && y.kind == ir::Stmt::Kind::Op && m.merged(x.op, y.op) ? 1
                                                                                                             : 0;
    }
  auto holdsLoop = [](const ir::Stmt& st) {
    std::vector<const ir::Stmt*> loops;
    collectLoops(ir::Block{st}, loops);
    return !loops.empty();
  };
  // best[p][q]: (pairs, equal pairs) of the best alignment of P[p..) with
  // body[q..), -1 pairs where P[p..) cannot be left over
  using Score = std::pair<int, int>;
  const Score none{-1, -1};
  std::vector<std::vector<Score>> best(k + 1, std::vector<Score>(n + 1, none));
  for (size_t q = 0; q <= n; ++q) best[k][q] = {0, 0};
  for (size_t p = k; p-- > 0;)
    for (size_t q = n + 1; q-- > 0;) {
      Score s = holdsLoop(b[from + p]) ? none : best[p + 1][q];  // P[p] of the first iteration only
      if (q < n) s = std::max(s, best[p][q + 1]);                // body[q] of the later ones only
      if (q < n && pair[p][q] && best[p + 1][q + 1] != none)
        s = std::max(s, Score{best[p + 1][q + 1].first + 1, best[p + 1][q + 1].second + (pair[p][q] == 2)});
      best[p][q] = s;
    }
  if (best[0][0].first <= 0) return std::nullopt;
  PeelAlignment out;
  size_t p = 0, q = 0;
  while (p < k && q < n) {
    const Score here = best[p][q];
    if (pair[p][q] && best[p + 1][q + 1] != none &&
        here == Score{best[p + 1][q + 1].first + 1, best[p + 1][q + 1].second + (pair[p][q] == 2)}) {
      out.pairs.emplace_back(p, q);
      out.merged.push_back(pair[p][q] == 2 ? std::nullopt : m.merged(b[from + p].op, body[q].op));
      out.exact += pair[p][q] == 2;
      ++p, ++q;
    } else if (best[p][q + 1] == here) {
      ++q;
    } else {
      ++p;
    }
  }
  if (out.pairs.empty() || (last ? out.pairs.back().first != k - 1 : out.pairs.front().first != 0)) return std::nullopt;
  return out;
}

// The TMA loads an unpeel moved (unpeelFirstIterations), by source
// location: a load of the body paired with the prologue's (first_of), a
// prologue's load of the first iteration only, a body's of the later ones.
struct PeeledLoads {
  std::map<trip::LoadAt, trip::LoadAt> first_of;
  std::set<trip::LoadAt> first_only, later_only;
};

std::vector<trip::LoadAt> loadsOf(const ir::Block& b) {
  std::vector<trip::LoadAt> out;
  ir::forEachOp(b, [&](const ir::Stmt& st) {
    if (st.op.kind == ir::OpKind::TmaLoad) out.push_back({st.range.line, st.range.col});
  });
  return out;
}

// A derived expect_tx batch's loads (ir/expect_tx.h: loads of one
// statement list up to the next `if` or `for`) run as one arrival. The
// unpeeled loop's batch of paired loads runs, in its first iteration, as
// the prologue's loads they stand for, later as itself; a batch under `if
// j == L - 1:` only in the first iteration, one under `if j > L - 1:` only
// later. Both readings must be batches of the schedule (trip::derivedTxReadAs):
// a guard the unpeel adds ends a batch, and the prologue's batches may be
// cut otherwise than the body's (a wait on the barrier between two loads).
std::vector<std::vector<trip::LoadAt>> peeledBatchReadings(const std::vector<trip::LoadAt>& batch,
                                                           const PeeledLoads& pl) {
  const auto in = [&](const std::set<trip::LoadAt>& set) {
    const size_t n = static_cast<size_t>(std::count_if(batch.begin(), batch.end(), [&](const trip::LoadAt& l) { return set.count(l) > 0; }));
    return n == 0 ? 0 : n == batch.size() ? 1 : -1;  // none, all, some
  };
  const int later = in(pl.later_only), first = in(pl.first_only);
  if (later < 0 || first < 0) return {{{-1, -1}}};  // (a batch across a guard: no batch of the schedule)
  std::vector<std::vector<trip::LoadAt>> out;
  if (!later) {
    std::vector<trip::LoadAt> f;
    for (const trip::LoadAt& l : batch) f.push_back(pl.first_of.count(l) ? pl.first_of.at(l) : l);
    out.push_back(std::move(f));
  }
  if (!first && (out.empty() || out.front() != batch)) out.push_back(batch);
  return out;
}

// Of the prologues right before the loop b[i] (b[i - k, i)), the one that
// pairs the most of the body's statements, then the most equal pairs, then
// the shortest; its length in n.
std::optional<PeelAlignment> bestPeel(const ir::Block& b, size_t i, const PeelMatch& m, size_t& n) {
  std::optional<PeelAlignment> al;
  for (size_t k = 1; k <= i; ++k) {
    auto at = alignPeel(b, i - k, i, b[i].body, m);
    if (at && (!al || at->pairs.size() > al->pairs.size() ||
               (at->pairs.size() == al->pairs.size() && at->exact > al->exact))) {
      al = std::move(at);
      n = k;
    }
  }
  return al;
}

// The body of the loop b[i] unpeeled over its peeled iteration P = b[from,
// from + n) (its prologue b[i - n, i) by default) as `al` lines them up
// (moved out of both): the pairs in order, merged where they differ, each
// run of the body's unpaired statements under `if j > by:` (`others`: `if
// j < by:` for a peeled last iteration) and of P's under `if j == by:`;
// the loads moved noted in pl (first_of, first_only: P's).
ir::Block unpeeledBody(ir::Block& b, size_t i, size_t n, const PeelAlignment& al, const ir::ExprPtr& by,
                       PeeledLoads& pl, std::optional<size_t> from = std::nullopt,
                       ir::ExprKind others = ir::ExprKind::Gt) {
  const size_t p0 = from ? *from : i - n;  // P's first statement
  ir::Stmt& l = b[i];
  const ir::ExprPtr j = symbolNode(ir::ExprKind::LoopVar, l.loop_var);
  ir::Block body;
  // (a run of one side's statements [x, y) of `from`, its loads noted in `loads`)
  auto guarded = [&](ir::ExprKind kind, ir::Block& from, size_t x, size_t y, std::set<trip::LoadAt>& loads) {
    if (x == y) return;
    ir::Stmt g;
    g.kind = ir::Stmt::Kind::If;
    g.range = l.range;
    g.cond = ir::makeExpr(kind, {j, by});
    g.body.assign(std::make_move_iterator(from.begin() + static_cast<std::ptrdiff_t>(x)),
                  std::make_move_iterator(from.begin() + static_cast<std::ptrdiff_t>(y)));
    for (const trip::LoadAt& at : loadsOf(g.body)) loads.insert(at);
    body.push_back(std::move(g));
  };
  size_t p = 0, q = 0;
  for (size_t e = 0; e <= al.pairs.size(); ++e) {
    const auto [pp, qq] = e < al.pairs.size() ? al.pairs[e] : std::pair<size_t, size_t>{n, l.body.size()};
    guarded(others, l.body, q, qq, pl.later_only);
    guarded(ir::ExprKind::Eq, b, p0 + p, p0 + pp, pl.first_only);
    if (e == al.pairs.size()) break;
    const std::vector<trip::LoadAt> ours = loadsOf(ir::Block{b[p0 + pp]}), theirs = loadsOf(ir::Block{l.body[qq]});
    for (size_t x = 0; x < ours.size() && x < theirs.size(); ++x) pl.first_of[theirs[x]] = ours[x];
    body.push_back(std::move(l.body[qq]));
    if (al.merged[e]) body.back().op = *al.merged[e];
    p = pp + 1;
    q = qq + 1;
  }
  return body;
}

// A peeled first iteration (docs/z3.md "A peeled first K iteration", "A
// peeled first iteration with operations of its own"): the statements P
// right before a loop `for j in lm.range(L, E)` (step 1, no `else`, L >= 1)
// that line up with the body read at j = L - 1 (bestPeel), where E >= L is
// shown for every allowed binding, run the operations of `for j in
// lm.range(L - 1, E)` with the body unpeeledBody builds, in the same order
// with the same values: at j = L - 1 the statements that run are P's, in
// P's order with P's values; at j >= L they are the body's. The derived
// expect_tx batches must read both ways as the schedule's
// (peeledBatchReadings). Every such loop of the schedule is rewritten;
// nullptr when there is none.
std::shared_ptr<ir::Schedule> unpeelFirstIterations(const ir::Schedule& s, const Limits& limits, std::string* what) {
  BvProver prover(s, limits);
  PeeledLoads pl;
  auto copy = rewriteLoops(s, [&](ir::Block& b, size_t& i) {
      ir::Stmt& l = b[i];
      const auto step = l.step ? ir::constValue(l.step) : std::optional<int64_t>(1);
      if (l.body.empty() || !l.lo || !l.hi || !step || *step != 1 || !l.orelse.empty() || i == 0 ||
          !mentionsParam(*l.hi) || readsLoopVar(ir::Block(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(i)),
                                                  l.loop_var))
        return false;
      // (a loop from 0 is no peel: the statements before it, an initial
      // release `lm.arrive(empty)` before the tile loop, are no iteration -1)
      const auto lo_c = ir::constValue(l.lo);
      if (lo_c && *lo_c < 1) return false;
      const ir::ExprPtr by = lo_c ? ir::makeConst(*lo_c - 1) : ir::makeExpr(ir::ExprKind::Sub, {l.lo, ir::makeConst(1)});
      size_t n = 0;
      const std::optional<PeelAlignment> al = bestPeel(b, i, PeelMatch{l.loop_var, by}, n);
      if (!al || readsLoopVar(ir::Block(b.begin() + static_cast<std::ptrdiff_t>(i) + 1, b.end()), l.loop_var))
        return false;
      // (asked over the integers first: a bound that reads the tile through
      // floor divisions by a parameter, TLX's split-K `min(k0 + kp,
      // k_tiles) - k0`, took the bit-vector solver the proof's whole budget)
      if (!holdsForEveryBinding(s, prover, ir::makeExpr(ir::ExprKind::Ge, {l.hi, l.lo}), limits) ||
          (!lo_c && !holdsForEveryBinding(s, prover, ir::makeExpr(ir::ExprKind::Ge, {l.lo, ir::makeConst(1)}), limits)))
        return false;
      const size_t own = n - al->pairs.size(), merged = al->pairs.size() - al->exact;
      if (what && what->empty())
        *what = fmt::format("lm.range({}, {}) after {} of its body's statement{}{} with {} read as {}{}",
                            ir::exprToString(*l.lo, s), ir::exprToString(*l.hi, s), al->pairs.size(),
                            al->pairs.size() == 1 ? "" : "s",
                            merged ? fmt::format(" ({} with other values)", merged) : "", "the loop variable",
                            ir::exprToString(*by, s),
                            own ? fmt::format(" and {} of the first iteration only", own) : "");
      l.body = unpeeledBody(b, i, n, *al, by, pl);
      l.lo = by;
      b.erase(b.begin() + static_cast<std::ptrdiff_t>(i - n), b.begin() + static_cast<std::ptrdiff_t>(i));
      i -= n;
      return true;
  });
  if (copy && !trip::derivedTxReadAs(s, *copy, [&](const std::vector<trip::LoadAt>& batch) {
        return peeledBatchReadings(batch, pl);
      }))
    return nullptr;
  return copy;
}

// core + d, d a constant (core itself for 0).
ir::ExprPtr plusConst(const ir::ExprPtr& core, int64_t d) {
  if (d == 0) return core;
  return ir::makeExpr(d > 0 ? ir::ExprKind::Add : ir::ExprKind::Sub, {core, ir::makeConst(d > 0 ? d : -d)});
}

// Of the statements right after the loop b[i] (b[i + 1, i + 1 + k)), the
// ones that pair the most of the body's statements read at j = E, then the
// most equal pairs, then the fewest, their last statement paired; their
// number in n.
std::optional<PeelAlignment> bestLastPeel(const ir::Block& b, size_t i, const PeelMatch& m, size_t& n) {
  std::optional<PeelAlignment> al;
  for (size_t k = 1; i + k < b.size(); ++k) {
    auto at = alignPeel(b, i + 1, i + 1 + k, b[i].body, m, /*last=*/true);
    if (at && (!al || at->pairs.size() > al->pairs.size() ||
               (at->pairs.size() == al->pairs.size() && at->exact > al->exact))) {
      al = std::move(at);
      n = k;
    }
  }
  return al;
}

// A peeled last iteration (docs/z3.md "A peeled last iteration after the
// loop, under a remainder guard"): the statements P right after a loop `for
// j in lm.range(L, E)` (step 1, no `else`, E reading a parameter) that line
// up with the body read at j = E (bestLastPeel, P's last statement paired),
// where E >= L is shown for every allowed binding and nothing after the
// loop reads j, run the operations of `for j in lm.range(L, E + 1)` whose
// body unpeeledBody builds with the body's unpaired statements under `if j
// < E:`, P's under `if j == E:` (E read there as j: equal at j == E) and
// the merged ops' fields `(j == E) * a + (j < E) * b`: at j < E the body's
// statements with the body's values, at j = E (the loop's new last
// iteration, which runs because E >= L) P's in P's order with P's values,
// then the statements after P. The derived expect_tx batches must read both
// ways as the schedule's (peeledBatchReadings). Every such loop is
// rewritten; nullptr when there is none. Under a guard case `K % 64 != 0`
// the new bound `K // 64 + 1` is lm.cdiv(K, 64) (respelledBounds).
std::shared_ptr<ir::Schedule> foldPeeledLastIterations(const ir::Schedule& s, const Limits& limits,
                                                       std::string* what) {
  BvProver prover(s, limits);
  PeeledLoads pl;
  auto copy = rewriteLoops(s, [&](ir::Block& b, size_t& i) {
    ir::Stmt& l = b[i];
    const auto step = l.step ? ir::constValue(l.step) : std::optional<int64_t>(1);
    if (l.body.empty() || !l.lo || !l.hi || !step || *step != 1 || !l.orelse.empty() || i + 1 >= b.size() ||
        !mentionsParam(*l.hi) ||
        readsLoopVar(ir::Block(b.begin() + static_cast<std::ptrdiff_t>(i) + 1, b.end()), l.loop_var))
      return false;
    const ir::ExprPtr by = std::make_shared<ir::Expr>(*l.hi);  // (a node of its own)
    size_t n = 0;
    const std::optional<PeelAlignment> al = bestLastPeel(b, i, PeelMatch{l.loop_var, by, ir::ExprKind::Lt}, n);
    // (one statement at least equal to the body's there: a lone merged op,
    // the `tma_store_wait(pending=0)` after a tile loop whose body ends in
    // `pending=1`, is a drain, not an iteration)
    if (!al || al->exact == 0 ||
        !holdsForEveryBinding(s, prover, ir::makeExpr(ir::ExprKind::Ge, {l.hi, l.lo}), limits))
      return false;
    // P's own statements read E as j (the one iteration they run in is j == E)
    const ir::ExprPtr j = symbolNode(ir::ExprKind::LoopVar, l.loop_var);
    std::vector<bool> paired(n, false);
    for (const auto& [p, q] : al->pairs) paired[p] = true;
    for (size_t p = 0; p < n; ++p) {
      if (paired[p]) continue;
      ir::Block one{std::move(b[i + 1 + p])};
      mapExprs(one, [&](const ir::ExprPtr& e) { return e ? substitute(e, *by, j) : e; });
      b[i + 1 + p] = std::move(one.front());
    }
    const size_t own = n - al->pairs.size(), merged = al->pairs.size() - al->exact;
    if (what && what->empty())
      *what = fmt::format("lm.range({}, {}) before {} of its body's statement{}{} with the loop variable read as {}{}",
                          ir::exprToString(*l.lo, s), ir::exprToString(*l.hi, s), al->pairs.size(),
                          al->pairs.size() == 1 ? "" : "s", merged ? fmt::format(" ({} with other values)", merged) : "",
                          ir::exprToString(*by, s), own ? fmt::format(" and {} of the last iteration only", own) : "");
    l.body = unpeeledBody(b, i, n, *al, by, pl, i + 1, ir::ExprKind::Lt);
    const auto [core, off] = splitOffset(l.hi);
    l.hi = plusConst(core, off + 1);
    b.erase(b.begin() + static_cast<std::ptrdiff_t>(i) + 1, b.begin() + static_cast<std::ptrdiff_t>(i + 1 + n));
    return true;
  });
  if (copy && !trip::derivedTxReadAs(s, *copy, [&](const std::vector<trip::LoadAt>& batch) {
        return peeledBatchReadings(batch, pl);
      }))
    return nullptr;
  return copy;
}

// ================================================================ persistent kernels
//
// docs/z3.md "Persistent kernels": a tile loop (bound E_A) around a K loop
// (bound E_B) whose ring index is global across tiles (`t * E_B + k`).
// Proved for an over-approximation: every tile t runs its own K trip count
// B_t >= 1 (open until some process leaves that tile's K loop), `t * E_B`
// reads the tile's ring start G_t = B_0 + ... + B_(t-1), and a tile count
// A >= 0 (open until some process leaves the tile loop). With every B_t
// equal these are the schedule's own values, so its runs are among the
// explored ones. Checked (else unknown): E_A and E_B are read only in their
// loop bounds and (E_B) in `t * E_B`; every expression evaluated inside the
// tile loop is a function of t and of g = G_t + k (proved), and moves by the
// same amount every ring period of g and every tile period of t (proved
// beyond the window, checked instruction by instruction in it). Two shifts
// keep the explored states finite, each an isomorphism of the explored
// system: the ring shift (every process's g back by the ring period, with
// the ring's phases, data tags and async work) and the tile shift (the tile
// index back by the tile period, with the per-tile barriers and views).

struct TileLoops {
  ir::ExprPtr tiles, inner;  // E_A (the tile loop's bound), E_B (the K loop's)
  std::set<int> tile_vars, k_vars;
  std::map<int, int64_t> tile_step;  // tile loop variable -> its loop's step (a constant >= 1)
  // Two tile loops merged (MergedLoops): the `if` whose condition is this
  // chooses the tile's kind; the grids are built once per kind.
  const ir::Expr* kind_guard = nullptr;
  // A tile count fixed to this (>= 0; segmentsAsTiles: the schedule runs
  // exactly that many segments), not explored: no tile shift then.
  int64_t fixed_tiles = -1;
  // The tiles of one run may run different lengths (nestsAsTiles: a
  // group's tiles, then another group's): every length explored in one
  // exploration, each tile its own, not tiles of one length together.
  bool own_lengths = false;
  // Tile counts explored: the multiples of this only (kSplitAsTiles: the
  // schedule's runs are the copy's with an even count), every tile shift by
  // a multiple of it (a shift by another amount would move a count into
  // one not explored: no isomorphism of the explored system then).
  int64_t tile_multiple = 1;
  // The ring end after the tile loop (`n_tiles * k_tiles`, E_A * E_B in
  // either order, read in an exit path: a producer's tail on the ring) is
  // read as this ring position (the grid's tiles end at Wg; buildGrid's
  // exit_end overrides it); -1: not read so, E_B there reads its
  // parameters (refused). docs/z3.md "A part after the tile loop that
  // reads the tile count".
  int64_t exit_ring_end = -1;
};

// `E_A * E_B` (either order): the ring end after the tile loop.
bool isRingEndProduct(const ir::Expr& e, const TileLoops& tl) {
  if (e.kind != ir::ExprKind::Mul || e.args.size() != 2 || !e.args[0] || !e.args[1]) return false;
  for (int i = 0; i < 2; ++i)
    if (ir::sameExpr(*e.args[i], *tl.tiles) && ir::sameExpr(*e.args[1 - i], *tl.inner)) return true;
  return false;
}

// `t * E_B` (either order) with t a tile loop's variable; its index in *var.
bool isTileProduct(const ir::Expr& e, const TileLoops& tl, int* var = nullptr) {
  if (e.kind != ir::ExprKind::Mul || e.args.size() != 2 || !e.args[0] || !e.args[1]) return false;
  for (int i = 0; i < 2; ++i) {
    const ir::Expr &a = *e.args[i], &b = *e.args[1 - i];
    if (a.kind == ir::ExprKind::LoopVar && tl.tile_vars.count(a.index) && ir::sameExpr(b, *tl.inner)) {
      if (var) *var = a.index;
      return true;
    }
  }
  return false;
}

// The two symbolic loops of a persistent kernel, or nullopt when the
// schedule's symbolic loops are not exactly that shape: loops bounded by
// E_A inside no symbolic loop, each with at most one loop bounded by E_B
// among its direct statements and none deeper. K loops run from 0 with
// step 1; a tile loop has a constant step S >= 1 (at most 64) and a start
// that reads no parameter (`lm.range(lm.instance(), my_tiles, 2)`: each
// process runs the tiles of one residue modulo S, checked per process in
// tileShapeOf, docs/z3.md "Tile loops with a step").
// `segments`: the conditions of the `if` chain that picks a tile's segment
// (segmentsAsTiles): each branch of theirs is a direct block of the tile
// loop too, one K loop each.
std::optional<TileLoops> findTileLoops(const ir::Schedule& s, const ir::Expr* kind_guard = nullptr,
                                       const std::set<const ir::Expr*>& segments = {}) {
  // branch: 1 / 2 inside the then / else block of the kind guard's `if`
  // (a direct statement of the tile loop as far as the loops go), 3.. one
  // per branch of a segment's `if`, else 0
  struct L { const ir::Stmt* st; const ir::Stmt* parent; bool direct; int branch; };
  std::vector<L> loops;
  int branches = 2;
  const std::set<const ir::Stmt*> instance_bounds = instanceBoundLoops(s);
  bool instance_bound = false;  // a symbolic bound reads lm.instance() there
  std::function<void(const ir::Block&, const ir::Stmt*, bool, int)> walk = [&](const ir::Block& b,
                                                                               const ir::Stmt* sym, bool direct,
                                                                               int branch) {
    for (const ir::Stmt& st : b) {
      if (kind_guard && st.kind == ir::Stmt::Kind::If && st.cond.get() == kind_guard) {
        walk(st.body, sym, direct, 1);
        walk(st.orelse, sym, direct, 2);
        continue;
      }
      if (st.kind == ir::Stmt::Kind::If && segments.count(st.cond.get())) {
        walk(st.body, sym, direct, ++branches);
        walk(st.orelse, sym, direct, ++branches);
        continue;
      }
      const bool symbolic = st.kind == ir::Stmt::Kind::For && st.hi && mentionsParam(*st.hi);
      if (symbolic) loops.push_back({&st, sym, direct, branch});
      if (symbolic && instance_bounds.count(&st)) instance_bound = true;
      walk(st.body, symbolic ? &st : sym, symbolic, 0);
      walk(st.orelse, sym, false, 0);
    }
  };
  for (const ir::RoleBody& body : s.bodies) {
    walk(body.body, nullptr, false, 0);
  }
  // The proof reads one tile count and one K trip count for every process:
  // a bound that reads lm.instance() gives each instance its own (refused,
  // as findTripWith does; docs/z3.md "A symbolic bound that reads the
  // instance").
  if (instance_bound) return std::nullopt;
  TileLoops tl;
  tl.kind_guard = kind_guard;
  std::map<std::pair<const ir::Stmt*, int>, int> children;  // (tile loop, branch) -> its K loops
  for (const L& l : loops) {
    auto lo = ir::constValue(l.st->lo);
    auto step = l.st->step ? ir::constValue(l.st->step) : std::optional<int64_t>(1);
    if (l.parent) {
      if (!lo || *lo != 0 || !step || *step != 1) return std::nullopt;
    } else {
      if (!l.st->lo || mentionsParam(*l.st->lo) || !step || *step < 1 || *step > 64) return std::nullopt;
      tl.tile_step[l.st->loop_var] = *step;
    }
    ir::ExprPtr& bound = l.parent ? tl.inner : tl.tiles;
    if (!bound) bound = l.st->hi;
    if (!ir::sameExpr(*bound, *l.st->hi)) return std::nullopt;
    if (l.parent && (!l.direct || std::none_of(loops.begin(), loops.end(), [&](const L& o) {
                       return o.st == l.parent && !o.parent;
                     })))
      return std::nullopt;
    (l.parent ? tl.k_vars : tl.tile_vars).insert(l.st->loop_var);
    if (l.parent && ++children[{l.parent, l.branch}] > 1) return std::nullopt;
    // a K loop outside the kinds' blocks and one inside: two in one kind
    if (l.parent && children.count({l.parent, 0}) &&
        std::any_of(children.begin(), children.end(), [&](const auto& c) { return c.first.first == l.parent && c.first.second; }))
      return std::nullopt;
  }
  if (!tl.tiles || !tl.inner || ir::sameExpr(*tl.tiles, *tl.inner)) return std::nullopt;
  return tl;
}

// The window was too short in one dimension (-> retry with it doubled).
struct GridTooSmall {
  bool tiles;  // the tile dimension (else the ring)
};

// The tile count E_A read inside the tile loop (`if t + 1 < my_tiles:`,
// docs/z3.md "The tile count inside the tile loop"): the expression the
// builder evaluated, with the loop variables it was evaluated with bound,
// except the tile loop's and the K loop's (those stay symbolic in the proof).
struct TileCountUse {
  const ir::Expr* expr = nullptr;
  std::map<int, int64_t> loop_vars;
  int64_t instance = 0;
  bool in_k = false;  // evaluated in a K iteration (refuseTileCountReadsNearTheEnd)
  bool operator==(const TileCountUse&) const = default;
};

// Which tile count a read of E_A inside tile t sees when the grid is built:
// t + far (tile t is none of the last far - 1 tiles; every A >= t + far
// reads alike, proved in tileCountDepth), or t + depth (tile t is the
// depth-th from the end, depth < far) for the tiles of one parity and t +
// far for the others: the tiles that are not among the last keep what the
// builder derives from the whole system (which views' indices reach their
// stage count) as it is in the grid of no last tile.
struct TileCountRead {
  int64_t depth = 0;  // 0: no tile is among the last
  int64_t parity = 0;
  int64_t far = 2;
  int64_t countAt(int64_t t) const { return depth > 0 && t % 2 == parity ? t + depth : t + far; }
  bool operator==(const TileCountRead&) const = default;
  static const TileCountRead NotLast;
};
inline const TileCountRead TileCountRead::NotLast{};

// Other readings of the tile count that one build is asked about: alike[k]
// stays 1 while every read of E_A the build makes evaluates under reads[k]
// as under the build's own reading (the same value, the same parameters
// read). The builder is a function of its arguments and of the hook's
// answers alone, and the reading enters only through those answers (the
// reads of E_A, buildGrid's hook); so a build under reads[k] would ask the
// same questions, get the same answers and build the same system, call by
// call. Such a grid is then copied, not built again (KeptLastGrids).
struct TileCountReadsAlike {
  std::vector<TileCountRead> reads;
  std::vector<char> alike;
};

// The last tiles' grids of one parity (and ring start or end) built so
// far, each with the deeper readings it builds alike (docs/z3.md "Last
// tiles' grids that build alike"): FA4's Q release `if t + 2 < T:` is
// false in the last tile and in the one before, so the grids of depths 1
// and 2 are one build.
class KeptLastGrids {
 public:
  // The grid for `read`: a copy of a kept grid whose build found `read`
  // alike, else build(asked) with asked the deeper depths up to last_m
  // (kept where one of them builds alike). *reused says which.
  template <class Build>
  System get(const TileCountRead& read, int64_t last_m, bool* reused, const Build& build) {
    for (const Kept& k : kept_)
      for (size_t q = 0; q < k.asked.reads.size(); ++q)
        if (k.asked.alike[q] && k.asked.reads[q] == read) {
          *reused = true;
          return k.sys;
        }
    *reused = false;
    TileCountReadsAlike asked;
    for (int64_t d = read.depth + 1; read.depth > 0 && d <= last_m; ++d) {
      asked.reads.push_back(read);
      asked.reads.back().depth = d;
    }
    asked.alike.assign(asked.reads.size(), 1);
    System sys = build(asked.reads.empty() ? nullptr : &asked);
    if (std::any_of(asked.alike.begin(), asked.alike.end(), [](char a) { return a; }))
      kept_.push_back({std::move(asked), sys});
    return sys;
  }

 private:
  struct Kept {
    TileCountReadsAlike asked;
    System sys;
  };
  std::vector<Kept> kept_;
};

// e with every sub-expression the hook evaluates replaced by its value
// (the hook asked of every node, parents first; only the nodes above a
// replaced one are copied).
ir::ExprPtr applyHook(const ir::ExprPtr& e, const ir::EvalEnv& env, const EvalHook& hook) {
  if (auto v = hook(*e, env)) return ir::makeConst(*v);
  std::shared_ptr<ir::Expr> copy;  // made at the first part that changes
  for (size_t i = 0; i < e->args.size(); ++i) {
    if (!e->args[i]) continue;
    ir::ExprPtr h = applyHook(e->args[i], env, hook);
    if (h == e->args[i]) continue;
    if (!copy) copy = std::make_shared<ir::Expr>(*e);
    copy->args[i] = std::move(h);
  }
  if (copy) return copy;
  return e;
}

bool readsInnerBare(const ir::Expr& e, const TileLoops& tl);

// What buildGrid's hooks ask of an expression node: functions of the node
// and the tile loops alone. A build asks them of every node of every
// expression it evaluates, in each tile and K iteration, and each walks the
// node's whole sub-tree (quadratic in an expression's depth): for the
// schedule's own nodes they are worked out once per build. A node not of
// the schedule (a substituted copy) is worked out afresh each time: the
// address of a freed copy may come back.
class GridNodeFacts {
 public:
  struct Facts {
    bool tile_product = false;  // isTileProduct
    int tile_var = -1;          // its tile loop variable
    bool inner = false;         // sameExpr(e, E_B)
    bool tiles = false;         // containsExpr(e, E_A)
    bool inner_bare = false;    // readsInnerBare
    bool ring_end = false;      // a sub-expression isRingEndProduct
  };
  GridNodeFacts(const ir::Schedule& s, const TileLoops& tl)
      : tl_(tl),
        tile_vars_(tl.tile_vars.begin(), tl.tile_vars.end()),
        k_vars_(tl.k_vars.begin(), tl.k_vars.end()) {
    ir::forEachExprField(s, [&](const ir::ExprPtr& e) {
      if (e) own(*e);
    });
  }
  Facts of(const ir::Expr& e) {
    auto it = facts_.find(&e);
    if (it == facts_.end()) return work(e);
    if (!it->second) it->second = work(e);
    return *it->second;
  }
  // The innermost (last in ascending order) tile / K loop variable bound in env, or -1.
  int tileVar(const ir::EvalEnv& env) const { return boundVar(tile_vars_, env); }
  int kVar(const ir::EvalEnv& env) const { return boundVar(k_vars_, env); }

 private:
  void own(const ir::Expr& e) {
    if (!facts_.try_emplace(&e).second) return;  // (a shared node: its parts are in)
    for (const ir::ExprPtr& a : e.args)
      if (a) own(*a);
  }
  static int boundVar(const std::vector<int>& vars, const ir::EvalEnv& env) {
    int out = -1;
    for (int v : vars)
      if (env.loop_vars.count(v)) out = v;
    return out;
  }
  Facts work(const ir::Expr& e) const {
    Facts f;
    f.tile_product = isTileProduct(e, tl_, &f.tile_var);
    f.inner = ir::sameExpr(e, *tl_.inner);
    f.tiles = containsExpr(e, *tl_.tiles);
    f.inner_bare = readsInnerBare(e, tl_);
    f.ring_end = tl_.exit_ring_end >= 0 && ir::anySubExpr(e, [&](const ir::Expr& x) { return isRingEndProduct(x, tl_); });
    return f;
  }
  const TileLoops& tl_;
  std::vector<int> tile_vars_, k_vars_;  // ascending, as the sets
  std::unordered_map<const ir::Expr*, std::optional<Facts>> facts_;
};

// One read of E_A in tile t, evaluated by at(count, env) with the tile
// count `count` (A under the build's reading): each other reading of
// `alike` whose count differs there stays alike only if the read gives the
// same value and reads the same parameters (evaluated aside, so that the
// build's own record of what it read is left as it was).
template <class At>
void noteAlike(TileCountReadsAlike& alike, int64_t t, int64_t A, const ir::EvalEnv& env, const At& at) {
  struct Answer {
    std::optional<int64_t> value;
    std::set<int> params;
    int64_t hits = 0;
    bool operator==(const Answer&) const = default;
  };
  auto aside = [&](int64_t count) {
    Answer a;
    ir::EvalEnv e = env;
    e.params_read = &a.params;
    e.replace_hits = &a.hits;
    a.value = at(count, e);
    return a;
  };
  std::optional<Answer> own;
  for (size_t k = 0; k < alike.reads.size(); ++k) {
    const int64_t B = alike.reads[k].countAt(t);
    if (!alike.alike[k] || B == A) continue;
    if (!own) own = aside(A);
    if (!(aside(B) == *own)) alike.alike[k] = 0;
  }
}

// The system with Wt tiles of Wg K iterations each, every tile starting at
// ring index 0 (`t * E_B` reads 0): iteration k of tile t is the text of
// ring index g = k in tile t, which is all the layout below needs. A read
// of the tile count E_A inside tile t reads t + far or t + depth (`read`);
// each is noted in *uses.
System buildGrid(const ir::Schedule& s, Binding b, ir::Target target, const TileLoops& tl, int64_t Wt, int64_t Wg,
                 TileCountRead read = TileCountRead::NotLast, std::vector<TileCountUse>* uses = nullptr,
                 int kind = 0, int64_t ring_start = 0, int64_t tail_d = 0,
                 std::set<const ir::Expr*>* reads_end_in_k = nullptr, bool consecutive = false,
                 int64_t exit_end = -1, std::vector<TileCountUse>* exit_end_uses = nullptr,
                 TileCountReadsAlike* alike = nullptr, bool consecutive_true_tails = false) {
  // (consecutive: tile t starts at ring index t * Wg, one run of tiles of
  // Wg iterations each, checkConsecutiveTileHazards; with
  // consecutive_true_tails a K iteration's E_B reads Wg, so its last
  // iterations take the branches a tile of Wg iterations takes: the true
  // program of Wt tiles of Wg iterations, checkTailTmemRuns)
  GridNodeFacts facts(s, tl);
  const EvalHook base = [&](const ir::Expr& e, const ir::EvalEnv& env) -> std::optional<int64_t> {
    if (&e == tl.kind_guard) return kind;  // the tile's kind, not evaluated (MergedLoops)
    const GridNodeFacts::Facts f = facts.of(e);
    if (f.tile_product)
      return env.loop_vars.count(f.tile_var)
                 ? std::optional<int64_t>(consecutive ? env.loop_vars.at(f.tile_var) * Wg : ring_start)
                 : std::nullopt;
    if (f.inner && facts.tileVar(env) >= 0) return Wg;
    return std::nullopt;  // outside a tile loop E_B reads its parameters: refused below
  };
  // Asked first for the whole expression the builder evaluates (then for its
  // parts): one that reads E_A inside a tile loop is evaluated here, whole.
  const EvalHook hook = [&](const ir::Expr& e, const ir::EvalEnv& env) -> std::optional<int64_t> {
    if (&e == tl.kind_guard) return kind;
    const int tvar = facts.tileVar(env);
    const GridNodeFacts::Facts f = facts.of(e);
    // The ring end read after the tile loop (TileLoops::exit_ring_end): the
    // whole expression evaluated here with E_A * E_B read as the ring end
    // (exitsByRingEnd gives each explored ring end its own copy)
    if (tvar < 0 && tl.exit_ring_end >= 0 && f.ring_end) {
      // (a consecutive run of Wt tiles of Wg iterations ends at Wt * Wg;
      // another grid's exit path reads the grid's ring end, whatever its
      // tiles: only the copies exitsByRingEnd builds are explored)
      const int64_t end = exit_end >= 0 ? exit_end : consecutive ? Wt * Wg : tl.exit_ring_end;
      const EvalHook atEnd = [&](const ir::Expr& x, const ir::EvalEnv&) -> std::optional<int64_t> {
        return isRingEndProduct(x, tl) ? std::optional<int64_t>(end) : std::nullopt;
      };
      ir::ExprPtr x(std::shared_ptr<const ir::Expr>{}, &e);  // non-owning: the schedule owns it
      if (exit_end_uses) {
        TileCountUse u{&e, env.loop_vars, env.instance.value_or(0), false};
        if (std::find(exit_end_uses->begin(), exit_end_uses->end(), u) == exit_end_uses->end())
          exit_end_uses->push_back(std::move(u));
      }
      return ir::evaluate(*applyHook(x, env, atEnd), env);
    }
    // An expression of a K iteration that reads E_B besides t * E_B (a
    // guard `k + c < E_B`, docs/z3.md "The last K iteration"): E_B
    // read as k + tail_d (the iteration is tail_d from its tile's end) or,
    // with tail_d 0, as 2 * Wg (it is not among the last; checkTileExprs
    // proves every E_B >= k + m + 1 reads alike, m the tail's depth; far
    // past the window, so that a guard it does not take reaches that
    // check), so the grid's iterations are all of one kind.
    const int kvar = facts.kVar(env);
    if (tvar >= 0 && kvar >= 0 && !f.tiles && f.inner_bare) {
      if (reads_end_in_k) reads_end_in_k->insert(&e);
      const int64_t H = tail_d > 0                                ? env.loop_vars.at(kvar) + tail_d
                        : consecutive && consecutive_true_tails ? Wg
                                                                : 2 * Wg;
      const EvalHook inK = [&](const ir::Expr& x, const ir::EvalEnv&) -> std::optional<int64_t> {
        if (isTileProduct(x, tl)) return consecutive ? env.loop_vars.at(tvar) * Wg : ring_start;
        if (ir::sameExpr(x, *tl.inner)) return H;
        return std::nullopt;
      };
      ir::ExprPtr x(std::shared_ptr<const ir::Expr>{}, &e);  // non-owning: the schedule owns it
      return ir::evaluate(*applyHook(x, env, inK), env);
    }
    if (tvar < 0 || !f.tiles) return base(e, env);
    const int64_t t = env.loop_vars.at(tvar);
    const int64_t A = read.countAt(t);
    ir::ExprPtr x(std::shared_ptr<const ir::Expr>{}, &e);  // non-owning: the schedule owns it
    auto at = [&](int64_t count, const ir::EvalEnv& with) {
      return ir::evaluate(*applyHook(substitute(x, *tl.tiles, ir::makeConst(count)), with, base), with);
    };
    auto v = at(A, env);
    if (alike) noteAlike(*alike, t, A, env, at);
    if (!v) return std::nullopt;  // the builder reports it
    if (uses) {
      TileCountUse u{&e, env.loop_vars, env.instance.value_or(0), kvar >= 0};
      for (int var : tl.tile_vars) u.loop_vars.erase(var);
      for (int var : tl.k_vars) u.loop_vars.erase(var);
      if (std::find(uses->begin(), uses->end(), u) == uses->end()) uses->push_back(std::move(u));
    }
    return v;
  };
  b.replace = tl.tiles.get();
  b.replace_value = Wt;
  std::string err;
  auto sys = trip::buildForProof(s, b, target, &err, &hook);
  if (!sys) throw Fail(fmt::format("the system for {} tiles of {} K iterations cannot be built: {}", Wt, Wg, err));
  if (!sys->params_read.empty()) {
    const int r = *sys->params_read.rbegin();
    std::string what = r >= 0 ? s.params[r].name
                       : r >= -3 ? fmt::format("lm.block_idx({})", -1 - r)
                                 : fmt::format("lm.grid_dim({})", -4 - r);
    throw Fail(fmt::format("the schedule reads {} outside the loop bounds {} and {} and the products t * {}", what,
                           ir::exprToString(*tl.tiles, s), ir::exprToString(*tl.inner, s),
                           ir::exprToString(*tl.inner, s)));
  }
  // (a read after the tile loop, the exit path's, is taken: each explored
  // tile count gets its own copy, exitsByTileCount)
  for (const System::ReplacedUse& u : sys->replace_uses)
    if (u.region != System::ReplacedUse::Exit)
      throw Fail(fmt::format("the schedule reads {} outside its loop bound ({}; not covered by the persistent-kernel "
                             "proof yet)",
                             ir::exprToString(*tl.tiles, s), ir::exprToString(*u.expr, s)));
  return std::move(*sys);
}

// The grids of the copies per ring end (postsByRingEnd), per ring start
// (presByRingStart) and of the first K iterations (firstIterations) read
// the tile count E_A as t + far in every tile (PGrid::not_last). Each
// is built only where grid N reads E_A nowhere (attemptPersistent refuses
// each together with a last tile of its own), so a read there lies in a
// branch grid N never takes (`if k == 0 and it > 0: if t + 1 == T:`), and a
// run's last tile may read it otherwise: refused (unknown). Before, a broken
// kernel of that shape was proved (docs/z3.md "The last K iterations of the
// last tile").
// (`known`: reads of the grid itself, PGrid::uses, which tileCountDepth
// proved one value on every tile but the last m; a copy per ring start
// built past the last tiles reads them as the grid does, presByRingStart)
void refuseTileCountReadsInCopies(const ir::Schedule& s, const TileLoops& tl, const std::vector<TileCountUse>& uses,
                                  const std::vector<TileCountUse>& known = {}) {
  for (const TileCountUse& u : uses)
    if (std::find(known.begin(), known.end(), u) == known.end())
      throw Fail(fmt::format("{} reads {} in a copy of the grid only (its ring start or end differs; not covered by "
                             "the persistent-kernel proof yet)",
                             ir::exprToString(*u.expr, s), ir::exprToString(*tl.tiles, s)));
}

std::set<const ir::Expr*> preLoopExprs(const ir::Schedule& s, const TileLoops& tl, int role = -1);

// A part before the K loop that moves with the ring (presByRingStart) has
// one copy per ring start, built past the last tiles (E_A read as t + far):
// a read of the tile count in such a part (a statement before the K loop)
// would need the last tiles' copies per ring start too (a branch that waits
// for `t * K - 4` only where the tile is not the last is left out at ring
// start 0 either way). Refused; reads after the K loop are taken
// (presByRingStart checks the last tiles' parts per ring start).
void refuseTileCountReadsBeforeK(const ir::Schedule& s, const TileLoops& tl, const std::vector<TileCountUse>& uses) {
  const std::set<const ir::Expr*> pre = preLoopExprs(s, tl);
  for (const TileCountUse& u : uses)
    if (pre.count(u.expr))
      throw Fail(fmt::format("{} reads {} before the K loop, whose part moves with the ring period (not covered by "
                             "the persistent-kernel proof yet)",
                             ir::exprToString(*u.expr, s), ir::exprToString(*tl.tiles, s)));
}

// One process of the grid: its prefix, tiles (pre part, K iterations, post
// part) and exit path, as pc ranges.
struct TileShape {
  enum Kind { Static, TileOnly, Full } kind = Static;
  int prefix_end = 0;               // first pc of tile 0
  std::vector<int> tile_start;      // [t], t <= Wt: tile_start[Wt] is the exit path's start
  std::vector<std::vector<int>> head;  // Full: [t][g], g <= Wg: head[t][Wg] is the post part's start
  int end = 0;                      // program size
  // The tiles it runs: first, first + step, ... (its tile loop's step; a
  // tile it skips has an empty range: tile_start[t] == tile_start[t + 1]).
  int64_t step = 1, first = 0;
  bool runs(int64_t t) const { return t >= first && (t - first) % step == 0; }
};

TileShape tileShapeOf(const Process& proc, const TileLoops& tl, int64_t Wt, int64_t Wg) {
  TileShape sh;
  const auto& prog = proc.program;
  sh.end = static_cast<int>(prog.size());
  std::vector<int64_t> tile(prog.size(), -1), iter(prog.size(), -1);
  std::set<int> tvars;
  for (size_t pc = 0; pc < prog.size(); ++pc)
    for (const auto& [var, value] : prog[pc].loops) {
      if (tl.tile_vars.count(var)) {
        tile[pc] = value;
        tvars.insert(var);
      }
      if (tl.k_vars.count(var)) iter[pc] = value;
    }
  const bool tiled = std::any_of(tile.begin(), tile.end(), [](int64_t t) { return t >= 0; });
  const bool full = std::any_of(iter.begin(), iter.end(), [](int64_t k) { return k >= 0; });
  if (!tiled) return sh;
  sh.kind = full ? TileShape::Full : TileShape::TileOnly;
  if (tvars.size() > 1) throw Fail(fmt::format("{} runs two tile loops", proc.name));
  sh.step = tl.tile_step.at(*tvars.begin());
  if (sh.step > 1 && !full)
    throw Fail(fmt::format("{} skips tiles without a K loop (not covered by the persistent-kernel proof yet)",
                           proc.name));
  sh.tile_start.assign(static_cast<size_t>(Wt + 1), -1);
  if (full) sh.head.assign(static_cast<size_t>(Wt), std::vector<int>(static_cast<size_t>(Wg + 1), -1));
  int64_t last_t = -1, last_k = -1;
  bool left = false;  // past the tile loop
  auto order = [&](bool ok) {
    if (!ok) throw Fail(fmt::format("{} runs its tile loop or K loop not in one piece", proc.name));
  };
  for (int pc = 0; pc < sh.end; ++pc) {
    const int64_t t = tile[pc], k = iter[pc];
    if (t < 0) {
      order(k < 0);
      if (last_t >= 0) left = true;
      if (!left) sh.prefix_end = pc + 1;
      continue;
    }
    order(!left && t >= last_t && t < Wt);
    if (t != last_t) {
      // the first tile below the step (every later tile of its residue is run), then every step-th
      order(last_t < 0 ? t < sh.step : t == last_t + sh.step);
      if (last_t < 0) sh.first = t;
      sh.tile_start[t] = pc;
      last_k = -1;
    }
    if (k >= 0) {
      order(full && k < Wg && (k == last_k || k == last_k + 1) && sh.head[t][Wg] < 0);
      if (k != last_k) sh.head[t][k] = pc;
      last_k = k;
    } else if (full && last_k >= 0 && sh.head[t][Wg] < 0) {
      order(last_k == Wg - 1);
      sh.head[t][Wg] = pc;  // the post part
    }
    last_t = t;
  }
  order(last_t + sh.step >= Wt);
  int exit_start = sh.end;
  for (int pc = sh.end - 1; pc >= 0 && tile[pc] < 0; --pc) exit_start = pc;
  sh.tile_start[Wt] = exit_start;
  for (int64_t t = Wt - 1; t >= 0; --t)
    if (!sh.runs(t)) sh.tile_start[t] = sh.tile_start[t + 1];  // a skipped tile: empty
  if (sh.prefix_end > sh.tile_start[0]) sh.prefix_end = sh.tile_start[0];
  if (full)
    for (int64_t t = 0; t < Wt; ++t) {
      if (!sh.runs(t)) continue;
      for (int64_t g = 0; g < Wg; ++g) order(sh.head[t][g] >= 0);
      if (sh.head[t][Wg] < 0) sh.head[t][Wg] = sh.tile_start[t + 1];  // no post part
    }
  return sh;
}

// Where a pc of the combined program lies.
struct PcPos {
  // PreOpen: the part before the K loop of a process that skips tiles, one
  // copy per tile: its ring start (the end of the tile before, which it
  // did not run) is read when it leaves the copy.
  enum Region : int8_t { Prefix, Pre, Body, Post, Exit, Tile, Done, Other, PostLast, PreOpen } region = Other;
  int16_t t = -1;  // tile (Exit: the tile count it left after)
  int16_t x = -1;  // ring position (Body: g; Pre / Post / Exit of a Full process: the tile's ring start / end)
  bool last = false;  // the last instruction of its block
  int8_t kind = 0;    // the tile's kind (MergedLoops: a copy of each part per kind)
  // Body: the copy of a tile's first K iteration (kFirstCopy, firstIterations)
  // or of one d from its end (kTailCopy + d - 1, tailIterations) or of a
  // first one d from its end (kFirstTailCopy + d - 1, firstTailIterationsAt);
  // 0: the grid's iteration. PostLast: d - 1 for the copy of the d-th tile
  // from the end (the tile count is t + d; PGrid::last_m)
  int8_t first = 0;
  // the distance to its tile's end of a tail copy's iteration (0: none)
  int tailDistance() const;
  // a copy of a tile's first K iteration (kFirstCopy or kFirstTailCopy + d - 1)
  bool firstIteration() const;
};
// the deepest tail of K iterations that differ near a tile's end (a guard
// `k + c < E_B` with c < kMaxTailDepth; checkTailReads)
constexpr int kMaxTailDepth = 8;
constexpr int8_t kFirstCopy = 1, kTailCopy = 2, kFirstTailCopy = kTailCopy + kMaxTailDepth;
inline int PcPos::tailDistance() const {
  return first >= kFirstTailCopy ? first - kFirstTailCopy + 1 : first >= kTailCopy ? first - kTailCopy + 1 : 0;
}
inline bool PcPos::firstIteration() const { return first == kFirstCopy || first >= kFirstTailCopy; }

// What the alignments (alignStageWritesToTheRing, alignCountersToTheRing) set through the ring position, per process:
// the views whose stage writes' generations (alignStageWritesToTheRing),
// the views whose reads' generations and the barriers whose counted phases
// (alignCountersToTheRing) are tile 0's at the same ring position.
// first_only: the barriers a process counts in its K loop's first
// iteration only, left with the builder's values (one count per tile).
struct AlignedFields {
  std::vector<std::set<int>> writes, reads, bars, first_only;
  // Some barrier's counted operations at ring position 0 differ between
  // tile 0 and the later tiles (alignCountersToTheRing, "ring position 0 is
  // tile 0's alone"): sound only where no later tile runs that position,
  // which the exploration ensures from a ring warm-up of 1 on (checked).
  bool start_apart = false;
  void resize(size_t n) {
    writes.resize(n);
    reads.resize(n);
    bars.resize(n);
    first_only.resize(n);
  }
};

// Everything the exploration of a persistent kernel needs.
struct PGrid {
  int64_t Wt = 0, Wg = 0;
  // pathFreeRegs: register ops on these alone carry no counter either
  // (tailIterationsAt)
  std::set<int> free_regs;
  // trip::ringPositionViews and trip::mmaCommitNumbersUnread of the grid as
  // built: a tail iteration may leave out operations on these with their
  // counters (tailIterationsAt, trip_tail_ops.h)
  std::set<int> ring_views;
  bool commits_unread = false;
  // [p]: trip::mmaCommitNumbersReadInOrder of p's role: a copy near the
  // tile's end may leave out its MMA commits (on a barrier too) and commit
  // fewer groups than the grid's iteration (layOutPersistent)
  std::vector<char> commits_in_order;
  // a copy near the tile's end leaves out an MMA with an access in TMEM
  // (trip::leavableWithCounters): the true runs of every tile length must
  // carry no TMEM hazard (checkTailTmemRuns)
  bool tail_tmem = false;
  // left_reads[p]: the grid's positions (in the grid as built) of p's MMAs
  // that a copy near the tile's end leaves out with a read of a view
  // outside ring_views (trip::leftOutReadToCheck): no later read may mean
  // otherwise without them (leftOutReadsChangeNoRead)
  std::vector<std::set<int>> left_reads;
  // wait_reads_apart[p]: the grid's positions of the operations p's copies
  // near the end leave out, where some of its reads whose marker a
  // left-out wait moves are left out too (leftOutWaitsChangeNoRead): each
  // K iteration's copy that keeps such a read is asked apart, the first
  // copies near the end once built (leftOutWaitReadsInFirstTails)
  std::vector<std::set<int>> wait_reads_apart;
  // may a copy near the tile's end of process p leave out its MMA commits?
  bool commitNumbersFree(size_t p) const {
    return commits_unread || (p < commits_in_order.size() && commits_in_order[p]);
  }
  int64_t Pg = 0, w0g = 0, Pt = 0, tw = 0;  // ring and tile periods, warm-ups
  // The periods hold at the ring positions runs reach only (slopedPeriods,
  // docs/z3.md "A ring index minus the tile index"): slope, and process p's
  // K iterations of the grid repeat at x >= w0g with x - t >= reach[p] in
  // tile t (kEveryTile: at x >= w0g in every tile, as without slope).
  bool slope = false;
  std::vector<int64_t> reach;
  // Whether process p at q, its ring position moved to x, runs the grid's
  // K iterations from there on only where they repeat (slope).
  bool periodsHoldOn(size_t p, const PcPos& q, int64_t x) const;
  // Whether process p may enter tile t's K loop at ring position x: x >= t
  // (every tile runs a K iteration) or, shifted, where periodsHoldOn kept it.
  bool enteredWhereRunsReach(size_t p, int64_t t, int64_t x) const;
  System grid;                               // Wt tiles of Wg iterations
  std::vector<TileShape> shape;
  // Two kinds of tile (MergedLoops): `grid` has every tile of kind 0 (the
  // guard true), kgrid / kshape every tile of kind 1; kinded[p]: p's
  // program differs between them (it gets a copy of each tile part per
  // kind, the tables below at lane(p, kind)); the others are equal.
  int kinds = 1;
  // The tile count, fixed (TileLoops::fixed_tiles; -1: open, explored)
  int64_t fixed_tiles = -1;
  // Tiles of one run of lengths of their own (TileLoops::own_lengths)
  bool own_lengths = false;
  int64_t tile_multiple = 1;  // (TileLoops::tile_multiple)
  // kinds_shared: the guard's bound B1 reads no lm.instance() and no loop
  // variable, so every kinded process of one CTA, of any role (the guard is
  // one node: passesAsTiles, nestsAsTiles), sees the same boundary
  // (kindsInTileOrder)
  bool kinds_shared = false;
  System kgrid;
  std::vector<TileShape> kshape;
  std::vector<char> kinded;
  size_t lane(size_t p, int kind) const { return static_cast<size_t>(kind) * grid.procs.size() + p; }
  int kindsOf(size_t p) const { return kinds > 1 && kinded[p] ? kinds : 1; }
  // Parts after the K loop that read the tile's ring end (`lm.arrive(empty,
  // iter=t * k_tiles + k_tiles - 1)`, docs/z3.md "The ring end after the K
  // loop"): post_moves[p], such a part of p moves with the ring (found by
  // gridCounts); post_x[p], p gets a copy of it per ring end x whose text
  // is post_text[kind][p][t][x] (from the grid of tiles of x iterations;
  // x == Wg: the grid's own), the slots and phases of its operations the
  // only difference (checked in postsByRingEnd).
  std::vector<char> post_moves, post_x;
  std::vector<std::vector<std::vector<std::vector<std::vector<Instr>>>>> post_text;  // (PartTexts)
  // min_len: the least K trip count the lm.assume facts allow (`lm.assume(K
  // >= 4)`, up to the window), the least length of an explored tile
  // (docs/z3.md "The assumptions' least K trip count"); a ring end x <
  // post_unentered (min(min_len, w0g)) is the end of no explored tile, and
  // its copy of the parts after the K loop the grid's text (postsByRingEnd).
  int64_t min_len = 1, post_unentered = 0;
  // Parts before the K loop that read the tile's ring start (a per-tile
  // prologue loading `t * K + li`, docs/z3.md "A per-tile prologue that
  // moves with the ring"): pre_moves[p], such a part of p moves with the
  // ring (gridCounts); pre_x[p], p gets a copy of it per ring start x whose
  // text is pre_text[0][p][t][x] (from the grid whose tiles start at x),
  // the ring-evaluated fields its only difference (presByRingStart).
  std::vector<char> pre_moves, pre_x;
  // pre_first[p]: p's K iteration 0 at some ring start x >= 1 (the grid
  // whose tiles start at x) is not the grid's iteration x: it must be a
  // first K iteration of its own, matched by firstIterations on that same
  // grid (requirePreFirstCopies); pre_first_x, the least such x (a message).
  std::vector<char> pre_first;
  std::vector<int64_t> pre_first_x;
  // pre_marker_moves[p][t][x]: the copy at x waits where the grid's part
  // does not, on a barrier moving an aligned read's marker (requireAlignedAtRingStart)
  std::vector<std::vector<std::vector<char>>> pre_marker_moves;
  std::string pre_moving;  // the first such operation, as gridCounts refused it before (for a message)
  // ring_start_reads[p]: (statement, view) of p's reads in its part before
  // the K loop whose view index reads the tile's ring start and that the
  // grid names by stage (FA4's MMA: `smem_k[g0]`); their copies are named
  // as the ring (namePreReadsAsTheRing, ringStartReadsOncePerRun)
  std::vector<std::set<std::pair<const ir::Stmt*, int>>> ring_start_reads;
  std::vector<std::vector<std::vector<std::vector<std::vector<Instr>>>>> pre_text;  // (PartTexts)
  // pre_text as the builder gave it, before the copies' writes and reads
  // were named as the ring (what a last tile's part is compared with,
  // lastTilesAtRingStart, which may run after the naming)
  std::vector<std::vector<std::vector<std::vector<std::vector<Instr>>>>> pre_text_built;
  // pre_grids[x]: the grid whose tiles start at x, as presByRingStart built
  // and aligned it (x >= 1; firstIterations takes it rather than building
  // it again)
  std::vector<System> pre_grids;
  // pre_shapes[x]: the shapes of the grid whose tiles start at x (x = 0:
  // `shape`), as presByRingStart built it (tailsByRingStart reads them)
  std::vector<std::vector<TileShape>> pre_shapes;
  // ring_gen_shift[p][{x, t, ring index, statement, access}]: in the grid
  // whose tiles start at x (presByRingStart), the generation of a read that
  // the grid aligned through the ring position, in p's K iteration at that
  // ring index of tile t, minus the grid's (nullopt where two reads of the
  // statement there differ by different amounts). tailsByRingStart lets the
  // tail grids at x and at 0 differ by it (docs/z3.md "Ring generations
  // compared by the far grids' shift").
  using RingGenKey = std::tuple<int64_t, int64_t, int64_t, const ir::Stmt*, size_t>;
  std::vector<std::map<RingGenKey, std::optional<int64_t>>> ring_gen_shift;
  // Every tile's length is a multiple of len_multiple (the lm.assume facts:
  // `K % 4 == 0`; a divisor of the ring period Pg, so that every ring
  // shift keeps a ring position's residue): every tile starts and ends at
  // a multiple of it (docs/z3.md "Tile lengths the facts allow").
  int64_t len_multiple = 1;
  // Whether an explored run can start a tile t >= 1 at ring position x:
  // the tile before ran at least min_len iterations from its start, or a
  // ring shift moved the start to w0g or above (docs/z3.md "The
  // assumptions' least K trip count" step 3), and every tile end is a
  // multiple of len_multiple (PersistentExplorer::enterBody checks it).
  bool startExplored(int64_t x) const { return x >= std::min(min_len, w0g) && x % len_multiple == 0; }
  // One tail for those copies (merge_tails, a process that skips tiles;
  // docs/z3.md "One tail for the parts after the K loop"): copy x holds the
  // part up to its last instruction that differs between the copies, then
  // goes on at post_tail_at[lane][t], one copy of the rest (PcPos x = -1).
  bool merge_tails = false;
  // Whether a process that skips tiles may commit MMA groups that arrive on
  // a barrier (its commits then numbered in issue order: the budget allows
  // it, TripProofOptions::ordinal_commits_from_work); else refused.
  bool ordinal_commits = false;
  // last_ordinal[p]: p's last tiles' parts after the K loop commit another
  // number of MMA groups than the grid's tiles there (FA4's MMA releases Q
  // by a commit under `if t + 2 < T:`), so the commits before a pc are not
  // one number: p's completions are numbered in issue order
  // (Model::ordinal_commits), as a process that skips tiles has them, and
  // it may not wait for its MMA groups (lm.mma_wait, the one reader of the
  // absolute count). layOutPersistent; docs/z3.md "Sloped copies near a
  // tile's end", the Q release.
  std::vector<char> last_ordinal;
  uint64_t ordinal_commits_from = 0;  // (the budget that would allow it, for the refusal)
  // A first K iteration that differs from the others at its ring index
  // (`if k > 0:`, docs/z3.md "The first K iteration"): first_x[p], p gets
  // a copy of it per ring start x, text first_text[kind][p][t][x] (from
  // the grid whose tiles start at x), entered instead of body_at.
  std::vector<char> first_x;
  // first_named[p]: p's K iteration 0 arrives on named barriers otherwise
  // than its later iterations (a peeled prologue's syncs under `if j > 0:`,
  // docs/z3.md "A peeled first K iteration"); the difference is counted with
  // the tile's part (gridCounts), first_arrivals[p][t] the iteration's arrivals
  std::vector<char> first_named;
  std::vector<std::map<int64_t, std::map<int, int64_t>>> first_arrivals;
  std::vector<std::vector<std::vector<std::vector<std::vector<Instr>>>>> first_text;
  // The last tail_m K iterations that differ from the others at their ring
  // index (a guard `k + c < E_B`, docs/z3.md "The last K iteration"):
  // tail_x[p], p gets a copy of the iteration d from its tile's end (d =
  // 1..tail_m) per ring position g, text tail_text[d - 1][kind][p][t][g]
  // (the grid's iteration g with operations that carry no counter left out
  // or added, or a group wait's pending changed), entered when the tile's
  // K loop ends d iterations later (its end is g + d); the other
  // iterations of p are then never among the last tail_m of their tile.
  std::vector<char> tail_x;
  int tail_m = 0;
  std::vector<std::vector<std::vector<std::vector<std::vector<std::vector<Instr>>>>>> tail_text;
  // A tile of d <= tail_m K iterations runs its first iteration as the one
  // d from its end (obstacle 1 (d), firstTailIterationsAt): where the K loop
  // has a first iteration of its own, first_tail_x[p], p gets a copy of it
  // per distance and ring start x, text first_tail_text[d - 1][kind][p][t][x]
  // (iteration 0 of the grid whose tiles start at x with every K iteration
  // d from its end), entered instead of the tail copy d at x.
  std::vector<char> first_tail_x;
  std::vector<std::vector<std::vector<std::vector<std::vector<std::vector<Instr>>>>>> first_tail_text;
  // the expressions the grid with every K iteration the last evaluates, and
  // those of K iterations that read E_B besides t * E_B (checkTileExprs)
  std::vector<const ir::Expr*> tail_exprs;
  std::set<const ir::Expr*> end_in_k;
  Deltas ring, tile;
  // (write's view, read's view): pairs of views over common bytes that the
  // shifts move by different laps, which no explored read may compare
  // (checkLapDeltas, PersistentExplorer::unmetAlias)
  ViewPairs unmet;
  std::map<int, int64_t> ring_named, tile_named;
  std::vector<int64_t> ring_commits, tile_commits;
  // the combined program
  System comb;
  sim::ControlFlow flow;
  std::vector<std::vector<PcPos>> pos;            // [p][pc], done pc included
  // Full: pre_at[t][x], body_at[t][g], post_at[t][x], exit_at[a][x] (block starts; x <= Wg)
  // TileOnly: body_at[t][0] is tile t's block, exit_at[a][0] the exit path after a tiles
  struct Range { int a = 0, b = 0; };  // a block's pcs [a, b)
  std::vector<std::vector<std::vector<Range>>> pre_at, body_at, post_at, exit_at;
  std::vector<std::vector<std::vector<Range>>> first_at;  // [lane][t][x] (first_x; firstIterations)
  std::vector<std::vector<std::vector<std::vector<Range>>>> tail_at;  // [d - 1][lane][t][g] (tail_x; tailIterations)
  std::vector<std::vector<std::vector<std::vector<Range>>>> first_tail_at;  // [d - 1][lane][t][x] (first_tail_x)
  std::vector<std::vector<Range>> post_tail_at;           // [lane][t] (merge_tails; empty range: none)
  std::vector<std::vector<Range>> pre_open;  // [p][t]: a process that skips tiles (TileShape::step > 1)
  // The tile count read inside the tile loop (tileCountDepth), to depth
  // last_m: last[lastGrid(d, i)] is the grid whose tiles of parity i are
  // the d-th from the end (E_A read as t + d, d <= last_m), the same as
  // `grid` (E_A read as t + last_m + 1: not_last) but in those tiles' parts
  // after the K loop (checked); a process leaving tile t's K loop enters
  // the part of `grid` (more tiles) or, with the tile count t + d, its copy
  // post_last_at[d - 1][p][t][x] of last[lastGrid(d, t % 2)]'s.
  bool last_tile = false;
  int64_t last_m = 0;
  std::vector<TileCountUse> uses;  // grid's reads of E_A (tileCountDepth proved each past the last m tiles)
  TileCountRead not_last;
  static size_t lastGrid(int64_t d, int64_t parity) { return static_cast<size_t>(2 * (d - 1) + parity); }
  // alignCountersToTheRing changed a counted phase or a read generation of `grid`
  bool counters = false;
  AlignedFields aligned;  // what the grid's alignment set (firstIterations matches the copies by it)
  std::vector<System> last;                     // [lastGrid(d, parity)]
  std::vector<std::vector<TileShape>> last_shape;  // [lastGrid(d, parity)][p]
  std::vector<std::vector<std::vector<std::vector<Range>>>> post_last_at;  // [d - 1][lane][t][x]
  // The last tiles' parts after the K loop per ring end (lastPostsByRingEnd,
  // docs/z3.md "The last tiles' parts per ring end"): post_last_x[p], p's
  // copy at x has the text post_last_text[d - 1][p][t][x] (the grid of the
  // d-th tile from the end with tiles of x iterations); last_moving[p], the
  // message for a last tile's part of p that moves with the ring (refused
  // unless p gets those copies: checkLastTileGrid, refuseLastPartsThatMove).
  std::vector<char> post_last_x;
  std::vector<std::vector<std::vector<std::vector<std::vector<Instr>>>>> post_last_text;  // [d - 1][p][t][x]
  std::vector<std::string> last_moving;
  // The exit path per tile count (exitsByTileCount, docs/z3.md "A part
  // after the tile loop that reads the tile count"): exit_by_a[p], p's exit
  // path reads E_A (`lm.wait(k_empty, iter=n_tiles - 1)`, a producer's
  // tail); its copy after a tiles has the text exit_text[p][a] (the grid of
  // a tiles'); exit_raw[p], the grid's own exit path as built (before the
  // alignments, which must leave it alone).
  // exit_by_x: the exit paths read the ring end instead (`iter=n_tiles *
  // k_tiles - 1`, TileLoops::exit_ring_end): every such p's copy at ring
  // end x has the text exit_x_text[p][x] (the grid whose exit reads x).
  std::vector<char> exit_by_a;
  bool exit_by_x = false;
  std::vector<TileCountUse> exit_end_uses;                 // (the grid's reads of the ring end after the tile loop)
  std::vector<std::vector<std::vector<Instr>>> exit_text;  // [p][a], a <= Wt
  std::vector<std::vector<std::vector<Instr>>> exit_x_text;  // [p][x], x <= Wg
  std::vector<std::vector<Instr>> exit_raw;                // [p]
  std::vector<std::vector<int>> ring_pc, tile_pc;  // [p][pc]: one period back, -1: cannot
  std::vector<std::vector<int>> ring_ref;          // ring_pc, or for a copy of a pre / post part or exit path the
                                                   // copy of the same text at x - Pg (>= 0): for async work only
  std::vector<std::vector<int>> commits_before;    // [p][pc], path-independent
  // Done pcs, one per end of the run (program size + index): every pc has
  // one predecessor instruction (the last one a finished process ran).
  std::vector<int> size;                           // [p] program size
  int doneAt(size_t p, int64_t a, int64_t x) const {
    return size[p] + static_cast<int>(shape[p].kind == TileShape::Full ? a * (Wg + 1) + x : a);
  }
};

constexpr int64_t kEveryTile = INT64_MIN;

// A run enters tile t at its ring start S >= t, and x - t does not fall
// along a process's run (docs/z3.md "A ring index minus the tile index"):
// the grid's iterations p runs later lie at x - t >= (its position's) for
// a K iteration after the first, and at S - t + 1 past a first iteration of
// its own (first_x), S - t for one of the grid's text. So p's position
// must be at least reach[p] past its tile index in a K iteration of the
// grid, reach[p] - f in a first one or before the K loop, and the ring end
// reach[p] - f past the next tile's index after it (f = 1 with first
// copies, else 0).
bool PGrid::periodsHoldOn(size_t p, const PcPos& q, int64_t x) const {
  if (!slope || reach[p] == kEveryTile || q.t < 0) return true;
  const int64_t f = p < first_x.size() && first_x[p] ? 1 : 0;
  switch (q.region) {
    case PcPos::Body: return x - q.t >= reach[p] - (q.firstIteration() ? f : 0);
    case PcPos::Pre: return x - q.t >= reach[p] - f;
    case PcPos::Post:
    case PcPos::PostLast: return x - (q.t + 1) >= reach[p] - f;
    default: return true;
  }
}

bool PGrid::enteredWhereRunsReach(size_t p, int64_t t, int64_t x) const {
  if (!slope) return true;
  if (reach[p] == kEveryTile) return true;  // (shifted as without slope: its text repeats in every tile)
  const int64_t f = p < first_x.size() && first_x[p] ? 1 : 0;
  return x - t >= std::min<int64_t>(0, reach[p] - f);
}

// A series of blocks of one process: block i is the pc range range(i).
struct Series {
  int proc;
  std::function<std::pair<int, int>(int64_t)> range;
};

// (CAKE_PERSIST_STATS) Why a series has no period P: the first
// instruction of block top + P that is not block top's shifted (a guard the
// window's corner takes otherwise, a counter that does not move with the
// ring: docs/z3.md "FA4's correction warpgroup: what stops the proof").
void printUnshifted(const System& sys, const Series& se, int64_t top, int64_t P, const Deltas& d) {
  const auto& prog = sys.procs[se.proc].program;
  auto [a0, a1] = se.range(top);
  auto [b0, b1] = se.range(top + P);
  fmt::print(stderr, "persist-stats: no period {} in {}'s blocks {} and {} ({} and {} instructions)\n", P,
             sys.procs[se.proc].name, top, top + P, a1 - a0, b1 - b0);
  for (int q = 0; q < std::min(a1 - a0, b1 - b0); ++q) {
    Deltas trial = d;
    if (shiftedInstr(prog[a0 + q], prog[b0 + q], trial, se.proc)) continue;
    fmt::print(stderr, "persist-stats:   {}\npersist-stats:   {}\n", instrToString(sys, se.proc, a0 + q),
               instrToString(sys, se.proc, b0 + q));
    return;
  }
}

// The first block of a ring series (of n blocks) from which every block is
// the block P later shifted back, compared from the top down (the shifts
// found added to d); n - P where not even the top block repeats. Shared
// by the plain period search and the sloped one.
int64_t seriesRepeatsFrom(const System& sys, const Series& se, int64_t n, int64_t P, Deltas& d) {
  const auto& prog = sys.procs[se.proc].program;
  int64_t b = n - 1 - P;
  for (; b >= 0; --b) {
    auto [a0, a1] = se.range(b);
    auto [b0, b1] = se.range(b + P);
    if (!shiftedRange(prog, a0, a1, prog, b0, b1, d, se.proc)) break;
  }
  return b + 1;
}

// The smallest period P such that in every series block i + P is block i
// shifted, for every i >= w0 (the warm-up), leaving room to shift: (P, w0)
// and the deltas, or nullopt.
std::optional<std::pair<int64_t, int64_t>> seriesPeriod(const System& sys, const std::vector<Series>& series,
                                                        int64_t n, int max_period, Deltas& out) {
  for (int64_t P = 1; P <= max_period && 2 * P + 2 <= n; ++P) {
    Deltas d;
    int64_t w0 = 0;
    bool ok = !series.empty();
    for (const Series& se : series) {
      const int64_t from = seriesRepeatsFrom(sys, se, n, P, d);
      if (from == n - P) {  // not even the top block repeats
        if (P <= 4 && std::getenv("CAKE_PERSIST_STATS")) printUnshifted(sys, se, n - 1 - P, P, d);
        ok = false;
        break;
      }
      w0 = std::max(w0, from);
    }
    if (!ok || w0 + 2 * P + 2 > n) continue;
    out = std::move(d);
    return std::make_pair(P, w0);
  }
  return std::nullopt;
}

// The periods of a grid whose text repeats only at ring positions runs
// reach (docs/z3.md "A ring index minus the tile index"): a run enters tile
// t at a ring position S >= t (every tile runs a K iteration). An
// iteration `lm.wait(o_ready, iter=g - t - 1)` is left out at the grid's
// positions x <= t, which no run reaches past its tile's first iteration,
// and the plain search, which compares them, finds no period. Here each
// ring series (tile_of[i]: its tile) is compared from the top down to where
// it differs: the warm-up w0 is where tile 0's series of every process
// repeat, and reach[p] the least x - t from which each of p's series with a
// later difference repeats (kEveryTile: none). nullopt where no period
// leaves room.
std::optional<std::pair<int64_t, int64_t>> slopedRingPeriod(const System& sys, const std::vector<Series>& series,
                                                            const std::vector<int64_t>& tile_of, int64_t n,
                                                            int max_period, Deltas& out, std::vector<int64_t>& reach) {
  for (int64_t P = 1; P <= max_period && 2 * P + 2 <= n && !series.empty(); ++P) {
    Deltas d;
    std::vector<int64_t> from(series.size());  // the first block of each series from which it repeats
    for (size_t i = 0; i < series.size(); ++i) from[i] = seriesRepeatsFrom(sys, series[i], n, P, d);
    int64_t w0 = 0;
    for (size_t i = 0; i < series.size(); ++i)
      if (tile_of[i] == 0) w0 = std::max(w0, from[i]);
    if (w0 + 2 * P + 2 > n) continue;
    std::vector<int64_t> r(sys.procs.size(), kEveryTile);
    for (size_t i = 0; i < series.size(); ++i)
      if (from[i] > w0) r[series[i].proc] = std::max(r[series[i].proc], from[i] - tile_of[i]);
    out = std::move(d);
    reach = std::move(r);
    return std::make_pair(P, w0);
  }
  return std::nullopt;
}

// The tile period of such a grid: tile i + P is tile i shifted in its parts
// before and after the K loop and, for each process p, in its K iterations
// at x - (i + P) >= reach[p] (the positions the tile shift maps,
// PGrid::periodsHoldOn; all of them where reach[p] is kEveryTile), for
// every i >= tw.
std::optional<std::pair<int64_t, int64_t>> slopedTilePeriod(const System& sys, const std::vector<TileShape>& shape,
                                                            int64_t Wt, int64_t Wg, const std::vector<int64_t>& reach,
                                                            int max_period, Deltas& out) {
  auto pieces = [&](const TileShape& sh, int64_t t, int64_t from) {
    std::vector<std::pair<int, int>> r;
    if (sh.kind != TileShape::Full) return std::vector<std::pair<int, int>>{{sh.tile_start[t], sh.tile_start[t + 1]}};
    r.push_back({sh.tile_start[t], sh.head[t][0]});
    for (int64_t x = std::max<int64_t>(from, 0); x < Wg; ++x) r.push_back({sh.head[t][x], sh.head[t][x + 1]});
    r.push_back({sh.head[t][Wg], sh.tile_start[t + 1]});
    return r;
  };
  for (int64_t P = 1; P <= max_period && 2 * P + 2 <= Wt; ++P) {
    Deltas d;
    int64_t tw = 0;
    bool ok = false;
    for (size_t p = 0; p < shape.size(); ++p) {
      const TileShape& sh = shape[p];
      if (sh.kind == TileShape::Static) continue;
      const auto& prog = sys.procs[p].program;
      const int64_t top = Wt - 1 - P;
      int64_t i = top;
      for (; i >= 0; --i) {
        const int64_t from = reach[p] == kEveryTile ? 0 : reach[p] + i + P;
        const auto a = pieces(sh, i, from), b = pieces(sh, i + P, from);
        Deltas trial = d;
        bool same = a.size() == b.size();
        for (size_t k = 0; same && k < a.size(); ++k)
          same = shiftedRange(prog, a[k].first, a[k].second, prog, b[k].first, b[k].second, trial,
                              static_cast<int>(p));
        if (!same) break;
        d = std::move(trial);
      }
      ok = i < top;
      if (!ok) break;
      tw = std::max(tw, i + 1);
    }
    if (!ok || tw + 2 * P + 2 > Wt) continue;
    out = std::move(d);
    return std::make_pair(P, tw);
  }
  return std::nullopt;
}

// A K loop whose iteration 0 arrives on named barriers otherwise than its
// others (docs/z3.md "A peeled first K iteration": the syncs a peeled
// prologue left out, under `if j > 0:`). Every later iteration of every
// tile of the grid must arrive alike (r); then a tile of B iterations
// arrives a0 + (B - 1) r in its K loop, B r of it counted per ring period
// and a0 - r here, with the tile's part. The first iterations at every ring
// start must arrive a0 (firstIterations, checkFirstNamed).
template <typename Count>
void firstNamedExcess(PGrid& g, size_t p, const Count& count, std::map<int, int64_t>& tile_warps) {
  const TileShape& sh = g.shape[p];
  const size_t P = g.grid.procs.size();
  if (g.first_named.size() != P) {
    g.first_named.assign(P, 0);
    g.first_arrivals.assign(P, {});
  }
  g.first_named[p] = 0;
  g.first_arrivals[p].clear();
  if (g.Wg < 2) return;
  std::map<int, int64_t> r;
  count(p, sh.head[sh.first][1], sh.head[sh.first][2], &r, nullptr);
  bool differs = false;
  for (int64_t t = sh.first; t < g.Wt; t += sh.step) {
    std::map<int, int64_t> a0;
    count(p, sh.head[t][0], sh.head[t][1], &a0, nullptr);
    differs |= a0 != r;
    g.first_arrivals[p][t] = a0;
  }
  if (!differs) {
    g.first_arrivals[p].clear();
    return;
  }
  const std::string& name = g.grid.procs[p].name;
  if (g.w0g < 1 || sh.step > 1)
    throw Fail(fmt::format("{}'s first K iteration arrives on named barriers otherwise than its others and the ring "
                           "period starts at it or the process skips tiles (not covered by the persistent-kernel "
                           "proof yet)",
                           name));
  for (int64_t t = sh.first; t < g.Wt; t += sh.step)
    for (int64_t k = 1; k < g.Wg; ++k) {
      std::map<int, int64_t> a;
      count(p, sh.head[t][k], sh.head[t][k + 1], &a, nullptr);
      if (a != r)
        throw Fail(fmt::format("{}'s K iterations after the first arrive on named barriers differently (not covered "
                               "by the persistent-kernel proof yet)",
                               name));
    }
  g.first_named[p] = 1;
  for (int64_t t = g.tw; t < g.tw + g.Pt; ++t) {
    if (!sh.runs(t)) continue;
    std::map<int, int64_t> diff = g.first_arrivals[p].at(t);
    for (const auto& [n, k] : r) diff[n] -= k;
    for (const auto& [n, k] : diff) tile_warps[n] += k;
  }
}

// Named-barrier generations and MMA commits over one period of each shift;
// the instructions that map to themselves under a shift must not move with it.
void gridCounts(PGrid& g) {
  const System& sys = g.grid;
  const size_t P = sys.procs.size();
  if (g.post_moves.size() != P) g.post_moves.assign(P, 0);
  if (g.pre_moves.size() != P) g.pre_moves.assign(P, 0);
  g.ring_commits.assign(P, 0);
  g.tile_commits.assign(P, 0);
  std::map<int, int64_t> ring_warps, tile_warps;
  auto count = [&](size_t p, int a, int b, std::map<int, int64_t>* warps, int64_t* commits) {
    for (int pc = a; pc < b; ++pc) {
      const Instr& in = sys.procs[p].program[pc];
      if (warps && (in.kind == InstrKind::SyncArrive || in.kind == InstrKind::BarArrive))
        (*warps)[in.named] += sys.procs[p].warps;
      if (commits && in.kind == InstrKind::MmaCommit) ++*commits;
    }
  };
  for (size_t p = 0; p < P; ++p) {
    const TileShape& sh = g.shape[p];
    if (sh.kind == TileShape::Static) continue;
    for (int64_t t = g.tw; t < g.tw + g.Pt; ++t) {
      if (sh.kind == TileShape::TileOnly) {
        count(p, sh.tile_start[t], sh.tile_start[t + 1], &tile_warps, &g.tile_commits[p]);
        continue;
      }
      if (!sh.runs(t)) continue;  // a tile it skips: nothing
      count(p, sh.tile_start[t], sh.head[t][0], &tile_warps, &g.tile_commits[p]);
      count(p, sh.head[t][g.Wg], sh.tile_start[t + 1], &tile_warps, &g.tile_commits[p]);
    }
    if (sh.kind == TileShape::Full) firstNamedExcess(g, p, count, tile_warps);
    if (sh.kind != TileShape::Full) continue;
    // per ring period: the same in every tile (each process skips a period of its own tile)
    for (int64_t t = sh.first; t < g.Wt; t += sh.step) {
      std::map<int, int64_t> warps;
      int64_t commits = 0;
      // (slope: where tile t's ring period holds; a tile without one in the window is never ring-shifted)
      const int64_t x0 = g.slope && g.reach[p] != kEveryTile ? std::max(g.w0g, t + g.reach[p]) : g.w0g;
      if (t > sh.first && x0 + g.Pg > g.Wg) continue;
      count(p, sh.head[t][x0], sh.head[t][x0 + g.Pg], &warps, &commits);
      if (t == sh.first) {
        // A process that skips tiles runs only some ring periods: its
        // arrivals on a named barrier would not be one number per period.
        if (sh.step > 1 && !warps.empty())
          throw Fail(fmt::format("{} skips tiles and arrives on a named barrier in its K loop (not covered by the "
                                 "persistent-kernel proof yet)",
                                 sys.procs[p].name));
        for (const auto& [n, k] : warps) ring_warps[n] += k;
        g.ring_commits[p] = commits;
      } else {
        std::map<int, int64_t> first;
        int64_t first_commits = 0;
        count(p, sh.head[sh.first][g.w0g], sh.head[sh.first][g.w0g + g.Pg], &first, &first_commits);
        if (warps != first || commits != first_commits)
          throw Fail(fmt::format("{}'s K loop arrives on named barriers or commits MMA groups differently in "
                                 "different tiles",
                                 sys.procs[p].name));
      }
    }
  }
  auto generations = [&](const std::map<int, int64_t>& warps, std::map<int, int64_t>& out) {
    for (const auto& [n, k] : warps) {
      const int64_t expected = sys.named[n].expected_warps;
      if (expected <= 0 || k % expected != 0)
        throw Fail(fmt::format("{} does not complete a whole number of generations per period", sys.named[n].name));
      out[n] = k / expected;
    }
  };
  generations(ring_warps, g.ring_named);
  generations(tile_warps, g.tile_named);
  for (size_t p = 0; p < P; ++p)
    if (g.first_named[p])
      for (const auto& [n, k] : g.tile_named)
        if (k < 0)
          throw Fail(fmt::format("{} completes fewer generations per tile than its K iterations do (not covered by "
                                 "the persistent-kernel proof yet)",
                                 sys.named[n].name));
  // What an instruction's text reads of the named barriers' generations
  // (docs/z3.md "A named barrier synced before the K loop and in it"): a
  // named barrier's generation is state (the barrier's count and each
  // waiter's target, both moved by a shift), compared only with itself; no
  // field of an instruction names one. The cluster barrier is the exception
  // (whether its first generation completed is read: clusterBarrierKept).
  auto textNamed = [&](const std::map<int, int64_t>& named) {
    std::map<int, int64_t> out;
    if (auto it = named.find(sys.cluster_named); it != named.end()) out.insert(*it);
    return out;
  };
  const std::map<int, int64_t> ring_text = textNamed(g.ring_named), tile_text = textNamed(g.tile_named);
  // what maps to itself: a Full process's pre / post parts and exit path
  // under the ring shift, every exit path under the tile shift, a process
  // without the K loop under the ring shift
  for (size_t p = 0; p < P; ++p) {
    const TileShape& sh = g.shape[p];
    if (sh.kind == TileShape::Static) continue;
    const auto& prog = sys.procs[p].program;
    auto still = [&](int a, int b, const Deltas& d, const std::map<int, int64_t>& named, const char* what) {
      for (int pc = a; pc < b; ++pc)
        if (!unmoved(d, named, prog[pc]))
          throw Fail(fmt::format("{} at {} of {} moves with the {} period", opText(*sys.schedule, *prog[pc].stmt),
                                 what, sys.procs[p].name, &d == &g.ring ? "ring" : "tile"));
    };
    // (an exit path that reads the tile count moves with the tiles: its
    // copies per tile count repeat with the tile period, layOutPersistent)
    if (p >= g.exit_by_a.size() || !g.exit_by_a[p]) still(sh.tile_start[g.Wt], sh.end, g.tile, tile_text, "the exit path");
    if (sh.kind == TileShape::TileOnly) {
      still(0, sh.end, g.ring, ring_text, "the tile loop");
      continue;
    }
    // (an exit path that reads the ring end: its copies per ring end repeat, layOutPersistent)
    if (!g.exit_by_x || p >= g.exit_by_a.size() || !g.exit_by_a[p])
      still(sh.tile_start[g.Wt], sh.end, g.ring, ring_text, "the exit path");
    for (int64_t t = sh.first; t < g.Wt; t += sh.step) {
      // a part before the K loop that moves with the ring reads the ring
      // start (presByRingStart decides; without it, refused as before)
      bool pre_moves = false;
      for (int pc = sh.tile_start[t]; pc < sh.head[t][0] && !pre_moves; ++pc) {
        pre_moves = !unmoved(g.ring, ring_text, prog[pc]);
        if (pre_moves && g.pre_moving.empty())
          g.pre_moving = fmt::format("{} at the tile loop before the K loop of {} moves with the ring period",
                                     opText(*sys.schedule, *prog[pc].stmt), sys.procs[p].name);
      }
      if (pre_moves) g.pre_moves[p] = 1;
      // a part after the K loop that moves with the ring reads the ring end
      // (postsByRingEnd decides; without it, refused as before). Its
      // named-barrier operations are read as the part before the K loop's
      // (ring_text): the shift moves a barrier's generation and its
      // waiters' wherever they are (docs/z3.md "A named barrier synced
      // after the K loop", helper grouped)
      bool moves = false;
      for (int pc = sh.head[t][g.Wg]; pc < sh.tile_start[t + 1] && !moves; ++pc)
        moves = !unmoved(g.ring, ring_text, prog[pc]);
      if (moves) g.post_moves[p] = 1;
    }
  }
}

int commitsIn(const std::vector<Instr>& prog, int a, int b) {
  int n = 0;
  for (int pc = a; pc < b; ++pc) n += prog[pc].kind == InstrKind::MmaCommit;
  return n;
}

// The combined program of each process (docs/z3.md): a Full process's
// prefix, its K iterations (t, g) for every tile t and ring index g, and
// copies of each tile's pre and post parts per ring position x, and of the
// exit path per (tile count, x); a process with the tile loop only keeps its
// tiles and gets an exit path per tile count. The copies make the MMA
// commits before every pc one number whatever the path (they depend on t
// and x only), and the shifts plain pc maps.
// Does src[a, b) hold an MMA commit that arrives on a barrier?
// A process whose completions are numbered in issue order because its last
// tiles commit another number of MMA groups (PGrid::last_ordinal) must not
// wait for its MMA groups: lm.mma_wait reads the absolute count before its
// pc (knowCompleted), which is then not one number (docs/z3.md "Commit
// ordinals in issue order", item 4).
bool waitsForItsMmaGroups(const std::vector<Instr>& prog) {
  return std::any_of(prog.begin(), prog.end(), [](const Instr& in) { return in.kind == InstrKind::MmaWait; });
}
[[noreturn]] void refuseLastTileCommitsWithMmaWaits(const PGrid& g, size_t p) {
  throw Fail(fmt::format("{} commits a different number of MMA groups after the K loop of the last tile and waits for "
                         "its MMA groups (lm.mma_wait) (not covered by the persistent-kernel proof yet)",
                         g.grid.procs[p].name));
}
void refuseMmaWaitsWithOrdinals(const PGrid& g, size_t p) {
  if (waitsForItsMmaGroups(g.comb.procs[p].program)) refuseLastTileCommitsWithMmaWaits(g, p);
}

bool commitsToBarrier(const std::vector<Instr>& src, int a, int b) {
  return std::any_of(src.begin() + a, src.begin() + b,
                     [](const Instr& in) { return in.kind == InstrKind::MmaCommit && in.slot >= 0; });
}

// layOutPersistent's check of the exit paths per tile count or ring end
// (exitsByTileCount, exitsByRingEnd) of process p, laid out in prog: copy
// a is copy a - Pt one tile period on, copy x copy x - Pg one ring period
// on (the shifts map them so), with the grid's deltas; copies per tile
// count stay put under the ring shift (their copies per ring end are one
// text).
template <typename SameDeltas>
void checkExitCopiesRepeat(const PGrid& g, size_t p, const std::vector<Instr>& prog, const SameDeltas& sameDeltas) {
  const auto& at = g.exit_at[p];
  auto repeats = [&](const PGrid::Range& from, const PGrid::Range& to, const Deltas& period) {
    Deltas d = period;
    return shiftedRange(prog, from.a, from.b, prog, to.a, to.b, d, static_cast<int>(p)) && sameDeltas(d, period);
  };
  for (int64_t a = 0; a <= g.Wt; ++a)
    for (int64_t x = 0; x < static_cast<int64_t>(at[a].size()); ++x) {
      const PGrid::Range& to = at[a][x];
      if (!g.exit_by_x)
        for (int pc = to.a; pc < to.b; ++pc)
          if (!unmoved(g.ring, g.ring_named, prog[pc]))
            throw Fail(fmt::format("{} at the exit path of {} after {} tiles moves with the ring period",
                                   opText(*g.grid.schedule, *prog[pc].stmt), g.grid.procs[p].name, a));
      if (g.exit_by_x && x >= g.w0g + g.Pg && !repeats(at[a][x - g.Pg], to, g.ring))
        throw Fail(fmt::format("{}'s exit path does not repeat with the ring period {} (at ring end {})",
                               g.grid.procs[p].name, g.Pg, x));
      if (a >= g.tw + g.Pt && !repeats(at[a - g.Pt][x], to, g.tile))
        throw Fail(fmt::format("{}'s exit path does not repeat with the tile period {} (after {} tiles)",
                               g.grid.procs[p].name, g.Pt, a));
    }
}

void layOutPersistent(PGrid& g) {
  const size_t P = g.grid.procs.size();
  g.comb = g.grid;
  g.pos.assign(P, {});
  const size_t lanes = P * static_cast<size_t>(g.kinds);
  g.pre_at.assign(lanes, {});
  g.pre_open.assign(lanes, {});
  g.body_at.assign(lanes, {});
  g.post_at.assign(lanes, {});
  g.post_last_at.assign(static_cast<size_t>(g.last_m), std::vector<std::vector<std::vector<PGrid::Range>>>(lanes));
  g.exit_at.assign(lanes, {});
  g.first_at.assign(lanes, {});
  g.tail_at.assign(static_cast<size_t>(g.tail_m), std::vector<std::vector<std::vector<PGrid::Range>>>(lanes));
  g.first_tail_at.assign(static_cast<size_t>(g.tail_m), std::vector<std::vector<std::vector<PGrid::Range>>>(lanes));
  g.post_tail_at.assign(lanes, {});
  g.ring_pc.assign(P, {});
  g.ring_ref.assign(P, {});
  g.tile_pc.assign(P, {});
  g.commits_before.assign(P, {});
  g.last_ordinal.assign(P, 0);
  g.size.assign(P, 0);
  g.flow.next.assign(P, {});
  const int64_t Wt = g.Wt, Wg = g.Wg;
  for (size_t p = 0; p < P; ++p) {
    const TileShape& sh = g.shape[p];
    const auto& src = g.grid.procs[p].program;
    auto& prog = g.comb.procs[p].program;
    auto& pos = g.pos[p];
    auto& cb = g.commits_before[p];
    std::vector<int> ends;  // the last pc of every block that ends in a resolution
    std::vector<std::pair<int, int64_t>> to_tail;  // (pc, lane * Wt + t): the last pc of a copy that goes on at its tail
    int kind = 0;           // the kind of the copies appended (MergedLoops)
    int8_t first_flag = 0;  // appending first (kFirstCopy) or last (kTailCopy + d - 1) K iterations
    const std::vector<Instr>* from_kind = &src;
    // appends src[a, b) as a block at region r, tile t, ring position x, the
    // commits before it `base`; returns its start
    auto appendFrom = [&](const std::vector<Instr>& from, int a, int b, PcPos::Region r, int64_t t, int64_t x,
                          int64_t base) {
      const int start = static_cast<int>(prog.size());
      int64_t c = base;
      for (int pc = a; pc < b; ++pc) {
        prog.push_back(from[pc]);
        pos.push_back(
            {r, static_cast<int16_t>(t), static_cast<int16_t>(x), pc + 1 == b, static_cast<int8_t>(kind), first_flag});
        cb.push_back(static_cast<int>(c));
        c += from[pc].kind == InstrKind::MmaCommit;
      }
      return start;
    };
    auto append = [&](int a, int b, PcPos::Region r, int64_t t, int64_t x, int64_t base) {
      return appendFrom(*from_kind, a, b, r, t, x, base);
    };
    prog.clear();
    if (sh.kind == TileShape::Static) {
      append(0, sh.end, PcPos::Other, -1, -1, 0);
      g.size[p] = sh.end;
      pos.push_back({PcPos::Done, -1, -1, false});
      cb.push_back(commitsIn(src, 0, sh.end));
      const int n = sh.end;
      g.flow.next[p].resize(n);
      for (int i = 0; i < n; ++i) g.flow.next[p][i] = i + 1;
      // a process without the loops stays where it is under both shifts,
      // from where nothing it still runs moves with them
      for (auto* map : {&g.ring_pc[p], &g.tile_pc[p]}) {
        const bool ring = map == &g.ring_pc[p];
        map->assign(static_cast<size_t>(n) + 1, -1);
        (*map)[n] = n;
        for (int i = n - 1; i >= 0 && unmoved(ring ? g.ring : g.tile, ring ? g.ring_named : g.tile_named, src[i]);
             --i)
          (*map)[i] = i;
      }
      g.ring_ref[p] = g.ring_pc[p];
      continue;
    }
    const int prefix_c = commitsIn(src, 0, sh.prefix_end);
    append(0, sh.prefix_end, PcPos::Prefix, -1, -1, 0);
    const int exit_a = sh.tile_start[Wt], exit_b = sh.end;
    std::vector<int64_t> tiles_c(static_cast<size_t>(Wt) + 1, prefix_c);  // commits before tile t's pre part
    auto range = [](int a, int b) { return PGrid::Range{a, b}; };
    // the exit path after a tiles: the grid's, or its copy per tile count (exitsByTileCount)
    auto appendExit = [&](int64_t a, int64_t x, int64_t base) {
      const bool by_a = p < g.exit_by_a.size() && g.exit_by_a[p];
      if (by_a && (g.exit_by_x ? g.exit_x_text : g.exit_text).size() != P)
        throw Fail("internal: an exit path per tile count or ring end not built");
      const std::vector<Instr>& from = !by_a        ? src
                                       : g.exit_by_x ? g.exit_x_text[p][static_cast<size_t>(x < 0 ? Wg : x)]
                                                     : g.exit_text[p][static_cast<size_t>(a)];
      const int a0 = by_a ? 0 : exit_a, b0 = by_a ? static_cast<int>(from.size()) : exit_b;
      const int at = appendFrom(from, a0, b0, PcPos::Exit, a, x, base);
      return range(at, at + (b0 - a0));
    };
    if (g.kindsOf(p) > 1 && sh.kind != TileShape::Full)
      throw Fail(fmt::format("{} runs two kinds of tile without a K loop (not covered by the persistent-kernel proof "
                             "yet)",
                             g.grid.procs[p].name));
    if (sh.kind == TileShape::TileOnly) {
      g.body_at[p].assign(static_cast<size_t>(Wt), {});
      for (int64_t t = 0; t < Wt; ++t) {
        const int a = sh.tile_start[t], b = sh.tile_start[t + 1];
        tiles_c[t + 1] = tiles_c[t] + commitsIn(src, a, b);
        const int at = append(a, b, PcPos::Tile, t, -1, tiles_c[t]);
        g.body_at[p][t] = {range(at, at + (b - a))};
      }
      g.exit_at[p].assign(static_cast<size_t>(Wt) + 1, {});
      for (int64_t a = 0; a <= Wt; ++a) g.exit_at[p][a] = {appendExit(a, -1, tiles_c[a])};
    } else {
      const std::vector<int64_t> tiles_c0 = tiles_c;
      std::vector<int64_t> tiles_c_kind0;
      for (kind = 0; kind < g.kindsOf(p); ++kind) {
      // each kind's copies from its grid (MergedLoops); the exit paths are
      // kind 0's (the same text, checked in checkKinds)
      from_kind = kind ? &g.kgrid.procs[p].program : &src;
      const auto& src = *from_kind;
      const TileShape& sh = kind ? g.kshape[p] : g.shape[p];
      const size_t lp = g.lane(p, kind);
      tiles_c = tiles_c0;
      // commits per K iteration: the same in every tile (else the count before a pc depends on the path)
      // A process that skips tiles: the numbers of its MMA commits laid
      // out here are not increasing along its runs, so the explorer reads
      // none of them: its completed groups are numbered in issue order from
      // the state (Model::ordinal_commits, set in PersistentExplorer), of
      // which only the order is read, renumbered in normalize. The one
      // reader of the absolute count, lm.mma_wait (knowCompleted), must not
      // run for it (docs/z3.md "Commit ordinals in issue order").
      // (Without a commit that arrives on a barrier no completion of its
      // own is numbered: lm.mma_wait then sets only its observed number,
      // which normalize forgets, as before.)
      if (sh.step > 1 && commitsToBarrier(src, 0, sh.end)) {
        if (std::any_of(src.begin(), src.begin() + sh.end, [](const Instr& in) { return in.kind == InstrKind::MmaWait; }))
          throw Fail(fmt::format("{} skips tiles, commits MMA groups that arrive on a barrier and waits for its MMA "
                                 "groups (lm.mma_wait) (not covered by the persistent-kernel proof yet)",
                                 g.grid.procs[p].name));
        if (!g.ordinal_commits)
          throw Fail(fmt::format("{} skips tiles and commits MMA groups that arrive on a barrier (explored, its "
                                 "commits numbered in issue order, only with a proof budget of at least {} work "
                                 "units: such explorations cost more than the default)",
                                 g.grid.procs[p].name, g.ordinal_commits_from));
      }
      std::vector<int64_t> body_c(static_cast<size_t>(Wg) + 1, 0);  // before ring index g
      for (int64_t gi = 0; gi < Wg; ++gi) {
        const int c = commitsIn(src, sh.head[sh.first][gi], sh.head[sh.first][gi + 1]);
        for (int64_t t = sh.first + sh.step; t < Wt; t += sh.step)
          if (commitsIn(src, sh.head[t][gi], sh.head[t][gi + 1]) != c)
            throw Fail(fmt::format("{} commits a different number of MMA groups in the same K iteration of "
                                   "different tiles",
                                   g.grid.procs[p].name));
        body_c[gi + 1] = body_c[gi] + c;
      }
      std::vector<int64_t> pre_c(static_cast<size_t>(Wt), 0), post_c(static_cast<size_t>(Wt), 0);
      for (int64_t t = 0; t < Wt; ++t) {
        if (!sh.runs(t)) {
          tiles_c[t + 1] = tiles_c[t];
          continue;
        }
        pre_c[t] = commitsIn(src, sh.tile_start[t], sh.head[t][0]);
        post_c[t] = commitsIn(src, sh.head[t][Wg], sh.tile_start[t + 1]);
        tiles_c[t + 1] = tiles_c[t] + pre_c[t] + post_c[t];
      }
      g.body_at[lp].assign(static_cast<size_t>(Wt), std::vector<PGrid::Range>(static_cast<size_t>(Wg)));
      for (int64_t t = sh.first; t < Wt; t += sh.step)
        for (int64_t gi = 0; gi < Wg; ++gi) {
          const int a = sh.head[t][gi], b = sh.head[t][gi + 1];
          const int at = append(a, b, PcPos::Body, t, gi, tiles_c[t] + pre_c[t] + body_c[gi]);
          g.body_at[lp][t][gi] = range(at, at + (b - a));
        }
      // the tiles' first K iterations, a copy per ring start (firstIterations),
      // and their last, a copy per ring position (tailIterations); each
      // commits as many MMA groups as the grid's iteration there
      // (and a tile's first K iteration d from its end, firstTailIterationsAt)
      std::vector<int8_t> copies{kFirstCopy};
      for (int d = 1; d <= g.tail_m; ++d) copies.push_back(static_cast<int8_t>(kTailCopy + d - 1));
      for (int d = 1; d <= g.tail_m; ++d) copies.push_back(static_cast<int8_t>(kFirstTailCopy + d - 1));
      for (const int8_t copy : copies) {
        const bool tail = copy >= kTailCopy;
        const bool first_tail = copy >= kFirstTailCopy;
        const std::vector<char>& has = first_tail ? g.first_tail_x : tail ? g.tail_x : g.first_x;
        if (has.empty() || !has[p]) continue;
        auto& at_ = first_tail ? g.first_tail_at[static_cast<size_t>(copy - kFirstTailCopy)][lp]
                    : tail     ? g.tail_at[static_cast<size_t>(copy - kTailCopy)][lp]
                               : g.first_at[lp];
        const auto& texts = (first_tail ? g.first_tail_text[static_cast<size_t>(copy - kFirstTailCopy)]
                             : tail     ? g.tail_text[static_cast<size_t>(copy - kTailCopy)]
                                        : g.first_text)[kind][p];
        at_.assign(static_cast<size_t>(Wt), std::vector<PGrid::Range>(static_cast<size_t>(Wg)));
        first_flag = copy;
        for (int64_t t = sh.first; t < Wt; t += sh.step)
          for (int64_t gi = 0; gi < Wg; ++gi) {
            const std::vector<Instr>& text = texts[t][gi];
            // (any number where no commit's number is read,
            // trip::mmaCommitNumbersUnread; fewer where they are read in
            // order alone, trip::mmaCommitNumbersReadInOrder: the copy's
            // numbers lie below the next block's, so they grow along every
            // run, skipping those of the groups it leaves out)
            const int64_t here = commitsIn(text, 0, static_cast<int>(text.size())), grid = body_c[gi + 1] - body_c[gi];
            const bool in_order = p < g.commits_in_order.size() && g.commits_in_order[p];
            if (tail && !g.commits_unread && (in_order ? here > grid : here != grid))
              throw Fail(fmt::format("a last K iteration of {} commits {} MMA groups", g.grid.procs[p].name,
                                     in_order ? "more" : "a different number of"));
            const int at = appendFrom(text, 0, static_cast<int>(text.size()), PcPos::Body, t, gi,
                                      tiles_c[t] + pre_c[t] + body_c[gi]);
            at_[t][gi] = range(at, at + static_cast<int>(text.size()));
          }
        first_flag = 0;
      }
      g.pre_at[lp].assign(static_cast<size_t>(Wt), std::vector<PGrid::Range>(static_cast<size_t>(Wg) + 1));
      g.post_at[lp] = g.pre_at[lp];
      g.pre_open[lp].assign(static_cast<size_t>(Wt), {});
      for (int64_t t = sh.first; t < Wt; t += sh.step) {
        if (sh.step == 1) continue;
        // One copy per tile, its ring start open (read when it is left).
        const int a = sh.tile_start[t], b = sh.head[t][0];
        const int at = append(a, b, PcPos::PreOpen, t, -1, tiles_c[t]);
        g.pre_open[lp][t] = range(at, at + (b - a));
      }
      // A process that skips tiles: one copy of each part after the K loop
      // and of each exit path, with no ring position (x = -1; the commit
      // numbers are read by nothing, above).
      const bool skips = sh.step > 1;
      const int64_t last_x = skips ? 0 : Wg;
      // a part after the K loop that reads the ring end: a copy per ring
      // end x with its own text (postsByRingEnd; x = 0 is entered by no run)
      const bool by_x = !g.post_x.empty() && g.post_x[p];
      g.post_tail_at[lp].assign(static_cast<size_t>(Wt), {});
      for (int64_t t = sh.first; t < Wt; t += sh.step) {
        const int c = sh.head[t][Wg], d = sh.tile_start[t + 1];
        // (merge_tails) the copies per ring end are one text from `cut` on:
        // a process that skips tiles reads no ring position after the part
        // (its next tile's ring start is the end of the tile before that
        // one; its exit path has one copy), so one copy of the rest serves
        // every ring end (docs/z3.md "One tail for the parts after the K loop")
        int cut = d - c;
        if (by_x && skips && g.merge_tails) {
          const auto& texts = g.post_text[kind][p][t];
          cut = 0;
          for (int64_t x = 1; x < Wg; ++x)
            for (int i = cut; i < d - c; ++i)
              if (!sameInstr(texts[x][i], texts[Wg][i])) cut = i + 1;
          cut = std::min(std::max(cut, 1), d - c);  // (the copy itself is entered: never empty)
        }
        for (int64_t x = 0; x <= (by_x ? Wg : last_x); ++x) {
          const int a = sh.tile_start[t], b = sh.head[t][0];
          if (!skips) {
            // (a part that reads the ring start: its copy per ring start, presByRingStart)
            const bool pre_by_x = !g.pre_x.empty() && g.pre_x[p];
            const std::vector<Instr>* text = pre_by_x ? &g.pre_text[0][p][t][x] : nullptr;
            const int n = text ? static_cast<int>(text->size()) : b - a;
            const int at = text ? appendFrom(*text, 0, n, PcPos::Pre, t, x, tiles_c[t] + body_c[x])
                                : append(a, b, PcPos::Pre, t, x, tiles_c[t] + body_c[x]);
            g.pre_at[lp][t][x] = range(at, at + n);
          }
          const int64_t base = tiles_c[t] + pre_c[t] + body_c[x];
          int at2;
          if (by_x) {
            const std::vector<Instr>& text = g.post_text[kind][p][t][x > 0 ? x : Wg];
            if (static_cast<int>(text.size()) != d - c) throw Fail("internal: a part after the K loop per ring end");
            at2 = appendFrom(text, 0, cut, PcPos::Post, t, x, base);
            if (cut < d - c) {  // goes on at the tail, no block end here
              pos.back().last = false;
              to_tail.push_back({static_cast<int>(prog.size()) - 1, static_cast<int64_t>(lp) * Wt + t});
            }
          } else {
            at2 = append(c, d, PcPos::Post, t, skips ? -1 : x, base);
          }
          g.post_at[lp][t][x] = range(at2, at2 + (by_x ? cut : d - c));
        }
        if (by_x && cut < d - c) {
          // (the numbers of its MMA commits are read by nothing: it skips tiles, above)
          const std::vector<Instr>& text = g.post_text[kind][p][t][Wg];
          const int at = appendFrom(text, cut, d - c, PcPos::Post, t, -1,
                                    tiles_c[t] + pre_c[t] + body_c[0] + commitsIn(text, 0, cut));
          g.post_tail_at[lp][t] = range(at, at + (d - c - cut));
        }
      }
      for (int64_t depth = 1; depth <= g.last_m; ++depth) {
        // the last tiles' parts after the K loop, one copy per depth: each
        // must commit as many MMA groups as the other tiles' (the counts
        // before the exit path are path-independent)
        auto& at_ = g.post_last_at[static_cast<size_t>(depth - 1)][lp];
        at_.assign(static_cast<size_t>(Wt), std::vector<PGrid::Range>(static_cast<size_t>(Wg) + 1));
        first_flag = static_cast<int8_t>(depth - 1);
        for (int64_t t = 0; t < Wt; ++t) {
          const size_t li = PGrid::lastGrid(depth, t % 2);
          const TileShape& ls = g.last_shape[li][p];
          const auto& lsrc = g.last[li].procs[p].program;
          const int c = ls.head[t][Wg], d = ls.tile_start[t + 1];
          // (a copy per ring end where the text reads it: lastPostsByRingEnd)
          const bool by_x = !g.post_last_x.empty() && g.post_last_x[p];
          for (int64_t x = 0; x <= Wg; ++x) {
            const std::vector<Instr>* text =
                by_x ? &g.post_last_text[static_cast<size_t>(depth - 1)][p][t][x > 0 ? x : Wg] : nullptr;
            const int n = text ? static_cast<int>(text->size()) : d - c;
            if ((text ? commitsIn(*text, 0, n) : commitsIn(lsrc, c, d)) != post_c[t]) g.last_ordinal[p] = 1;
            const int64_t base = tiles_c[t] + pre_c[t] + body_c[x];
            const int at = text ? appendFrom(*text, 0, n, PcPos::PostLast, t, x, base)
                                : appendFrom(lsrc, c, d, PcPos::PostLast, t, x, base);
            at_[t][x] = range(at, at + n);
          }
        }
        first_flag = 0;
      }
      if (kind > 0) {
        // the MMA commits before every part: path-independent only if the kinds commit alike
        if (tiles_c != tiles_c_kind0)
          throw Fail(fmt::format("{} commits a different number of MMA groups in the two kinds of tile",
                                 g.grid.procs[p].name));
        g.exit_at[lp] = g.exit_at[g.lane(p, 0)];
        continue;
      }
      tiles_c_kind0 = tiles_c;
      g.exit_at[lp].assign(static_cast<size_t>(Wt) + 1, std::vector<PGrid::Range>(static_cast<size_t>(Wg) + 1));
      for (int64_t a = 0; a <= Wt; ++a)
        for (int64_t x = 0; x <= last_x; ++x) g.exit_at[lp][a][x] = appendExit(a, skips ? -1 : x, tiles_c[a] + body_c[x]);
      }
      kind = 0;
    }
    const int n = static_cast<int>(prog.size());
    g.size[p] = n;
    if (g.last_ordinal[p]) refuseMmaWaitsWithOrdinals(g, p);
    const bool fullp = sh.kind == TileShape::Full;
    for (int64_t a = 0; a <= Wt; ++a)
      for (int64_t x = 0; x <= (fullp ? Wg : 0); ++x) {
        pos.push_back({PcPos::Done, static_cast<int16_t>(a), static_cast<int16_t>(fullp ? x : -1), false});
        cb.push_back(0);
      }
    const int all = static_cast<int>(pos.size());
    g.flow.next[p].resize(n);
    for (int i = 0; i < n; ++i) {
      g.flow.next[p][i] = pos[i].last ? n : i + 1;  // block ends: resolved by the explorer
      if (pos[i].last && pos[i].region == PcPos::Exit) {  // the end of the run
        pos[i].last = false;
        g.flow.next[p][i] = g.doneAt(p, pos[i].t, std::max<int>(pos[i].x, 0));
      }
    }
    for (const auto& [pc, lt] : to_tail) g.flow.next[p][pc] = g.post_tail_at[lt / Wt][lt % Wt].a;
    // the shifts as pc maps (blocks of one kind have one length: same offsets)
    auto& ring = g.ring_pc[p];
    auto& tile = g.tile_pc[p];
    ring.assign(static_cast<size_t>(all), -1);
    tile.assign(static_cast<size_t>(all), -1);
    auto& ref = g.ring_ref[p];
    ref.assign(static_cast<size_t>(all), -2);  // -2: as ring
    auto startOf = [&](const PcPos& q) -> int {
      const size_t lp = g.lane(p, q.kind);  // the copies of q's kind
      switch (q.region) {
        case PcPos::Done: return g.doneAt(p, q.t, std::max<int>(q.x, 0));
        case PcPos::Pre: return g.pre_at[lp][q.t][q.x].a;
        case PcPos::PreOpen: return g.pre_open[lp][q.t].a;
        case PcPos::Post:
          // (merge_tails: x = -1 in the tail of copies per ring end)
          if (q.x < 0 && !g.post_tail_at[lp].empty() && g.post_tail_at[lp][q.t].a < g.post_tail_at[lp][q.t].b)
            return g.post_tail_at[lp][q.t].a;
          return g.post_at[lp][q.t][std::max<int>(q.x, 0)].a;
        case PcPos::PostLast: return g.post_last_at[static_cast<size_t>(q.first)][lp][q.t][q.x].a;
        case PcPos::Body:
          if (q.first >= kFirstTailCopy)
            return g.first_tail_at[static_cast<size_t>(q.tailDistance() - 1)][lp][q.t][q.x].a;
          if (q.tailDistance() > 0) return g.tail_at[static_cast<size_t>(q.tailDistance() - 1)][lp][q.t][q.x].a;
          return (q.first == kFirstCopy ? g.first_at : g.body_at)[lp][q.t][q.x].a;
        case PcPos::Tile: return g.body_at[lp][q.t][0].a;
        case PcPos::Exit: return g.exit_at[lp][q.t][std::max<int>(q.x, 0)].a;
        default: return -1;
      }
    };
    for (int i = 0; i < all; ++i) {
      const PcPos& q = pos[i];
      const int off = i - startOf(q);
      if (q.region == PcPos::Prefix) {
        // A process without the K loop stays in its prefix under the ring
        // shift: nothing of its whole program moves with the ring (checked
        // in gridCounts, prefix included), as a process without the loops
        // stays where it is (docs/z3.md "A prefix that the ring shift keeps").
        if (sh.kind == TileShape::TileOnly) ring[i] = i;
        continue;
      }
      PcPos r = q;  // ring: x back by Pg
      // (the tail of copies per ring end, x = -1, has no ring position:
      // nothing of it moves with the ring, checked below)
      const bool post_by_x = q.region == PcPos::Post && !g.post_x.empty() && g.post_x[p] && q.x >= 0;
      if (sh.kind == TileShape::TileOnly || (sh.step > 1 && q.region != PcPos::Body && !post_by_x)) {
        // checked: nothing of it moves with the ring (a process that skips
        // tiles: the ring start it reads next, an end, moves)
        ring[i] = i;
      } else if (q.x >= g.w0g + g.Pg && g.periodsHoldOn(p, q, q.x - g.Pg)) {
        r.x = static_cast<int16_t>(q.x - g.Pg);
        ring[i] = startOf(r) + off;
      }
      const bool pre_by_x = q.region == PcPos::Pre && !g.pre_x.empty() && g.pre_x[p];
      // (the last tiles' copies per ring end differ by x: async work of one
      // moves as the ring shift maps its copy, where it does)
      const bool last_by_x = q.region == PcPos::PostLast && !g.post_last_x.empty() && g.post_last_x[p];
      // (and the exit paths per ring end, exitsByRingEnd)
      const bool exit_by_x = q.region == PcPos::Exit && g.exit_by_x && g.exit_by_a[p];
      if (sh.kind == TileShape::Full && q.region != PcPos::Body && q.region != PcPos::Done && !pre_by_x && !last_by_x &&
          !exit_by_x) {
        // the text does not depend on x (x = -1: one copy, no ring position)
        r.x = static_cast<int16_t>(q.x < 0 ? q.x : std::max<int64_t>(0, q.x - g.Pg));
        ref[i] = startOf(r) + off;
      }
      PcPos u = q;  // tile: t back by Pt (slope: from the ring positions compared, slopedTilePeriod)
      if (q.t >= g.tw + g.Pt && g.periodsHoldOn(p, q, q.x)) {
        u.t = static_cast<int16_t>(q.t - g.Pt);
        tile[i] = startOf(u) + off;
      }
    }
    for (int i = 0; i < all; ++i)
      if (ref[i] == -2) ref[i] = ring[i];
    // the first K iterations: the copy at ring start x is the one at x -
    // Pg one ring period on, the one of tile t the one of tile t - Pt one
    // tile period on (the shifts map them so), with the grid's deltas;
    // with the periods at the ring positions runs reach (PGrid::slope),
    // where the shifts apply only (the pc maps' condition, periodsHoldOn,
    // as for the copies per ring start below): a copy no shift maps there
    // is explored as it is. So are the copies near a tile's end and the
    // first ones near it (docs/z3.md "Sloped copies near a tile's end").
    // (d learned from a copy of `ref`: the same where ref has a delta, and
    // no other delta than 0, which is what ref says by having none)
    auto sameDeltas = [](const Deltas& d, const Deltas& ref) {
      auto same = [](const auto& a, const auto& b) {
        return std::all_of(a.begin(), a.end(), [&](const auto& kv) { return kv.second == Deltas::of(b, kv.first); });
      };
      return same(d.slot_phase, ref.slot_phase) && same(d.view_index, ref.view_index) &&
             same(d.view_gen, ref.view_gen) && same(d.view_gen_stage, ref.view_gen_stage);
    };
    auto copyPos = [](int64_t t, int64_t x, int kind, int first) {
      PcPos q;
      q.region = PcPos::Body;
      q.t = static_cast<int16_t>(t);
      q.x = static_cast<int16_t>(x);
      q.kind = static_cast<int8_t>(kind);
      q.first = static_cast<int8_t>(first);
      return q;
    };
    // (which 0: the first iterations; d = 1..tail_m: the iterations d from
    // the end; tail_m + d: the first iterations d from the end)
    for (int which = 0; which <= 2 * g.tail_m; ++which) {
      const bool first_tail = which > g.tail_m;
      const std::vector<char>& has = first_tail ? g.first_tail_x : which ? g.tail_x : g.first_x;
      if (has.empty() || !has[p]) continue;
      const int d = first_tail ? which - g.tail_m : which;
      const std::string what = fmt::format("{}{}", first_tail ? "first and " : "",
                                           d == 0 ? "first" : d == 1 ? "last" : fmt::format("{}th-last", d));
      for (int k = 0; k < g.kindsOf(p); ++k)
        for (int64_t t = sh.first; t < Wt; t += sh.step)
          for (int64_t x = 0; x < Wg; ++x) {
            const auto& fa = (first_tail ? g.first_tail_at[static_cast<size_t>(d - 1)]
                              : d        ? g.tail_at[static_cast<size_t>(d - 1)]
                                         : g.first_at)[g.lane(p, k)];
            const PGrid::Range& to = fa[t][x];
            const PcPos at = copyPos(t, x, k, first_tail ? kFirstTailCopy + d - 1 : d ? kTailCopy + d - 1 : kFirstCopy);
            if (x >= g.w0g + g.Pg && g.periodsHoldOn(p, at, x - g.Pg)) {
              const PGrid::Range& from = fa[t][x - g.Pg];
              Deltas d = g.ring;
              if (!shiftedRange(prog, from.a, from.b, prog, to.a, to.b, d, static_cast<int>(p)) || !sameDeltas(d, g.ring))
                throw Fail(fmt::format("{}'s {} K iteration does not repeat with the ring period {}",
                                       g.grid.procs[p].name, what, g.Pg));
            }
            if (t >= g.tw + g.Pt && sh.runs(t - g.Pt) && g.periodsHoldOn(p, at, x)) {
              const PGrid::Range& from = fa[t - g.Pt][x];
              Deltas d = g.tile;
              if (!shiftedRange(prog, from.a, from.b, prog, to.a, to.b, d, static_cast<int>(p)) || !sameDeltas(d, g.tile))
                throw Fail(fmt::format("{}'s {} K iteration does not repeat with the tile period {}",
                                       g.grid.procs[p].name, what, g.Pt));
            }
          }
    }
    // the copies per ring end: copy x is copy x - Pg one ring period on
    // (the ring shift maps one to the other), with the grid's deltas, and
    // the copy of tile t the one of tile t - Pt one tile period on where
    // the tile shift maps one to the other (its condition, periodsHoldOn)
    if (!g.post_x.empty() && g.post_x[p])
      for (int k = 0; k < g.kindsOf(p); ++k)
        for (int64_t t = sh.first; t < Wt; t += sh.step)
          for (int64_t x = std::max<int64_t>(1, g.post_unentered); x <= Wg; ++x) {
            const auto& at = g.post_at[g.lane(p, k)];
            const PGrid::Range& to = at[t][x];
            auto repeats = [&](const PGrid::Range& from, const Deltas& period) {
              Deltas d = period;
              return shiftedRange(prog, from.a, from.b, prog, to.a, to.b, d, static_cast<int>(p)) &&
                     sameDeltas(d, period);
            };
            if (x >= g.w0g + g.Pg && !repeats(at[t][x - g.Pg], g.ring))
              throw Fail(fmt::format("{}'s part after the K loop does not repeat with the ring period {}",
                                     g.grid.procs[p].name, g.Pg));
            PcPos q;
            q.region = PcPos::Post;
            q.t = static_cast<int16_t>(t);
            q.x = static_cast<int16_t>(x);
            if (sh.step == 1 && t >= g.tw + g.Pt && g.periodsHoldOn(p, q, x) && !repeats(at[t - g.Pt][x], g.tile))
              throw Fail(fmt::format("{}'s part after the K loop does not repeat with the tile period {}",
                                     g.grid.procs[p].name, g.Pt));
          }
    // the exit path per tile count (exitsByTileCount): copy a is copy a -
    // Pt one tile period on (the tile shift maps one to the other), with
    // the grid's deltas; every copy stays put under the ring shift (its
    // copies per ring end are one text)
    if (p < g.exit_by_a.size() && g.exit_by_a[p]) checkExitCopiesRepeat(g, p, prog, sameDeltas);
    // the last tiles' copies per ring end (lastPostsByRingEnd): copy x is
    // copy x - Pg one ring period on, the copy of tile t the one of tile t -
    // Pt one tile period on (the shifts map them so), with the grid's deltas
    if (!g.post_last_x.empty() && g.post_last_x[p])
      for (int64_t depth = 1; depth <= g.last_m; ++depth) {
        const auto& fa = g.post_last_at[static_cast<size_t>(depth - 1)][p];
        for (int64_t t = 0; t < Wt; ++t)
          for (int64_t x = 0; x <= Wg; ++x) {
            auto repeats = [&](const PGrid::Range& from, const Deltas& period) {
              Deltas d = period;
              const PGrid::Range& to = fa[t][x];
              return shiftedRange(prog, from.a, from.b, prog, to.a, to.b, d, static_cast<int>(p)) &&
                     sameDeltas(d, period);
            };
            if (x >= g.w0g + g.Pg && !repeats(fa[t][x - g.Pg], g.ring))
              throw Fail(fmt::format("{}'s part after the K loop of the {}-th tile from the end does not repeat with "
                                     "the ring period {}",
                                     g.grid.procs[p].name, depth, g.Pg));
            PcPos q;
            q.region = PcPos::PostLast;
            q.t = static_cast<int16_t>(t);
            q.x = static_cast<int16_t>(x);
            if (t >= g.tw + g.Pt && g.periodsHoldOn(p, q, x) && !repeats(fa[t - g.Pt][x], g.tile))
              throw Fail(fmt::format("{}'s part after the K loop of the {}-th tile from the end does not repeat with "
                                     "the tile period {}",
                                     g.grid.procs[p].name, depth, g.Pt));
          }
      }
    // the copies per ring start (presByRingStart): copy x is copy x - Pg
    // one ring period on, the copy of tile t the one of tile t - Pt one
    // tile period on (the shifts map them so), with the grid's deltas;
    // with the periods at the ring positions runs reach (PGrid::slope),
    // where the shifts apply only: a copy whose image the ring shift's
    // condition (periodsHoldOn) rejects, or the tile shift's, is explored
    // as it is, never mapped
    if (!g.pre_x.empty() && g.pre_x[p])
      for (int64_t t = sh.first; t < Wt; t += sh.step)
        for (int64_t x = 1; x <= Wg; ++x) {
          const PGrid::Range& to = g.pre_at[p][t][x];
          PcPos at;
          at.region = PcPos::Pre;
          at.t = static_cast<int16_t>(t);
          at.x = static_cast<int16_t>(x);
          if (x >= g.w0g + g.Pg && g.periodsHoldOn(p, at, x - g.Pg)) {
            const PGrid::Range& from = g.pre_at[p][t][x - g.Pg];
            Deltas d = g.ring;
            if (!shiftedRange(prog, from.a, from.b, prog, to.a, to.b, d, static_cast<int>(p)) || !sameDeltas(d, g.ring))
              throw Fail(fmt::format("{}'s part before the K loop does not repeat with the ring period {}",
                                     g.grid.procs[p].name, g.Pg));
          }
          if (t >= g.tw + g.Pt && sh.runs(t - g.Pt) && g.periodsHoldOn(p, at, x)) {
            const PGrid::Range& from = g.pre_at[p][t - g.Pt][x];
            Deltas d = g.tile;
            if (!shiftedRange(prog, from.a, from.b, prog, to.a, to.b, d, static_cast<int>(p)) || !sameDeltas(d, g.tile))
              throw Fail(fmt::format("{}'s part before the K loop does not repeat with the tile period {}",
                                     g.grid.procs[p].name, g.Pt));
          }
        }
    // the tail of those copies (merge_tails) stays where it is under the
    // ring shift: it must be itself shifted by the ring's deltas (every
    // slot, view and generation it names moves by none)
    for (int k = 0; k < g.kindsOf(p); ++k)
      for (const PGrid::Range& r : g.post_tail_at[g.lane(p, k)]) {
        if (r.a >= r.b) continue;
        Deltas d = g.ring;
        if (!shiftedRange(prog, r.a, r.b, prog, r.a, r.b, d, static_cast<int>(p)) || !sameDeltas(d, g.ring))
          throw Fail(fmt::format("the end of {}'s part after the K loop moves with the ring period {}",
                                 g.grid.procs[p].name, g.Pg));
      }
  }
}

// The explored unknowns: the end of every tile's K loop (its ring index)
// and the tile count. Each is fixed (>= 0) or open with a lower bound lb
// (-(lb + 1)); an end no process will read again is kIrrelevant.
constexpr int32_t kIrrelevant = INT32_MIN;
struct Unknowns {
  std::vector<int32_t> end;  // [t]
  int32_t tiles = -1;
};

// "The unknown is above n" / "is n": false when its value says otherwise;
// an open one is narrowed.
bool allowAbove(int32_t& v, int64_t n) {
  if (v == kIrrelevant) throw Fail("internal: a tile's end is read after it was dropped");
  if (v >= 0) return v > n;
  v = -static_cast<int32_t>(std::max<int64_t>(-v - 1, n + 1)) - 1;
  return true;
}
bool allowEqual(int32_t& v, int64_t n) {
  if (v == kIrrelevant) throw Fail("internal: a tile's end is read after it was dropped");
  if (v >= 0) return v == n;
  if (-v - 1 > n) return false;
  v = static_cast<int32_t>(n);
  return true;
}

// Where a process goes when it finishes a block: one branch per value of
// the unknowns that the choice fixes. `small`: the branch leaves the window
// (0: the ring, 1: the tiles).
struct Branch {
  int pc;
  Unknowns u;
  int small = -1;
};

// What the explorations of one grid share (docs/z3.md "One layout for
// every tile length"): the model of the combined program, its
// predecessors, the canonical writes and the reducer's tables. None of
// them depends on the tile length an exploration fixes: they are laid out
// with the unknowns open (every branch), which every length allows.

// A shift by part of the tile period with the processes permuted (docs/z3.md
// "A shift by one tile that permutes the processes"): ping-pong's consumer
// 0 runs the even tiles and consumer 1 the odd ones, so the state with
// every tile t one tile back (t - h) and the two consumers exchanged has the
// same futures, moved alike. perm[p]: the process that takes p's place;
// pc[p][pc]: its pc there (-1: this pc does not move); slot[k] and
// slot_delta[k]: slot k's fields go to slot[k], its completed phases less
// slot_delta[k]; commits[p]: p's MMA commit numbers less this; tracked and
// write: how the atoms' fields and the data tags move.
struct HalfShift {
  int64_t h = 0, t0 = 0;  // the shift, and the first tile it keeps (tiles >= t0 + h move)
  // Ring positions: every position x >= dx + xlo (of a pc that moves with
  // the ring, and every fixed tile end) goes to x - dx; slots and atoms
  // rotate with it (sigma, beta). dx = 0: the tiles only.
  int64_t dx = 0, xlo = 0;
  std::vector<int> perm;
  std::vector<std::vector<int>> pc;
  std::vector<int> slot;
  std::vector<int64_t> slot_delta;
  std::vector<int64_t> commits;
  std::map<int, int64_t> named;  // generations per named barrier the shift removes
  std::vector<int32_t> tracked;
  std::vector<int32_t> write;
};

struct PersistentShared {
  PersistentShared(const PGrid& g, double cpu) : cpu0(cpu), m(g.comb, &g.flow) {}
  double cpu0;  // the proof thread's CPU seconds before the layout (CAKE_PERSIST_STATS)
  Model m;
  sim::BranchLayout branches;
  std::optional<sim::Reducer> reducer;
  std::vector<int32_t> canon;  // write id -> the equivalent write with the largest pc
  std::vector<SymPair> sym;    // disjoint pairs of interchangeable processes
  std::vector<HalfShift> half;  // shifts by part of the tile period, processes permuted (by dx, ascending)
  bool built = false;
};

class PersistentExplorer {
 public:
  // Tiles of `len` K iterations each (fixed), or of at least `-len` (len <= 0).
  // `shared`: the layout of the grid's explorations, made by the first.
  PersistentExplorer(const PGrid& g, int64_t len, const TripProofOptions& opts, ProofBudget& budget,
                     std::shared_ptr<PersistentShared>& shared)
      : g_(g),
        sh_(shared ? shared : (shared = std::make_shared<PersistentShared>(g, budget.cpuSeconds()))),
        m_(sh_->m),
        branches_(sh_->branches),
        reducer_(sh_->reducer),
        canon_(sh_->canon),
        sym_(sh_->sym),
        opts_(opts),
        budget_(budget),
        len_(len) {
    if (sh_->built) {
      // The shifts were checked against the first exploration's
      // resolutions; each is checked again against this one's (its tile
      // length), and kept only where they agree.
      layout_ = true;
      uint64_t walks = 0;
      for (const HalfShift& hs : sh_->half) {
        ++walks;
        if (branchesMove(hs) && keepsEnds(hs)) half_.push_back(&hs);
      }
      layout_ = false;
      ProofBudget::Tally t;
      for (int p = 0; p < m_.P; ++p) t.window_ops += 5 * walks * static_cast<uint64_t>(m_.programSize(p));
      budget_.add(t);
      work0_ = work();
      return;
    }
    sh_->built = true;
    // Model's own tables follow one predecessor per pc: the counts of the
    // layout are the path-independent ones.
    for (int p = 0; p < m_.P; ++p) {
      if (g_.shape[p].kind == TileShape::Static) continue;
      m_.commits_before[p] = g_.commits_before[p];
      for (int pc = 0; pc < m_.programSize(p); ++pc)
        m_.commit_seq[p][pc] = m_.instr(p, pc).kind == InstrKind::MmaCommit ? m_.commits_before[p][pc] : -1;
    }
    // A process that skips tiles: its completions numbered in issue order
    // (layOutPersistent: it has no lm.mma_wait).
    m_.ordinal_commits.assign(static_cast<size_t>(m_.P), 0);
    // So is one whose last tiles commit otherwise (PGrid::last_ordinal).
    for (int p = 0; p < m_.P; ++p)
      m_.ordinal_commits[p] = full(p) && (g_.shape[p].step > 1 || g_.last_ordinal[static_cast<size_t>(p)]);
    layout_ = true;  // resolve() gives every branch (the unknowns open)
    setPredecessors();
    setCanonicalWrites();
    if (opts_.reduce) {
      setBranches();
      reducer_.emplace(m_, branches_);
      reducer_->memoEveryKey(opts_.memo_sets);
      reducer_->phaseWindows(opts_.phase_windows);
      reducer_->localFirst(opts_.local_first);
    }
    if (opts_.symmetry) setSymmetry();
    uint64_t half_walks = 0;  // programs walked looking for the shift below
    if (opts_.half_shift) half_walks = setHalfShift();
    for (const HalfShift& hs : sh_->half)
      if (keepsEnds(hs)) half_.push_back(&hs);
    layout_ = false;
    ProofBudget::Tally t;  // the layout above walks the combined programs: charged once per grid
    for (int p = 0; p < m_.P; ++p) t.laid_out += static_cast<uint64_t>(m_.programSize(p));
    // the walks of setHalfShift: a comparison of two instructions per pc,
    // charged as 5 window operations (100 units) an instruction walked
    t.window_ops += 5 * half_walks * t.laid_out;
    budget_.add(t);
    if (std::getenv("CAKE_PERSIST_STATS"))
    {
      std::string pairs;
      for (const SymPair& sp : sym_) pairs += fmt::format(" {}<->{}", m_.sys.procs[sp.p].name, m_.sys.procs[sp.q].name);
      fmt::print(stderr,
                 "persist-stats: layout of {} instructions, {:.3f} s of CPU (with the model's); interchangeable:{}; "
                 "shift by part of the tile period: {}\n",
                 t.laid_out, budget_.cpuSeconds() - sh_->cpu0, pairs.empty() ? " none" : pairs,
                 half_.empty() ? "none (" + half_why_ + ")"
                               : halfShiftsText() + (half_why_.empty() ? "" : " (last refused: " + half_why_ + ")"));
    }
  }

  uint64_t run() {
    if (opts_.meets && opts_.meets->refused.empty())
      opts_.meets->refused = "a persistent grid's exploration records no writers its reads meet";
    Unknowns u0;
    u0.end.assign(static_cast<size_t>(g_.Wt), -1);
    if (g_.fixed_tiles >= 0) u0.tiles = static_cast<int32_t>(g_.fixed_tiles);
    std::vector<std::pair<State, Unknowns>> init = {{sim::initialState(m_), u0}};
    for (int p = 0; p < m_.P; ++p) {
      if (g_.shape[p].kind == TileShape::Static || g_.shape[p].prefix_end > 0) continue;
      std::vector<std::pair<State, Unknowns>> next;
      for (auto& [s, u] : init)
        for (const Branch& b : startTiles(p, u)) {
          startInLayout(p, b);
          next.push_back({withPc(s, p, b), b.u});
        }
      init = std::move(next);
    }
    // (once every process is at its first tile: before, a process not
    // placed yet is at pc 0, a part it may never run)
    std::erase_if(init, [&](const auto& su) {
      for (int p = 0; p < m_.P; ++p)
        if (!kindsInTileOrder(su.first, p, -1)) return true;
      return false;
    });
    for (auto& [s, u] : init) graph_.insert(normalize(std::move(s), std::move(u)).first, -1, {});
    const uint64_t per_state = init.front().first.v.size() * 4 + 64 + 48 + 4 * g_.Wt;
    const sim::Reducer* por = reducer_ && reducer_->active() ? &*reducer_ : nullptr;
    // The cycle proviso (docs/z3.md step 13): the states that were not
    // expanded fully must span no cycle. Checked on the explored graph;
    // each cycle found is cut by expanding the source of one of its edges
    // fully, whose new successors are explored in turn, until none is left.
    std::tie(stats_.repairs, stats_.repaired) = expandWithCheckedProviso(
        graph_, m_, per_state, opts_, budget_, edges_, [&](int k, bool full) { expand(k, full); },
        ReducerCharge::instead(por));
    if (std::getenv("CAKE_PERSIST_STATS")) printStats();
    if (std::getenv("CAKE_PERSIST_PROFILE")) profileStates();
    return graph_.size();
  }

 private:
  const PGrid& g_;
  std::shared_ptr<PersistentShared> sh_;
  Model& m_;
  sim::BranchLayout& branches_;
  std::optional<sim::Reducer>& reducer_;
  std::vector<int32_t>& canon_;  // write id -> the equivalent write with the largest pc
  std::vector<SymPair>& sym_;
  const TripProofOptions& opts_;
  ProofBudget& budget_;
  int64_t len_;
  sim::Graph graph_;
  sim::Reducer::Work work0_;  // the shared reducer's work before this exploration (CAKE_PERSIST_STATS)
  std::vector<char> settled_;  // expand(): settled() per process, for the reducer
  bool layout_ = false;         // resolving for the layout: an open ring start gives every branch
  mutable std::string half_why_;  // why no shift by part of the tile period (CAKE_PERSIST_STATS)
  std::vector<const HalfShift*> half_;  // the shifts of sh_->half this exploration's resolutions agree with
  std::string halfShiftsText() const {
    std::string out;
    for (const HalfShift* hs : half_)
      out += fmt::format("{}{} of {} tiles from tile {}, {} ring positions from {}", out.empty() ? "" : "; ", hs->h,
                         g_.Pt, hs->t0 + hs->h, hs->dx, hs->dx + hs->xlo);
    return out;
  }
  // CAKE_PERSIST_STATS: per exploration, how states were expanded (diagnostics only)
  struct Stats { uint64_t reduced = 0, full = 0, enabled = 0, taken = 0, repairs = 0, repaired = 0; } stats_;
  // The explored graph's edges out of states not expanded fully, for the
  // cycle proviso.
  ReducedEdges edges_;

  const PcPos& posOf(int p, int pc) const { return g_.pos[p][pc]; }
  bool full(int p) const { return g_.shape[p].kind == TileShape::Full; }
  // The copy of a part outside the K loop for ring position x: x itself
  // for a process with the K loop that runs every tile, else the one copy.
  int64_t copyAt(int p, int64_t x) const { return full(p) && g_.shape[p].step == 1 ? x : 0; }

  State withPc(State s, int p, const Branch& b) const {
    if (b.small >= 0) throw GridTooSmall{b.small == 1};
    s.v[m_.off_pc + p] = b.pc;
    return s;
  }

  // ---------------------------------------------------------------- kinds in tile order

  // Two tile loops as one (MergedLoops): tile t is of kind 0 exactly when
  // t < B1, one value for the whole run, so along every run of the
  // schedule each process's kinds are 0...0 1...1 in tile order, and, when
  // B1 reads no lm.instance() (PGrid::kinds_shared), so are the kinds of
  // all kinded processes of one CTA together. tileDecision() offers either
  // kind for every tile (an over-approximation); a successor in which a
  // process that just entered a tile (p, from the pc `from`: -1 at the
  // start) has a kind that no single B1 gives together with the tile it
  // left or with the tiles the other kinded processes of its CTA are in is
  // the successor of no run of the schedule, and is dropped (docs/z3.md
  // "Kinds in tile order": why the reduction and the shifts stay sound).
  // The initial states are checked once every process is placed.
  bool inTileParts(const PcPos& q) const {
    switch (q.region) {
      case PcPos::Pre: case PcPos::PreOpen: case PcPos::Body: case PcPos::Post: case PcPos::PostLast:
      case PcPos::Tile:
        return true;
      default: return false;
    }
  }
  bool kindsInTileOrder(const State& n, int p, int from) const {
    if (!opts_.kinds_in_order || g_.kinds < 2 || !g_.kinded[p]) return true;
    const int to_pc = n.v[m_.off_pc + p];
    if (to_pc < 0 || to_pc >= static_cast<int>(g_.pos[p].size())) return true;
    const PcPos& to = posOf(p, to_pc);
    if (!inTileParts(to)) return true;
    // (t, kind) against (u, k) of the tile entered: some B1 gives both
    auto agree = [&](int64_t t, int kind) {
      return t < to.t ? !(kind == 1 && to.kind == 0) : t > to.t ? !(kind == 0 && to.kind == 1) : kind == to.kind;
    };
    if (from >= 0 && inTileParts(posOf(p, from)) && !agree(posOf(p, from).t, posOf(p, from).kind)) return false;
    if (!g_.kinds_shared) return true;
    // (every kinded process of the CTA, whatever its role: each evaluates
    // the one guard node, whose B1 reads nothing that differs between them)
    for (int q = 0; q < m_.P; ++q) {
      if (q == p || !g_.kinded[q] || g_.comb.procs[q].cta != g_.comb.procs[p].cta) continue;
      const int pc = n.v[m_.off_pc + q];
      if (pc < 0 || pc >= static_cast<int>(g_.pos[q].size())) continue;
      const PcPos& at = posOf(q, pc);
      if (inTileParts(at) && !agree(at.t, at.kind)) return false;
    }
    return true;
  }

  // ---------------------------------------------------------------- resolution

  // After tile t (-1: the prefix) a process runs its next tile `next` (t
  // + its step; the first, after the prefix) when the tile count is above
  // it, and else leaves with the tile count fixed to one of t + 1 .. next.
  void tileDecision(int p, int64_t t, int64_t x, const Unknowns& u, std::vector<Branch>& out) const {
    const TileShape& sh = g_.shape[p];
    const int64_t next = t < 0 ? sh.first : t + sh.step;
    Unknowns more = u;
    // the next tile's kind: any (MergedLoops; a choice per tile, an
    // over-approximation of the real order, every tile of kind 0 first)
    if (allowAbove(more.tiles, next))
      for (int k = 0; k < g_.kindsOf(p); ++k) enterTile(p, next, x, more, out, k);
    for (int64_t a = t + 1; a <= next; ++a) {
      Unknowns last = u;
      if (a % g_.tile_multiple != 0 || !allowEqual(last.tiles, a)) continue;
      if (a > g_.Wt) {
        out.push_back({-1, last, 1});
        continue;
      }
      const auto& e = g_.exit_at[p][a][copyAt(p, x)];  // (lane(p, 0): the one copy of the exit paths)
      out.push_back({e.a < e.b ? e.a : g_.doneAt(p, a, copyAt(p, x)), last});
    }
  }
  void enterTile(int p, int64_t t, int64_t x, const Unknowns& u, std::vector<Branch>& out, int k) const {
    if (t >= g_.Wt) return out.push_back({-1, u, 1});
    const size_t lp = g_.lane(p, k);
    if (!full(p)) return out.push_back({g_.body_at[lp][t][0].a, u});
    if (g_.shape[p].step > 1) {
      const auto& pre = g_.pre_open[lp][t];
      if (pre.a < pre.b) return out.push_back({pre.a, u});
      return openEntry(p, t, u, out, k);
    }
    if (x >= g_.Wg) return out.push_back({-1, u, 0});
    const auto& pre = g_.pre_at[lp][t][x];
    if (pre.a < pre.b) return out.push_back({pre.a, u});
    enterBody(p, t, x, u, out, k);
  }
  // Every process enters tile t's K loop at its ring start x (the end of
  // tile t - 1): the tile's length is fixed here (len_ > 0) or bounded
  // below (every tile runs at least max(1, -len_) iterations); in the
  // layout it has any length (everyLength()).
  void enterBody(int p, int64_t t, int64_t x, Unknowns u, std::vector<Branch>& out, int k) const {
    if (x >= g_.Wg) return out.push_back({-1, u, 0});
    // (the copies near the tile's end were checked at these ring starts
    // only: tailsByRingStart)
    // (slope: a run enters tile t at x >= t, and a shifted state's process
    // at x - t >= reach - f, docs/z3.md "A ring index minus the tile index")
    if (!layout_ && !g_.enteredWhereRunsReach(static_cast<size_t>(p), t, x))
      throw Fail(fmt::format("internal: {} enters tile {} at ring position {}, below the positions its K iterations "
                             "were compared at",
                             g_.grid.procs[p].name, t, x));
    if (!layout_ && t == 0 && x != 0)  // (checkFirstCopiesKeepCounters reads tile 0's first copy at 0 only)
      throw Fail(fmt::format("internal: {} enters tile 0 at ring position {}", g_.grid.procs[p].name, x));
    if (!layout_ && t > 0 && !g_.startExplored(x))
      throw Fail(fmt::format("internal: tile {} starts at ring position {}, below the assumptions' least K trip count "
                             "{} and the ring's warm-up {} or no multiple of {}",
                             t, x, g_.min_len, g_.w0g, g_.len_multiple));
    if (hasTail(p)) {
      // (tailIterations) the tile's end is x + d for d = 1..m (the first
      // iteration is the copy d from the end) or above x + m (at least m +
      // 1 iterations: the grid's)
      // (a first K iteration of its own: the tile of d <= m iterations runs
      // its first d from its end, firstTailIterationsAt; a longer one the first
      // copy at x)
      const int64_t m = g_.tail_m;
      for (int64_t d = 1; d <= m; ++d) {
        Unknowns one = u;
        if ((everyLength() || (len_ > 0 ? len_ == d : -len_ <= d)) && endAllowed(x + d) && allowEqual(one.end[t], x + d))
          enterTail(d, p, k, t, x, one, out, hasFirstTail(p));
      }
      if (everyLength()  ? allowAbove(u.end[t], x + m)
          : len_ > 0 ? len_ > m && allowEqual(u.end[t], x + len_)
                     : allowAbove(u.end[t], x + std::max<int64_t>(m + 1, -len_) - 1))
        out.push_back({(hasFirst(p) ? g_.first_at : g_.body_at)[g_.lane(p, k)][t][x].a, u});
      return;
    }
    if (everyLength()  ? allowAbove(u.end[t], x)
        : len_ > 0 ? allowEqual(u.end[t], x + len_)
                   : allowAbove(u.end[t], x + std::max<int64_t>(1, -len_) - 1))
      out.push_back({(hasFirst(p) ? g_.first_at : g_.body_at)[g_.lane(p, k)][t][x].a, u});
  }
  bool hasFirst(int p) const { return !g_.first_x.empty() && g_.first_x[p]; }
  bool hasFirstTail(int p) const { return !g_.first_tail_x.empty() && g_.first_tail_x[p]; }
  // The layout (layout_: setPredecessors, setBranches, the shifts) is built
  // by the first exploration of a grid and shared by the explorations of
  // every tile length (run(), share_layout): there a tile may have any
  // length. Built with the first length's entries into the K loop only, it
  // left out the others' where a process has copies near a tile's end (the
  // length 1 enters only the copy one from the end): the reducer's
  // may-analysis of pending async groups never reached the grid's
  // iterations, whose group waits then had empty footprints, and the
  // reduction pruned races with a group in flight there (docs/z3.md "The
  // layout of every tile length").
  bool everyLength() const { return layout_; }
  // A shift of the ring positions by part of the ring period keeps every
  // tile end a multiple of len_multiple only where dx is one (endAllowed)
  bool keepsEnds(const HalfShift& hs) const { return hs.dx % g_.len_multiple == 0; }
  // A tile's end at ring position e: every tile starts and ends at a
  // multiple of len_multiple (the facts keep every tile length one, tile 0
  // starts at 0, and the ring shifts move by a multiple of it: docs/z3.md
  // "Tile lengths the facts allow"); the layout too takes these ends only.
  bool endAllowed(int64_t e) const { return e % g_.len_multiple == 0; }
  // The reducer's footprints and the predecessor table stand on the layout
  // (setBranches, setPredecessors): a branch an exploration takes that the
  // layout left out is a step they never saw, which may prune a real
  // interleaving (the drift of docs/z3.md "The layout of every tile
  // length"). Such a branch makes the proof unknown, never a pass.
  void inLayout(int p, int pc, const Branch& b) const {
    if (!reducer_ || b.small >= 0 || static_cast<size_t>(p) >= branches_.succ.size()) return;
    const std::vector<int>& laid = branches_.succ[static_cast<size_t>(p)][static_cast<size_t>(pc)];
    if (!std::binary_search(laid.begin(), laid.end(), b.pc))
      throw Fail(fmt::format("internal: {} branches from operation {} to {}, which the layout of the grid left out",
                             g_.comb.procs[static_cast<size_t>(p)].name, pc, b.pc));
  }
  // The same for a process's start (the first block's targets, which the
  // layout takes with the unknowns open: branches_.start).
  void startInLayout(int p, const Branch& b) const {
    if (!reducer_ || b.small >= 0 || static_cast<size_t>(p) >= branches_.start.size()) return;
    const std::vector<int>& laid = branches_.start[static_cast<size_t>(p)];
    if (!std::binary_search(laid.begin(), laid.end(), b.pc))
      throw Fail(fmt::format("internal: {} starts at operation {}, which the layout of the grid left out",
                             g_.comb.procs[static_cast<size_t>(p)].name, b.pc));
  }
  // Enters the copy d from the tile's end at ring position g. A copy may be
  // empty (a guard `k + c < E_B` around the whole K iteration: the reduced
  // lcsf producer's refill): it runs no operation, so its block end
  // resolves at once, with the unknowns as entering it left them.
  // (first: the copy of a tile's first K iteration d from its end,
  // firstTailIterationsAt, at ring start g)
  void enterTail(int64_t d, int p, int k, int64_t t, int64_t g, const Unknowns& u, std::vector<Branch>& out,
                 bool first = false) const {
    const PGrid::Range& r = (first ? g_.first_tail_at : g_.tail_at)[static_cast<size_t>(d - 1)][g_.lane(p, k)][t][g];
    if (r.a < r.b) return out.push_back({r.a, u});
    bodyDecision(p, t, g, u, out, k, static_cast<int>(d));
  }
  bool hasTail(int p) const { return !g_.tail_x.empty() && g_.tail_x[p]; }
  // A process that skips tiles enters tile t's K loop at the end of tile t
  // - 1, which it did not run (0 for tile 0): some other process fixed it
  // when it left that tile's K loop, or nobody has yet. Then the ring
  // start is unknown: the proof stops (unknown; blocking here would drop
  // runs, and every value would be a run of no schedule). The layout
  // takes every ring start of the window.
  void openEntry(int p, int64_t t, const Unknowns& u, std::vector<Branch>& out, int k) const {
    if (t == 0) return enterBody(p, 0, 0, u, out, k);
    const int32_t e = u.end[t - 1];
    if (e == kIrrelevant) throw Fail("internal: a tile's end is read after it was dropped");
    if (e >= 0) return enterBody(p, t, e, u, out, k);
    if (!layout_)
      throw Fail(fmt::format("{} enters the K loop of tile {} before any process has left tile {}'s (it skips that "
                             "tile, so its ring start is not known yet)",
                             g_.comb.procs[p].name, t, t - 1));
    // (every ring start the end's lower bound allows)
    for (int64_t x = std::max<int64_t>(1, -static_cast<int64_t>(e) - 1); x <= g_.Wg; ++x) enterBody(p, t, x, u, out, k);
  }
  // `tail`: the block was the copy of the iteration `tail` from its tile's
  // end (tailIterations; 0: the grid's iteration)
  void bodyDecision(int p, int64_t t, int64_t gi, const Unknowns& u, std::vector<Branch>& out, int k,
                    int tail) const {
    Unknowns more = u, last = u;
    if (tail == 1) {  // the tile's last K iteration (tailIterations): its end is gi + 1
      if (allowEqual(last.end[t], gi + 1)) afterBody(p, t, gi + 1, last, out, k);
      return;
    }
    if (tail > 1) {  // the next iteration is tail - 1 from the end (gi + tail)
      if (!allowEqual(last.end[t], gi + tail)) return;
      if (gi + 1 >= g_.Wg) out.push_back({-1, last, 0});
      else enterTail(tail - 1, p, k, t, gi + 1, last, out);
      return;
    }
    if (hasTail(p)) {
      // the next iteration is m from the end (the tail copy; the end gi +
      // 1 + m) or not (the grid's; the end above it); none leaves here
      const int64_t m = g_.tail_m;
      for (int as_tail = 1; as_tail >= 0; --as_tail) {
        Unknowns v = u;
        if (!(as_tail ? endAllowed(gi + 1 + m) && allowEqual(v.end[t], gi + 1 + m) : allowAbove(v.end[t], gi + 1 + m)))
          continue;
        if (gi + 1 >= g_.Wg) out.push_back({-1, v, 0});
        else if (as_tail) enterTail(m, p, k, t, gi + 1, v, out);
        else out.push_back({g_.body_at[g_.lane(p, k)][t][gi + 1].a, v});
      }
      return;
    }
    if (allowAbove(more.end[t], gi + 1)) {
      if (gi + 1 >= g_.Wg) out.push_back({-1, more, 0});
      else out.push_back({g_.body_at[g_.lane(p, k)][t][gi + 1].a, more});
    }
    if (endAllowed(gi + 1) && allowEqual(last.end[t], gi + 1)) afterBody(p, t, gi + 1, last, out, k);
  }
  // Tile t's K loop left at ring position x: the part after it, the last
  // tiles' (the tile count is t + d, d <= last_m) or the others' (it is
  // above), when the schedule reads the tile count there (PGrid::last_tile).
  void afterBody(int p, int64_t t, int64_t x, const Unknowns& u, std::vector<Branch>& out, int k) const {
    // (postsByRingEnd: a copy below post_unentered stands in for a ring end
    // no run reaches; the layout takes it as a branch, a run never)
    if (!layout_ && x < g_.post_unentered && !g_.post_x.empty() && g_.post_x[p])
      throw Fail(fmt::format("internal: a tile ends at ring position {}, below the assumptions' least K trip count {} "
                             "and the ring's warm-up {}",
                             x, g_.min_len, g_.w0g));
    auto post = [&](const std::vector<std::vector<std::vector<PGrid::Range>>>& at, const Unknowns& v) {
      // (a part after the K loop that reads the ring end: its copy for x)
      const auto& r = at[g_.lane(p, k)][t][!g_.post_x.empty() && g_.post_x[p] ? x : copyAt(p, x)];
      if (r.a < r.b) out.push_back({r.a, v});
      else tileDecision(p, t, x, v, out);
    };
    if (!g_.last_tile) return post(g_.post_at, u);
    Unknowns more = u;
    if (allowAbove(more.tiles, t + g_.last_m)) post(g_.post_at, more);
    for (int64_t d = 1; d <= g_.last_m; ++d) {  // the d-th tile from the end
      Unknowns last = u;
      if ((t + d) % g_.tile_multiple == 0 && allowEqual(last.tiles, t + d))
        post(g_.post_last_at[static_cast<size_t>(d - 1)], last);
    }
  }
  // Process p has just run the last instruction of its block at `pc`.
  std::vector<Branch> resolve(int p, int pc, const Unknowns& u) const {
    std::vector<Branch> out;
    const PcPos& q = posOf(p, pc);
    switch (q.region) {
      case PcPos::Prefix: tileDecision(p, -1, 0, u, out); break;
      case PcPos::Pre: enterBody(p, q.t, q.x, u, out, q.kind); break;
      case PcPos::PreOpen: openEntry(p, q.t, u, out, q.kind); break;
      case PcPos::Body: bodyDecision(p, q.t, q.x, u, out, q.kind, q.tailDistance()); break;
      case PcPos::Post: case PcPos::PostLast: tileDecision(p, q.t, q.x, u, out); break;
      case PcPos::Tile: tileDecision(p, q.t, 0, u, out); break;
      default: throw Fail("internal: a block end outside the tile loops");
    }
    return out;
  }
  // Process p at `pc`, a block end, resolves without narrowing any unknown
  // in `u`: every branch keeps them as they are. Then each test resolve()
  // made was already decided by u alone (allowAbove true: a fixed value
  // above n or a lower bound past n; allowEqual: a fixed value, or false
  // with a lower bound past n), and the unknowns only narrow (a lower bound
  // rises, an open one is fixed at or above it), so every other step
  // leaves those tests, and so this resolution's branches, as they are:
  // it commutes with them (docs/z3.md "Settled resolutions").
  bool settled(int p, int pc, const Unknowns& u) const {
    if (g_.shape[p].kind == TileShape::Static || pc < 0 || pc >= static_cast<int>(g_.pos[p].size()) ||
        !posOf(p, pc).last)
      return false;
    try {
      for (const Branch& b : resolve(p, pc, u))
        if (b.u.tiles != u.tiles || b.u.end != u.end) return false;
    } catch (const Fail&) {
      return false;
    }
    return true;
  }
  std::vector<Branch> startTiles(int p, const Unknowns& u) const {
    std::vector<Branch> out;
    tileDecision(p, -1, 0, u, out);
    return out;
  }

  // Each pc's predecessors (every branch of every block end): the simulator
  // reads the previous instruction of a process for its synchronous access
  // still in progress (a race) and notes; those must agree where a pc has
  // several, and one of them stands for all.
  void setPredecessors() {
    m_.flow.prev.assign(static_cast<size_t>(m_.P), {});
    // met[x]: atom x is accessed by two processes (an async op counts as
    // an access of the process that issues it)
    const std::vector<char> met = atomsOfSeveral(m_);
    for (int p = 0; p < m_.P; ++p) {
      const int n = static_cast<int>(g_.pos[p].size()) - 1;  // the last done pc
      if (g_.shape[p].kind == TileShape::Static) {
        for (int pc = 0; pc <= n; ++pc) m_.flow.prev[p].push_back(pc - 1);
        continue;
      }
      std::vector<std::set<int>> preds(static_cast<size_t>(n) + 1);
      Unknowns open;
      open.end.assign(static_cast<size_t>(g_.Wt), -1);
      auto note = [&](int from, const std::vector<Branch>& bs) {
        for (const Branch& b : bs)
          if (b.small < 0) preds[b.pc].insert(from);
      };
      if (g_.shape[p].prefix_end == 0) note(-1, startTiles(p, open));
      else preds[0].insert(-1);
      for (int pc = 0; pc < m_.programSize(p); ++pc) {
        if (!posOf(p, pc).last) preds[m_.nextPc(p, pc)].insert(pc);
        else note(pc, resolve(p, pc, open));
      }
      // Every step of a process moves it forward: its combined program has
      // no cycle (the cycle proviso in expand() stands on it).
      std::vector<int> indeg(static_cast<size_t>(n) + 1, 0), order;
      std::vector<std::vector<int>> succ(static_cast<size_t>(n) + 1);
      for (int pc = 0; pc <= n; ++pc)
        for (int q : preds[pc])
          if (q >= 0) {
            succ[q].push_back(pc);
            ++indeg[pc];
          }
      for (int pc = 0; pc <= n; ++pc)
        if (indeg[pc] == 0) order.push_back(pc);
      for (size_t i = 0; i < order.size(); ++i)
        for (int to : succ[order[i]])
          if (--indeg[to] == 0) order.push_back(to);
      if (order.size() != static_cast<size_t>(n) + 1)
        throw Fail(fmt::format("internal: the combined program of {} has a cycle", g_.comb.procs[p].name));
      // Only accesses another process can meet matter: the simulator reads
      // the previous instruction only for races with steps of *other*
      // processes (sim_state.cpp checkRace, `q != p`; its own async ops
      // are checked against the accesses of later steps, not against the
      // previous one) and the reducer for conflicts with other agents,
      // whose true dependence on it is only through such a race. An atom
      // that no other process accesses (the process's registers, also
      // those its own wgmma writes: `lm.fill(acc)` before a K loop,
      // `lm.reduce(lab, dots, ...)` at the end of an iteration) meets
      // none, so predecessors that differ only there behave alike
      // (docs/z3.md "Persistent kernels", step 5).
      auto key = [&](int pc) -> std::string {
        if (pc < 0 || !m_.isSyncAccess(p, pc)) return "";
        const Instr& in = m_.instr(p, pc);
        std::string k;
        for (size_t i = 0; i < in.accesses.size(); ++i) {
          const Access& a = in.accesses[i];
          const sim::AtomRange& r = m_.atoms_of[p][pc][i];
          bool shared = false;
          for (int x = r.a0; x < r.a1 && !shared; ++x) shared = met[x];
          if (shared)
            k += fmt::format(" {}:{}-{}:{}{}{}", a.space, a.lo, a.hi, a.write, static_cast<int>(a.proxy), a.async);
        }
        return k;
      };
      auto& prev = m_.flow.prev[p];
      prev.assign(static_cast<size_t>(n) + 1, -1);
      for (int pc = 0; pc <= n; ++pc) {
        if (preds[pc].empty()) continue;
        const std::string k = key(*preds[pc].begin());
        for (int q : preds[pc])
          if (key(q) != k)
            throw Fail(fmt::format("{} reaches one operation from synchronous accesses that differ (at a tile or "
                                   "K loop boundary: {} and {})",
                                   g_.comb.procs[p].name, instrToString(g_.comb, p, *preds[pc].begin()),
                                   q >= 0 ? instrToString(g_.comb, p, q) : std::string("the start")));
        prev[pc] = *preds[pc].rbegin();
      }
    }
  }

  // The combined program as the reducer sees it (sim_por.h, docs/z3.md "A
  // reduction over the combined program"): every branch of every block end
  // (the unknowns open), the unknowns a resolution writes (the ends of
  // tiles t and t + 1 and the tile count: a superset of what resolve()
  // reads or narrows), and positions a run passes at most once: a K
  // iteration by its ring index g (strictly increasing along a run, across
  // tiles too), a part before or after the K loop and a tile by its tile
  // index, an exit path once, with the offset in the block.
  void setBranches() {
    const int ends = static_cast<int>(g_.Wt);
    branches_.unknowns = ends + 1;
    Unknowns open;
    open.end.assign(static_cast<size_t>(g_.Wt), -1);
    std::map<std::tuple<int, int, int>, int> ids;
    auto id = [&](int region, int at, int off) {
      return ids.emplace(std::make_tuple(region, at, off), static_cast<int>(ids.size())).first->second;
    };
    auto targets = [](const std::vector<Branch>& bs) {
      std::vector<int> out;
      for (const Branch& b : bs)
        if (b.small < 0) out.push_back(b.pc);
      std::sort(out.begin(), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
      return out;
    };
    for (int p = 0; p < m_.P; ++p) {
      const int n = m_.programSize(p);
      auto& succ = branches_.succ.emplace_back(static_cast<size_t>(n));
      auto& pos = branches_.position.emplace_back(static_cast<size_t>(n), -1);
      auto& trip = branches_.trip.emplace_back(static_cast<size_t>(n));
      const bool looping = g_.shape[p].kind != TileShape::Static;
      branches_.start.push_back(looping && g_.shape[p].prefix_end == 0 ? targets(startTiles(p, open))
                                                                         : std::vector<int>{0});
      int block = 0;  // the current block's first pc
      for (int pc = 0; pc < n; ++pc) {
        const PcPos& q = posOf(p, pc);
        if (pc == 0 || posOf(p, pc - 1).last || q.region != posOf(p, pc - 1).region ||
            q.t != posOf(p, pc - 1).t || q.x != posOf(p, pc - 1).x || q.kind != posOf(p, pc - 1).kind ||
            q.first != posOf(p, pc - 1).first)
          block = pc;
        const int off = pc - block;
        const int kr = 16 * q.kind;  // a kind's copies: positions of their own
        switch (q.region) {
          case PcPos::Body:  // (a tail copy d from the end: positions of its own per d)
            pos[pc] = id(q.first >= kFirstTailCopy ? 384 + kr + q.tailDistance()
                         : q.tailDistance() > 1   ? 256 + kr + q.tailDistance()
                         : q.first == kFirstCopy ? kr + 9
                         : q.first == kTailCopy  ? kr + 10
                                                 : kr + 1,
                         q.x, off);
            break;
          case PcPos::Pre: pos[pc] = id(kr + 2, q.t, off); break;
          case PcPos::PreOpen: pos[pc] = id(kr + 7, q.t, off); break;
          case PcPos::Post:  // (the tail of copies per ring end, merge_tails: positions of its own)
            pos[pc] = id(kr + (q.x < 0 && !g_.post_x.empty() && g_.post_x[p] ? 11 : 3), q.t, off);
            break;
          case PcPos::PostLast: pos[pc] = id(q.first > 0 ? 512 + kr + q.first : kr + 6, q.t, off); break;
          case PcPos::Exit: pos[pc] = id(4, 0, off); break;
          case PcPos::Tile: pos[pc] = id(5, q.t, off); break;
          default: pos[pc] = id(0, pc, 0); break;
        }
        if (!looping || !q.last) continue;
        succ[pc] = targets(resolve(p, pc, open));
        auto& u = trip[pc];
        u.push_back(ends);  // the tile count
        const int t = q.region == PcPos::Prefix ? -1 : q.t;
        // a process that skips tiles reads the end of the tile before its
        // next one too (openEntry)
        const int step = static_cast<int>(g_.shape[p].step);
        for (int e = step > 1 ? t - 1 : t; e <= t + step; ++e)
          if (e >= 0 && e < ends) u.push_back(e);
      }
    }
  }

  // The data tags a state keeps name a write by its pc, and the combined
  // program holds a copy of an operation per tile (and per ring position
  // of the parts outside the K loop): two copies whose accesses are equal
  // in every field the rules read (sim::staleWrite reads the writing
  // process and the access; the shifts map a tag by its pc) leave every
  // future of a state alike, so a tag is replaced by the equivalent write
  // with the largest pc (the last tile's copy: one the shifts can move,
  // whose image is again equivalent to the image of the tag it replaced,
  // since each shift moves every copy of a text by the same deltas).
  void setCanonicalWrites() {
    std::map<std::string, int> last;  // class -> the write with the largest pc
    std::vector<std::string> key(m_.writes.size());
    for (size_t id = 0; id < m_.writes.size(); ++id) {
      const Model::WriteRef& w = m_.writes[id];
      const Instr& in = m_.instr(w.proc, w.pc);
      const Access& a = in.accesses[w.acc];
      key[id] = fmt::format("{} {} {} {} {} {} {} {} {} {} {} {} {} {}", w.proc, fmt::ptr(in.stmt), w.acc, a.space,
                            a.lo, a.hi, a.write, static_cast<int>(a.proxy), a.async, a.view, a.index, a.gen,
                            a.stage_like, a.view_written);
      auto [it, fresh] = last.emplace(key[id], static_cast<int>(id));
      if (!fresh && m_.writes[it->second].pc < w.pc) it->second = static_cast<int>(id);
    }
    canon_.resize(m_.writes.size());
    for (size_t id = 0; id < m_.writes.size(); ++id) canon_[id] = last.at(key[id]);
  }
  void canonicalTags(State& s) const {
    for (int t = 0; t < m_.tracked; ++t) {
      int32_t& id = s.v[sim::atomField(m_, t, sim::kData)];
      if (id >= 0) id = canon_[id];
    }
  }

  // ---------------------------------------------------------------- exploration

  State pack(State s, const Unknowns& u) const {
    s.v.insert(s.v.end(), u.end.begin(), u.end.end());
    s.v.push_back(u.tiles);
    return s;
  }
  std::pair<State, Unknowns> unpack(State s) const {
    Unknowns u;
    u.tiles = s.v.back();
    s.v.pop_back();
    u.end.assign(s.v.end() - g_.Wt, s.v.end());
    s.v.resize(s.v.size() - static_cast<size_t>(g_.Wt));
    return {std::move(s), std::move(u)};
  }

  [[noreturn]] void failWith(const Violation& v) const {
    std::string where = v.primary.proc >= 0 && v.primary.pc >= 0 && v.primary.pc < m_.programSize(v.primary.proc)
                            ? " at " + opText(*g_.comb.schedule, *m_.instr(v.primary.proc, v.primary.pc).stmt)
                            : "";
    // A run of the over-approximation (tiles of different K trip counts
    // among them): the bounded check decides the schedule's own values.
    throw Fail(fmt::format("the exploration over every tile count and K trip count meets {}{}: {}", v.rule, where,
                           v.message));
  }

  void expand(int node, bool force_full) {
    // (the first expansion of a node records its edges when it is reduced;
    // a second one, force_full, expands a reduced node fully)
    ReducedEdges::Record record(edges_, node, true, force_full);  // closes the node's edge range, however expand() returns
    const bool first = record.on();
    // named, not a structured binding: the lambda below captures them
    // (clang before 16 refuses to capture a structured binding)
    auto unpacked = unpack(graph_.state(node));
    const State& s = unpacked.first;
    const Unknowns& u = unpacked.second;
    Async a = sim::decodeAsync(m_, s);
    std::vector<Step> steps = sim::enabledSteps(m_, s, a);
    std::vector<Violation> here;
    sim::stateViolations(m_, s, a, steps, {}, here);
    if (!here.empty()) failWith(here.front());
    if (sim::allFinished(m_, s)) return;
    // Each step's successors, one per branch of its resolution, normalized
    // (not inserted yet), and whether one of them is a shift edge.
    struct Succ {
      std::vector<State> states;
      bool shifts = false;
    };
    std::vector<std::optional<Succ>> succ(steps.size());
    auto successors = [&](size_t i) -> const Succ& {
      if (succ[i]) return *succ[i];
      const Step& st = steps[i];
      State next = s;
      here.clear();
      sim::applyStep(m_, next, a, st, here, nullptr);
      if (!here.empty()) failWith(here.front());
      if (st.kind == Step::Kind::Exec && !g_.unmet.empty()) unmetAlias(m_, g_.unmet, s, st);
      Succ out;
      auto take = [&](State n, Unknowns nu) {
        auto [packed, shifted] = normalize(std::move(n), std::move(nu));
        out.states.push_back(std::move(packed));
        out.shifts |= shifted;
      };
      if (st.kind != Step::Kind::Exec || g_.shape[st.proc].kind == TileShape::Static || !posOf(st.proc, st.pc).last)
        take(std::move(next), u);
      else
        for (const Branch& b : resolve(st.proc, st.pc, u)) {
          inLayout(st.proc, st.pc, b);
          State n = withPc(next, st.proc, b);
          if (kindsInTileOrder(n, st.proc, st.pc)) take(std::move(n), b.u);
        }
      return *(succ[i] = std::move(out));
    };
    auto follow = [&](size_t i, bool keep) {
      for (const State& n : successors(i).states) {
        const int id = graph_.insert(n, node, steps[i]).first;
        if (keep) edges_.add(id);
      }
    };
    // A persistent subset first (sim_por.h with the BranchLayout). Every
    // cycle of the explored graph (the shifts make it cyclic) needs a fully
    // expanded state (the cycle proviso). Only a shift edge can close a
    // cycle (docs/z3.md step 11: an edge without a shift moves a process
    // forward in its acyclic program, checked in setPredecessors, or retires
    // async work), so the subset is the smallest persistent set none of
    // whose steps has a shift edge; without one, the smallest persistent
    // set (docs/z3.md step 13: run() then checks the proviso on the
    // explored graph and expands fully a state on each cycle of reduced
    // states). (LapExplorer's rule, "a successor that is not new", also
    // suffices, but with the shifts the same state is reached at many
    // depths, and it completed half of the states.)
    stats_.enabled += steps.size();
    if (reducer_ && steps.size() > 1 && !force_full) {
      // The block ends whose resolution narrows no unknown here (docs/z3.md
      // "Settled resolutions"), for the reducer's footprints.
      settled_.assign(static_cast<size_t>(m_.P), 0);
      if (opts_.settled_resolutions)
        for (int p = 0; p < m_.P; ++p)
          if (!sim::finished(m_, s, p)) settled_[p] = settled(p, sim::pcOf(m_, s, p), u);
      struct Unset {
        sim::Reducer& r;
        ~Unset() { r.settledResolutions(nullptr); }
      } unset{*reducer_};
      reducer_->settledResolutions(&settled_);
      auto index = [&](const Step& st) {
        return static_cast<size_t>(std::find(steps.begin(), steps.end(), st) - steps.begin());
      };
      // A process at a pc no shift can move (a prefix) keeps every state
      // from shifting: a set with its step comes first, else the reduction
      // could postpone it while the others run out of the window.
      auto preferred = [&](const Step& st) { return st.kind == Step::Kind::Exec && blocksShifts(st.proc, st.pc); };
      std::vector<Step> subset = reducer_->reduce(
          s, a, steps, [&](const Step& st) { return !successors(index(st)).shifts; }, preferred);
      if (subset.size() == steps.size())
        subset = reducer_->reduce(s, a, steps, [&](const Step& st) { successors(index(st)); return true; }, preferred);
      if (subset.size() < steps.size()) {
        ++stats_.reduced;
        stats_.taken += subset.size();
        record.reduced();
        for (const Step& st : subset) follow(index(st), first);
        return;
      }
    }
    ++stats_.full;
    stats_.taken += steps.size();
    for (size_t i = 0; i < steps.size(); ++i) follow(i, false);
  }

  sim::Reducer::Work work() const { return reducer_ ? reducer_->work() : sim::Reducer::Work{}; }
  void printStats() const {
    fmt::print(stderr,
               "persist-stats: len={} states={} reduced={} full={} repairs={} repaired={} enabled/state={:.2f} "
               "taken/state={:.2f} seeds_computed={} memo_hits={} window_ops={} part_shifts={}\n",
               len_, graph_.size(), stats_.reduced, stats_.full, stats_.repairs, stats_.repaired,
               static_cast<double>(stats_.enabled) / std::max<size_t>(1, graph_.size()),
               static_cast<double>(stats_.taken) / std::max<size_t>(1, graph_.size()),
               work().computed - work0_.computed, work().memo_hits - work0_.memo_hits, work().ops - work0_.ops,
               half_.size());
  }

  // CAKE_PERSIST_PROFILE (diagnostics only, docs/z3.md "Local steps first"):
  // how many of the explored states stay apart once a part of the state is
  // forgotten (the atoms only one process accesses, the TMA store groups,
  // a process's pc), and how many have a local step enabled.
  void profileStates() const {
    std::vector<int> owner(static_cast<size_t>(m_.atoms), -1);  // -2: several processes
    for (int p = 0; p < m_.P; ++p)
      for (int pc = 0; pc < m_.programSize(p); ++pc)
        for (const auto& r : m_.atoms_of[p][pc])
          for (int x = r.a0; x < r.a1; ++x) owner[x] = owner[x] == -1 || owner[x] == p ? p : -2;
    struct Hash {
      size_t operator()(const State& s) const { return sim::hashState(s.v.data(), s.v.size()); }
    };
    // who: one process or -1 (all); what: 1 its private atoms, 2 its store groups, 4 its pc
    auto distinct = [&](int who, int what) {
      std::unordered_set<State, Hash> seen;
      for (size_t n = 0; n < graph_.size(); ++n) {
        auto [s, u] = unpack(graph_.state(static_cast<int>(n)));
        for (int p = 0; p < m_.P; ++p)
          if ((what & 4) && (who < 0 || p == who)) s.v[m_.off_pc + p] = 0;
        for (int x = 0; x < m_.atoms && (what & 1); ++x)
          if (const int t = m_.tracked_of[x]; t >= 0 && owner[x] >= 0 && (who < 0 || owner[x] == who))
            for (int f = 0; f < sim::kAtomFields; ++f) s.v[sim::atomField(m_, t, static_cast<sim::AtomField>(f))] = 0;
        if (what & 2) {
          Async a = sim::decodeAsync(m_, s);
          for (int p = 0; p < m_.P; ++p)
            if (who < 0 || p == who) a.of(p, sim::kStore).clear();
          sim::encodeAsync(m_, s, a);
        }
        seen.insert(pack(std::move(s), u));
      }
      return seen.size();
    };
    size_t local = 0;
    for (size_t n = 0; n < graph_.size() && reducer_; ++n) {
      auto [s, u] = unpack(graph_.state(static_cast<int>(n)));
      local += reducer_->localSteps(s, sim::decodeAsync(m_, s)) > 0;
    }
    fmt::print(stderr, "persist-profile: len={} states={} with a local step={} without private atoms={} stores={} both={}\n",
               len_, graph_.size(), local, distinct(-1, 1), distinct(-1, 2), distinct(-1, 3));
    for (int p = 0; p < m_.P; ++p)
      fmt::print(stderr, "persist-profile:   without {}'s private atoms and stores={}, and its pc={}\n",
                 m_.sys.procs[p].name, distinct(p, 3), distinct(p, 7));
  }

  bool blocksShifts(int p, int pc) const {
    return g_.shape[p].kind == TileShape::Static ? g_.ring_pc[p][pc] < 0 && g_.tile_pc[p][pc] < 0
                                                 : posOf(p, pc).region == PcPos::Prefix;
  }

  // The normalized state (forgotten ends, canonical tags, shifted as far as
  // it goes), packed, and whether a shift moved it (a *shift edge*: only
  // those can close a cycle, see expand()).
  std::pair<State, bool> normalize(State s, Unknowns u) const {
    forget(s, u);
    rankOrdinals(s);
    canonicalTags(s);
    bool shifted = false;
    while (ringShift(s, u) || halfShift(s, u) || tileShift(s, u)) shifted = true;
    canonicalTags(s);
    // Interchangeable processes: the smaller of the state and its image
    // under each pair's swap stands for both (an automorphism of the
    // explored system: the image has the image's futures, violations
    // included; docs/z3.md "Interchangeable processes").
    for (const SymPair& sp : sym_) {
      State t = swapped(s, sp);
      if (t.v < s.v) s = std::move(t);
    }
    return {pack(std::move(s), u), shifted};
  }

  // The MMA completion numbers of the processes numbered in issue order
  // (Model::ordinal_commits) as their ranks: each such process's
  // unobserved completions numbered 0, 1, ... in their order, its observed
  // number -1. Only their order is read (observe's max and <=, the next
  // completion's one past the largest), and the observed number is below
  // every unobserved one (observe erases those at or below it; a
  // completion is numbered above it), so the renumbered state has the
  // same futures (docs/z3.md "Commit ordinals in issue order").
  void rankOrdinals(State& s) const {
    bool any = false;
    for (int p = 0; p < m_.P; ++p)
      if (m_.ordinal(p)) {
        s.v[m_.off_obs + p] = -1;
        any = true;
      }
    if (!any) return;
    Async a = sim::decodeAsync(m_, s);
    bool moved = false;
    for (int p = 0; p < m_.P; ++p) {
      if (!m_.ordinal(p)) continue;
      std::vector<int32_t> seqs;
      for (const sim::Unobserved& x : a.unobserved)
        if (x.proc == p) seqs.push_back(x.seq);
      std::sort(seqs.begin(), seqs.end());
      seqs.erase(std::unique(seqs.begin(), seqs.end()), seqs.end());
      for (sim::Unobserved& x : a.unobserved) {
        if (x.proc != p) continue;
        const auto rank = static_cast<int32_t>(std::lower_bound(seqs.begin(), seqs.end(), x.seq) - seqs.begin());
        moved |= rank != x.seq;
        x.seq = rank;
      }
    }
    if (moved) sim::encodeAsync(m_, s, a);
  }

  // ---------------------------------------------------------------- interchangeable processes

  // s with processes sp.p and sp.q swapped (swapPair), its data tags canonical.
  State swapped(const State& s, const SymPair& sp) const { return swapPair(m_, s, sp, &canon_); }

  // Finds disjoint pairs of interchangeable processes: p < q of one role
  // and CTA, with as many warps, whose combined programs are equal
  // instruction by instruction (every field the simulator or the reducer
  // reads) except for the atoms of their accesses, with one involution
  // `beta` of the atoms that maps every access of p onto q's at the same
  // pc and every access of every other process onto itself; and every
  // table of the layout (control flow, positions, branches, shifts, commit
  // counts, tile shapes) equal for p and q. Then swapping p and q and
  // moving each atom's state to its image maps every transition of the
  // explored system onto a transition (the step function reads a process
  // only through those tables and its index in the unfenced marks, which
  // the swap exchanges), violations onto violations of the same rule.
  void setSymmetry() {
    sym_ = sim::interchangeablePairs(m_, [&](const SymPair& sp) { return gridTablesAgree(sp.p, sp.q); });
  }

  bool gridTablesAgree(int p, int q) const {
    // The tables of the grid and the layout.
    auto sameRanges = [](const auto& x, const auto& y) {
      if (x.size() != y.size()) return false;
      for (size_t t = 0; t < x.size(); ++t) {
        if (x[t].size() != y[t].size()) return false;
        for (size_t k = 0; k < x[t].size(); ++k)
          if (x[t][k].a != y[t][k].a || x[t][k].b != y[t][k].b) return false;
      }
      return true;
    };
    auto samePos = [](const std::vector<PcPos>& x, const std::vector<PcPos>& y) {
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (x[i].region != y[i].region || x[i].t != y[i].t || x[i].x != y[i].x || x[i].last != y[i].last ||
            x[i].kind != y[i].kind || x[i].first != y[i].first)
          return false;
      return true;
    };
    auto sameShape = [](const TileShape& x, const TileShape& y) {
      return x.kind == y.kind && x.prefix_end == y.prefix_end && x.tile_start == y.tile_start && x.head == y.head &&
             x.end == y.end && x.step == y.step && x.first == y.first;
    };
    auto at = [](const auto& v, size_t i) { return i < v.size() ? &v[i] : nullptr; };
    auto sameAt = [&](const auto& v, size_t i, size_t j) {
      const auto *x = at(v, i), *y = at(v, j);
      return (!x && !y) || (x && y && *x == *y);
    };
    const size_t up = static_cast<size_t>(p), uq = static_cast<size_t>(q);
    if (!sameShape(g_.shape[up], g_.shape[uq]) || !samePos(g_.pos[up], g_.pos[uq])) return false;
    for (const std::vector<TileShape>& ls : g_.last_shape)
      if (ls.size() > uq && !sameShape(ls[up], ls[uq])) return false;
    if (g_.kinds > 1 && !sameShape(g_.kshape[up], g_.kshape[uq])) return false;
    if (!sameAt(g_.kinded, up, uq) || !sameAt(g_.post_moves, up, uq) || !sameAt(g_.post_x, up, uq) ||
        !sameAt(g_.pre_moves, up, uq) || !sameAt(g_.pre_x, up, uq) ||
        !sameAt(g_.first_x, up, uq) || !sameAt(g_.tail_x, up, uq) || !sameAt(g_.first_tail_x, up, uq) || !sameAt(g_.ring_pc, up, uq) || !sameAt(g_.tile_pc, up, uq) ||
        !sameAt(g_.ring_ref, up, uq) || !sameAt(g_.commits_before, up, uq) || !sameAt(g_.last_ordinal, up, uq) ||
        !sameAt(g_.size, up, uq) ||
        !sameAt(g_.ring_commits, up, uq) || !sameAt(g_.tile_commits, up, uq))
      return false;
    for (int k = 0; k < g_.kinds; ++k) {
      const size_t lp = g_.lane(up, k), lq = g_.lane(uq, k);
      std::vector<const std::vector<std::vector<std::vector<PGrid::Range>>>*> ats{
          &g_.pre_at, &g_.body_at, &g_.post_at, &g_.exit_at, &g_.first_at};
      for (const auto& d : g_.tail_at) ats.push_back(&d);
      for (const auto& d : g_.first_tail_at) ats.push_back(&d);
      for (const auto& d : g_.post_last_at) ats.push_back(&d);
      for (const auto* v : ats) {
        const auto *x = at(*v, lp), *y = at(*v, lq);
        if (!x != !y || (x && !sameRanges(*x, *y))) return false;
      }
      const auto *x = at(g_.pre_open, lp), *y = at(g_.pre_open, lq);
      if (!x != !y || (x && !sameRanges(std::vector<std::vector<PGrid::Range>>{*x},
                                       std::vector<std::vector<PGrid::Range>>{*y})))
        return false;
    }
    if (reducer_ && (!sameAt(branches_.succ, up, uq) || !sameAt(branches_.position, up, uq) ||
                     !sameAt(branches_.trip, up, uq) || !sameAt(branches_.start, up, uq)))
      return false;
    return true;
  }

  // ---------------------------------------------------------------- a shift by part of the tile period

  // Tries the shifts by h < Pt tiles (only when some process runs every
  // step-th tile: otherwise the tile period is already the least one) and
  // keeps the first that is an automorphism of the explored system, with
  // the least tile t0 + h it moves. Returns how many times it walked the
  // programs (charged as laid-out instructions).
  uint64_t setHalfShift() {
    bool skips = false;
    for (int p = 0; p < m_.P; ++p) skips |= g_.shape[p].kind != TileShape::Static && g_.shape[p].step > 1;
    if (!skips) return m_.sys.ctas > 1 && opts_.cluster_ring ? addRingRotations() : 0;
    uint64_t walks = 0;
    for (int64_t h = g_.tile_multiple; h < g_.Pt; h += g_.tile_multiple)
      for (int64_t t0 = 0; t0 <= g_.tw + g_.Pt && t0 + h + g_.Pt < g_.Wt; ++t0) {
        ++walks;
        if (std::optional<HalfShift> hs = halfShiftOf(h, t0, 0, 0)) {
          sh_->half.push_back(std::move(*hs));
          // The shift of the ring positions back by dx, tiles and processes
          // kept (h = 0; its slots and stages rotated), for every dx below
          // the ring period, each from the least position xlo + dx where
          // the texts agree (docs/z3.md "Ring shifts by part of the ring
          // period"): with it and the one above, a state and its image one
          // tile and L ring positions on have one representative.
          if (opts_.half_shift_ring) walks += addRingRotations();
          return walks;
        }
      }
    return walks;
  }

  // The shifts of the ring positions alone by every dx < Pg, each from the
  // least position xlo + dx where the checks pass; returns the walks.
  // Searched where the shift by one tile is found, and in a modelled
  // cluster whose processes all run every tile (docs/z3.md "Ring rotations
  // in a cluster": its CTAs share the multicast ring, so no CTA is shifted
  // on its own, and the exploration of odd tile lengths kept a state and
  // its image one ring position on apart).
  uint64_t addRingRotations() {
    uint64_t walks = 0;
    for (int64_t dx = 1; dx < g_.Pg; ++dx)
      for (int64_t xlo = 0; xlo <= g_.w0g + g_.Pg && dx + xlo + g_.Pg < g_.Wg; ++xlo) {
        ++walks;
        if (std::optional<HalfShift> r = halfShiftOf(0, 0, dx, xlo)) {
          sh_->half.push_back(std::move(*r));
          break;
        }
      }
    return walks;
  }

  // The shift by h tiles from tile t0 + h on, if it maps the explored
  // system onto itself (docs/z3.md "A shift by one tile that permutes the
  // processes": every condition below is one step of the argument there).
  std::optional<HalfShift> halfShiftOf(int64_t h, int64_t t0, int64_t dx, int64_t xlo) const {
    // (which check failed: CAKE_PERSIST_STATS prints the last one)
    auto no = [&](int check) -> std::optional<HalfShift> {
      half_why_ = fmt::format("h={} t0={} dx={} xlo={}: check {}", h, t0, dx, xlo, check);
      return std::nullopt;
    };
    const System& sys = m_.sys;
    // h > 0: no cluster and no cluster barrier (whether its first
    // generation completed is read: clusterBarrierKept); the other named
    // barriers' generations move by what h tiles complete (namedPerShift,
    // docs/z3.md "A named barrier in a shift by part of the tile period").
    // h = 0 keeps every process in its place and every named barrier's
    // state (the cluster barrier's too), so check 3 (the same named
    // barrier, count and phase at the image) is all it needs; a slot keeps
    // its CTA there (docs/z3.md "Ring rotations in a cluster"). The unfenced
    // marks keep a bit per process below 31.
    if ((h > 0 && (sys.ctas > 1 || sys.cluster_named >= 0)) || m_.P > 30) return no(1);
    HalfShift hs;
    if (h > 0 && !namedPerShift(h, hs.named)) return no(23);
    hs.h = h;
    hs.t0 = t0;
    hs.dx = dx;
    hs.xlo = xlo;
    hs.perm.assign(static_cast<size_t>(m_.P), -1);
    // 1. The permutation: a process that runs every tile stays; one that
    //    runs every step-th tile from `first` goes to the instance of its
    //    role that runs them from first - h (mod step).
    for (int p = 0; p < m_.P; ++p) {
      const TileShape& a = g_.shape[p];
      if (a.kind == TileShape::Static) return no(2);  // (its text would have to stay: not needed yet)
      if (a.step == 1) {
        hs.perm[p] = p;
        continue;
      }
      const int64_t want = ((a.first - h) % a.step + a.step) % a.step;
      for (int q = 0; q < m_.P; ++q) {
        const TileShape& b = g_.shape[q];
        const Process &P = sys.procs[p], &Q = sys.procs[q];
        if (Q.role != P.role || Q.cta != P.cta || Q.warps != P.warps || b.kind != a.kind || b.step != a.step ||
            b.first != want || g_.kindsOf(p) != g_.kindsOf(q))
          continue;
        auto flag = [&](const std::vector<char>& v) { return v.empty() || v[p] == v[q]; };
        if (!flag(g_.first_x) || !flag(g_.tail_x) || !flag(g_.post_x) || !flag(g_.post_moves) || !flag(g_.pre_x) ||
            !flag(g_.pre_moves) || !flag(g_.kinded))
          continue;
        if (hs.perm[p] >= 0) return no(3);  // two candidates
        hs.perm[p] = q;
      }
      if (hs.perm[p] < 0) return no(4);
    }
    {
      std::vector<char> hit(static_cast<size_t>(m_.P), 0);
      for (int p = 0; p < m_.P; ++p)
        if (hit[hs.perm[p]]++) return no(5);
    }
    // 2. The pc maps: the same position (region, tile, ring position, kind,
    //    first-iteration copy, offset in the block) h tiles back in the
    //    image process; every pc in tile t0 + h or later (an exit path or
    //    done pc: after that many tiles or more) must have one. That set is
    //    closed under every step (a run never goes back a tile).
    using Key = std::tuple<int, int, int, int, int, int>;
    auto keys = [&](int p) {
      std::vector<Key> out(g_.pos[p].size());
      int block = 0;
      for (size_t pc = 0; pc < g_.pos[p].size(); ++pc) {
        const PcPos& q = g_.pos[p][pc];
        const PcPos* b = pc ? &g_.pos[p][pc - 1] : nullptr;
        if (!b || b->last || q.region != b->region || q.t != b->t || q.x != b->x || q.kind != b->kind ||
            q.first != b->first || q.region == PcPos::Done || static_cast<int>(pc) >= m_.programSize(p))
          block = static_cast<int>(pc);
        out[pc] = {q.region, q.t, q.x, q.kind, q.first, static_cast<int>(pc) - block};
      }
      return out;
    };
    std::vector<std::vector<Key>> key(static_cast<size_t>(m_.P));
    for (int p = 0; p < m_.P; ++p) key[p] = keys(p);
    hs.pc.assign(static_cast<size_t>(m_.P), {});
    for (int p = 0; p < m_.P; ++p) {
      const int q = hs.perm[p];
      std::map<Key, int> at;
      for (size_t pc = 0; pc < key[q].size(); ++pc) at.emplace(key[q][pc], static_cast<int>(pc));
      auto& map = hs.pc[p];
      map.assign(g_.pos[p].size(), -1);
      for (size_t pc = 0; pc < g_.pos[p].size(); ++pc) {
        const PcPos& x = g_.pos[p][pc];
        if (x.region == PcPos::Prefix || x.region == PcPos::Other || x.t < t0 + h) continue;
        const bool mx = movesWithRing(p, x);
        if (mx && x.x < dx + xlo) continue;  // a ring position below the domain
        Key k = key[p][pc];
        std::get<1>(k) = static_cast<int>(x.t - h);
        if (mx) std::get<2>(k) = static_cast<int>(x.x - dx);
        auto it = at.find(k);
        if (it == at.end()) return no(6);
        map[pc] = it->second;
      }
    }
    // 3. The texts: every moved instruction equals its image but for the
    //    slots (a permutation sigma, a phase delta per slot) and the atoms (a
    //    permutation beta), a data identity differing only in atoms that
    //    the two processes each access alone.
    std::vector<uint64_t> by(static_cast<size_t>(m_.atoms), 0);  // processes accessing each atom
    for (int r = 0; r < m_.P; ++r)
      for (int pc = 0; pc < m_.programSize(r); ++pc)
        for (const sim::AtomRange& a : m_.atoms_of[r][pc])
          for (int x = a.a0; x < a.a1; ++x) by[x] |= uint64_t{1} << std::min(r, 63);
    auto privateTo = [&](int r, const sim::AtomRange& a) {
      if (r >= 63) return false;
      for (int x = a.a0; x < a.a1; ++x)
        if (by[x] != uint64_t{1} << r) return false;
      return true;
    };
    auto shared = [&](int r, int pc) {  // a synchronous access another process can meet
      if (pc < 0 || !m_.isSyncAccess(r, pc)) return false;
      for (const sim::AtomRange& a : m_.atoms_of[r][pc])
        for (int x = a.a0; x < a.a1; ++x)
          if (by[x] & ~(uint64_t{1} << std::min(r, 63))) return true;
      return false;
    };
    std::vector<int> sigma(static_cast<size_t>(m_.S), -1), sigma_inv(static_cast<size_t>(m_.S), -1);
    std::vector<int64_t> delta(static_cast<size_t>(m_.S), 0);
    std::vector<int32_t> beta(static_cast<size_t>(m_.atoms), -1), beta_inv(static_cast<size_t>(m_.atoms), -1);
    Deltas views;  // how far the data identities move (view index, generation)
    // Accesses over several atoms whose image covers the same atoms (an
    // epilogue staged over every stage of the ring): beta must map each such
    // range onto itself, in any order (checked once beta is complete)
    std::set<std::pair<int, int>> onto_itself;
    auto learn = [](std::vector<int>& f, std::vector<int>& inv, int x, int y) {
      if (f[x] < 0 && inv[y] < 0) {
        f[x] = y;
        inv[y] = x;
        return true;
      }
      return f[x] == y && inv[y] == x;
    };
    auto same = [&](int p, int pc, int q, int pc2) {
      const Instr &a = m_.instr(p, pc), &b = m_.instr(q, pc2);
      if (a.kind != b.kind || !sameSourceKind(a, b) || a.derived != b.derived || a.count != b.count || a.bytes != b.bytes ||
          a.pending != b.pending || a.named != b.named || a.grid_dep_early != b.grid_dep_early ||
          a.regs_hazard.regs_space >= 0 || b.regs_hazard.regs_space >= 0 || a.accesses.size() != b.accesses.size() ||
          (a.slot < 0) != (b.slot < 0))
        return false;
      if (a.slot < 0) {
        if (a.phase != b.phase) return false;
      } else {
        const BarrierSlot &x = sys.slots[a.slot], &y = sys.slots[b.slot];
        if (x.barrier != y.barrier || x.init_count != y.init_count || x.cta != y.cta) return false;
        const bool fresh = sigma[a.slot] < 0;
        if (!learn(sigma, sigma_inv, a.slot, b.slot)) return false;
        if (fresh) delta[a.slot] = a.phase - b.phase;
        else if (delta[a.slot] != a.phase - b.phase) return false;
      }
      for (size_t i = 0; i < a.accesses.size(); ++i) {
        const Access &x = a.accesses[i], &y = b.accesses[i];
        const sim::AtomRange &rx = m_.atoms_of[p][pc][i], &ry = m_.atoms_of[q][pc2][i];
        if (x.write != y.write || x.proxy != y.proxy || x.async != y.async || x.view != y.view ||
            x.hi - x.lo != y.hi - y.lo || rx.a1 - rx.a0 != ry.a1 - ry.a0 ||
            (m_.write_id[p][pc][i] >= 0) != (m_.write_id[q][pc2][i] >= 0))
          return false;
        if (!(privateTo(p, rx) && privateTo(q, ry))) {
          // one delta per view, as the tile shift's (Deltas, checkLapDeltas below)
          if (x.stage_like != y.stage_like || x.view_written != y.view_written) return false;
          if (x.view < 0) {
            if (x.index != y.index || x.gen != y.gen) return false;
          } else if (x.stage_like) {
            if (x.index != y.index || !Deltas::learn(views.view_gen_stage, genKey(x, p), x.gen - y.gen)) return false;
          } else if (!Deltas::learn(views.view_index, x.view, x.index - y.index) ||
                     !Deltas::learn(views.view_gen, genKey(x, p), x.gen - y.gen)) {
            return false;
          }
        }
        if (rx.a0 == ry.a0 && rx.a1 == ry.a1 && rx.a1 - rx.a0 > 1) {
          onto_itself.insert({rx.a0, rx.a1});
          continue;
        }
        for (int k = 0; k < rx.a1 - rx.a0; ++k)
          if (!learn(beta, beta_inv, rx.a0 + k, ry.a0 + k)) return false;
      }
      return true;
    };
    hs.commits.assign(static_cast<size_t>(m_.P), 0);
    for (int p = 0; p < m_.P; ++p) {
      const int q = hs.perm[p];
      if (m_.ordinal(p) != m_.ordinal(q)) return no(20);  // one numbering for a process and its image
      // The instruction before a moved pc (the simulator reads it for its
      // synchronous access still in progress, against other processes'
      // steps, and the reducer alike): the image's image, or one that
      // meets another process as the image's does (the sense of 3), or
      // neither meets one (the rule of setPredecessors: predecessors that
      // agree on the accesses others can meet stand for each other).
      auto sameBefore = [&](int a, int b) {
        if (a >= 0 && hs.pc[p][a] >= 0 && hs.pc[p][a] == b) return true;
        if (!shared(p, a) && !shared(q, b)) return true;
        return a >= 0 && b >= 0 && same(p, a, q, b);
      };
      bool have_commits = false;
      for (int pc = 0; pc < m_.programSize(p); ++pc) {
        const int pc2 = hs.pc[p][pc];
        if (pc2 < 0) continue;
        if (pc2 >= m_.programSize(q) || !same(p, pc, q, pc2)) {
          no(7);
          half_why_ += fmt::format(" ({} at {} tile {})", g_.comb.procs[p].name, instrToString(g_.comb, p, pc),
                                   g_.pos[p][pc].t);
          return std::nullopt;
        }
        // the control flow: the next pc is the image's next, a block end is one
        const bool last = g_.pos[p][pc].last;
        if (last != g_.pos[q][pc2].last) return no(8);
        if (!last && hs.pc[p][m_.nextPc(p, pc)] != m_.nextPc(q, pc2)) return no(9);
        // the instruction before (read for a synchronous access in progress)
        const int a = m_.prevPc(p, pc), b = m_.prevPc(q, pc2);
        if (!sameBefore(a, b)) {
          no(10);
          half_why_ += fmt::format(" ({} at {} tile {} x {}: before it {}, the image's {})", g_.comb.procs[p].name,
                                   instrToString(g_.comb, p, pc), g_.pos[p][pc].t, g_.pos[p][pc].x, a, b);
          return std::nullopt;
        }
        // the MMA commit numbers move by one amount per process (but those
        // of a process numbered in issue order, read by nothing: the
        // explorer numbers its completions from the state, rankOrdinals)
        if (m_.ordinal(p)) continue;
        const int64_t d = m_.commits_before[p][pc] - m_.commits_before[q][pc2];
        if (have_commits && d != hs.commits[p]) return no(12);
        hs.commits[p] = d;
        have_commits = true;
        const int cs = m_.commit_seq[p][pc], cq = m_.commit_seq[q][pc2];
        if ((cs < 0) != (cq < 0) || (cs >= 0 && cs - cq != d)) return no(13);
      }
      // done pcs: the instruction before them too
      for (size_t pc = static_cast<size_t>(m_.programSize(p)); pc < g_.pos[p].size(); ++pc) {
        const int pc2 = hs.pc[p][pc];
        if (pc2 < 0) continue;
        if (!sameBefore(m_.prevPc(p, static_cast<int>(pc)), m_.prevPc(q, pc2))) return no(14);
      }
    }
    // 4. The resolutions of block ends (every branch, the unknowns open
    //    but for the domain's least ring position): branchesMove.
    if (!branchesMove(hs)) return std::nullopt;
    // sigma and beta: permutations (a slot or atom no moved text names
    // stays), beta keeping which atoms are tracked
    auto complete = [](std::vector<int>& f, std::vector<int>& inv) {
      for (size_t x = 0; x < f.size(); ++x)
        if (f[x] < 0) {
          if (inv[x] >= 0) return false;  // x is some other's image: it cannot stay
          f[x] = static_cast<int>(x);
          inv[x] = static_cast<int>(x);
        }
      return true;
    };
    if (!complete(sigma, sigma_inv) || !complete(beta, beta_inv)) return no(19);
    for (const auto& [a0, a1] : onto_itself)
      for (int x = a0; x < a1; ++x)
        if (beta[x] < a0 || beta[x] >= a1) return no(22);
    // the identities' deltas: whole laps, alike for views over the same
    // bytes; but a view whose accesses all name iterations and whose bytes
    // no other access touches moves by any one delta (freeViews)
    for (int v : freeViews(m_.sys)) {
      views.view_index.erase(v);  // (the generations: checked per pair below)
    }
    try {
      checkLapDeltas(m_.sys, views, /*exact=*/true);
    } catch (const Fail&) {
      return no(21);
    }
    for (int x = 0; x < m_.atoms; ++x)
      if ((m_.tracked_of[x] >= 0) != (m_.tracked_of[beta[x]] >= 0)) return no(20);
    hs.slot = sigma;
    hs.slot_delta = delta;
    hs.tracked.assign(static_cast<size_t>(m_.tracked), -1);
    for (int x = 0; x < m_.atoms; ++x)
      if (m_.tracked_of[x] >= 0) hs.tracked[m_.tracked_of[x]] = m_.tracked_of[beta[x]];
    hs.write.assign(m_.writes.size(), -1);
    for (size_t id = 0; id < m_.writes.size(); ++id) {
      const Model::WriteRef& w = m_.writes[id];
      const int to = hs.pc[w.proc][w.pc];
      if (to >= 0) hs.write[id] = m_.write_id[hs.perm[w.proc]][to][w.acc];
    }
    return hs;
  }

  // The generations of each named barrier that h tiles complete outside the
  // K loops: the tile period's (g_.tile_named) times h / Pt, where that is
  // a whole number (else no shift by h). Any amount would be sound (a
  // generation is compared only with the same barrier's other values, both
  // moved by it); this one makes a state and its image h tiles on one.
  bool namedPerShift(int64_t h, std::map<int, int64_t>& out) const {
    for (const auto& [n, k] : g_.tile_named) {
      if (k * h % g_.Pt != 0) return false;
      out[n] = k * h / g_.Pt;
    }
    return true;
  }

  // Whether a pc at `q` of p moves with the ring under the shifts (the ring
  // shift's rule, layOutPersistent): a K iteration, and every part of a
  // process with the K loop that runs every tile; a process that skips
  // tiles keeps its copies outside the K loop (but those per ring end).
  bool movesWithRing(int p, const PcPos& q) const {
    const TileShape& sh = g_.shape[p];
    if (q.x < 0 || sh.kind != TileShape::Full) return false;
    const bool post_by_x = q.region == PcPos::Post && !g_.post_x.empty() && g_.post_x[p];
    return sh.step == 1 || q.region == PcPos::Body || post_by_x;
  }

  // A tile end moved back by dx ring positions: a fixed one by dx, an open
  // one's lower bound by dx (clamped at 0: fewer constraints, more runs).
  static int32_t endBack(int32_t e, int64_t dx) {
    if (e == kIrrelevant || dx == 0) return e;
    if (e >= 0) return static_cast<int32_t>(e - dx);
    return -static_cast<int32_t>(std::max<int64_t>(0, -e - 1 - dx)) - 1;
  }

  // The resolutions of the block ends a shift moves (every branch, the
  // unknowns open, their lower bound the domain's least ring position dx +
  // xlo: a state with a fixed end below it is outside the domain, and an
  // open end is fixed later by a process of the domain, at a position
  // above it): each branch of p's is, moved (tiles h back, ring positions
  // dx back), one of its image's, and each of the image's one of p's
  // moved, but where p's leaves the window.
  bool branchesMove(const HalfShift& hs) const {
    const int64_t h = hs.h, dx = hs.dx;
    auto no = [&](int check) {
      half_why_ = fmt::format("h={} t0={} dx={} xlo={}: check {}", h, hs.t0, dx, hs.xlo, check);
      return false;
    };
    Unknowns open, image_open;
    open.end.assign(static_cast<size_t>(g_.Wt), -static_cast<int32_t>(dx + hs.xlo) - 1);
    image_open.end.assign(static_cast<size_t>(g_.Wt), -static_cast<int32_t>(hs.xlo) - 1);
    auto moved = [&](const Unknowns& u) {
      Unknowns n = u;
      for (int64_t t = 0; t < g_.Wt; ++t) n.end[t] = t + h < g_.Wt ? endBack(u.end[t + h], dx) : image_open.end[t];
      n.tiles = u.tiles >= 0 ? static_cast<int32_t>(u.tiles - h)
                             : -static_cast<int32_t>(std::max<int64_t>(0, -u.tiles - 1 - h)) - 1;
      return std::make_tuple(n.end, n.tiles);
    };
    for (int p = 0; p < m_.P; ++p) {
      const int q = hs.perm[p];
      for (int pc = 0; pc < m_.programSize(p); ++pc) {
        const int pc2 = hs.pc[p][pc];
        if (pc2 < 0 || !g_.pos[p][pc].last) continue;
        std::set<std::tuple<int, std::vector<int32_t>, int32_t>> from, to;
        size_t leaves = 0;  // branches that leave the window
        for (const Branch& b : resolve(p, pc, open)) {
          if (b.small >= 0) {
            ++leaves;
            continue;
          }
          if (b.pc >= static_cast<int>(hs.pc[p].size()) || hs.pc[p][b.pc] < 0) return no(15);
          auto [e, n] = moved(b.u);
          from.insert({hs.pc[p][b.pc], e, n});
        }
        size_t image_leaves = 0;
        for (const Branch& b : resolve(q, pc2, image_open)) {
          if (b.small >= 0) ++image_leaves;
          else to.insert({b.pc, b.u.end, b.u.tiles});
        }
        // (the image is h tiles further from the window's edge: it leaves only where p does)
        if (image_leaves > leaves) return no(16);
        for (const auto& b : from)
          if (!to.count(b)) return no(17);
        // each branch of p that leaves the window is one of the image's that stays in it or
        // leaves too: as many, or more where the ring positions move (a ring
        // start read at a tile's entry: the layout lists p's up to the window's
        // edge, the first past it standing for the dx + 1 that the image
        // lists up to its own edge, dx positions further)
        const size_t unmatched = to.size() - from.size() + image_leaves;
        if (dx == 0 ? unmatched != leaves : unmatched < leaves) return no(18);
      }
    }
    return true;
  }

  // The shift by part of the tile period, applied when every process is at
  // a pc it moves (a state with a write, load or group it does not move is
  // kept as it is).
  // The one that moves the ring furthest, of those whose domain holds the state.
  bool halfShift(State& s, Unknowns& u) const {
    if (half_.empty() || g_.fixed_tiles >= 0 || !someoneMoves(s, false)) return false;
    for (auto it = half_.rbegin(); it != half_.rend(); ++it)
      if (halfShiftBy(**it, s, u)) return true;
    return false;
  }
  bool halfShiftBy(const HalfShift& hs, State& s, Unknowns& u) const {
    const int64_t h = hs.h;
    for (int p = 0; p < m_.P; ++p)
      if (hs.pc[p][sim::pcOf(m_, s, p)] < 0) return false;
    // the domain's ring positions: every fixed end at dx + xlo or above
    // (a process entering a K loop there stays in the domain)
    for (int32_t e : u.end)
      if (e >= 0 && e < hs.dx + hs.xlo) return false;
    Unknowns n = u;
    if (u.tiles >= 0) {
      if (u.tiles - h < 0) return false;
      n.tiles = static_cast<int32_t>(u.tiles - h);
    } else {
      n.tiles = -static_cast<int32_t>(std::max<int64_t>(0, -u.tiles - 1 - h)) - 1;
    }
    for (int64_t t = 0; t < g_.Wt; ++t) n.end[t] = t + h < g_.Wt ? endBack(u.end[t + h], hs.dx) : -1;
    for (int64_t t = 0; t < h; ++t)
      if (u.end[t] != kIrrelevant) return false;
    State out = s;
    for (int p = 0; p < m_.P; ++p) {
      const int q = hs.perm[p];
      out.v[m_.off_pc + q] = hs.pc[p][sim::pcOf(m_, s, p)];
      const int pc = sim::pcOf(m_, s, p);
      out.v[m_.off_sgen + q] = s.v[m_.off_sgen + p];
      if (pc < m_.programSize(p) && m_.instr(p, pc).kind == InstrKind::SyncWait)
        out.v[m_.off_sgen + q] -= static_cast<int32_t>(Deltas::of(hs.named, m_.instr(p, pc).named));
      const std::optional<int32_t> obs =
          observedCommitsBack(s.v[m_.off_obs + p], m_.ordinal(p) ? 0 : hs.commits[p]);
      if (!obs) return false;
      out.v[m_.off_obs + q] = *obs;
    }
    for (int k = 0; k < m_.N; ++k) out.v[m_.off_named + 2 * k] -= static_cast<int32_t>(Deltas::of(hs.named, k));
    for (int k = 0; k < m_.S; ++k)
      for (int f = 0; f < sim::kSlotFields; ++f)
        out.v[m_.off_slot + sim::kSlotFields * hs.slot[k] + f] =
            s.v[m_.off_slot + sim::kSlotFields * k + f] -
            (f == sim::kCompleted ? static_cast<int32_t>(hs.slot_delta[k]) : 0);
    auto bits = [&](int32_t x) {
      int32_t y = 0;
      for (int p = 0; p < m_.P && p < 31; ++p)
        if (x & (int32_t{1} << p)) y |= int32_t{1} << hs.perm[p];
      return y;
    };
    for (int t = 0; t < m_.tracked; ++t) {
      const int to = hs.tracked[t];
      int32_t d = s.v[sim::atomField(m_, t, sim::kData)];
      if (d >= 0) {
        d = hs.write[d];
        if (d < 0) return false;
        d = canon_[d];
      }
      out.v[sim::atomField(m_, to, sim::kData)] = d;
      out.v[sim::atomField(m_, to, sim::kUnfencedWrites)] = bits(s.v[sim::atomField(m_, t, sim::kUnfencedWrites)]);
      out.v[sim::atomField(m_, to, sim::kUnfencedReads)] = bits(s.v[sim::atomField(m_, t, sim::kUnfencedReads)]);
    }
    const Async a = sim::decodeAsync(m_, s);
    Async b = a;
    for (sim::Load& l : b.loads) {
      const int slot = m_.instr(l.proc, l.pc).slot;
      l.phase -= slot >= 0 ? static_cast<int32_t>(hs.slot_delta[slot]) : 0;
      l.pc = hs.pc[l.proc][l.pc];
      if (l.pc < 0) return false;
      l.proc = hs.perm[l.proc];
    }
    for (int p = 0; p < m_.P; ++p)
      for (int k = 0; k < sim::kGroupKinds; ++k) {
        std::vector<sim::Group> gs = a.of(p, k);
        for (sim::Group& g : gs) {
          if (g.commit_pc >= 0 && (g.commit_pc = hs.pc[p][g.commit_pc]) < 0) return false;
          for (int32_t& pc : g.pcs)
            if ((pc = hs.pc[p][pc]) < 0) return false;
        }
        b.of(hs.perm[p], k) = std::move(gs);
      }
    for (sim::Unobserved& x : b.unobserved) {
      if (x.slot >= 0) {
        x.phase -= static_cast<int32_t>(hs.slot_delta[x.slot]);
        x.slot = hs.slot[x.slot];
      }
      if (x.proc >= 0) {
        if (!m_.ordinal(x.proc)) x.seq -= static_cast<int32_t>(hs.commits[x.proc]);
        if (x.seq < 0) return false;
        x.proc = hs.perm[x.proc];
      }
    }
    sim::encodeAsync(m_, out, b);
    s.v.assign(out.v.begin(), out.v.end());
    u = std::move(n);
    return true;
  }

  // The tile a Full process is in (an end of tile t is read by processes in
  // tile t or before, until they have left its K loop), or INT_MAX.
  int64_t readsEndsFrom(int p, const State& s) const {
    const PcPos& q = posOf(p, sim::pcOf(m_, s, p));
    switch (q.region) {
      case PcPos::Prefix: return 0;
      case PcPos::Pre: case PcPos::Body: return q.t;
      case PcPos::PreOpen: return std::max<int64_t>(0, q.t - 1);
      // a process that skips tiles next reads the end of the tile before its next one
      case PcPos::Post: case PcPos::PostLast: return q.t + 1 + (g_.shape[p].step > 1 ? g_.shape[p].step - 2 : 0);
      default: return INT64_MAX;
    }
  }
  // Ends no process will read again are dropped (one state for all their values).
  void forget(const State& s, Unknowns& u) const {
    int64_t from = INT64_MAX;
    for (int p = 0; p < m_.P; ++p)
      if (full(p)) from = std::min(from, readsEndsFrom(p, s));
    for (int64_t t = 0; t < g_.Wt && t < from; ++t) u.end[t] = kIrrelevant;
  }

  // Some process of the kind the shift moves has not finished (else the
  // shift would move counters of a finished run for ever).
  bool someoneMoves(const State& s, bool ring) const {
    for (int p = 0; p < m_.P; ++p) {
      const auto kind = g_.shape[p].kind;
      if ((ring ? kind == TileShape::Full : kind != TileShape::Static) && !sim::finished(m_, s, p)) return true;
    }
    return false;
  }

  bool ringShift(State& s, Unknowns& u) const {
    if (!someoneMoves(s, true)) return false;
    // A process that skips tiles stays where it is outside its K loop; the
    // ring start it reads next (the end of the tile before its next one)
    // moves with the ends. Fixed, it must be past the warm-up by a period,
    // as every ring position the shift moves (the text there is the text
    // one period on, shifted). Open, it will be fixed by a process leaving
    // that tile's K loop at a ring position not below the least one now,
    // which the shift moves alike.
    for (int p = 0; p < m_.P; ++p) {
      if (!full(p) || g_.shape[p].step == 1) continue;
      const PcPos& q = posOf(p, sim::pcOf(m_, s, p));
      const int64_t reads = q.region == PcPos::PreOpen ? q.t - 1
                            : q.region == PcPos::Post  ? q.t + g_.shape[p].step - 1
                                                       : -1;
      if (reads < 0 || reads >= g_.Wt) continue;
      const int32_t e = u.end[reads];
      if (e >= 0 && e < g_.w0g + g_.Pg) return false;
    }
    Unknowns n = u;
    for (int32_t& e : n.end) {
      if (e == kIrrelevant) continue;
      if (e >= 0) {
        if (e - g_.Pg < 0) return false;
        e -= static_cast<int32_t>(g_.Pg);
      } else {
        e = -static_cast<int32_t>(std::max<int64_t>(0, -e - 1 - g_.Pg)) - 1;
      }
    }
    if (!shiftState(m_, s, {g_.ring_pc, g_.ring, g_.ring_named, g_.ring_commits, &g_.ring_ref})) return false;
    u = std::move(n);
    return true;
  }

  // (none with the tile count fixed: tile t - Pt is not tile t's text
  // there, tile 0 a segment of its own, and the count would move)
  bool tileShift(State& s, Unknowns& u) const {
    if (g_.fixed_tiles >= 0 || !someoneMoves(s, false)) return false;
    Unknowns n = u;
    if (u.tiles >= 0) {
      if (u.tiles - g_.Pt < 0) return false;
      n.tiles = static_cast<int32_t>(u.tiles - g_.Pt);
    } else {
      n.tiles = -static_cast<int32_t>(std::max<int64_t>(0, -u.tiles - 1 - g_.Pt)) - 1;
    }
    for (int64_t t = 0; t < g_.Wt; ++t) n.end[t] = t + g_.Pt < g_.Wt ? u.end[t + g_.Pt] : -1;
    for (int64_t t = 0; t < g_.Pt; ++t)
      if (u.end[t] != kIrrelevant) return false;
    if (!shiftState(m_, s, {g_.tile_pc, g_.tile, g_.tile_named, g_.tile_commits})) return false;
    u = std::move(n);
    return true;
  }
};

// e with every `t * E_B` replaced by `by`.
ir::ExprPtr replaceProducts(const ir::ExprPtr& e, const TileLoops& tl, const ir::ExprPtr& by) {
  if (!e) return e;
  if (isTileProduct(*e, tl)) return by;
  if (e->args.empty()) return e;
  auto copy = std::make_shared<ir::Expr>(*e);
  for (ir::ExprPtr& a : copy->args) a = replaceProducts(a, tl, by);
  return copy;
}

bool readsInnerBare(const ir::Expr& e, const TileLoops& tl) {
  if (isTileProduct(e, tl)) return false;
  if (ir::sameExpr(e, *tl.inner)) return true;
  return std::any_of(e.args.begin(), e.args.end(), [&](const ir::ExprPtr& a) { return a && readsInnerBare(*a, tl); });
}

// A ring index read by its canonical form (docs/z3.md "Ring indices read by
// their canonical form"): the persistent-kernel proof reads `t * E_B`
// (isTileProduct) as the tile's ring start and E_B elsewhere as the tile's
// end, by the expression's terms; `(t + 1) * E_B - E_B + k` has no such
// product, and its E_B read bare made the proof refuse a correct kernel. A
// sum, difference or product whose canonical form has a monomial that t
// and E_B divide even with its `t * E_B` products taken out (so one its
// terms hide) is spelled as that form (ir::polynomialSpelling: `t * E_B +
// k`, `t * E_B + E_B - 1`), equal for every value: the outermost such
// expression (its form is its parts' together), and an index under `%`,
// `//` or a comparison as well. Null: nothing to spell.
bool isSumOrProduct(ir::ExprKind k) {
  return k == ir::ExprKind::Add || k == ir::ExprKind::Sub || k == ir::ExprKind::Mul || k == ir::ExprKind::Neg;
}
bool hidesTileProduct(const ir::ExprPtr& e, const TileLoops& tl) {
  if (!isSumOrProduct(e->kind) || !readsInnerBare(*e, tl)) return false;
  const ir::ExprPtr read = replaceProducts(e, tl, symbolNode(ir::ExprKind::LoopVar, kFreshSymbol + 8));
  return std::any_of(tl.tile_vars.begin(), tl.tile_vars.end(), [&](int t) {
    return ir::hasMonomialWith(*read, {symbolNode(ir::ExprKind::LoopVar, t), tl.inner});
  });
}
ir::ExprPtr ringIndexByForm(const ir::ExprPtr& e, const TileLoops& tl, bool& changed, bool in_sum = false) {
  if (!e || e->args.empty()) return e;
  const bool sum = isSumOrProduct(e->kind);
  std::vector<ir::ExprPtr> args;
  for (const ir::ExprPtr& a : e->args) args.push_back(ringIndexByForm(a, tl, changed, sum));
  ir::ExprPtr out = e;
  if (args != e->args) {  // (an expression left alone keeps its identity)
    auto copy = std::make_shared<ir::Expr>(*e);
    copy->args = std::move(args);
    out = copy;
  }
  // (a sum inside a sum is spelled with the outer one: its form is the whole's part)
  if (in_sum || !hidesTileProduct(out, tl)) return out;
  std::vector<ir::ExprPtr> spellings;
  for (int t : tl.tile_vars)
    if (ir::dependsOnLoopVar(*out, t)) spellings.push_back(symbolNode(ir::ExprKind::LoopVar, t));
  spellings.push_back(tl.inner);
  const ir::ExprPtr spelled = ir::polynomialSpelling(out, spellings);
  if (!spelled) return out;
  changed = true;
  return spelled;
}
std::shared_ptr<ir::Schedule> ringIndicesByForm(const ir::Schedule& s, const TileLoops& tl) {
  auto out = std::make_shared<ir::Schedule>(s);
  bool changed = false;
  for (ir::RoleBody& b : out->bodies)
    mapExprs(b.body, [&](const ir::ExprPtr& e) { return ringIndexByForm(e, tl, changed); });
  return changed ? out : nullptr;
}

// The tile loop's variable e reads (a fresh symbol when it reads none;
// several: unknown).
ir::ExprPtr tileVarOf(const ir::Expr& e, const TileLoops& tl) {
  std::set<int> ts;
  for (int t : tl.tile_vars)
    if (mentionsLoopVar(e, {t})) ts.insert(t);
  if (ts.size() > 1) throw Fail("an expression reads the variables of two tile loops");
  return symbolNode(ir::ExprKind::LoopVar, ts.empty() ? kFreshSymbol + 11 : *ts.begin());
}

// The register-fragment hazards (data.uninitialized, data.stale-accumulator)
// are decided when the system is built, walking each process's program in
// order (encoder/system.cpp). The grid walks every tile from ring index 0
// (`t * E_B` reads 0, k reads g), while a run enters tile t at its ring
// start G_t: a tile's first K iteration there is the grid's iteration G_t,
// whose hazards were decided after the grid's iterations 0..G_t - 1 of that
// tile. They are the run's own only if what the tile does to its register
// fragments does not depend on where it starts: so no `init=` or `if`
// around register accesses may read the ring start `t * E_B` or the tile
// count (an accumulator reset at ring index 0 only: `init=(it == 0)` is the
// CTA's first tile only, and the grid resets every tile), and an `init=`
// inside the K loop that reads k must be true exactly at k = 0 (the grid's
// iteration 0 of every tile resets, as the run's first iteration does, and
// nothing later does in either). Else unknown: the bounded check decides
// (checkRegsPathIndependent, below).

// Whether an op names a buffer of kind k (as its destination or a source).
bool namesKind(const ir::Op& o, ir::BufferRef::Kind k) {
  return o.dst.kind == k || o.src.kind == k || o.src2.kind == k;
}

// Whether some op of b, at any depth, names a buffer of kind k (registers:
// checkRegsPathIndependent; tensor memory: tmemDependsOnTile).
bool branchesName(const ir::Stmt& st, ir::BufferRef::Kind k);
bool blockNamesKind(const ir::Block& b, ir::BufferRef::Kind k) {
  return std::any_of(b.begin(), b.end(), [&](const ir::Stmt& st) {
    return st.kind == ir::Stmt::Kind::Op ? namesKind(st.op, k) : branchesName(st, k);
  });
}

// Whether an if's (or a loop's) body or else branch names a buffer of kind k.
bool branchesName(const ir::Stmt& st, ir::BufferRef::Kind k) {
  return blockNamesKind(st.body, k) || blockNamesKind(st.orelse, k);
}

// Register fragments local to a K iteration (docs/z3.md "A per-tile
// parity of k", helper loops4): every op that names one is inside a K
// loop, only MMAs read it (as an operand) and no MMA writes it, and on
// every path through the K loop's body each read follows, in the same
// iteration, a write of the whole fragment by a copy, fill, unary or binary
// op. The builder then marks no register hazard on it in any run, whatever
// path led there: every read finds its elements written
// (data.uninitialized), nothing accumulates into it and nothing copied from
// it is stored out (data.stale-accumulator; an MMA's product is no copy of
// its operands).
std::set<int> iterationLocalRegs(const ir::Schedule& s, const TileLoops& tl) {
  std::set<int> all, bad;
  auto regsOf = [](const ir::BufferRef& r) { return r.kind == ir::BufferRef::Kind::Regs ? r.index : -1; };
  // written: the fragments written whole on every path so far in this K iteration
  std::function<void(const ir::Block&, bool, std::set<int>&)> walk = [&](const ir::Block& b, bool in_k,
                                                                         std::set<int>& written) {
    for (const ir::Stmt& st : b) {
      switch (st.kind) {
        case ir::Stmt::Kind::For: {  // it may run no iteration: its writes do not count after it
          const bool k = tl.k_vars.count(st.loop_var) > 0;
          std::set<int> inner = k ? std::set<int>{} : written;
          walk(st.body, in_k || k, inner);
          break;
        }
        case ir::Stmt::Kind::If: {
          std::set<int> a = written, c = written, both;
          walk(st.body, in_k, a);
          walk(st.orelse, in_k, c);
          std::set_intersection(a.begin(), a.end(), c.begin(), c.end(), std::inserter(both, both.end()));
          written = std::move(both);
          break;
        }
        case ir::Stmt::Kind::Op: {
          const ir::Op& o = st.op;
          for (const ir::BufferRef* r : {&o.src, &o.src2}) {
            const int i = regsOf(*r);
            if (i < 0) continue;
            all.insert(i);
            if (!in_k || o.kind != ir::OpKind::Mma || !written.count(i)) bad.insert(i);
          }
          const int d = regsOf(o.dst);
          if (d < 0) break;
          all.insert(d);
          const bool whole = o.dst.slices.empty() && !o.dst.slot;
          const bool writer = o.kind == ir::OpKind::Copy || o.kind == ir::OpKind::Fill || o.kind == ir::OpKind::Unary ||
                              o.kind == ir::OpKind::Binary;
          if (!in_k || !writer) bad.insert(d);
          else if (whole) written.insert(d);
          break;
        }
      }
    }
  };
  for (const ir::RoleBody& body : s.bodies) {
    std::set<int> written;
    walk(body.body, false, written);
  }
  std::set<int> local;
  for (int r : all)
    if (!bad.count(r)) local.insert(r);
  return local;
}

// The statements of b that a comparison reads (EffectView): the ops it
// keeps, and the loops and ifs that hold one.
std::vector<const ir::Stmt*> comparedStmts(const ir::Block& b, const EffectView& v) {
  std::vector<const ir::Stmt*> out;
  for (const ir::Stmt& st : b)
    if (st.kind == ir::Stmt::Kind::Op ? !v.keep || v.keep(st.op)
                                      : !comparedStmts(st.body, v).empty() || !comparedStmts(st.orelse, v).empty())
      out.push_back(&st);
  return out;
}

// Two blocks do the same to registers (and the other buffers v compares in
// full), as the builder's register state sees them: statement by
// statement (those v keeps), the same loops (bounds) and ifs (conditions),
// and op by op the kind, fn, axis, init=, each operand's kind and, for a
// buffer compared in full (not two of v.alike), which one, its slot and
// elements. `bound`: the loop variables of b read as a's (each pair b's,
// a's: those of the loops around the blocks, then of the loops compared).
bool sameEffect(const ir::Block& a, const ir::Block& b, const EffectView& v, std::vector<std::pair<int, int>> bound) {
  auto same = [&](const ir::ExprPtr& x, ir::ExprPtr y) {
    if (!x || !y) return !x && !y;
    for (const auto& [from, to] : bound) y = renameLoopVar(y, from, to);
    return ir::sameExpr(*x, *y);
  };
  auto sameRef = [&](const ir::BufferRef& x, const ir::BufferRef& y) {
    if (x.kind != y.kind) return false;
    if (std::find(v.full.begin(), v.full.end(), x.kind) == v.full.end()) return true;
    if (x.kind == ir::BufferRef::Kind::Regs && v.alike.count(x.index) && v.alike.count(y.index)) return true;
    if (x.index != y.index || !same(x.slot, y.slot) || x.slices.size() != y.slices.size()) return false;
    for (size_t i = 0; i < x.slices.size(); ++i)
      if (!same(x.slices[i].lo, y.slices[i].lo) || !same(x.slices[i].hi, y.slices[i].hi)) return false;
    return true;
  };
  const std::vector<const ir::Stmt*> xs = comparedStmts(a, v), ys = comparedStmts(b, v);
  if (xs.size() != ys.size()) return false;
  for (size_t i = 0; i < xs.size(); ++i) {
    const ir::Stmt &x = *xs[i], &y = *ys[i];
    if (x.kind != y.kind) return false;
    if (x.kind == ir::Stmt::Kind::For) {
      if (!same(x.lo, y.lo) || !same(x.hi, y.hi) || !same(x.step, y.step)) return false;
      std::vector<std::pair<int, int>> inner = bound;
      inner.emplace_back(y.loop_var, x.loop_var);
      if (!sameEffect(x.body, y.body, v, std::move(inner))) return false;
      continue;
    }
    if (x.kind == ir::Stmt::Kind::If) {
      if (!same(x.cond, y.cond) || !sameEffect(x.body, y.body, v, bound) || !sameEffect(x.orelse, y.orelse, v, bound))
        return false;
      continue;
    }
    const ir::Op &p = x.op, &q = y.op;
    if (p.kind != q.kind || p.fn != q.fn || p.axis != q.axis || !same(p.init, q.init) || !sameRef(p.dst, q.dst) ||
        !sameRef(p.src, q.src) || !sameRef(p.src2, q.src2))
      return false;
  }
  return true;
}

// Every MMA into a register fragment overwrites it (init= a nonzero
// constant): no op then accumulates into registers, and
// data.stale-accumulator, reported only at an accumulating MMA
// (encoder/system.cpp `staleAccumulator`), cannot fire whatever the
// stored marks and copy links hold (docs/z3.md "Register fragments no
// branch can leave behind").
bool noRegsAccumulation(const ir::Schedule& s) {
  bool none = true;
  for (const ir::RoleBody& body : s.bodies)
    ir::forEachOp(body.body, [&](const ir::Stmt& st) {
      const ir::Op& o = st.op;
      if (o.kind != ir::OpKind::Mma || o.dst.kind != ir::BufferRef::Kind::Regs) return;
      const std::optional<int64_t> v = o.init ? ir::constValue(o.init) : std::nullopt;
      if (!v || *v == 0) none = false;
    });
  return none;
}

bool wholeRegs(const ir::BufferRef& r) {
  return r.kind == ir::BufferRef::Kind::Regs && r.slices.empty() && !r.slot;
}

// An op the builder's register state knows (a copy, fill, unary, binary or
// MMA): any other op that names a fragment leaves it out of freshRegs.
bool plainRegsOp(const ir::Op& o) {
  using O = ir::OpKind;
  return o.kind == O::Copy || o.kind == O::Fill || o.kind == O::Unary || o.kind == O::Binary || o.kind == O::Mma;
}

// The fragments an op names (as a source or as its destination).
std::set<int> regsNamed(const ir::Op& o) {
  std::set<int> out;
  for (const ir::BufferRef* r : {&o.dst, &o.src, &o.src2})
    if (r->kind == ir::BufferRef::Kind::Regs) out.insert(r->index);
  return out;
}

// Fragments fresh in every K iteration: every op that names one is a
// plain register op inside a K loop; on every path through the K loop's
// body each read follows, in the same iteration, a write of the whole
// fragment (an MMA's too: under noRegsAccumulation it overwrites), and each
// MMA product written there is read whole before the body (or a loop's
// body inside it) ends. So no read of one is ever data.uninitialized and no
// product is left unread into the next iteration (data.discarded-product
// decides within the iteration, on its own path).
std::set<int> iterationFreshRegs(const ir::Schedule& s, const TileLoops& tl) {
  std::set<int> all, bad;
  struct Path {
    std::set<int> written, unread;  // written whole this iteration; MMA products not read yet
  };
  std::function<void(const ir::Block&, bool, Path&)> walk = [&](const ir::Block& b, bool in_k, Path& p) {
    for (const ir::Stmt& st : b) {
      if (st.kind == ir::Stmt::Kind::For) {
        const bool k = tl.k_vars.count(st.loop_var) > 0;
        Path inner = k ? Path{} : p;  // it may run no iteration: nothing of it counts after it
        walk(st.body, in_k || k, inner);
        for (int r : inner.unread)
          if (!p.unread.count(r) || k) bad.insert(r);
        continue;
      }
      if (st.kind == ir::Stmt::Kind::If) {
        Path a = p, c = p;
        walk(st.body, in_k, a);
        walk(st.orelse, in_k, c);
        p.written.clear();
        std::set_intersection(a.written.begin(), a.written.end(), c.written.begin(), c.written.end(),
                              std::inserter(p.written, p.written.end()));
        p.unread = a.unread;
        p.unread.insert(c.unread.begin(), c.unread.end());
        continue;
      }
      const ir::Op& o = st.op;
      const std::set<int> named = regsNamed(o);
      all.insert(named.begin(), named.end());
      if (!in_k || !plainRegsOp(o)) {
        bad.insert(named.begin(), named.end());
        continue;
      }
      for (const ir::BufferRef* r : {&o.src, &o.src2}) {
        if (r->kind != ir::BufferRef::Kind::Regs) continue;
        if (!p.written.count(r->index)) bad.insert(r->index);
        if (wholeRegs(*r)) p.unread.erase(r->index);
      }
      if (o.dst.kind != ir::BufferRef::Kind::Regs) continue;
      if (!wholeRegs(o.dst)) {
        bad.insert(o.dst.index);
        continue;
      }
      p.written.insert(o.dst.index);
      if (o.kind == ir::OpKind::Mma) p.unread.insert(o.dst.index);
      else p.unread.erase(o.dst.index);
    }
  };
  for (const ir::RoleBody& body : s.bodies) {
    Path p;
    walk(body.body, false, p);
    bad.insert(p.unread.begin(), p.unread.end());
  }
  std::set<int> out;
  for (int r : all)
    if (!bad.count(r)) out.insert(r);
  return out;
}

// Fragments reset at every tile's start: no MMA names one, every op that
// names one is a plain register op inside a tile loop, and each tile
// loop's body that names it has, among its own statements and before any
// other that names it, an op that writes it whole without reading it
// (`lm.fill(final, 0.0)`). Every read of one then finds it written
// (data.uninitialized never fires), no product is ever written into it
// (data.discarded-product), and under noRegsAccumulation its stored marks
// are never asked for.
std::set<int> tileResetRegs(const ir::Schedule& s, const TileLoops& tl) {
  std::set<int> all, bad;
  auto namedIn = [](const ir::Block& b) {
    std::set<int> out;
    ir::forEachOp(b, [&](const ir::Stmt& st) {
      const std::set<int> n = regsNamed(st.op);
      out.insert(n.begin(), n.end());
    });
    return out;
  };
  auto resets = [](const ir::Stmt& st) -> int {
    if (st.kind != ir::Stmt::Kind::Op || !wholeRegs(st.op.dst) || st.op.kind == ir::OpKind::Mma ||
        !plainRegsOp(st.op))
      return -1;
    const int d = st.op.dst.index;
    for (const ir::BufferRef* r : {&st.op.src, &st.op.src2})
      if (r->kind == ir::BufferRef::Kind::Regs && r->index == d) return -1;
    return d;
  };
  std::function<void(const ir::Block&, bool)> walk = [&](const ir::Block& b, bool in_tile) {
    for (const ir::Stmt& st : b) {
      if (st.kind == ir::Stmt::Kind::For && tl.tile_vars.count(st.loop_var)) {
        std::set<int> reset;
        for (const ir::Stmt& x : st.body) {
          const int r = resets(x);
          for (int n : x.kind == ir::Stmt::Kind::Op ? regsNamed(x.op) : namedIn(ir::Block{x}))
            if (n != r && !reset.count(n)) bad.insert(n);
          if (r >= 0) reset.insert(r);
        }
        walk(st.body, true);
        continue;
      }
      if (st.kind != ir::Stmt::Kind::Op) {
        walk(st.body, in_tile);
        walk(st.orelse, in_tile);
        continue;
      }
      const std::set<int> named = regsNamed(st.op);
      all.insert(named.begin(), named.end());
      if (!in_tile || !plainRegsOp(st.op) || st.op.kind == ir::OpKind::Mma) bad.insert(named.begin(), named.end());
    }
  };
  for (const ir::RoleBody& body : s.bodies) walk(body.body, false);
  std::set<int> out;
  for (int r : all)
    if (!bad.count(r)) out.insert(r);
  return out;
}

// Two branches whose register effects differ only on fragments no later
// verdict can tell apart (iterationFreshRegs, tileResetRegs, `local`),
// where no MMA accumulates into registers: the ops that name some other
// fragment, in order, do the same (sameEffect). An op that names none
// leaves the builder's register state of every other fragment as it was
// (its copy links and stored marks, which only an accumulating MMA reads,
// aside).
bool sameRegsEffectOutside(const ir::Block& a, const ir::Block& b, const std::set<int>& fresh) {
  EffectView v;
  v.alike = fresh;
  v.keep = [&](const ir::Op& o) {
    const std::set<int> n = regsNamed(o);
    return std::any_of(n.begin(), n.end(), [&](int r) { return !fresh.count(r); });
  };
  return sameEffect(a, b, v);
}

// The fragments whose register hazard verdicts no path can change: where
// no MMA accumulates into registers (noRegsAccumulation), those local to a
// K iteration (iterationLocalRegs), fresh in every K iteration
// (iterationFreshRegs) or reset at every tile's start (tileResetRegs); none
// otherwise. A verdict about one at an op depends only on the ops of that
// op's own K iteration (or tile) before it, in every build: the grid's, a
// tail copy's and a run's (docs/z3.md "Register fragments no branch can
// leave behind").
std::set<int> pathFreeRegs(const ir::Schedule& s, const TileLoops& tl) {
  std::set<int> out;
  if (!noRegsAccumulation(s)) return out;
  for (const std::set<int>& more : {iterationLocalRegs(s, tl), iterationFreshRegs(s, tl), tileResetRegs(s, tl)})
    out.insert(more.begin(), more.end());
  return out;
}

void checkRegsPathIndependent(const ir::Schedule& s, const TileLoops& tl, const Limits& limits) {
  using K = ir::ExprKind;
  const ir::ExprPtr G = symbolNode(K::LoopVar, kFreshSymbol + 13);
  std::optional<FactProver> prover;
  std::optional<std::set<int>> local;  // iterationLocalRegs, when an if needs it
  std::optional<std::set<int>> fresh;  // pathFreeRegs, when an if needs it
  auto readsStart = [&](const ir::ExprPtr& e) {
    return containsExpr(*replaceProducts(e, tl, G), *G) || containsExpr(*e, *tl.tiles) || readsInnerBare(*e, tl);
  };
  auto refuse = [&](const ir::ExprPtr& e, const char* what) {
    throw Fail(fmt::format("{} {} reads the tile's ring start or the tile count and decides what a tile does to its "
                           "register fragments (not covered by the persistent-kernel proof: the bounded check "
                           "decides)",
                           what, ir::exprToString(*e, s)));
  };
  // init= inside the K loop reading k: true at k = 0, false at every k >= 1
  auto firstOnly = [&](const ir::ExprPtr& init, int k) {
    if (!prover) prover.emplace(s, limits, std::vector<ir::ExprPtr>{});
    const ir::ExprPtr kv = symbolNode(K::LoopVar, k);
    const ir::ExprPtr at0 = substitute(init, *kv, ir::makeConst(0));
    const bool first = prover->prove(ir::makeExpr(K::Ne, {at0, ir::makeConst(0)})).kind == BvVerdict::Holds;
    const bool later = prover->prove(ir::makeExpr(K::Eq, {init, ir::makeConst(0)}),
                                     {ir::makeExpr(K::Ge, {kv, ir::makeConst(1)})})
                           .kind == BvVerdict::Holds;
    return first && later;
  };
  std::function<void(const ir::Block&, bool, int)> walk = [&](const ir::Block& b, bool in_tile, int k_var) {
    for (const ir::Stmt& st : b) {
      switch (st.kind) {
        case ir::Stmt::Kind::For: {
          const bool tile = tl.tile_vars.count(st.loop_var) > 0;
          const bool k = in_tile && tl.k_vars.count(st.loop_var) > 0;
          walk(st.body, in_tile || tile, k ? st.loop_var : k_var);
          break;
        }
        case ir::Stmt::Kind::If:
          // unless its branches differ only in fragments local to a K
          // iteration (iterationLocalRegs, sameEffect): the register
          // state of the others then is the same whichever branch runs
          if (in_tile && st.cond && readsStart(st.cond) && branchesName(st, ir::BufferRef::Kind::Regs)) {
            if (!local) local = iterationLocalRegs(s, tl);
            if (!sameEffect(st.body, st.orelse, EffectView{{ir::BufferRef::Kind::Regs}, *local, nullptr})) {
              if (!fresh) fresh = pathFreeRegs(s, tl);
              if (fresh->empty() || !sameRegsEffectOutside(st.body, st.orelse, *fresh)) refuse(st.cond, "the condition");
            }
          }
          walk(st.body, in_tile, k_var);
          walk(st.orelse, in_tile, k_var);
          break;
        case ir::Stmt::Kind::Op: {
          const ir::Op& o = st.op;
          if (!in_tile || o.kind != ir::OpKind::Mma || !o.init || o.dst.kind != ir::BufferRef::Kind::Regs) break;
          if (readsStart(o.init)) refuse(o.init, "init=");
          for (int k : tl.k_vars)
            if (mentionsLoopVar(*o.init, {k}) && (k != k_var || !firstOnly(o.init, k)))
              throw Fail(fmt::format("init= {} reads the K loop's variable and is not true exactly at its first "
                                     "iteration (not covered by the persistent-kernel proof: the bounded check "
                                     "decides)",
                                     ir::exprToString(*o.init, s)));
          break;
        }
      }
    }
  };
  for (const ir::RoleBody& body : s.bodies) walk(body.body, false, -1);
}

// Whether what a tile does to tensor memory depends on which tile it is: an
// `if` around TMEM accesses, or a TMEM MMA's `init=`, that reads the tile
// index or the tile count (the double-buffered accumulator's `if t % 2 == 0`;
// checkConsecutiveTileHazards).
bool tmemDependsOnTile(const ir::Schedule& s, const TileLoops& tl) {
  auto readsTile = [&](const ir::ExprPtr& e) {
    return e && (mentionsLoopVar(*e, tl.tile_vars) || (tl.tiles && containsExpr(*e, *tl.tiles)));
  };
  std::function<bool(const ir::Block&, bool)> walk = [&](const ir::Block& b, bool in_tile) {
    return std::any_of(b.begin(), b.end(), [&](const ir::Stmt& st) {
      switch (st.kind) {
        case ir::Stmt::Kind::For: return walk(st.body, in_tile || tl.tile_vars.count(st.loop_var) > 0);
        case ir::Stmt::Kind::If:
          if (in_tile && readsTile(st.cond) && branchesName(st, ir::BufferRef::Kind::Tmem)) return true;
          return walk(st.body, in_tile) || walk(st.orelse, in_tile);
        case ir::Stmt::Kind::Op:
          return in_tile && st.op.kind == ir::OpKind::Mma && namesKind(st.op, ir::BufferRef::Kind::Tmem) && readsTile(st.op.init);
      }
      return false;
    });
  };
  return std::any_of(s.bodies.begin(), s.bodies.end(), [&](const ir::RoleBody& r) { return walk(r.body, false); });
}

// Every sub-expression of the statements of `block` (copies share the
// schedule's expressions) into out.
void collectSubExprs(ir::Block block, std::set<const ir::Expr*>& out) {
  std::function<void(const ir::Expr&)> all = [&](const ir::Expr& e) {
    out.insert(&e);
    for (const ir::ExprPtr& a : e.args)
      if (a) all(*a);
  };
  mapExprs(block, [&](const ir::ExprPtr& e) {
    if (e) all(*e);
    return e;
  });
}

// Every sub-expression of the statements of a tile loop's body before its
// K loop (its part before the K loop, as the schedule writes it).
std::set<const ir::Expr*> preLoopExprs(const ir::Schedule& s, const TileLoops& tl, int role) {
  std::set<const ir::Expr*> out;
  std::function<void(const ir::Block&)> walk = [&](const ir::Block& b) {
    for (const ir::Stmt& st : b) {
      if (st.kind == ir::Stmt::Kind::For && tl.tile_vars.count(st.loop_var)) {
        auto k = std::find_if(st.body.begin(), st.body.end(), [&](const ir::Stmt& x) {
          return x.kind == ir::Stmt::Kind::For && tl.k_vars.count(x.loop_var);
        });
        collectSubExprs(ir::Block(st.body.begin(), k), out);
      }
      walk(st.body);
      walk(st.orelse);
    }
  };
  for (const ir::RoleBody& body : s.bodies)
    if (role < 0 || body.role == role) walk(body.body);
  return out;
}

// Does some statement of a tile loop's body before its K loop (of the
// role's body; -1: of any) read the tile's ring start `t * E_B`?
bool readsRingStartBeforeK(const ir::Schedule& s, const TileLoops& tl, int role = -1) {
  const std::set<const ir::Expr*> pre = preLoopExprs(s, tl, role);
  return std::any_of(pre.begin(), pre.end(), [&](const ir::Expr* e) { return isTileProduct(*e, tl); });
}

// A process whose part before the K loop reads the ring start gets a copy
// of that part per ring start (presByRingStart) also where the grid's text
// does not move with the ring: at ring start 0 the builder may have left a
// wait out (`lm.wait(full, iter=t * K - 1)`, a phase below 0 in every tile
// of the grid), and the grid's text then stood for every ring start, the
// wait left out in every explored run. A broken kernel waiting there for a
// phase its slot had passed (sync.lost-phase) was proved (helper fa8,
// session 39; docs/z3.md "The last tiles to a depth"). A process that skips
// tiles (its part read open, PreOpen) gets no copies: one whose part before
// the K loop reads the ring start and does not move is refused (helper
// sound40: the ping-pong GEMM's consumers waiting `iter=t * k_tiles - 1`
// there, a sync.lost-phase, were proved). A tile loop with two kinds of
// tile is left as it was (its K loops lie in the branches of the kind's
// guard, which preLoopExprs does not enter: the whole tile body would count
// as before the K loop; docs/known-limits.md).
void markRingStartReadersBeforeK(PGrid& g, const ir::Schedule& s, const TileLoops& tl) {
  for (size_t p = 0; p < g.shape.size(); ++p) {
    const TileShape& sh = g.shape[p];
    if (sh.kind != TileShape::Full || g.pre_moves[p]) continue;
    if (!readsRingStartBeforeK(s, tl, g.grid.procs[p].role)) continue;
    if (sh.step != 1)
      throw Fail(fmt::format("the part before the K loop of {} reads the tile's ring start in a process that skips "
                             "tiles (not covered by the persistent-kernel proof yet)",
                             g.grid.procs[p].name));
    g.pre_moves[p] = 1;
    if (g.pre_moving.empty())
      g.pre_moving = fmt::format("the part before the K loop of {} reads the tile's ring start", g.grid.procs[p].name);
  }
}

// lo <= v <= hi - 1 for every loop variable v of f that only loops with
// constant bounds and step bind (the hull over them where several do):
// every value v takes where an expression that reads it is evaluated. The
// tail queries' facts for a constant loop nested in the K loop (DeepGEMM's
// stage loop `for s in lm.range(0, 2)` around `if k * 2 + s < k_blocks:`),
// whose variable was free in them, so that no stage count held.
std::vector<ir::ExprPtr> constantLoopRanges(const ir::Schedule& s, const ir::Expr& f) {
  std::vector<const ir::Stmt*> loops;
  for (const ir::RoleBody& body : s.bodies) collectLoops(body.body, loops);
  std::map<int, std::pair<int64_t, int64_t>> hull;  // var -> [lo, hi - 1]
  std::set<int> other;                              // bound by some other loop too
  for (const ir::Stmt* st : loops) {
    if (!mentionsLoopVar(f, {st->loop_var})) continue;
    const auto lo = ir::constValue(st->lo);
    std::optional<int64_t> hi;
    if (st->hi) hi = ir::constValue(st->hi);
    const auto step = st->step ? ir::constValue(st->step) : std::optional<int64_t>(1);
    if (!lo || !hi || !step || *step < 1 || *hi <= *lo) {
      other.insert(st->loop_var);
      continue;
    }
    const int64_t first = *lo, last = *hi - 1;
    auto [it, fresh] = hull.emplace(st->loop_var, std::make_pair(first, last));
    if (!fresh) it->second = {std::min(it->second.first, first), std::max(it->second.second, last)};
  }
  std::vector<ir::ExprPtr> out;
  for (const auto& [var, range] : hull) {
    if (other.count(var)) continue;
    const ir::ExprPtr v = symbolNode(ir::ExprKind::LoopVar, var);
    out.push_back(ir::makeExpr(ir::ExprKind::Ge, {v, ir::makeConst(range.first)}));
    out.push_back(ir::makeExpr(ir::ExprKind::Le, {v, ir::makeConst(range.second)}));
  }
  return out;
}

// A K iteration's expression f that reads E_B besides t * E_B (a guard `k +
// c < E_B`; docs/z3.md "The last K iteration" and "The last K iterations,
// keyed by their distance to the tile's end"), with E_B read as the tile's
// end: returns the least depth m <= kMaxTailDepth with f(G, k, H) ==
// f(G, k, k + m + 1) for every H >= k + m + 1 (the iterations at least m + 1
// from the end read as the grid reads them), and checks that each of the
// last m, f(G, k, k + d) for d = 1..m, is a function of G + k that moves by
// one amount every ring period and every tile period. Else unknown.
int checkTailReads(FactProver& prover, const ir::Expr* use, const ir::ExprPtr& f, const ir::ExprPtr& k,
                   const ir::ExprPtr& G, const ir::ExprPtr& X, const ir::ExprPtr& H, const TileLoops& tl,
                   const PGrid& g, const std::string& EB, const std::vector<ir::ExprPtr>& ranges,
                   const std::function<void(const ir::Expr*, const std::string&)>& fail) {
  using K = ir::ExprKind;
  auto plus = [](const ir::ExprPtr& a, int64_t c) { return ir::makeExpr(K::Add, {a, ir::makeConst(c)}); };
  auto with = [&](std::vector<ir::ExprPtr> facts) {
    facts.insert(facts.end(), ranges.begin(), ranges.end());
    return facts;
  };
  const ir::ExprPtr fh = substitute(f, *tl.inner, H);
  auto atH = [&](const ir::ExprPtr& hv) { return substitute(fh, *H, hv); };
  auto ge = [](const ir::ExprPtr& a, const ir::ExprPtr& b) { return ir::makeExpr(K::Ge, {a, b}); };
  // (a deeper tail needs a wider window: each copy's end stays below 2 * Wg,
  // where the grid reads E_B)
  const int most = static_cast<int>(std::min<int64_t>(kMaxTailDepth, g.Wg / 2));
  int m = 0;
  BvVerdict r = BvVerdict::Unknown;
  for (int d = 1; d <= most && r != BvVerdict::Holds; ++d) {
    r = prover.prove(ir::makeExpr(K::Eq, {fh, atH(plus(k, d + 1))}),
                     with({ge(H, plus(k, d + 1)), ge(k, ir::makeConst(0)), ge(G, ir::makeConst(0))}))
            .kind;
    m = d;
  }
  if (r != BvVerdict::Holds)
    fail(use, fmt::format("reads {} outside t * {} and differs before a tile's last {} K iterations ({}; not "
                          "covered by the persistent-kernel proof yet)",
                          EB, EB, most, bvVerdictName(r)));
  for (int d = 1; d <= m; ++d) {
    const ir::ExprPtr tail = atH(plus(k, d));
    auto tat = [&](const ir::ExprPtr& gv, const ir::ExprPtr& kv) {
      return substitute(substitute(tail, *G, gv), *k, kv);
    };
    const std::string which = d == 1 ? std::string("a tile's last K iteration")
                                     : fmt::format("the K iteration {} before a tile's end", d);
    r = prover.prove(ir::makeExpr(K::Eq, {tat(plus(G, 1), plus(k, -1)), tail}),
                     with({ge(k, ir::makeConst(1)), ge(G, ir::makeConst(0))}))
            .kind;
    if (r != BvVerdict::Holds)
      fail(use, fmt::format("in {} is not a function of the ring index t * {} + k ({})", which, EB,
                            bvVerdictName(r)));
    const ir::ExprPtr h = tat(X, ir::makeConst(0));
    if (!affineIn(*h, X->index)) {
      r = movesWithPeriod(prover, h, *X, g.Pg, g.w0g, ranges);
      if (r != BvVerdict::Holds)
        fail(use, fmt::format("in {} does not move by the same amount every {} ring indices ({})", which, g.Pg,
                              bvVerdictName(r)));
    }
    for (int t : tl.tile_vars) {
      if (!mentionsLoopVar(*tail, {t}) || affineIn(*tail, t)) continue;
      r = movesWithPeriod(prover, tail, *symbolNode(K::LoopVar, t), g.Pt, g.tw, ranges);
      if (r != BvVerdict::Holds)
        fail(use, fmt::format("in {} does not move by the same amount every {} tiles ({})", which, g.Pt,
                              bvVerdictName(r)));
    }
  }
  return m;
}

// Beyond the window: every expression evaluated inside the tile loops is a
// function of t and of g = G + k (G: the tile's ring start, `t * E_B`),
// proved as e(G + 1, k - 1) == e(G, k) for k >= 1; it moves by the same
// amount every ring period of g from w0g on and every tile period of t from
// tw on (proved, or affine).
// An expression outside the K loop may read the tile's ring end G + E_B
// (`t * k_tiles + k_tiles - 1`), proved a function of it (e(G + 1, H - 1)
// == e(G, H) with E_B read as H), moving by the same amount every ring
// period of it; returns whether one does (postsByRingEnd then checks that
// only parts after the K loop do, and only in their slots and phases).
bool checkTileExprs(const ir::Schedule& s, const TileLoops& tl, const PGrid& g, const Limits& limits,
                    bool* first = nullptr, int* last = nullptr) {
  using K = ir::ExprKind;
  FactProver prover(s, limits, {});
  const ir::ExprPtr G = symbolNode(K::LoopVar, kFreshSymbol + 8), X = symbolNode(K::LoopVar, kFreshSymbol + 9);
  const ir::ExprPtr H = symbolNode(K::LoopVar, kFreshSymbol + 12);
  bool reads_end = false;
  const std::set<const ir::Expr*> pre_exprs = preLoopExprs(s, tl);
  const std::string EB = ir::exprToString(*tl.inner, s);  // E_B as the schedule writes it
  auto plus = [](const ir::ExprPtr& a, int64_t c) { return ir::makeExpr(K::Add, {a, ir::makeConst(c)}); };
  auto fail = [&](const ir::Expr* e, const std::string& why) {
    throw Fail(fmt::format("{} {}", ir::exprToString(*e, s), why));
  };
  auto check = [&](const ir::Expr* use, const ir::ExprPtr& e) {
    const bool bare = readsInnerBare(*e, tl);
    ir::ExprPtr f = replaceProducts(e, tl, G);
    const std::vector<ir::ExprPtr> ranges = constantLoopRanges(s, *f);
    auto withRanges = [&](std::vector<ir::ExprPtr> facts) {
      facts.insert(facts.end(), ranges.begin(), ranges.end());
      return facts;
    };
    std::set<int> ks;
    for (int k : tl.k_vars)
      if (mentionsLoopVar(*f, {k})) ks.insert(k);
    // evaluated in a K iteration (the grids read its E_B as the tile's end
    // k + 1 or far past it): a function of k even where it does not read it
    // (one that does not may be evaluated after the K loop too: the ring
    // end's checks below as well)
    const bool in_k = bare && g.end_in_k.count(use) > 0;
    if (bare && ks.empty()) {
      // the tile's ring end G + H (a part after the K loop)
      f = substitute(f, *tl.inner, H);
      auto at = [&](const ir::ExprPtr& gv, const ir::ExprPtr& hv) { return substitute(substitute(f, *G, gv), *H, hv); };
      BvVerdict r = prover.prove(ir::makeExpr(K::Eq, {at(plus(G, 1), plus(H, -1)), f}),
                                 {ir::makeExpr(K::Ge, {H, ir::makeConst(2)}), ir::makeExpr(K::Ge, {G, ir::makeConst(0)})})
                        .kind;
      if (r != BvVerdict::Holds)
        fail(use, fmt::format("reads {} outside t * {} and not as the tile's ring end t * {} + {} ({})",
                              EB, EB, EB, EB, bvVerdictName(r)));
      const ir::ExprPtr h = at(X, ir::makeConst(0));
      if (!affineIn(*h, X->index)) {
        r = movesWithPeriod(prover, h, *X, g.Pg, g.w0g, ranges);
        if (r != BvVerdict::Holds)
          fail(use, fmt::format("does not move by the same amount every {} ring indices ({})", g.Pg, bvVerdictName(r)));
      }
      reads_end = true;
    }
    if (in_k && ks.empty()) ks.insert(*tl.k_vars.begin());
    if (in_k) {
      if (!last || ks.size() != 1)
        fail(use, fmt::format("reads {} outside t * {} in a K iteration (not covered by the persistent-kernel proof "
                              "yet)",
                              EB, EB));
      const int m = checkTailReads(prover, use, f, symbolNode(K::LoopVar, *ks.begin()), G, X, H, tl, g, EB,
                                   ranges, fail);
      *last = std::max(*last, m);
      f = substitute(substitute(f, *tl.inner, H), *H, plus(symbolNode(K::LoopVar, *ks.begin()), m + 1));
    } else if (bare && !ks.empty()) {
      fail(use, fmt::format("reads {} outside t * {} (not covered by the persistent-kernel proof yet)",
                            EB, EB));
    }
    const bool reads_g = containsExpr(*f, *G);
    if (reads_g && ks.empty() && !bare && pre_exprs.count(use)) {
      // the tile's ring start G in its part before the K loop (a per-tile
      // prologue, docs/z3.md "A per-tile prologue that moves with the
      // ring"): copies per ring start (presByRingStart), moving by the same
      // amount every ring period of G beyond the window
      const ir::ExprPtr h = substitute(f, *G, X);
      if (!affineIn(*h, X->index)) {
        const BvVerdict r = movesWithPeriod(prover, h, *X, g.Pg, g.w0g, ranges);
        if (r != BvVerdict::Holds)
          fail(use, fmt::format("does not move by the same amount every {} ring starts ({})", g.Pg, bvVerdictName(r)));
      }
    } else if (ks.size() > 1 || (reads_g && ks.empty() && !bare)) {
      fail(use, "reads the tile's ring start outside the K loop");
    }
    if (!ks.empty()) {
      const ir::ExprPtr k = symbolNode(K::LoopVar, *ks.begin());
      auto at = [&](const ir::ExprPtr& gv, const ir::ExprPtr& kv) { return substitute(substitute(f, *G, gv), *k, kv); };
      // a function of G + k
      auto same = ir::makeExpr(K::Eq, {at(plus(G, 1), plus(k, -1)), f});
      BvVerdict r = prover.prove(same, withRanges({ir::makeExpr(K::Ge, {k, ir::makeConst(1)}),
                                                   ir::makeExpr(K::Ge, {G, ir::makeConst(0)})})).kind;
      if (r != BvVerdict::Holds && first) {
        // from the second iteration on (`if k > 0:`): the first its own copy
        // per ring start (firstIterations), evaluated there at k = 0
        const BvVerdict r2 = prover.prove(same, withRanges({ir::makeExpr(K::Ge, {k, ir::makeConst(2)}),
                                                            ir::makeExpr(K::Ge, {G, ir::makeConst(0)})})).kind;
        if (r2 == BvVerdict::Holds) {
          const ir::ExprPtr h1 = at(X, ir::makeConst(1));  // the text of k >= 1 at ring index X + 1
          if (!affineIn(*h1, X->index)) {
            r = movesWithPeriod(prover, h1, *X, g.Pg, g.w0g, ranges);
            if (r != BvVerdict::Holds)
              fail(use, fmt::format("does not move by the same amount every {} ring indices ({})", g.Pg,
                                    bvVerdictName(r)));
          }
          *first = true;
          r = BvVerdict::Holds;
        }
      }
      if (r != BvVerdict::Holds)
        fail(use, fmt::format("is not a function of the ring index t * {} + k ({}): the tile's K iterations would not "
                              "continue its ring", EB, bvVerdictName(r)));
      const ir::ExprPtr h = at(X, ir::makeConst(0));
      if (!affineIn(*h, X->index)) {
        r = movesWithPeriod(prover, h, *X, g.Pg, g.w0g, ranges);
        if (r != BvVerdict::Holds)
          fail(use, fmt::format("does not move by the same amount every {} ring indices ({})", g.Pg, bvVerdictName(r)));
      }
    }
    for (int t : tl.tile_vars) {
      if (!mentionsLoopVar(*f, {t}) || affineIn(*f, t)) continue;
      BvVerdict r = movesWithPeriod(prover, f, *symbolNode(K::LoopVar, t), g.Pt, g.tw, ranges);
      if (r != BvVerdict::Holds)
        fail(use, fmt::format("does not move by the same amount every {} tiles ({})", g.Pt, bvVerdictName(r)));
    }
  };
  // grid L evaluates expressions grid N does not (the `else:` of a read of
  // the tile count)
  std::vector<const ir::Expr*> exprs = g.grid.replace_loop_exprs;
  for (const ir::Expr* e : g.tail_exprs)  // (a branch only the last K iteration takes)
    if (std::find(exprs.begin(), exprs.end(), e) == exprs.end()) exprs.push_back(e);
  if (g.last_tile)
    for (const System& l : g.last)
      for (const ir::Expr* e : l.replace_loop_exprs)
        if (std::find(exprs.begin(), exprs.end(), e) == exprs.end()) exprs.push_back(e);
  for (const ir::Expr* use : exprs) {
    ir::ExprPtr e(std::shared_ptr<const ir::Expr>{}, use);  // non-owning: the schedule owns it
    // the K loop's own bound (each tile its own, step 2); E_B read in a K
    // iteration (the grids read it as the tile's end or past it) is checked
    if (ir::sameExpr(*e, *tl.inner) && !g.end_in_k.count(use)) continue;
    if (use == tl.kind_guard) continue;  // the tile's kind: explored both ways, not evaluated (MergedLoops)
    if (!containsExpr(*e, *tl.tiles)) {
      check(use, e);
      continue;
    }
    // A read of the tile count (tileCountDepth): the text of a tile that
    // is none of the last m (E_A read as t + m + 1) and of the d-th from
    // the end (t + d), each as a function of t.
    const ir::ExprPtr t = tileVarOf(*e, tl);
    for (int64_t d = g.not_last.far; d >= 1; --d) check(use, substitute(e, *tl.tiles, plus(t, d)));
  }
  return reads_end;
}

// The deepest tile from the end whose text reads the tile count otherwise
// than the tiles before it (`if t + 2 < T:` releases a two-slot Q ring on
// every tile but the last two: depth 2); deeper reads are refused.
constexpr int64_t kMaxTileCountDepth = 3;

// The least depth m (1 <= m <= kMaxTileCountDepth) such that every read of
// the tile count E_A inside tile t has one value for every A >= t + m + 1
// (the tile is none of the last m): e(t, A) == e(t, t + m + 1), for every
// t >= 0 and every value of the K loop's variable, proved; 0 without a
// read. The grid built with E_A read as t + m + 1 is then, tile by tile,
// the text of every tile that is none of the last m, and the one built
// with t + d (d <= m) that of the d-th tile from the end (docs/z3.md "The
// tile count inside the tile loop", "The last tiles to a depth").
int64_t tileCountDepth(const ir::Schedule& s, const TileLoops& tl, const std::vector<TileCountUse>& uses,
                       const Limits& limits) {
  using K = ir::ExprKind;
  FactProver prover(s, limits, {});
  const ir::ExprPtr A = symbolNode(K::LoopVar, kFreshSymbol + 10);
  int64_t depth = 0;
  for (const TileCountUse& u : uses) {
    ir::ExprPtr e(std::shared_ptr<const ir::Expr>{}, u.expr);  // non-owning: the schedule owns it
    for (const auto& [var, value] : u.loop_vars)
      e = substitute(e, *symbolNode(K::LoopVar, var), ir::makeConst(value));
    e = substitute(substitute(e, *symbolNode(K::Instance, 0), ir::makeConst(u.instance)), *tl.tiles, A);
    const ir::ExprPtr t = tileVarOf(*e, tl);
    if (ir::exprUses(*e, {K::Param, K::BlockIdx, K::GridDim}))
      throw Fail(fmt::format("{} reads {} inside the tile loop together with other parameters (not covered by the "
                             "persistent-kernel proof yet)",
                             ir::exprToString(*u.expr, s), ir::exprToString(*tl.tiles, s)));
    BvVerdict r = BvVerdict::Unknown;
    // (a use that holds at depth m holds at every deeper one: checked from the depth found so far)
    for (int64_t m = std::max<int64_t>(depth, 1); m <= kMaxTileCountDepth && r != BvVerdict::Holds; ++m) {
      const ir::ExprPtr far = ir::makeExpr(K::Add, {t, ir::makeConst(m + 1)});
      r = prover
              .prove(ir::makeExpr(K::Eq, {e, substitute(e, *A, far)}),
                     {ir::makeExpr(K::Ge, {t, ir::makeConst(0)}), ir::makeExpr(K::Ge, {A, far})})
              .kind;
      if (r == BvVerdict::Holds) depth = std::max(depth, m);
      else if (r != BvVerdict::Fails) break;  // (unsure: no deeper attempt decides it)
    }
    if (r != BvVerdict::Holds)
      throw Fail(fmt::format("{} reads {} inside the tile loop in a way that is not the same on every tile but the "
                             "last {} ({})",
                             ir::exprToString(*u.expr, s), ir::exprToString(*tl.tiles, s), kMaxTileCountDepth,
                             bvVerdictName(r)));
  }
  return depth;
}

// The grids with last tiles (PGrid::last) against the grid: each last
// tile's prefix, part before the K loop and K iterations are the grid's
// (a read of the tile count there: unknown; a role without the K loop must
// not differ in its last tiles at all); its part after the K loop repeats
// with the tile period and the grid's deltas, stays put under the ring
// shift, and accesses views with the flags the builder derives from the
// whole system (stage-like, written through itself) as the grid does for
// the same operation, or else for the view. (The tiles after a last tile of
// these grids are no tile of any run and are not compared.) With the reads
// of E_A proved to move with the tile period (checkTileExprs, the form for
// the last tile), the text repeats beyond the window too.
// The last tiles' parts after the K loop stay put under the ring shift
// (checkLastTileGrid asks it too, after the copies per ring start): asked
// right after the last tiles' grids are built, so that such a part (a wait
// of the tile's ring end, FA4's correction: `lm.wait(o_done, iter=t *
// n_blocks + n_blocks - 1)`, obstacle 4 of docs/z3.md "FA4's correction
// warpgroup") is refused before the grids per ring start are built.
void refuseLastTilePartsThatMove(const PGrid& g) {
  const System& sys = g.grid;
  for (size_t li = 0; li < g.last.size(); ++li)
    for (size_t p = 0; p < sys.procs.size(); ++p) {
      const TileShape &sh = g.shape[p], &ls = g.last_shape[li][p];
      if (sh.kind != TileShape::Full || ls.kind != TileShape::Full) continue;  // (checkLastTileGrid decides)
      const auto& b = g.last[li].procs[p].program;
      for (int64_t t = static_cast<int64_t>(li % 2); t < g.Wt; t += 2)
        for (int pc = ls.head[t][g.Wg]; pc < ls.tile_start[t + 1]; ++pc)
          if (!unmoved(g.ring, g.ring_named, b[pc]))
            throw Fail(fmt::format("{} at the last tile's part after the K loop of {} moves with the ring period",
                                   opText(*sys.schedule, *b[pc].stmt), sys.procs[p].name));
    }
}

void checkLastTileGrid(PGrid& g) {
  g.last_moving.assign(g.grid.procs.size(), std::string());
  int differs = -1;  // the grid's pc of the first difference found
  auto same = [&](const std::vector<Instr>& a, int a0, int a1, const std::vector<Instr>& b, int b0, int b1) {
    for (int i = 0; i < std::min(a1 - a0, b1 - b0); ++i)
      if (!sameInstr(a[a0 + i], b[b0 + i])) {
        differs = a0 + i;
        return false;
      }
    differs = std::min(a1, a0 + (b1 - b0));
    return a1 - a0 == b1 - b0;
  };
  const System& sys = g.grid;
  // (stage-like, written through itself) per operation and access, and per view, in the grid
  using Flags = std::pair<bool, bool>;
  std::map<std::pair<const ir::Stmt*, size_t>, std::set<Flags>> by_op;
  std::map<int, std::set<Flags>> by_view;
  for (const Process& proc : sys.procs)
    for (const Instr& in : proc.program)
      for (size_t k = 0; k < in.accesses.size(); ++k) {
        const Access& acc = in.accesses[k];
        if (acc.view < 0) continue;
        by_op[{in.stmt, k}].insert({acc.stage_like, acc.view_written});
        by_view[acc.view].insert({acc.stage_like, acc.view_written});
      }
  auto flagsAsInTheGrid = [&](const Instr& in, size_t k) {
    const Access& acc = in.accesses[k];
    auto op = by_op.find({in.stmt, k});
    const std::set<Flags>* known = op != by_op.end() ? &op->second : nullptr;
    if (!known) {
      auto v = by_view.find(acc.view);
      if (v == by_view.end()) return false;
      known = &v->second;
    }
    return known->size() == 1 && *known->begin() == Flags{acc.stage_like, acc.view_written};
  };
  for (size_t li = 0; li < g.last.size(); ++li) {
    const System& last = g.last[li];
    const int64_t i = static_cast<int64_t>(li % 2);  // (the parity of its last tiles)
    if (last.procs.size() != sys.procs.size()) throw Fail("internal: the grids of the last tile differ in processes");
    for (size_t p = 0; p < sys.procs.size(); ++p) {
      const TileShape &sh = g.shape[p], &ls = g.last_shape[li][p];
      const auto &a = sys.procs[p].program, &b = last.procs[p].program;
      auto refuse = [&](const char* where) {
        throw Fail(fmt::format("{} reads the tile count inside the tile loop {} (only the part after the K loop is "
                               "covered by the persistent-kernel proof; the last tile's grid differs at {})",
                               sys.procs[p].name, where,
                               differs >= 0 && differs < static_cast<int>(a.size())
                                   ? instrToString(sys, static_cast<int>(p), differs)
                                   : std::string("its end")));
      };
      if (sh.kind != ls.kind) refuse("in a way that changes its loops");
      if (sh.kind == TileShape::Static) continue;  // it reads E_A nowhere (buildGrid refuses reads outside the tile loop)
      if (!same(a, 0, sh.prefix_end, b, 0, ls.prefix_end)) refuse("before it");
      for (int64_t t = i; t < g.Wt; t += 2) {  // the last tiles of this grid
        if (sh.kind == TileShape::TileOnly) {
          if (!same(a, sh.tile_start[t], sh.tile_start[t + 1], b, ls.tile_start[t], ls.tile_start[t + 1]))
            refuse("in a role without the K loop");
          continue;
        }
        if (!same(a, sh.tile_start[t], sh.head[t][g.Wg], b, ls.tile_start[t], ls.head[t][g.Wg]))
          refuse("before the end of the K loop");
        for (int pc = ls.head[t][g.Wg]; pc < ls.tile_start[t + 1]; ++pc) {
          // (a part that moves: refused unless it gets copies per ring
          // end, whose periods the layout checks: refuseLastPartsThatMove)
          if (!unmoved(g.ring, g.ring_named, b[pc]) && g.last_moving[p].empty())
            g.last_moving[p] = fmt::format("{} at the last tile's part after the K loop of {} moves with the ring period",
                                           opText(*sys.schedule, *b[pc].stmt), sys.procs[p].name);
          for (size_t k = 0; k < b[pc].accesses.size(); ++k) {
            if (b[pc].accesses[k].view < 0) continue;
            if (!flagsAsInTheGrid(b[pc], k))
              throw Fail(fmt::format("{} at the last tile's part after the K loop of {} accesses a view otherwise "
                                     "than every other tile",
                                     opText(*sys.schedule, *b[pc].stmt), sys.procs[p].name));
          }
        }
      }
    }
  }
  for (size_t p = 0; p < sys.procs.size(); ++p) {
    if (g.shape[p].kind != TileShape::Full) continue;
    for (int64_t depth = 1; depth <= g.last_m; ++depth)
      for (int64_t t = g.tw; t + g.Pt < g.Wt; ++t) {
        const size_t i0 = PGrid::lastGrid(depth, t % 2), i1 = PGrid::lastGrid(depth, (t + g.Pt) % 2);
        const TileShape &l0 = g.last_shape[i0][p], &l1 = g.last_shape[i1][p];
        Deltas d = g.tile;
        if (!shiftedRange(g.last[i0].procs[p].program, l0.head[t][g.Wg], l0.tile_start[t + 1],
                          g.last[i1].procs[p].program, l1.head[t + g.Pt][g.Wg], l1.tile_start[t + g.Pt + 1], d,
                          static_cast<int>(p)) ||
            d.slot_phase != g.tile.slot_phase || d.view_index != g.tile.view_index || d.view_gen != g.tile.view_gen ||
            d.view_gen_stage != g.tile.view_gen_stage)
          throw Fail(fmt::format("{}'s part after the K loop of the last tile does not repeat with the tile period {}",
                                 sys.procs[p].name, g.Pt));
      }
  }
}

// The generations of a process that skips tiles, in the grid's convention
// (docs/z3.md "Tile loops with a step"). Every tile of the grid restarts
// the ring at index 0, so a process that accesses each ring index of a
// view m times a tile carries, at ring position g of tile t, the
// generation it has at g in the schedule plus t * m: the builder counts
// the accesses of the same index in the tiles before. A process that skips
// tiles counts only its own tiles before t, j of them: plus j * m. Its
// iteration-indexed accesses in its K iterations are moved to plus t * m,
// the count of a process that runs every tile, so that they compare with
// the others' (sim::staleData: index and generation) as in the schedule.
// Checked: the count grows by one m per own tile, for every access; a
// stage-indexed access in the K loop must keep its generation.
void alignSkippedGenerations(PGrid& g) {
  for (size_t p = 0; p < g.shape.size(); ++p) {
    const TileShape& sh = g.shape[p];
    if (sh.kind != TileShape::Full || sh.step == 1) continue;
    auto& prog = g.grid.procs[p].program;
    const int64_t t0 = sh.first, t1 = sh.first + sh.step;
    auto refuse = [&](const char* why) {
      throw Fail(fmt::format("{} skips tiles and {} (not covered by the persistent-kernel proof yet)",
                             g.grid.procs[p].name, why));
    };
    if (t1 >= g.Wt) refuse("runs fewer than two tiles of the window");
    for (int64_t gi = 0; gi < g.Wg; ++gi) {
      const int a0 = sh.head[t0][gi], n = sh.head[t0][gi + 1] - a0;
      const int b0 = sh.head[t1][gi];
      if (sh.head[t1][gi + 1] - b0 != n) refuse("runs K iterations of different lengths in its tiles");
      for (int o = 0; o < n; ++o) {
        const Instr &first = prog[a0 + o], &second = prog[b0 + o];
        if (first.accesses.size() != second.accesses.size()) refuse("accesses memory differently in its tiles");
        for (size_t k = 0; k < first.accesses.size(); ++k) {
          const Access x = first.accesses[k];  // a copy: the loop below moves the first tile's too
          if (x.view < 0) continue;
          const int64_t m = second.accesses[k].gen - x.gen;
          if (x.stage_like && m != 0) refuse("accesses a view by stages with a generation that grows in its K loop");
          int64_t j = 0;
          for (int64_t t = t0; t < g.Wt; t += sh.step, ++j) {
            const int at = sh.head[t][gi] + o;
            if (sh.head[t][gi + 1] - sh.head[t][gi] != n || prog[at].accesses.size() != first.accesses.size())
              refuse("runs K iterations of different lengths in its tiles");
            Access& y = prog[at].accesses[k];
            if (y.view != x.view || y.stage_like != x.stage_like || y.gen != x.gen + j * m)
              refuse("accesses a view with generations that do not grow by one amount per tile");
            if (!y.stage_like) y.gen = x.gen + t * m;
          }
        }
      }
    }
  }
}

// The generations of a view written by stages in the K loop, through the
// ring position (docs/z3.md "Stage-named writes in the K loop"). The
// builder counts a write's generation as the process's earlier writes of
// the same view index over overlapping bytes; every tile of the grid
// restarts the ring at 0, so tile t counts the whole tiles before it and
// its generation grows with t, while in a run of the schedule the writes
// before ring position g are those of the ring positions before g (and of
// the prefix). For a process that runs every tile and, per view: writes it
// (never reads it) by stages in its K iterations, does not access it in
// its tile loop outside them or after the tile loop, and writes the same
// indices and bytes at ring position g of every tile of the window, the
// generation at (t, g) is set to tile 0's at g, which is the schedule's at
// ring position g (tile 0 is the prefix, a part without the view and ring
// positions 0..g). A view that fails a condition keeps the builder's
// generations (the lap and period checks then decide, as before).
void alignStageWritesToTheRing(System& grid, const std::vector<TileShape>& shapes, int64_t Wt, int64_t Wg,
                               AlignedFields* out = nullptr) {
  if (out) out->resize(shapes.size());
  for (size_t p = 0; p < shapes.size(); ++p) {
    const TileShape& sh = shapes[p];
    if (sh.kind != TileShape::Full || sh.step != 1 || sh.first != 0 || Wt < 2) continue;
    std::vector<Instr>& prog = grid.procs[p].program;
    std::vector<bool> in_k(prog.size(), false);
    for (int64_t t = 0; t < Wt; ++t)
      for (int pc = sh.head[t][0]; pc < sh.head[t][Wg]; ++pc) in_k[static_cast<size_t>(pc)] = true;
    std::set<int> views, refused;
    for (size_t pc = 0; pc < prog.size(); ++pc)
      for (const Access& a : prog[pc].accesses) {
        if (a.view < 0) continue;
        if (in_k[pc] && a.stage_like) views.insert(a.view);
        // a read in the K loop, or any access of the tile loop outside it or after it
        if ((in_k[pc] && (!a.write || !a.stage_like)) || (!in_k[pc] && static_cast<int>(pc) >= sh.prefix_end))
          refused.insert(a.view);
      }
    for (int v : refused) views.erase(v);
    // ring position g of tile t against tile 0's: a view with a difference
    // there (or in an iteration whose shape differs) is left alone
    for (int64_t t = 1; t < Wt && !views.empty(); ++t)
      for (int64_t gi = 0; gi < Wg; ++gi) {
        const int a0 = sh.head[0][gi], b0 = sh.head[t][gi], n = sh.head[0][gi + 1] - a0;
        auto dropAll = [&](int from, int to) {
          for (int pc = from; pc < to; ++pc)
            for (const Access& a : prog[pc].accesses) views.erase(a.view);
        };
        if (sh.head[t][gi + 1] - b0 != n) {
          dropAll(a0, a0 + n);
          dropAll(b0, sh.head[t][gi + 1]);
          continue;
        }
        for (int o = 0; o < n; ++o) {
          const Instr &xi = prog[a0 + o], &yi = prog[b0 + o];
          if (xi.stmt != yi.stmt || xi.accesses.size() != yi.accesses.size()) {
            dropAll(a0 + o, a0 + o + 1);
            dropAll(b0 + o, b0 + o + 1);
            continue;
          }
          for (size_t k = 0; k < xi.accesses.size(); ++k) {
            const Access &x = xi.accesses[k], &y = yi.accesses[k];
            if (!views.count(x.view) && !views.count(y.view)) continue;
            if (!(x.view == y.view && x.space == y.space && x.index == y.index && x.lo == y.lo && x.hi == y.hi &&
                  x.write == y.write && x.stage_like == y.stage_like)) {
              views.erase(x.view);
              views.erase(y.view);
            }
          }
        }
      }
    for (int64_t t = 1; t < Wt && !views.empty(); ++t)
      for (int64_t gi = 0; gi < Wg; ++gi) {
        const int a0 = sh.head[0][gi], b0 = sh.head[t][gi], n = sh.head[0][gi + 1] - a0;
        if (sh.head[t][gi + 1] - b0 != n) continue;  // holds none of `views` (checked above)
        for (int o = 0; o < n; ++o) {
          if (prog[a0 + o].stmt != prog[b0 + o].stmt || prog[a0 + o].accesses.size() != prog[b0 + o].accesses.size())
            continue;  // the same
          for (size_t k = 0; k < prog[b0 + o].accesses.size(); ++k)
            if (views.count(prog[b0 + o].accesses[k].view))
              prog[b0 + o].accesses[k].gen = prog[a0 + o].accesses[k].gen;
        }
      }
    if (out) out->writes[p] = views;
  }
}

// Whether every K iteration of the window (every tile, every ring position)
// moves the read marker of a view no TMA load fills before the iteration's
// first access of `view`: the marker is the process's count of waits and
// bar.syncs, so there every byte range the process read before is read at
// another marker (a return) whatever it waited for between its K iterations.
// A wait outside the K iterations then changes no read generation in them
// (docs/z3.md "A read generation past waits outside the K loop").
bool movesMarkerBeforeEachAccess(const std::vector<Instr>& prog, const TileShape& sh, int64_t Wt, int64_t Wg,
                                 int view) {
  for (int64_t t = 0; t < Wt; ++t)
    for (int64_t gi = 0; gi < Wg; ++gi) {
      bool moved = false;
      for (int pc = sh.head[t][gi]; pc < sh.head[t][gi + 1]; ++pc) {
        const Instr& in = prog[static_cast<size_t>(pc)];
        const bool touches = std::any_of(in.accesses.begin(), in.accesses.end(),
                                         [view](const Access& a) { return a.view == view; });
        if (touches && !moved) return false;
        if (touches) break;
        moved = moved || in.kind == InstrKind::Wait || in.kind == InstrKind::SyncWait;
      }
    }
  return true;
}

// An mbarrier wait (no access, no named barrier): the only instruction a
// tile's K iteration may add to or leave out of tile 0's at the same ring
// position and still have its fields aligned (alignCountersToTheRing).
bool looseWait(const Instr& in) { return in.kind == InstrKind::Wait && in.accesses.empty() && in.named < 0; }

// What moves the read marker of `view` between its accesses in each K
// iteration (t, g), against tile 0's at g, where a tile adds or leaves out
// mbarrier waits (docs/z3.md "Read generations per view past a wait left out
// in tile 0"). A read's generation counts its returns: reads at another
// marker than the range's previous read. For a view no TMA load fills the
// marker is the process's count of waits and bar.syncs, so a return depends
// only on whether any moved between two accesses: every K iteration must
// move it before its first access (movesMarkerBeforeEachAccess: a return
// over every range read before, whatever waits came earlier) and then
// between its accesses exactly where tile 0's iteration does. For a view
// that TMA loads fill, the marker counts the waits on those barriers (per
// slot): the iteration's waits on them, with their slots, and its accesses
// of the view must come in tile 0's order (the waits on other barriers,
// which move nothing, may differ).
// The accesses of `view` in `iter` (a K iteration's instructions) and what
// moves its read marker among them, in order (markersAgree): -1 for a run of
// waits and bar.syncs (a view no TMA load fills: `fills` empty), the slot + 1
// of a wait on a barrier in `fills` (its fill barriers), -2 for an access.
// `trim`: the moves after the last access left off (where every K iteration
// moves the marker before its first access, they change no return).
std::vector<std::pair<int64_t, const ir::Stmt*>> markerEvents(std::span<const Instr> iter, int view,
                                                              const std::set<int>& fills, bool trim) {
  std::vector<std::pair<int64_t, const ir::Stmt*>> out;
  size_t last_access = 0;
  for (const Instr& in : iter) {
    const bool wait = in.kind == InstrKind::Wait || in.kind == InstrKind::SyncWait;
    if (fills.empty() && wait) {
      if (out.empty() || out.back().first != -1) out.push_back({-1, nullptr});
      continue;
    }
    if (!fills.empty() && in.kind == InstrKind::Wait && in.stmt && fills.count(in.stmt->op.barrier))
      out.push_back({int64_t{in.slot} + 1, in.stmt});
    for (const Access& a : in.accesses)
      if (a.view == view) {
        out.push_back({-2, in.stmt});
        last_access = out.size();
      }
  }
  if (trim) out.resize(last_access);
  return out;
}

// K iteration (t, g) of `sh` in `prog`.
std::span<const Instr> kIteration(const std::vector<Instr>& prog, const TileShape& sh, int64_t t, int64_t gi) {
  return {prog.data() + sh.head[t][gi], static_cast<size_t>(sh.head[t][gi + 1] - sh.head[t][gi])};
}

// What moves the read marker of `view` between its accesses in each K
// iteration (t, g), against tile 0's at g, where a tile adds or leaves out
// mbarrier waits (docs/z3.md "Read generations per view past a wait left out
// in tile 0"). A read's generation counts its returns: reads at another
// marker than the range's previous read. For a view no TMA load fills the
// marker is the process's count of waits and bar.syncs, so a return depends
// only on whether any moved between two accesses: every K iteration must
// move it before its first access (movesMarkerBeforeEachAccess: a return
// over every range read before, whatever waits came earlier) and then
// between its accesses exactly where tile 0's iteration does. For a view
// that TMA loads fill, the marker counts the waits on those barriers (per
// slot): the iteration's waits on them, with their slots, and its accesses
// of the view must come in tile 0's order (the waits on other barriers,
// which move nothing, may differ).
bool markersAgree(const std::vector<Instr>& prog, const TileShape& sh, int64_t Wt, int64_t Wg, int view,
                  const std::set<int>& fills) {
  if (fills.empty() && !movesMarkerBeforeEachAccess(prog, sh, Wt, Wg, view)) return false;
  for (int64_t gi = 0; gi < Wg; ++gi) {
    const auto base = markerEvents(kIteration(prog, sh, 0, gi), view, fills, fills.empty());
    for (int64_t t = 1; t < Wt; ++t)
      if (markerEvents(kIteration(prog, sh, t, gi), view, fills, fills.empty()) != base) return false;
  }
  return true;
}

// Counted phases and read generations through the ring position (docs/z3.md
// "Counters through the ring position"). Besides a write's generation the
// builder derives two more fields from what the process ran before: the
// phase of an mbarrier operation named by stage= without phase= (its
// earlier operations on the slot: `countedPhase`, a TMA load's derived
// expect_tx), and the generation a stage-named read means (how often the
// reader came back to the view index after a wait on a slot that fills it:
// `tag`, capped by `resolveReads`). The grid restarts the ring at 0 in every
// tile, so both grow with t there (8 per tile for 24 iterations of a
// 3-slot ring), while an evaluated phase (phase=it // 3) does not: no tile
// period. In a run they are functions of the ring position, and for a
// process that runs every tile they are set to tile 0's at the same ring
// position, under these conditions (each checked here; a barrier or view
// that fails one keeps the builder's values and the period checks decide):
//  * phases, per process and barrier b: every counted operation on b past
//    the prefix lies in a K iteration (so the counters behind b's slots
//    change only in the prefix and the K iterations), and the K iteration at
//    ring position g of every tile of the window runs tile 0's statements
//    besides mbarrier waits (a wait of a negative iteration, left out in
//    tile 0 only), and its counted operations on b are tile 0's with the
//    same kinds, slots, counts and bytes, one by one (so the counted
//    operations before ring position it of a run are the prefix's and those
//    of ring positions 0..it, whatever the tiles). At ring position 0 the
//    later tiles may differ from tile 0 where they agree with tile 1 (a
//    phase counter carried across tiles whose first wait only the CTA's
//    first tile leaves out, `if j > 0 or t > 0: lm.wait(dq_empty,
//    stage=0)`): a run's ring position 0 is tile 0's alone (every tile runs
//    at least one K iteration, so tile t starts at ring position t or
//    later), and the exploration never enters a later tile there nor
//    shifts a process there while the ring's warm-up is at least 1
//    (checked where the periods are found: AlignedFields::start_apart);
//    those positions take tile 1's phases, the same in every later tile;
//  * reads, per process and view v read by stages in its K iterations: the
//    process accesses v past the prefix in K iterations only, runs no wait
//    past the prefix outside them that moves the reader's marker (a wait on
//    a barrier whose TMA loads fill v; any wait or bar.sync for a view that
//    no TMA load fills, unless every K iteration waits before its first
//    access of v: movesMarkerBeforeEachAccess), and its K iteration at g of
//    every tile has tile 0's statements, wait slots and accesses of v, or,
//    where a tile adds or leaves out mbarrier waits, tile 0's statements
//    besides them, its accesses of v and what moves v's marker among them
//    (markersAgree). resolveReads capped the
//    generation at the highest lap another process writes over the bytes;
//    the cap must bind neither in the grid (tile 0's generation is below
//    the grid's cap: it is the count itself) nor in any run: another process
//    that runs every tile writes v by stages over the bytes at the same ring
//    position g, in every tile of the window with one generation (the
//    schedule's, by the write rule above) at least the read's; that write
//    is in every system whose reader reaches ring position g, and both move
//    by the view's one generation delta per ring period.
// A first K iteration of its own (firstIterations): in a run the K
// iterations at the tiles' ring starts are the first iteration's copies,
// not the grid's; they keep these fields where they change no count
// (checkFirstCopiesKeepCounters), else the proof is unknown.
// Returns whether any field changed.
bool alignCountersToTheRing(System& grid, const std::vector<TileShape>& shapes, int64_t Wt, int64_t Wg,
                            AlignedFields* out = nullptr) {
  if (!grid.schedule || Wt < 2) {
    alignStageWritesToTheRing(grid, shapes, Wt, Wg, out);
    return false;
  }
  const ir::Schedule& s = *grid.schedule;
  const std::map<int, std::set<int>> fill = fillBarriers(s);
  // resolveReads' cap of a read in the grid as built (before any alignment)
  struct Written { int space, proc, view; int64_t lo, hi, lap; };
  std::vector<Written> written;
  for (size_t q = 0; q < grid.procs.size(); ++q)
    for (const Instr& in : grid.procs[q].program)
      for (const Access& a : in.accesses)
        if (a.write && a.view >= 0)
          written.push_back({a.space, static_cast<int>(q), a.view, a.lo, a.hi, a.index >= 0 ? dataLap(s, a) : 0});
  auto rawCap = [&](int p, const Access& a) {
    int64_t own = -1, any = -1;
    for (const Written& w : written) {
      if (w.space != a.space || w.proc == p || !(w.lo < a.hi && a.lo < w.hi)) continue;
      any = std::max(any, w.lap);
      if (w.view == a.view) own = std::max(own, w.lap);
    }
    return a.view_written ? own : any;
  };
  alignStageWritesToTheRing(grid, shapes, Wt, Wg, out);

  auto counted = [](const Instr& in) {
    return in.slot >= 0 && in.stmt && in.stmt->op.sel.mode != ir::SlotSel::Mode::Iter && !in.stmt->op.sel.phase;
  };
  auto everyTile = [&](size_t p) {
    const TileShape& sh = shapes[p];
    return sh.kind == TileShape::Full && sh.step == 1 && sh.first == 0;
  };
  auto sameAccessBesidesGen = [](const Access& x, const Access& y) {
    return x.space == y.space && x.view == y.view && x.index == y.index && x.lo == y.lo && x.hi == y.hi &&
           x.write == y.write && x.proxy == y.proxy && x.async == y.async && x.stage_like == y.stage_like &&
           x.view_written == y.view_written;
  };
  // K iteration (t, g) of p paired with tile 0's at g, instruction by
  // instruction, mbarrier waits apart where `besides_waits` (a wait whose
  // iteration is negative in tile 0 only, `if j == 0: lm.wait(o_empty,
  // iter=t - 1)`, is left out there: docs/z3.md "Read generations per view
  // past a wait left out in tile 0"); nullopt where the rest differs
  auto pairsOf = [&](size_t p, int64_t t, int64_t gi, bool besides_waits) -> std::optional<std::vector<std::pair<int, int>>> {
    const TileShape& sh = shapes[p];
    const auto& prog = grid.procs[p].program;
    auto kept = [&](int64_t tt) {
      std::vector<int> pcs;
      for (int pc = sh.head[tt][gi]; pc < sh.head[tt][gi + 1]; ++pc)
        if (!besides_waits || !looseWait(prog[static_cast<size_t>(pc)])) pcs.push_back(pc);
      return pcs;
    };
    const std::vector<int> a = kept(0), b = kept(t);
    if (a.size() != b.size()) return std::nullopt;
    std::vector<std::pair<int, int>> pairs;
    for (size_t i = 0; i < a.size(); ++i) {
      const Instr &x = prog[static_cast<size_t>(a[i])], &y = prog[static_cast<size_t>(b[i])];
      if (x.stmt != y.stmt || x.kind != y.kind || x.accesses.size() != y.accesses.size()) return std::nullopt;
      pairs.emplace_back(a[i], b[i]);
    }
    return pairs;
  };
  bool changed = false;
  std::vector<std::vector<bool>> in_k_of(shapes.size());
  for (size_t p = 0; p < shapes.size(); ++p) {
    if (!everyTile(p)) continue;
    const TileShape& sh = shapes[p];
    auto& in_k = in_k_of[p];
    in_k.assign(grid.procs[p].program.size(), false);
    for (int64_t t = 0; t < Wt; ++t)
      for (int pc = sh.head[t][0]; pc < sh.head[t][Wg]; ++pc) in_k[static_cast<size_t>(pc)] = true;
  }
  for (size_t p = 0; p < shapes.size(); ++p) {
    if (!everyTile(p)) continue;
    const TileShape& sh = shapes[p];
    std::vector<Instr>& prog = grid.procs[p].program;
    const auto& in_k = in_k_of[p];
    auto past = [&](size_t pc) { return static_cast<int>(pc) >= sh.prefix_end && !in_k[pc]; };
    // pairs[t][gi]: K iteration (t, gi) against tile 0's; `exact` where no
    // mbarrier wait is added or left out anywhere
    std::vector<std::vector<std::vector<std::pair<int, int>>>> pairs(static_cast<size_t>(Wt));
    bool exact = true, agree = true;
    for (int64_t t = 1; t < Wt && agree; ++t)
      for (int64_t gi = 0; gi < Wg && agree; ++gi) {
        auto at = pairsOf(p, t, gi, false);
        if (!at) {
          exact = false;
          at = pairsOf(p, t, gi, true);
        }
        agree = at.has_value();
        if (agree) pairs[static_cast<size_t>(t)].push_back(std::move(*at));
      }
    if (!agree) continue;  // nothing is aligned for p
    if (!exact)  // every pairing besides the waits, one convention for all
      for (int64_t t = 1; t < Wt; ++t)
        for (int64_t gi = 0; gi < Wg; ++gi) pairs[static_cast<size_t>(t)][static_cast<size_t>(gi)] = *pairsOf(p, t, gi, true);
    // the counted operations on barrier b in K iteration (t, gi), in order
    auto countedOn = [&](int64_t t, int64_t gi, int b) {
      std::vector<int> pcs;
      for (int pc = sh.head[t][gi]; pc < sh.head[t][gi + 1]; ++pc)
        if (counted(prog[static_cast<size_t>(pc)]) && prog[static_cast<size_t>(pc)].stmt->op.barrier == b) pcs.push_back(pc);
      return pcs;
    };
    // ---- counted phases, per barrier
    std::set<int> bars;
    for (size_t pc = 0; pc < prog.size(); ++pc)
      if (in_k[pc] && counted(prog[pc])) bars.insert(prog[pc].stmt->op.barrier);
    for (size_t pc = 0; pc < prog.size(); ++pc)
      if (past(pc) && counted(prog[pc])) bars.erase(prog[pc].stmt->op.barrier);
    // the counted operations on b of K iterations (ta, gi) and (tb, gi) are
    // the same one by one (kinds, slots, counts, bytes)
    auto sameCounted = [&](int64_t ta, int64_t tb, int64_t gi, int b) {
      const std::vector<int> xs = countedOn(ta, gi, b), ys = countedOn(tb, gi, b);
      bool same = xs.size() == ys.size();
      for (size_t i = 0; i < xs.size() && same; ++i) {
        const Instr &x = prog[static_cast<size_t>(xs[i])], &y = prog[static_cast<size_t>(ys[i])];
        same = x.stmt == y.stmt && x.kind == y.kind && x.slot == y.slot && x.count == y.count &&
               x.bytes == y.bytes && x.derived == y.derived;
      }
      return same;
    };
    // b's counter runs with the ring: some K iteration past ring position 0
    // uses b (not a counter of tile starts, `if t > 0 and k == 0:
    // lm.wait(epi_done, stage=0)`, whose builder values are the run's)
    auto withTheRing = [&](int b) {
      for (int64_t gi = 1; gi < Wg; ++gi)
        if (!countedOn(0, gi, b).empty()) return true;
      return false;
    };
    // (every later tile's K iteration at gi against tile 0's, or, `apart`,
    // against tile 1's at ring position 0)
    auto agreeWith = [&](int b, bool apart) {
      for (int64_t t = 1; t < Wt; ++t)
        for (int64_t gi = 0; gi < Wg; ++gi)
          if (!sameCounted(apart && gi == 0 ? 1 : 0, t, gi, b)) return false;
      return true;
    };
    // per barrier, the counted operations of K iteration (t, gi) are tile 0's
    // at gi, one by one (the waits a tile adds or leaves out among them too);
    // at ring position 0 they may instead be tile 1's in every later tile
    // (start_apart, docs/z3.md "A phase counter carried across tiles")
    std::set<int> start_apart;
    for (auto it = bars.begin(); it != bars.end();) {
      if (agreeWith(*it, false)) {
        ++it;
      } else if (withTheRing(*it) && agreeWith(*it, true)) {
        start_apart.insert(*it);
        ++it;
      } else {
        it = bars.erase(it);
      }
    }
    // a barrier counted in the first K iteration only (`if k == 0:
    // lm.wait(acc_empty)`, a peeled first iteration's own wait): in a run
    // its count is the number of tiles begun, not a function of the ring
    // position; the builder's values (one more per tile, as in a run)
    // stay (checkFirstCopiesKeepCounters: the copies count it alike)
    std::set<int> first_only;
    for (auto it = bars.begin(); it != bars.end();) {
      bool later = false;
      for (int64_t t = 0; t < Wt && !later; ++t)
        for (int64_t gi = 1; gi < Wg && !later; ++gi) later = !countedOn(t, gi, *it).empty();
      if (!later) first_only.insert(*it);
      it = later ? std::next(it) : bars.erase(it);
    }
    if (out) {
      out->bars[p] = bars;
      out->first_only[p] = std::move(first_only);
      if (!start_apart.empty()) out->start_apart = true;
    }
    // (where tile 0's ring position 0 is set apart the grid's counters
    // follow the ring: the first K iterations' copies must keep them,
    // checkFirstCopiesKeepCounters, which takes a first-only operation on b
    // from iteration 0 of the tile, the position left unaligned here)
    changed = changed || !start_apart.empty();
    // (ring position 0 of a tile t >= 1 takes tile 1's phases there: a
    // position no run reaches, the same text in every later tile)
    auto reference = [&](int64_t gi, int b) { return gi == 0 && start_apart.count(b) ? 1 : 0; };
    for (int b : bars)
      for (int64_t t = 1; t < Wt; ++t)
        for (int64_t gi = 0; gi < Wg; ++gi) {
          const std::vector<int> xs = countedOn(reference(gi, b), gi, b), ys = countedOn(t, gi, b);
          for (size_t i = 0; i < xs.size(); ++i) {
            Instr& y = prog[static_cast<size_t>(ys[i])];
            if (y.phase == prog[static_cast<size_t>(xs[i])].phase) continue;
            y.phase = prog[static_cast<size_t>(xs[i])].phase;
            changed = true;
          }
        }
    // ---- read generations, per view
    std::set<int> views;
    for (size_t pc = 0; pc < prog.size(); ++pc)
      for (const Access& a : prog[pc].accesses)
        if (in_k[pc] && a.view >= 0 && !a.write && a.stage_like && a.index >= 0) views.insert(a.view);
    for (size_t pc = 0; pc < prog.size() && !views.empty(); ++pc) {
      if (!past(pc)) continue;
      for (const Access& a : prog[pc].accesses) views.erase(a.view);
      const Instr& in = prog[pc];
      if (in.kind == InstrKind::Wait || in.kind == InstrKind::SyncWait)
        for (auto it = views.begin(); it != views.end();) {
          auto f = fill.find(*it);
          const bool unfilled = f == fill.end() || f->second.empty();
          const bool moves = unfilled || (in.kind == InstrKind::Wait && in.stmt && f->second.count(in.stmt->op.barrier));
          const bool harmless = unfilled && movesMarkerBeforeEachAccess(prog, sh, Wt, Wg, *it);
          it = moves && !harmless ? views.erase(it) : std::next(it);
        }
    }
    for (int64_t t = 1; t < Wt && !views.empty(); ++t)
      for (int64_t gi = 0; gi < Wg && !views.empty(); ++gi)
        for (const auto& [xpc, ypc] : pairs[static_cast<size_t>(t)][static_cast<size_t>(gi)]) {
          const Instr &x = prog[static_cast<size_t>(xpc)], &y = prog[static_cast<size_t>(ypc)];
          if ((x.kind == InstrKind::Wait || x.kind == InstrKind::SyncWait) && (x.slot != y.slot || x.named != y.named))
            views.clear();  // the markers may move differently
          for (size_t k = 0; k < x.accesses.size(); ++k)
            if ((views.count(x.accesses[k].view) || views.count(y.accesses[k].view)) &&
                !sameAccessBesidesGen(x.accesses[k], y.accesses[k])) {
              views.erase(x.accesses[k].view);
              views.erase(y.accesses[k].view);
            }
        }
    if (!exact)  // a wait added or left out: each view's markers between its accesses compared
      for (auto it = views.begin(); it != views.end();) {
        auto f = fill.find(*it);
        const std::set<int> none;
        const std::set<int>& fills = f == fill.end() ? none : f->second;
        it = markersAgree(prog, sh, Wt, Wg, *it, fills) ? std::next(it) : views.erase(it);
      }
    // the cap: below the grid's, and a write of another process at the same ring position at least as new
    auto witnessed = [&](const Access& a, int64_t gi) {
      for (size_t q = 0; q < shapes.size(); ++q) {
        if (q == p || !everyTile(q)) continue;
        const TileShape& qs = shapes[q];
        const auto& qp = grid.procs[q].program;
        const int a0 = qs.head[0][gi], n = qs.head[0][gi + 1] - a0;
        for (int o = 0; o < n; ++o)
          for (size_t k = 0; k < qp[a0 + o].accesses.size(); ++k) {
            const Access& w = qp[a0 + o].accesses[k];
            if (!w.write || !w.stage_like || w.view != a.view || w.space != a.space || !(w.lo < a.hi && a.lo < w.hi) ||
                w.gen < a.gen)
              continue;
            bool every = true;  // the same write, with its generation, at g of every tile
            for (int64_t t = 1; t < Wt && every; ++t) {
              const int b0 = qs.head[t][gi];
              every = qs.head[t][gi + 1] - b0 == n && qp[b0 + o].stmt == qp[a0 + o].stmt &&
                      k < qp[b0 + o].accesses.size() && sameAccessBesidesGen(qp[b0 + o].accesses[k], w) &&
                      qp[b0 + o].accesses[k].gen == w.gen;
            }
            if (every) return true;
          }
      }
      return false;
    };
    for (int64_t gi = 0; gi < Wg && !views.empty(); ++gi) {
      const int a0 = sh.head[0][gi], n = sh.head[0][gi + 1] - a0;
      for (int o = 0; o < n; ++o)
        for (const Access& a : prog[a0 + o].accesses) {
          if (a.write || !views.count(a.view)) continue;
          if (!a.stage_like || a.index < 0 || a.gen >= rawCap(static_cast<int>(p), a) || !witnessed(a, gi))
            views.erase(a.view);
        }
    }
    for (int64_t t = 1; t < Wt && !views.empty(); ++t)
      for (int64_t gi = 0; gi < Wg; ++gi)
        for (const auto& [xpc, ypc] : pairs[static_cast<size_t>(t)][static_cast<size_t>(gi)])
          for (size_t k = 0; k < prog[static_cast<size_t>(ypc)].accesses.size(); ++k) {
            Access& y = prog[static_cast<size_t>(ypc)].accesses[k];
            const int64_t gen = prog[static_cast<size_t>(xpc)].accesses[k].gen;
            if (y.write || !views.count(y.view) || y.gen == gen) continue;
            y.gen = gen;
            changed = true;
          }
    if (out) out->reads[p] = views;
  }
  return changed;
}

// The last-tile grid last[i] in the grid's convention: the stage writes
// through the ring, and, where the grid's counted phases or read generations
// follow the ring position (PGrid::counters), those too. A last tile's part
// after the K loop runs after every K iteration of a run, so what it does
// moves no field of a K iteration; each last grid is aligned by the same
// rule on its own text, and checkLastTileGrid then requires its K
// iterations to equal the grid's field by field (a rule that decided
// otherwise there leaves the proof unknown).
void alignLastTileGrid(PGrid& g, size_t i) {
  if (g.counters) alignCountersToTheRing(g.last[i], g.last_shape[i], g.Wt, g.Wg);
  else alignStageWritesToTheRing(g.last[i], g.last_shape[i], g.Wt, g.Wg);
}

// Two kinds of tile (MergedLoops, docs/z3.md "Two tile loops as one, a
// kind per tile"). The explored program gives a process that runs both
// kinds, at every tile, the text of that tile in the grid of its kind; in
// a run of the schedule tile t of kind k is preceded by tiles of both
// kinds, and the builder derives some fields of an instruction from what
// the process ran before: a write's generation (its earlier writes of the
// view index), a read's (its waits since its last read of the index), an
// mbarrier operation's phase (its earlier uses of the slot). So:
//  * the processes whose programs are equal in both grids keep them
//    (kinded[p] = 0); the others must run every tile with a K loop, with
//    the same step, prefix and exit path in both grids (checked);
//  * an access of a kinded process to bytes no other process accesses (in
//    either grid; `smem_c[2 * lm.instance()]`, an instance's own staging)
//    gets generation 0 in both grids: the simulator compares generations
//    only between a read and a write of *different* processes
//    (sim::staleWrite: its own data is never stale), so they are read by
//    nothing (forgetPrivateGenerations);
//  * every other view access of a kinded process, and every operation on
//    an mbarrier slot or named barrier or MMA commit, is the same in both
//    grids block by block (the part before the K loop, each K iteration,
//    the part after): a read's bytes may differ (the builder counts reads
//    by view index), nothing else. Then the counters the builder derives
//    those fields from change alike in a tile of either kind, and the text
//    of tile t of kind k is the grid's whatever the kinds before it.
// Returns the kinded processes' names.

// (space, lo, hi, process) of every access of both grids.
std::set<AccessRange> accessRanges(const PGrid& g) { return accessRanges({&g.grid, &g.kgrid}); }

void markKinded(PGrid& g) {
  const size_t P = g.grid.procs.size();
  if (g.kgrid.procs.size() != P) throw Fail("internal: the two kinds' grids differ in processes");
  g.kinded.assign(P, 0);
  for (size_t p = 0; p < P; ++p) {
    const auto &a = g.grid.procs[p].program, &b = g.kgrid.procs[p].program;
    bool same = a.size() == b.size();
    for (size_t i = 0; same && i < a.size(); ++i) same = sameInstr(a[i], b[i]);
    g.kinded[p] = !same;
  }
  if (std::none_of(g.kinded.begin(), g.kinded.end(), [](char k) { return k; }))
    throw Fail("internal: the two kinds of tile build the same programs");
}

// Generation 0 for every access of a kinded process in sys to bytes no
// other process accesses (`all`: accessRanges).
void forgetPrivateIn(const PGrid& g, const std::set<AccessRange>& all, System& sys) {
  forgetPrivateIn(all, sys, [&](size_t p) { return g.kinded[p] != 0; });
}

void forgetPrivateGenerations(PGrid& g) {
  const std::set<AccessRange> all = accessRanges(g);
  forgetPrivateIn(g, all, g.grid);
  forgetPrivateIn(g, all, g.kgrid);
}

// Texts of one part per kind, process, tile and ring position (x < n), empty.
using PartTexts = std::vector<std::vector<std::vector<std::vector<std::vector<Instr>>>>>;
PartTexts emptyTexts(const PGrid& g, int64_t n) {
  const size_t P = g.grid.procs.size();
  PartTexts out(static_cast<size_t>(g.kinds), std::vector<std::vector<std::vector<std::vector<Instr>>>>(P));
  for (int kind = 0; kind < g.kinds; ++kind)
    for (size_t p = 0; p < P; ++p)
      if ((kind ? g.kshape : g.shape)[p].kind == TileShape::Full)
        out[kind][p].assign(static_cast<size_t>(g.Wt), std::vector<std::vector<Instr>>(static_cast<size_t>(n)));
  return out;
}

void checkKinds(const PGrid& g) {
  const System &k0 = g.grid, &k1 = g.kgrid;
  const std::set<AccessRange> all = accessRanges(g);
  for (size_t p = 0; p < g.shape.size(); ++p) {
    if (!g.kinded[p]) continue;
    const TileShape &s0 = g.shape[p], &s1 = g.kshape[p];
    const auto &a = k0.procs[p].program, &b = k1.procs[p].program;
    auto refuse = [&](const std::string& why) {
      throw Fail(fmt::format("{} runs two kinds of tile that {} (not covered by the persistent-kernel proof yet)",
                             k0.procs[p].name, why));
    };
    if (s0.kind != TileShape::Full || s1.kind != TileShape::Full) refuse("have no K loop");
    if (s0.step != s1.step || s0.first != s1.first) refuse("start or step differently");
    auto same = [&](int a0, int a1, int b0, int b1) {
      if (a1 - a0 != b1 - b0) return false;
      for (int i = 0; i < a1 - a0; ++i)
        if (!sameInstr(a[a0 + i], b[b0 + i])) return false;
      return true;
    };
    if (!same(0, s0.prefix_end, 0, s1.prefix_end)) refuse("differ before the tile loop");
    if (!same(s0.tile_start[g.Wt], s0.end, s1.tile_start[g.Wt], s1.end)) refuse("differ after the tile loop");
    // what the builder counts, in order, in a block of one kind
    using Event = std::tuple<int, int, int64_t, int64_t, int64_t, int64_t, int, int, int64_t, int64_t, int64_t, int,
                             int, int, int>;
    auto events = [&](const std::vector<Instr>& prog, int from, int to) {
      std::vector<Event> out;
      for (int pc = from; pc < to; ++pc) {
        const Instr& in = prog[pc];
        if (in.slot >= 0 || in.named >= 0 || in.kind == InstrKind::Wait || in.kind == InstrKind::SyncWait ||
            in.kind == InstrKind::MmaCommit)
          out.push_back({static_cast<int>(in.kind), in.slot, in.phase, in.count, in.bytes, in.pending, in.named, -1, 0,
                         0, 0, 0, 0, 0, 0});
        for (const Access& x : in.accesses) {
          if (x.view < 0 || privateTo(all, x, static_cast<int>(p))) continue;
          out.push_back({-1, x.view, x.index, x.gen, x.write ? x.lo : 0, x.write ? x.hi : 0, x.space, x.write,
                         0, 0, 0, x.stage_like, x.view_written, static_cast<int>(x.proxy), x.async});
        }
      }
      return out;
    };
    for (int64_t t = s0.first; t < g.Wt; t += s0.step) {
      if (events(a, s0.tile_start[t], s0.head[t][0]) != events(b, s1.tile_start[t], s1.head[t][0]))
        refuse(fmt::format("synchronize or access shared views differently before the K loop of tile {}", t));
      for (int64_t gi = 0; gi < g.Wg; ++gi)
        if (events(a, s0.head[t][gi], s0.head[t][gi + 1]) != events(b, s1.head[t][gi], s1.head[t][gi + 1]))
          refuse(fmt::format("synchronize or access shared views differently in K iteration {} of tile {}", gi, t));
      if (events(a, s0.head[t][g.Wg], s0.tile_start[t + 1]) != events(b, s1.head[t][g.Wg], s1.tile_start[t + 1]))
        refuse(fmt::format("synchronize or access shared views differently after the K loop of tile {}", t));
    }
  }
}

// Runs f on the grid of kind 1 (g.grid and g.shape swapped with g.kgrid and
// g.kshape for the call), for the checks written for one grid.
template <typename F>
void onKindGrid(PGrid& g, F&& f) {
  std::swap(g.grid, g.kgrid);
  std::swap(g.shape, g.kshape);
  struct Back {
    PGrid& g;
    ~Back() {
      std::swap(g.grid, g.kgrid);
      std::swap(g.shape, g.kshape);
    }
  } back{g};
  f();
}

// The deltas of one kind's grid into the other's: equal where both learned one.
void mergeDeltas(Deltas& into, const Deltas& from) {
  auto merge = [](auto& a, const auto& b) {
    for (const auto& [k, v] : b)
      if (!Deltas::learn(a, k, v)) throw Fail("the two kinds of tile move a barrier or view by different amounts per period");
  };
  merge(into.slot_phase, from.slot_phase);
  merge(into.view_index, from.view_index);
  merge(into.view_gen, from.view_gen);
  merge(into.view_gen_stage, from.view_gen_stage);
}

// The copies per ring end L of kind `kind` where no explored run ends a
// tile (postsByRingEnd): the grid's text, of the length the layout needs.
void standInForRingEnd(PGrid& g, int kind, int64_t L) {
  const System& main = kind ? g.kgrid : g.grid;
  const std::vector<TileShape>& shapes = kind ? g.kshape : g.shape;
  for (size_t p = 0; p < g.grid.procs.size(); ++p) {
    const TileShape& sh = shapes[p];
    if (sh.kind != TileShape::Full) continue;
    const std::vector<Instr>& mp = main.procs[p].program;
    for (int64_t t = sh.first; t < g.Wt; t += sh.step)
      g.post_text[kind][p][t][L].assign(mp.begin() + sh.head[t][g.Wg], mp.begin() + sh.tile_start[t + 1]);
  }
}

// Whether `in` of p's part before the K loop in a grid of another tile
// length is m, the grid's, besides the generations of the reads named by
// the ring start (PGrid::ring_start_reads). Those are counted by the reader
// from its history (a stage-named read), so they move with the tiles'
// length; no run takes them from a grid: p runs its copies per ring start
// (pre_x), and namePreReadsAsTheRing gives each such read in every copy the
// generation of the copy at ring start Wg (docs/z3.md "Reads named by the
// ring start"), whatever tiles came before.
bool sameBesidesRingStartReads(const Instr& in, const Instr& m, const PGrid& g, size_t p) {
  if (p >= g.pre_x.size() || !g.pre_x[p] || p >= g.ring_start_reads.size() || g.ring_start_reads[p].empty() ||
      in.accesses.size() != m.accesses.size())
    return sameInstr(in, m);
  Instr y = in;
  for (size_t k = 0; k < y.accesses.size(); ++k) {
    Access& a = y.accesses[k];
    if (!a.write && a.view >= 0 && a.view == m.accesses[k].view && g.ring_start_reads[p].count({in.stmt, a.view})) {
      a.gen = m.accesses[k].gen;
      a.stage_like = m.accesses[k].stage_like;
    }
  }
  return sameInstr(y, m);
}

// The parts after the K loop per ring end (docs/z3.md "The ring end after
// the K loop"): the grid's tiles all end at ring position Wg, so its part
// after tile t's K loop is the text for ring end Wg. For every L < Wg the
// grid of tiles of L iterations gives the text for ring end L (the ring
// end is all such an expression reads of the K trip count and the ring
// start: checkTileExprs). Checked, for every process with the tile loop,
// against the grid: every part before a K loop and every block of a
// process without the K loop is the same for every L (so nothing but the
// parts after the K loop reads the ring end), and a part after the K loop
// differs in its operations' slots and phases at most. Those of a process
// whose part after the K loop differs (or moves with the ring) are kept in
// post_text, and it gets a copy per ring end (layOutPersistent).
void postsByRingEnd(PGrid& g, const ir::Schedule& s, const Binding& binding, ir::Target target, const TileLoops& tl,
                    ProofBudget& budget) {
  const size_t P = g.grid.procs.size();
  g.post_x.assign(P, 0);
  g.post_text = emptyTexts(g, g.Wg + 1);
  // A ring end below min_len ends no tile that a run starts at 0, and one
  // below w0g is no ring shift's image (a shift moves ends of at least w0g
  // + Pg): no explored run ends a tile at a ring end below both
  // (PersistentExplorer::afterBody checks it), and the grid of tiles that
  // short is the text of no run; it is not built.
  g.post_unentered = std::min(g.min_len, g.w0g);
  std::set<AccessRange> all;
  if (g.kinds > 1) all = accessRanges(g);
  for (int kind = 0; kind < g.kinds; ++kind) {
    const System& main = kind ? g.kgrid : g.grid;
    const std::vector<TileShape>& shapes = kind ? g.kshape : g.shape;
    for (int64_t L = 1; L <= g.Wg; ++L) {
      if (L < g.post_unentered) {
        standInForRingEnd(g, kind, L);
        continue;
      }
      checkBudget(budget, "building the parts after the K loop per ring end");
      std::vector<TileCountUse> copy_uses;
      System sys = L == g.Wg ? main : buildGrid(s, binding, target, tl, g.Wt, L, g.not_last, &copy_uses, kind ? 0 : 1);
      // (past the last tiles, where grid N reads E_A: lastPostsByRingEnd)
      refuseTileCountReadsInCopies(s, tl, copy_uses, g.uses);
      // (a grid per ring end: charged as built, docs/z3.md "Settled resolutions")
      if (L < g.Wg) chargeBuild(budget, sys);
      if (g.kinds > 1 && L < g.Wg) forgetPrivateIn(g, all, sys);  // as forgetPrivateGenerations did to the grids
      for (size_t p = 0; p < P; ++p) {
        const TileShape& sh = shapes[p];
        if (sh.kind == TileShape::Static) continue;
        const TileShape ls = L == g.Wg ? sh : tileShapeOf(sys.procs[p], tl, g.Wt, L);
        std::vector<Instr>& prog = sys.procs[p].program;
        const std::vector<Instr>& mp = main.procs[p].program;
        int differs = -1;  // the grid's pc of the first difference
        auto refuse = [&](const std::string& where) {
          throw Fail(fmt::format("{} of {} depends on the K trip count (at {} with tiles of {} iterations; not covered "
                                 "by the persistent-kernel proof yet)",
                                 where, main.procs[p].name,
                                 differs >= 0 ? instrToString(main, static_cast<int>(p), differs) : std::string("its end"),
                                 L));
        };
        auto same = [&](int a0, int a1, int b0, int b1, bool slots, bool pre = false) {
          differs = -1;
          for (int i = 0; i < std::min(a1 - a0, b1 - b0); ++i) {
            Instr x = prog[a0 + i];
            if (slots) {  // (and the iter= value, which only messages read)
              x.slot = mp[b0 + i].slot;
              x.phase = mp[b0 + i].phase;
              x.iteration = mp[b0 + i].iteration;
            }
            if (!(pre ? sameBesidesRingStartReads(x, mp[b0 + i], g, p) : sameInstr(x, mp[b0 + i]))) {
              differs = b0 + i;
              return false;
            }
          }
          return a1 - a0 == b1 - b0;
        };
        if (!same(0, ls.prefix_end, 0, sh.prefix_end, false)) refuse("the part before the tile loop");
        if (!same(ls.tile_start[g.Wt], static_cast<int>(prog.size()), sh.tile_start[g.Wt], sh.end, false))
          refuse("the part after the tile loop");
        for (int64_t t = sh.first; t < g.Wt; t += sh.step) {
          if (sh.kind == TileShape::TileOnly) {
            if (!same(ls.tile_start[t], ls.tile_start[t + 1], sh.tile_start[t], sh.tile_start[t + 1], false))
              refuse(fmt::format("tile {}", t));
            continue;
          }
          if (!same(ls.tile_start[t], ls.head[t][0], sh.tile_start[t], sh.head[t][0], false, true))
            refuse(fmt::format("the part before the K loop of tile {}", t));
          const int a = ls.head[t][L], b = ls.tile_start[t + 1];
          if (!same(a, b, sh.head[t][g.Wg], sh.tile_start[t + 1], true))
            refuse(fmt::format("the part after the K loop of tile {} (besides slots and phases)", t));
          if (!same(a, b, sh.head[t][g.Wg], sh.tile_start[t + 1], false)) g.post_x[p] = 1;
          g.post_text[kind][p][t][L].assign(prog.begin() + a, prog.begin() + b);
        }
      }
    }
  }
  for (size_t p = 0; p < P; ++p)
    if (g.post_moves[p] && !g.post_x[p])
      throw Fail(fmt::format("the tile loop after the K loop of {} moves with the ring period", g.grid.procs[p].name));
}

// The last tiles' parts after the K loop per ring end (docs/z3.md "The last
// tiles' parts per ring end"; obstacle 4 of FA4's correction warpgroup): a
// run's d-th tile from the end that ends at ring position x runs the part
// the schedule evaluates with the tile count t + d and the ring end x. The
// last tiles' grids (PGrid::last) give it at x = Wg; for every x in
// [post_unentered, Wg) the grid of tiles of x iterations with the tiles of
// one parity the d-th from the end gives it at x (below post_unentered no
// explored run ends a tile: the grid's text stands in, postsByRingEnd).
// Checked against the last tiles' grid, as postsByRingEnd checks its
// copies against the grid: the part before the tile loop, the part after
// it, every part before a K loop and every block of a process without the
// K loop the same, and the last tiles' parts after the K loop differing in
// their operations' slots and phases at most. A process whose parts differ
// between ring ends gets a copy per ring end (post_last_x; the layout checks
// that copy x is copy x - Pg shifted by the ring's deltas and the copy of
// tile t the one of tile t - Pt shifted by the tile's).
void lastPostsByRingEnd(PGrid& g, const ir::Schedule& s, const Binding& binding, ir::Target target,
                        const TileLoops& tl, ProofBudget& budget) {
  if (g.kinds > 1) throw Fail("internal: the last tiles' grids in a tile loop with two kinds of tile");
  const size_t P = g.grid.procs.size();
  g.post_last_x.assign(P, 0);
  g.post_last_text.assign(static_cast<size_t>(g.last_m), emptyTexts(g, g.Wg + 1)[0]);
  // (the depths innermost: the grids of one parity and ring end that build
  // alike are one build, KeptLastGrids, and only those are kept)
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t L = g.Wg; L >= 1; --L) {
      KeptLastGrids kept;
      for (int64_t d = 1; d <= g.last_m; ++d) {
        const size_t li = PGrid::lastGrid(d, i);
        const System& main = g.last[li];
        const std::vector<TileShape>& shapes = g.last_shape[li];
        TileCountRead read = g.not_last;
        read.depth = d;
        read.parity = i;
        const bool built = L >= g.post_unentered && L < g.Wg;
        System at;
        if (built) {
          checkBudget(budget, "building the last tiles' parts after the K loop per ring end");
          bool reused = false;
          at = kept.get(read, g.last_m, &reused, [&](TileCountReadsAlike* alike) {
            return buildGrid(s, binding, target, tl, g.Wt, L, read, nullptr, 0, 0, 0, nullptr, false, -1, nullptr, alike);
          });
          if (!reused) chargeBuild(budget, at);  // (a grid per ring end: charged as built)
        }
        const System& sys = built ? at : main;
        for (size_t p = 0; p < P; ++p) {
          const TileShape& sh = shapes[p];
          if (sh.kind == TileShape::Static) continue;
          const TileShape ls = built ? tileShapeOf(sys.procs[p], tl, g.Wt, L) : sh;
          const std::vector<Instr>&prog = sys.procs[p].program, &mp = main.procs[p].program;
          auto require = [&](trip::PartDiff most, int a0, int a1, int b0, int b1, const std::string& where,
                             bool pre = false) {
            int differs = -1;
            auto same = [&](const Instr& a, const Instr& b) {
              return pre ? sameBesidesRingStartReads(a, b, g, p) : sameInstr(a, b);
            };
            const trip::PartDiff r = trip::comparePartAtRingEnd(prog, a0, a1, mp, b0, b1, same, &differs);
            if (r == trip::PartDiff::More || (r == trip::PartDiff::SlotsAndPhases && most == trip::PartDiff::Same))
              throw Fail(fmt::format("{} of {} in the {}-th tile from the end depends on the K trip count (at {} "
                                     "with tiles of {} iterations; not covered by the persistent-kernel proof yet)",
                                     where, main.procs[p].name, d,
                                     differs >= 0 && b0 + differs < b1
                                         ? instrToString(main, static_cast<int>(p), b0 + differs)
                                         : std::string("its end"),
                                     L));
            return r;
          };
          require(trip::PartDiff::Same, 0, ls.prefix_end, 0, sh.prefix_end, "the part before the tile loop");
          require(trip::PartDiff::Same, ls.tile_start[g.Wt], static_cast<int>(prog.size()), sh.tile_start[g.Wt],
                  sh.end, "the part after the tile loop");
          for (int64_t t = sh.first; t < g.Wt; t += sh.step) {
            if (sh.kind == TileShape::TileOnly) {
              require(trip::PartDiff::Same, ls.tile_start[t], ls.tile_start[t + 1], sh.tile_start[t],
                      sh.tile_start[t + 1], fmt::format("tile {}", t));
              continue;
            }
            require(trip::PartDiff::Same, ls.tile_start[t], ls.head[t][0], sh.tile_start[t], sh.head[t][0],
                    fmt::format("the part before the K loop of tile {}", t), true);
            // (every tile's part: the ones of the other parity are in the
            // history of the next last tile)
            const int a = ls.head[t][L], b = ls.tile_start[t + 1];
            const trip::PartDiff r = require(trip::PartDiff::SlotsAndPhases, a, b, sh.head[t][g.Wg],
                                             sh.tile_start[t + 1], fmt::format("the part after the K loop of tile {}", t));
            if (t % 2 != i) continue;  // (not the d-th from the end in this grid)
            if (r != trip::PartDiff::Same) g.post_last_x[p] = 1;
            auto& texts = g.post_last_text[static_cast<size_t>(d - 1)][p][static_cast<size_t>(t)];
            texts[static_cast<size_t>(L)].assign(prog.begin() + a, prog.begin() + b);
            if (L == g.Wg)  // (ring ends no explored run reaches, and 0: the grid's text stands in)
              for (int64_t x = 0; x < g.post_unentered; ++x) texts[static_cast<size_t>(x)] = texts[g.Wg];
          }
        }
      }
    }
}

// The first K iteration per ring start (docs/z3.md "The first K
// iteration"): an expression of the K loop that is a function of the ring
// index G + k only from k >= 1 on (`if k > 0: lm.arrive(empty, iter=it -
// 1)`; checkTileExprs) makes a tile's first iteration differ from the
// iteration of another tile at the same ring index. The grid's tiles all
// start at ring position 0; for every x < Wg the grid whose tiles start at
// x (`t * E_B` read as x) gives, in each tile's iteration 0, the text of a
// first iteration at ring start x, evaluated at k = 0 as the schedule
// evaluates it. It goes through the same alignments as the grid
// (generations), and is checked to be the grid's iteration x of the tile
// with operations left out (so it names what the grid's copies name, the
// way they name it) and to commit as many MMA groups.
// x's memory spaces numbered as main's: the builder numbers a register
// fragment's space at its first access, so a grid whose tiles start at
// another ring position (a `k % p` branch choosing another fragment first)
// numbers them in another order. Matched by what a space is (kind, pool or
// fragment, process, CTA); one main lacks is refused.
void alignSpacesTo(System& x, const System& main) {
  std::vector<int> to(x.spaces.size(), -1);
  for (size_t i = 0; i < x.spaces.size(); ++i) {
    const MemSpace& a = x.spaces[i];
    for (size_t j = 0; j < main.spaces.size(); ++j) {
      const MemSpace& b = main.spaces[j];
      if (a.kind == b.kind && a.index == b.index && a.process == b.process && a.cta == b.cta) to[i] = static_cast<int>(j);
    }
    if (to[i] < 0)
      throw Fail(fmt::format("a first K iteration accesses {}, which the grid does not (not covered by the "
                             "persistent-kernel proof yet)",
                             a.name));
  }
  auto map = [&](int sp) { return sp >= 0 && sp < static_cast<int>(to.size()) ? to[static_cast<size_t>(sp)] : sp; };
  for (Process& proc : x.procs)
    for (Instr& in : proc.program) {
      for (Access& a : in.accesses) a.space = map(a.space);
      in.regs_hazard.regs_space = map(in.regs_hazard.regs_space);
    }
  x.spaces = main.spaces;
}

// The mbarrier slots that the process's K iterations use only at k = 0:
// the grid's iteration 0 of some tile uses them, no iteration k >= 1 of any
// tile does.
std::set<int> firstOnlySlots(const std::vector<Instr>& prog, const TileShape& sh, int64_t Wt, int64_t Wg) {
  std::set<int> first, later;
  for (int64_t t = sh.first; t < Wt; t += sh.step)
    for (int64_t gi = 0; gi < Wg; ++gi)
      for (int pc = sh.head[t][gi]; pc < sh.head[t][gi + 1]; ++pc)
        if (prog[pc].slot >= 0) (gi == 0 ? first : later).insert(prog[pc].slot);
  std::set<int> only;
  for (int sl : first)
    if (!later.count(sl)) only.insert(sl);
  return only;
}

// `in` is `m` but for the loop variables' values (a first K iteration's k
// is 0, the grid's iteration there has the ring index)
bool sameBesidesLoops(const Instr& in, const Instr& m) {
  Instr y = in;
  y.loops = m.loops;
  y.iteration = m.iteration;
  return sameInstr(y, m);
}

// `in` (a first K iteration's at a ring start x > 0, from the grid whose
// tiles start at x) is the grid's `m` but for the loop variables' values and
// the fields the grid's alignment set through the ring position
// (PGrid::aligned): the generation of a stage write whose view is aligned,
// and, where the grid's counters follow the ring position, the generation of
// a read and the counted phase of an operation that are aligned. The grid
// at x counts them from its own history (its tiles start at x, no ring
// position before x ran), the copy takes m's, tile 0's at x: the run's
// where the copies leave out no stage write (refuseDroppedStageWrites) and
// change no count (checkFirstCopiesKeepCounters).
bool sameBesidesAligned(const Instr& in, const Instr& m, const PGrid& g, size_t p) {
  if (in.accesses.size() != m.accesses.size() || in.stmt != m.stmt) return false;
  Instr y = in;
  const AlignedFields& al = g.aligned;
  auto has = [p](const std::vector<std::set<int>>& v, int x) { return p < v.size() && v[p].count(x); };
  for (size_t k = 0; k < y.accesses.size(); ++k) {
    Access& a = y.accesses[k];
    if (a.view < 0 || a.view != m.accesses[k].view) continue;
    if ((a.write && a.stage_like && has(al.writes, a.view)) || (!a.write && g.counters && has(al.reads, a.view)))
      a.gen = m.accesses[k].gen;
  }
  if (g.counters && y.slot >= 0 && y.stmt && y.stmt->op.sel.mode != ir::SlotSel::Mode::Iter && !y.stmt->op.sel.phase &&
      has(al.bars, y.stmt->op.barrier))
    y.phase = m.phase;
  return sameBesidesLoops(y, m);
}

// The pc in [a, b) (the grid's iteration 0 of a tile) of an operation equal
// to `in` (a first K iteration's, at a ring start x > 0) that may be added
// to the grid's iteration x: an mbarrier wait or arrival with no access, on
// a slot that no K iteration k >= 1 of the process uses (`only`), so that
// the builder's counters behind every later iteration's fields (phases per
// slot, generations per view, named-barrier generations, MMA commits) are
// the same whether or not it runs; -1 if none.
int firstOnlyOp(const Instr& in, const std::vector<Instr>& prog, int a, int b, const std::set<int>& only) {
  if ((in.kind != InstrKind::Wait && in.kind != InstrKind::Arrive) || !in.accesses.empty() || in.named >= 0 ||
      in.slot < 0 || !only.count(in.slot))
    return -1;
  for (int pc = a; pc < b; ++pc)
    if (sameBesidesLoops(in, prog[pc])) return pc;
  return -1;
}

// A first K iteration that leaves out a stage-named write (docs/z3.md "Counters
// through the ring position", the open question of session 19, settled by
// helper cucoll in session 20): the generation of a stage-named write counts
// the process's earlier writes of the view index, and alignStageWritesToTheRing
// sets it to tile 0's at the same ring position, where only one tile start (at
// 0) came before. A run whose tiles start at x_1, x_2, ... > 0 and whose first
// iterations leave the write out counts one write fewer per such start: the
// aligned value is the run's only when the first iteration leaves out no
// stage-named write. Where one is left out (mp[from, to)), the copies are
// refused.
void refuseDroppedStageWrites(const std::vector<Instr>& mp, int from, int to, const std::string& proc, int64_t x) {
  for (int pc = from; pc < to; ++pc)
    for (const Access& a : mp[static_cast<size_t>(pc)].accesses)
      if (a.write && a.stage_like && a.view >= 0)
        throw Fail(fmt::format("the first K iteration of {} at ring start {} leaves out a stage-named write of its "
                               "other iterations (its generation would not follow the ring position; not covered by "
                               "the persistent-kernel proof yet)",
                               proc, x));
}

// Whether firstIterations may take presByRingStart's grid at ring start x
// (PGrid::pre_grids): the grid of one kind of tile, built with the tile
// count past the last tiles (ringStartGrid: E_A read as the grid does),
// aligned as firstIterations aligns its own, where no process skips tiles
// (firstIterations' skipped generations, which ringStartGrid leaves).
bool reusesPreGrid(const PGrid& g, int kind, int64_t x) {
  if (kind != 0 || g.kinds > 1 || static_cast<size_t>(x) >= g.pre_grids.size()) return false;
  if (g.pre_grids[static_cast<size_t>(x)].procs.empty()) return false;
  return std::none_of(g.shape.begin(), g.shape.end(), [](const TileShape& sh) { return sh.step > 1; });
}

void firstIterations(PGrid& g, const ir::Schedule& s, const Binding& binding, ir::Target target, const TileLoops& tl,
                     ProofBudget& budget) {
  const size_t P = g.grid.procs.size();
  g.first_x.assign(P, 0);
  g.first_text = emptyTexts(g, g.Wg);
  std::set<AccessRange> all;
  if (g.kinds > 1) all = accessRanges(g);
  for (int kind = 0; kind < g.kinds; ++kind) {
    const System& main = kind ? g.kgrid : g.grid;
    const std::vector<TileShape>& shapes = kind ? g.kshape : g.shape;
    for (int64_t x = 0; x < g.Wg; ++x) {
      checkBudget(budget, "building the first K iterations per ring start");
      PGrid at;
      at.Wt = g.Wt;
      at.Wg = g.Wg;
      if (x == 0) {
        at.grid = main;
        at.shape = shapes;
      } else if (reusesPreGrid(g, kind, x)) {
        // (presByRingStart's grid at x: built and aligned as below)
        at.grid = std::move(g.pre_grids[static_cast<size_t>(x)]);
        g.pre_grids[static_cast<size_t>(x)] = {};
        at.shape = g.pre_shapes[static_cast<size_t>(x)];
      } else {
        std::vector<TileCountUse> copy_uses;
        at.grid = buildGrid(s, binding, target, tl, g.Wt, g.Wg, g.not_last, &copy_uses, kind ? 0 : 1, x);
        // (the grid's reads of E_A, one value past the last m tiles, read as
        // it does; the last tiles' first iterations: lastTilesAtRingStart)
        refuseTileCountReadsInCopies(s, tl, copy_uses, g.uses);
        chargeBuild(budget, at.grid);  // (a grid per ring start: charged as built)
        alignSpacesTo(at.grid, main);
        for (const Process& proc : at.grid.procs) at.shape.push_back(tileShapeOf(proc, tl, g.Wt, g.Wg));
        if (g.kinds > 1) forgetPrivateIn(g, all, at.grid);
        if (std::any_of(at.shape.begin(), at.shape.end(), [](const TileShape& sh) { return sh.step > 1; }))
          alignSkippedGenerations(at);
        // (aligned as the grid was: its texts are matched against the grid's)
        if (g.counters) alignCountersToTheRing(at.grid, at.shape, g.Wt, g.Wg);
        else alignStageWritesToTheRing(at.grid, at.shape, g.Wt, g.Wg);
      }
      for (size_t p = 0; p < P; ++p) {
        const TileShape &sh = shapes[p], &xs = at.shape[p];
        if (sh.kind != TileShape::Full) continue;
        const std::vector<Instr>& mp = main.procs[p].program;
        const std::vector<Instr>& xp = at.grid.procs[p].program;
        for (int64_t t = sh.first; t < g.Wt; t += sh.step) {
          const int a = xs.head[t][0], b = xs.head[t][1];
          const int ma = sh.head[t][x], mb = sh.head[t][x + 1];
          // xp[a, b) is mp[ma, mb) with operations left out (the loop
          // variables' values apart: k is 0 there, the ring index here)
          std::vector<Instr> text;
          int j = ma;
          bool added = false;  // an operation of the grid's first iteration taken (firstOnlyOp)
          for (int i = a; i < b; ++i) {
            int jj = j;
            while (jj < mb && !sameBesidesAligned(xp[i], mp[jj], g, p)) ++jj;
            if (jj < mb) {
              if (x > 0) refuseDroppedStageWrites(mp, j, jj, main.procs[p].name, x);
              text.push_back(mp[jj]);
              j = jj + 1;
              continue;
            }
            // An operation that only a tile's first iteration runs (`if t >
            // 0 and k == 0: lm.wait(epi_done, ...)`): the grid's iteration 0
            // of the tile has it, the same instruction (docs/z3.md "An
            // operation of the first K iteration only")
            const int z = x > 0 ? firstOnlyOp(xp[i], mp, sh.head[t][0], sh.head[t][1], firstOnlySlots(mp, sh, g.Wt, g.Wg))
                                : -1;
            if (z < 0 && std::getenv("CAKE_PERSIST_STATS")) {  // the copy's operation and the grid's iteration
              fmt::print(stderr, "persist-stats: first iteration at ring start {}, tile {}: {}\n", x, t,
                         instrToString(at.grid, static_cast<int>(p), i));
              for (int q = ma; q < mb; ++q)
                fmt::print(stderr, "persist-stats:   grid: {}\n", instrToString(main, static_cast<int>(p), q));
            }
            if (z < 0)
              throw Fail(fmt::format("the first K iteration of {} at ring start {} is not its other iterations' text "
                                     "with operations left out or operations of the first iteration only added (not "
                                     "covered by the persistent-kernel proof yet)",
                                     main.procs[p].name, x));
            text.push_back(mp[z]);
            added = true;
          }
          if (x > 0) refuseDroppedStageWrites(mp, j, mb, main.procs[p].name, x);
          if (commitsIn(xp, a, b) != commitsIn(mp, ma, mb))
            throw Fail(fmt::format("the first K iteration of {} commits a different number of MMA groups",
                                   main.procs[p].name));
          if ((b - a != mb - ma || added) && x > 0) g.first_x[p] = 1;
          if (p < g.first_named.size() && g.first_named[p]) {
            // the copy arrives as the grid's iteration 0 (gridCounts' count of the tile)
            std::map<int, int64_t> arrivals;
            for (const Instr& in : text)
              if (in.kind == InstrKind::SyncArrive || in.kind == InstrKind::BarArrive)
                arrivals[in.named] += main.procs[p].warps;
            auto it = g.first_arrivals[p].find(t);
            if (it == g.first_arrivals[p].end() || arrivals != it->second)
              throw Fail(fmt::format("the first K iteration of {} at ring start {} arrives on named barriers "
                                     "otherwise than at ring start 0 (not covered by the persistent-kernel proof yet)",
                                     main.procs[p].name, x));
          }
          g.first_text[kind][p][t][x] = std::move(text);
        }
      }
    }
  }
  // (x = 0: the grid's own iteration 0; a process whose first iteration
  // equals its other iterations keeps body_at, as before)
}

// What checkFirstCopiesKeepCounters asks of one copy (`copy`, a first K
// iteration's) against the iteration it stands for (`iter`): "" where the
// copy's counted mbarrier operations (phases included) and, per view of
// `views`, its accesses and its read marker's moves are the iteration's;
// else what differs. The operations on `first_only` (barriers counted in
// the K loop's first iteration only, AlignedFields::first_only) are
// compared with the tile's first iteration `first_iter` instead.
std::string countersDiffer(const PGrid& g, size_t p, std::span<const Instr> copy, std::span<const Instr> iter,
                           const std::set<int>& views, const std::map<int, std::set<int>>& fill,
                           const std::set<int>& first_only, std::span<const Instr> first_iter) {
  auto counted = [](const Instr& in) {
    return in.slot >= 0 && in.stmt && in.stmt->op.sel.mode != ir::SlotSel::Mode::Iter && !in.stmt->op.sel.phase;
  };
  // (first: the counted operations on the barriers p counts in the first
  // iteration only, else those on the others)
  auto countedOps = [&](std::span<const Instr> it, bool first) {
    std::vector<const Instr*> out;
    for (const Instr& in : it)
      if (counted(in) && first_only.count(in.stmt->op.barrier) == (first ? 1u : 0u)) out.push_back(&in);
    return out;
  };
  auto sameCounted = [](const std::vector<const Instr*>& a, const std::vector<const Instr*>& b) {
    bool same = a.size() == b.size();
    for (size_t i = 0; i < a.size() && same; ++i) same = sameInstr(*a[i], *b[i]) && a[i]->phase == b[i]->phase;
    return same;
  };
  const TileShape& sh = g.shape[p];
  const std::vector<Instr>& prog = g.grid.procs[p].program;
  if (!sameCounted(countedOps(copy, false), countedOps(iter, false)))
    return "adds or leaves out a counted mbarrier operation";
  // a barrier counted in the first iteration only: the copy counts it as the
  // tile's first iteration at ring start 0 does (one count per tile)
  if (!sameCounted(countedOps(copy, true), countedOps(first_iter, true)))
    return "counts a barrier of the first iteration only otherwise than its first iteration at ring start 0";
  for (int v : views) {
    auto f = fill.find(v);
    const std::set<int> none;
    const std::set<int>& fills = f == fill.end() ? none : f->second;
    const bool trim = fills.empty() && movesMarkerBeforeEachAccess(prog, sh, g.Wt, g.Wg, v) &&
                      !markerEvents(copy, v, fills, false).empty() &&
                      markerEvents(copy, v, fills, false).front().first == -1;
    std::vector<const Access*> ca, ga;
    for (const Instr& in : copy)
      for (const Access& a : in.accesses)
        if (a.view == v) ca.push_back(&a);
    for (const Instr& in : iter)
      for (const Access& a : in.accesses)
        if (a.view == v) ga.push_back(&a);
    bool same_access = ca.size() == ga.size();
    for (size_t i = 0; i < ca.size() && same_access; ++i)
      same_access = ca[i]->space == ga[i]->space && ca[i]->index == ga[i]->index && ca[i]->lo == ga[i]->lo &&
                    ca[i]->hi == ga[i]->hi && ca[i]->write == ga[i]->write && ca[i]->gen == ga[i]->gen &&
                    ca[i]->stage_like == ga[i]->stage_like;
    if (!same_access || markerEvents(copy, v, fills, trim) != markerEvents(iter, v, fills, trim))
      return fmt::format("accesses {} otherwise or moves its read marker elsewhere",
                         g.grid.schedule->views[static_cast<size_t>(v)].name);
  }
  return "";
}

// The views process p reads by stages in its K iterations (countersDiffer).
std::set<int> stageReadViews(const PGrid& g, size_t p) {
  const TileShape& sh = g.shape[p];
  const std::vector<Instr>& prog = g.grid.procs[p].program;
  std::set<int> views;
  for (int64_t t = sh.first; t < g.Wt; t += sh.step)
    for (int pc = sh.head[t][0]; pc < sh.head[t][g.Wg]; ++pc)
      for (const Access& a : prog[static_cast<size_t>(pc)].accesses)
        if (a.view >= 0 && !a.write && a.stage_like && a.index >= 0) views.insert(a.view);
  return views;
}

// The first K iterations' copies (firstIterations) where the grid's counted
// phases or read generations follow the ring position (PGrid::counters:
// alignCountersToTheRing set them to tile 0's at the same ring position,
// which counts the operations of ring positions 0..g, each the grid's text
// there). A tile starting at ring position x > 0 runs the copy at x in
// place of the grid's iteration (t, x); the aligned values stay the run's
// where the copy changes none of the counts: per process with a copy of its
// own, at every ring start x and tile t, the copy's counted mbarrier
// operations are the grid's iteration's (the same instructions, phases
// included), and for every view it reads by stages in its K iterations the
// copy's accesses of the view (generations included) and what moves the
// view's read marker among them are the grid's iteration's (markerEvents;
// for a view no TMA load fills, the moves after the last access are left
// off where every K iteration and the copy move the marker before their
// first access). An operation of the first iteration only (a wait of
// `if j == 0:`) and one left out (`if j > 0:`) may so differ; else
// unknown (docs/z3.md "First K iterations of their own with aligned
// counters").
void checkFirstCopiesKeepCounters(const PGrid& g) {
  const std::map<int, std::set<int>> fill = fillBarriers(*g.grid.schedule);
  for (size_t p = 0; p < g.grid.procs.size(); ++p) {
    if (p >= g.first_x.size() || !g.first_x[p]) continue;
    const TileShape& sh = g.shape[p];
    const std::vector<Instr>& prog = g.grid.procs[p].program;
    const std::set<int> none;
    const std::set<int>& first_only = p < g.aligned.first_only.size() ? g.aligned.first_only[p] : none;
    const std::set<int> views = stageReadViews(g, p);
    // (tile 0 starts at ring position 0 in every run, PersistentExplorer::
    // enterBody, the tile shift maps into tiles tw >= Pt >= 1 only, and a
    // shift by part of the tile period only onto a text it found equal:
    // tile 0's copies at x > 0 are entered by no run and need keep no count)
    for (int64_t t = sh.first > 0 ? sh.first : sh.step; t < g.Wt; t += sh.step)
      for (int64_t x = 1; x < g.Wg; ++x) {
        const std::string what = countersDiffer(g, p, g.first_text[0][p][t][x], kIteration(prog, sh, t, x), views,
                                                fill, first_only, kIteration(prog, sh, t, 0));
        if (!what.empty())
          throw Fail(fmt::format("the K loop's first iteration of {} at ring start {} {} and the grid's counted phases "
                                 "or read generations follow the ring position (not covered by the persistent-kernel "
                                 "proof yet)",
                                 g.grid.procs[p].name, x, what));
      }
  }
}

// Does the statement name its mbarrier slot and phase by iter= (evaluated
// from the text, so a function of the ring start alone; a stage= without
// phase= counts the process's earlier operations on the slot instead)?
bool slotByIter(const Instr& in) { return in.stmt && in.stmt->op.sel.mode == ir::SlotSel::Mode::Iter; }

// `y` (the part before the K loop of a tile that starts at ring position
// x) is `m` (the grid's, at ring start 0) but for what the builder
// evaluates from the text at the ring start: the slot and phase of an
// iter= operation, an access's view index and the bytes and stage/iteration
// naming that follow from it. Every field the builder derives from what the
// process ran before (a counted phase, an access's generation, MMA commits,
// named barriers, register hazards) must be m's.
bool sameButRingStart(const Instr& y, const Instr& m, const std::set<std::pair<const ir::Stmt*, int>>& renamed) {
  Instr z = y;
  z.iteration = m.iteration;
  z.loops = m.loops;
  if (slotByIter(y) && slotByIter(m) && y.slot >= 0 && m.slot >= 0) {
    z.slot = m.slot;
    z.phase = m.phase;
  }
  if (z.accesses.size() != m.accesses.size()) return false;
  for (size_t i = 0; i < z.accesses.size(); ++i) {
    Access& a = z.accesses[i];
    const Access& b = m.accesses[i];
    // (a read named as the ring: its generation is not the builder's,
    // namePreReadsAsTheRing; docs/z3.md "Reads named by the ring start")
    if (!a.write && !b.write && a.view >= 0 && renamed.count({y.stmt, a.view})) a.gen = b.gen;
    if (a.view < 0 || a.view != b.view || a.space != b.space || a.gen != b.gen) continue;  // compared below
    a.index = b.index;
    a.lo = b.lo;
    a.hi = b.hi;
    a.runs = b.runs;
    a.stride = b.stride;
    a.stage_like = b.stage_like;
  }
  return sameInstr(z, m);
}

// An mbarrier wait that the builder emits or leaves out by the text at the
// ring start alone: iter= names its slot and phase, and a wait for a phase
// below 0 (`lm.wait(empty, iter=t * K + li - 4)` in a ring's first lap) is
// left out. It has no access, no named barrier and no commit, and its
// phase is not counted.
bool ringStartWait(const Instr& in) {
  return in.kind == InstrKind::Wait && slotByIter(in) && in.accesses.empty() && in.named < 0 && in.slot >= 0;
}

// Whether an op's view index names stages or iterations is decided over
// the whole system (encoder/system.cpp markStageLike: stage-like when it
// never reaches the view's stages). A prologue's load of `t * K + li` stays
// below the stages in a grid whose tiles start near 0, and passes them in
// every run with a tile past the ring's first lap. The copies' writes are
// named as at ring start Wg (past every first lap): an iteration-named
// write there is iteration-named in every copy. A write's generation is
// counted the same way either way (its process's earlier writes of the
// index); only the naming, which sim::staleData reads, changes.
void namePreWritesAsTheRing(PGrid& g) {
  for (size_t p = 0; p < g.pre_x.size(); ++p) {
    if (!g.pre_x[p]) continue;
    for (int64_t t = g.shape[p].first; t < g.Wt; t += g.shape[p].step) {
      auto& at = g.pre_text[0][p][t];
      std::set<std::pair<const ir::Stmt*, int>> by_iteration;  // (statement, view)
      for (const Instr& in : at[g.Wg])
        for (const Access& a : in.accesses)
          if (a.write && a.view >= 0 && !a.stage_like) by_iteration.insert({in.stmt, a.view});
      for (auto& text : at)
        for (Instr& in : text)
          for (Access& a : in.accesses)
            if (a.write && a.view >= 0 && by_iteration.count({in.stmt, a.view})) a.stage_like = false;
    }
  }
}

// The tile period's generation delta of a read named by the ring start
// whose key (view, read, process, bytes) the grid has nowhere (its reads
// there are named by stage, and its K iterations do not read those
// bytes): learned from the copies at ring start Wg, tile t against t - Pt.
// The layout checks every copy against it (and against the ring's, 0: the
// copies of one tile take one generation), and checkLapDeltas every pair
// it meets. (Which delta is learned decides no verdict of a run: docs/z3.md
// "Reads named by the ring start"; a delta the copies disagree on: unknown.)
void learnRenamedReadDeltas(PGrid& g) {
  for (size_t p = 0; p < g.pre_x.size() && p < g.ring_start_reads.size(); ++p) {
    const auto& renamed = g.ring_start_reads[p];
    if (!g.pre_x[p] || renamed.empty()) continue;
    const TileShape& sh = g.shape[p];
    Deltas learned;
    auto learn = [&](const std::vector<Instr>& a, const std::vector<Instr>& b) {
      if (a.size() != b.size()) return;  // (the layout refuses it)
      for (size_t i = 0; i < a.size(); ++i)
        for (size_t k = 0; k < a[i].accesses.size() && k < b[i].accesses.size(); ++k) {
          const Access &u = a[i].accesses[k], &v = b[i].accesses[k];
          if (u.write || u.view < 0 || !renamed.count({a[i].stmt, u.view})) continue;
          const GenKey key = genKey(u, static_cast<int>(p));
          if (g.tile.view_gen.count(key)) continue;  // (the grid's, checked by the layout)
          if (!Deltas::learn(learned.view_gen, key, v.gen - u.gen))
            throw Fail(fmt::format("{}'s reads at an index of the tile's ring start move by more than one "
                                   "generation per tile period (not covered by the persistent-kernel proof yet)",
                                   g.grid.procs[p].name));
        }
    };
    // (every ring start: the copies' byte ranges, one key per slot)
    for (int64_t t = std::max(g.tw + g.Pt, sh.first); t < g.Wt; t += sh.step)
      if (sh.runs(t - g.Pt))
        for (int64_t x = 1; x <= g.Wg; ++x) learn(g.pre_text[0][p][t - g.Pt][x], g.pre_text[0][p][t][x]);
    for (const auto& [key, d] : learned.view_gen) g.tile.view_gen.emplace(key, d);
  }
}

// The reads of PGrid::ring_start_reads in the copies of the part before the
// K loop (docs/z3.md "Reads named by the ring start"): named by iteration
// in every copy, with the generation of the same read in the copy at ring
// start Wg of the same tile (past every first lap: named by iteration
// there, else unknown). In a run each such read is its process's first
// access of its view index (ringStartReadsOncePerRun), so its generation
// is 0 and only its index decides whether it is stale; the copies'
// generations can only add stale verdicts, and the one taken keeps them
// moving with the ring and tile periods as the copy at Wg does (the
// layout's period checks decide).
void namePreReadsAsTheRing(PGrid& g) {
  for (size_t p = 0; p < g.pre_x.size() && p < g.ring_start_reads.size(); ++p) {
    const auto& renamed = g.ring_start_reads[p];
    if (!g.pre_x[p] || renamed.empty()) continue;
    for (int64_t t = g.shape[p].first; t < g.Wt; t += g.shape[p].step) {
      auto& at = g.pre_text[0][p][t];
      const std::vector<Instr>& ref = at[g.Wg];
      for (int64_t x = 0; x < g.Wg; ++x) {
        std::map<const ir::Stmt*, int> seen;  // (the n-th instruction of a statement: the n-th at Wg)
        for (Instr& in : at[x]) {
          const int n = seen[in.stmt]++;
          const Instr* r = nullptr;
          int m = 0;
          for (const Instr& c : ref)
            if (c.stmt == in.stmt && m++ == n) r = &c;
          for (size_t k = 0; k < in.accesses.size(); ++k) {
            Access& a = in.accesses[k];
            if (a.write || a.view < 0 || !renamed.count({in.stmt, a.view})) continue;
            if (!r || r->accesses.size() != in.accesses.size() || r->accesses[k].view != a.view ||
                r->accesses[k].write || r->accesses[k].stage_like)
              throw Fail(fmt::format("{}'s part before the K loop reads {} at an index of the tile's ring start that "
                                     "is not named by iteration past the ring's first lap (not covered by the "
                                     "persistent-kernel proof yet)",
                                     g.grid.procs[p].name, g.grid.schedule->views[static_cast<size_t>(a.view)].name));
            a.stage_like = false;
            a.gen = r->accesses[k].gen;
          }
        }
      }
    }
  }
  learnRenamedReadDeltas(g);
}

// The grid whose tiles all start at ring position x (`t * E_B` read as x),
// E_A read as `read` says, aligned as the grid was; its shapes in `shapes`.
// Past the last tiles (read.depth 0) it reads E_A only as the grid does
// (refuseTileCountReadsInCopies); its last tiles read their own count.
System ringStartGrid(const PGrid& g, const ir::Schedule& s, const Binding& binding, ir::Target target,
                     const TileLoops& tl, const TileCountRead& read, int64_t x, ProofBudget& budget,
                     std::vector<TileShape>& shapes, KeptLastGrids* kept = nullptr) {
  std::vector<TileCountUse> copy_uses;
  auto build = [&](TileCountReadsAlike* alike) {
    return buildGrid(s, binding, target, tl, g.Wt, g.Wg, read, &copy_uses, 1, x, 0, nullptr, false, -1, nullptr, alike);
  };
  bool reused = false;  // (a last tiles' grid that an earlier depth's build gave: KeptLastGrids)
  System at = kept ? kept->get(read, g.last_m, &reused, build) : build(nullptr);
  if (read.depth == 0) refuseTileCountReadsInCopies(s, tl, copy_uses, g.uses);
  if (!reused) chargeBuild(budget, at);  // (a grid per ring start: charged as built)
  alignSpacesTo(at, g.grid);
  shapes.clear();
  for (const Process& proc : at.procs) shapes.push_back(tileShapeOf(proc, tl, g.Wt, g.Wg));
  if (g.counters) alignCountersToTheRing(at, shapes, g.Wt, g.Wg);
  else alignStageWritesToTheRing(at, shapes, g.Wt, g.Wg);
  return at;
}

// Whether a wait that a part before the K loop at some ring start x runs
// and the grid's part (at ring start 0) leaves out (ringStartWait: a phase
// below 0 there) moves the read marker of a view whose read generations the
// grid aligned through the ring position for p (alignCountersToTheRing: the
// grid's waits outside the K iterations moved none of them, or harmlessly,
// as its rule decides: a view no TMA load fills, whose every K iteration
// moves the marker before its first access).
bool movesAlignedMarker(const PGrid& g, size_t p, const Instr& wait) {
  if (!g.counters || p >= g.aligned.reads.size()) return false;
  const std::map<int, std::set<int>> fill = fillBarriers(*g.grid.schedule);
  for (int v : g.aligned.reads[p]) {
    auto f = fill.find(v);
    const bool unfilled = f == fill.end() || f->second.empty();
    if (unfilled && movesMarkerBeforeEachAccess(g.grid.procs[p].program, g.shape[p], g.Wt, g.Wg, v)) continue;
    if (unfilled || (wait.stmt && f->second.count(wait.stmt->op.barrier))) return true;
  }
  return false;
}

// The K iterations of a grid whose tiles start at x may differ from the
// grid's in the fields the grid's alignment set through the ring position
// (sameBesidesAligned), which the exploration takes from the grid in a tile
// that starts at x. The alignment's argument (docs/z3.md "Counters through
// the ring position") holds where nothing outside the K iterations moves
// them: no counted operation on an aligned barrier, no access of an aligned
// view, no wait that moves an aligned read's marker. The grid checked its
// parts at ring start 0; a copy at x is the grid's part but for what the
// ring start evaluates (no counted operation or access differs:
// sameButRingStart) and for the waits of the ring start alone, of which
// one the grid's part left out may move a marker (`moves`): refused then,
// where some K iteration is not the grid's exactly (else the grid at x
// derives the grid's fields itself).
void requireAlignedAtRingStart(const PGrid& g, size_t p, int64_t x, bool exact, bool moves) {
  if (exact || !moves) return;
  throw Fail(fmt::format("{}'s part before the K loop at ring start {} waits where the grid's does not, on a barrier "
                         "that moves the read marker of a view the grid aligns through the ring position (not covered "
                         "by the persistent-kernel proof yet)",
                         g.grid.procs[p].name, x));
}

// Whether the K iteration k of p's tile t in the grid whose tiles start at
// x (xp, shape xsh) is the grid's iteration at ring index k + x, each
// instruction compared by `same` (sameBesidesLoops, or sameBesidesAligned:
// the loop values apart and the fields the grid's alignment set through the
// ring position, which the exploration takes from the grid, tile 0's at the
// same ring position, where requireAlignedAtRingStart holds; the grid at x
// counts them from its own tiles' start at x). Every other field the
// builder derives from the process's history must be the grid's.
template <typename Same>
bool sameIterationAtRingStart(const std::vector<Instr>& xp, const TileShape& xsh, const std::vector<Instr>& mp,
                              const TileShape& sh, int64_t t, int64_t k, int64_t x, Same same) {
  const int a0 = xsh.head[t][k], a1 = xsh.head[t][k + 1], m0 = sh.head[t][k + x], m1 = sh.head[t][k + x + 1];
  bool ok = a1 - a0 == m1 - m0;
  for (int q = 0; ok && q < a1 - a0; ++q) ok = same(xp[a0 + q], mp[m0 + q]);
  return ok;
}

// (CAKE_PERSIST_STATS) The first instruction of the K iteration k at ring
// start x that differs from the grid's besides the aligned fields.
void printIterationAtRingStart(const PGrid& g, size_t p, const std::vector<Instr>& xp, const TileShape& xsh,
                               const std::vector<Instr>& mp, const TileShape& sh, int64_t t, int64_t k, int64_t x) {
  const int a0 = xsh.head[t][k], a1 = xsh.head[t][k + 1], m0 = sh.head[t][k + x], m1 = sh.head[t][k + x + 1];
  fmt::print(stderr, "persist-stats: tile {} ring start {}, iteration {} ({} and {} instructions)\n", t, x, k, a1 - a0,
             m1 - m0);
  for (int q = 0; q < std::min(a1 - a0, m1 - m0); ++q) {
    const Instr &u = xp[a0 + q], &v = mp[m0 + q];
    if (sameBesidesAligned(u, v, g, p)) continue;
    fmt::print(stderr, "persist-stats:   grid: {}\n", instrToString(g.grid, static_cast<int>(p), m0 + q));
    for (size_t i = 0; i < u.accesses.size() && i < v.accesses.size(); ++i)
      fmt::print(stderr, "persist-stats:   access {}: view {} gen {} / {} index {} / {} stage_like {} / {}\n", i,
                 u.accesses[i].view, u.accesses[i].gen, v.accesses[i].gen, u.accesses[i].index, v.accesses[i].index,
                 u.accesses[i].stage_like, v.accesses[i].stage_like);
    fmt::print(stderr, "persist-stats:   phase {} / {} slot {} / {}\n", u.phase, v.phase, u.slot, v.slot);
    return;
  }
}

// The K iterations of p's tile t in the grid whose tiles start at x against
// the grid's at the same ring index (presByRingStart,
// lastTilesAtRingStart): false where one of k >= 1 differs besides the
// aligned fields. Iteration 0 may differ (an operation of the first
// iteration only, `if j == 0:`, or one left out, `init=(j == 0)`): p is
// then noted in pre_first and must get a first K iteration of its own,
// which firstIterations matches against the grid's iteration x on this
// same grid (requirePreFirstCopies). `exact` is cleared where some
// iteration is not the grid's besides the loop values alone (then
// requireAlignedAtRingStart must hold).
bool iterationsAtRingStart(PGrid& g, size_t p, const std::vector<Instr>& xp, const TileShape& xsh,
                           const std::vector<Instr>& mp, const TileShape& sh, int64_t t, int64_t x, bool& exact) {
  auto aligned = [&](const Instr& a, const Instr& b) { return sameBesidesAligned(a, b, g, p); };
  for (int64_t k = 0; k + x < g.Wg && exact; ++k)
    exact = sameIterationAtRingStart(xp, xsh, mp, sh, t, k, x, sameBesidesLoops);
  for (int64_t k = 1; k + x < g.Wg; ++k)
    if (!sameIterationAtRingStart(xp, xsh, mp, sh, t, k, x, aligned)) {
      if (std::getenv("CAKE_PERSIST_STATS")) printIterationAtRingStart(g, p, xp, xsh, mp, sh, t, k, x);
      return false;
    }
  if (x < g.Wg && !sameIterationAtRingStart(xp, xsh, mp, sh, t, 0, x, aligned)) {
    g.pre_first.resize(g.grid.procs.size(), 0);
    g.pre_first_x.resize(g.grid.procs.size(), 0);
    if (!g.pre_first[p]) g.pre_first_x[p] = x;
    g.pre_first[p] = 1;
  }
  return true;
}

// For each depth d (1..last_m) and parity i, the grid whose tiles start at
// ring position x with those tiles the d-th from the end, beside the last
// tiles' grid of that depth and parity (ring start 0): what the copies per
// ring start of a last tile are compared with (lastTilesAtRingStart).
// `check(d, i, at, at_shapes, last, last_shapes)`.
template <class Check>
void forEachLastTilesGridAtRingStart(const PGrid& g, const ir::Schedule& s, const Binding& binding, ir::Target target,
                                     const TileLoops& tl, int64_t x, ProofBudget& budget, const char* building,
                                     const Check& check) {
  KeptLastGrids kept[2];  // (per parity: the depths that build alike, one build)
  for (int64_t d = 1; d <= g.last_m; ++d)
    for (int64_t i = 0; i < 2; ++i) {
      checkBudget(budget, building);
      TileCountRead read = g.not_last;
      read.depth = d;
      read.parity = i;
      std::vector<TileShape> xs;
      const System at = ringStartGrid(g, s, binding, target, tl, read, x, budget, xs, &kept[i]);
      check(d, i, at, xs, g.last[PGrid::lastGrid(d, i)], g.last_shape[PGrid::lastGrid(d, i)]);
    }
}

// With a last tile of its own (PGrid::last_tile), a process runs, in a
// run's last tiles that start at ring position x, the copy of its part
// before the K loop per ring start where that part moves with the ring
// (pre_moves; built past the last tiles), its first K iteration's copy at
// x where it has first copies (firstIterations; `with_first`), the grid's
// K iterations and the last tiles' part after the K loop, each taken from
// a grid whose tiles start at ring position 0 or x, and none of them built
// with its tile among the last. What the builder derives from the
// process's history (counted phases, generations, read markers) or a read
// of E_A in a first K iteration could differ in such a tile: for each
// depth d and parity, the grid at ring start x with those tiles the d-th
// from the end must give each of them
//  * the part before the K loop: the copy at x exactly where it moves, else
//    the grid's (the loop values apart);
//  * with first copies (x < Wg), the copy's first K iteration besides the
//    aligned fields (the copy takes them from the grid); else iteration 0
//    the grid's iteration x besides them, or noted in pre_first
//    (iterationsAtRingStart);
//  * the grid's K iterations k >= 1 at the same ring index besides the
//    aligned fields;
//  * the part after the K loop of the last tiles' grid at ring start 0
//    (the loop values apart).
// Processes whose part before the K loop does not move are checked only
// with first copies (else their last tiles' texts are checkLastTileGrid's,
// every tile starting at 0 in the grid's text). (The reads of E_A lie
// after the K loop or in the K iterations: refuseTileCountReadsBeforeK.)
// One set of grids per x serves both copies (docs/z3.md "First K
// iterations of the last tiles", "Copies per ring start where runs reach").
void lastTilesAtRingStart(PGrid& g, const ir::Schedule& s, const Binding& binding, ir::Target target,
                          const TileLoops& tl, int64_t x, ProofBudget& budget, bool with_first) {
  if (!g.last_tile) return;
  const bool first_copy = with_first && x < g.Wg;
  auto moves = [&](size_t p) { return p < g.pre_moves.size() && g.pre_moves[p]; };
  auto checked = [&](size_t p) {
    return moves(p) || (first_copy && g.shape[p].kind == TileShape::Full);
  };
  // a last tile's part after the K loop with copies per ring end
  // (lastPostsByRingEnd: known where the first copies are checked, after it)
  auto byRingEnd = [&](size_t p) { return p < g.post_last_x.size() && g.post_last_x[p]; };
  bool any = false;
  for (size_t p = 0; p < g.shape.size(); ++p) any = any || checked(p);
  if (!any) return;
  forEachLastTilesGridAtRingStart(
      g, s, binding, target, tl, x, budget,
      first_copy ? "building the last tiles' first K iterations per ring start"
                 : "building the last tiles' parts per ring start",
      [&](int64_t d, int64_t i, const System& at, const std::vector<TileShape>& xs, const System& last,
          const std::vector<TileShape>& ls) {
        for (size_t p = 0; p < g.shape.size(); ++p) {
          if (!checked(p)) continue;
          const std::vector<Instr>& xp = at.procs[p].program;
          const std::vector<Instr>& mp = g.grid.procs[p].program;
          const std::vector<Instr>& lp = last.procs[p].program;
          const TileShape &sh = g.shape[p], &xsh = xs[p], &lsh = ls[p];
          auto aligned = [&](const Instr& a, const Instr& b) { return sameBesidesAligned(a, b, g, p); };
          auto sameRange = [](auto same, const std::vector<Instr>& a, int a0, int a1, std::span<const Instr> b) {
            bool ok = a1 - a0 == static_cast<int>(b.size());
            for (int q = 0; ok && a0 + q < a1; ++q) ok = same(a[static_cast<size_t>(a0 + q)], b[static_cast<size_t>(q)]);
            return ok;
          };
          auto refuse = [&](const char* what) {
            throw Fail(fmt::format("{}'s {} of the tile {} from the end differs when it starts at ring position {}{} "
                                   "(not covered by the persistent-kernel proof yet)",
                                   g.grid.procs[p].name, what, d, x,
                                   first_copy ? " and its first K iteration is a copy of its own" : ""));
          };
          for (int64_t t = i; t < g.Wt; t += 2) {
            if (!sh.runs(t)) continue;
            const std::span<const Instr> pre =
                moves(p) ? std::span<const Instr>(g.pre_text_built[0][p][t][x])
                         : std::span<const Instr>(mp.data() + sh.tile_start[t], mp.data() + sh.head[t][0]);
            if (!sameRange(moves(p) ? sameInstr : sameBesidesLoops, xp, xsh.tile_start[t], xsh.head[t][0], pre))
              refuse("part before the K loop");
            bool exact = true;
            if (!first_copy) {
              if (!iterationsAtRingStart(g, p, xp, xsh, mp, sh, t, x, exact)) refuse("K iteration");
            } else {
              for (int64_t k = 0; k + x < g.Wg && exact; ++k)
                exact = sameIterationAtRingStart(xp, xsh, mp, sh, t, k, x, sameBesidesLoops);
              if (!sameRange(aligned, xp, xsh.head[t][0], xsh.head[t][1], g.first_text[0][p][t][x]))
                refuse("first K iteration");
              for (int64_t k = 1; k + x < g.Wg; ++k)
                if (!sameIterationAtRingStart(xp, xsh, mp, sh, t, k, x, aligned)) refuse("K iteration");
            }
            if (moves(p)) requireAlignedAtRingStart(g, p, x, exact, g.pre_marker_moves[p][t][x]);
            if (byRingEnd(p)) {
              // (its ring end x + Wg: what the ring end evaluates apart,
              // the copies per ring end give those; docs/z3.md "Last tiles
              // that start and end inside the window")
              if (trip::compareEvaluatedAtRingEnd(xp, xsh.head[t][g.Wg], xsh.tile_start[t + 1], lp, lsh.head[t][g.Wg],
                                                  lsh.tile_start[t + 1], sameBesidesLoops) == trip::PartDiff::More)
                refuse("part after the K loop");
              continue;
            }
            const std::span<const Instr> post(lp.data() + lsh.head[t][g.Wg], lp.data() + lsh.tile_start[t + 1]);
            if (!sameRange(sameBesidesLoops, xp, xsh.head[t][g.Wg], xsh.tile_start[t + 1], post))
              refuse("part after the K loop");
          }
        }
      });
}

// lastTilesAtRingStart at every ring start 1..Wg.
void lastTilesByRingStart(PGrid& g, const ir::Schedule& s, const Binding& binding, ir::Target target,
                          const TileLoops& tl, ProofBudget& budget, bool with_first) {
  for (int64_t x = 1; x <= g.Wg; ++x) lastTilesAtRingStart(g, s, binding, target, tl, x, budget, with_first);
}

// Notes PGrid::ring_gen_shift for p's tile t in the grid whose tiles start
// at x (xp, shape xsh), whose K iterations presByRingStart found the grid's
// besides the aligned fields: per read of a view the grid aligned for p
// (its generation one of those fields), how far its generation lies from
// the grid's at the same ring index. An iteration of another length (an
// iteration 0 that is a first copy of its own) or an instruction of another
// statement notes nothing: a tail grid's read there is compared exactly.
void noteRingGenShifts(PGrid& g, size_t p, const std::vector<Instr>& xp, const TileShape& xsh,
                       const std::vector<Instr>& mp, const TileShape& sh, int64_t t, int64_t x) {
  if (!g.counters || p >= g.aligned.reads.size() || g.aligned.reads[p].empty()) return;
  auto& shifts = g.ring_gen_shift[p];
  for (int64_t k = 0; k + x < g.Wg; ++k) {
    const int a0 = xsh.head[t][k], a1 = xsh.head[t][k + 1], m0 = sh.head[t][k + x], m1 = sh.head[t][k + x + 1];
    if (a1 - a0 != m1 - m0) continue;
    for (int q = 0; q < a1 - a0; ++q) {
      const Instr &u = xp[static_cast<size_t>(a0 + q)], &v = mp[static_cast<size_t>(m0 + q)];
      if (!u.stmt || u.stmt != v.stmt || u.accesses.size() != v.accesses.size()) continue;
      for (size_t i = 0; i < u.accesses.size(); ++i) {
        const Access &au = u.accesses[i], &av = v.accesses[i];
        if (au.write || au.view < 0 || au.view != av.view || !g.aligned.reads[p].count(au.view)) continue;
        const PGrid::RingGenKey key{x, t, k + x, u.stmt, i};
        const auto [it, fresh] = shifts.try_emplace(key, au.gen - av.gen);
        if (!fresh && it->second != au.gen - av.gen) it->second.reset();
      }
    }
  }
}

// The parts before the K loop per ring start (docs/z3.md "A per-tile
// prologue that moves with the ring"): a part that moves with the ring
// (pre_moves, gridCounts: a prologue loading `t * K + li`) reads the tile's
// ring start. The grid's tiles all start at ring position 0; for every x
// in 1..Wg the grid whose tiles start at x (`t * E_B` read as x, aligned as
// the grid was) gives each tile's part as the schedule evaluates it at
// ring start x. Checked, else unknown:
//  * it is the grid's part but for the fields evaluated from the text at
//    the ring start (sameButRingStart) and for waits emitted or left out
//    by the ring start alone (ringStartWait), so what the builder counts
//    from the process's history is the grid's, as for a part that does not
//    move;
//  * the process's K iterations of that grid (tiles starting at x, every
//    part before them at x) are the grid's iterations at the same ring
//    index (the loop values apart), and its parts after the K loop are the
//    grid's: the waits the copies add or leave out change no field the
//    builder derives later (a read's generation counts returns after
//    waits).
void presByRingStart(PGrid& g, const ir::Schedule& s, const Binding& binding, ir::Target target, const TileLoops& tl,
                     ProofBudget& budget, bool last_tiles_later) {
  const size_t P = g.grid.procs.size();
  g.pre_x.assign(P, 0);
  g.pre_text = emptyTexts(g, g.Wg + 1);
  g.pre_marker_moves.assign(P, std::vector<std::vector<char>>(static_cast<size_t>(g.Wt),
                                                              std::vector<char>(static_cast<size_t>(g.Wg) + 1, 0)));
  g.pre_shapes.assign(static_cast<size_t>(g.Wg) + 1, {});
  g.pre_grids.assign(static_cast<size_t>(g.Wg) + 1, {});
  g.ring_gen_shift.assign(P, {});
  auto has = [](const std::vector<char>& v, size_t p) { return p < v.size() && v[p]; };
  for (size_t p = 0; p < P; ++p)
    if (g.pre_moves[p] && (g.shape[p].step > 1 || has(g.post_x, p) || has(g.first_x, p)))
      throw Fail(fmt::format("{}'s part before the K loop moves with the ring period and the process skips tiles or "
                             "has copies of its part after the K loop or of its first K iteration (not covered by "
                             "the persistent-kernel proof yet)",
                             g.grid.procs[p].name));
  // (copies near the tile's end are known later: tailsByRingStart)
  const System& main = g.grid;
  for (int64_t x = 0; x <= g.Wg; ++x) {
    checkBudget(budget, "building the parts before the K loop per ring start");
    std::vector<TileShape> shapes = g.shape;
    System at = x > 0 ? ringStartGrid(g, s, binding, target, tl, g.not_last, x, budget, shapes) : main;
    g.pre_shapes[static_cast<size_t>(x)] = shapes;
    for (size_t p = 0; p < P; ++p) {
      if (!g.pre_moves[p]) continue;
      const TileShape &sh = g.shape[p], &xs = shapes[p];
      const std::vector<Instr>& mp = main.procs[p].program;
      const std::vector<Instr>& xp = at.procs[p].program;
      const std::string& name = main.procs[p].name;
      const std::set<std::pair<const ir::Stmt*, int>> renamed =
          p < g.ring_start_reads.size() ? g.ring_start_reads[p] : std::set<std::pair<const ir::Stmt*, int>>{};
      for (int64_t t = sh.first; t < g.Wt; t += sh.step) {
        // the part, matched in order; a wait of the ring start alone may be in one only
        int i = xs.tile_start[t], j = sh.tile_start[t];
        const int b = xs.head[t][0], mb = sh.head[t][0];
        bool moves = false;  // a wait the grid's part leaves out moves an aligned read's marker
        while (i < b || j < mb) {
          if (i < b && j < mb && sameButRingStart(xp[i], mp[j], renamed)) {
            ++i, ++j;
          } else if (i < b && ringStartWait(xp[i])) {
            moves = moves || movesAlignedMarker(g, p, xp[i]);
            ++i;
          } else if (j < mb && ringStartWait(mp[j])) {
            ++j;
          } else {
            if (std::getenv("CAKE_PERSIST_STATS") && i < b && j < mb) {
              fmt::print(stderr, "persist-stats: pre part of tile {} at ring start {}: grid {}\n", t, x,
                         instrToString(main, static_cast<int>(p), j));
              for (size_t k = 0; k < xp[i].accesses.size() && k < mp[j].accesses.size(); ++k) {
                const Access &u = xp[i].accesses[k], &v = mp[j].accesses[k];
                fmt::print(stderr, "persist-stats:   access {}: view {} gen {} / {} index {} / {} stage_like {} / {}\n",
                           k, u.view, u.gen, v.gen, u.index, v.index, u.stage_like, v.stage_like);
              }
              fmt::print(stderr, "persist-stats:   phase {} / {} slot {} / {} kind {} / {}\n", xp[i].phase, mp[j].phase,
                         xp[i].slot, mp[j].slot, static_cast<int>(xp[i].kind), static_cast<int>(mp[j].kind));
            }
            throw Fail(fmt::format("the part before the K loop of {} at ring start {} differs from the grid's in more "
                                   "than what the ring start evaluates (not covered by the persistent-kernel proof "
                                   "yet)",
                                   name, x));
          }
        }
        g.pre_text[0][p][t][x].assign(xp.begin() + xs.tile_start[t], xp.begin() + b);
        if (x == 0) continue;
        bool exact = true;
        if (!iterationsAtRingStart(g, p, xp, xs, mp, sh, t, x, exact))
          throw Fail(fmt::format("{}'s K iterations after the first differ when its tile starts at ring position {} "
                                 "(not covered by the persistent-kernel proof yet)",
                                 name, x));
        g.pre_marker_moves[p][t][x] = moves;
        requireAlignedAtRingStart(g, p, x, exact, moves);
        noteRingGenShifts(g, p, xp, xs, mp, sh, t, x);
        bool same = xs.tile_start[t + 1] - xs.head[t][g.Wg] == sh.tile_start[t + 1] - sh.head[t][g.Wg];
        for (int q = 0; same && xs.head[t][g.Wg] + q < xs.tile_start[t + 1]; ++q)
          same = sameBesidesLoops(xp[xs.head[t][g.Wg] + q], mp[sh.head[t][g.Wg] + q]);
        if (!same)
          throw Fail(fmt::format("{}'s part after the K loop differs when its tile starts at ring position {} (not "
                                 "covered by the persistent-kernel proof yet)",
                                 name, x));
      }
      g.pre_x[p] = 1;
    }
    if (x > 0) g.pre_grids[static_cast<size_t>(x)] = std::move(at);
  }
  // (once every ring start's copy passed: a copy refused above does not
  // pay for the 2 * last_m grids per ring start before it; with first K
  // iterations of their own, after their copies, on the same grids:
  // lastTilesByRingStart)
  g.pre_text_built = g.pre_text;
  if (!last_tiles_later) lastTilesByRingStart(g, s, binding, target, tl, budget, false);
  namePreWritesAsTheRing(g);
  namePreReadsAsTheRing(g);
}

// A process whose K iteration 0 at a ring start x >= 1 is not the grid's
// iteration x (PGrid::pre_first, noted by presByRingStart) runs, after its
// part before the K loop's copy at x, its first K iteration's copy at x
// (firstIterations), which was matched against the grid's iteration x on
// the same grid whose tiles start at x (pre parts at x included): its
// operations the grid's, besides the fields the alignment sets and the
// operations of the first iteration only or left out there. The iterations
// k >= 1 of that grid are the grid's exactly (presByRingStart), so neither
// copy changes what the builder derives later. A process without such a
// copy (no read of the K loop's variable that makes one) keeps the refusal.
void requirePreFirstCopies(const PGrid& g, bool first) {
  for (size_t p = 0; p < g.pre_first.size(); ++p)
    if (g.pre_first[p] && (!first || p >= g.first_x.size() || !g.first_x[p]))
      throw Fail(fmt::format("{}'s K iteration at ring index {} differs when its tile starts at ring position {} "
                             "and is not a first K iteration of its own (not covered by the persistent-kernel proof "
                             "yet)",
                             g.grid.procs[p].name, g.pre_first_x[p], g.pre_first_x[p]));
}

// The least ring start x >= 1 from which every copy of a part before the K
// loop (pre_x) has the length of the copy at Wg: below it a ring's first
// lap leaves waits out (ringStartWait), and the ring shift, a pc map,
// needs copies of one length.
int64_t preCopiesSteadyFrom(const PGrid& g) {
  int64_t from = 1;
  for (size_t p = 0; p < g.pre_x.size(); ++p) {
    if (!g.pre_x[p]) continue;
    for (int64_t t = g.shape[p].first; t < g.Wt; t += g.shape[p].step) {
      const auto& at = g.pre_text[0][p][t];
      for (int64_t x = g.Wg; x >= 1; --x)
        if (at[x].size() != at[g.Wg].size()) {
          from = std::max(from, x + 1);
          break;
        }
    }
  }
  return from;
}

// The grid as checkLapDeltas must see it when parts before the K loop
// move with the ring (pre_x): every tile's parts at ring starts 1..Wg in place
// of the grid's (at 0): the grid's left out, the parts at ring starts
// 1..Wg appended (checkLapDeltas reads the accesses only). The copies at
// ring start 0 are left out: only tile 0's is entered by a run (a tile has
// at least one K iteration), and no shift maps it or onto it (its data
// tags then move only where no read compares them: keptTags).
System preCopiesGrid(const PGrid& g) {
  System out = g.grid;
  for (size_t p = 0; p < g.pre_x.size(); ++p) {
    if (!g.pre_x[p]) continue;
    const TileShape& sh = g.shape[p];
    auto& prog = out.procs[p].program;
    for (int64_t t = g.Wt - 1; t >= sh.first; --t)
      if (sh.runs(t)) prog.erase(prog.begin() + sh.tile_start[t], prog.begin() + sh.head[t][0]);
    for (int64_t t = sh.first; t < g.Wt; t += sh.step)
      for (int64_t x = 1; x <= g.Wg; ++x) prog.insert(prog.end(), g.pre_text[0][p][t][x].begin(), g.pre_text[0][p][t][x].end());
  }
  return out;
}

// One attempt at window Wt x Wg: the argument in one line, or throws
// (GridTooSmall: retry wider).
// `inner_at_most(c)`: the lm.assume facts keep the K trip count E_B <= c;
// `inner_at_least(c)`: they keep it >= c; `inner_multiple_of(c)`: they
// keep it a multiple of c.
// The shape of process `proc` of a grid whose K iterations are near their
// tile's end (tailIterations), where a guard `k + c < E_B` may leave
// iterations empty, or all of them (tileShapeOf then cannot place a loop
// head): the parts before and after each tile's K loop are taken to be as
// long as in the grid's shape `grid_sh` (tailIterationsAt then checks them
// equal to the grid's, instruction for instruction), every instruction
// between them must be of a K iteration, in order, and an empty
// iteration's head is the next one's. Else unknown.
TileShape tailShapeOf(const Process& proc, const TileLoops& tl, const TileShape& grid_sh, int64_t Wt, int64_t Wg) {
  const auto& prog = proc.program;
  const int n = static_cast<int>(prog.size());
  std::vector<int64_t> tile(prog.size(), -1), iter(prog.size(), -1);
  for (size_t pc = 0; pc < prog.size(); ++pc)
    for (const auto& [var, value] : prog[pc].loops) {
      if (tl.tile_vars.count(var)) tile[pc] = value;
      if (tl.k_vars.count(var)) iter[pc] = value;
    }
  auto order = [&](bool ok) {
    if (!ok)
      throw Fail(fmt::format("{} runs its tile loop or K loop not in one piece when its K iterations are near their "
                             "tile's end",
                             proc.name));
  };
  TileShape sh = grid_sh;
  sh.end = n;
  sh.tile_start.assign(static_cast<size_t>(Wt + 1), -1);
  sh.head.assign(static_cast<size_t>(Wt), std::vector<int>(static_cast<size_t>(Wg + 1), -1));
  for (int pc = n - 1; pc >= 0; --pc)
    if (tile[pc] >= 0) {
      order(tile[pc] < Wt);
      sh.tile_start[tile[pc]] = pc;
    }
  int exit_start = n;
  for (int pc = n - 1; pc >= 0 && tile[pc] < 0; --pc) exit_start = pc;
  sh.tile_start[Wt] = exit_start;
  for (int64_t t = 0; t < Wt; ++t) order(sh.tile_start[t] >= 0 && (t == 0 || sh.tile_start[t] > sh.tile_start[t - 1]));
  sh.prefix_end = std::min(grid_sh.prefix_end, sh.tile_start[0]);
  for (int64_t t = 0; t < Wt; ++t) {
    const int a = sh.tile_start[t] + (grid_sh.head[t][0] - grid_sh.tile_start[t]);
    const int b = sh.tile_start[t + 1] - (grid_sh.tile_start[t + 1] - grid_sh.head[t][Wg]);
    order(a <= b);
    for (int pc = sh.tile_start[t]; pc < sh.tile_start[t + 1]; ++pc) {
      order(tile[pc] == t && (iter[pc] >= 0) == (pc >= a && pc < b) && iter[pc] < Wg);
      order(pc <= a || pc >= b || iter[pc] >= iter[pc - 1]);
    }
    int pc = a;
    for (int64_t k = 0; k <= Wg; ++k) {
      while (pc < b && iter[pc] < k) ++pc;
      sh.head[t][k] = k == Wg ? b : pc;
    }
  }
  return sh;
}

// `a` (a tail iteration's) is `b` (the grid's) but for the view_written
// flag of reads through a view no other view shares a byte with (docs/z3.md
// "A self-prefetching persistent ring (helper tri47)"). The flag says
// whether some instance writes through the read's view over its bytes
// anywhere in the system; a tail grid, whose every K iteration is near its
// tile's end, leaves out a self-prefetching process's refills, so a ring
// slot only those fill is written nowhere there. Where every access of the
// view's bytes is through the view itself (trip::bytesItsOwn) the flag
// decides nothing: sim's viewsDecide and byLaps compare views only where
// they differ, and the builder's caps and read-backs count the writes
// "through its own view" or "through any view", the same writes. So the
// grid's text holds for the run whichever value its system gives the flag.
bool sameButViewWrittenOfALoneView(const Instr& a, const Instr& b, const ir::Schedule& s) {
  if (a.accesses.size() != b.accesses.size()) return false;
  Instr y = a;
  bool differs = false;
  for (size_t i = 0; i < y.accesses.size(); ++i) {
    Access& x = y.accesses[i];
    if (x.view_written == b.accesses[i].view_written) continue;
    if (x.write || x.view < 0 || x.view != b.accesses[i].view || !trip::bytesItsOwn(s, x.view)) return false;
    x.view_written = b.accesses[i].view_written;
    differs = true;
  }
  return differs && sameInstr(y, b);
}

// sameButViewWrittenOfALoneView, the loop values apart (tailsByRingStart:
// a tail grid whose tiles start at x against the one whose tiles start at
// 0, which write a ring slot at different K iterations).
bool sameButViewWrittenBesidesLoops(const Instr& in, const Instr& m, const ir::Schedule& s) {
  Instr y = in;
  y.loops = m.loops;
  y.iteration = m.iteration;
  return sameButViewWrittenOfALoneView(y, m, s);
}

// `a` (a tail iteration's) is `b` (the grid's) but for its statement: the
// same mbarrier wait or arrival with no access, written in the other branch
// of a guard (DeepGEMM's math warpgroups wait on `full` and release `empty`
// in both branches of the tail-stage guard). The builder derives every field
// and counter of such an operation from its kind, barrier and iter= / stage=
// selector, which the two share, so a run counts the same after either.
bool otherBranchTwin(const Instr& a, const Instr& b) {
  if (!a.stmt || !b.stmt || a.stmt == b.stmt || (a.kind != InstrKind::Wait && a.kind != InstrKind::Arrive) ||
      !a.accesses.empty())
    return false;
  const ir::Op &x = a.stmt->op, &y = b.stmt->op;
  if (x.kind != y.kind || x.barrier != y.barrier || x.sel.mode != y.sel.mode || x.sel.phase != y.sel.phase)
    return false;
  Instr z = a;
  z.stmt = b.stmt;
  return sameInstr(z, b);
}

// The aligned grid `aligned` names every iter= operation's slot and phase
// as the builder does (`raw`): an arrival a tail iteration adds, as built,
// then has the phase the aligned operations around it assume.
bool iterSlotsAsBuilt(const std::vector<Instr>& aligned, const std::vector<Instr>& raw) {
  for (size_t pc = 0; pc < raw.size(); ++pc)
    if (raw[pc].slot >= 0 && slotByIter(raw[pc]) &&
        (aligned[pc].slot != raw[pc].slot || aligned[pc].phase != raw[pc].phase))
      return false;
  return true;
}

// What the persistent proof checks of the operations copies near the
// tile's end leave out with trip::leavableWithCounters: the true runs'
// TMEM hazards (checkTailTmemRuns, PGrid::tail_tmem) and the later reads
// of the views an MMA left out reads (leftOutReadsChangeNoRead,
// PGrid::left_reads).
constexpr trip::LeftOutChecks kTailChecks{/*tmem_runs=*/true, /*reads=*/true};

// An operation a K iteration near its tile's end may leave out although it
// carries a counter (docs/z3.md "Left-out waits, explored without the
// reduction"): it
// names its mbarrier slot and phase by iter= (evaluated from the text: no
// counted phase of the process moves) and is a wait, an expect_tx or a TMA
// load whose accesses are an iteration-named write of a view and reads of
// global memory (no data tag). What is left to check is what the builder
// derives from it for the process's later operations (leftOutCountersChangeNothing).
bool leavesOnlyTextCounters(const Instr& in) {
  if (in.slot < 0 || in.named >= 0 || !slotByIter(in)) return false;
  switch (in.kind) {
    case InstrKind::Wait:
    case InstrKind::ExpectTx: return in.accesses.empty();
    case InstrKind::TmaLoad:
      return std::all_of(in.accesses.begin(), in.accesses.end(), [](const Access& a) {
        return a.view >= 0 ? a.write && !a.stage_like : !a.write;
      });
    default: return false;
  }
}

// The copies of the K iterations d + 1 from their tile's end: `tail` is the
// grid with E_B read as k + d + 1 in every K iteration (tailIterations).
// `left_counters[p]` collects the grid's positions (in `raw`) of the
// operations with counters a copy leaves out.
void tailIterationsAt(PGrid& g, const TileLoops& tl, const System& raw, const System& tail, size_t d,
                      std::vector<std::set<int>>& left_counters,
                      std::string& partial_slot) {
  const size_t P = g.grid.procs.size();
  // (an access of a fragment of pathFreeRegs neither: its hazard verdict
  // is decided within its own K iteration or tile in every build, and a
  // register access has no generation)
  auto counterFree = [&](const Instr& in, const System& sys) {
    const bool free_regs = std::all_of(in.accesses.begin(), in.accesses.end(), [&](const Access& a) {
      const MemSpace& sp = sys.spaces[static_cast<size_t>(a.space)];
      return sp.kind == MemSpace::Kind::Regs && g.free_regs.count(sp.index) > 0;
    });
    return free_regs && in.slot < 0 && in.named < 0 && in.kind != InstrKind::MmaCommit;
  };
  // (or one whose counters count its own K iteration alone: trip_tail_ops.h)
  // (or one lcsf5's argument covers: iter= waits, expect_tx and TMA loads,
  // leavesOnlyTextCounters; which argument a grid uses: tailIterations)
  auto leavable = [&](const Instr& in, const System& sys, size_t p) {
    return counterFree(in, sys) ||
           trip::leavableWithCounters(in, sys, g.free_regs, g.ring_views, g.commitNumbersFree(p),
                                      kTailChecks) ||
           leavesOnlyTextCounters(in);
  };
  auto samePending = [&](const Instr& a, const Instr& b) {  // a is b but for its pending
    Instr y = a;
    y.pending = b.pending;
    return sameInstr(y, b) || otherBranchTwin(a, b) || sameButViewWrittenOfALoneView(y, b, *raw.schedule);
  };
  for (size_t p = 0; p < P; ++p) {
    const std::string& name = g.grid.procs[p].name;
    const TileShape& sh = g.shape[p];
    const std::vector<Instr>& mp = raw.procs[p].program;
    const std::vector<Instr>& tp = tail.procs[p].program;
    const std::vector<Instr>& ap = g.grid.procs[p].program;
    if (ap.size() != mp.size()) throw Fail("internal: the aligned grid has another length");
    auto refuse = [&](const std::string& where) {
      throw Fail(fmt::format("{} of {} differs when a K iteration is {}, beyond operations that "
                             "carry no counter (not covered by the persistent-kernel proof yet)",
                             where, name, d == 0 ? std::string("its tile's last") : fmt::format("{} from its tile's end", d + 1)));
    };
    auto equal = [&](int a0, int a1, int b0, int b1) {
      if (a1 - a0 != b1 - b0) return false;
      for (int i = 0; i < a1 - a0; ++i)
        if (!sameInstr(tp[static_cast<size_t>(a0 + i)], mp[static_cast<size_t>(b0 + i)])) return false;
      return true;
    };
    if (sh.kind != TileShape::Full) {
      if (!equal(0, static_cast<int>(tp.size()), 0, static_cast<int>(mp.size()))) refuse("the program");
      continue;
    }
    const TileShape ts = tailShapeOf(tail.procs[p], tl, sh, g.Wt, g.Wg);
    const bool iter_slots_as_built = iterSlotsAsBuilt(ap, mp);
    if (!equal(0, ts.prefix_end, 0, sh.prefix_end)) refuse("the part before the tile loop");
    if (!equal(ts.tile_start[g.Wt], ts.end, sh.tile_start[g.Wt], sh.end)) refuse("the part after the tile loop");
    for (int64_t t = sh.first; t < g.Wt; t += sh.step) {
      if (!equal(ts.tile_start[t], ts.head[t][0], sh.tile_start[t], sh.head[t][0]))
        refuse(fmt::format("the part before the K loop of tile {}", t));
      if (!equal(ts.head[t][g.Wg], ts.tile_start[t + 1], sh.head[t][g.Wg], sh.tile_start[t + 1]))
        refuse(fmt::format("the part after the K loop of tile {}", t));
      for (int64_t gi = 0; gi < g.Wg; ++gi) {
        const int a = ts.head[t][gi], b = ts.head[t][gi + 1];
        const int ma = sh.head[t][gi], mb = sh.head[t][gi + 1];
        std::vector<Instr> text;
        bool differs = b - a != mb - ma;
        std::vector<char> kept(static_cast<size_t>(mb - ma), 0);
        int j = ma;
        for (int i = a; i < b; ++i) {
          const Instr& in = tp[static_cast<size_t>(i)];
          int jj = j;
          while (jj < mb && !samePending(in, mp[static_cast<size_t>(jj)])) {
            if (!leavable(mp[static_cast<size_t>(jj)], raw, p)) break;
            ++jj;
          }
          if (jj < mb && samePending(in, mp[static_cast<size_t>(jj)])) {
            differs |= jj != j || in.pending != mp[static_cast<size_t>(jj)].pending;
            Instr x = ap[static_cast<size_t>(jj)];
            x.pending = in.pending;
            x.stmt = in.stmt;  // (the tail's own statement where it is the other branch's twin)
            text.push_back(std::move(x));
            kept[static_cast<size_t>(jj - ma)] = 1;
            j = jj + 1;
            continue;
          }
          // (an added arrival with a last tile of its own: refused, its
          // argument was made for the grid's parts after the K loop only)
          if (!counterFree(in, tail) && !(trip::addableArrival(in) && iter_slots_as_built && !g.last_tile))
            refuse(fmt::format("the K iteration at ring position {} of tile {}", gi, t));
          text.push_back(in);  // added: no counter (or an iter= arrival's, as built), nothing to align
          differs = true;
        }
        for (; j < mb; ++j) {
          if (!leavable(mp[static_cast<size_t>(j)], raw, p))
            refuse(fmt::format("the K iteration at ring position {} of tile {}", gi, t));
          differs = true;
        }
        if (trip::slotLeftOutInPart(mp, ma, mb, kept, /*tx_only=*/true) >= 0)
          refuse(fmt::format("the K iteration at ring position {} of tile {} (a TMA load or expect_tx left out beside "
                             "one kept on its slot)",
                             gi, t));
        // every left-out operation with a counter (the arguments that cover
        // them are chosen for the whole grid: tailIterations), and whether
        // one of an mbarrier slot's operations is left out beside one kept
        // (which the left-out waits' argument refuses)
        for (int q = ma; q < mb; ++q)
          if (!kept[static_cast<size_t>(q - ma)] && !counterFree(mp[static_cast<size_t>(q)], raw)) left_counters[p].insert(q);
        if (partial_slot.empty() && trip::slotLeftOutInPart(mp, ma, mb, kept, /*tx_only=*/false) >= 0)
          partial_slot = fmt::format("the K iteration at ring position {} of tile {} of {} differs when a K iteration "
                                     "is near its tile's end: an mbarrier slot's operations left out in part (not "
                                     "covered by the persistent-kernel proof yet)",
                                     gi, t, name);
        if (differs) g.tail_x[p] = 1;
        g.tail_text[d][0][p][t][gi] = std::move(text);
      }
    }
  }
}

// The grid's K iterations (trip::ringPositionViews): those of its Full
// processes; another process's accesses lie outside them.
std::vector<trip::KIteration> kIterationsOf(const PGrid& g) {
  std::vector<trip::KIteration> out;
  for (size_t p = 0; p < g.shape.size(); ++p) {
    const TileShape& sh = g.shape[p];
    if (sh.kind != TileShape::Full) continue;
    for (int64_t t = sh.first; t < g.Wt; t += sh.step)
      for (int64_t gi = 0; gi < g.Wg; ++gi)
        out.push_back({static_cast<int>(p), t, gi, sh.head[t][gi], sh.head[t][gi + 1]});
  }
  return out;
}

// The last tiles' parts after the K loop of process p (PGrid::last: tile
// t of grid last[lastGrid(d, t % 2)] for each depth d; the copies
// post_last_at lays out), where the
// schedule reads the tile count; none otherwise. Only they differ from the
// grid (checkLastTileGrid), so what the grid's parts are asked for the
// copies near a tile's end these are asked too (docs/z3.md "The last K
// iterations of the last tile").
std::vector<std::vector<Instr>> lastTilePosts(const PGrid& g, size_t p) {
  std::vector<std::vector<Instr>> out;
  for (int64_t d = 1; d <= g.last_m; ++d)
    for (int64_t t = 0; t < g.Wt; ++t) {
      const TileShape& ls = g.last_shape[PGrid::lastGrid(d, t % 2)][p];
      if (ls.kind != TileShape::Full || !ls.runs(t)) continue;
      const auto& prog = g.last[PGrid::lastGrid(d, t % 2)].procs[p].program;
      out.emplace_back(prog.begin() + ls.head[t][g.Wg], prog.begin() + ls.tile_start[t + 1]);
    }
  return out;
}

// The starts of the pieces of process p's grid program (docs/z3.md
// "Left-out waits, explored without the reduction"): the part before the tile loop, each
// tile's part before its K loop, each K iteration, each part after the K
// loop, the exit path.
std::set<int> pieceStarts(const TileShape& sh, int64_t Wt, int64_t Wg) {
  std::set<int> at = {0, sh.prefix_end, sh.tile_start[static_cast<size_t>(Wt)]};
  for (int64_t t = sh.first; t < Wt; t += sh.step) {
    at.insert(sh.tile_start[static_cast<size_t>(t)]);
    for (int64_t k = 0; k <= Wg; ++k) at.insert(sh.head[static_cast<size_t>(t)][static_cast<size_t>(k)]);
  }
  return at;
}

// Each copy of process p in `texts` (a PartTexts: [kind][p][t][x]).
void forEachCopyOf(const PartTexts& texts, size_t p, const std::function<void(const std::vector<Instr>&)>& f) {
  for (const auto& kind : texts)
    if (p < kind.size())
      for (const auto& tile : kind[p])
        for (const std::vector<Instr>& text : tile) f(text);
}

// The grid's K iterations of process p in `prog` (the grid as built, or
// aligned: the same pcs), each [a, b).
void forEachGridKIteration(const PGrid& g, size_t p, const std::vector<Instr>& prog,
                           const std::function<void(const std::vector<Instr>&, size_t, size_t)>& f) {
  const TileShape& sh = g.shape[p];
  for (int64_t t = sh.first; t < g.Wt; t += sh.step)
    for (int64_t gi = 0; gi < g.Wg; ++gi)
      f(prog, static_cast<size_t>(sh.head[t][gi]), static_cast<size_t>(sh.head[t][gi + 1]));
}

// Every text of process p's K iterations the layout holds: the grid's
// [a, b) of `prog` (the grid as built: the builder's slots), the copies
// near the tile's end, the first K iterations' and the first ones near the
// end (each whole).
void forEachKIterationText(const PGrid& g, size_t p, const std::vector<Instr>& prog,
                           const std::function<void(const std::vector<Instr>&, size_t, size_t)>& f) {
  forEachGridKIteration(g, p, prog, f);
  auto whole = [&](const std::vector<Instr>& text) { f(text, 0, text.size()); };
  for (const PartTexts& dist : g.tail_text) forEachCopyOf(dist, p, whole);
  forEachCopyOf(g.first_text, p, whole);
  for (const PartTexts& dist : g.first_tail_text) forEachCopyOf(dist, p, whole);
}

// Every text of process p the layout holds: the grid's program and every
// copy of a part of it.
void forEachTextOf(const PGrid& g, size_t p, const std::function<void(const std::vector<Instr>&)>& f) {
  f(g.grid.procs[p].program);
  for (const PartTexts& dist : g.tail_text) forEachCopyOf(dist, p, f);
  forEachCopyOf(g.first_text, p, f);
  for (const PartTexts& dist : g.first_tail_text) forEachCopyOf(dist, p, f);
  forEachCopyOf(g.pre_text, p, f);
  forEachCopyOf(g.post_text, p, f);
  for (const std::vector<Instr>& part : lastTilePosts(g, p)) f(part);
}

// The slots whose waits move the marker of process p's read `a` of a view
// index (Builder::tag: for a view TMA loads fill, the waits on the slots of
// its fill barriers that fill the index); empty: every wait and bar.sync.
std::set<int> readMarkerSlots(const System& raw, size_t p, const Access& a, const std::map<int, std::set<int>>& fill) {
  std::set<int> slots;
  if (auto f = fill.find(a.view); f != fill.end())
    for (int b : f->second)
      slots.insert(raw.slotOf(b, ir::floorMod(a.index, raw.schedule->barriers[b].count).value(), raw.procs[p].cta));
  return slots;
}

// Does `in` move the marker of a read whose readMarkerSlots are `slots`?
bool movesReadMarker(const Instr& in, const std::set<int>& slots) {
  if (slots.empty()) return in.kind == InstrKind::Wait || in.kind == InstrKind::SyncWait;
  return in.kind == InstrKind::Wait && slots.count(in.slot) > 0;
}

// A left-out wait changes no read's generation (docs/z3.md "Left-out
// waits, explored without the reduction"): a read of a view index counts a
// return when the process waited since its last read of the index (any
// mbarrier wait or bar.sync; for a view TMA loads fill, a wait on a slot
// that fills the index: Builder::tag's marker). Asked of every read of the
// process whose marker a left-out wait moves, in the grid and in each copy
// of a part before or after the K loop: a wait that moves that marker and
// that no copy leaves out comes before it in its own piece, with no
// left-out operation between them. Then whether the marker moved between
// two reads of an index is decided by operations every copy keeps.
// With `first_tails`: only the first copies near the end of a process
// whose reads were asked apart (PGrid::wait_reads_apart), once built.
void leftOutWaitsChangeNoRead(PGrid& g, const System& raw, size_t p, const std::set<int>& left_out,
                              const std::map<int, std::set<int>>& fill, bool first_tails = false) {
  const std::string& name = raw.procs[p].name;
  auto barrierOf = [](const Instr& in) { return in.stmt ? in.stmt->op.barrier : -1; };
  auto markerSlots = [&](const Access& a) { return readMarkerSlots(raw, p, a, fill); };
  const auto& moves = movesReadMarker;
  // the barriers of the left-out waits: a read of a TMA-filled view counts
  // the waits on its own fill barriers' slots alone (Builder::tag), so only
  // a left-out wait on one of those moves its marker
  std::set<int> left_barriers;
  for (int q : left_out)
    if (raw.procs[p].program[static_cast<size_t>(q)].kind == InstrKind::Wait)
      left_barriers.insert(barrierOf(raw.procs[p].program[static_cast<size_t>(q)]));
  auto movedByALeftOutWait = [&](int view) {
    const auto f = fill.find(view);
    return std::any_of(f->second.begin(), f->second.end(), [&](int b) { return left_barriers.count(b) > 0; });
  };
  // A read whose instruction some copy leaves out too (the S MMA after
  // its own left-out k_full wait): the grid's text, which runs far from
  // the tile's end, holds every operation before it, and each K
  // iteration's copy that keeps it is asked as a piece of its own (below;
  // the first copies near the end, built later, by
  // leftOutWaitReadsInFirstTails).
  bool reads_left_out = false;
  const std::set<int> none;
  auto check = [&](const std::vector<Instr>& prog, const std::set<int>& starts, const std::set<int>& out) {
    for (int r = 0; r < static_cast<int>(prog.size()); ++r)
      for (const Access& a : prog[static_cast<size_t>(r)].accesses) {
        if (a.write || a.view < 0) continue;
        const std::set<int> slots = markerSlots(a);
        if (!slots.empty() && !movedByALeftOutWait(a.view)) continue;  // no left-out wait moves its marker
        const bool apart = out.count(r) > 0;
        reads_left_out |= apart;
        const std::set<int>& left = apart ? none : out;
        const int from = *std::prev(starts.upper_bound(r));
        int q = r - 1;
        while (q >= from && !left.count(q) && !moves(prog[static_cast<size_t>(q)], slots)) --q;
        if (q < from || left.count(q))
          throw Fail(fmt::format("{} leaves out a wait near its tile's end, and its read {} has no wait every copy "
                                 "keeps before it in its piece (not covered by the persistent-kernel proof yet)",
                                 name, a.what));
      }
  };
  if (first_tails) {
    for (const PartTexts& dist : g.first_tail_text) forEachCopyOf(dist, p, [&](const std::vector<Instr>& copy) {
      check(copy, {0}, {});
    });
    return;
  }
  check(raw.procs[p].program, pieceStarts(g.shape[p], g.Wt, g.Wg), left_out);
  if (reads_left_out) {
    const std::vector<Instr> none_of_the_grid;
    forEachKIterationText(g, p, none_of_the_grid, [&](const std::vector<Instr>& copy, size_t, size_t) {
      check(copy, {0}, {});
    });
    g.wait_reads_apart[p] = left_out;
  }
  for (const PartTexts* texts : {&g.pre_text, &g.post_text})
    for (const auto& kind : *texts)
      if (p < kind.size())
        for (const auto& tile : kind[p])
          for (const std::vector<Instr>& part : tile) check(part, {0}, {});
  for (const std::vector<Instr>& part : lastTilePosts(g, p)) check(part, {0}, {});
}

// A write of view `v` that process p's copies near the tile's end leave out
// (a prefetch's refill: ThunderKittens' lcsf loads `g + 4` while `it + 4 <
// K`) is counted by the builder in the generation of p's later writes of
// the same view index, which the copies take from the grid: there every
// K iteration refills and every tile starts at ring index 0, so the
// generations count tiles, not a run's writes of the index (docs/z3.md
// "Left-out TMA writes: each view index written once a run"). What a
// write's generation decides is sim::staleData's `w.gen < r.gen` between
// two iteration-named accesses of one view, and nothing else, where p
// alone writes the view, reads none of it and every access of it is named
// by iteration. Then where p writes each index at most once in every run,
// every such generation is 0 in every run, and every read that meets
// one of p's writes of its index is capped at 0 (resolveReads: at most the
// highest generation written of the index), so in a run the generations
// decide no staleness and any the copies hold only add some. Once a run:
// with the index of each write an offset from its tile's ring start x
// (before the K loop) or from its ring position g (in the K loop), the
// part before the K loop writes offsets in [0, min_len), each once; every
// K iteration one offset o, above all of those, below its distance to the
// tile's end (the grid's iterations are at least tail_m + 1 from it); so a
// tile of L >= min_len iterations writes indices in [x, x + L), each once,
// and the next tile starts at x + L. Offsets are checked over the window
// (every tile and ring start, every position and distance); the ring
// shift's checks carry them beyond it. Else unknown.
// p may read the view it alone writes (a self-prefetching ring:
// Triton's persistent pipelined loop loads step k + 2 and reads step k in
// one role; docs/z3.md "A self-prefetching persistent ring (helper tri47)")
// reads its own data wherever a write through the view meets its read, and
// sim::staleWrite calls its own data fresh whatever the generations
// ("ordered by program order"); a write through another view over the
// bytes is compared by views or laps (sim::staleData: viewsDecide, byLaps),
// and an iteration-named read's lap is its index, not its generation. So
// where the process alone writes the view and no access of it is named by
// stage (both checked by leftOutWritesOncePerRun's scan before this is
// relied on), the generations of its own reads of the view decide nothing,
// whatever its left-out writes made them count; its writes' generations
// still meet the other processes' reads, which the once-a-run argument
// covers.
void leftOutWritesOncePerRun(const PGrid& g, size_t p, int v, const System& raw, bool reads_capped) {
  const std::string& view = raw.schedule->views[static_cast<size_t>(v)].name;
  auto refuse = [&](const std::string& why) {
    throw Fail(fmt::format("{} leaves out a write of {} near its tile's end, whose generation counts in its later "
                           "writes of the view index, and {} (not covered by the persistent-kernel proof yet)",
                           raw.procs[p].name, view, why));
  };
  const TileShape& sh = g.shape[p];
  if (!reads_capped) refuse("reads are not capped by the generations written (a proof without the caps)");
  if (sh.kind != TileShape::Full || sh.first != 0 || sh.step != 1 || g.last_tile || g.kinds > 1)
    refuse("the process skips tiles, or tiles have kinds or a last tile of their own");
  // who accesses v, how, in every text of the layout
  auto scan = [&](size_t q, const std::vector<Instr>& text, size_t a, size_t b) {
    for (size_t pc = a; pc < b; ++pc)
      for (const Access& x : text[pc].accesses) {
        if (x.view != v) continue;
        if (x.stage_like) refuse(fmt::format("an access of {} is named by its stage", view));
        if (x.write && q != p) refuse(fmt::format("{} writes {} too", raw.procs[q].name, view));
        // (p's own reads are taken: the comment above this function)
      }
  };
  for (size_t q = 0; q < g.grid.procs.size(); ++q) {
    const std::vector<Instr>& prog = g.grid.procs[q].program;
    const bool pre = q < g.pre_x.size() && g.pre_x[q];
    const TileShape& qs = g.shape[q];
    if (!pre || qs.kind != TileShape::Full) {
      scan(q, prog, 0, prog.size());
      continue;
    }
    scan(q, prog, 0, static_cast<size_t>(qs.prefix_end));
    for (int64_t t = 0; t < g.Wt; ++t)  // (the part before the K loop: pre_text's copies below)
      scan(q, prog, static_cast<size_t>(qs.head[t][0]), static_cast<size_t>(qs.tile_start[t + 1]));
    scan(q, prog, static_cast<size_t>(qs.tile_start[g.Wt]), prog.size());
  }
  for (const PartTexts* texts : {&g.pre_text, &g.post_text})
    for (const auto& kind : *texts)
      for (size_t q = 0; q < kind.size(); ++q)
        for (const auto& tile : kind[q])
          for (const std::vector<Instr>& part : tile) scan(q, part, 0, part.size());
  for (const auto& dist : g.tail_text)
    for (const auto& kind : dist)
      for (size_t q = 0; q < kind.size(); ++q)
        for (const auto& tile : kind[q])
          for (const std::vector<Instr>& part : tile) scan(q, part, 0, part.size());
  // p's writes of v, by their index's offset from `at`
  using Writes = std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>>;  // offset -> byte ranges
  auto writesOf = [&](const std::vector<Instr>& text, size_t a, size_t b, int64_t at) {
    Writes out;
    for (size_t pc = a; pc < b; ++pc)
      for (const Access& x : text[pc].accesses)
        if (x.view == v && x.write) {
          auto& ranges = out[x.index - at];
          for (const auto& [lo, hi] : ranges)
            if (x.lo < hi && lo < x.hi) refuse(fmt::format("a copy writes {}[{}] twice", view, x.index));
          ranges.push_back({x.lo, x.hi});
        }
    return out;
  };
  const std::vector<Instr>& prog = g.grid.procs[p].program;
  if (!writesOf(prog, 0, static_cast<size_t>(sh.prefix_end), 0).empty() ||
      !writesOf(prog, static_cast<size_t>(sh.tile_start[g.Wt]), prog.size(), 0).empty())
    refuse(fmt::format("it writes {} outside its tile loop", view));
  for (const auto& kind : g.post_text)
    for (const auto& tile : kind.size() > p ? kind[p] : std::vector<std::vector<std::vector<Instr>>>{})
      for (const std::vector<Instr>& part : tile)
        if (!writesOf(part, 0, part.size(), 0).empty()) refuse(fmt::format("it writes {} after a K loop", view));
  const bool pre = p < g.pre_x.size() && g.pre_x[p];
  std::optional<std::set<int64_t>> pre_offsets;
  std::optional<int64_t> k_offset;
  for (int64_t t = 0; t < g.Wt; ++t) {
    if (!writesOf(prog, static_cast<size_t>(sh.head[t][g.Wg]), static_cast<size_t>(sh.tile_start[t + 1]), 0).empty())
      refuse(fmt::format("it writes {} after a K loop", view));
    for (int64_t x = 0; x <= g.Wg; ++x) {
      const std::vector<Instr>& text = pre ? g.pre_text[0][p][t][x] : prog;
      const size_t a = pre ? 0 : static_cast<size_t>(sh.tile_start[t]);
      const size_t b = pre ? text.size() : static_cast<size_t>(sh.head[t][0]);
      std::set<int64_t> offsets;
      for (const auto& [o, ranges] : writesOf(text, a, b, x)) offsets.insert(o);
      if (!offsets.empty() && (*offsets.begin() < 0 || *offsets.rbegin() >= g.min_len))
        refuse(fmt::format("its part before the K loop writes {} outside its tile's first {} ring indices", view,
                           g.min_len));
      if (pre_offsets && *pre_offsets != offsets)
        refuse(fmt::format("its part before the K loop writes {} otherwise per tile or ring start", view));
      pre_offsets = offsets;
    }
  }
  const int64_t pre_top = pre_offsets && !pre_offsets->empty() ? *pre_offsets->rbegin() : -1;
  auto kIteration = [&](const std::vector<Instr>& text, size_t a, size_t b, int64_t gi, int64_t distance) {
    for (const auto& [o, ranges] : writesOf(text, a, b, gi)) {
      if (k_offset && *k_offset != o) refuse(fmt::format("its K iterations write {} at more than one offset", view));
      k_offset = o;
      if (o <= pre_top || o >= distance)
        refuse(fmt::format("its K iteration writes {} at ring offset {}, not between its part before the K loop's "
                           "({}) and its distance to the tile's end ({})",
                           view, o, pre_top, distance));
    }
  };
  for (int64_t t = 0; t < g.Wt; ++t)
    for (int64_t gi = 0; gi < g.Wg; ++gi) {
      kIteration(prog, static_cast<size_t>(sh.head[t][gi]), static_cast<size_t>(sh.head[t][gi + 1]), gi, g.tail_m + 1);
      for (size_t d = 0; d < g.tail_text.size(); ++d) {
        const std::vector<Instr>& text = g.tail_text[d][0][p][t][gi];
        kIteration(text, 0, text.size(), gi, static_cast<int64_t>(d) + 1);
      }
    }
}

// What the builder derives from the operations with counters that copies
// near the tile's end leave out (tailIterationsAt, leavesOnlyTextCounters)
// changes nothing the proof reads (docs/z3.md "Left-out operations with
// counters"): no counted phase (their slots are named by iter=), no
// expect_tx batch in part (trip::slotLeftOutInPart), and the waits' marks on
// later reads as checked by leftOutWaitsChangeNoRead. A left-out write
// (a TMA load's): its generation counts in the process's later writes of
// the view index, which decide nothing where leftOutWritesOncePerRun
// holds (else unknown). Throws Fail (unknown) where a check fails.
void leftOutCountersChangeNothing(PGrid& g, const System& raw, const std::vector<std::set<int>>& left_out,
                                  bool reads_capped) {
  g.wait_reads_apart.assign(left_out.size(), {});
  const std::map<int, std::set<int>> fill = fillBarriers(*raw.schedule);
  for (size_t p = 0; p < left_out.size(); ++p) {
    const auto& mp = raw.procs[p].program;
    bool waits = false;
    std::set<int> written;  // views whose writes are left out
    for (int q : left_out[p]) {
      const Instr& in = mp[static_cast<size_t>(q)];
      waits |= in.kind == InstrKind::Wait;
      for (const Access& a : in.accesses)
        if (a.write && a.view >= 0) written.insert(a.view);
    }
    for (int v : written) leftOutWritesOncePerRun(g, p, v, raw, reads_capped);
    if (waits) leftOutWaitsChangeNoRead(g, raw, p, left_out[p], fill);
  }
}

// PGrid::left_reads: the left-out operations with a read that
// leavableWithCounters took on the condition that leftOutReadsChangeNoRead
// holds.
void collectLeftOutReads(PGrid& g, const System& raw, const std::vector<std::set<int>>& left_counters) {
  g.left_reads.assign(left_counters.size(), {});
  for (size_t p = 0; p < left_counters.size(); ++p)
    for (int q : left_counters[p]) {
      const Instr& in = raw.procs[p].program[static_cast<size_t>(q)];
      if (std::any_of(in.accesses.begin(), in.accesses.end(),
                      [&](const Access& a) { return trip::leftOutReadToCheck(in, a, raw, g.ring_views); }))
        g.left_reads[p].insert(q);
    }
}

// leftOutWaitsChangeNoRead's reads left out with their wait, asked of the
// first copies near the end too, once tailsByRingStart has built them.
void leftOutWaitReadsInFirstTails(PGrid& g, const System& raw) {
  const std::map<int, std::set<int>> fill = fillBarriers(*raw.schedule);
  for (size_t p = 0; p < g.wait_reads_apart.size(); ++p)
    if (!g.wait_reads_apart[p].empty())
      leftOutWaitsChangeNoRead(g, raw, p, g.wait_reads_apart[p], fill, /*first_tails=*/true);
}

// The last K iterations per ring position (docs/z3.md "The last K
// iteration" and "The last K iterations, by their distance to the tile's
// end"): a K iteration whose text reads E_B besides t * E_B (`if k + c <
// k_tiles:`, checkTileExprs: its depth m, the text the same for every E_B
// >= k + m + 1) is d = 1..m from the tile's end or farther. The grid reads
// every iteration as farther (E_B as 2 * Wg); tails[d - 1] is the grid
// with every iteration d from its end (E_B as k + d), `raw` the grid as
// built, before the alignments of attemptPersistent. Checked for each d,
// else unknown: outside the K iterations the two are equal, and each
// iteration of tails[d - 1] is the grid's with operations left out or added
// that carry no counter the builder derives from what the process ran
// before (no access, no mbarrier slot, no named barrier, no MMA commit), or
// with a group wait's `pending` changed, or with iter= waits and expect_tx
// left out (leftOutCountersChangeNothing). Then the builder's counters
// (phases, generations, named-barrier generations, commit numbers) are the
// same whichever iterations are near their tile's end, and the copy at
// ring position g and distance d takes the grid's (aligned) instructions
// where they match. A process whose iterations near the end differ gets a
// copy per distance and ring position; its other iterations are then never
// among the last m of their tile (PersistentExplorer::enterBody,
// bodyDecision).
void tailIterations(PGrid& g, const TileLoops& tl, const System& raw, const std::vector<System>& tails,
                    bool reads_capped) {
  const size_t P = g.grid.procs.size();
  g.tail_x.assign(P, 0);
  g.tail_m = static_cast<int>(tails.size());
  g.tail_text.assign(tails.size(), emptyTexts(g, g.Wg));
  std::vector<std::set<int>> left_counters(P);
  std::string partial_slot;
  for (size_t d = 0; d < tails.size(); ++d)
    tailIterationsAt(g, tl, raw, tails[d], d, left_counters, partial_slot);
  // Two arguments cover left-out operations with counters, each shown sound
  // alone: operations whose counters count their own K iteration alone,
  // never a wait (trip_tail_ops.h, docs/z3.md "Stages without data at a
  // tile's end"), and iter= waits, expect_tx and TMA loads, checked by
  // leftOutCountersChangeNothing (docs/z3.md "Left-out waits, explored
  // without the reduction": explored with it again since the layout serves
  // every tile length, "The layout of every tile length"). A grid uses one
  // for all its copies; one that needs both is refused (unknown).
  auto all = [&](auto covered) {
    for (size_t p = 0; p < P; ++p)
      for (int q : left_counters[p])
        if (!covered(raw.procs[p].program[static_cast<size_t>(q)], p)) return false;
    return true;
  };
  collectLeftOutReads(g, raw, left_counters);
  if (all([&](const Instr& in, size_t p) {
        return trip::leavableWithCounters(in, raw, g.free_regs, g.ring_views, g.commitNumbersFree(p),
                                          kTailChecks);
      })) {
    g.tail_tmem = !all([&](const Instr& in, size_t) { return !trip::mmaOnTmem(in, raw); });
    return;
  }
  // Else lcsf5's, with its checks over every left-out operation, where each
  // is lcsf5's or dg4's (docs/z3.md "Both tail arguments in one grid"):
  // dg4's operations change no counter outside their own K iteration, which
  // lcsf5's checks read as operations without counters, and lcsf5's
  // left-out waits move no read marker that those checks do not ask about
  if (!all([&](const Instr& in, size_t p) {
        return leavesOnlyTextCounters(in) ||
               trip::leavableWithCounters(in, raw, g.free_regs, g.ring_views, g.commitNumbersFree(p),
                                          kTailChecks);
      }))
    throw Fail("copies near a tile's end leave out operations with counters that neither argument covers (not "
               "covered by the persistent-kernel proof yet)");
  if (!partial_slot.empty()) throw Fail(partial_slot);
  g.tail_tmem = !all([&](const Instr& in, size_t) { return !trip::mmaOnTmem(in, raw); });
  // (every operation left out on an mbarrier slot is in left_counters: one
  // on a slot is never counterFree, and lcsf5's and dg4's cover only such)
  leftOutCountersChangeNothing(g, raw, left_counters, reads_capped);
}

// `in` (a built grid's instruction of a part before the K loop) named as the
// copy `m` of that part names its writes: the copies' writes are named by
// iteration where the copy at ring start Wg names them so
// (namePreWritesAsTheRing: a write's generation is counted alike either
// way, only sim::staleData's naming changes), which a grid whose tiles
// start at a small ring position, and whose K iterations near the tile's
// end refill nothing (a self-prefetching ring's tail grids, docs/z3.md "A
// self-prefetching persistent ring (helper tri47)"), need not reach.
void nameWritesAsThePreCopy(Instr& in, const Instr& m) {
  for (size_t k = 0; k < in.accesses.size() && k < m.accesses.size(); ++k) {
    Access& u = in.accesses[k];
    const Access& w = m.accesses[k];
    if (u.write && w.write && u.view >= 0 && u.view == w.view && u.stage_like && !w.stage_like) u.stage_like = false;
  }
}

// `pre` (a copy of p's part before the K loop, its reads named by the ring
// start renamed: namePreReadsAsTheRing) is xp's [a, b) but for the loop
// values and those reads' naming and generation, which the copy takes from
// the argument of "Reads named by the ring start", not from the builder.
bool samePreBesidesRenamedReads(const PGrid& g, size_t p, const std::vector<Instr>& xp, int a, int b,
                                const std::vector<Instr>& pre) {
  if (b - a != static_cast<int>(pre.size())) return false;
  for (int q = 0; q < b - a; ++q) {
    Instr y = xp[static_cast<size_t>(a + q)];
    const Instr& m = pre[static_cast<size_t>(q)];
    for (size_t k = 0; k < y.accesses.size() && k < m.accesses.size() && p < g.ring_start_reads.size(); ++k) {
      Access& u = y.accesses[k];
      if (!u.write && u.view >= 0 && u.view == m.accesses[k].view && g.ring_start_reads[p].count({y.stmt, u.view})) {
        u.stage_like = m.accesses[k].stage_like;
        u.gen = m.accesses[k].gen;
      }
    }
    nameWritesAsThePreCopy(y, m);
    if (!sameBesidesLoops(y, m)) return false;
  }
  return true;
}

// The slots of process p that only a tile's first K iteration uses, in
// the grid (firstOnlySlots) and in every copy near the tile's end past ring
// index 0 (an operation of the first iteration only, firstOnlyOp, that the
// copy of a first iteration near the end may add).
std::set<int> firstOnlySlotsNearTheEnd(const PGrid& g, size_t p) {
  const TileShape& sh = g.shape[p];
  std::set<int> only = firstOnlySlots(g.grid.procs[p].program, sh, g.Wt, g.Wg);
  for (const auto& texts : g.tail_text)
    for (int64_t t = sh.first; t < g.Wt; t += sh.step)
      for (int64_t gi = 1; gi < g.Wg; ++gi)
        for (const Instr& in : texts[0][p][static_cast<size_t>(t)][static_cast<size_t>(gi)]) only.erase(in.slot);
  return only;
}

// Obstacle 1 (d) (docs/z3.md "First K iterations that are also a tile's
// last"): the text of tile t's first K iteration when it is d + 1 from the
// tile's end and the tile starts at ring position x >= 1, from `xp[a, b)`
// (iteration 0 of the grid whose tiles start at x with every K iteration d +
// 1 from its end, aligned as the grid). It is matched against the copy it
// replaces, as firstIterations matches a first iteration against the
// grid's: for a process with copies near the end the tail copy d + 1 at x
// (`ref`), with operations left out (no stage-named write) and operations
// of the first iteration only added (from the tail copy at ring index 0,
// the first iteration d + 1 from the end at ring start 0; on a slot that
// no later iteration uses), the same MMA commits, no named barrier of the
// first iteration's own and none left out, and the same counted mbarrier operations, accesses
// and read-marker moves per view read by stages (countersDiffer): what the
// copy changes is what the first copies change, so the counts every later
// operation reads are the tail copy's, which the tail arguments covered.
// Each matched operation is the tail copy's, the aligned fields
// included. A process without copies near the end runs its first copy (or
// the grid's iteration) there: its text must be that one's. Else unknown.
std::vector<Instr> firstTailText(const PGrid& g, size_t p, int64_t t, size_t d, int64_t x,
                                 const std::vector<Instr>& xp, int a, int b) {
  const std::string& name = g.grid.procs[p].name;
  auto refuse = [&](const std::string& what) {
    throw Fail(fmt::format("the first K iteration of {} at ring start {} when it is {} from its tile's end {} (a tile "
                           "of {} iterations; not covered by the persistent-kernel proof yet)",
                           name, x, d + 1, what, d + 1));
  };
  const TileShape& sh = g.shape[p];
  const bool tail = p < g.tail_x.size() && g.tail_x[p];
  const bool first = p < g.first_x.size() && g.first_x[p];
  const std::vector<Instr>& prog = g.grid.procs[p].program;
  const std::span<const Instr> grid_iter = kIteration(prog, sh, t, x);
  const std::vector<Instr> ref = tail    ? g.tail_text[d][0][p][static_cast<size_t>(t)][static_cast<size_t>(x)]
                                 : first ? g.first_text[0][p][static_cast<size_t>(t)][static_cast<size_t>(x)]
                                         : std::vector<Instr>(grid_iter.begin(), grid_iter.end());
  if (!tail) {
    bool same = b - a == static_cast<int>(ref.size());
    for (int i = 0; same && i < b - a; ++i) same = sameBesidesAligned(xp[static_cast<size_t>(a + i)], ref[i], g, p);
    if (!same) refuse("differs from its first iteration's text and it has no copies near the end");
    return ref;
  }
  if (p < g.first_named.size() && g.first_named[p]) refuse("arrives on named barriers of the first iteration's own");
  const std::vector<Instr>& at0 = g.tail_text[d][0][p][static_cast<size_t>(t)][0];
  const std::set<int> only = firstOnlySlotsNearTheEnd(g, p);
  // ref[from, to) left out: no stage-named write (its generation) and no
  // named-barrier operation (the arrivals per period the shifts count,
  // gridCounts; the first copies' own are refused above)
  auto leaveOut = [&](int from, int to) {
    refuseDroppedStageWrites(ref, from, to, name, x);
    for (int q = from; q < to; ++q)
      if (ref[static_cast<size_t>(q)].named >= 0) refuse("leaves out a named-barrier operation");
  };
  std::vector<Instr> text;
  int j = 0;
  const int n = static_cast<int>(ref.size());
  for (int i = a; i < b; ++i) {
    int jj = j;
    while (jj < n && !sameBesidesAligned(xp[static_cast<size_t>(i)], ref[static_cast<size_t>(jj)], g, p)) ++jj;
    if (jj < n) {
      leaveOut(j, jj);
      text.push_back(ref[static_cast<size_t>(jj)]);
      j = jj + 1;
      continue;
    }
    const int z = firstOnlyOp(xp[static_cast<size_t>(i)], at0, 0, static_cast<int>(at0.size()), only);
    if (z < 0) refuse("is not its copy's text with operations left out or operations of the first iteration added");
    text.push_back(at0[static_cast<size_t>(z)]);
  }
  leaveOut(j, n);
  if (commitsIn(xp, a, b) != commitsIn(ref, 0, n)) refuse("commits a different number of MMA groups");
  const std::string what =
      countersDiffer(g, p, text, ref, stageReadViews(g, p), fillBarriers(*g.grid.schedule), {}, {});
  if (!what.empty()) refuse(what);
  return text;
}

void refuseTileCountReadsNearTheEnd(const ir::Schedule& s, const TileLoops& tl, const std::vector<TileCountUse>& uses);

// The copies of a tile's first K iteration d from its end (firstTailText)
// per distance and ring start, from the grid `atx` (tiles at x, every K
// iteration d + 1 from its end, aligned; its shapes `xs`), for every process
// that runs the K loop. A read of the tile count in that grid must be the
// grid's and not in a K iteration (as the copies near the end's).
void firstTailIterationsAt(PGrid& g, const ir::Schedule& s, const TileLoops& tl, size_t d, int64_t x,
                           const System& atx, const std::vector<TileShape>& xs,
                           const std::vector<TileCountUse>& copy_uses) {
  refuseTileCountReadsInCopies(s, tl, copy_uses, g.uses);
  refuseTileCountReadsNearTheEnd(s, tl, copy_uses);
  for (size_t p = 0; p < g.grid.procs.size(); ++p) {
    const TileShape& sh = g.shape[p];
    if (sh.kind != TileShape::Full) continue;
    for (int64_t t = sh.first; t < g.Wt; t += sh.step)
      g.first_tail_text[d][0][p][static_cast<size_t>(t)][static_cast<size_t>(x)] =
          firstTailText(g, p, t, d, x, atx.procs[p].program, xs[p].head[t][0], xs[p].head[t][1]);
  }
}

// A tile of one K iteration runs its first iteration as its last (obstacle
// 1 (d)): where the K loop's first iteration has copies of its own
// (`first`, checkTileExprs) and some K iteration near the end too, every
// process with copies near the end gets a copy of its first iteration per
// distance d = 1..tail_m and ring start (first_tail_x; the ring starts no
// explored run enters, and ring start 0, the tail copy's text, which is
// iteration 0 of the tail grid: its first). Set up here, filled by
// tailsByRingStart from the grids it builds.
void setUpFirstTails(PGrid& g, bool first) {
  const size_t P = g.grid.procs.size();
  g.first_tail_x.assign(P, 0);
  g.first_tail_text.clear();
  if (!first || g.tail_m == 0) return;
  if (g.kinds > 1 || std::any_of(g.shape.begin(), g.shape.end(), [](const TileShape& sh) { return sh.step > 1; }))
    throw Fail("a tile of one K iteration runs its first K iteration as its last in a tile loop with two kinds of "
               "tile or a process that skips tiles (not covered by the persistent-kernel proof yet)");
  g.first_tail_text = g.tail_text;
  for (size_t p = 0; p < P; ++p) g.first_tail_x[p] = p < g.tail_x.size() && g.tail_x[p];
}

// `a` (p's K iteration at ring index gi of tile t in the tail grid whose
// tiles start at x) is `b` (the same in the tail grid whose tiles start at
// 0) but for the loop values and the generations of reads the grid aligned
// through the ring position, each lying from b's where the same read's lies
// from the grid's in the grid whose tiles start at x (PGrid::ring_gen_shift:
// both differences are the history of tile 0 before x, which no run's tile
// has; docs/z3.md "Ring generations compared by the far grids' shift").
bool sameBesidesRingGenShift(const PGrid& g, size_t p, const Instr& a, const Instr& b, int64_t x, int64_t t,
                             int64_t gi, const ir::Schedule& s) {
  if (!a.stmt || a.stmt != b.stmt || a.accesses.size() != b.accesses.size() || p >= g.ring_gen_shift.size())
    return false;
  Instr y = a;
  bool shifted = false;
  for (size_t i = 0; i < y.accesses.size(); ++i) {
    Access& u = y.accesses[i];
    const Access& v = b.accesses[i];
    if (u.write || u.view < 0 || u.view != v.view || u.gen == v.gen) continue;
    const auto f = g.ring_gen_shift[p].find(PGrid::RingGenKey{x, t, gi, a.stmt, i});
    if (f == g.ring_gen_shift[p].end() || !f->second || u.gen - v.gen != *f->second) return false;
    u.gen = v.gen;
    shifted = true;
  }
  return shifted && (sameBesidesLoops(y, b) || sameButViewWrittenBesidesLoops(y, b, s));
}

// The copies near the tile's end (tailIterations) of a process whose part
// before the K loop moves with the ring (presByRingStart; docs/z3.md
// "Copies per ring start and near the tile's end together"). Both kinds of
// copy were checked on grids that vary one thing: the copies near the end
// on grids whose tiles start at ring position 0 (the tail grids, every K
// iteration d from its end), the copies per ring start on grids whose tiles
// start at x with every K iteration far from the end. A copy per ring start
// x may leave out waits of a ring's first lap (ringStartWait) and names its
// accesses from x; presByRingStart step 3 showed that this changes nothing
// the builder derives for the K iterations far from the end. The same is
// checked here for those near it, as step 3 checks the grid: for every d =
// 1..m and every ring start x that an explored run can start a tile at
// (PGrid::startExplored), the tail grid d whose tiles start at x, aligned
// as presByRingStart aligns the grid at x, has the part before the K loop
// of the copy at x, in every K iteration the instructions of the tail grid
// d at ring start 0 (aligned alike) at the same ring index, the loop values
// apart, and after the K loop the grid's part. Then the copies near the end
// (the tail grid d at ring start 0's kept instructions, which are the
// grid's: tailIterationsAt) are what the builder gives a tile that starts
// at x too. Else unknown. Its iteration 0 there is a first K iteration d
// from its end: where those have copies of their own (first_tail_x, from
// the same grids: firstTailIterationsAt) it is matched there instead.
void tailsByRingStart(PGrid& g, const ir::Schedule& s, const Binding& binding, ir::Target target,
                      const TileLoops& tl, const std::vector<System>& tails, ProofBudget& budget) {
  const size_t P = g.grid.procs.size();
  std::vector<size_t> procs;
  for (size_t p = 0; p < P; ++p)
    if (p < g.tail_x.size() && g.tail_x[p] && p < g.pre_x.size() && g.pre_x[p]) procs.push_back(p);
  const bool first_tails = !g.first_tail_text.empty();
  if (procs.empty() && !first_tails) return;
  // a tail grid aligned as presByRingStart aligns the grid at x (grid_shapes: that grid's shapes)
  auto aligned = [&](System sys, const std::vector<TileShape>& grid_shapes) {
    alignSpacesTo(sys, g.grid);
    std::vector<TileShape> shapes;
    for (size_t p = 0; p < P; ++p)
      shapes.push_back(grid_shapes[p].kind == TileShape::Full
                           ? tailShapeOf(sys.procs[p], tl, grid_shapes[p], g.Wt, g.Wg)
                           : tileShapeOf(sys.procs[p], tl, g.Wt, g.Wg));
    if (g.counters) alignCountersToTheRing(sys, shapes, g.Wt, g.Wg);
    else alignStageWritesToTheRing(sys, shapes, g.Wt, g.Wg);
    return std::make_pair(std::move(sys), std::move(shapes));
  };
  // (`shifted`: what else a K iteration's instruction may differ by)
  auto sameRange = [&](const std::vector<Instr>& a, int a0, int a1, const std::vector<Instr>& b, int b0, int b1,
                       const std::function<bool(const Instr&, const Instr&)>& shifted = {}) {
    if (a1 - a0 != b1 - b0) return false;
    for (int q = 0; q < a1 - a0; ++q) {
      const Instr &u = a[static_cast<size_t>(a0 + q)], &v = b[static_cast<size_t>(b0 + q)];
      if (!sameBesidesLoops(u, v) && !sameButViewWrittenBesidesLoops(u, v, s) && !(shifted && shifted(u, v)))
        return false;
    }
    return true;
  };
  for (size_t d = 0; d < tails.size(); ++d) {
    const auto [at0, shapes0] = aligned(tails[d], g.shape);
    for (int64_t x = 1; x <= g.Wg; ++x) {
      if (!g.startExplored(x) || (procs.empty() && x == g.Wg)) continue;
      checkBudget(budget, "building the copies near the tile's end per ring start");
      std::vector<TileCountUse> copy_uses;
      System built = buildGrid(s, binding, target, tl, g.Wt, g.Wg, g.not_last, &copy_uses, 1, x,
                               static_cast<int64_t>(d) + 1);
      chargeBuild(budget, built);  // (a grid per ring start and distance: charged as built)
      const bool pre_shapes = static_cast<size_t>(x) < g.pre_shapes.size() && !g.pre_shapes[x].empty();
      const auto [atx, shapesx] = aligned(std::move(built), pre_shapes ? g.pre_shapes[static_cast<size_t>(x)] : g.shape);
      if (first_tails && x < g.Wg) firstTailIterationsAt(g, s, tl, d, x, atx, shapesx, copy_uses);
      for (size_t p : procs) {
        const TileShape &sh = g.shape[p], &s0 = shapes0[p], &sx = shapesx[p];
        const std::vector<Instr>& xp = atx.procs[p].program;
        const std::vector<Instr>& tp = at0.procs[p].program;
        const std::vector<Instr>& mp = g.grid.procs[p].program;
        auto refuse = [&](const std::string& what) {
          throw Fail(fmt::format("{} of {} differs when its tile starts at ring position {} and its K iterations are "
                                 "{} from the tile's end (not covered by the persistent-kernel proof yet)",
                                 what, g.grid.procs[p].name, x, d + 1));
        };
        // (iteration 0 there: the first one d + 1 from the end, matched above
        // where it has copies of its own)
        const int64_t k0 = g.first_tail_x.size() > p && g.first_tail_x[p] ? 1 : 0;
        for (int64_t t = sh.first; t < g.Wt; t += sh.step) {
          const std::vector<Instr>& pre = g.pre_text[0][p][static_cast<size_t>(t)][static_cast<size_t>(x)];
          if (!samePreBesidesRenamedReads(g, p, xp, sx.tile_start[t], sx.head[t][0], pre))
            refuse(fmt::format("the part before the K loop of tile {}", t));
          for (int64_t k = k0; k + x < g.Wg; ++k)
            if (!sameRange(xp, sx.head[t][k], sx.head[t][k + 1], tp, s0.head[t][k + x], s0.head[t][k + x + 1],
                           [&](const Instr& a, const Instr& b) { return sameBesidesRingGenShift(g, p, a, b, x, t, k + x, s); }))
              refuse(fmt::format("the K iteration at ring index {} of tile {}", k + x, t));
          if (!sameRange(xp, sx.head[t][g.Wg], sx.tile_start[t + 1], mp, sh.head[t][g.Wg], sh.tile_start[t + 1]))
            refuse(fmt::format("the part after the K loop of tile {}", t));
        }
      }
    }
  }
}

// The grids with every K iteration d = 2..m from its tile's end (E_B read
// as k + d; `tails` holds d = 1), m the tail's depth checkTileExprs found.
// The expressions they evaluate (an `else:` of a guard `k + c < E_B` that
// only such iterations take) are checked like the others: checkTileExprs
// again over them all, which must find the same depth (else unknown).
bool deeperTailGrids(PGrid& g, const ir::Schedule& s, const Binding& binding, ir::Target target, const TileLoops& tl,
                     const Limits& limits, std::vector<System>& tails, int m, bool* first,
                     std::vector<TileCountUse>* tail_uses) {
  std::set<const ir::Expr*> reads_end_in_k = g.end_in_k;
  for (int d = static_cast<int>(tails.size()) + 1; d <= m; ++d) {
    tails.push_back(buildGrid(s, binding, target, tl, g.Wt, g.Wg, g.not_last, tail_uses, 1, 0, d,
                              &reads_end_in_k));
    for (const ir::Expr* e : tails.back().replace_loop_exprs)
      if (std::find(g.tail_exprs.begin(), g.tail_exprs.end(), e) == g.tail_exprs.end()) g.tail_exprs.push_back(e);
  }
  g.end_in_k = std::move(reads_end_in_k);
  int again = 0;
  const bool reads_end = checkTileExprs(s, tl, g, limits, first, &again);
  if (again != m)
    throw Fail(fmt::format("the K iterations near a tile's end differ over {} iterations, and over {} with the "
                           "branches only they take (not covered by the persistent-kernel proof yet)",
                           m, again));
  return reads_end;
}

// The register and TMEM hazards (data.uninitialized, data.stale-accumulator,
// data.discarded-product) are marks the builder puts on the grid's
// instructions; an explored run carries the marks of the instructions it
// runs. TMEM's are decided by one run of the built system (encoder/
// tmem_values.cpp), which stops at its first sync violation, and the grid,
// every tile from ring index 0, is no consistent program past tile 0: so a
// hazard between tiles (a segment's reset overwriting the segment before's
// product that nobody read out) is marked nowhere, and such a schedule was
// proved (helper streamk, session 34). With the tile count fixed
// (segmentsAsTiles) the copy's own system of n tiles of Wg iterations each,
// tile t from ring index t * Wg, is one run of the explored ones; it must
// carry no mark at all. Every segment does the same to its fragments and the
// parts between them nothing (registerUniform), so what a tile boundary does
// to them (the last write of one segment, the reads the barriers order
// between, the first of the next) is the same whatever the lengths: a
// hazard of a run of other lengths is one of this run. Else unknown.
//
// The same run, of the window's Wt tiles, for a persistent kernel whose
// tiles do different things to TMEM by their index (tmemDependsOnTile: the
// double-buffered accumulator's `if t % 2 == 0`): without it a tile that
// adds onto the result of two tiles before (`elif t % 2 == 0: ...
// init=False`) was proved (helper streamk, session 34). Such a dependence
// repeats with the tile period the proof has checked, and the run covers
// the window's tiles, so every kind of boundary between two tiles occurs in
// it; it is built with tiles of the window's Wg iterations and of the least
// K trip count (docs/known-limits.md "Persistent kernels: TMEM hazards
// between tiles" says what this leaves).
void checkConsecutiveTileHazards(const ir::Schedule& s, const Binding& binding, ir::Target target,
                                 const TileLoops& tl, int64_t tiles, int64_t Wg, bool true_tails = false) {
  const System run = buildGrid(s, binding, target, tl, tiles, Wg, TileCountRead::NotLast, nullptr, 0, 0, 0, nullptr,
                               /*consecutive=*/true, -1, nullptr, nullptr, true_tails);
  for (const Process& p : run.procs)
    for (const Instr& in : p.program)
      if (in.regs_hazard.regs_space >= 0)
        throw Fail(fmt::format("{} meets {} in the run of {} tiles of {} iterations each (not covered by the "
                               "persistent-kernel proof)",
                               p.name, in.regs_hazard.rule(), tiles, Wg));
}

// A copy near a tile's end that leaves out an MMA with an access in TMEM
// (PGrid::tail_tmem; docs/z3.md "An MMA into TMEM left out near a tile's
// end"): the builder derives nothing from a TMEM access for later
// operations (no generation, Builder::tag; no counter) but the hazard marks
// of one run (markTmemHazards), and the explored copies carry the grid's,
// whose K iterations are all far from their end. So the true programs are
// run instead: Wt consecutive tiles of L iterations each, every K iteration
// reading E_B as L (one run of a block of the kernel with L K iterations), for
// every allowed L up to w0g + tail_m + 3 * Pg, and the window's Wg; each
// must carry no mark. A tile's TMEM accesses are its K iterations' in order,
// each a function of its ring index, periodic with Pg past w0g, and of its
// distance to the end up to tail_m (checkTileExprs); a hazard is decided
// per column by the accesses since its last write, and a period that runs
// twice leaves each column as it finds it from the second time on (a write
// in it: its own accesses from the last write; none: its reads flag the
// column once), so a longer tile's middle periods add no state, and L up
// to that bound meets every residue of the middle part modulo Pg past two
// whole periods. Else unknown.
void checkTailTmemRuns(const ir::Schedule& s, const Binding& binding, ir::Target target, const TileLoops& tl,
                       const PGrid& g) {
  const int64_t top = g.w0g + g.tail_m + 3 * std::max<int64_t>(g.Pg, 1);
  std::set<int64_t> lengths = {g.Wg};
  for (int64_t len = std::max<int64_t>(g.min_len, 1); len <= top; ++len)
    if (len % std::max<int64_t>(g.len_multiple, 1) == 0) lengths.insert(len);
  for (int64_t len : lengths) checkConsecutiveTileHazards(s, binding, target, tl, g.Wt, len, /*true_tails=*/true);
}

// The copies near a tile's end are built with the tile count E_A read as
// t + far in every tile (PGrid::not_last), yet a run's last tiles read
// t + 1 .. t + far - 1 there: a read of E_A in a K iteration of those grids
// (a branch only iterations near the end take: `else: if t + 1 < T:`)
// could differ in the last tiles, and neither tileCountDepth (the grid's reads) nor
// checkLastTileGrid (the grid's iterations, each far from its end) sees
// it. Such a read is refused (unknown); one outside the K iterations is
// the grid's (tailIterationsAt: the copies equal the grid outside them).
void refuseTileCountReadsNearTheEnd(const ir::Schedule& s, const TileLoops& tl, const std::vector<TileCountUse>& uses) {
  for (const TileCountUse& u : uses)
    if (u.in_k)
      throw Fail(fmt::format("{} reads {} in a K iteration near the tile's end (not covered by the persistent-kernel "
                             "proof yet)",
                             ir::exprToString(*u.expr, s), ir::exprToString(*tl.tiles, s)));
}

// With a last tile of its own (PGrid::last_tile) the copies near a tile's
// end are entered before its part after the K loop too: the first argument
// of tailIterations (operations whose counters count their own K iteration
// alone) stands on views no access outside the K iterations meets and on
// MMA commit numbers nobody reads, so both are asked of the last tiles'
// parts as well (ringPositionViews and mmaCommitNumbersUnread saw the grid's
// only; docs/z3.md "The last K iterations of the last tile").
void keepLastTilePartsOutOfTheTailArgument(PGrid& g) {
  if (!g.last_tile) return;
  for (size_t p = 0; p < g.grid.procs.size(); ++p)
    for (const std::vector<Instr>& part : lastTilePosts(g, p))
      for (const Instr& in : part) {
        for (const Access& a : in.accesses)
          if (a.view >= 0) g.ring_views.erase(a.view);
        if (in.kind == InstrKind::MmaCommit && in.slot >= 0) g.commits_unread = false;
      }
  for (const System& l : g.last) g.commits_unread = g.commits_unread && trip::mmaCommitNumbersUnread(l);
}

// Where the periods may be searched at the ring positions runs reach only
// (slopedRingPeriod): one kind of tile, every process runs every tile, the
// tile count open, one CTA (the shifts by part of a period, searched for
// clusters and processes that skip tiles, assume the plain periods).
bool slopedPeriodsAllowed(const PGrid& g, bool kinds, bool skips, const TripProofOptions& opts) {
  return opts.sloped_periods && !kinds && !skips && g.fixed_tiles < 0 && g.grid.ctas <= 1;
}

// Tiles of one K iteration start at ring position t in tile t: a first
// iteration at x - t = 0 forever, so where a process needs its position at
// least 1 past its tile index (PGrid::periodsHoldOn) neither shift ever
// applies to them and the exploration of that length leaves every window.
void refuseShortTilesThatNeverShift(const PGrid& g) {
  if (!g.slope || g.min_len > 1) return;
  for (size_t p = 0; p < g.reach.size(); ++p) {
    const int64_t f = p < g.first_x.size() && g.first_x[p] ? 1 : 0;
    if (g.reach[p] != kEveryTile && g.reach[p] - f > 0)
      throw Fail(fmt::format("{}'s K iterations repeat only {} ring positions past the tile index, which tiles of one "
                             "K iteration never reach (a ring index minus the tile index)",
                             g.grid.procs[p].name, g.reach[p]));
  }
}

// Whether `e` reads the tile's ring start t * E_B (isTileProduct).
bool readsTileProduct(const ir::Expr& e, const TileLoops& tl) {
  if (isTileProduct(e, tl)) return true;
  return std::any_of(e.args.begin(), e.args.end(), [&](const ir::ExprPtr& a) { return a && readsTileProduct(*a, tl); });
}

// The reads in a part before the K loop that moves with the ring whose view
// index reads the tile's ring start (FA4's MMA: `smem_k[g0]`, g0 = t *
// n_blocks) and that the grid names by stage (its index, evaluated at ring
// start 0 in every tile, stays below the view's stages): the copies past
// the ring's first lap name them by iteration, with a generation of another
// kind, which sameButRingStart cannot compare with the grid's. They are
// named as the ring in every copy (namePreReadsAsTheRing, docs/z3.md "Reads
// named by the ring start") where each is its process's first access of its
// view index in every run (ringStartReadsOncePerRun). What the grid alone
// decides of that is asked here, before the last tiles' grids and the grids
// per ring start are built (refuseRingStartReadsOutsideTheirParts), so that
// a refusal stays cheap.
void collectRingStartReads(PGrid& g, const TileLoops& tl) {
  g.ring_start_reads.assign(g.grid.procs.size(), {});
  for (size_t p = 0; p < g.pre_moves.size(); ++p) {
    if (!g.pre_moves[p]) continue;
    const TileShape& sh = g.shape[p];
    const std::vector<Instr>& prog = g.grid.procs[p].program;
    for (int pc = sh.tile_start[sh.first]; pc < sh.head[sh.first][0]; ++pc) {
      const Instr& in = prog[static_cast<size_t>(pc)];
      if (!in.stmt) continue;
      for (const Access& a : in.accesses) {
        if (a.write || a.view < 0 || !a.stage_like) continue;
        for (const ir::BufferRef* r : {&in.stmt->op.src, &in.stmt->op.src2, &in.stmt->op.dst})
          if (r->kind == ir::BufferRef::Kind::View && r->index == a.view && r->slot && readsTileProduct(*r->slot, tl))
            g.ring_start_reads[p].insert({in.stmt, a.view});
      }
    }
  }
}

// The views of p's reads named by the ring start.
std::set<int> ringStartReadViews(const PGrid& g, size_t p) {
  std::set<int> views;
  if (p < g.ring_start_reads.size())
    for (const auto& [stmt, v] : g.ring_start_reads[p]) views.insert(v);
  return views;
}

// Refuses where process p (with reads named by the ring start) writes a
// view it reads so, or accesses it in `text` [a, b) where `where` (not
// before its K loop or in a K iteration).
void refuseRingStartViewAccess(const PGrid& g, size_t p, const std::vector<Instr>& text, size_t a, size_t b,
                               const char* where) {
  const std::set<int> views = ringStartReadViews(g, p);
  for (size_t pc = a; pc < b; ++pc)
    for (const Access& x : text[pc].accesses) {
      if (!views.count(x.view) || (!x.write && !where)) continue;
      throw Fail(fmt::format("{} reads {} at an index of the tile's ring start before its K loop and {} it {} (not "
                             "covered by the persistent-kernel proof yet)",
                             g.grid.procs[p].name, g.grid.schedule->views[static_cast<size_t>(x.view)].name,
                             x.write ? "writes" : "accesses", where ? where : "too"));
    }
}

// The grid's part of ringStartReadsOncePerRun, asked before the grids per
// ring start: p runs every tile, writes none of those views and accesses
// them only before its K loop and in its K iterations.
void refuseRingStartReadsOutsideTheirParts(const PGrid& g) {
  for (size_t p = 0; p < g.ring_start_reads.size(); ++p) {
    if (g.ring_start_reads[p].empty()) continue;
    const TileShape& sh = g.shape[p];
    if (sh.kind != TileShape::Full || sh.first != 0 || sh.step != 1 || g.kinds > 1)
      throw Fail(fmt::format("{} reads a view at an index of the tile's ring start before its K loop and skips tiles "
                             "or runs tiles of two kinds (not covered by the persistent-kernel proof yet)",
                             g.grid.procs[p].name));
    const std::vector<Instr>& prog = g.grid.procs[p].program;
    refuseRingStartViewAccess(g, p, prog, 0, prog.size(), nullptr);
    refuseRingStartViewAccess(g, p, prog, 0, static_cast<size_t>(sh.prefix_end), "before its tile loop");
    refuseRingStartViewAccess(g, p, prog, static_cast<size_t>(sh.tile_start[g.Wt]), prog.size(), "after its tile loop");
    for (int64_t t = 0; t < g.Wt; ++t)
      refuseRingStartViewAccess(g, p, prog, static_cast<size_t>(sh.head[t][g.Wg]),
                                static_cast<size_t>(sh.tile_start[t + 1]), "after its K loop");
  }
}

// Each read named by the ring start is its process's first access of its
// view index in every run (docs/z3.md "Reads named by the ring start"),
// asked of every text the layout holds, else unknown. With the offset of
// each access of such a view v by p taken from its tile's ring start x
// (before the K loop: every copy x = 0..Wg of every tile of the window) or
// from its ring position g (a K iteration): p writes v nowhere and
// accesses it nowhere else (not outside its tile loop, not after a K loop,
// in no copy per ring end or of a last tile); every copy of the part before
// the K loop accesses v at offsets in [0, min_len) and no index twice over
// common bytes; every K iteration at offsets below its distance to the
// tile's end (the grid's and the first K iteration's copies: at least
// tail_m + 1; a copy d from the end: d). A tile of L >= min_len iterations
// at ring start x then accesses v at indices in [x, x + L) only, and its
// part before the K loop each index once before any other access of the
// tile: no access before it reaches an index >= x.
void ringStartReadsOncePerRun(const PGrid& g) {
  refuseRingStartReadsOutsideTheirParts(g);
  for (size_t p = 0; p < g.ring_start_reads.size(); ++p) {
    const std::set<int> views = ringStartReadViews(g, p);
    if (views.empty()) continue;
    const std::string& name = g.grid.procs[p].name;
    auto refuse = [&](const std::string& why) {
      throw Fail(fmt::format("{} reads a view at an index of the tile's ring start before its K loop, and {} (not "
                             "covered by the persistent-kernel proof yet)",
                             name, why));
    };
    auto texts = [&](const PartTexts& pt, size_t kind) -> const std::vector<std::vector<std::vector<Instr>>>* {
      return kind < pt.size() && p < pt[kind].size() ? &pt[kind][p] : nullptr;
    };
    // (a copy's text at tile t and position gi, where there is one)
    auto copyAt = [&](const PartTexts& pt, int64_t t, int64_t gi) -> const std::vector<Instr>* {
      const auto* tiles = texts(pt, 0);
      if (!tiles || static_cast<size_t>(t) >= tiles->size() || static_cast<size_t>(gi) >= (*tiles)[t].size())
        return nullptr;
      return &(*tiles)[t][gi];
    };
    for (const PartTexts* pt : {&g.post_text})
      for (size_t kind = 0; kind < pt->size(); ++kind)
        if (const auto* tiles = texts(*pt, kind))
          for (const auto& tile : *tiles)
            for (const std::vector<Instr>& part : tile) refuseRingStartViewAccess(g, p, part, 0, part.size(), "after its K loop");
    for (const std::vector<Instr>& part : lastTilePosts(g, p))
      refuseRingStartViewAccess(g, p, part, 0, part.size(), "after the K loop of a last tile");
    // offsets of p's accesses of the views in `text` from `at` (an index twice over common bytes: refused)
    // (two operands of one instruction that read the same index: one read,
    // no wait between them moves the reader's marker)
    auto offsets = [&](const std::vector<Instr>& text, size_t a, size_t b, int64_t at, bool once) {
      std::vector<std::pair<int64_t, const Access*>> out, before;
      for (size_t pc = a; pc < b; ++pc) {
        for (const Access& x : text[pc].accesses) {
          if (!views.count(x.view)) continue;
          if (x.write) refuse("writes the view too");
          for (const auto& [o, y] : before)
            if (once && y->view == x.view && o == x.index - at && x.lo < y->hi && y->lo < x.hi)
              refuse(fmt::format("its part before the K loop reads index {} twice", x.index));
          out.push_back({x.index - at, &x});
        }
        before = out;
      }
      return out;
    };
    const TileShape& sh = g.shape[p];
    const std::vector<Instr>& prog = g.grid.procs[p].program;
    for (int64_t t = 0; t < g.Wt; ++t) {
      if (g.pre_x.size() > p && g.pre_x[p])
        for (int64_t x = 0; x <= g.Wg; ++x) {
          const std::vector<Instr>& pre = g.pre_text[0][p][t][x];
          for (const auto& [o, a] : offsets(pre, 0, pre.size(), x, true))
            if (o < 0 || o >= g.min_len)
              refuse(fmt::format("its part before the K loop accesses the view outside its tile's first {} ring "
                                 "indices",
                                 g.min_len));
        }
      auto kIteration = [&](const std::vector<Instr>& text, size_t a, size_t b, int64_t gi, int64_t distance) {
        for (const auto& [o, acc] : offsets(text, a, b, gi, false))
          if (o >= distance)
            refuse(fmt::format("a K iteration accesses the view {} ring positions ahead, {} or less from its tile's "
                               "end",
                               o, distance));
      };
      for (int64_t gi = 0; gi < g.Wg; ++gi) {
        kIteration(prog, static_cast<size_t>(sh.head[t][gi]), static_cast<size_t>(sh.head[t][gi + 1]), gi,
                   g.tail_m + 1);
        for (size_t d = 0; d < g.tail_text.size(); ++d)
          if (const std::vector<Instr>* text = copyAt(g.tail_text[d], t, gi))
            kIteration(*text, 0, text->size(), gi, static_cast<int64_t>(d) + 1);
        if (const std::vector<Instr>* text = copyAt(g.first_text, t, gi))
          kIteration(*text, 0, text->size(), gi, g.tail_m + 1);
        // (a first K iteration d from its end, at ring start gi: a copy near
        // the end too, whose reads a left-out MMA may have dropped)
        for (size_t d = 0; d < g.first_tail_text.size(); ++d)
          if (const std::vector<Instr>* text = copyAt(g.first_tail_text[d], t, gi))
            kIteration(*text, 0, text->size(), gi, static_cast<int64_t>(d) + 1);
      }
    }
  }
}

// The part of leftOutReadIsNoReturn the grid as built decides (`raw`, its
// texts; `last_tile`: the schedule reads the tile count, PGrid::last_tile
// once the last tiles' grids are built): the reason it fails, "" if it
// holds. certainTailRefusal asks it at the probe, where a failure is
// certain: leftOutReadIsNoReturn asks it of the same texts, among others.
std::string noReturnOnTheGrid(const PGrid& g, const System& raw, bool last_tile, size_t p, const Access& a,
                              const std::map<int, std::set<int>>& fill) {
  const std::string& view = raw.schedule->views[static_cast<size_t>(a.view)].name;
  const TileShape& sh = g.shape[p];
  if (sh.kind != TileShape::Full || sh.first != 0 || sh.step != 1 || g.kinds > 1 || last_tile ||
      g.fixed_tiles >= 0 || g.own_lengths)
    return "the process skips tiles, or tiles have kinds, lengths of their own or a last tile of their own";
  const std::vector<Instr>& prog = raw.procs[p].program;
  for (size_t r = 0; r < raw.procs.size(); ++r)
    if (r != p && raw.procs[r].role == raw.procs[p].role && raw.procs[r].cta == raw.procs[p].cta)
      for (const Instr& x : raw.procs[r].program)
        for (const Access& b : x.accesses)
          if (b.view == a.view) return fmt::format("another process of its role reads {} too", view);
  for (const Instr& x : prog)
    for (const Access& b : x.accesses)
      if (b.view == a.view && b.write) return fmt::format("it writes {} too", view);
  // (a read after a K loop would share the keying iteration of the part
  // before it: a re-read without the left-out read, a return with it)
  for (int64_t t = 0; t < g.Wt; ++t)
    for (int pc = sh.head[t][g.Wg]; pc < sh.tile_start[t + 1]; ++pc)
      for (const Access& b : prog[static_cast<size_t>(pc)].accesses)
        if (b.view == a.view) return fmt::format("it reads {} after a K loop", view);
  const std::set<int> slots = readMarkerSlots(raw, p, a, fill);
  std::string why;
  forEachGridKIteration(g, p, prog, [&](const std::vector<Instr>& text, size_t from, size_t to) {
    for (size_t pc = from; pc < to; ++pc)
      if (movesReadMarker(text[pc], slots)) why = "a K iteration waits where its marker moves";
  });
  return why;
}

// The second case of leftOutReadsChangeNoRead: p's read `a` of the
// instruction at `q` (the grid's K iteration, in `raw`, the grid as built)
// is no return in any run.
void leftOutReadIsNoReturn(const PGrid& g, const System& raw, size_t p, int q, const Access& a,
                           const std::map<int, std::set<int>>& fill) {
  const ir::Schedule& s = *raw.schedule;
  const std::string& view = s.views[static_cast<size_t>(a.view)].name;
  auto refuse = [&](const std::string& why) {
    throw Fail(fmt::format("{} leaves out a read of {} near its tile's end that reads no ring position, and {} (not "
                           "covered by the persistent-kernel proof yet)",
                           raw.procs[p].name, a.what, why));
  };
  if (const std::string why = noReturnOnTheGrid(g, raw, g.last_tile, p, a, fill); !why.empty()) refuse(why);
  const TileShape& sh = g.shape[p];
  forEachTextOf(g, p, [&](const std::vector<Instr>& text) {
    for (const Instr& x : text)
      for (const Access& b : x.accesses)
        if (b.view == a.view && b.write) refuse(fmt::format("it writes {} too", view));
  });
  auto readsAfterAKLoop = [&](const std::vector<Instr>& text) {
    for (const Instr& x : text)
      for (const Access& b : x.accesses)
        if (b.view == a.view) refuse(fmt::format("it reads {} after a K loop", view));
  };
  forEachCopyOf(g.post_text, p, readsAfterAKLoop);
  for (const std::vector<Instr>& part : lastTilePosts(g, p)) readsAfterAKLoop(part);
  const std::set<int> slots = readMarkerSlots(raw, p, a, fill);
  forEachKIterationText(g, p, raw.procs[p].program, [&](const std::vector<Instr>& text, size_t from, size_t to) {
    for (size_t pc = from; pc < to; ++pc)
      if (movesReadMarker(text[pc], slots)) refuse("a K iteration waits where its marker moves");
  });
  // the read's tile
  int64_t tile = -1;
  for (int64_t t = 0; t < g.Wt && tile < 0; ++t)
    if (sh.head[t][0] <= q && q < sh.head[t][g.Wg]) tile = t;
  if (tile < 0) refuse("it lies in no K iteration of the grid");
  // each copy of the tile's part before the K loop reads the index over
  // the read's bytes after its last wait that moves the marker
  auto readsLast = [&](const std::vector<Instr>& text, size_t from, size_t to) {
    for (size_t pc = to; pc-- > from;) {
      const Instr& x = text[pc];
      for (const Access& b : x.accesses)
        if (!b.write && b.view == a.view && b.index == a.index && b.lo <= a.lo && a.hi <= b.hi) return true;
      if (movesReadMarker(x, slots)) return false;
    }
    return false;
  };
  const bool pre = p < g.pre_x.size() && g.pre_x[p];
  for (int64_t x = 0; x <= (pre ? g.Wg : 0); ++x) {
    const bool ok = pre ? readsLast(g.pre_text[0][p][tile][x], 0, g.pre_text[0][p][tile][x].size())
                        : readsLast(g.grid.procs[p].program, static_cast<size_t>(sh.tile_start[tile]),
                                    static_cast<size_t>(sh.head[tile][0]));
    if (!ok)
      refuse(fmt::format("the part before the K loop of tile {} does not read {}[{}] over its bytes after its last "
                         "wait that moves the read's marker",
                         tile, view, a.index));
  }
}

// A read that copies near the tile's end leave out with their MMA
// (PGrid::left_reads) changes no later read's meaning (docs/z3.md
// "Left-out MMA reads near a tile's end"). What a read leaves behind is its
// process's read epoch of the view index (Builder::tag: the marker, the
// per-byte epochs, returns and markers, the keying iteration, the
// read-back range, the read events checkRereads replays), read by the
// process's next read of the index alone. Two cases, else unknown:
// * the view's index is read by its process at the tile's ring start
//   before the K loop (PGrid::ring_start_reads, FA4's and the store-warp
//   FMHA's `smem_k[it + 1]`): ringStartReadsOncePerRun (asked after this)
//   requires every copy d from the end to access the view below offset d,
//   which the left-out read makes true, and then shows the part before the
//   K loop's read the first access of its index in every run; its
//   generation is the copy at Wg's, sound whatever it is;
// * the read is no return (`smem_q[0]`): the process writes the view
//   nowhere and reads it after no K loop, no other process of its role and
//   CTA reads it, the process runs every tile, of one kind, with no last
//   tile or tile lengths of their own; the read's index is the one the
//   part before the K loop reads (every copy per ring start of the read's
//   tile) over bytes that hold the read's, after the part's last wait that
//   moves the index's marker; and no K iteration's text (the grid's, every
//   copy) holds a wait that moves it. Then in every run the left-out read
//   finds the marker its bytes were last read at and counts nothing
//   (countReturns); it sets only the keying iteration, the last read's
//   barrier count and program index, which the next read compares for a
//   re-read, never one here (a return comes after a wait outside the K
//   iterations, so in a later tile, whose keying iteration is neither the
//   left-out read's nor the one of the read before it), and which a peer's
//   re-read reads (peersReadAlike), none here.
void leftOutReadsChangeNoRead(const PGrid& g, const System& raw) {
  const std::map<int, std::set<int>> fill = fillBarriers(*raw.schedule);
  for (size_t p = 0; p < g.left_reads.size(); ++p) {
    if (g.left_reads[p].empty()) continue;
    const std::set<int> at_ring_start = ringStartReadViews(g, p);
    for (int q : g.left_reads[p]) {
      const Instr& in = raw.procs[p].program[static_cast<size_t>(q)];
      for (const Access& a : in.accesses)
        if (trip::leftOutReadToCheck(in, a, raw, g.ring_views) && !at_ring_start.count(a.view))
          leftOutReadIsNoReturn(g, raw, p, q, a, fill);
    }
  }
}

// The fifth obstacle of FA4 (docs/z3.md "First K iterations that are also
// a tile's last"), asked before the grids per ring start and end where it
// is certain: tailIterationsAt matches an operation of a copy near the
// tile's end only to one of the same kind (and, for an MMA commit, the
// same slot), so at tile 0's K iteration at ring index 0 of the tail grid
// (`tail`, every K iteration its tile's last) against the grid as built
// (`raw`) it refuses
// * more MMA commits on a slot than the grid's: one is added, and no tail
//   argument adds a commit (neither counterFree nor trip::addableArrival);
// * fewer MMA commits on a slot where none of the grid's there can be left
//   out: each commit on an mbarrier is left out only where its slot and
//   phase are named by iter= and its process's numbers are read in order
//   alone (trip::leavableWithCounters, mmaCommitNumbersReadInOrder, a
//   fact of the role's text; docs/z3.md "MMA commits left out near a
//   tile's end"); counterFree and leavesOnlyTextCounters never;
// * fewer MMAs than the grid's MMAs with an access in TMEM (trip::mmaOnTmem)
//   where each of those also accesses a view that some operation accesses
//   outside the K iterations (or by its stage), or memory other than a view,
//   TMEM or a path-free fragment: trip::leavableWithCounters leaves a TMEM
//   MMA out only with its other accesses in ring-position views
//   (trip::ringPositionViews refuses every such view) or path-free fragments,
//   and counterFree and leavesOnlyTextCounters never.
// whatever else it matches, on the same two grids. Which instructions an
// iteration holds is decided by the conditions the builder evaluates, which
// at tile 0's ring index 0 read no window size (E_B far from the end reads
// alike past the tail's depth, checkTailReads): a larger window would
// refuse it too. So this loses no proof; FA4's MMA and the store-warp
// FMHA's (the next block's S issue, its MMA into TMEM and its commits on
// k_empty and s_full left out in a tile's last iteration) meet it at the
// probe, not after the grids.
// The first process so refused and the reason's words; p = -1 if none.
struct CertainTailRefusal {
  int p = -1;
  std::string what;
};
// The views some operation of `raw` accesses outside the K iterations of
// the grid's Full processes, or by its stage (never trip::ringPositionViews).
std::set<int> viewsOutsideKIterations(const PGrid& g, const System& raw) {
  std::set<int> out;
  for (size_t p = 0; p < raw.procs.size(); ++p) {
    std::vector<char> in_k(raw.procs[p].program.size(), 0);
    if (p < g.shape.size() && g.shape[p].kind == TileShape::Full)
      for (const trip::KIteration& k : kIterationsOf(g))
        if (k.proc == static_cast<int>(p))
          for (int pc = k.a; pc < k.b; ++pc) in_k[static_cast<size_t>(pc)] = 1;
    for (size_t pc = 0; pc < in_k.size(); ++pc)
      for (const Access& a : raw.procs[p].program[pc].accesses)
        if (a.view >= 0 && (!in_k[pc] || a.stage_like)) out.insert(a.view);
  }
  return out;
}

// An MMA of process p with an access in TMEM that no tail argument can
// leave out (the third case of certainTailRefusal): a read of a view
// outside the K iterations is left out only where leftOutReadsChangeNoRead
// holds, which refuses one not read at the ring start (PGrid::
// ring_start_reads) whose grid fails noReturnOnTheGrid.
bool tmemMmaKeptForCertain(const PGrid& g, size_t p, const Instr& in, const System& raw, const std::set<int>& outside,
                           const std::set<int>& free_regs, bool last_tile) {
  const std::map<int, std::set<int>> fill = fillBarriers(*raw.schedule);
  const std::set<int> at_ring_start = ringStartReadViews(g, p);
  return trip::mmaOnTmem(in, raw) && std::any_of(in.accesses.begin(), in.accesses.end(), [&](const Access& a) {
           const MemSpace& sp = raw.spaces[static_cast<size_t>(a.space)];
           if (sp.kind == MemSpace::Kind::Tmem) return false;
           if (sp.kind == MemSpace::Kind::Regs) return free_regs.count(sp.index) == 0;
           if (a.view < 0 || !outside.count(a.view)) return a.view < 0;
           if (a.write || sp.kind != MemSpace::Kind::Smem) return true;
           return !at_ring_start.count(a.view) && !noReturnOnTheGrid(g, raw, last_tile, p, a, fill).empty();
         });
}

CertainTailRefusal certainTailRefusal(const PGrid& g, const TileLoops& tl, const System& raw, const System& tail,
                                      bool last_tile) {
  const std::set<int> outside = viewsOutsideKIterations(g, raw);
  const std::set<int> free_regs = pathFreeRegs(*raw.schedule, tl);
  for (size_t p = 0; p < g.shape.size(); ++p) {
    const TileShape& sh = g.shape[p];
    if (sh.kind != TileShape::Full || sh.first != 0) continue;
    TileShape ts;
    try {
      ts = tailShapeOf(tail.procs[p], tl, sh, g.Wt, g.Wg);
    } catch (const Fail&) {
      continue;  // (decides nothing here: tailIterationsAt asks it)
    }
    const auto& mp = raw.procs[p].program;
    const auto& tp = tail.procs[p].program;
    const bool in_order = trip::mmaCommitNumbersReadInOrder(*raw.schedule, raw.procs[p].role);
    std::map<int, int> raw_commits, tail_commits, fixed_commits;  // slot -> commits (fixed: none leavable)
    int raw_tmem_mmas = 0, kept_tmem_mmas = 0, tail_mmas = 0;
    for (int pc = sh.head[0][0]; pc < sh.head[0][1]; ++pc) {
      const Instr& in = mp[static_cast<size_t>(pc)];
      raw_tmem_mmas += trip::mmaOnTmem(in, raw);
      kept_tmem_mmas += tmemMmaKeptForCertain(g, p, in, raw, outside, free_regs, last_tile);
      if (in.kind != InstrKind::MmaCommit || in.slot < 0) continue;
      ++raw_commits[in.slot];
      fixed_commits[in.slot] += !(in_order && slotByIter(in));
    }
    for (int pc = ts.head[0][0]; pc < ts.head[0][1]; ++pc) {
      const Instr& in = tp[static_cast<size_t>(pc)];
      tail_mmas += in.kind == InstrKind::Mma;
      if (in.kind == InstrKind::MmaCommit && in.slot >= 0) ++tail_commits[in.slot];
    }
    for (const auto& [slot, n] : tail_commits)
      if (n > raw_commits[slot]) return {static_cast<int>(p), "an MMA commit on an mbarrier added"};
    for (const auto& [slot, n] : raw_commits)
      if (n > tail_commits[slot] && fixed_commits[slot] == n)
        return {static_cast<int>(p), "an MMA commit on an mbarrier left out whose slot is not named by iter= or "
                                     "whose process waits for its MMA groups"};
    if (raw_tmem_mmas > tail_mmas && kept_tmem_mmas == raw_tmem_mmas)
      return {static_cast<int>(p), "an MMA with an access in TMEM left out that also accesses a view outside the K "
                                   "iterations that no argument takes"};
  }
  return {};
}

// `has_copies_near_the_end`: whether tailIterations will run (the probe's
// `last > 0`), asked only where certainTailRefusal finds a process.
void refuseCommitsOnBarriersNearTheEnd(const PGrid& g, const TileLoops& tl, const System& raw, const System& tail,
                                       bool last_tile, const std::function<bool()>& has_copies_near_the_end) {
  const CertainTailRefusal r = certainTailRefusal(g, tl, raw, tail, last_tile);
  if (r.p >= 0 && has_copies_near_the_end())
    throw Fail(fmt::format("the K iteration at ring position 0 of tile 0 of {} differs when a K iteration is its "
                           "tile's last, beyond operations that carry no counter ({}; not covered by the "
                           "persistent-kernel proof yet)",
                           g.grid.procs[static_cast<size_t>(r.p)].name, r.what));
}

bool anyPostMoves(const PGrid& g) {
  return std::any_of(g.post_moves.begin(), g.post_moves.end(), [](char m) { return m; });
}

// Obstacle 1 (c) where a part before the K loop moves with the ring (a K
// loop whose first iteration differs, `if j == 0:`, with a read of the tile
// count): the last tiles that start at x > 0 run the copies of both
// (presByRingStart, firstIterations), so their grids per ring start, depth
// and parity (FA4: 4 x 24 grids) are checked once, after the first
// iterations' copies (lastTilesAtRingStart with them), not first without
// them in presByRingStart. Whether the K loop has a first iteration of its
// own is known from grid N alone (checkTileExprs), asked here as a probe
// before presByRingStart. A probe that fails or finds none decides nothing
// (the grids are then checked in presByRingStart as before, and again with
// the first copies if checkTileExprs, run again after the copies with the
// tail grids' expressions and the ring's final warm-up, finds one); one
// that finds one defers the grids to after firstIterations, where
// checkTileExprs sets `first` too or refuses on its own (it reads a
// superset of these expressions, and its warm-up is no smaller).
// The probe also answers whether a part after the K loop reads the ring
// end (checkTileExprs' answer) and whether a K iteration reads E_B besides
// t * E_B (`last`, the tail copies). Session 45 refused obstacle 1 (d) here
// (a first K iteration of its own, the last tiles, a part after the K loop
// that reads the ring end or moves, and copies near the end); since session
// 47 (d) has copies of its own (firstTailIterationsAt); session 47 still
// refused here those whose grid repeats with the sloped periods, and since
// session 48 the copies near the end check their periods where the shifts
// apply (layOutPersistent, docs/z3.md "Sloped copies near a tile's end"),
// so nothing of that set is refused here but what the probe's `last`
// answers below (refuseCommitsOnBarriersNearTheEnd).
struct FirstProbe {
  bool first = false;      // a first K iteration of its own
  bool reads_end = false;  // a part after the K loop reads the ring end
  int last = 0;            // the depth of the last K iterations of their own (tailIterations)
};
FirstProbe firstCopiesProbe(const ir::Schedule& s, const TileLoops& tl, const PGrid& g, const Limits& limits,
                            bool reads_tile_count, bool tails) {
  if (!reads_tile_count) return {};
  FirstProbe out;
  try {
    out.reads_end = checkTileExprs(s, tl, g, limits, &out.first, tails ? &out.last : nullptr);
  } catch (const Fail&) {
    return {};  // (decided there)
  }
  return out;
}

// The depth of the copies near the end (checkTileExprs' `last`) where the
// probe was not asked (no read of the tile count); 0 where checkTileExprs
// refuses (decided there, as the probe's).
int tailDepthProbe(const ir::Schedule& s, const TileLoops& tl, const PGrid& g, const Limits& limits) {
  bool first = false;  // (asked as the probe asks it: a first K iteration of its own is no refusal)
  int last = 0;
  try {
    checkTileExprs(s, tl, g, limits, &first, &last);
  } catch (const Fail&) {
    return 0;
  }
  return last;
}

// A last tile's part after the K loop that moves with the ring
// (checkLastTileGrid) is covered only by its copies per ring end, whose
// periods the layout checks (lastPostsByRingEnd); else refused as before.
void refuseLastPartsThatMove(const PGrid& g) {
  for (size_t p = 0; p < g.last_moving.size(); ++p)
    if (!g.last_moving[p].empty() && (p >= g.post_last_x.size() || !g.post_last_x[p])) throw Fail(g.last_moving[p]);
}

// The sixth obstacle of FA4 (docs/z3.md "Sloped copies near a tile's
// end"), asked as soon as the last tiles' grids are built, before the grids
// per ring start and end. A last tile whose part after the K loop commits
// another number of MMA groups than the grid's tile there (FA4's MMA
// releases Q by a commit under `if t + 2 < T:`) makes the layout number the
// process's completions in issue order (PGrid::last_ordinal), which it
// refuses for a process that waits for its MMA groups (lm.mma_wait). The
// layout compares, for every depth d, tile t and ring end x, the commits of
// that part in the last tiles' grid lastGrid(d, t % 2) (at x = Wg that
// grid's own text, lastPostsByRingEnd) with the grid's; the same two texts
// are compared here, for the processes whose commits the layout numbers so
// (a K loop, one kind of tile: the grid's), and an lm.mma_wait sought in
// the grid's program, every instruction of which the layout lays out.
// Whether that part holds a commit is decided by conditions read at the
// tile count t + d against t + far, not by the window: a larger window (a
// GridTooSmall retry) differs there too. So this loses no proof.
void refuseLastTilePostCommitsThatDiffer(const PGrid& g) {
  if (!g.last_tile || g.kinds > 1) return;
  for (size_t p = 0; p < g.shape.size(); ++p) {
    const TileShape& sh = g.shape[p];
    const std::vector<Instr>& prog = g.grid.procs[p].program;
    if (sh.kind != TileShape::Full || sh.step != 1 || !waitsForItsMmaGroups(prog)) continue;
    for (int64_t d = 1; d <= g.last_m; ++d)
      for (int64_t t = sh.first; t < g.Wt; ++t) {
        const size_t li = PGrid::lastGrid(d, t % 2);
        const TileShape& ls = g.last_shape[li][p];
        if (commitsIn(g.last[li].procs[p].program, ls.head[t][g.Wg], ls.tile_start[t + 1]) !=
            commitsIn(prog, sh.head[t][g.Wg], sh.tile_start[t + 1]))
          refuseLastTileCommitsWithMmaWaits(g, p);
      }
  }
}

// Each statement outside the tile loops, with whether it lies after one (in
// its block, or after a statement that holds one: the exit paths'). A
// statement that holds a tile loop is visited with `whole` false (its
// condition or bounds; its blocks are walked), any other with `whole` true.
void walkAroundTileLoops(const ir::Schedule& s, const TileLoops& tl,
                         const std::function<void(const ir::Stmt&, bool past, bool whole)>& visit) {
  std::function<bool(const ir::Stmt&)> holdsTileLoop = [&](const ir::Stmt& st) {
    if (st.kind == ir::Stmt::Kind::For && tl.tile_vars.count(st.loop_var)) return true;
    return std::any_of(st.body.begin(), st.body.end(), holdsTileLoop) ||
           std::any_of(st.orelse.begin(), st.orelse.end(), holdsTileLoop);
  };
  std::function<void(const ir::Block&)> walk = [&](const ir::Block& b) {
    bool past = false;
    for (const ir::Stmt& st : b) {
      const bool tile_loop = st.kind == ir::Stmt::Kind::For && tl.tile_vars.count(st.loop_var);
      if (past || tile_loop || !holdsTileLoop(st)) {
        visit(st, past, true);
      } else {
        visit(st, past, false);
        walk(st.body);
        walk(st.orelse);
      }
      past |= tile_loop || holdsTileLoop(st);
    }
  };
  for (const ir::RoleBody& body : s.bodies) walk(body.body);
}

// The expressions only statements after a tile loop read (in its block, or
// after a statement that holds one): the exit paths'. An expression also
// read elsewhere (one Python variable read before and after the tile loop
// is one node) is left out: the builder evaluates it there too.
std::set<const ir::Expr*> postTileLoopExprs(const ir::Schedule& s, const TileLoops& tl) {
  std::set<const ir::Expr*> after, elsewhere;
  walkAroundTileLoops(s, tl, [&](const ir::Stmt& st, bool past, bool whole) {
    ir::Stmt own = st;  // (its condition or bounds, not its blocks)
    if (!whole) {
      own.body.clear();
      own.orelse.clear();
    }
    collectSubExprs(ir::Block{own}, past ? after : elsewhere);
  });
  for (const ir::Expr* e : elsewhere) after.erase(e);
  return after;
}

// Every statement after a tile loop, nested ones too: an instruction of one
// is a step of the exit path at any tile count, whether or not the grid's
// own exit path runs it.
std::set<const ir::Stmt*> postTileLoopStmts(const ir::Schedule& s, const TileLoops& tl) {
  std::set<const ir::Stmt*> out;
  std::function<void(const ir::Stmt&)> all = [&](const ir::Stmt& st) {
    out.insert(&st);
    for (const ir::Stmt& x : st.body) all(x);
    for (const ir::Stmt& x : st.orelse) all(x);
  };
  walkAroundTileLoops(s, tl, [&](const ir::Stmt& st, bool past, bool) {
    if (past) all(st);
  });
  return out;
}

// The processes whose exit path reads the tile count E_A (the grid's
// replace_uses: buildGrid takes those after the tile loop only) or, with
// exit_by_x, the ring end (every process with an exit path then gets a
// copy per ring end), and their exit paths as built, before the alignments
// (exitsByTileCount).
void markExitReads(PGrid& g, const ir::Schedule& s, const TileLoops& tl) {
  const size_t P = g.grid.procs.size();
  g.exit_by_a.assign(P, 0);
  g.exit_raw.assign(P, {});
  for (const System::ReplacedUse& u : g.grid.replace_uses) g.exit_by_a.at(static_cast<size_t>(u.process)) = 1;
  if (!g.exit_end_uses.empty()) {
    const std::set<const ir::Expr*> after = postTileLoopExprs(s, tl);
    for (const TileCountUse& u : g.exit_end_uses)
      if (!after.count(u.expr))
        throw Fail(fmt::format("{} reads {} * {} outside the part after the tile loop (not covered by the "
                               "persistent-kernel proof yet)",
                               ir::exprToString(*u.expr, s), ir::exprToString(*tl.tiles, s),
                               ir::exprToString(*tl.inner, s)));
    if (!g.grid.replace_uses.empty())
      throw Fail(fmt::format("the exit path reads both {} and the ring end {} * {} (not covered by the "
                             "persistent-kernel proof yet)",
                             ir::exprToString(*tl.tiles, s), ir::exprToString(*tl.tiles, s),
                             ir::exprToString(*tl.inner, s)));
    g.exit_by_x = true;
    for (size_t p = 0; p < P; ++p)
      g.exit_by_a[p] = g.shape[p].kind != TileShape::Static && g.shape[p].end > g.shape[p].tile_start[g.Wt];
  }
  for (size_t p = 0; p < P; ++p) {
    if (!g.exit_by_a[p]) continue;
    const TileShape& sh = g.shape[p];
    if (sh.kind == TileShape::Static) throw Fail("internal: an exit path of a process without the tile loop");
    const auto& prog = g.grid.procs[p].program;
    g.exit_raw[p].assign(prog.begin() + sh.tile_start[g.Wt], prog.begin() + sh.end);
  }
}

// The exit path of `proc` in a grid of another tile count: the longest
// suffix of its program whose operations are statements after the tile
// loop (`exit_stmts`: postTileLoopStmts and those of the grid's exit path)
// outside the tile loop (a statement after the tile loop is no statement of
// the prefix or of a tile). Every statement after the tile loop, not only
// those the grid's exit path runs: one that only a few tile counts run (`if
// n_tiles == 1: lm.wait(...)` before the tail) ended the suffix, and was
// left out of the copy explored for them (helper sound47).
std::vector<Instr> exitPathOf(const Process& proc, const TileLoops& tl, const std::set<const ir::Stmt*>& exit_stmts) {
  const auto& prog = proc.program;
  size_t a = prog.size();
  auto inTile = [&](const Instr& in) {
    return std::any_of(in.loops.begin(), in.loops.end(), [&](const auto& lv) { return tl.tile_vars.count(lv.first) > 0; });
  };
  while (a > 0 && exit_stmts.count(prog[a - 1].stmt) && !inTile(prog[a - 1])) --a;
  return {prog.begin() + static_cast<long>(a), prog.end()};
}

// Every read of E_A after the tile loop moves by the same amount every tile
// period Pt from the tile shift's start tw on (proved, or by its syntax):
// the exit path after A + Pt tiles is then the one after A shifted by the
// tile period's deltas wherever the window shows it once (layOutPersistent
// checks copy a against copy a - Pt), for every A >= tw.
// Likewise every read of the ring end E_A * E_B, read as X, moves by the
// same amount every ring period Pg from the ring shift's start w0g on.
void proveExitReadsMoveWithTiles(const PGrid& g, const ir::Schedule& s, const TileLoops& tl, const Limits& limits) {
  FactProver prover(s, limits, {});
  for (const System::ReplacedUse& u : g.grid.replace_uses) {
    const BvVerdict r = movesWithPeriod(prover, boundUse(u), *tl.tiles, g.Pt, g.tw);
    if (r != BvVerdict::Holds)
      throw Fail(fmt::format("{} after the tile loop does not move by the same amount every {} tiles ({})",
                             ir::exprToString(*u.expr, s), g.Pt, bvVerdictName(r)));
  }
  using K = ir::ExprKind;
  const ir::ExprPtr X = symbolNode(K::LoopVar, kFreshSymbol + 20);
  for (const TileCountUse& u : g.exit_end_uses) {
    ir::ExprPtr e(std::shared_ptr<const ir::Expr>{}, u.expr);  // non-owning: the schedule owns it
    for (const auto& [var, value] : u.loop_vars) e = substitute(e, *symbolNode(K::LoopVar, var), ir::makeConst(value));
    e = atInstanceOf(e, u.instance);
    for (const auto& prod : {ir::makeExpr(K::Mul, {tl.tiles, tl.inner}), ir::makeExpr(K::Mul, {tl.inner, tl.tiles})})
      e = substitute(e, *prod, X);
    const BvVerdict r = containsExpr(*e, *tl.tiles) || containsExpr(*e, *tl.inner)
                            ? BvVerdict::Unknown
                            : movesWithPeriod(prover, e, *X, g.Pg, g.w0g);
    if (r != BvVerdict::Holds)
      throw Fail(fmt::format("{} after the tile loop does not move by the same amount every {} ring indices ({})",
                             ir::exprToString(*u.expr, s), g.Pg, bvVerdictName(r)));
  }
}

// A copy of an exit path that no shift maps (entered with a run's own tile
// count or ring end): `ref` (the grid's) with operations whose slot and
// phase the text evaluates left out (a wait for `iter=-1` builds none) and
// others' slots and phases evaluated otherwise; nothing else, so that what
// is asked of the grid's exit path covers it.
bool fitsExitPath(const std::vector<Instr>& text, const std::vector<Instr>& ref) {
  size_t i = 0;
  for (size_t j = 0; j < ref.size(); ++j) {
    const int a = static_cast<int>(i), b = static_cast<int>(j);
    if (i < text.size() &&
        trip::compareEvaluatedAtRingEnd(text, a, a + 1, ref, b, b + 1, sameInstr) != trip::PartDiff::More) {
      ++i;
      continue;
    }
    if (!trip::evaluatesSlotAndPhase(ref[j])) return false;
  }
  return i == text.size();
}

// A copy of an exit path against the grid's: one a shift maps (`mapped`)
// differs in the slots and phases its operations evaluate at most; else
// fitsExitPath. The MMA groups it commits are the grid's in number.
bool exitCopyFits(const std::vector<Instr>& text, const std::vector<Instr>& ref, bool mapped) {
  const int n = static_cast<int>(text.size()), m = static_cast<int>(ref.size());
  if (commitsIn(text, 0, n) != commitsIn(ref, 0, m)) return false;
  return mapped ? trip::compareEvaluatedAtRingEnd(text, 0, n, ref, 0, m, sameInstr) != trip::PartDiff::More
                : fitsExitPath(text, ref);
}

// The exit path per ring end (TileLoops::exit_ring_end): a run whose last
// tile ends at ring position x runs the exit path the schedule evaluates
// with E_A * E_B = x, which the grid whose exit reads x gives (the grid's
// own for x = Wg). Each copy at x >= w0g (a ring shift's image or source)
// must be the grid's besides the slots and phases its operations evaluate
// (the layout checks copy x against copy x - Pg with the ring period's
// deltas); one at a smaller ring end, fitsExitPath. A process without the K
// loop knows no ring end: its copies must all be one text.
void exitsByRingEnd(PGrid& g, const ir::Schedule& s, const Binding& binding, ir::Target target, const TileLoops& tl,
                    ProofBudget& budget, const std::vector<std::set<const ir::Stmt*>>& stmts) {
  const size_t P = g.grid.procs.size();
  g.exit_x_text.assign(P, std::vector<std::vector<Instr>>(static_cast<size_t>(g.Wg) + 1));
  for (int64_t x = 0; x <= g.Wg; ++x) {
    checkBudget(budget, "building the exit paths per ring end");
    std::optional<System> sys;
    if (x < g.Wg) {
      sys = buildGrid(s, binding, target, tl, g.Wt, g.Wg, g.not_last, nullptr, 1, 0, 0, nullptr, false, x);
      chargeBuild(budget, *sys);
    }
    for (size_t p = 0; p < P; ++p) {
      if (!g.exit_by_a[p]) continue;
      const std::vector<Instr>& ref = g.exit_raw[p];
      std::vector<Instr> text = sys ? exitPathOf(sys->procs[p], tl, stmts[p]) : ref;
      const bool full = g.shape[p].kind == TileShape::Full;
      if (!exitCopyFits(text, ref, x >= g.w0g) ||
          (!full && !std::equal(text.begin(), text.end(), ref.begin(), ref.end(), sameInstr)))
        throw Fail(fmt::format("the exit path of {} at ring end {} differs from the one at {} besides its "
                               "operations' slots and phases (not covered by the persistent-kernel proof yet)",
                               g.grid.procs[p].name, x, g.Wg));
      g.exit_x_text[p][static_cast<size_t>(x)] = std::move(text);
    }
  }
}

// The exit path per tile count (docs/z3.md "A part after the tile loop that
// reads the tile count"): a run of a tiles runs the exit path the schedule
// evaluates with E_A = a, which the grid of a tiles gives (the grid's own
// for a = Wt). Each copy after a >= tw tiles (a tile shift's image or
// source) must be the grid's besides the mbarrier slots and phases its
// operations evaluate (iter=): those move with the tiles (the layout checks
// copy a against copy a - Pt with the tile period's deltas; the reads move
// alike beyond the window, proveExitReadsMoveWithTiles). A copy after fewer
// tiles is entered only before any tile shift, with the tile count a run's
// own: its text is the grid of a tiles' as built (a wait on `iter=-1`
// builds nothing). Every copy commits as many MMA groups (the counts before
// the done pcs are path-independent).
void exitsByTileCount(PGrid& g, const ir::Schedule& s, const Binding& binding, ir::Target target, const TileLoops& tl,
                      ProofBudget& budget, const Limits& limits) {
  const size_t P = g.grid.procs.size();
  if (std::none_of(g.exit_by_a.begin(), g.exit_by_a.end(), [](char c) { return c; })) return;
  if (g.kinds > 1 || std::any_of(g.shape.begin(), g.shape.end(), [](const TileShape& sh) { return sh.step > 1; }) ||
      (g.exit_by_x && (g.fixed_tiles >= 0 || g.own_lengths || g.tile_multiple != 1)))
    throw Fail(fmt::format("the exit path reads {} in a tile loop with two kinds of tile, a step or tiles of "
                           "their own (not covered by the persistent-kernel proof yet)",
                           ir::exprToString(*tl.tiles, s)));
  proveExitReadsMoveWithTiles(g, s, tl, limits);
  const std::set<const ir::Stmt*> after = postTileLoopStmts(s, tl);
  std::vector<std::set<const ir::Stmt*>> stmts(P);
  for (size_t p = 0; p < P; ++p) {
    if (!g.exit_by_a[p]) continue;
    const TileShape& sh = g.shape[p];
    const auto& prog = g.grid.procs[p].program;
    // (the alignments through the ring position are the grid's alone)
    if (!std::equal(g.exit_raw[p].begin(), g.exit_raw[p].end(), prog.begin() + sh.tile_start[g.Wt],
                    prog.begin() + sh.end, sameInstr) ||
        static_cast<int>(g.exit_raw[p].size()) != sh.end - sh.tile_start[g.Wt])
      throw Fail(fmt::format("the exit path of {} reads {} and is changed by the alignments to the ring (not covered "
                             "by the persistent-kernel proof yet)",
                             g.grid.procs[p].name, ir::exprToString(*tl.tiles, s)));
    stmts[p] = after;
    for (const Instr& in : g.exit_raw[p]) stmts[p].insert(in.stmt);
  }
  if (g.exit_by_x) return exitsByRingEnd(g, s, binding, target, tl, budget, stmts);
  g.exit_text.assign(P, std::vector<std::vector<Instr>>(static_cast<size_t>(g.Wt) + 1));
  for (int64_t a = 0; a <= g.Wt; ++a) {
    checkBudget(budget, "building the exit paths per tile count");
    std::optional<System> sys;
    if (a < g.Wt) {
      sys = buildGrid(s, binding, target, tl, a, g.Wg, g.not_last, nullptr, 1);
      chargeBuild(budget, *sys);
    }
    for (size_t p = 0; p < P; ++p) {
      if (!g.exit_by_a[p]) continue;
      const std::vector<Instr>& ref = g.exit_raw[p];
      std::vector<Instr> text = sys ? exitPathOf(sys->procs[p], tl, stmts[p]) : ref;
      if (!exitCopyFits(text, ref, a >= g.tw))
        throw Fail(fmt::format("the exit path of {} after {} tiles differs from the one after {} besides its "
                               "operations' slots and phases (not covered by the persistent-kernel proof yet)",
                               g.grid.procs[p].name, a, g.Wt));
      g.exit_text[p][static_cast<size_t>(a)] = std::move(text);
    }
  }
}

std::string attemptPersistent(const ir::Schedule& s, ir::Target target, const Binding& binding, const TileLoops& loops,
                              int64_t Wt, int64_t Wg, const TripProofOptions& opts,
                              ProofBudget& budget, uint64_t& states,
                              const std::function<bool(int64_t)>& inner_at_most,
                              const std::function<bool(int64_t)>& inner_at_least,
                              const std::function<bool(int64_t)>& inner_multiple_of, int64_t& tile_count_far) {
  // (the ring end after the tile loop: the grid's tiles end at Wg, exitsByRingEnd)
  TileLoops tl = loops;
  tl.exit_ring_end = Wg;
  PGrid g;
  g.Wt = Wt;
  g.Wg = Wg;
  g.fixed_tiles = tl.fixed_tiles;
  g.own_lengths = tl.own_lengths;
  g.tile_multiple = tl.tile_multiple;
  g.not_last.far = tile_count_far;  // (where a smaller window settled it, provePersistent)
  if (g.fixed_tiles >= Wt) throw GridTooSmall{true};
  while (g.min_len < Wg && inner_at_least(g.min_len + 1)) ++g.min_len;
  std::vector<TileCountUse> uses;
  // kind 0: the merged loop's guard true (MergedLoops); without one, `kind` is read by nothing
  // the expressions of K iterations that read E_B besides t * E_B (tailIterations)
  std::set<const ir::Expr*> reads_end_in_k;
  g.grid = buildGrid(s, binding, target, tl, Wt, Wg, g.not_last, &uses, 1, 0, 0, &reads_end_in_k, false, -1,
                     &g.exit_end_uses);
  // (before the periods: a read of the tile count it refuses costs no
  // window search; a grid too small in the ring dimension, as FA4's, would
  // retry with larger windows up to the largest first)
  g.last_m = tileCountDepth(s, tl, uses, solverLimits(opts, budget));
  while (g.last_m + 1 > g.not_last.far) {
    // the grid again with E_A read past the last m tiles: its reads may be
    // others (a branch the tiles near the end do not take), so their depth
    // is asked again until it settles (it only grows, and is bounded)
    g.not_last.far = g.last_m + 1;
    uses.clear();
    reads_end_in_k.clear();
    g.exit_end_uses.clear();
    g.grid = buildGrid(s, binding, target, tl, Wt, Wg, g.not_last, &uses, 1, 0, 0, &reads_end_in_k, false, -1,
                     &g.exit_end_uses);
    g.last_m = std::max(g.last_m, tileCountDepth(s, tl, uses, solverLimits(opts, budget)));
  }
  tile_count_far = g.not_last.far;
  g.uses = uses;
  for (const Process& p : g.grid.procs) g.shape.push_back(tileShapeOf(p, tl, Wt, Wg));
  markExitReads(g, s, tl);
  // every K iteration its tile's last (the grid before the alignments below)
  // (the grid as built, and the grids with every K iteration d = 1.. from its end)
  std::optional<std::pair<System, std::vector<System>>> tails;
  std::vector<TileCountUse> tail_uses;  // the tile count read in the grids of `tails` (refuseTileCountReadsNearTheEnd)
  if (!reads_end_in_k.empty()) {
    // (with a read of the tile count: the last tiles' grids PGrid::last
    // beside the copies near a tile's end, docs/z3.md "The last K
    // iterations of the last tile")
    if (tl.kind_guard || std::any_of(g.shape.begin(), g.shape.end(), [](const TileShape& sh) { return sh.step > 1; }))
      throw Fail("a K iteration reads the K loop's trip count besides t * E_B in a tile loop with two kinds of tile "
                 "or a step (not covered by the persistent-kernel proof yet)");
    tails.emplace(g.grid, std::vector<System>{});
  }
  // The grid with every K iteration its tile's last (nothing before the
  // checks below reads it): built once the grid's periods and counts pass
  // them, so an attempt they refuse (a part before the K loop that moves
  // with the ring period: Marlin's slice loop) does not pay for it.
  auto buildTails = [&] {
    if (!tails || !tails->second.empty()) return;  // (built once)
    tails->second.push_back(
        buildGrid(s, binding, target, tl, Wt, Wg, g.not_last, &tail_uses, 1, 0, 1, &reads_end_in_k));
    g.tail_exprs = tails->second[0].replace_loop_exprs;
    g.end_in_k = reads_end_in_k;
  };
  const bool kinds = tl.kind_guard != nullptr;
  if (kinds) {
    std::vector<TileCountUse> kuses;
    g.kgrid = buildGrid(s, binding, target, tl, Wt, Wg, TileCountRead::NotLast, &kuses, 0);
    for (const Process& p : g.kgrid.procs) g.kshape.push_back(tileShapeOf(p, tl, Wt, Wg));
    if (!uses.empty() || !kuses.empty())
      throw Fail("the schedule reads the tile count inside a tile loop with two kinds of tile (not covered by the "
                 "persistent-kernel proof yet)");
    g.kinds = 2;
    g.kinds_shared = !ir::exprUses(*tl.kind_guard->args.at(1), {ir::ExprKind::Instance, ir::ExprKind::LoopVar});
    markKinded(g);
    forgetPrivateGenerations(g);
  }
  if (g.fixed_tiles >= 0) checkConsecutiveTileHazards(s, binding, target, tl, tl.fixed_tiles, Wg);
  const bool skips = std::any_of(g.shape.begin(), g.shape.end(), [](const TileShape& sh) { return sh.step > 1; });
  if (!uses.empty() && skips)
    throw Fail("a process skips tiles and the schedule reads the tile count inside the tile loop (not covered by the "
               "persistent-kernel proof yet)");
  if (skips) alignSkippedGenerations(g);
  // counted phases and read generations through the ring position: in the
  // grid of one kind of tile (the kind grid keeps the builder's values;
  // docs/z3.md "Counters through the ring position"), and in the last-tile
  // grids below alike (docs/z3.md "A read generation past waits outside the
  // K loop")
  if (!kinds) g.counters = alignCountersToTheRing(g.grid, g.shape, Wt, Wg, &g.aligned);
  else alignStageWritesToTheRing(g.grid, g.shape, Wt, Wg);
  if (kinds) {
    onKindGrid(g, [&] {
      if (std::any_of(g.shape.begin(), g.shape.end(), [](const TileShape& sh) { return sh.step > 1; }))
        alignSkippedGenerations(g);
    });
    alignStageWritesToTheRing(g.kgrid, g.kshape, Wt, Wg);
    checkKinds(g);
  }
  // The last tiles' grids (a read of the tile count): built once the
  // periods are found and the refusals that need no last grid have passed
  // (nothing before them reads these grids), so that a window too small,
  // or a shape refused there, does not pay for 2 * last_m grids (FA4's
  // correction warpgroup: 4 of the 6 grids of each window it tried).
  auto buildLastGrids = [&] {
    if (uses.empty() || g.last_tile) return;
    g.last_tile = true;
    KeptLastGrids kept[2];  // (per parity: the depths that build alike, one build)
    for (int64_t d = 1; d <= g.last_m; ++d)
      for (int64_t i = 0; i < 2; ++i) {
        TileCountRead read = g.not_last;
        read.depth = d;
        read.parity = i;
        bool reused = false;
        g.last.push_back(kept[i].get(read, g.last_m, &reused, [&](TileCountReadsAlike* alike) {
          return buildGrid(s, binding, target, tl, Wt, Wg, read, nullptr, 0, 0, 0, nullptr, false, -1, nullptr, alike);
        }));
        g.last_shape.emplace_back();
        for (const Process& p : g.last.back().procs) g.last_shape.back().push_back(tileShapeOf(p, tl, Wt, Wg));
        alignLastTileGrid(g, g.last.size() - 1);
      }
  };
  std::vector<Series> ring, tiles;
  std::vector<int64_t> ring_tile;  // the tile of each ring series
  // the last tiles' grids per ring start checked after the first K
  // iterations' copies (firstCopiesProbe), not in presByRingStart
  bool last_tiles_later = false;
  for (size_t p = 0; p < g.shape.size(); ++p) {
    const TileShape& sh = g.shape[p];
    if (sh.kind == TileShape::Full)
      for (int64_t t = sh.first; t < Wt; t += sh.step) {
        ring.push_back({static_cast<int>(p), [&sh, t](int64_t i) { return std::make_pair(sh.head[t][i], sh.head[t][i + 1]); }});
        ring_tile.push_back(t);
      }
    if (sh.kind != TileShape::Static)
      tiles.push_back({static_cast<int>(p), [&sh](int64_t t) { return std::make_pair(sh.tile_start[t], sh.tile_start[t + 1]); }});
  }
  if (ring.empty()) throw Fail("no role runs the K loop");
  auto rp = seriesPeriod(g.grid, ring, Wg, opts.max_period, g.ring);
  std::optional<std::pair<int64_t, int64_t>> tp;
  if (rp) tp = seriesPeriod(g.grid, tiles, Wt, opts.max_period, g.tile);
  if (!tp) {
    // the periods at the ring positions runs reach only (docs/z3.md "A
    // ring index minus the tile index"), where the grid has no others
    if (!slopedPeriodsAllowed(g, kinds, skips, opts)) throw GridTooSmall{rp.has_value()};
    g.ring = {};
    g.tile = {};
    auto srp = slopedRingPeriod(g.grid, ring, ring_tile, Wg, opts.max_period, g.ring, g.reach);
    if (!srp) throw GridTooSmall{rp.has_value()};
    tp = slopedTilePeriod(g.grid, g.shape, Wt, Wg, g.reach, opts.max_period, g.tile);
    if (!tp) throw GridTooSmall{true};
    rp = srp;
    g.slope = true;
  }
  if (kinds) {
    // the same periods in the other kind's grid (its kinded processes'
    // series), the warm-ups the later of the two, the deltas merged
    std::vector<Series> kring, ktiles;
    for (size_t p = 0; p < g.kshape.size(); ++p) {
      if (!g.kinded[p]) continue;
      const TileShape& sh = g.kshape[p];
      for (int64_t t = sh.first; t < Wt; t += sh.step)
        kring.push_back({static_cast<int>(p), [&sh, t](int64_t i) { return std::make_pair(sh.head[t][i], sh.head[t][i + 1]); }});
      ktiles.push_back({static_cast<int>(p), [&sh](int64_t t) { return std::make_pair(sh.tile_start[t], sh.tile_start[t + 1]); }});
    }
    Deltas kr, kt;
    auto krp = seriesPeriod(g.kgrid, kring, Wg, opts.max_period, kr);
    if (!krp) throw GridTooSmall{false};
    auto ktp = seriesPeriod(g.kgrid, ktiles, Wt, opts.max_period, kt);
    if (!ktp) throw GridTooSmall{true};
    if (krp->first != rp->first || ktp->first != tp->first)
      throw Fail(fmt::format("the two kinds of tile repeat with different periods (ring {} and {}, tiles {} and {})",
                             rp->first, krp->first, tp->first, ktp->first));
    rp->second = std::max(rp->second, krp->second);
    tp->second = std::max(tp->second, ktp->second);
    if (rp->second + 2 * rp->first + 2 > Wg) throw GridTooSmall{false};
    if (tp->second + 2 * tp->first + 2 > Wt) throw GridTooSmall{true};
    mergeDeltas(g.ring, kr);
    mergeDeltas(g.tile, kt);
  }
  std::tie(g.Pg, g.w0g) = *rp;
  std::tie(g.Pt, g.tw) = *tp;
  // (ring position 0 read as tile 0's alone by the alignment: no ring shift
  // may reach it, and no later tile may start there, PGrid::startExplored)
  if (g.aligned.start_apart && g.w0g < 1)
    throw Fail("the counted phases at ring position 0 differ between tile 0 and the later tiles, and the ring "
               "repeats from ring position 0 (not covered by the persistent-kernel proof yet)");
  // Tile lengths the facts allow (docs/z3.md "Tile lengths the facts
  // allow"): the largest divisor of the ring period that the facts keep
  // every E_B a multiple of (with the tile count fixed, the segments'
  // lengths are their own: not taken there)
  for (int64_t c = g.Pg; c > 1 && g.fixed_tiles < 0 && !g.own_lengths && g.len_multiple == 1; --c)
    if (g.Pg % c == 0 && inner_multiple_of(c)) g.len_multiple = c;
  if (g.Pt % g.tile_multiple != 0)
    throw Fail(fmt::format("the tile period {} is no multiple of {} (the tile counts explored)", g.Pt, g.tile_multiple));
  // Shift tiles one period later than the text allows: async work of the
  // tile before (a TMA store still in flight) can then move with them.
  g.tw += g.Pt;
  if (kinds) {
    checkLapDeltas(g.grid, g.ring, /*exact=*/true, &g.unmet);
    checkLapDeltas(g.grid, g.tile, /*exact=*/true, &g.unmet);
    // each kind's grid: the same counts per period, and what stays put under a shift stays put in both
    checkLapDeltas(g.kgrid, g.ring, /*exact=*/true, &g.unmet);
    checkLapDeltas(g.kgrid, g.tile, /*exact=*/true, &g.unmet);
    onKindGrid(g, [&] { gridCounts(g); });
    const auto named = std::make_pair(g.ring_named, g.tile_named);
    const auto commits = std::make_pair(g.ring_commits, g.tile_commits);
    gridCounts(g);
    if (named != std::make_pair(g.ring_named, g.tile_named) || commits != std::make_pair(g.ring_commits, g.tile_commits))
      throw Fail("the two kinds of tile complete named barriers or commit MMA groups differently per period");
    if (std::any_of(g.pre_moves.begin(), g.pre_moves.end(), [](char m) { return m; }))
      throw Fail("the part before the K loop moves with the ring period in a tile loop with two kinds of tile (not "
                 "covered by the persistent-kernel proof yet)");
  } else {
    gridCounts(g);
    markRingStartReadersBeforeK(g, s, tl);
    if (std::any_of(g.pre_moves.begin(), g.pre_moves.end(), [](char m) { return m; })) {
      // (a part that moves for another reason than reading the ring start,
      // a stage-named write's generation: refused as before)
      if (!readsRingStartBeforeK(s, tl)) throw Fail(g.pre_moving);
      refuseTileCountReadsBeforeK(s, tl, uses);
      collectRingStartReads(g, tl);
      refuseRingStartReadsOutsideTheirParts(g);
      buildTails();  // (checkTileExprs reads its expressions)
      const FirstProbe probe =
          firstCopiesProbe(s, tl, g, solverLimits(opts, budget), !uses.empty(), tails.has_value());
      // (uses: the last tiles' grids, buildLastGrids; refused before them)
      last_tiles_later = probe.first && !uses.empty();
      // (where the tile count is not read the probe is not asked: its
      // depth of the copies near the end is asked here, only where the
      // commits differ, at the cost of one checkTileExprs)
      if (tails)
        refuseCommitsOnBarriersNearTheEnd(g, tl, tails->first, tails->second.front(), !uses.empty(), [&] {
          return probe.last > 0 || (uses.empty() && tailDepthProbe(s, tl, g, solverLimits(opts, budget)) > 0);
        });
      buildLastGrids();  // (lastTilesAtRingStart reads them)
      refuseLastTilePostCommitsThatDiffer(g);
      if (g.last_tile && !anyPostMoves(g)) refuseLastTilePartsThatMove(g);
      // the ring shift maps copy x onto x - Pg from x - Pg >= w0g on: the
      // warm-up starts where the copies have one length (the waits of a
      // ring's first lap left out below it), and after the copy at ring
      // start 0, the grid's, which only tile 0 runs (docs/z3.md "A per-tile
      // prologue that moves with the ring")
      presByRingStart(g, s, binding, target, tl, budget, last_tiles_later);
      g.w0g = std::max(g.w0g, preCopiesSteadyFrom(g));
      if (g.w0g + 2 * g.Pg + 2 > Wg) throw GridTooSmall{false};
    }
    buildTails();  // (a tile loop with two kinds of tile has none: refused above)
    const System checked_grid = preCopiesGrid(g);
    checkLapDeltas(checked_grid, g.ring, /*exact=*/true, &g.unmet);
    checkLapDeltas(checked_grid, g.tile, /*exact=*/true, &g.unmet);
  }
  buildLastGrids();
  refuseLastTilePostCommitsThatDiffer(g);
  if (g.last_tile) {
    for (const System& l : g.last) {
      checkLapDeltas(l, g.ring, /*exact=*/true, &g.unmet);
      checkLapDeltas(l, g.tile, /*exact=*/true, &g.unmet);
    }
    checkLastTileGrid(g);
  }
  checkBudget(budget, "");
  const Limits limits = solverLimits(opts, budget);
  bool first = false;  // a first K iteration of its own (firstIterations)
  int last = 0;        // the depth of the last K iterations of their own (tailIterations)
  checkRegsPathIndependent(s, tl, limits);
  if (opts.consecutive_tile_run && g.fixed_tiles < 0 && tmemDependsOnTile(s, tl))
    for (int64_t len : {g.min_len, Wg})
      if (len >= 1) checkConsecutiveTileHazards(s, binding, target, tl, Wt, len);
  bool reads_end = checkTileExprs(s, tl, g, limits, &first, tails ? &last : nullptr);
  if (last > 1)
    reads_end |= deeperTailGrids(g, s, binding, target, tl, limits, tails->second, last, &first, &tail_uses);
  if (kinds) onKindGrid(g, [&] { reads_end |= checkTileExprs(s, tl, g, limits, &first); });
  if (reads_end || anyPostMoves(g)) {
    postsByRingEnd(g, s, binding, target, tl, budget);
    if (g.last_tile) lastPostsByRingEnd(g, s, binding, target, tl, budget);
  }
  refuseLastPartsThatMove(g);
  if (first) {
    firstIterations(g, s, binding, target, tl, budget);
    if (g.counters) checkFirstCopiesKeepCounters(g);
    // the last tiles' first iterations, and their parts before the K loop
    // per ring start where those move (again where presByRingStart checked
    // them without the first copies: the probe did not decide)
    lastTilesByRingStart(g, s, binding, target, tl, budget, true);
  } else if (last_tiles_later) {
    lastTilesByRingStart(g, s, binding, target, tl, budget, false);
  }
  g.pre_grids.clear();  // (firstIterations' only)
  requirePreFirstCopies(g, first);
  // a first K iteration that arrives on named barriers otherwise than the
  // others (gridCounts) must be run as its own copy at every ring start
  for (size_t p = 0; p < g.first_named.size(); ++p)
    if (g.first_named[p] && (!first || g.kinds > 1 || p >= g.first_x.size() || !g.first_x[p]))
      throw Fail(fmt::format("{}'s first K iteration arrives on named barriers otherwise than its others but is not "
                             "run as a copy of its own (not covered by the persistent-kernel proof yet)",
                             g.grid.procs[p].name));
  if (last > 0) {
    refuseTileCountReadsNearTheEnd(s, tl, tail_uses);
    g.free_regs = pathFreeRegs(s, tl);
    g.ring_views = trip::ringPositionViews(tails->first, kIterationsOf(g), g.Wg, g.Pg, g.w0g);
    g.commits_unread = trip::mmaCommitNumbersUnread(tails->first);
    g.commits_in_order.assign(tails->first.procs.size(), 0);
    for (size_t p = 0; p < tails->first.procs.size(); ++p)
      g.commits_in_order[p] = trip::mmaCommitNumbersReadInOrder(s, tails->first.procs[p].role);
    keepLastTilePartsOutOfTheTailArgument(g);
    tailIterations(g, tl, tails->first, tails->second, opts.build.cap_read_generations);
    if (g.tail_tmem) checkTailTmemRuns(s, binding, target, tl, g);
    // (obstacle 1 (d): a tile of d <= tail_m K iterations runs its first as
    // the one d from its end, firstTailIterationsAt)
    setUpFirstTails(g, first);
    // (asked before the grids per ring start as well: with fewer texts it
    // refuses only where it refuses with all of them)
    leftOutReadsChangeNoRead(g, tails->first);
    // (a part before the K loop that moves with the ring together with
    // copies near the tile's end)
    tailsByRingStart(g, s, binding, target, tl, tails->second, budget);
    leftOutReadsChangeNoRead(g, tails->first);
    leftOutWaitReadsInFirstTails(g, tails->first);
  }
  ringStartReadsOncePerRun(g);
  refuseShortTilesThatNeverShift(g);
  g.merge_tails = opts.merge_post_tails;
  g.ordinal_commits = opts.ordinal_commits_from_work == 0 ||
                      (budget.work() > 0 && budget.work() >= opts.ordinal_commits_from_work);
  g.ordinal_commits_from = opts.ordinal_commits_from_work;
  exitsByTileCount(g, s, binding, target, tl, budget, solverLimits(opts, budget));
  layOutPersistent(g);
  if (std::getenv("CAKE_PERSIST_STATS"))
    fmt::print(stderr, "persist-stats: window {}x{}: ring period {} warm-up {}{}, tile period {} warm-up {}{}\n", Wt,
               Wg, g.Pg, g.w0g, g.slope ? " past the tile index" : "", g.Pt, g.tw,
               g.counters ? "; counters through the ring position" : "");
  // Split by the K trip count E_B (docs/z3.md "Short tiles one by one"):
  // tiles of each length below `split` one exploration each, then tiles of
  // every length >= split. A run of the schedule has every tile of length
  // E_B: it is a run of one of them.
  // With the tile count fixed (segmentsAsTiles) the tiles' lengths are
  // independent (a segment of 2 iterations, then one of 10): one
  // exploration of tiles of every length, each its own.
  // So are a grouped GEMM's (nestsAsTiles: kt0 iterations, then kt1).
  const int64_t split = g.fixed_tiles >= 0 || g.own_lengths ? 1
                        : opts.persistent_split > 0 ? opts.persistent_split
                                                    : g.w0g + g.Pg + 1;
  // The lm.assume facts may bound E_B below the split (`K <= 128`: at most 2
  // K iterations): a length above its largest value is the length of no
  // run, so only the lengths up to it are explored (docs/z3.md "A reduction
  // for persistent cluster proofs"). `most` < 0: no such bound.
  int64_t most = -1;
  if (split > 1 && inner_at_most && inner_at_most(split - 1)) {
    most = split - 1;
    while (most > 1 && inner_at_most(most - 1)) --most;
  }
  // Every tile of a run has at least min_len iterations: shorter lengths
  // are explored by none (docs/z3.md "The assumptions' least K trip count").
  const int64_t least = g.min_len, longest = most < 0 ? split - 1 : most;
  if (most >= 0 && most < least)
    throw Fail(fmt::format("the lm.assume facts keep the K trip count at least {} and at most {}", least, most));
  // (every length a multiple of len_multiple: docs/z3.md "Tile lengths the facts allow")
  if (most >= 0 && (most / g.len_multiple) * g.len_multiple < least)
    throw Fail(fmt::format("the lm.assume facts keep the K trip count at least {} and at most {} and a multiple of {}",
                           least, most, g.len_multiple));
  std::shared_ptr<PersistentShared> shared;
  try {
    for (int64_t len = least; len <= longest; ++len) {
      if (len % g.len_multiple != 0) continue;
      states += PersistentExplorer(g, len, opts, budget, shared).run();
      if (!opts.share_layout) shared.reset();
    }
    if (most < 0) states += PersistentExplorer(g, -std::max(split, least), opts, budget, shared).run();
  } catch (const GridTooSmall& small) {
    // (the periods at the positions runs reach: a larger window costs
    // seconds and closes where this one does, the processes' distance to
    // their tile index being what the shifts wait for; refused)
    if (g.slope)
      throw Fail(fmt::format("the exploration leaves the window of {} tiles x {} K iterations with the periods "
                             "compared where runs reach them (a ring index minus the tile index)",
                             Wt, Wg));
    throw;
  }
  const std::string inner = ir::exprToString(*tl.inner, s);
  return fmt::format("lap induction over tiles and K: {} tiles of every {} K iterations, each tile "
                     "its own (ring period {}, {}window {} tiles x {} iterations{}{}{}{})",
                     g.fixed_tiles >= 0 ? fmt::format("exactly {}", g.fixed_tiles)
                                        : fmt::format("every {} >= 0", ir::exprToString(*tl.tiles, s)),
                     most < 0 ? fmt::format("{} >= {}", inner, least)
                              : fmt::format("{} <= {} <= {} (the assumptions)", least, inner, most),
                     g.Pg, g.fixed_tiles >= 0 ? "no tile shift, " : fmt::format("tile period {}, ", g.Pt), Wt, Wg,
                     longest >= least ? fmt::format(", tiles of {}..{} iterations one by one", least, longest) : "",
                     g.len_multiple > 1 ? fmt::format(", tile lengths multiples of {} (the assumptions)", g.len_multiple)
                                        : "",
                     g.last_tile ? ", the last tile's part after the K loop its own" : "",
                     g.slope ? ", K iterations compared where runs reach them (ring position >= tile)" : "");
}

std::string provePersistent(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                            const TileLoops& tl, const TripProofOptions& opts,
                            ProofBudget& budget, uint64_t& states) {
  // (init= and the register hazards it decides: checkRegsPathIndependent)
  const Limits limits = solverLimits(opts, budget);
  FactProver prover(s, limits, {});
  std::map<int, std::optional<int64_t>> param_lb;
  if (!atLeast(prover, tl.inner, 1, param_lb))
    throw InnerMayBeEmpty(fmt::format("the schedule's assumptions do not keep {} (the K loop's trip count) from being "
                                      "below 1",
                                      ir::exprToString(*tl.inner, s)),
                          tl.inner);
  int64_t max_stages = 1;
  for (const ir::View& v : s.views) max_stages = std::max<int64_t>(max_stages, v.stages);
  for (const ir::Pipeline& p : s.pipelines) max_stages = std::max<int64_t>(max_stages, p.stages);
  for (const ir::Barrier& b : s.barriers) max_stages = std::max<int64_t>(max_stages, b.count);
  int64_t Wt = 16, Wg = std::max<int64_t>(opts.first_window, 2 * max_stages + 8);
  std::map<int64_t, bool> at_most;  // E_B <= c, per c asked
  const std::function<bool(int64_t)> inner_at_most = [&](int64_t c) {
    auto [it, fresh] = at_most.emplace(c, false);
    if (fresh)
      it->second = prover.prove(ir::makeExpr(ir::ExprKind::Le, {tl.inner, ir::makeConst(c)})).kind == BvVerdict::Holds;
    return it->second;
  };
  // E_B >= c, per c asked (docs/z3.md "The assumptions' least K trip
  // count"): not where a checked binding, which the facts allow, is below
  // c (no query; the covering values hold small trip counts); else asked
  std::optional<int64_t> checked_least;
  std::vector<int64_t> checked_values;
  for (const Binding& b : checked) {
    // (only those the facts allow: a case's copy, proveGuardCases, is given
    // every checked binding, and its own fact may exclude some)
    if (!holdsAt(s, *ir::makeConst(1), b, true)) continue;
    ir::EvalEnv env;
    env.params = b.params;
    if (auto v = ir::evaluate(*tl.inner, env)) {
      checked_least = checked_least ? std::min(*checked_least, *v) : *v;
      checked_values.push_back(*v);
    }
  }
  std::map<int64_t, bool> at_least;
  const std::function<bool(int64_t)> inner_at_least = [&](int64_t c) {
    if (checked_least && *checked_least < c) return false;
    auto [it, fresh] = at_least.emplace(c, false);
    if (fresh) it->second = atLeast(prover, tl.inner, c, param_lb);
    return it->second;
  };
  // E_B % c == 0, per c asked (docs/z3.md "Tile lengths the facts allow"):
  // not where a checked binding is no multiple of c (no query); else asked
  std::map<int64_t, bool> multiple_of;
  const std::function<bool(int64_t)> inner_multiple_of = [&](int64_t c) {
    if (std::any_of(checked_values.begin(), checked_values.end(), [c](int64_t v) { return v % c != 0; })) return false;
    auto [it, fresh] = multiple_of.emplace(c, false);
    if (fresh)
      it->second = prover
                       .prove(ir::makeExpr(ir::ExprKind::Eq, {ir::makeExpr(ir::ExprKind::Mod, {tl.inner, ir::makeConst(c)}),
                                                              ir::makeConst(0)}))
                       .kind == BvVerdict::Holds;
    return it->second;
  };
  // Where a window settled how the grid reads the tile count (E_A read as
  // t + far, past the depth m of every read the grid evaluates), the next
  // window starts there instead of at 2 (docs/z3.md "Cheaper refusals of
  // the last tiles' grids"): the grid of any far >= m + 1 is the same text
  // (every guard on its path has depth <= m, so every A >= t + m + 1
  // takes the same path and reads the same values), and the loop in
  // attemptPersistent still grows far where the larger grid evaluates a
  // deeper read. A depth-2 read otherwise built the grid twice per window;
  // a depth-1 read settles at 2, the start, as before.
  int64_t tile_count_far = TileCountRead::NotLast.far;
  for (;;) {
    if (Wt > 64 || Wg > opts.max_window)
      throw Fail(fmt::format("no steady period within {} tiles of {} K iterations", Wt, Wg));
    checkBudget(budget, fmt::format("window {}x{}", Wt, Wg));
    try {
      return attemptPersistent(s, target, checked.front(), tl, Wt, Wg, opts, budget, states, inner_at_most,
                               inner_at_least, inner_multiple_of, tile_count_far);
    } catch (const GridTooSmall& small) {
      if (std::getenv("CAKE_PERSIST_STATS"))
        fmt::print(stderr, "persist-stats: window {}x{} too small in the {} dimension\n", Wt, Wg,
                   small.tiles ? "tile" : "ring");
      (small.tiles ? Wt : Wg) *= 2;
    }
  }
}

// The trip expression's value under the fixed parameter values `a`, when
// it reads no other parameter (nullopt otherwise, or where undefined).
std::optional<int64_t> tripUnder(const TripLoops& tl, const std::map<int, int64_t>& a) {
  if (!tl.trip) return std::nullopt;
  for (const int p : paramsOf(*tl.trip))
    if (!a.count(p)) return std::nullopt;
  if (ir::exprUses(*tl.trip, {ir::ExprKind::BlockIdx, ir::ExprKind::GridDim, ir::ExprKind::Instance, ir::ExprKind::LoopVar}))
    return std::nullopt;
  ir::EvalEnv env;
  for (const auto& [p, v] : a) env.params[p] = v;
  return ir::evaluate(*tl.trip, env);
}

// Lap induction once per assignment of the parameters read besides the
// trip expression that the lm.assume facts allow (tile sizes: BK in {32,
// 64}), when they are few: the argument in one line, or throws. `bindings`:
// the checked ones with the assignment of the current proof.
std::string proveEachAssignment(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                                TripLoops& tl, const TripProofOptions& opts,
                                ProofBudget& budget, uint64_t& states,
                                std::vector<Binding>& bindings, ValueListings* known = nullptr) {
  const std::set<int> extra = paramsBesides(s, checked.front(), target, tl, opts.first_window);
  std::vector<std::map<int, int64_t>> assignments = {{}};
  if (!extra.empty()) {
    const Limits limits = solverLimits(opts, budget);
    try {
      assignments = allowedAssignments(s, extra, limits, opts.max_fixed_values, {}, known);
    } catch (const TooManyValues&) {
      // More values: listed (up to max_equivalent_values) when every such
      // parameter is bounded, each value's steps 1-4 run as before, and a
      // window equal up to sizes to one already explored is not explored
      // again (docs/z3.md "Parameters read only in sizes").
      if (opts.max_equivalent_values <= opts.max_fixed_values) throw;
      BvProver bounds(s, limits);
      for (int p : extra) {
        auto x = symbolNode(ir::ExprKind::Param, p);
        auto within = ir::makeExpr(ir::ExprKind::And, {ir::makeExpr(ir::ExprKind::Le, {x, ir::makeConst(1 << 20)}),
                                                       ir::makeExpr(ir::ExprKind::Ge, {x, ir::makeConst(-(1 << 20))})});
        if (bounds.prove(within).kind != BvVerdict::Holds) throw;
      }
      assignments = allowedAssignments(
          s, extra, limits, opts.max_equivalent_values, [&] { checkBudget(budget, "listing the allowed values"); },
          known);
    }
    if (assignments.empty()) throw Fail("the lm.assume facts allow no value of the parameters read besides the trip count");
  }
  std::set<std::vector<int64_t>> explored;  // windows explored, up to sizes (trip_sizes.h)
  std::set<std::vector<int64_t>> shapes;    // (TripLoops::shapes)
  struct Forget {                   // tl outlives `explored`
    TripLoops& tl;
    ~Forget() { tl.explored = tl.shapes = nullptr; }
  } forget{tl};
  tl.explored = &explored;
  if (opts.least_window) tl.shapes = &shapes;
  std::string first;
  size_t reused = 0;  // values whose window an earlier one's equals up to sizes
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
      engine = proveFixed(s, target, bindings, tl, opts, budget, states);
    } catch (const Met& m) {
      // A parameter of the trip expression fixed here fixes the trip count
      // too; a violation met at another trip count is one of a binding that
      // no allowed parameter values give (docs/z3.md "A fixed value that
      // fixes the trip count"): no finding, the bounded check decides.
      if (const std::optional<int64_t> e = tripUnder(tl, a); e && (m.violation.trip_open || *e != tripValue(tl, m.trip)))
        throw Fail(fmt::format("{}{} (at a trip count other than {}, the one {} gives: no finding)", at, m.what(), *e,
                               at.substr(0, at.size() - 2)));
      throw Met(at + m.what(), m.violation, m.trip, m.violation.trip_open);
    } catch (const Fail& f) {
      throw Fail(at + f.what());
    }
    if (engine.find(kReusedWindow) != std::string::npos) ++reused;
    if (first.empty()) first = std::move(engine);
  }
  const std::string classes =
      assignments.size() > 1 ? fmt::format(", {} of the {} values' windows explored, the others equal to one of them "
                                           "up to sizes",
                                           assignments.size() - reused, assignments.size())
                             : "";
  return extra.empty() ? first
                       : fmt::format("for each {}: {}{}{}", assignmentText(s, assignments), first,
                                     assignments.size() > 1 ? " (shown for the first)" : "", classes);
}


// The proof of one schedule: the argument in one line, or throws (Met, Fail).
// A per-tile residue of k (docs/z3.md "A per-tile parity of k", helper
// loops4): a K loop's body that reads `k % p` (one constant p in 2..16 for
// the schedule; t the tile loop's variable around it) is not a function of
// the ring index t * E_B + k. For the bindings with E_B % p == r (floor
// modulo, as ir::evaluate has it), t * E_B - t * r = t * (E_B - r) is a
// multiple of p for every t, so k % p == (t * E_B + k - t * r) % p: the
// copy of the schedule with every such `k % p` of the K loops' bodies
// written so builds, for those bindings, the very systems the schedule
// builds. One copy per r = 0..p-1, each proved for every binding; every
// binding is one r's. Empty when the schedule reads no such `k % p`.
// The same holds for `e % p` with e a polynomial in k (polynomialIn:
// `(k + 1) % 2`, `(2 * k + w) % 4`), written e(t * E_B + k - t * r) % p:
// the two arguments are congruent modulo p, so are their images under e
// (docs/z3.md "A residue of an expression of k", helper grouped).
struct ResidueCase {
  std::shared_ptr<ir::Schedule> s;
  std::string text;
};
// Is e a polynomial in loop variable `var` with integer coefficients: sums,
// differences, negations and products of `var` and terms free of it (every
// expression of the IR is an integer)? Then e(v) and e(v') are congruent
// modulo every p whenever v and v' are (a ring homomorphism onto Z/p).
bool polynomialIn(const ir::Expr& e, int var) {
  using K = ir::ExprKind;
  if (!mentionsLoopVar(e, {var}) || e.kind == K::LoopVar) return true;
  switch (e.kind) {
    case K::Add: case K::Sub: case K::Neg: case K::Mul:
      return std::all_of(e.args.begin(), e.args.end(),
                         [&](const ir::ExprPtr& a) { return a && polynomialIn(*a, var); });
    default: return false;
  }
}

std::vector<ResidueCase> kResidueCases(const ir::Schedule& s, const TileLoops& tl) {
  using K = ir::ExprKind;
  std::set<int64_t> ps;
  // e with `k % p` rewritten for residue r (r < 0: only collect the p's)
  std::function<ir::ExprPtr(const ir::ExprPtr&, int, int, int64_t)> rewrite = [&](const ir::ExprPtr& e, int k,
                                                                                 int t, int64_t r) -> ir::ExprPtr {
    if (!e) return e;
    if (e->kind == K::Mod && e->args.size() == 2 && e->args[0] && e->args[1] && mentionsLoopVar(*e->args[0], {k}) &&
        polynomialIn(*e->args[0], k)) {
      const auto p = ir::constValue(e->args[1]);
      if (p && *p >= 2 && *p <= 16) {
        ps.insert(*p);
        if (r < 0) return e;
        const ir::ExprPtr tv = symbolNode(K::LoopVar, t);
        const ir::ExprPtr kv = symbolNode(K::LoopVar, k);
        const ir::ExprPtr ring = ir::makeExpr(
            K::Sub, {ir::makeExpr(K::Add, {ir::makeExpr(K::Mul, {tv, tl.inner}), kv}),
                     ir::makeExpr(K::Mul, {tv, ir::makeConst(r)})});
        return ir::makeExpr(K::Mod, {substLoopVar(e->args[0], k, ring), ir::makeConst(*p)});
      }
    }
    if (e->args.empty()) return e;
    auto copy = std::make_shared<ir::Expr>(*e);
    for (ir::ExprPtr& a : copy->args) a = rewrite(a, k, t, r);
    return copy;
  };
  std::function<void(ir::Block&, int, int64_t)> walk = [&](ir::Block& b, int t, int64_t r) {
    for (ir::Stmt& st : b) {
      if (st.kind == ir::Stmt::Kind::For && t >= 0 && tl.k_vars.count(st.loop_var)) {
        const int k = st.loop_var;
        mapExprs(st.body, [&](const ir::ExprPtr& e) { return rewrite(e, k, t, r); });
        continue;  // no symbolic loop inside a K loop (findTileLoops)
      }
      const bool tile = st.kind == ir::Stmt::Kind::For && tl.tile_vars.count(st.loop_var) > 0;
      walk(st.body, tile ? st.loop_var : t, r);
      walk(st.orelse, t, r);
    }
  };
  ir::Schedule probe = s;
  for (ir::RoleBody& body : probe.bodies) walk(body.body, -1, -1);
  if (ps.size() != 1) return {};
  const int64_t p = *ps.begin();
  std::vector<ResidueCase> out;
  for (int64_t r = 0; r < p; ++r) {
    ResidueCase c{std::make_shared<ir::Schedule>(s), ""};
    for (ir::RoleBody& body : c.s->bodies) walk(body.body, -1, r);
    c.text = fmt::format("{} % {} == {}", ir::exprToString(*tl.inner, s), p, r);
    out.push_back(std::move(c));
  }
  return out;
}

// The persistent proof once per residue case (kResidueCases); `why`: why
// the schedule as written was not proved. A violation met in a case is no
// finding (its copy is the schedule for that case's bindings only).
std::string proveResidueCases(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                              const TileLoops& tl, const TripProofOptions& opts, ProofBudget& budget,
                              uint64_t& states, const std::string& why) {
  const std::vector<ResidueCase> cases = kResidueCases(s, tl);
  if (cases.empty()) throw Fail(why);
  std::string first;
  for (const ResidueCase& c : cases) {
    checkBudget(budget, fmt::format("with {}", c.text));
    auto ctl = findTileLoops(*c.s);
    if (!ctl) throw Fail(fmt::format("{}; with {}: the copy is no persistent kernel", why, c.text));
    try {
      std::string engine = provePersistent(*c.s, target, checked, *ctl, opts, budget, states);
      if (first.empty()) first = std::move(engine);
    } catch (const Fail& g) {
      throw Fail(fmt::format("{}; with {} (k % p read through the ring index): {}", why, c.text, g.what()));
    }
  }
  return fmt::format("for each residue of the K loop's trip count ({}; {} cases), k % p read as (t * {} + k - t * r) "
                     "% p: {} (shown for the first)",
                     cases.front().text, cases.size(), ir::exprToString(*tl.inner, s), first);
}

// `tl`: the trip loops of the one-loop argument (for a Met's binding);
// `bindings`: the checked ones with the fixed parameters' values of the
// current proof.
// ================================================================ a tile loop split at a monotone guard
//
// docs/z3.md "A tile loop split at a monotone guard" (helper fa4split,
// session 19; X outside [0, T]: "A split point outside the loop's range",
// SplitLoops::clamped). `for t in lm.range(0, T): ... if t >= X: A else: B ...` with
// X loop-invariant (it reads no loop variable and no lm.instance(); the IR
// has no assignment, so such an expression has one value for the whole
// loop) and 0 <= X <= T for every allowed binding runs t = 0..X-1 with the
// guard false and t = X..T-1 with it true: it is exactly `for t in
// lm.range(0, X): ...B...` then `for t in lm.range(0, T - X): ...A...` with
// t read as t + X in the second (`(t + X) - X` written back as t). The
// guard `t < X` the other way round. Then two cases (0 <= X, so every
// binding is in one), each a copy of the split schedule that is proved for
// every allowed binding (more than the case's, so no fact is added: the
// solver is slow on facts such as min(cdiv(..), cdiv(..)) <= 0):
//  * X = 0: the first loops run no iteration (removed), and the second is
//    the whole loop (bound T, X read as 0);
//  * X >= 1: a first loop whose body has no op is removed (it builds no
//    instruction for any trip count); one with ops must pass
//    privatePrefixRunsAsOne and is replaced by its body once (t read as 0).

struct SplitLoops {
  std::shared_ptr<ir::Schedule> none, some;  // X = 0 (X <= 0 when clamped) and X >= 1
  // Clamped (0 <= X or X <= T not shown, docs/z3.md "A split point outside
  // the loop's range"). Where 0 <= X is not shown, `none` is the whole loop
  // with every guard decided true, nothing else rewritten (the runs of X <=
  // 0: none_decided); where X <= T is not shown, `all_first` is the whole
  // loop with every guard decided false (the runs of X >= T). `some` is then
  // the case 1 <= X <= T - 1 (or up to T).
  bool clamped = false;
  bool none_decided = false;
  bool from_zero = false, to_end = false;    // 0 <= X, X <= T shown
  std::shared_ptr<const ir::Schedule> whole;  // the schedule as written
  std::shared_ptr<ir::Schedule> all_first;
  ir::ExprPtr loop_bound;                    // T
  ir::ExprPtr at;                            // X
  std::string text;
  ir::ExprPtr rest;                          // T - X, the second loops' bound in `some`
  struct Prefix {
    size_t body;                              // index into some->bodies
    size_t at;                                // where its statements start in the body
    size_t count;                             // its statements (the loop's body, t read as 0)
    int var;                                  // the tile loop's variable
    ir::Block loop_body;                      // the first loop's body (guards decided)
  };
  std::vector<Prefix> prefixes;
  // The second loops' bound read elsewhere too (loopsInSequence: `if i ==
  // hit:` under `lm.range(0, hit + 1)`): with the bound fixed to r, each
  // read of its core (the bound less its constant offset) is read as r less
  // that offset, the value it has at every binding where the bound is r.
  bool rest_read = false;
};

// `t >= X` (true from X on) or `t < X` (true below X) with t = var.
std::optional<std::pair<ir::ExprPtr, bool>> monotoneGuard(const ir::Expr& c, int var) {
  using K = ir::ExprKind;
  if ((c.kind != K::Ge && c.kind != K::Lt) || c.args.size() != 2 || !c.args[0] || !c.args[1]) return std::nullopt;
  if (c.args[0]->kind != K::LoopVar || c.args[0]->index != var) return std::nullopt;
  return std::make_pair(c.args[1], c.kind == K::Ge);
}

bool loopInvariant(const ir::Expr& e) { return !ir::exprUses(e, {ir::ExprKind::LoopVar, ir::ExprKind::Instance}); }

// The first monotone guard on var in b (any depth).
ir::ExprPtr firstGuardBound(const ir::Block& b, int var) {
  for (const ir::Stmt& st : b) {
    if (st.kind == ir::Stmt::Kind::If && st.cond)
      if (auto g = monotoneGuard(*st.cond, var)) return g->first;
    if (auto x = firstGuardBound(st.body, var)) return x;
    if (auto x = firstGuardBound(st.orelse, var)) return x;
  }
  return nullptr;
}

// Every guard `t >= X` / `t < X` of b replaced by the block it takes when
// t >= X holds (`above`) or not.
void decideGuards(ir::Block& b, int var, const ir::Expr& X, bool above) {
  for (size_t i = 0; i < b.size();) {
    if (b[i].kind == ir::Stmt::Kind::If && b[i].cond) {
      auto g = monotoneGuard(*b[i].cond, var);
      if (g && ir::sameExpr(*g->first, X)) {
        ir::Block taken = g->second == above ? std::move(b[i].body) : std::move(b[i].orelse);
        b.erase(b.begin() + static_cast<std::ptrdiff_t>(i));
        b.insert(b.begin() + static_cast<std::ptrdiff_t>(i), std::make_move_iterator(taken.begin()),
                 std::make_move_iterator(taken.end()));
        continue;  // the spliced statements are looked at in turn
      }
    }
    decideGuards(b[i].body, var, X, above);
    decideGuards(b[i].orelse, var, X, above);
    ++i;
  }
}

// (a + X) - X written as a, bottom up.
ir::ExprPtr cancelShift(const ir::ExprPtr& e, const ir::Expr& X) {
  if (!e || e->args.empty()) return e;
  auto copy = std::make_shared<ir::Expr>(*e);
  for (ir::ExprPtr& a : copy->args) a = cancelShift(a, X);
  if (copy->kind == ir::ExprKind::Sub && copy->args.size() == 2 && ir::sameExpr(*copy->args[1], X) &&
      copy->args[0]->kind == ir::ExprKind::Add && copy->args[0]->args.size() == 2 &&
      ir::sameExpr(*copy->args[0]->args[1], X))
    return copy->args[0]->args[0];
  return copy;
}

bool hasOp(const ir::Block& b) {
  bool any = false;
  ir::forEachOp(b, [&](const ir::Stmt&) { any = true; });
  return any;
}

// A copy of s whose loops bounded by T (the tile loops of the split, each a
// statement of its role body) have every guard `t >= X` / `t < X` decided as
// `above` says, nothing else rewritten: for a binding with X <= 0 (above) or
// X >= T (not above) every iteration t in [0, T) takes that branch, so the
// copy builds the schedule's systems for every such binding (docs/z3.md "A
// split point outside the loop's range").
std::shared_ptr<ir::Schedule> wholeLoopDecided(const ir::Schedule& s, const ir::ExprPtr& T, const ir::ExprPtr& X,
                                               bool above) {
  auto out = std::make_shared<ir::Schedule>(s);
  for (ir::RoleBody& body : out->bodies)
    for (ir::Stmt& st : body.body)
      if (st.kind == ir::Stmt::Kind::For && st.hi && ir::sameExpr(*st.hi, *T)) decideGuards(st.body, st.loop_var, *X, above);
  return out;
}

std::optional<SplitLoops> splitAtMonotoneGuard(const ir::Schedule& s, const Limits& limits) {
  using K = ir::ExprKind;
  // the tile loops: top-level loops of the role bodies with a monotone
  // guard on their variable; X and T the same in all of them
  ir::ExprPtr X, T;
  for (const ir::RoleBody& body : s.bodies)
    for (const ir::Stmt& st : body.body) {
      if (st.kind != ir::Stmt::Kind::For || !st.hi || !mentionsParam(*st.hi)) continue;
      ir::ExprPtr x = firstGuardBound(st.body, st.loop_var);
      if (!x) continue;
      if (!X) X = x, T = st.hi;
      if (!ir::sameExpr(*X, *x) || !ir::sameExpr(*T, *st.hi)) return std::nullopt;
    }
  if (!X) return std::nullopt;
  const std::string what = fmt::format("the tile loops over {} split at {}", ir::exprToString(*T, s),
                                       ir::exprToString(*X, s));
  auto refuse = [&](const std::string& why) { throw Fail(fmt::format("{}: {}", what, why)); };
  if (!loopInvariant(*X)) refuse("the guard's bound reads a loop variable or lm.instance()");
  // every loop bounded by T: from 0, step 1, at the top of a role body
  std::vector<const ir::Stmt*> loops;
  for (const ir::RoleBody& body : s.bodies) collectLoops(body.body, loops);
  for (const ir::Stmt* st : loops) {
    if (!st->hi || !ir::sameExpr(*st->hi, *T)) continue;
    const auto lo = ir::constValue(st->lo);
    const auto step = st->step ? ir::constValue(st->step) : std::optional<int64_t>(1);
    if (!lo || *lo != 0 || !step || *step != 1) refuse("a loop over the tiles does not run from 0 by 1");
    if (!std::any_of(s.bodies.begin(), s.bodies.end(), [&](const ir::RoleBody& b) {
          return std::any_of(b.body.begin(), b.body.end(), [&](const ir::Stmt& x) { return &x == st; });
        }))
      refuse("a loop over the tiles is not a statement of its role body");
  }
  FactProver prover(s, limits, {});
  std::map<int, std::optional<int64_t>> lb;
  // (X <= T by the syntax alone where 0 <= X is not shown: no solver query
  // that the split did not ask before; not shown, the case X >= T is added)
  const bool from_zero = provedNonNeg(prover, X, lb);
  const bool to_end = provedLe(prover, X, T, lb, from_zero);

  SplitLoops out;
  out.at = X;
  out.loop_bound = T;
  out.text = what;
  out.none = std::make_shared<ir::Schedule>(s);
  out.some = std::make_shared<ir::Schedule>(s);
  // 0 <= X <= T not shown: the cases clamp X to [0, T]
  out.clamped = !from_zero || !to_end;
  out.from_zero = from_zero;
  out.to_end = to_end;
  out.whole = std::make_shared<ir::Schedule>(s);
  // (with 0 <= X shown, X <= 0 is X = 0: the split's `none` below, X read as 0)
  out.none_decided = !from_zero;
  if (out.none_decided) out.none = wholeLoopDecided(s, T, X, true);
  if (!to_end) out.all_first = wholeLoopDecided(s, T, X, false);
  const ir::ExprPtr rest = ir::makeExpr(K::Sub, {T, X});
  out.rest = rest;
  for (size_t bi = 0; bi < s.bodies.size(); ++bi) {
    ir::Block none, some;
    for (const ir::Stmt& st : s.bodies[bi].body) {
      if (st.kind != ir::Stmt::Kind::For || !st.hi || !ir::sameExpr(*st.hi, *T)) {
        none.push_back(st);
        some.push_back(st);
        continue;
      }
      const int t = st.loop_var;
      ir::Stmt second = st;
      second.hi = rest;
      decideGuards(second.body, t, *X, true);
      const ir::ExprPtr shifted = ir::makeExpr(K::Add, {symbolNode(K::LoopVar, t), X});
      mapExprs(second.body, [&](const ir::ExprPtr& e) {
        return e ? cancelShift(substitute(e, *symbolNode(K::LoopVar, t), shifted), *X) : e;
      });
      ir::Block first = st.body;
      decideGuards(first, t, *X, false);
      if (hasOp(first)) {
        ir::Block once = first;
        mapExprs(once, [&](const ir::ExprPtr& e) { return e ? substitute(e, *symbolNode(K::LoopVar, t), ir::makeConst(0)) : e; });
        if (std::any_of(out.prefixes.begin(), out.prefixes.end(), [&](const SplitLoops::Prefix& x) { return x.body == bi; }))
          refuse("a role body has two tile loops");
        out.prefixes.push_back({bi, some.size(), once.size(), t, first});
        some.insert(some.end(), once.begin(), once.end());
      }
      // X = 0 in the first case: the second loop is the whole loop
      ir::Stmt all = second;
      all.hi = T;
      mapExprs(all.body, [&](const ir::ExprPtr& e) { return e ? substitute(e, *X, ir::makeConst(0)) : e; });
      none.push_back(std::move(all));
      some.push_back(std::move(second));
    }
    if (!out.none_decided) out.none->bodies[bi].body = std::move(none);
    out.some->bodies[bi].body = std::move(some);
  }
  return out;
}

// Does an expression of b other than a TMA / copy coordinate (which the
// builder does not evaluate) read loop variable var? If not, every
// iteration of a loop with body b builds the same instructions from the
// same builder state.
bool readsVarOutsideCoords(const ir::Block& body, int var) {
  ir::Block b = body;
  std::function<void(ir::Block&)> clear = [&](ir::Block& x) {
    for (ir::Stmt& st : x) {
      st.op.coords.clear();
      clear(st.body);
      clear(st.orelse);
    }
  };
  clear(b);
  return readsLoopVar(b, var);
}

// The ops of a role's first loop (the tiles below X) run as one iteration
// for every X >= 1 (docs/z3.md "A tile loop split at a monotone guard").
// Checked, else Fail:
//  1. the role has one instance and no earlier ops (the loop is where its
//     process starts), no other role accesses a view whose bytes overlap
//     a view the loop accesses, nor a tensor it accesses, the loop touches
//     no TMEM, and the schedule has no cluster ops; its instructions (built)
//     are copies, fills, fences and TMA stores with their commits and
//     waits: no mbarrier, named barrier or MMA. So every step of the loop
//     reads and writes only its process's own part of the state (pc, the
//     atoms of its private bytes, its store groups), and in every run its
//     steps commute with every other process's: each run is one in which
//     the process runs its loop first, alone;
//  2. no expression of the loop but TMA / copy coordinates (which the
//     builder does not evaluate) reads t, and the built loop reads no
//     parameter: every iteration builds the same instructions;
//  3. the process's states at the end of one iteration and at the end of
//     two, explored alone from the start (every interleaving of its steps),
//     are the same sets once the second iteration's instructions are read
//     as the first's (pcs, data tags, store groups), and no step meets a
//     violation. By induction (2: the same text every iteration) the
//     states after X >= 1 iterations are those after one, and the later
//     text is the one after one iteration: the builder derives later
//     fields from counters the loop does not move (phases, named barrier
//     generations, MMA commits), from generations of views only this
//     process accesses (read by nothing: sim::staleWrite compares only
//     different processes), and from register writes, which 3 requires
//     to leave the same register hazards in the second iteration as in
//     the first (sameInstr compares them).
// So the runs for X >= 1 are those of the schedule with the loop's body
// once, which the proof of `some` covers.
void privatePrefixRunsAsOne(const ir::Schedule& some, const SplitLoops::Prefix& pre, ir::Target target,
                            const Binding& binding) {
  const std::string where = fmt::format("the empty tiles' loop of role {}",
                                        some.roles[some.bodies[pre.body].role].name);
  auto refuse = [&](const std::string& why) { throw Fail(fmt::format("{}: {}", where, why)); };
  const int role = some.bodies[pre.body].role;
  if (some.roles[role].instanceCount() != 1) refuse("the role has more than one instance");
  if (some.cluster_ops || some.clusterSize() > 1) refuse("a cluster");
  for (size_t bi = 0; bi < pre.body; ++bi)
    if (some.bodies[bi].role == role && hasOp(some.bodies[bi].body)) refuse("the role runs ops before it");
  {
    const ir::Block& b = some.bodies[pre.body].body;
    if (hasOp(ir::Block(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(pre.at)))) refuse("the role runs ops before it");
  }
  // 1. the views, TMEM and tensors it touches
  std::set<int> views, params;
  bool tmem = false;
  auto refs = [&](const ir::Op& op, const std::function<void(const ir::BufferRef&)>& f) {
    for (const ir::BufferRef* r : {&op.dst, &op.src, &op.src2}) f(*r);
  };
  ir::forEachOp(pre.loop_body, [&](const ir::Stmt& st) {
    refs(st.op, [&](const ir::BufferRef& r) {
      if (r.kind == ir::BufferRef::Kind::View) views.insert(r.index);
      if (r.kind == ir::BufferRef::Kind::Tmem) tmem = true;
      if (r.kind == ir::BufferRef::Kind::Param) params.insert(r.index);
    });
  });
  if (tmem) refuse("it accesses TMEM");
  if (readsVarOutsideCoords(pre.loop_body, pre.var)) refuse("it reads the tile index outside coordinates");
  // byte extents of views (constant offsets and shapes only)
  auto extent = [&](int v) -> std::optional<std::tuple<int, int64_t, int64_t>> {
    const ir::View& view = some.views[v];
    auto off = ir::constValue(view.offset);
    if (!off) return std::nullopt;
    int64_t n = view.stages * ir::dtypeBytes(view.dtype);
    for (const ir::ExprPtr& d : view.shape) {
      auto x = ir::constValue(d);
      if (!x) return std::nullopt;
      n *= *x;
    }
    return std::make_tuple(view.pool, *off, *off + n);
  };
  for (int v : views)
    if (!extent(v)) refuse(fmt::format("view {} has no constant extent", some.views[v].name));
  for (size_t bi = 0; bi < some.bodies.size(); ++bi) {
    if (some.bodies[bi].role == role) continue;
    bool shared = false;
    ir::forEachOp(some.bodies[bi].body, [&](const ir::Stmt& st) {
      refs(st.op, [&](const ir::BufferRef& r) {
        if (r.kind == ir::BufferRef::Kind::Param && params.count(r.index)) shared = true;
        if (r.kind != ir::BufferRef::Kind::View) return;
        auto o = extent(r.index);
        for (int v : views) {
          auto e = extent(v);
          if (!o || (std::get<0>(*o) == std::get<0>(*e) && std::get<1>(*o) < std::get<2>(*e) &&
                     std::get<1>(*e) < std::get<2>(*o)))
            shared = true;
        }
      });
    });
    if (shared) refuse(fmt::format("role {} accesses its bytes or tensors", some.roles[some.bodies[bi].role].name));
  }
  // 2, 3: the process alone, with its loop's body once and twice
  std::vector<std::shared_ptr<ir::Schedule>> kept;  // the systems point at their statements
  auto alone = [&](int n) {
    kept.push_back(std::make_shared<ir::Schedule>(some));
    ir::Schedule& x = *kept.back();
    for (size_t bi = 0; bi < x.bodies.size(); ++bi) {
      ir::Block b;
      if (bi == pre.body)
        for (int i = 0; i < n; ++i) {
          ir::Block once = pre.loop_body;
          mapExprs(once, [&](const ir::ExprPtr& e) {
            return e ? substitute(e, *symbolNode(ir::ExprKind::LoopVar, pre.var), ir::makeConst(i)) : e;
          });
          b.insert(b.end(), once.begin(), once.end());
        }
      x.bodies[bi].body = std::move(b);
    }
    std::string err;
    auto sys = trip::buildForProof(x, binding, target, &err);
    if (!sys) refuse(fmt::format("it cannot be built alone: {}", err));
    if (!sys->params_read.empty()) refuse("its instructions read a parameter");
    return std::move(*sys);
  };
  const System one = alone(1), two = alone(2);
  int p = -1;
  for (size_t q = 0; q < two.procs.size(); ++q)
    if (!two.procs[q].program.empty()) {
      if (p >= 0) refuse("more than one process runs it");
      p = static_cast<int>(q);
    }
  if (p < 0) return;  // no instruction at all
  if (two.procs[p].grid_dep_wait_at >= 0) refuse("it waits for the preceding grid");
  const auto& p1 = one.procs[p].program;
  const auto& p2 = two.procs[p].program;
  const int a = static_cast<int>(p1.size());
  if (static_cast<int>(p2.size()) != 2 * a) refuse("its iterations build different instructions");
  for (const Instr& in : p2) {
    const bool allowed = in.kind == InstrKind::Generic || in.kind == InstrKind::Fence ||
                         in.kind == InstrKind::TmaStore || in.kind == InstrKind::StoreCommit ||
                         in.kind == InstrKind::StoreWait;
    if (!allowed || in.slot >= 0 || in.named >= 0 || in.grid_dep_early >= 0)
      refuse(fmt::format("it runs a {}", instrKindName(in.kind)));
  }
  auto same = [&](const Instr& x, const Instr& y) {  // generations of the private views apart
    Instr u = x, v = y;
    u.stmt = v.stmt;
    for (Access& c : u.accesses) c.gen = 0;
    for (Access& c : v.accesses) c.gen = 0;
    return x.stmt->range.line == y.stmt->range.line && x.stmt->range.col == y.stmt->range.col && sameInstr(u, v);
  };
  for (int i = 0; i < a; ++i)
    if (!same(p1[i], p2[i]) || !same(p2[i], p2[a + i])) {
      refuse("its iterations build different instructions");
    }
  // 3. the states at the end of one and of two iterations
  const Model m(two);
  std::set<std::vector<int32_t>> seen, after1, after2;
  std::vector<State> todo{sim::initialState(m)};
  seen.insert(todo.front().v);
  auto canon = [&](const State& s) {  // the second iteration read as the first
    State n = s;
    const int pc = sim::pcOf(m, s, p);
    if (pc >= a) n.v[m.off_pc + p] = pc - a;
    for (int t = 0; t < m.tracked; ++t) {
      int32_t& id = n.v[sim::atomField(m, t, sim::kData)];
      if (id < 0) continue;
      const Model::WriteRef& wr = m.writes[id];
      if (wr.proc == p && wr.pc >= a) id = m.write_id[wr.proc][wr.pc - a][wr.acc];
    }
    Async as = sim::decodeAsync(m, s);
    for (int k = 0; k < sim::kGroupKinds; ++k)
      for (sim::Group& g : as.of(p, k)) {
        if (g.commit_pc >= a) g.commit_pc -= a;
        for (int32_t& x : g.pcs)
          if (x >= a) x -= a;
      }
    sim::encodeAsync(m, n, as);
    return n.v;
  };
  while (!todo.empty()) {
    if (seen.size() > 100000) refuse("more than 100000 states alone");
    State s = std::move(todo.back());
    todo.pop_back();
    const int pc = sim::pcOf(m, s, p);
    if (pc == a) after1.insert(s.v);
    if (pc == 2 * a) after2.insert(canon(s));
    const Async as = sim::decodeAsync(m, s);
    const std::vector<Step> steps = sim::enabledSteps(m, s, as);
    if (steps.empty() && pc < 2 * a) refuse("its process blocks alone");
    for (const Step& st : steps) {
      State next = s;
      std::vector<Violation> found;
      sim::applyStep(m, next, as, st, found, nullptr);
      if (!found.empty()) refuse(fmt::format("it meets {} alone", found.front().rule));
      if (seen.insert(next.v).second) todo.push_back(std::move(next));
    }
  }
  if (after1 != after2) refuse("its process's states after one iteration and after two differ");
}

// Does e read the sub-expression x?
bool readsExpr(const ir::Expr& e, const ir::Expr& x) {
  return anySubExpr(e, [&](const ir::Expr& y) { return ir::sameExpr(y, x); });
}

// e reads x only as an affine term whose slope reads no loop variable, so
// that e(x + 1) - e(x) is one constant over a whole run (`iter=t - 1`,
// `phase=(t + n_empty) - 1`, `iter=2 * t`; not `t * k`, `t % 2`, `min(t, 3)`).
bool fixedSlopeIn(const ir::ExprPtr& e, const ir::Expr& x) {
  const ir::ExprPtr v = substitute(e, x, symbolNode(ir::ExprKind::LoopVar, kFreshSymbol));
  if (!affineIn(*v, kFreshSymbol)) return false;
  return !anySubExpr(*v, [](const ir::Expr& y) {
    if (y.kind != ir::ExprKind::Mul) return false;
    bool by_v = false, varying = false;
    for (const ir::ExprPtr& a : y.args) {
      if (!a) continue;
      if (ir::readsSymbol(*a, ir::ExprKind::LoopVar, kFreshSymbol)) by_v = true;
      else if (ir::exprUses(*a, {ir::ExprKind::LoopVar})) varying = true;
    }
    return by_v && varying;
  });
}

// e's value with the symbols of `at` read as constants (nullopt: it reads
// another symbol).
std::optional<int64_t> valueWith(ir::ExprPtr e, const std::vector<std::pair<ir::ExprPtr, int64_t>>& at) {
  for (const auto& [x, v] : at) e = substitute(e, *x, ir::makeConst(v));
  try {
    return ir::constValue(e);
  } catch (...) {
    return std::nullopt;
  }
}

// Does b read x anywhere but TMA / copy coordinates (which the builder does
// not evaluate) and, where `phases`, a phase= or an iter= that reads it with
// a fixed slope (fixedSlopeIn)? An iter= must also pass `iter_ok`: an
// iteration below 0 builds no instruction (a wait passes at once), so its
// sign must not change where the texts compared do not show it. A loop
// bounded by `skip_hi` does not count its bound (the second loops' T - X).
using IterOk = std::function<bool(const ir::ExprPtr&, const ir::Stmt* loop)>;
bool readsOutsidePhases(const ir::Block& body, const ir::Expr& x, bool phases, const ir::Expr* skip_hi = nullptr,
                        const IterOk& iter_ok = {}, const ir::Stmt* loop = nullptr) {
  ir::Block b = body;
  std::function<void(ir::Block&)> clear = [&](ir::Block& blk) {
    for (ir::Stmt& st : blk) {
      st.op.coords.clear();
      if (phases) {
        ir::ExprPtr& index = st.op.sel.index;
        const bool iter = st.op.sel.mode == ir::SlotSel::Mode::Iter;
        if (index && fixedSlopeIn(index, x) && (!iter || !readsExpr(*index, x) || (iter_ok && iter_ok(index, loop))))
          index = nullptr;
        if (st.op.sel.phase && fixedSlopeIn(st.op.sel.phase, x)) st.op.sel.phase = nullptr;
      }
      if (skip_hi && st.kind == ir::Stmt::Kind::For && st.hi && ir::sameExpr(*st.hi, *skip_hi)) st.hi = nullptr;
      clear(st.body);
      clear(st.orelse);
    }
  };
  clear(b);
  bool reads = false;
  mapExprs(b, [&](const ir::ExprPtr& e) {
    if (e && readsExpr(*e, x)) reads = true;
    return e;
  });
  return reads;
}

// Is a top-level statement one of the split's second loops (bound T - X)?
bool isSecondLoop(const ir::Stmt& st, const SplitLoops& split) {
  return st.kind == ir::Stmt::Kind::For && st.hi && ir::sameExpr(*st.hi, *split.rest);
}

// Does the split's `some` read X where S_n (X read as n) would not shift by
// one amount per n? Allowed: coordinates, the second loops' bound, and from
// the second loops on (their bodies and what follows) iter= / phase= with a
// fixed slope in X. Before them (the prefix, the empty tiles' copies) X is
// read nowhere else: the texts compared for n = h, h + 1, h + 2 then stand
// for every n.
// An iter= that reads X from the second loops on must not fall below 0 for
// any n >= h where it does not at n = h: its value at X = h and the second
// loop's variable 0 is >= 0, and it does not decrease in either (it reads no
// other symbol).
bool readsSplitPointUnshifted(const SplitLoops& split, int h) {
  const IterOk iter_ok = [&](const ir::ExprPtr& e, const ir::Stmt* loop) {
    std::vector<std::pair<ir::ExprPtr, int64_t>> at = {{split.at, h}};
    if (loop) at.push_back({symbolNode(ir::ExprKind::LoopVar, loop->loop_var), 0});
    const auto base = valueWith(e, at);
    if (!base || *base < 0) return false;
    for (auto& step : at) {
      ++step.second;
      const auto next = valueWith(e, at);
      --step.second;
      if (!next || *next < *base) return false;
    }
    return true;
  };
  for (const ir::RoleBody& body : split.some->bodies) {
    bool after = false;
    for (const ir::Stmt& st : body.body) {
      const bool second = isSecondLoop(st, split);
      after |= second;
      if (readsOutsidePhases(ir::Block{st}, *split.at, after, split.rest.get(), iter_ok, second ? &st : nullptr))
        return true;
    }
  }
  return false;
}

// The empty tiles' loops of every process, when they synchronize with one
// another, run as h iterations for every X >= h (docs/z3.md "An empty
// tiles' loop that every process runs and ends on a barrier"; "An empty
// tiles' loop whose roles hand off through mbarriers"). S_n is the split's
// `some` schedule with the first loops' bodies n times (copy i with t read
// as i) and X read as n (the second loops' bound T - X kept): Pre; A_1 ..
// A_n; R, R the second loops (T - X tiles) and what follows; the runs for
// X = n are those of S_n. With h the warm-up (the first copies may mean
// other generations: a first read of a view; a wait on an iteration below
// 0), checked, else Fail:
//  0. the loop reads t only in coordinates and in iter= / phase= of a fixed
//     slope in t, and `some` reads X only in coordinates, the second loops'
//     bound, and from the second loops on in iter= / phase= of a fixed
//     slope in X (so the copies' texts differ only through the builder's
//     counters, and S_(n+1)'s past the copies S_n's by one amount per n);
//  1. every process runs the copies, or none (its copies empty where its
//     second loop starts); the copies run no MMA, TMEM op, load or
//     transaction bytes (plain mbarrier arrivals and waits, named
//     barriers, copies, fills, fences, stores);
//  2. the texts, built for T - X = 0..4 (the second loops' bound fixed; no
//     parameter read): S_(h+1)'s instructions up to A_h's end are S_h's,
//     S_(h+2)'s up to A_(h+1)'s end S_(h+1)'s, and S_(h+1)'s up to there
//     the same for every T - X; S_(h+1) from A_(h+1)'s end on is S_h from
//     A_h's end on shifted (Deltas d: one per view range and process, one
//     per slot's phases, shiftedInstr), S_(h+2) from A_(h+1)'s end on
//     S_(h+1) from A_h's end on, and A_(h+1) A_h in S_(h+1), all with one
//     d; checkLapDeltas keeps the data comparisons under d;
//  3. S_(h+1) explored exhaustively with no process let past A_(h+1)'s end:
//     no step and no state meets a violation (sim::stateViolations: a lost
//     phase, a deadlock; async work at exit where a process ends there),
//     nothing blocks, and whenever a process is at A_(h+1)'s end with none
//     past it, either every other process is there too or at A_(h+1)'s
//     closing barrier wait, released, or every process at its end has its
//     next step disabled (checked on each text past the end: S_(h+1)'s
//     with T - X = 0 and 1, S_(h+2)'s copy h + 2). A released wait changes
//     only its process's pc (and its dead barrier generation, zeroed by the
//     wait) and touches no byte, so it commutes with every other step and
//     leaves every check of the others' steps alike: every run reaching
//     past A_(h+1) is, reordered, one through a *cut*: a state with every
//     process at A_(h+1)'s end (C_(h+1));
//  4. every state of C_(h+1), moved one copy back (pcs; the data tags and
//     async groups of A_(h+1) to A_h's; the named barriers' generations by
//     one copy's completions; each slot's completed phases, and the phases
//     of loads and unobserved completions, by d; a tag or group of an
//     earlier copy, or a tag of Pre in a view that moves, refuses), is a
//     state with every process at A_h's end (C_h) that the exploration
//     reached.
// By induction on n >= h: a run of S_(n+1) stays before A_(h+1)'s end (3:
// explored, no violation) or passes a state c of C_(h+1), from which it
// runs S_(n+1)'s text from A_(h+1)'s end on: S_n's from A_h's end on,
// shifted by d (2, the builder deriving later fields from counters every
// copy moves alike); c moved back is a state S_n reaches (4, its text up
// to A_h's end is S_(h+1)'s), so the runs from it are S_n's, clean for
// n = h by the proof of S_h and beyond by induction. The caller proves
// S_1 .. S_h (`more`, the bound kept symbolic); `how` says which cut.
int sharedPrefixRunsAsOne(const SplitLoops& split, ir::Target target, const Binding& binding,
                          std::vector<std::shared_ptr<ir::Schedule>>& more, int h, std::string& how) {
  auto refuse = [&](const std::string& why) {
    throw Fail(fmt::format("as a loop every process runs and ends on a barrier ({} iteration{} of warm-up): {}", h,
                           h == 1 ? "" : "s", why));
  };
  const ir::Schedule& some = *split.some;
  if (some.cluster_ops || some.clusterSize() > 1) refuse("a cluster");
  // every copy builds its instructions alike from the builder's state
  // (iteration t = 9 cannot differ from those the texts below compare)
  // (a phase of a fixed slope in t moves by one amount per copy)
  // (an iter= of the tile index: >= 0 in copy h, not decreasing, so no
  // later copy's wait passes at once where copy h's does not)
  for (const SplitLoops::Prefix& pre : split.prefixes) {
    const ir::ExprPtr t = symbolNode(ir::ExprKind::LoopVar, pre.var);
    const IterOk iter_ok = [&](const ir::ExprPtr& e, const ir::Stmt*) {
      const auto at_h = valueWith(e, {{t, h - 1}, {split.at, h}});
      const auto next = valueWith(e, {{t, h}, {split.at, h}});
      return at_h && next && *at_h >= 0 && *next >= *at_h;
    };
    if (readsOutsidePhases(pre.loop_body, *t, true, nullptr, iter_ok))
      refuse("it reads the tile index outside coordinates and phases of a fixed slope");
  }
  // S_n reads X as n: where X is read besides the second loops' bound, by
  // phases that move by one amount per n only
  if (readsSplitPointUnshifted(split, h))
    refuse(fmt::format("it reads {} outside coordinates, the second loops' bound and their phases of a fixed slope",
                       ir::exprToString(*split.at, some)));
  // S_n with the second loops' bound r (-1: kept), and the statements of each copy
  struct Built {
    std::shared_ptr<ir::Schedule> s;
    std::vector<std::set<const ir::Stmt*>> copies;  // per copy i
    std::map<int, std::set<const ir::Stmt*>> before;  // per role: the statements before its second loop
    System sys;
  };
  auto schedule = [&](int n, int64_t r, Built& out) {
    out.s = std::make_shared<ir::Schedule>(some);
    out.copies.assign(n, {});
    // X read as n (the runs for X = n), the second loops' bound kept
    const ir::ExprPtr x_is_n = ir::makeConst(n);
    std::vector<ptrdiff_t> second(out.s->bodies.size(), -1);  // each body's second loop
    for (size_t bi = 0; bi < out.s->bodies.size(); ++bi) {
      ir::Block& body = out.s->bodies[bi].body;
      for (size_t i = 0; i < body.size(); ++i) {
        const bool loop = isSecondLoop(body[i], split);
        if (loop && second[bi] < 0) second[bi] = static_cast<ptrdiff_t>(i);
        const ir::ExprPtr hi = body[i].hi;
        ir::Block one{std::move(body[i])};
        mapExprs(one, [&](const ir::ExprPtr& e) { return e ? substitute(e, *split.at, x_is_n) : e; });
        body[i] = std::move(one.front());
        if (loop) body[i].hi = r >= 0 ? ir::makeConst(r) : hi;
        if (r >= 0 && split.rest_read) {
          // (copied out of the structured binding: clang 15 cannot capture a binding in a lambda)
          const auto [core_b, off_b] = splitOffset(split.rest);
          const ir::ExprPtr core = core_b;
          const int64_t off = off_b;
          ir::Block at_r{std::move(body[i])};
          mapExprs(at_r, [&](const ir::ExprPtr& e) { return e ? substitute(e, *core, ir::makeConst(r - off)) : e; });
          body[i] = std::move(at_r.front());
        }
      }
    }
    for (const SplitLoops::Prefix& pre : split.prefixes) {
      ir::Block& b = out.s->bodies[pre.body].body;
      ir::Block copies;
      for (int i = 0; i < n; ++i) {
        ir::Block once = pre.loop_body;
        mapExprs(once, [&](const ir::ExprPtr& e) {
          return e ? substitute(substitute(e, *symbolNode(ir::ExprKind::LoopVar, pre.var), ir::makeConst(i)),
                                *split.at, x_is_n)
                   : e;
        });
        copies.insert(copies.end(), once.begin(), once.end());
      }
      const auto at = b.begin() + static_cast<std::ptrdiff_t>(pre.at);
      b.erase(at, at + static_cast<std::ptrdiff_t>(pre.count));
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(pre.at), copies.begin(), copies.end());
      if (second[pre.body] >= 0) second[pre.body] += static_cast<ptrdiff_t>((n - 1) * pre.count);
    }
    // per role, the statements its process runs before the second loop (its
    // bodies in order up to the one with that loop)
    std::function<void(const ir::Stmt&, std::set<const ir::Stmt*>&)> all = [&](const ir::Stmt& st,
                                                                             std::set<const ir::Stmt*>& into) {
      into.insert(&st);
      for (const ir::Stmt& x : st.body) all(x, into);
      for (const ir::Stmt& x : st.orelse) all(x, into);
    };
    std::set<int> reached;
    for (size_t bi = 0; bi < out.s->bodies.size(); ++bi) {
      const int role = out.s->bodies[bi].role;
      if (reached.count(role)) continue;
      const ir::Block& body = out.s->bodies[bi].body;
      const size_t end = second[bi] >= 0 ? static_cast<size_t>(second[bi]) : body.size();
      for (size_t i = 0; i < end; ++i) all(body[i], out.before[role]);
      if (second[bi] >= 0) reached.insert(role);
    }
    for (const SplitLoops::Prefix& pre : split.prefixes) {
      const ir::Block& b = out.s->bodies[pre.body].body;
      std::function<void(const ir::Stmt&, int)> collect = [&](const ir::Stmt& st, int i) {
        out.copies[i].insert(&st);
        for (const ir::Stmt& x : st.body) collect(x, i);
        for (const ir::Stmt& x : st.orelse) collect(x, i);
      };
      for (int i = 0; i < n; ++i)
        for (size_t j = 0; j < pre.count; ++j) collect(b[pre.at + static_cast<size_t>(i) * pre.count + j], i);
    }
  };
  auto build = [&](int n, int64_t r) {
    Built out;
    schedule(n, r, out);
    std::string err;
    auto sys = trip::buildForProof(*out.s, binding, target, &err);
    if (!sys) refuse(fmt::format("it cannot be built with {} copies: {}", n, err));
    if (!sys->params_read.empty()) refuse("with the second loops' bound fixed, the schedule still reads a parameter");
    if (!trip::proofSemantics().cap_read_generations) {
      // the texts read without the caps: checked against the capped build
      const trip::ScopedReadCaps caps(true);
      auto capped = trip::buildForProof(*out.s, binding, target, &err);
      if (!capped || !trip::capsOnlyLowerReads(*sys, *capped))
        refuse(fmt::format("with {} copies, the caps change more than what reads mean", n));
    }
    out.sys = std::move(*sys);
    return out;
  };
  // the copies' ranges [begin, end) per process (1)
  auto ranges = [&](const Built& x, size_t p) {
    const auto& prog = x.sys.procs[p].program;
    const std::string& name = x.sys.procs[p].name;
    std::vector<std::pair<int, int>> out;
    const bool none = std::none_of(prog.begin(), prog.end(), [&](const Instr& in) {
      return std::any_of(x.copies.begin(), x.copies.end(), [&](const auto& c) { return c.count(in.stmt) > 0; });
    });
    if (none) {
      // a process that runs no copy (its role's loop has no op): its copies
      // are empty, where its second loop starts
      auto it = x.before.find(x.sys.procs[p].role);
      int e = 0;
      while (it != x.before.end() && e < static_cast<int>(prog.size()) && it->second.count(prog[e].stmt)) ++e;
      for (size_t pc = e; pc < prog.size(); ++pc)
        if (it != x.before.end() && it->second.count(prog[pc].stmt))
          refuse(fmt::format("{}'s instructions before its second loop are not a prefix of its program", name));
      out.assign(x.copies.size(), {e, e});
      return out;
    }
    for (size_t i = 0; i < x.copies.size(); ++i) {
      int lo = -1, hi = -1;
      for (size_t pc = 0; pc < prog.size(); ++pc)
        if (x.copies[i].count(prog[pc].stmt)) {
          if (lo < 0) lo = static_cast<int>(pc);
          else if (hi != static_cast<int>(pc)) refuse(fmt::format("{}'s copy {} is not contiguous", name, i));
          hi = static_cast<int>(pc) + 1;
        }
      if (lo < 0) refuse(fmt::format("{} runs no instruction of the loop", name));
      if (!out.empty() && out.back().second != lo) refuse(fmt::format("{}'s copies are not adjacent", name));
      // (the warm-up's copies may build fewer: a wait on an iteration below 0)
      if (static_cast<int>(i) >= h && hi - lo != out[h - 1].second - out[h - 1].first)
        refuse(fmt::format("{}'s copies build different numbers of instructions", name));
      out.push_back({lo, hi});
    }
    return out;
  };
  const std::vector<int64_t> rests = {0, 1, 2, 3, 4};
  std::vector<std::array<Built, 3>> sys;  // [rest][n - h]: S_h, S_(h+1), S_(h+2)
  for (int64_t r : rests) sys.push_back({build(h, r), build(h + 1, r), build(h + 2, r)});
  const size_t P = sys[0][0].sys.procs.size();
  for (const auto& row : sys)
    for (const Built& x : row)
      if (x.sys.procs.size() != P) refuse("the copies build different processes");
  // one numbering of the memory spaces (the builder numbers register
  // fragments in the order it meets them)
  {
    const System main = sys.back()[2].sys;
    try {
      for (auto& row : sys)
        for (Built& x : row) alignSpacesTo(x.sys, main);
    } catch (const Fail&) {
      refuse("the copy counts access different memory spaces");
    }
  }
  // instruction comparisons across systems: the statements by source position
  auto samePos = [](const Instr& a, const Instr& b) {
    return a.stmt->range.line == b.stmt->range.line && a.stmt->range.col == b.stmt->range.col;
  };
  auto same = [&](const Instr& a, const Instr& b) {
    if (!samePos(a, b)) return false;
    Instr u = b;
    u.stmt = a.stmt;
    u.iteration = a.iteration;
    u.loops = a.loops;
    return sameInstr(a, u);
  };
  Deltas d;
  // [x0, end of x) of x against [y0, end of y) of y, shifted by d
  auto shiftedFrom = [&](const std::vector<Instr>& x, int x0, const std::vector<Instr>& y, int y0, int n, int proc) {
    if (n < 0 && x.size() - x0 != y.size() - y0) return false;
    const size_t len = n >= 0 ? static_cast<size_t>(n) : x.size() - x0;
    Deltas trial = d;
    for (size_t i = 0; i < len; ++i) {
      if (!samePos(x[x0 + i], y[y0 + i])) return false;
      Instr u = y[y0 + i];
      u.stmt = x[x0 + i].stmt;
      if (!shiftedInstr(x[x0 + i], u, trial, proc)) return false;
    }
    d = std::move(trial);
    return true;
  };
  auto equalUpTo = [&](const std::vector<Instr>& x, const std::vector<Instr>& y, int n) {
    if (static_cast<int>(x.size()) < n || static_cast<int>(y.size()) < n) return false;
    for (int i = 0; i < n; ++i)
      if (!same(x[i], y[i])) return false;
    return true;
  };
  std::vector<std::vector<std::pair<int, int>>> at(P);  // S_(h+1)'s copies at T - X = 0, per process
  std::vector<char> ends_on_sync(P, 1);                 // every copy of the process ends on a named barrier's sync
  for (size_t ri = 0; ri < sys.size(); ++ri)
    for (size_t p = 0; p < P; ++p) {
      const Built &s0 = sys[ri][0], &s1 = sys[ri][1], &s2 = sys[ri][2];
      const auto r0 = ranges(s0, p), r1 = ranges(s1, p), r2 = ranges(s2, p);
      const auto &p0 = s0.sys.procs[p].program, &p1 = s1.sys.procs[p].program, &p2 = s2.sys.procs[p].program;
      const std::string name = s1.sys.procs[p].name;
      const int a = r0[h - 1].second - r0[h - 1].first;  // A_h's
      if (r1[h - 1].second - r1[h - 1].first != a || r2[h - 1].second - r2[h - 1].first != a)
        refuse(fmt::format("{}'s copies build different numbers of instructions", name));
      if (ri == 0) at[p] = r1;
      if (s1.sys.procs[p].grid_dep_wait_at >= 0) refuse("it waits for the preceding grid");
      // 1. the copies' instructions
      for (int pc = r1[0].first; pc < r1.back().second; ++pc) {
        const Instr& in = p1[pc];
        const bool allowed = in.kind == InstrKind::Generic || in.kind == InstrKind::Fence ||
                             in.kind == InstrKind::SyncArrive || in.kind == InstrKind::SyncWait ||
                             in.kind == InstrKind::BarArrive || in.kind == InstrKind::TmaStore ||
                             in.kind == InstrKind::StoreCommit || in.kind == InstrKind::StoreWait ||
                             in.kind == InstrKind::CpAsync || in.kind == InstrKind::CpAsyncCommit ||
                             in.kind == InstrKind::CpAsyncWait;
        // an mbarrier's plain arrivals and waits (a handshake per copy; no
        // transaction bytes, no load, no MMA commit)
        const bool handshake = in.kind == InstrKind::Wait || in.kind == InstrKind::Arrive;
        if ((!allowed && !handshake) || (in.slot >= 0 && !handshake) || in.grid_dep_early >= 0)
          refuse(fmt::format("it runs a {}", instrKindName(in.kind)));
      }
      // a copy that ends on a named barrier's sync (released there, its
      // process may stand in for one at the copy's end: 3)
      for (const auto& [lo, hi] : r1) {
        bool sync = hi - lo >= 2;
        if (sync) {
          const Instr &w = p1[hi - 1], &arr = p1[hi - 2];
          sync = w.kind == InstrKind::SyncWait && arr.kind == InstrKind::SyncArrive && w.named == arr.named &&
                 w.accesses.empty() && arr.accesses.empty() && w.regs_hazard.regs_space < 0 &&
                 arr.regs_hazard.regs_space < 0;
        }
        if (!sync) ends_on_sync[p] = false;
      }
      // 2. the texts up to a copy's end equal, after it shifted
      if (!equalUpTo(p1, p0, r0.back().second) || !equalUpTo(p2, p1, r1.back().second) ||
          !equalUpTo(p1, sys[0][1].sys.procs[p].program, r1.back().second))
        refuse(fmt::format("{}'s instructions up to a copy's end differ between the copy counts", name));
      if (!shiftedFrom(p0, r0.back().second, p1, r1.back().second, -1, static_cast<int>(p)) ||
          !shiftedFrom(p1, r1[h - 1].second, p2, r2[h].second, -1, static_cast<int>(p)))
        refuse(fmt::format("{}'s instructions after a copy are not those after one copy fewer, shifted", name));
      if (!shiftedFrom(p1, r1[h - 1].first, p1, r1[h].first, a, static_cast<int>(p)))
        refuse(fmt::format("{}'s copy {} is not copy {}, shifted", name, h + 1, h));
    }
  {
    std::vector<const System*> all;
    for (const auto& row : sys)
      for (const Built& x : row) all.push_back(&x.sys);
    try {
      checkLapDeltas(all, d, false);
    } catch (const Fail& f) {
      refuse(f.what());
    }
  }
  // 3, 4: S_(h+1) explored up to its last copy's end
  const System& two = sys[0][1].sys;
  std::vector<int> b(P), eh(P), w(P), e(P), a(P);  // first copy's begin, A_h's end, A_(h+1)'s wait and end
  for (size_t p = 0; p < P; ++p) {
    b[p] = at[p][0].first;
    eh[p] = at[p][h - 1].second;
    e[p] = at[p][h].second;
    w[p] = e[p] - 1;
    a[p] = e[p] - eh[p];
  }
  // named barrier generations per copy (A_(h+1)'s arrivals)
  std::map<int, int64_t> dnamed;
  {
    std::map<int, int64_t> warps;
    for (size_t p = 0; p < P; ++p)
      for (int pc = eh[p]; pc < e[p]; ++pc) {
        const Instr& in = two.procs[p].program[pc];
        if (in.kind == InstrKind::SyncArrive || in.kind == InstrKind::BarArrive) warps[in.named] += two.procs[p].warps;
      }
    for (const auto& [nb, n] : warps) {
      const int64_t ex = two.named[nb].expected_warps;
      if (ex <= 0 || n % ex != 0)
        refuse(fmt::format("a copy does not complete {} a whole number of times", two.named[nb].name));
      dnamed[nb] = n / ex;
    }
  }
  std::set<std::vector<int32_t>> cut_h;
  std::vector<std::vector<int32_t>> cut;
  // S_(h+1) (main: the second loops empty, so what follows them) or
  // another text from A_(h+1)'s end on (the second loops' first iteration;
  // S_(h+2)'s copy h + 2), explored with no process let past A_(h+1)'s end;
  // true when a process stood there while another was short of its end
  // and of a released wait (its next step was then disabled, 3)
  auto explore = [&](const System& xs, bool main) {
  const Model m(xs);
  auto pcAt = [&](const State& s, size_t q) { return sim::pcOf(m, s, static_cast<int>(q)); };
  auto allAt = [&](const State& s, const std::vector<int>& x) {
    for (size_t q = 0; q < P; ++q)
      if (pcAt(s, q) != x[q]) return false;
    return true;
  };
  // every process at the last copy's end, or at its wait released (3)
  auto atCut = [&](const State& s) {
    for (size_t q = 0; q < P; ++q) {
      const int pc = pcAt(s, q);
      if (pc == e[q]) continue;
      if (!ends_on_sync[q] || pc != w[q] ||
          s.v[m.off_named + 2 * m.instr(static_cast<int>(q), pc).named] <= s.v[m.off_sgen + q])
        return false;
    }
    return true;
  };
  // one copy back (4)
  auto back = [&](const State& s) -> std::optional<std::vector<int32_t>> {
    State n = s;
    for (size_t p = 0; p < P; ++p) n.v[m.off_pc + p] = eh[p];
    for (const auto& [nb, dn] : dnamed) n.v[m.off_named + 2 * nb] -= static_cast<int32_t>(dn);
    // each mbarrier's completions by one copy's (the texts' phase deltas)
    for (int k = 0; k < m.S; ++k)
      n.v[m.off_slot + sim::kSlotFields * k + sim::kCompleted] -= static_cast<int32_t>(Deltas::of(d.slot_phase, k));
    // 2: the last copy, 1: an earlier one, 0: before them
    auto region = [&](int p, int pc) { return pc >= eh[p] && pc < e[p] ? 2 : pc >= b[p] && pc < eh[p] ? 1 : 0; };
    for (int t = 0; t < m.tracked; ++t) {
      int32_t& id = n.v[sim::atomField(m, t, sim::kData)];
      if (id < 0) continue;
      const Model::WriteRef& wr = m.writes[id];
      const int reg = region(wr.proc, wr.pc);
      if (reg == 1) return std::nullopt;
      if (reg == 2) {
        id = m.write_id[wr.proc][wr.pc - a[wr.proc]][wr.acc];
        if (id < 0) return std::nullopt;
      } else if (d.viewMoves(m.access(wr.proc, wr.pc, wr.acc).view)) {
        return std::nullopt;
      }
    }
    Async as = sim::decodeAsync(m, s);
    auto move = [&](int p, int32_t& pc) {
      if (pc < 0) return true;
      const int reg = region(p, pc);
      if (reg == 2) pc -= a[p];
      return reg != 1;
    };
    for (sim::Load& l : as.loads) {
      l.phase -= static_cast<int32_t>(Deltas::of(d.slot_phase, m.instr(l.proc, l.pc).slot));
      if (!move(l.proc, l.pc)) return std::nullopt;
    }
    for (sim::Unobserved& u : as.unobserved) u.phase -= static_cast<int32_t>(Deltas::of(d.slot_phase, u.slot));
    for (size_t p = 0; p < P; ++p)
      for (int k = 0; k < sim::kGroupKinds; ++k)
        for (sim::Group& g : as.of(static_cast<int>(p), k)) {
          if (!move(static_cast<int>(p), g.commit_pc)) return std::nullopt;
          for (int32_t& x : g.pcs)
            if (!move(static_cast<int>(p), x)) return std::nullopt;
        }
    sim::encodeAsync(m, n, as);
    return n.v;
  };
  bool short_of_end = false;
  std::set<std::vector<int32_t>> seen;
  std::vector<State> todo{sim::initialState(m)};
  seen.insert(todo.front().v);
  while (!todo.empty()) {
    if (seen.size() > 100000) refuse("more than 100000 states up to the last copy's end");
    State s = std::move(todo.back());
    todo.pop_back();
    if (main && allAt(s, eh)) cut_h.insert(s.v);
    if (main && allAt(s, e)) {
      auto moved = back(s);
      if (!moved) refuse("a state after the copies holds an earlier copy's data or work, or data of a view that moves");
      cut.push_back(std::move(*moved));
    }
    bool parked = false, beyond = false;
    for (size_t p = 0; p < P; ++p) {
      parked |= pcAt(s, p) == e[p];
      beyond |= pcAt(s, p) > e[p];
    }
    const Async as = sim::decodeAsync(m, s);
    const std::vector<Step> enabled = sim::enabledSteps(m, s, as);
    if (parked && !beyond && !atCut(s)) {
      // a process at its end must wait for the others: its next step disabled
      for (const Step& st : enabled)
        if (st.kind == Step::Kind::Exec && st.pc >= e[st.proc])
          refuse("a process leaves the last copy while another has not reached its end");
      short_of_end = true;
    }
    {
      // the state's own rules (a lost phase); the processes at the end run on
      std::vector<Violation> found;
      sim::stateViolations(m, s, as, enabled, {}, found);
      if (!found.empty()) refuse(fmt::format("it meets {} in the copies", found.front().rule));
    }
    std::vector<Step> steps;
    for (const Step& st : enabled)
      if (st.kind != Step::Kind::Exec || st.pc < e[st.proc]) steps.push_back(st);
    if (steps.empty() && !allAt(s, e)) refuse("a process blocks in the copies");
    for (const Step& st : steps) {
      State next = s;
      std::vector<Violation> found;
      sim::applyStep(m, next, as, st, found, nullptr);
      if (!found.empty()) refuse(fmt::format("it meets {} in the copies", found.front().rule));
      if (seen.insert(next.v).second) todo.push_back(std::move(next));
    }
  }
  return short_of_end;
  };
  // the other texts past the end matter only where a process waited there
  const bool waited = explore(two, true);
  if (waited) {
    explore(sys[1][1].sys, false);
    explore(sys[0][2].sys, false);
  }
  how = waited ? "its processes hand off to one another in it, and a process past its end waits for every other's"
               : "every process runs it and ends it on a barrier";
  if (cut.empty()) refuse("no run reaches the last copy's end");
  for (const auto& c : cut)
    if (!cut_h.count(c)) refuse("a state after the copies, moved one copy back, is none after one copy fewer");
  more.clear();
  for (int n = 1; n <= h; ++n) {
    Built x;
    schedule(n, -1, x);
    more.push_back(x.s);
  }
  return h;
}

std::string proveSchedule(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                          const TripProofOptions& opts, ProofBudget& budget, uint64_t& states, TripLoops& tl,
                          std::vector<Binding>& bindings, const std::map<const ir::Expr*, int64_t>& dead = {});

// The proof of two cases, each under a budget check and with a fresh
// TripLoops and bindings (`bindings` starts as `checked`); a Fail names
// `prefix` and the case.
template <class F>
void proveTwoCases(ProofBudget& budget, const std::array<std::string, 2>& when, const std::string& prefix,
                   std::string (&engines)[2], F&& prove, const std::vector<Binding>* checked = nullptr) {
  for (int c = 0; c < 2; ++c) {
    checkBudget(budget, when[c]);
    TripLoops tl;
    std::vector<Binding> bindings = checked ? *checked : std::vector<Binding>{};
    try {
      engines[c] = prove(c, tl, bindings);
    } catch (const Fail& f) {
      throw Fail(fmt::format("{}{}: {}", prefix, when[c], f.what()));
    }
  }
}

// The bindings with 0 <= X <= T of a split (splitAtMonotoneGuard) as one
// loop whose iterations are of kind B below X and of kind A from X on, X in
// the lap state (docs/z3.md "A kind boundary in the lap state").
std::string proveKindBoundary(const SplitLoops& split, ir::Target target, const std::vector<Binding>& checked,
                              const TripProofOptions& opts, ProofBudget& budget, uint64_t& states) {
  const ir::Schedule& s = *split.whole;
  TripLoops tl = findTrip(s);
  if (!ir::sameExpr(*tl.trip, *split.loop_bound) || tl.scale != 1 || !tl.lo_expr.empty() || !tl.clamps.empty())
    throw Fail("the symbolic loops are not the tile loops of the split, from 0 by 1");
  std::set<int> vars;
  for (const auto& [var, lo] : tl.lo) vars.insert(var);
  KindBoundary kb(split.at, vars);
  tl.guards = &kb.hook;
  bool below = false;
  const Limits limits = solverLimits(opts, budget);
  kb.x = 0;
  const bool only_bounds = buildAt(s, checked.front(), target, tl, opts.first_window).replace_uses.empty();
  const int64_t t0 = lowestTrip(s, tl, checked, only_bounds, limits,
                                [&](int64_t T) { return buildAt(s, checked.front(), target, tl, T); }, below);
  if (t0 < 0 || below) throw Fail(fmt::format("{} may be negative", ir::exprToString(*tl.trip, s)));
  int64_t max_stages = 1;
  for (const ir::View& v : s.views) max_stages = std::max<int64_t>(max_stages, v.stages);
  for (const ir::Barrier& b : s.barriers) max_stages = std::max<int64_t>(max_stages, b.count);
  for (int64_t W = std::max<int64_t>({opts.first_window, t0 + 8, 2 * max_stages + 8});; W *= 2) {
    if (W > std::min<int64_t>(opts.max_window, 48))
      throw Fail(fmt::format("no steady period within {} unrolled iterations", W / 2));
    try {
      return attemptKinds(s, target, checked.front(), tl, kb, t0, W, opts, budget, states);
    } catch (const WindowTooSmall&) {
      continue;
    }
  }
}

// The kind boundary's proof (for 0 <= X <= T) and the clamped cases
// outside it: X <= 0 (every guard true) and X >= T (every guard false),
// each a copy proved for every binding where not shown impossible.
std::string proveKindCases(const SplitLoops& split, const std::string& kinds, ir::Target target,
                           const std::vector<Binding>& checked, const TripProofOptions& opts, ProofBudget& budget,
                           uint64_t& states) {
  const std::string X = ir::exprToString(*split.at, *split.whole);
  const std::string T = ir::exprToString(*split.loop_bound, *split.whole);
  auto proveCase = [&](const ir::Schedule& copy, const std::string& when) {
    checkBudget(budget, when);
    TripLoops tl;
    std::vector<Binding> bindings = checked;
    try {
      return fmt::format("; for {}: {}", when, proveSchedule(copy, target, checked, opts, budget, states, tl, bindings));
    } catch (const Fail& f) {
      throw Fail(fmt::format("{}: {}: {}", split.text, when, f.what()));
    }
  };
  std::string out = fmt::format("{}, a kind boundary (the guard's iterations of either kind in one loop): for 0 <= {} "
                                "<= {}: {}",
                                split.text, X, T, kinds);
  if (!split.from_zero) out += proveCase(*split.none, X + " <= 0");
  if (!split.to_end) out += proveCase(*split.all_first, fmt::format("{} >= {}", X, T));
  return out;
}

// The two cases of a split (splitAtMonotoneGuard). Every allowed binding
// has X = 0 or X >= 1; a violation met in a case is unknown (the bounded
// check decides), as in the guard cases.
std::string proveSplitCases(const SplitLoops& split, ir::Target target, const std::vector<Binding>& checked,
                            const TripProofOptions& opts, ProofBudget& budget, uint64_t& states) {
  const std::string X = ir::exprToString(*split.at, *split.some);
  int shared = 0;  // the warm-up of a loop every process runs (0: private)
  std::string how;  // how its processes meet at the cut
  bool uncapped = false;  // the cut's texts read without the caps, the bounded check's semantics refused
  std::vector<std::shared_ptr<ir::Schedule>> more;
  try {
    for (const SplitLoops::Prefix& pre : split.prefixes) privatePrefixRunsAsOne(*split.some, pre, target, checked.front());
  } catch (const Fail& f) {
    // not private: the loops of every process together, cut at a barrier;
    // as this proof reads them, then (where that is with the caps) without
    // them
    std::string why;
    const int passes = trip::proofSemantics().cap_read_generations ? 2 : 1;
    for (int pass = 0; pass < passes && !shared; ++pass) {
      std::optional<trip::ScopedReadCaps> no_caps;
      if (pass == 1) no_caps.emplace(false);
      for (int h = 1; h <= 3 && !shared; ++h) {
        checkBudget(budget, "the empty tiles' loop");
        try {
          shared = sharedPrefixRunsAsOne(split, target, checked.front(), more, h, how);
        } catch (const Fail& g) {
          if (h == 1 && pass == 0) why = g.what();
        }
      }
      uncapped = shared && pass == 1;
    }
    if (!shared) {
      // not a split: one loop with the kind boundary in the lap state
      std::string kinds;
      try {
        kinds = proveKindBoundary(split, target, checked, opts, budget, states);
      } catch (const Met&) {
        throw;
      } catch (const Fail& k) {
        throw Fail(fmt::format("{}: {}; {}; as a kind boundary: {}", split.text, f.what(), why, k.what()));
      }
      return proveKindCases(split, kinds, target, checked, opts, budget, states);
    }
  }
  // S_h, the induction's base, read as the cut's texts were (its runs
  // clean without the caps are clean with them: docs/z3.md "The empty
  // tiles' copies read without the caps")
  TripProofOptions uncapped_opts = opts;
  uncapped_opts.build.cap_read_generations = false;
  auto proveUncapped = [&](const ir::Schedule& x, TripLoops& tl, std::vector<Binding>& bindings) {
    const trip::ScopedReadCaps no_caps(false);
    return proveSchedule(x, target, checked, uncapped_opts, budget, states, tl, bindings);
  };
  std::string engines[2];
  const std::string none_when = X + (split.none_decided ? " <= 0" : " = 0");
  proveTwoCases(budget, {"with " + none_when, fmt::format("with {} >= 1", X)}, split.text + ": ", engines,
                [&](int c, TripLoops& tl, std::vector<Binding>& bindings) {
                  // (a shared loop: S_1, X read as 1)
                  const ir::Schedule& one = shared ? *more.front() : *split.some;
                  if (c == 1 && uncapped && shared == 1) return proveUncapped(one, tl, bindings);
                  return proveSchedule(c == 0 ? *split.none : one, target, checked, opts, budget, states, tl, bindings);
                }, &checked);
  // one more case's copy, proved for every allowed binding (S_h without
  // the caps where the cut's texts were read so)
  auto proveCase = [&](const ir::Schedule& copy, const std::string& when, bool without_caps = false) {
    checkBudget(budget, when);
    TripLoops tl;
    std::vector<Binding> bindings = checked;
    try {
      if (without_caps) return proveUncapped(copy, tl, bindings);
      return proveSchedule(copy, target, checked, opts, budget, states, tl, bindings);
    } catch (const Fail& f) {
      throw Fail(fmt::format("{}: {}: {}", split.text, when, f.what()));
    }
  };
  // X >= T (not shown impossible): the whole loop below the split point
  std::string all_first;
  if (split.all_first) {
    const std::string T = ir::exprToString(*split.loop_bound, *split.some);
    all_first = fmt::format("; for {} >= {}, every guard false: {}", X, T,
                            proveCase(*split.all_first, fmt::format("with {} >= {}", X, T)));
  }
  // the warm-up's schedules: the first loops' bodies 2..h times
  for (size_t i = 1; i < more.size(); ++i)
    proveCase(*more[i], fmt::format("with {} = {}", X, i + 1), uncapped && i + 1 == more.size());
  const std::string clamp = split.clamped ? " clamped to the loop's range" : "";
  if (shared)
    return fmt::format("{}{} (the guard decided in each loop): for {}: {}; for {} >= 1, the empty tiles' loop "
                       "run {} time{} ({}: each run passes a cut after each iteration, and {} iterations reach the "
                       "states of {}; {} = 1..{} proved each{}): {}{}",
                       split.text, clamp, none_when, engines[0], X, shared, shared == 1 ? "" : "s", how, shared + 1,
                       shared, X, shared,
                       uncapped ? fmt::format(", the copies and {} = {} with reads without the caps", X, shared) : "",
                       engines[1], all_first);
  return fmt::format("{}{} (the guard decided in each loop): for {}: {}; for {} >= 1, the empty tiles' loop "
                     "run once: {}{}",
                     split.text, clamp, none_when, engines[0], X, engines[1], all_first);
}

// The parameters that loop bounds read and that the lm.assume facts allow
// at most max_fixed_values values of (`finite`: proved value by value), and
// whether some loop's bound, start or step reads another (`symbolic`; a
// loop that runs no iteration, `dead`, aside).
struct FiniteLoopParams {
  std::set<int> finite;
  bool symbolic = false;
};

FiniteLoopParams finiteLoopParams(const ir::Schedule& s, const TripProofOptions& opts, ProofBudget& budget,
                                  const std::map<const ir::Expr*, int64_t>& dead, ValueListings* known = nullptr) {
  const Limits limits = solverLimits(opts, budget);
  FiniteLoopParams out;
  std::set<int> tried;
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
          allowedAssignments(s, {p}, limits, opts.max_fixed_values, {}, known);
          out.finite.insert(p);
        } catch (const Fail&) {
        }
      }
  out.symbolic = std::any_of(loops.begin(), loops.end(), [&](const ir::Stmt* st) {
    if (st->hi && dead.count(st->hi.get())) return false;
    for (const ir::ExprPtr& e : {st->lo, st->hi, st->step})
      if (e)
        for (int p : paramsOf(*e))
          if (!out.finite.count(p)) return true;
    return false;
  });
  return out;
}

// Two loops one after the other in a role (MergedLoops) with no tile loop
// around a K loop: the merged copy, which builds the schedule's systems for
// every binding (each iteration of the one loop runs the first body below
// the first bound, else the second), proved as any schedule (one K loop:
// lap induction; docs/z3.md "Loops bounded by the block index: the index
// as a parameter"). Whatever the copy's proof throws is a plain Fail here,
// as for loopsInBlocks: a violation met is no finding (the bounded check
// decides).
std::string proveMergedLoops(const MergedLoops& merged, ir::Target target, const std::vector<Binding>& checked,
                             const TripProofOptions& opts, ProofBudget& budget, uint64_t& states,
                             const std::map<const ir::Expr*, int64_t>& dead) {
  TripLoops each;
  std::vector<Binding> bindings = checked;
  try {
    return fmt::format("two loops ({}) as one, each iteration either body: {}", merged.text,
                       proveSchedule(*merged.s, target, checked, opts, budget, states, each, bindings, dead));
  } catch (const Fail& f) {
    Fail plain(fmt::format("two loops ({}) as one: {}", merged.text, f.what()));
    plain.witnesses = f.witnesses;
    throw plain;
  }
}

// The parameters that loop bounds read and that the lm.assume facts allow
// at most max_equivalent_values values of, listed as far as "Parameters
// read only in sizes" lists them; `symbolic` as in finiteLoopParams.
FiniteLoopParams fewValuedLoopParams(const ir::Schedule& s, const TripProofOptions& opts, ProofBudget& budget,
                                     const std::map<const ir::Expr*, int64_t>& dead, ValueListings* known = nullptr) {
  TripProofOptions listed = opts;
  listed.max_fixed_values = std::max(opts.max_fixed_values, opts.max_equivalent_values);
  return finiteLoopParams(s, listed, budget, dead, known);
}

// A tile loop around loops whose bounds read only parameters with few
// allowed values (FlashInfer's persistent merge: `lm.cdiv(n_sets, 4)` with
// 0 <= n_sets <= 64 inside the tile loop over the CTA's work items), asked
// last, when every other form refused the schedule (`refused`: why; thrown
// when this one does not apply either): with those parameters fixed, every
// allowed value in turn (up to max_equivalent_values), the inner loops have
// constant bounds and the builder unrolls them, so the tile loop is the one
// symbolic loop and each value's proof is the one-loop argument over it
// (docs/z3.md "A tile loop around loops bounded by few values"). The values
// are listed exactly, so the proofs together cover every binding. The
// argument in one line, or throws (a Met as the one-loop argument's; any
// other failure with `refused` in front).
std::string proveTilesPerInnerValue(const Fail& refused, const ir::Schedule& s, ir::Target target,
                                    const std::vector<Binding>& checked, const TripProofOptions& opts,
                                    ProofBudget& budget, uint64_t& states, TripLoops& tl,
                                    std::vector<Binding>& bindings) {
  bool one_trip = true;  // one trip expression: the one-loop argument listed its other parameters already
  try {
    findTrip(s);
  } catch (const Fail&) {
    one_trip = false;
  }
  if (one_trip) throw refused;
  ValueListings known;  // (the parameters' values, listed once for the four listings below)
  const FiniteLoopParams few = fewValuedLoopParams(s, opts, budget, {}, &known);
  // (the parameters with at most max_fixed_values values were fixed before)
  if (!few.symbolic || few.finite.empty() || few.finite == finiteLoopParams(s, opts, budget, {}, &known).finite)
    throw refused;
  try {
    tl = findTrip(s, few.finite);
  } catch (const Fail&) {
    throw refused;
  }
  std::string names;
  for (int p : few.finite) names += fmt::format("{}{}", names.empty() ? "" : ", ", s.params[p].name);
  const std::string what = fmt::format("the loops bounded by {} unrolled value by value", names);
  // each tile runs the unrolled inner loops whole: the window need not hold
  // twice the stage count in tiles (TripProofOptions::least_window)
  TripProofOptions tiles = opts;
  tiles.least_window = true;
  try {
    return fmt::format("{}: {}", what,
                       proveEachAssignment(s, target, checked, tl, tiles, budget, states, bindings, &known));
  } catch (const Met&) {
    throw;
  } catch (const Fail& f) {
    Fail both(fmt::format("{}; {}: {}", refused.what(), what, f.what()));
    both.witnesses = refused.witnesses;
    both.witnesses.insert(both.witnesses.end(), f.witnesses.begin(), f.witnesses.end());
    throw both;
  }
}

std::string proveScheduleAsWritten(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                                   const TripProofOptions& opts, ProofBudget& budget, uint64_t& states, TripLoops& tl,
                                   std::vector<Binding>& bindings, const std::map<const ir::Expr*, int64_t>& dead) {
  try {
    tl = findTrip(s, {}, dead);
  } catch (const Fail&) {
    // Loops bounded by different expressions: those whose parameters the
    // lm.assume facts allow few values of are proved value by value.
    const Limits limits = solverLimits(opts, budget);
    const FiniteLoopParams fl = finiteLoopParams(s, opts, budget, dead);
    const std::set<int>& finite = fl.finite;
    // No loop bound, start or step reads a parameter other than those
    // proved value by value: each system explored whole (proveUnlooped).
    if (!fl.symbolic) return proveUnlooped(s, target, checked, opts, budget, states, dead);
    if (finite.empty()) {
      // A persistent kernel: a tile loop around a K loop (docs/z3.md);
      // or two tile loops one after the other, as one (MergedLoops).
      auto tiles = findTileLoops(s);
      // a K loop with its last iteration peeled (one role's) as the loop's
      // own; one with its first iteration peeled (a prologue of some of its
      // body's statements) as the loop's own, the rest under `if j > L - 1:`
      std::string peeled, peeled_first;
      std::shared_ptr<ir::Schedule> unpeeled;
      if (!tiles) {
        unpeeled = unpeelLastIterations(s, limits, &peeled);
        if (auto f = unpeelFirstIterations(unpeeled ? *unpeeled : s, limits, &peeled_first)) unpeeled = std::move(f);
        if (unpeeled) tiles = findTileLoops(*unpeeled);
        if (!tiles) unpeeled.reset();
      }
      // ring indices read by their canonical form (the same loops: only
      // expressions that hide a `t * E_B` are spelled anew)
      std::shared_ptr<ir::Schedule> by_form = tiles ? ringIndicesByForm(unpeeled ? *unpeeled : s, *tiles) : nullptr;
      if (by_form) {
        if (auto again = findTileLoops(*by_form)) tiles = again;
        else by_form.reset();
      }
      std::optional<MergedLoops> merged;
      if (!tiles) {
        merged = mergeTwoTileLoops(s, limits);
        if (merged) tiles = findTileLoops(*merged->s, merged->guard);
        if (merged && !tiles) return proveMergedLoops(*merged, target, checked, opts, budget, states, dead);
        if (!tiles && !merged)
          if (auto split = splitAtMonotoneGuard(s, limits))
            return proveSplitCases(*split, target, checked, opts, budget, states);
        if (!tiles) throw;
      }
      std::string engine;
      try {
        engine = provePersistent(merged ? *merged->s : by_form ? *by_form : unpeeled ? *unpeeled : s, target, checked,
                                 *tiles, opts, budget, states);
      } catch (const Met&) {
        throw;
      } catch (const InnerMayBeEmpty&) {
        throw;
      } catch (const Fail& f) {
        if (merged || unpeeled || !budget.exhausted().empty() || kResidueCases(by_form ? *by_form : s, *tiles).empty()) throw;
        engine = proveResidueCases(by_form ? *by_form : s, target, checked, *tiles, opts, budget, states, f.what());
      }
      if (merged) engine = fmt::format("two tile loops ({}) as one, each tile either body: {}", merged->text, engine);
      if (unpeeled && !peeled_first.empty())
        engine = fmt::format("a K loop's first iteration peeled ({}) as the loop's own: {}", peeled_first, engine);
      if (unpeeled && !peeled.empty())
        engine = fmt::format("a K loop's last iteration peeled ({}) as the loop's own: {}", peeled, engine);
      return engine;
    }
    tl = findTrip(s, finite, dead);
  }
  std::vector<trip::GuardOutcome> guards;
  try {
    return proveEachAssignment(s, target, checked, tl, opts, budget, states, bindings);
  } catch (const TooManyValues&) {
    // Unbounded parameters read only by guards (`if M > N:`): one proof per
    // outcome of the guards instead of one per value (trip_guards.h).
    BvProver prover(s, solverLimits(opts, budget));
    // (guards that read the instance: one outcome per instance, the
    // vectors no allowed binding gives left out)
    const trip::Possible possible = [&](const std::vector<ir::ExprPtr>& lits) {
      checkBudget(budget, "enumerating the guards' outcomes");
      ir::ExprPtr conj = ir::makeConst(1);
      for (const ir::ExprPtr& l : lits) conj = ir::makeExpr(ir::ExprKind::And, {conj, l});
      return outcomesPossible(s, prover, conj, {}, solverLimits(opts, budget));
    };
    guards = trip::guardOutcomes(
        s, [&](const ir::ExprPtr& g) { return holdsForEveryBinding(s, prover, g, solverLimits(opts, budget)); }, 5,
        &possible);
    if (guards.empty()) {
      // a guard `k < X` on the loop variable, X unbounded: the loop split there
      if (auto split = splitAtMonotoneGuard(s, solverLimits(opts, budget)))
        return proveSplitCases(*split, target, checked, opts, budget, states);
      throw;
    }
  }
  std::string first;
  for (const trip::GuardOutcome& g : guards) {
    tl.guards = &g.hook;
    try {
      std::string engine = proveEachAssignment(s, target, checked, tl, opts, budget, states, bindings);
      if (first.empty()) first = std::move(engine);
    } catch (const Fail& f) {
      // Met too: the outcomes need not be ones the lm.assume facts
      // allow together, so a violation under them is no finding.
      throw Fail(fmt::format("with {}: {}", g.text, f.what()));
    }
  }
  tl.guards = nullptr;
  return fmt::format("for each outcome of the guards ({} cases): {}{}", guards.size(), first,
                     guards.size() > 1 ? " (shown for the first)" : "");
}

// The schedule's passes read as tiles (passesAsTiles), proved as a
// persistent kernel with a kind per tile: the copy's system at P1 = P2 = 1
// is the schedule's for every binding, so the copy's proof is the
// schedule's. `first`: why the schedule as written was not proved. What
// the copy's proof throws is a plain Fail (a violation met there may need
// other tile counts: no finding; the bounded check decides).
std::string provePassTiles(const Fail& first, const PassTiles& passes, ir::Target target,
                           const std::vector<Binding>& checked, const TripProofOptions& opts, ProofBudget& budget,
                           uint64_t& states) {
  try {
    const std::optional<TileLoops> tiles = findTileLoops(*passes.s, passes.guard);
    if (!tiles) throw Fail("not a tile loop around one K loop per kind");
    std::vector<Binding> at_one = checked;
    for (Binding& b : at_one) b.params[passes.first] = b.params[passes.later] = 1;
    return fmt::format("{}: {}", passes.text,
                       provePersistent(*passes.s, target, at_one, *tiles, opts, budget, states));
  } catch (const Fail& g) {
    Fail both(fmt::format("{}; {}: {}", first.what(), passes.text, g.what()));
    both.witnesses = first.witnesses;  // the copy's name P1 and P2
    throw both;
  }
}

// The schedule's segments read as tiles (segmentsAsTiles), proved as a
// persistent kernel of exactly n tiles. The persistent proof explores every
// run of the copy's grid in which tile t runs its own B_t >= 1 K iterations
// from the ring start B_0 + ... + B_(t-1) (read for `p * B`), with the tile
// count fixed to n (no tile shift; one exploration of every length). A run
// of the schedule at a binding is the one with B_j = L_j: in tile j every
// expression of the copy has the value it has in segment j (onTheRing; the
// parts between segments and around them are the schedule's), provided
// every L_j >= 1, which the facts must show (an empty segment is a tile of
// no iteration, which the exploration does not run: unknown). `first`: why
// the schedule as written was not proved. What the copy's proof throws is a
// plain Fail (a violation met there may need lengths no binding gives; the
// bounded check decides).
std::string proveSegmentTiles(const Fail& first, const ir::Schedule& s, const SegmentTiles& segs, ir::Target target,
                              const std::vector<Binding>& checked, const TripProofOptions& opts,
                              ProofBudget& budget, uint64_t& states) {
  try {
    {
      FactProver prover(s, solverLimits(opts, budget), {});
      std::map<int, std::optional<int64_t>> lb;
      for (size_t j = 0; j < segs.lengths.size(); ++j)
        if (!atLeast(prover, segs.lengths[j], 1, lb))
          throw Fail(fmt::format("the schedule's assumptions do not keep segment {}'s length {} from being below 1 "
                                 "(an empty segment: not covered)",
                                 j + 1, ir::exprToString(*segs.lengths[j], s)));
    }
    std::optional<TileLoops> tiles = findTileLoops(*segs.s, nullptr, segs.guards);
    if (!tiles) throw Fail("not a tile loop around one K loop");
    tiles->fixed_tiles = static_cast<int64_t>(segs.lengths.size());
    std::vector<Binding> bindings = checked;
    for (Binding& b : bindings) {
      b.params[segs.tp.count] = tiles->fixed_tiles;
      b.params[segs.tp.length] = 1;
    }
    return fmt::format("{}: {}", segs.text, provePersistent(*segs.s, target, bindings, *tiles, opts, budget, states));
  } catch (const Fail& g) {
    Fail both(fmt::format("{}; {}: {}", first.what(), segs.text, g.what()));
    both.witnesses = first.witnesses;  // the copy's name NT and B
    throw both;
  }
}

// The schedule's sibling tile loops read as one persistent kernel
// (nestsAsTiles), proved with a kind per tile. The persistent proof
// explores every run of the copy in which tile p runs its own B_p >= 1 K
// iterations from the ring start B_0 + ... + B_(p-1) (read for `p * B`;
// every length in one exploration, TileLoops::own_lengths), for every tile
// count, each tile of either kind in tile order (the kinds filter: kind 0
// exactly below one boundary J per run). A run of the schedule at a binding
// is the one with NT = T_0 + max(T_1, 0) tiles, J = T_0, B_p = L_0 below T_0
// and L_1 from there: tile p of kind j is the schedule's tile p - P_j of
// nest j, every expression of the same value (nestOnTheRing), provided T_0
// >= 0 (else nest 1's tile t is not the copy's tile T_0 + t) and every L_j
// >= 1 (a tile of no iteration is not explored), which the facts must show.
// `first`: why the schedule as written was not proved. What the copy's
// proof throws is a plain Fail (a violation met there may need lengths or
// kinds no binding gives; the bounded check decides).
std::string proveNestTiles(const Fail& first, const ir::Schedule& s, const NestTiles& nests, ir::Target target,
                           const std::vector<Binding>& checked, const TripProofOptions& opts, ProofBudget& budget,
                           uint64_t& states) {
  try {
    // The exploration has one tile count and one end per tile index for all
    // its processes; the CTAs of a modelled cluster may run different counts
    // and, at one tile index, tiles of different kinds and lengths (T_0 may
    // read lm.block_idx, and the guard is never evaluated, so no read of it
    // would refuse the proof).
    if (s.cluster_ops && s.clusterSize() > 1)
      throw Fail("a modelled cluster: its CTAs may run tiles of different kinds and lengths at one tile index (not "
                 "covered)");
    {
      FactProver prover(s, solverLimits(opts, budget), {});
      std::map<int, std::optional<int64_t>> lb;
      if (!provedNonNeg(prover, nests.tiles[0], lb))
        throw Fail(fmt::format("the schedule's assumptions do not keep the first tile loop's count {} from being below "
                               "0",
                               ir::exprToString(*nests.tiles[0], s)));
      for (size_t j = 0; j < nests.lengths.size(); ++j)
        if (!atLeast(prover, nests.lengths[j], 1, lb))
          throw Fail(fmt::format("the schedule's assumptions do not keep tile loop {}'s K trip count {} from being "
                                 "below 1 (a tile of no iteration: not covered)",
                                 j + 1, ir::exprToString(*nests.lengths[j], s)));
    }
    std::optional<TileLoops> tiles = findTileLoops(*nests.s, nests.guard);
    if (!tiles) throw Fail("not a tile loop around one K loop per kind");
    tiles->own_lengths = true;
    std::vector<Binding> bindings = checked;
    for (Binding& b : bindings) b.params[nests.tp.count] = b.params[nests.tp.length] = 1;
    return fmt::format("{}: {}", nests.text, provePersistent(*nests.s, target, bindings, *tiles, opts, budget, states));
  } catch (const Fail& g) {
    Fail both(fmt::format("{}; {}: {}", first.what(), nests.text, g.what()));
    both.witnesses = first.witnesses;  // the copy's name NT and B
    throw both;
  }
}

// ---------------------------------------------------------------- tiles a guard skips in every role
// (docs/z3.md "Tiles a guard skips in every role, each tile its own K
// count", helper tlx46, session 46)

// A persistent split-K kernel walks tiles whose K range may be empty and
// skips those in every role (TLX's `if k_tile_end > k_tile_start:`, PR
// #1141): every symbolic loop is a tile loop `for n in lm.range(0, E_A)`
// (a statement of its role body, one E_A) whose body is one `if G:` (no
// else, one G in every role), and the K loops under it that read n are
// bounded by one F with G implying F >= 1. The copy: each tile loop's body
// is the guard's, every such K bound a fresh parameter B >= 1.
struct SkippedTiles {
  std::shared_ptr<ir::Schedule> s;
  int length = -1;  // B's parameter index
  std::string text;
};

// The builder evaluates an op's coordinates only for a global tensor the
// CTA both reads and writes (System's addGlobal): elsewhere they are data.
bool coordsEvaluated(const ir::Op& o, const std::set<int>& rw) {
  for (const ir::BufferRef* r : {&o.dst, &o.src, &o.src2})
    if (r->kind == ir::BufferRef::Kind::Param && rw.count(r->index)) return true;
  return false;
}

// Does an expression of b that the builder evaluates read loop variable v
// or hold `tiles` (a read of the tile count, which the persistent proof
// takes as the count of the tiles it explores)?
bool evaluatesTileIndexOrCount(const ir::Block& b, int v, const ir::Expr& tiles, const std::set<int>& rw) {
  return std::any_of(b.begin(), b.end(), [&](const ir::Stmt& st) {
    ir::Block one{st};
    one.front().body.clear();
    one.front().orelse.clear();
    if (st.kind == ir::Stmt::Kind::Op && !coordsEvaluated(st.op, rw)) one.front().op.coords.clear();
    bool reads = false;
    mapExprs(one, [&](const ir::ExprPtr& e) {
      if (e && (ir::dependsOnLoopVar(*e, v) || containsExpr(*e, tiles))) reads = true;
      return e;
    });
    return reads || evaluatesTileIndexOrCount(st.body, v, tiles, rw) ||
           evaluatesTileIndexOrCount(st.orelse, v, tiles, rw);
  });
}

// G => F >= 1 for every value: G is `a > b` (`b < a`) or `a >= b` (`b <=
// a`) and F - (a - b) a constant d with d >= 0, or d >= 1 for `>=`.
bool guardKeepsTripPositive(const ir::Expr& g, const ir::Expr& f) {
  using K = ir::ExprKind;
  if (g.args.size() != 2 || !g.args[0] || !g.args[1]) return false;
  const bool strict = g.kind == K::Gt || g.kind == K::Lt;
  if (!strict && g.kind != K::Ge && g.kind != K::Le) return false;
  const bool left_big = g.kind == K::Gt || g.kind == K::Ge;
  const ir::ExprPtr diff = ir::makeExpr(K::Sub, {g.args[left_big ? 0 : 1], g.args[left_big ? 1 : 0]});
  const std::optional<int64_t> d = ir::constantDifference(f, *diff);
  return d && *d >= (strict ? 0 : 1);
}

bool sameValue(const ir::Expr& a, const ir::Expr& b) { return ir::sameExpr(a, b) || ir::equalForAllValues(a, b); }

// Every loop under a tile's guard whose bound reads the tile variable n
// gets B for its bound (its F, with n read as n0, is the first met, every
// other the same).
bool ownTripBounds(ir::Block& b, int n, int n0, ir::ExprPtr& F, const ir::ExprPtr& B) {
  for (ir::Stmt& st : b) {
    if (!ownTripBounds(st.body, n, n0, F, B) || !ownTripBounds(st.orelse, n, n0, F, B)) return false;
    if (st.kind != ir::Stmt::Kind::For || !st.hi || !ir::dependsOnLoopVar(*st.hi, n)) continue;
    const ir::ExprPtr f = renameLoopVar(st.hi, n, n0);
    if (!F) F = f;
    if (!sameValue(*F, *f)) return false;
    st.hi = B;
  }
  return true;
}

// Does a statement of the copy outside its tile loops hold the tile count
// E_A (the part before the tile loops or after them, the exit path)? The
// persistent proof reads E_A there as the count of the tiles it explores,
// which in the copy is the count of kept tiles, not the schedule's E_A: a
// producer tail `lm.wait(tmem_empty, iter=S)` after the tile loop waits for
// a release per split and hangs where a split is skipped, and read as the
// kept count it was proved (helper sound47).
bool readsTileCountOutsideTileLoops(const ir::Schedule& copy, const ir::Expr& tiles, const std::set<int>& rw) {
  for (const ir::RoleBody& body : copy.bodies)
    for (const ir::Stmt& st : body.body) {
      const bool tile_loop = st.kind == ir::Stmt::Kind::For && st.hi && ir::sameExpr(*st.hi, tiles);
      if (!tile_loop && evaluatesTileIndexOrCount(ir::Block{st}, -1, tiles, rw)) return true;
    }
  return false;
}

std::optional<SkippedTiles> skippedTiles(const ir::Schedule& s) {
  using K = ir::ExprKind;
  auto out = std::make_shared<ir::Schedule>(s);
  const int length = static_cast<int>(out->params.size());
  const ir::ExprPtr B = symbolNode(K::Param, length);
  const std::set<int> rw = readAndWrittenTensors(s);
  ir::ExprPtr tiles, guard, F;  // (G and F read the first tile loop's variable n0)
  int n0 = -1;
  for (ir::RoleBody& body : out->bodies) {
    for (ir::Stmt& st : body.body) {
      if (st.kind != ir::Stmt::Kind::For || !st.hi || !mentionsParam(*st.hi)) {
        // no symbolic loop outside the tile loops
        std::vector<const ir::Stmt*> loops;
        collectLoops(ir::Block{st}, loops);
        if (std::any_of(loops.begin(), loops.end(), [](const ir::Stmt* l) { return l->hi && mentionsParam(*l->hi); }))
          return std::nullopt;
        continue;
      }
      if (ir::constValue(st.lo) != 0 || (st.step && ir::constValue(st.step) != 1) || !st.orelse.empty() ||
          st.body.size() != 1 || st.body[0].kind != ir::Stmt::Kind::If || !st.body[0].orelse.empty())
        return std::nullopt;
      if (n0 < 0) n0 = st.loop_var;
      const ir::ExprPtr g = st.body[0].cond ? renameLoopVar(st.body[0].cond, st.loop_var, n0) : nullptr;
      if (!g || ir::exprUses(*g, {K::Instance}) || (tiles && !ir::sameExpr(*tiles, *st.hi)) ||
          (guard && !sameValue(*guard, *g)))
        return std::nullopt;
      tiles = st.hi;
      guard = g;
      ir::Block inner = std::move(st.body[0].body);
      if (!ownTripBounds(inner, st.loop_var, n0, F, B) || evaluatesTileIndexOrCount(inner, st.loop_var, *tiles, rw))
        return std::nullopt;
      st.body = std::move(inner);
    }
  }
  if (!tiles || !F || !guardKeepsTripPositive(*guard, *F) || readsTileCountOutsideTileLoops(*out, *tiles, rw))
    return std::nullopt;
  out->params.push_back({"B", ir::ParamType::I32, s.range});
  out->assumes.push_back({ir::makeExpr(K::Ge, {B, ir::makeConst(1)}), s.range});
  if (!trip::sameDerivedTx(s, *out)) return std::nullopt;
  return SkippedTiles{out, length,
                      fmt::format("the tiles where {} is false skipped in every role, each other tile its own K trip "
                                  "count B >= 1 for {}",
                                  ir::exprToString(*guard, s), ir::exprToString(*F, s))};
}

// The copy (skippedTiles) proved by the persistent argument with every
// tile its own length (TileLoops::own_lengths), for every tile count: a run
// of the schedule at a binding is the copy's run with A = the number of
// tiles whose guard holds and B_j = F at the j-th of them. In every role
// and instance the same tiles are skipped (one E_A, one G that reads no
// lm.instance()), a skipped tile runs nothing (its body is the guard, with
// no else), and a kept one runs the guard's block with F >= 1 K
// iterations, whose evaluated expressions read the tile variable nowhere
// but in F (coordinates of a tensor the CTA does not both read and write
// are not evaluated), so its operations are the copy's tile j with B = F,
// the loop values instructions carry apart (an injective map, n to j).
// `first`: why the schedule as written was not proved. What the copy's
// proof throws is a plain Fail (a violation met there may need lengths no
// binding gives; the bounded check decides).
std::string proveSkippedTiles(const Fail& first, const ir::Schedule& s, const SkippedTiles& sk, ir::Target target,
                              const std::vector<Binding>& checked, const TripProofOptions& opts, ProofBudget& budget,
                              uint64_t& states) {
  try {
    // (the CTAs of a modelled cluster may skip different tiles at one tile index)
    if (s.cluster_ops && s.clusterSize() > 1)
      throw Fail("a modelled cluster: its CTAs may skip different tiles (not covered)");
    // (a K loop with its first iteration peeled, from 1 after a prologue:
    // the loop it spells, as on the path of the schedule as written)
    std::shared_ptr<ir::Schedule> copy = sk.s;
    std::optional<TileLoops> tiles = findTileLoops(*copy);
    std::string peeled;
    if (!tiles)
      if (auto f = unpeelFirstIterations(*copy, solverLimits(opts, budget), &peeled)) {
        copy = std::move(f);
        tiles = findTileLoops(*copy);
      }
    if (!tiles) throw Fail("not a tile loop around one K loop from 0 in every role");
    tiles->own_lengths = true;
    std::vector<Binding> bindings = checked;
    for (Binding& b : bindings) b.params[sk.length] = 1;
    const std::string engine = provePersistent(*copy, target, bindings, *tiles, opts, budget, states);
    if (peeled.empty()) return fmt::format("{}: {}", sk.text, engine);
    return fmt::format("{}: a K loop's first iteration peeled ({}) as the loop's own: {}", sk.text, peeled, engine);
  } catch (const Fail& g) {
    Fail both(fmt::format("{}; {}: {}", first.what(), sk.text, g.what()));
    both.witnesses = first.witnesses;
    throw both;
  }
}

// ---------------------------------------------------------------- a tile's K range split between processes
// (docs/z3.md "A tile's K range split between processes, read as two
// tiles", helper ksplit2, session 35)

// A persistent schedule whose processes split every tile's K iterations at
// one point h (two MMA warps, one over k-blocks [0, h), one over [h, E_B),
// into one accumulator): every loop bounded by a parameter is either a
// tile loop `for t in lm.range(0, E_A)` (a direct statement of its role
// body, step 1, one E_A) or a K loop among the direct statements of one
// (at most one per tile loop, step 1) over [0, E_B), [0, h) or [h, E_B),
// with at least one over each of the last two; nothing symbolic deeper.
struct KSplit {
  ir::ExprPtr tiles, trip, split;  // E_A, E_B, h
};
enum class KPart { None, Whole, Low, High };

// The direct statement of `b` that is a loop bounded by a parameter (-1:
// none); -2 where there are two, or where one lies inside another
// statement of b (the loop's own body is not looked at).
int onlyParamLoop(const ir::Block& b) {
  int at = -1;
  for (size_t i = 0; i < b.size(); ++i) {
    const ir::Stmt& st = b[i];
    const bool symbolic = st.kind == ir::Stmt::Kind::For && st.hi && mentionsParam(*st.hi);
    std::vector<const ir::Stmt*> deeper;
    if (!symbolic) collectLoops(st.body, deeper);
    collectLoops(st.orelse, deeper);
    if (std::any_of(deeper.begin(), deeper.end(), [](const ir::Stmt* l) { return l->hi && mentionsParam(*l->hi); }))
      return -2;
    if (!symbolic) continue;
    if (at >= 0) return -2;
    at = static_cast<int>(i);
  }
  return at;
}

bool stepOne(const ir::Stmt& loop) {
  return !loop.step || ir::constValue(loop.step) == std::optional<int64_t>(1);
}

// The K loop of a tile loop's body (-1: none; nullopt: not the shape).
std::optional<int> kSplitLoopOf(const ir::Stmt& tile) {
  const int k = onlyParamLoop(tile.body);
  if (k == -2) return std::nullopt;
  if (k >= 0) {
    const ir::Stmt& loop = tile.body[static_cast<size_t>(k)];
    std::vector<const ir::Stmt*> deeper;
    collectLoops(loop.body, deeper);
    if (!stepOne(loop) || !loop.lo ||
        std::any_of(deeper.begin(), deeper.end(), [](const ir::Stmt* l) { return l->hi && mentionsParam(*l->hi); }))
      return std::nullopt;
  }
  return k;
}

std::optional<KSplit> kSplitShape(const ir::Schedule& s) {
  KSplit ks;
  std::vector<const ir::Stmt*> ks_loops;
  for (const ir::RoleBody& body : s.bodies) {
    const int at = onlyParamLoop(body.body);
    if (at == -2) return std::nullopt;
    if (at < 0) continue;
    const ir::Stmt& tile = body.body[static_cast<size_t>(at)];
    if (!stepOne(tile) || !tile.lo || ir::constValue(tile.lo) != 0) return std::nullopt;
    if (!ks.tiles) ks.tiles = tile.hi;
    if (!ir::sameExpr(*ks.tiles, *tile.hi)) return std::nullopt;
    const std::optional<int> k = kSplitLoopOf(tile);
    if (!k) return std::nullopt;
    if (*k < 0) continue;
    const ir::Stmt& loop = tile.body[static_cast<size_t>(*k)];
    ks_loops.push_back(&loop);
    if (!mentionsParam(*loop.lo)) continue;
    if (!ks.split) ks.split = loop.lo, ks.trip = loop.hi;
    if (!ir::sameExpr(*ks.split, *loop.lo) || !ir::sameExpr(*ks.trip, *loop.hi)) return std::nullopt;
  }
  if (!ks.split) return std::nullopt;
  bool low = false;
  for (const ir::Stmt* loop : ks_loops) {
    if (mentionsParam(*loop->lo)) continue;
    if (ir::constValue(loop->lo) != 0) return std::nullopt;
    low = low || ir::sameExpr(*loop->hi, *ks.split);
    if (!ir::sameExpr(*loop->hi, *ks.split) && !ir::sameExpr(*loop->hi, *ks.trip)) return std::nullopt;
  }
  auto local = [](const ir::ExprPtr& e) { return ir::exprUses(*e, {ir::ExprKind::LoopVar, ir::ExprKind::Instance}); };
  if (!low || local(ks.tiles) || local(ks.trip) || local(ks.split) || ir::sameExpr(*ks.tiles, *ks.trip))
    return std::nullopt;
  return ks;
}

KPart kPartOf(const ir::Stmt* loop, const KSplit& ks) {
  if (!loop) return KPart::None;
  if (mentionsParam(*loop->lo)) return KPart::High;
  return ir::sameExpr(*loop->hi, *ks.split) ? KPart::Low : KPart::Whole;
}

// f applied to the `if` conditions and `init=` of b only (the rest of
// mapRingExprs's complement).
void mapGuardExprs(ir::Block& b, const std::function<ir::ExprPtr(const ir::ExprPtr&)>& f) {
  for (ir::Stmt& st : b) {
    if (st.cond) st.cond = f(st.cond);
    if (st.op.init) st.op.init = f(st.op.init);
    mapGuardExprs(st.body, f);
    mapGuardExprs(st.orelse, f);
  }
}

// The copy of a k-split schedule in which every tile is two tiles, v = 2t
// (the K iterations [0, h)) and v = 2t + 1 ([h, E_B)), each a K loop
// `for k in lm.range(0, Q)` (Q >= 1 a fresh parameter); the tile loops
// run `lm.range(0, 2 * E_A)` (a process over [0, h): `lm.range(0, 2 * E_A,
// 2)`; over [h, E_B): `lm.range(1, 2 * E_A, 2)`), every t read as v // 2.
// In a K loop body every expression but `if` conditions and `init=` is read
// with k as `v * Q + k - t * E_B` (shiftedFromZero, equal atoms merged: the
// ring index `t * E_B + k` is `v * Q + k`); conditions and `init=` with k as
// `a + k`, a the part's first K iteration (0, h, or `(v % 2) * h` for a
// process over [0, E_B)). A process over [0, E_B) runs the part before its
// K loop in the even tile (`if v % 2 == 0:`) and the part after it in the
// odd one; a process without a K loop runs the first statement of its tile
// body in the even tile and the rest in the odd one (the persistent proof
// takes a process that runs every tile to run something in each).
// Each process runs its operations in its order: where the persistent
// proof reads `v * Q` as tile v's ring start G_v with tile 2t of h and tile
// 2t + 1 of E_B - h iterations (G_(2t) = t * E_B, G_(2t+1) = t * E_B + h),
// every expression has the schedule's value (proveKSplitTiles).
struct KSplitTiles {
  std::shared_ptr<ir::Schedule> s;
  int length = -1;  // Q, the copy's K loop bound
};

ir::Stmt kSplitIf(const ir::ExprPtr& v, int64_t parity, ir::Block body, const ir::SourceRange& r) {
  using K = ir::ExprKind;
  ir::Stmt which;
  which.kind = ir::Stmt::Kind::If;
  which.range = r;
  which.cond = ir::makeExpr(K::Eq, {ir::makeExpr(K::Mod, {v, ir::makeConst(2)}), ir::makeConst(parity)});
  which.body = std::move(body);
  return which;
}

// The tile loop `tile` of the copy (its K loop at `k`, -1: none); false
// where a ring index cannot be rewritten.
bool kSplitTile(ir::Stmt& tile, int k, const KSplit& ks, int v_var, const ir::ExprPtr& q, const ir::ExprPtr& count) {
  using K = ir::ExprKind;
  const int t = tile.loop_var;
  const ir::ExprPtr v = symbolNode(K::LoopVar, v_var);
  const KPart part = kPartOf(k >= 0 ? &tile.body[static_cast<size_t>(k)] : nullptr, ks);
  ir::Block pre(tile.body.begin(), k >= 0 ? tile.body.begin() + k : tile.body.end()), post;
  ir::Block body;
  if (k >= 0) {
    post.assign(tile.body.begin() + k + 1, tile.body.end());
    ir::Stmt loop = tile.body[static_cast<size_t>(k)];
    AtomSum back;
    back.add(-1, ir::makeExpr(K::Mul, {symbolNode(K::LoopVar, t), ks.trip}));
    const ir::ExprPtr ring = ir::makeExpr(K::Add, {ir::makeExpr(K::Mul, {v, q}), symbolNode(K::LoopVar, loop.loop_var)});
    bool ok = true;
    mapRingExprs(loop.body, [&](const ir::ExprPtr& e) {
      if (!e || !ir::dependsOnLoopVar(*e, loop.loop_var)) return e;
      const ir::ExprPtr y = shiftedFromZero(e, loop.loop_var, back, {t});
      if (!y) ok = false;
      return y ? substLoopVar(y, loop.loop_var, ring) : e;
    });
    if (!ok) return false;
    const ir::ExprPtr first = part == KPart::High    ? ks.split
                              : part == KPart::Whole ? ir::makeExpr(K::Mul, {ir::makeExpr(K::Mod, {v, ir::makeConst(2)}), ks.split})
                                                     : nullptr;
    if (first)
      mapGuardExprs(loop.body, [&](const ir::ExprPtr& e) {
        return substLoopVar(e, loop.loop_var,
                            ir::makeExpr(K::Add, {first, symbolNode(K::LoopVar, loop.loop_var)}));
      });
    loop.lo = ir::makeConst(0);
    loop.hi = q;
    loop.step = ir::makeConst(1);
    if (part == KPart::Whole) {
      if (!pre.empty()) body.push_back(kSplitIf(v, 0, std::move(pre), tile.range));
      body.push_back(std::move(loop));
      if (!post.empty()) body.push_back(kSplitIf(v, 1, std::move(post), tile.range));
    } else {
      body = std::move(pre);
      body.push_back(std::move(loop));
      body.insert(body.end(), post.begin(), post.end());
    }
  } else if (pre.size() >= 2) {
    body.push_back(kSplitIf(v, 0, ir::Block(pre.begin(), pre.begin() + 1), tile.range));
    body.push_back(kSplitIf(v, 1, ir::Block(pre.begin() + 1, pre.end()), tile.range));
  } else {
    body.push_back(kSplitIf(v, 1, std::move(pre), tile.range));
  }
  const ir::ExprPtr half = ir::makeExpr(K::FloorDiv, {v, ir::makeConst(2)});
  mapExprs(body, [&](const ir::ExprPtr& e) { return substLoopVar(e, t, half); });
  tile.loop_var = v_var;
  tile.lo = ir::makeConst(part == KPart::High ? 1 : 0);
  tile.hi = count;
  tile.step = ir::makeConst(part == KPart::Low || part == KPart::High ? 2 : 1);
  tile.body = std::move(body);
  return true;
}

std::optional<KSplitTiles> kSplitAsTiles(const ir::Schedule& s, const KSplit& ks,
                                         const std::vector<ir::ExprPtr>& facts) {
  using K = ir::ExprKind;
  KSplitTiles out;
  out.s = std::make_shared<ir::Schedule>(s);
  ir::Schedule& c = *out.s;
  out.length = static_cast<int>(c.params.size());
  c.params.push_back({"Q", ir::ParamType::I32, s.range});
  const ir::ExprPtr q = symbolNode(K::Param, out.length);
  c.assumes.push_back({ir::makeExpr(K::Ge, {q, ir::makeConst(1)}), s.range});
  for (const ir::ExprPtr& f : facts) c.assumes.push_back({f, s.range});
  // one node for every tile loop's bound (the persistent proof replaces it by pointer)
  const ir::ExprPtr count = ir::makeExpr(K::Mul, {ir::makeConst(2), ks.tiles});
  for (ir::RoleBody& body : c.bodies) {
    const int at = onlyParamLoop(body.body);
    if (at < 0) continue;
    ir::Stmt& tile = body.body[static_cast<size_t>(at)];
    // a variable per tile loop (the persistent proof keys a tile loop's step by it)
    const int v = static_cast<int>(c.loop_vars.size());
    c.loop_vars.push_back({"v", s.range});
    if (!kSplitTile(tile, *kSplitLoopOf(tile), ks, v, q, count)) return std::nullopt;
  }
  if (!trip::sameDerivedTx(s, c)) return std::nullopt;
  return out;
}

// The schedule with every node equal to `e` replaced by the constant x and
// the fact `e == x` added: for every binding with e == x it builds the
// schedule's systems (every expression of the same value).
std::shared_ptr<ir::Schedule> withValue(const ir::Schedule& s, const ir::ExprPtr& e, int64_t x) {
  auto c = std::make_shared<ir::Schedule>(s);
  const ir::ExprPtr value = ir::makeConst(x);
  std::function<ir::ExprPtr(const ir::ExprPtr&)> put = [&](const ir::ExprPtr& y) -> ir::ExprPtr {
    if (!y) return y;
    if (ir::sameExpr(*y, *e)) return value;
    if (y->args.empty()) return y;
    auto copy = std::make_shared<ir::Expr>(*y);
    for (ir::ExprPtr& a : copy->args) a = put(a);
    return copy;
  };
  for (ir::RoleBody& body : c->bodies) mapExprs(body.body, put);
  c->assumes.push_back({ir::makeExpr(ir::ExprKind::Eq, {e, value}), s.range});
  return c;
}

// A k-split schedule (kSplitShape) proved in two cases of E_B. E_B >= 2
// (with h >= 1 and E_B - h >= 1 shown under the facts): its copy whose
// tiles are the parts (kSplitAsTiles), proved as a persistent kernel with
// every tile of its own length in one exploration (persistent_split = 1:
// a run whose tiles alternate h and E_B - h iterations is in no exploration
// of tiles of one length). For a binding b of the schedule the copy's run
// at b with 2 * E_A(b) tiles, tile 2t of h(b) and tile 2t + 1 of E_B(b) -
// h(b) iterations is the schedule's (kSplitAsTiles); the copy's facts are
// the schedule's, Q >= 1 and E_B >= 2, which (b, Q = 1) meets. The
// exploration explores more (every tile count, every length): a violation
// met there is no finding. E_B == 1 (where the facts allow it; E_B <= 0
// must be excluded by them): the schedule with E_B written 1, whose K loops
// have constant bounds.
std::string proveKSplitTiles(const Fail& first, const ir::Schedule& s, const KSplit& ks, ir::Target target,
                             const std::vector<Binding>& checked, const TripProofOptions& opts, ProofBudget& budget,
                             uint64_t& states) {
  using K = ir::ExprKind;
  const std::string what = fmt::format("K iterations split at {} of {}, each tile read as two tiles",
                                       ir::exprToString(*ks.split, s), ir::exprToString(*ks.trip, s));
  auto fail = [&](const std::string& why) {
    Fail both(fmt::format("{}; {}: {}", first.what(), what, why));
    both.witnesses = first.witnesses;
    return both;
  };
  const ir::ExprPtr rest = ir::makeExpr(K::Sub, {ks.trip, ks.split});
  bool one = false;  // the facts allow E_B == 1
  {
    FactProver prover(s, solverLimits(opts, budget), {});
    std::map<int, std::optional<int64_t>> lb;
    if (!atLeast(prover, ks.trip, 1, lb))
      throw fail(fmt::format("the schedule's assumptions do not keep {} from being below 1",
                             ir::exprToString(*ks.trip, s)));
    one = !atLeast(prover, ks.trip, 2, lb);
  }
  const ir::ExprPtr two = ir::makeExpr(K::Ge, {ks.trip, ir::makeConst(2)});
  std::optional<KSplitTiles> copy = kSplitAsTiles(s, ks, one ? std::vector<ir::ExprPtr>{two} : std::vector<ir::ExprPtr>{});
  if (!copy) throw fail("a ring index is not rewritten");
  std::string engines;
  try {
    {
      FactProver prover(*copy->s, solverLimits(opts, budget), {});
      std::map<int, std::optional<int64_t>> lb;
      for (const ir::ExprPtr& len : {ks.split, rest})
        if (!atLeast(prover, len, 1, lb))
          throw Fail(fmt::format("the assumptions do not keep {} from being below 1 where {} >= 2",
                                 ir::exprToString(*len, s), ir::exprToString(*ks.trip, s)));
    }
    std::optional<TileLoops> tiles = findTileLoops(*copy->s);
    if (!tiles) throw Fail("the copy is not a tile loop around one K loop");
    std::vector<Binding> bindings = bindingsOfCase(*copy->s, *two, checked);
    if (bindings.empty()) throw Fail("no binding is found to build the copy's systems");
    for (Binding& b : bindings) b.params[copy->length] = 1;
    tiles->tile_multiple = 2;  // the schedule's runs have 2 * E_A tiles
    TripProofOptions every = opts;
    every.persistent_split = 1;
    engines = fmt::format("for {} >= 2: {}", ir::exprToString(*ks.trip, s),
                          provePersistent(*copy->s, target, bindings, *tiles, every, budget, states));
  } catch (const Fail& g) {
    throw fail(fmt::format("for {} >= 2: {}", ir::exprToString(*ks.trip, s), g.what()));
  }
  if (!one) return fmt::format("{}: {}", what, engines);
  const std::shared_ptr<ir::Schedule> single = withValue(s, ks.trip, 1);
  const ir::ExprPtr fact = ir::makeExpr(K::Eq, {ks.trip, ir::makeConst(1)});
  std::vector<Binding> of_case = bindingsOfCase(*single, *fact, checked);
  if (of_case.empty()) throw fail(fmt::format("no binding with {} == 1 is found", ir::exprToString(*ks.trip, s)));
  try {
    TripLoops each;
    std::vector<Binding> bindings = of_case;
    const std::string engine = proveSchedule(*single, target, of_case, opts, budget, states, each, bindings);
    return fmt::format("{}: {}; for {} == 1 (written 1): {}", what, engines, ir::exprToString(*ks.trip, s), engine);
  } catch (const Fail& g) {
    throw fail(fmt::format("{}; for {} == 1: {}", engines, ir::exprToString(*ks.trip, s), g.what()));
  }
}

// A case of a split that adds a fact (`c`, its fact among its lm.assume
// facts) with every guard the facts decide replaced by the branch it
// takes (trip::decideGuards: `if k_tiles == 0:` where k_tiles >= 1 is a
// fact); `text` names them (" (k_tiles == 0 not taken)"), empty when none
// is. With `loops` (the finer-quotient cases), then every guard that reads
// a loop variable and that the facts and the ranges of the loops around it
// decide (trip::decideLoopGuards: `if k * 2 + s < 2 * E:` inside `for k in
// lm.range(0, E)`, `for s in lm.range(0, 2)`), each query capped at
// kLoopGuardRlimit (a guard no range decides, `t % 2 == 0` with t below a
// tile count divided by the grid, can take the solver long: the cap keeps
// it from spending the proof's budget; a query cut off decides nothing).
// Each copy builds, for every binding its facts allow, the system of the
// schedule it was made from.
constexpr uint64_t kLoopGuardRlimit = 200000;
void decideCaseGuards(std::shared_ptr<ir::Schedule>& c, const TripProofOptions& opts, ProofBudget& budget,
                      std::string& text, bool loops = false) {
  std::vector<std::string> texts;
  {
    BvProver prover(*c, solverLimits(opts, budget));
    if (const auto decided = trip::decideGuards(
            *c, [&](const ir::ExprPtr& g) { return prover.prove(g).kind == BvVerdict::Holds; })) {
      c = decided->s;
      texts.push_back(decided->text);
    }
  }
  if (loops) {
    Limits capped = solverLimits(opts, budget);
    capped.rlimit = capped.rlimit ? std::min(capped.rlimit, kLoopGuardRlimit) : kLoopGuardRlimit;
    BvProver prover(*c, capped);
    if (const auto decided = trip::decideLoopGuards(*c, [&](const ir::ExprPtr& g, const std::vector<ir::ExprPtr>& in) {
          return prover.prove(g, in).kind == BvVerdict::Holds;
        })) {
      c = decided->s;
      texts.push_back(fmt::format("within the loops' ranges: {}", decided->text));
    }
  }
  if (!texts.empty()) text = fmt::format(" ({})", fmt::join(texts, "; "));
}

// The schedule once per case of a finer quotient of a loop bound's dividend
// (finerQuotientCases): every binding the facts allow is in a case, and for
// it the case's copy builds the schedule's systems (each rewritten node has
// the value it replaces there), so the cases' proofs together are the
// schedule's. `first`: why the schedule as written was not proved. What a
// case's proof throws is a plain Fail (a violation met in a case is no
// finding; the bounded check decides).
std::string proveFinerQuotientCases(const Fail& first, const ir::Schedule& s, const FinerQuotient& fq,
                                    ir::Target target, const std::vector<Binding>& checked,
                                    const TripProofOptions& opts, ProofBudget& budget, uint64_t& states) {
  const std::string what = fmt::format("per case of {} against {}", ir::exprToString(*fq.finer, s),
                                       ir::exprToString(*fq.bound, s));
  auto fail = [&](const std::string& why) {
    Fail both(fmt::format("{}; {}: {}", first.what(), what, why));
    both.witnesses = first.witnesses;
    return both;
  };
  std::vector<QuotientCase> cases;
  {
    BvProver prover(s, solverLimits(opts, budget));
    cases = finerQuotientCases(s, fq, prover);
  }
  if (cases.empty()) throw fail("the cases are not shown to cover every allowed binding");
  std::string engines;
  for (const QuotientCase& c : cases) {
    checkBudget(budget, fmt::format("with {}", c.text));
    TripLoops each;
    std::vector<Binding> of_case = bindingsOfCase(*c.s, *c.fact, checked);
    if (of_case.empty()) throw fail(fmt::format("no binding with {} is found to build the case's systems", c.text));
    std::vector<Binding> bindings = of_case;
    std::shared_ptr<ir::Schedule> decided = c.s;
    std::string guards;
    decideCaseGuards(decided, opts, budget, guards, true);
    try {
      const std::string engine = proveSchedule(*decided, target, of_case, opts, budget, states, each, bindings);
      engines += fmt::format("{}for {}{}: {}", engines.empty() ? "" : "; ", c.text, guards, engine);
    } catch (const Fail& g) {
      throw fail(fmt::format("with {}: {}", c.text, g.what()));
    }
  }
  return fmt::format("{} ({} of {} cases allowed): {}", what, cases.size(), fq.c, engines);
}

std::optional<std::string> exploreFewValuedLoopsWhole(const Fail& refused, const std::string& why,
                                                      const ir::Schedule& s, ir::Target target,
                                                      const std::vector<Binding>& checked,
                                                      const TripProofOptions& opts, ProofBudget& budget,
                                                      uint64_t& states,
                                                      const std::map<const ir::Expr*, int64_t>& dead);

// Where the lap argument refuses a schedule whose loops are bounded only by
// parameters that the lm.assume facts allow at most max_equivalent_values
// values of (a per-CTA partition of at most 32 KV blocks whose passes over
// one shared logits array the argument cannot shift: docs/z3.md "Loops
// bounded by few values, explored whole"), each allowed value's system is
// explored whole (proveUnlooped), as for a schedule whose loops read no
// such parameter in the first place. nullopt: the fallback does not apply,
// or it was not proved either (the argument's refusal stands; a violation
// met is no finding here: the bounded check decides).
std::optional<std::string> proveFiniteLoopsWhole(const Fail& refused, const ir::Schedule& s, ir::Target target,
                                                 const std::vector<Binding>& checked, const TripProofOptions& opts,
                                                 ProofBudget& budget, uint64_t& states,
                                                 const std::map<const ir::Expr*, int64_t>& dead) {
  try {
    findTrip(s, {}, dead);
  } catch (const Fail&) {
    return std::nullopt;  // proveScheduleAsWritten took the unlooped path already where it applies
  }
  return exploreFewValuedLoopsWhole(refused, "the loops' bounds read only parameters with few allowed values", s,
                                    target, checked, opts, budget, states, dead);
}

// Loops of different bounds (findTrip refuses them) whose starts, bounds
// and steps read only parameters with at most max_equivalent_values allowed
// values, more than the max_fixed_values with which proveScheduleAsWritten
// explores such loops whole itself: each allowed value's system explored
// whole, as proveFiniteLoopsWhole does for one trip expression (helper
// hunt47b, session 47: llama.cpp's flash_attn_combine_results, a
// block-stride fill over lm.cdiv(2 * P, 64) passes beside a merge loop over
// P, 2 <= P <= 64, was refused with "the symbolic loops have different
// bounds"). Asked last, so that its explorations do not spend the budget of
// the readings before it. nullopt as for proveFiniteLoopsWhole.
std::optional<std::string> proveFewValuedLoopsOfDifferentBounds(const Fail& refused, const ir::Schedule& s,
                                                                ir::Target target, const std::vector<Binding>& checked,
                                                                const TripProofOptions& opts, ProofBudget& budget,
                                                                uint64_t& states,
                                                                const std::map<const ir::Expr*, int64_t>& dead) {
  try {
    findTrip(s, {}, dead);
    return std::nullopt;  // one trip expression: proveFiniteLoopsWhole's
  } catch (const Fail&) {
  }
  if (!finiteLoopParams(s, opts, budget, dead).symbolic) return std::nullopt;  // explored whole as written
  return exploreFewValuedLoopsWhole(refused, "the loops' bounds (of different expressions) read only parameters "
                                    "with few allowed values", s, target, checked, opts, budget, states, dead);
}

// Both paths above: every parameter that a loop's start, bound or step reads
// has at most max_equivalent_values allowed values (fewValuedLoopParams);
// each allowed value's system is built (loops unrolled) and explored whole.
// Every allowed binding gives one of the listed values, so the explorations
// cover every binding. nullopt where that does not apply or does not prove
// the schedule; a violation met is thrown (the bounded check decides).
std::optional<std::string> exploreFewValuedLoopsWhole(const Fail& refused, const std::string& why,
                                                      const ir::Schedule& s, ir::Target target,
                                                      const std::vector<Binding>& checked,
                                                      const TripProofOptions& opts, ProofBudget& budget,
                                                      uint64_t& states,
                                                      const std::map<const ir::Expr*, int64_t>& dead) {
  // bounded parameters are listed as far as "Parameters read only in
  // sizes" lists them; systems equal up to sizes are explored once
  TripProofOptions listed = opts;
  listed.max_fixed_values = std::max(opts.max_fixed_values, opts.max_equivalent_values);
  const FiniteLoopParams fl = fewValuedLoopParams(s, opts, budget, dead);
  if (fl.symbolic || fl.finite.empty()) return std::nullopt;
  const std::string what = fmt::format("lap induction refused ({}); {}", refused.what(), why);
  try {
    return fmt::format("{}: {}", what, proveUnlooped(s, target, checked, listed, budget, states, dead));
  } catch (const Fail& f) {  // a Met too: its trip count is the argument's, not this path's
    if (!f.explored_violation) return std::nullopt;
    // A system of an allowed value explored whole met a violation: the
    // schedule's other arguments (loopsInBlocks, passesAsTiles, the finer
    // quotient's cases) are not asked (docs/z3.md "Soundness review,
    // session 33"); the bounded check decides.
    Fail stop(fmt::format("{}: {}", what, f.what()));
    stop.witnesses = f.witnesses;
    stop.explored_violation = true;
    throw stop;
  }
}

// A copy of the schedule that builds, for every binding, the schedule's
// systems (the same operations in the same order, every expression of the
// same value; the same parameters), proved in its place. `first`: why the
// schedule as written was not proved; `text` says what the copy is.
std::string proveCopy(const Fail& first, const std::shared_ptr<ir::Schedule>& copy, const std::string& text,
                      ir::Target target, const std::vector<Binding>& checked, const TripProofOptions& opts,
                      ProofBudget& budget, uint64_t& states, std::vector<Binding>& bindings,
                      const std::map<const ir::Expr*, int64_t>& dead) {
  try {
    TripLoops each;
    std::vector<Binding> of_copy = checked;
    std::string engine = proveSchedule(*copy, target, checked, opts, budget, states, each, of_copy, dead);
    bindings = std::move(of_copy);
    return fmt::format("{}: {}", text, engine);
  } catch (const Fail& g) {
    Fail both(fmt::format("{}; {}: {}", first.what(), text, g.what()));
    both.witnesses = first.witnesses;  // bindings: the copy reads the same parameters
    both.witnesses.insert(both.witnesses.end(), g.witnesses.begin(), g.witnesses.end());
    throw both;
  }
}

// ---------------------------------------------------------------- the copy readings
// (docs/z3.md "The proof's entry: the copy readings in order")
//
// Where the schedule as written is refused, proveSchedule asks each copy
// reading of kCopyReadings in turn. A reading rewrites a copy of the
// schedule (or splits it into cases) that builds, for every binding, the
// schedule's systems (the same operations in the same order, every
// expression of the same value), so the copy's proof is the schedule's.
// Whatever the copy's proof throws is a plain Fail: its nodes (a Met's trip
// expression, a K loop's bound) are the copy's, and a violation met there
// is no finding (the bounded check decides).
//
// The order matters: a reading that applies (its shape is found, or its
// refusal is met) answers for the schedule, proved or refused, and no later
// reading is asked (only `few-valued loops explored whole` passes on when
// its proof does not go through). So a new reading whose shape also matches
// schedules a later reading proves takes them from it: put it after those
// readings, or narrow its shape, and compare the corpus gate's proofs.

// ================================================================ loops in sequence
// (docs/z3.md "Loops in sequence of independent bounds: the first reduced at
// a cut", helper bounds48, session 48)

// Two loops of independent bounds one after the other in every role body
// that has a loop bounded by a parameter: `pre ; for v in lm.range(0, X):
// A ; mid ; for i in lm.range(0, Y): B ; post`, both direct statements from
// 0 by 1 with no else (topLevelParamLoops), the same X and the same Y in
// every such body, X and Y different expressions that read neither a loop
// variable nor lm.instance(), no loop bounded by a parameter deeper. Read
// as the split of splitAtMonotoneGuard whose first loops are the X loops
// and whose second loops are the Y loops (`rest`; their bound kept, as the
// split keeps T - X): `some` runs A once (v read as 0) where the X loop
// stood, `none` drops the X loops. At a binding with X = n >= 1 the
// schedule's system is S_n's (A n times, copy i with v read as i, X read as
// n: exact, X reads only parameters); at X <= 0 it is none's (the X loops
// run no iteration, nothing else rewritten). nullopt: not that shape.
std::optional<SplitLoops> loopsInSequence(const ir::Schedule& s) {
  const std::set<const ir::Stmt*> instance_bounds = instanceBoundLoops(s);
  ir::ExprPtr X, Y;
  std::vector<std::pair<size_t, size_t>> firsts;  // body -> its X loop
  for (size_t bi = 0; bi < s.bodies.size(); ++bi) {
    const ir::Block& body = s.bodies[bi].body;
    const std::optional<std::vector<size_t>> loops = topLevelParamLoops(body);
    if (!loops) return std::nullopt;
    if (loops->empty()) continue;
    if (loops->size() != 2) return std::nullopt;
    const ir::Stmt& a = body[(*loops)[0]];
    const ir::Stmt& b = body[(*loops)[1]];
    if (instance_bounds.count(&a) || instance_bounds.count(&b)) return std::nullopt;
    if (!X) X = a.hi, Y = b.hi;
    if (!ir::sameExpr(*X, *a.hi) || !ir::sameExpr(*Y, *b.hi)) return std::nullopt;
    firsts.push_back({bi, (*loops)[0]});
  }
  if (firsts.empty() || ir::sameExpr(*X, *Y) || !loopInvariant(*X) || !loopInvariant(*Y)) return std::nullopt;
  // Y's core (Y less its constant offset) read only by the Y loops' bodies
  // and bounds (`if i == hit:`): sharedPrefixRunsAsOne compares the texts
  // with Y fixed to 0..4 and every read of the core read at that value
  // (SplitLoops::rest_read), a read before the cut that the texts compared
  // would stand for at few values only
  const ir::Expr& core = *splitOffset(Y).first;
  for (const ir::RoleBody& body : s.bodies)
    for (const ir::Stmt& st : body.body) {
      if (st.kind == ir::Stmt::Kind::For && st.hi && ir::sameExpr(*st.hi, *Y)) continue;
      bool reads = false;
      ir::Block one{st};
      mapExprs(one, [&](const ir::ExprPtr& e) {
        if (e && readsExpr(*e, core)) reads = true;
        return e;
      });
      if (reads) return std::nullopt;
    }
  SplitLoops out;
  out.at = X;
  out.rest = Y;
  out.rest_read = true;
  out.whole = std::make_shared<ir::Schedule>(s);
  out.none = std::make_shared<ir::Schedule>(s);
  out.some = std::make_shared<ir::Schedule>(s);
  out.text = fmt::format("the loops over {} then over {}, in sequence", ir::exprToString(*X, s),
                         ir::exprToString(*Y, s));
  for (const auto& [bi, at] : firsts) {
    ir::Block& none = out.none->bodies[bi].body;
    none.erase(none.begin() + static_cast<std::ptrdiff_t>(at));
    ir::Block& some = out.some->bodies[bi].body;
    const ir::Stmt first = some[at];
    some.erase(some.begin() + static_cast<std::ptrdiff_t>(at));
    if (!hasOp(first.body)) continue;  // (builds nothing for any X)
    ir::Block once = first.body;
    mapExprs(once, [&](const ir::ExprPtr& e) {
      return e ? substitute(e, *symbolNode(ir::ExprKind::LoopVar, first.loop_var), ir::makeConst(0)) : e;
    });
    out.prefixes.push_back({bi, at, once.size(), first.loop_var, first.body});
    some.insert(some.begin() + static_cast<std::ptrdiff_t>(at), once.begin(), once.end());
  }
  if (out.prefixes.empty()) return std::nullopt;
  return out;
}

// A violation met on a run of `s` (Met: at the trip count T of tl.trip,
// or any from T on where `open`) where `where` holds: where `s`'s runs are
// the proved schedule's (runsAreTheSchedules), a binding the facts allow
// there goes to the bounded check (a witness) and the violation is a
// sighting, unless the facts allow no such binding (the trip count or the
// case is none of the schedule's).
void sightedOn(const ir::Schedule& s, const Met& met, const ir::ExprPtr& where, const TripLoops& tl,
               const Binding& base, const TripProofOptions& opts, ProofBudget& budget) {
  if (!runsAreTheSchedules(s)) return;
  ir::ExprPtr conj = where;
  if (tl.trip) {
    const ir::ExprPtr value = ir::makeConst(tripValue(tl, met.trip));
    const ir::ExprPtr at = ir::makeExpr(met.violation.trip_open ? ir::ExprKind::Ge : ir::ExprKind::Eq, {tl.trip, value});
    conj = ir::makeExpr(ir::ExprKind::And, {conj, at});
  }
  BvProver prover(s, solverLimits(opts, budget));
  const BvResult w = classWitness(s, prover, conj, tl.facts, solverLimits(opts, budget));
  if (w.kind == BvVerdict::Holds) return;
  logSighting(met.violation,
              w.kind == BvVerdict::Fails ? std::optional(witnessBinding(base, tl.fixed, w.model)) : std::nullopt);
}

// The loops in sequence (loopsInSequence) proved: the X loops of every
// process reduced at a cut after h iterations (sharedPrefixRunsAsOne, h =
// 1..3: the runs for every X >= h are those of S_h's), S_1 .. S_h proved
// each, and none (the bindings with X <= 0) where the facts do not keep X
// >= 1. Every copy is proved for every allowed binding (no fact added), so
// at a binding b with X = n the proof of S_min(n, h) or none covers b
// itself. A violation met in a copy is no finding (the bounded check
// decides): a plain Fail; at the bindings with X = x (X <= 0 for none) it
// is one of the schedule's, so it is a sighting too (sightedOn).
std::string proveLoopsInSequence(const ir::Schedule& level, const Fail& first, const SplitLoops& seq,
                                 ir::Target target, const std::vector<Binding>& checked,
                                 const TripProofOptions& opts, ProofBudget& budget, uint64_t& states) {
  const std::string X = ir::exprToString(*seq.at, *seq.whole);
  auto refuse = [&](const std::string& why) {
    Fail f(fmt::format("{}; {}: {}", first.what(), seq.text, why));
    f.witnesses = first.witnesses;
    throw f;
  };
  FactProver prover(*seq.whole, solverLimits(opts, budget), {});
  std::map<int, std::optional<int64_t>> lb;
  const bool from_one = atLeast(prover, seq.at, 1, lb);
  std::vector<std::shared_ptr<ir::Schedule>> more;
  std::string how, why;
  int h = 0;
  for (int w = 1; w <= 3 && !h; ++w) {
    checkBudget(budget, "the first loop of a sequence");
    try {
      h = sharedPrefixRunsAsOne(seq, target, checked.front(), more, w, how);
    } catch (const Met&) {
      throw;
    } catch (const Fail& g) {
      if (w == 1) why = g.what();
    }
  }
  if (!h) refuse(why);
  // A copy's witnesses are the schedule's bindings where X is a parameter,
  // set to the copy's X (n for S_n, 0 for none); the bounded check decides
  // them (a copy's violation at another X is none of the schedule's).
  // S_x's runs at the bindings with X = x (none's: X <= 0) are the
  // schedule's: a violation met there is a sighting (sightedOn).
  auto proveCase = [&](const ir::Schedule& copy, const std::string& when, int64_t x) {
    checkBudget(budget, when);
    TripLoops tl;
    std::vector<Binding> bindings = checked;
    const ExactCopy exact(level, &copy);
    try {
      return proveSchedule(copy, target, checked, opts, budget, states, tl, bindings);
    } catch (const Fail& f) {
      if (const Met* met = dynamic_cast<const Met*>(&f); met && !checked.empty())
        sightedOn(copy, *met,
                  ir::makeExpr(x > 0 ? ir::ExprKind::Eq : ir::ExprKind::Le, {seq.at, ir::makeConst(x)}), tl,
                  checked.front(), opts, budget);
      Fail g(fmt::format("{}; {}: {}: {}", first.what(), seq.text, when, f.what()));
      g.witnesses = first.witnesses;
      if (seq.at->kind != ir::ExprKind::Param) throw g;
      std::vector<Binding> more_witnesses = f.witnesses;
      // a violation met at the copy's trip count T: the binding that gives
      // it where the trip expression is one parameter
      const Met* met = dynamic_cast<const Met*>(&f);
      if (met && tl.trip && tl.trip->kind == ir::ExprKind::Param && !checked.empty()) {
        Binding w = checked.front();
        for (const auto& [p, v] : tl.fixed) w.params[p] = v;
        w.params[tl.trip->index] = tripValue(tl, met->trip);
        more_witnesses.push_back(std::move(w));
      }
      for (Binding w : more_witnesses) {
        w.params[seq.at->index] = x;
        g.witnesses.push_back(std::move(w));
      }
      throw g;
    }
  };
  std::string out = fmt::format("{}: for {} >= 1, the first loop run {} time{} ({}: each run passes a cut after each "
                                "iteration, and {} iterations reach the states of {}; {} = 1..{} proved each): {}",
                                seq.text, X, h, h == 1 ? "" : "s", how, h + 1, h, X, h,
                                proveCase(*more.front(), fmt::format("with {} = 1", X), 1));
  for (size_t i = 1; i < more.size(); ++i)
    proveCase(*more[i], fmt::format("with {} = {}", X, i + 1), static_cast<int64_t>(i) + 1);
  if (!from_one) out += fmt::format("; for {} <= 0, the first loop run no iteration: {}", X,
                                    proveCase(*seq.none, fmt::format("with {} <= 0", X), 0));
  return out;
}

// What a reading is given: the schedule as written, why its proof refused
// it, and proveSchedule's arguments.
struct ReadingArgs {
  const ir::Schedule& s;
  const Fail& refused;
  ir::Target target;
  const std::vector<Binding>& checked;
  const TripProofOptions& opts;
  ProofBudget& budget;
  uint64_t& states;
  std::vector<Binding>& bindings;  // a copy's proof's bindings (proveCopy)
  const std::map<const ir::Expr*, int64_t>& dead;
};

// nullopt: the reading does not apply, the next one is asked; else the
// proof's text (a Fail thrown is the schedule's refusal).
using ReadingProof = std::optional<std::string>;

struct CopyReading {
  const char* name;  // as docs/z3.md lists it
  const char* when;  // the shape or the refusal that makes it apply
  ReadingProof (*prove)(const ReadingArgs& a);
};

// The proof of what `shape` found (a reading's copy or cases); nullopt, the
// reading does not apply, where it found nothing.
template <class Shape, class Prove>
ReadingProof ifFound(const std::optional<Shape>& shape, Prove&& prove) {
  if (!shape) return std::nullopt;
  return prove(*shape);
}

// The proof of a copy that builds the schedule's systems (proveCopy).
std::string copyProof(const ReadingArgs& a, const std::shared_ptr<ir::Schedule>& copy, const std::string& text) {
  return proveCopy(a.refused, copy, text, a.target, a.checked, a.opts, a.budget, a.states, a.bindings, a.dead);
}

// The schedule's loops cut where a guard turns every operation off
// (trip::cutDeadTails), each query capped at kLoopGuardRlimit as
// decideCaseGuards' loop guards are.
std::optional<trip::CutTails> deadTailsCut(const ReadingArgs& a) {
  Limits capped = solverLimits(a.opts, a.budget);
  capped.rlimit = capped.rlimit ? std::min(capped.rlimit, kLoopGuardRlimit) : kLoopGuardRlimit;
  BvProver prover(a.s, capped);
  return trip::cutDeadTails(a.s, [&](const ir::ExprPtr& g, const std::vector<ir::ExprPtr>& in) {
    return prover.prove(g, in).kind == BvVerdict::Holds;
  });
}

// In the order they are asked.
const CopyReading kCopyReadings[] = {
    {"few-valued loops explored whole",
     "one trip expression, and every loop's start, bound and step read only parameters with at most "
     "max_equivalent_values allowed values (passes on when not proved, unless an exploration met a violation)",
     [](const ReadingArgs& a) {
       return proveFiniteLoopsWhole(a.refused, a.s, a.target, a.checked, a.opts, a.budget, a.states, a.dead);
     }},
    {"a tile's K range split between processes, each tile read as two tiles",
     "kSplitShape: the processes' K loops over [0, h) and [h, E_B) of every tile",
     [](const ReadingArgs& a) {
       return ifFound(kSplitShape(a.s), [&](const KSplit& ks) {
         return proveKSplitTiles(a.refused, a.s, ks, a.target, a.checked, a.opts, a.budget, a.states);
       });
     }},
    {"loops from a parameter's start, counted from 0",
     "loopsFromZero: a loop whose start reads a parameter",
     [](const ReadingArgs& a) {
       return ifFound(loopsFromZero(a.s), [&](const LoopsFromZero& z) { return copyProof(a, z.s, z.text); });
     }},
    {"a loop from the block index by a constant step, counted in trips",
     "blockLoopsInTrips: a loop with a constant step whose start reads only lm.block_idx / lm.grid_dim",
     [](const ReadingArgs& a) {
       return ifFound(blockLoopsInTrips(a.s), [&](const LoopsFromZero& n) { return copyProof(a, n.s, n.text); });
     }},
    {"a loop over rounds read as a strided loop",
     "roundsAsStrided: a loop bounded by lm.cdiv(X - a, c) whose body reads c * r + a",
     [](const ReadingArgs& a) {
       return ifFound(roundsAsStrided(a.s), [&](const RoundsAsStrided& r) { return copyProof(a, r.s, r.text); });
     }},
    {"loops bounded by a multiple of the trip expression, run in blocks",
     "loopsInBlocks: a loop to c * X beside loops to X (constant factors cancelled)",
     [](const ReadingArgs& a) {
       return ifFound(loopsInBlocks(a.s), [&](const BlockLoops& b) { return copyProof(a, b.s, b.text); });
     }},
    {"two passes over one ring read as tiles of two kinds",
     "passesAsTiles: roles that stream one ring in two passes",
     [](const ReadingArgs& a) {
       return ifFound(passesAsTiles(a.s), [&](const PassTiles& passes) {
         return provePassTiles(a.refused, passes, a.target, a.checked, a.opts, a.budget, a.states);
       });
     }},
    {"consecutive loops of independent lengths read as the tiles of a persistent kernel",
     "segmentsAsTiles: roles that run n >= 2 consecutive loops over one ring",
     [](const ReadingArgs& a) {
       return ifFound(segmentsAsTiles(a.s), [&](const SegmentTiles& segs) {
         return proveSegmentTiles(a.refused, a.s, segs, a.target, a.checked, a.opts, a.budget, a.states);
       });
     }},
    {"sibling tile loops over one ring read as one persistent kernel",
     "nestsAsTiles: roles that run two tile loops one after the other, each around its own K loop",
     [](const ReadingArgs& a) {
       return ifFound(nestsAsTiles(a.s), [&](const NestTiles& nests) {
         return proveNestTiles(a.refused, a.s, nests, a.target, a.checked, a.opts, a.budget, a.states);
       });
     }},
    {"per case of a finer quotient of a loop bound's dividend",
     "finerQuotientOf: a loop bounded by lm.cdiv(X, D) and a node lm.cdiv(X, d) read in the bodies, D = c * d",
     [](const ReadingArgs& a) {
       return ifFound(finerQuotientOf(a.s), [&](const FinerQuotient& fq) {
         return proveFinerQuotientCases(a.refused, a.s, fq, a.target, a.checked, a.opts, a.budget, a.states);
       });
     }},
    {"per residue of a loop bound's own dividend",
     "a TooManyValues refusal naming a parameter that a loop bound's dividend X (lm.cdiv(X, c)) reads and the "
     "bodies read outside it (dividendReadBesides)",
     [](const ReadingArgs& a) -> ReadingProof {
       const auto* many = dynamic_cast<const TooManyValues*>(&a.refused);
       if (!many) return std::nullopt;
       return ifFound(dividendReadBesides(a.s, many->param), [&](const FinerQuotient& dq) {
         return proveFinerQuotientCases(a.refused, a.s, dq, a.target, a.checked, a.opts, a.budget, a.states);
       });
     }},
    {"tiles a guard skips in every role",
     "skippedTiles: tile loops whose body is one `if G:` (no else), the same G in every role, G implying the K "
     "loops' common bound F >= 1",
     [](const ReadingArgs& a) {
       return ifFound(skippedTiles(a.s), [&](const SkippedTiles& sk) {
         return proveSkippedTiles(a.refused, a.s, sk, a.target, a.checked, a.opts, a.budget, a.states);
       });
     }},
    {"few-valued loops of different bounds explored whole",
     "loops of different trip expressions (findTrip refuses) whose starts, bounds and steps read only parameters "
     "with at most max_equivalent_values allowed values, more than max_fixed_values (asked last: its "
     "explorations would spend the budget of the readings before it)",
     [](const ReadingArgs& a) {
       return proveFewValuedLoopsOfDifferentBounds(a.refused, a.s, a.target, a.checked, a.opts, a.budget, a.states,
                                                  a.dead);
     }},
    {"loops in sequence of independent bounds, the first reduced at a cut",
     "loopsInSequence: role bodies that run a loop over X, then one over Y (different expressions of parameters), "
     "both direct statements from 0 by 1, nothing deeper; the X loops of every process run as h iterations "
     "(sharedPrefixRunsAsOne) (asked last: the readings before it take their shapes first)",
     [](const ReadingArgs& a) {
       return ifFound(loopsInSequence(a.s), [&](const SplitLoops& seq) {
         return proveLoopsInSequence(a.s, a.refused, seq, a.target, a.checked, a.opts, a.budget, a.states);
       });
     }},
    {"loops whose tail a guard turns off, cut at its threshold",
     "cutDeadTails: a loop by 1 whose every operation lies under an `if` not taken from a threshold K of parameters "
     "on, K shown within the loop's bound (asked last: it reads a loop that the readings before it take as written)",
     [](const ReadingArgs& a) { return ifFound(deadTailsCut(a), [&](const trip::CutTails& c) {
       return copyProof(a, c.s, fmt::format("with the loops' dead tails cut ({})", c.text));
     }); }},
};

// The schedule as written; where that is refused (not for a violation met,
// a K loop that may run no iteration, or a budget used up: the callers
// decide those), the first copy reading of kCopyReadings that applies.
std::string proveSchedule(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                          const TripProofOptions& opts, ProofBudget& budget, uint64_t& states, TripLoops& tl,
                          std::vector<Binding>& bindings, const std::map<const ir::Expr*, int64_t>& dead) {
  try {
    return proveScheduleAsWritten(s, target, checked, opts, budget, states, tl, bindings, dead);
  } catch (const Fail& f) {
    if (dynamic_cast<const Met*>(&f) || dynamic_cast<const InnerMayBeEmpty*>(&f) || !budget.exhausted().empty())
      throw;
    const ReadingArgs args{s, f, target, checked, opts, budget, states, bindings, dead};
    for (const CopyReading& reading : kCopyReadings)
      if (ReadingProof proof = reading.prove(args)) return std::move(*proof);
    throw;
  }
}

// The schedule with its loop bounds of one value read in one spelling
// (respelledBounds, defined below); nullptr where nothing is respelled.
std::shared_ptr<ir::Schedule> respelledCopy(const ir::Schedule& s, std::string& text);

// A guard case's schedule with its peeled last iterations read as their
// loops' own (foldPeeledLastIterations) and then its bounds respelled under
// the case's facts (`if K % 64 != 0:` taken: the peeled k-residue tile
// after `lm.range(0, K // 64)` makes `lm.range(0, K // 64 + 1)`, which is
// lm.cdiv(K, 64); not taken: `K // 64` is lm.cdiv(K, 64)). Each step builds
// the case's systems for every binding the case's facts allow, so the
// copy's proof is the case's. nullptr where neither step applies.
std::shared_ptr<ir::Schedule> guardCaseCopy(const ir::Schedule& c, const Limits& limits, std::string& text) {
  std::string folded, respelled;
  std::shared_ptr<ir::Schedule> copy = foldPeeledLastIterations(c, limits, &folded);
  if (auto r = respelledCopy(copy ? *copy : c, respelled)) copy = std::move(r);
  if (!copy) return nullptr;
  std::vector<std::string> parts;
  if (!folded.empty()) parts.push_back(fmt::format("a loop's peeled last iteration as its own ({})", folded));
  if (!respelled.empty()) parts.push_back(respelled);
  text = fmt::format("{}", fmt::join(parts, ", then "));
  return copy;
}

// One guard case's proof: as written; where that is refused (no violation
// met or explored, budget left), its guardCaseCopy's (whose refusal, a
// violation met there included, is a plain Fail: the copy's nodes).
std::string proveGuardCase(const trip::GuardCase& c, ir::Target target, const std::vector<Binding>& checked,
                           const TripProofOptions& opts, ProofBudget& budget, uint64_t& states) {
  TripLoops tl;
  std::vector<Binding> bindings = checked;
  try {
    return proveSchedule(*c.s, target, checked, opts, budget, states, tl, bindings);
  } catch (const Fail& f) {
    std::string text;
    if (dynamic_cast<const Met*>(&f) || f.explored_violation || !budget.exhausted().empty()) throw;
    const std::shared_ptr<ir::Schedule> copy = guardCaseCopy(*c.s, solverLimits(opts, budget), text);
    if (!copy) throw;
    return proveCopy(f, copy, text, target, checked, opts, budget, states, bindings, {});
  }
}

// When the argument does not apply to the schedule as it is: once per
// outcome of its guards on parameters that the lm.assume facts allow, on
// the schedule with the guards decided and the outcome as facts
// (trip::guardCases; docs/z3.md "Guards decided per case", helper loops3).
// Every allowed binding gives its guards one of those outcomes, and for
// it the case's schedule builds the schedule's systems, so the cases'
// proofs together cover every binding. A violation met in a case is no
// finding here (unknown): the bounded check decides. A case refused as
// written is asked again on its guardCaseCopy (proveGuardCase).
std::string proveGuardCases(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                            const TripProofOptions& opts, ProofBudget& budget, uint64_t& states) {
  const Limits limits = solverLimits(opts, budget);
  BvProver prover(s, limits);
  const std::vector<trip::GuardCase> cases = trip::guardCases(s, [&](const std::vector<ir::ExprPtr>& facts) {
    ir::ExprPtr all = facts.front();
    for (size_t i = 1; i < facts.size(); ++i) all = ir::makeExpr(ir::ExprKind::And, {all, facts[i]});
    // ruled out only when the solver proves no allowed binding gives it
    return outcomesPossible(s, prover, all, {}, limits);
  }, [&](const ir::ExprPtr& g) { return holdsForEveryBinding(s, prover, g, limits); });
  if (cases.empty())
    throw Fail("no outcome of the guards is allowed, or a guard is not shown to take one outcome in every CTA of "
               "the cluster");
  std::string first;
  for (const trip::GuardCase& c : cases) {
    checkBudget(budget, fmt::format("with {}", c.text));
    try {
      std::string engine = proveGuardCase(c, target, checked, opts, budget, states);
      if (first.empty()) first = std::move(engine);
    } catch (const Fail& f) {
      throw Fail(fmt::format("with {}: {}", c.text, f.what()));
    }
  }
  return fmt::format("for each allowed outcome of the guards ({} of {} cases), the guards decided: {}{}",
                     cases.size(), 1u << trip::guardCount(s), first, cases.size() > 1 ? " (shown for the first)" : "");
}

// Every loop of b bounded by `inner + c` gets a bound node of its own;
// `out`: the node -> (itself, the loop's start). False when such a loop
// has no constant start or no positive constant step.
bool freshInnerBounds(ir::Block& b, const ir::Expr& inner, std::map<const ir::Expr*, std::pair<ir::ExprPtr, int64_t>>& out) {
  bool ok = true;
  for (ir::Stmt& st : b) {
    if (st.kind == ir::Stmt::Kind::For && st.hi && ir::sameExpr(*splitOffset(st.hi).first, inner)) {
      const auto lo = ir::constValue(st.lo);
      const auto step = st.step ? ir::constValue(st.step) : std::optional<int64_t>(1);
      if (!lo || !step || *step <= 0) {
        ok = false;
      } else {
        ir::ExprPtr fresh = std::make_shared<ir::Expr>(*st.hi);
        st.hi = fresh;
        out[fresh.get()] = {fresh, *lo};
      }
    }
    ok = freshInnerBounds(st.body, inner, out) && ok;
    ok = freshInnerBounds(st.orelse, inner, out) && ok;
  }
  return ok;
}

// A persistent kernel whose K loop's trip count E_B the lm.assume facts do
// not keep >= 1 (no lm.assume(K > 0)): once with E_B >= 1 as a fact (the
// persistent proof), once with E_B <= 0, where every loop bounded by E_B
// plus a constant is shown to run no iteration (its bound at most its
// start, by the solver under that fact) and is read as such (TripLoops::
// dead: its bound node evaluated to its start; the builder then builds the
// same instructions, a loop empty because of a parameter included, and
// records E_B's parameters wherever else they are read, which the proof
// refuses). In each case a guard the case's facts decide (`if k_tiles ==
// 0:`) is first replaced by the branch it takes (decideCaseGuards). Every
// binding is in one case (docs/z3.md "A K loop that may run no iteration",
// helper loops3). A violation met is unknown, as in the guard cases.
// The case E_B <= 0 is built at bindings in that case: each checked binding
// with the parameters E_B reads set to 0, kept where E_B is then <= 0. The
// builder tells a loop empty at a degenerate size (K = 0: it counts as
// writing its body) from one empty at positive sizes (it writes nothing) by
// the binding's values (encoder/system.cpp boundsReadNonPositiveParam); at a
// checked K = 64 the dead loops of this case would be the latter.
std::vector<Binding> bindingsWithNoInnerIteration(const ir::Expr& inner, const std::vector<Binding>& checked) {
  std::vector<Binding> out;
  for (Binding b : checked) {
    std::set<int> read;
    ir::EvalEnv env;
    env.params = b.params;
    env.params_read = &read;
    ir::evaluate(inner, env);
    for (int p : read)
      if (p >= 0) b.params[p] = 0;
    env.params = b.params;
    env.params_read = nullptr;
    if (auto v = ir::evaluate(inner, env); v && *v <= 0) out.push_back(b);
  }
  return out;
}

std::string proveInnerCases(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                            const TripProofOptions& opts, ProofBudget& budget, uint64_t& states,
                            const ir::ExprPtr& inner) {
  const std::string E = ir::exprToString(*inner, s);
  auto some = std::make_shared<ir::Schedule>(s), none = std::make_shared<ir::Schedule>(s);
  some->assumes.push_back({ir::makeExpr(ir::ExprKind::Ge, {inner, ir::makeConst(1)}), s.range});
  none->assumes.push_back({ir::makeExpr(ir::ExprKind::Le, {inner, ir::makeConst(0)}), s.range});
  std::string decided[2];
  decideCaseGuards(some, opts, budget, decided[0]);
  decideCaseGuards(none, opts, budget, decided[1]);
  std::map<const ir::Expr*, std::pair<ir::ExprPtr, int64_t>> loops;
  bool ok = true;
  for (ir::RoleBody& body : none->bodies) ok = freshInnerBounds(body.body, *inner, loops) && ok;
  if (!ok || loops.empty()) throw Fail(fmt::format("a loop bounded by {} has no constant start or step", E));
  BvProver prover(*none, solverLimits(opts, budget));
  std::map<const ir::Expr*, int64_t> dead;
  for (const auto& [node, bound] : loops) {
    if (prover.prove(ir::makeExpr(ir::ExprKind::Le, {bound.first, ir::makeConst(bound.second)})).kind !=
        BvVerdict::Holds)
      throw Fail(fmt::format("with {} <= 0, a loop bounded by {} is not shown to run no iteration", E,
                             ir::exprToString(*bound.first, s)));
    dead[node] = bound.second;
  }
  // Built with E's parameters at 0, the loops it leaves empty count as
  // writing their bodies (a degenerate size): so they must for every
  // binding of the case (an empty lm.cdiv(K - 64, 64) is K = 1..64 too,
  // where they write nothing; docs/z3.md "Soundness review, session 33").
  if (sizesWhere(prover, *inner, ir::makeExpr(ir::ExprKind::Le, {inner, ir::makeConst(0)})) !=
      EmptyLoopSizes::Degenerate)
    throw Fail(fmt::format("with {} <= 0, the allowed bindings are not shown to be all at a zero or negative size "
                           "(an empty loop writes its body only there: data.uninitialized)",
                           E));
  const std::vector<Binding> none_checked = bindingsWithNoInnerIteration(*inner, checked);
  if (none_checked.empty())
    throw Fail(fmt::format("no checked binding has {} <= 0 with its parameters at 0", E));
  std::string engines[2];
  proveTwoCases(budget, {fmt::format("with {} >= 1", E), fmt::format("with {} <= 0", E)}, "", engines,
                [&](int c, TripLoops& tl, std::vector<Binding>& bindings) {
                  return c == 0 ? proveSchedule(*some, target, checked, opts, budget, states, tl, bindings)
                                : proveSchedule(*none, target, none_checked, opts, budget, states, tl, bindings, dead);
                }, &checked);
  return fmt::format("for {} >= 1{}: {}; for {} <= 0, where the K loops run no iteration{}: {}", E, decided[0],
                     engines[0], E, decided[1], engines[1]);
}

}  // namespace

namespace {

// proveEveryTripCount within a budget (the restart argument's one-tile
// proof shares the caller's).
ModelCheckResult proveWithinAsWritten(const ir::Schedule& schedule, ir::Target target,
                                      const std::vector<Binding>& checked, const TripProofOptions& opts,
                                      ProofBudget& budget) {
  // a loop the trip count leaves empty: the sizes of the bindings with that
  // count (a nested proof, the restart argument's one tile, asks with its
  // own budget; the scope gives the outer one's back)
  const trip::ScopedProofSemantics semantics(
      opts.build, [&opts, &budget](const ir::Schedule& x, const ir::Expr& e, int64_t value) {
        BvProver prover(x, solverLimits(opts, budget));
        const ir::ExprPtr node(std::shared_ptr<const ir::Expr>{}, &e);  // non-owning: the schedule owns it
        return sizesWhere(prover, e, ir::makeExpr(ir::ExprKind::Eq, {node, ir::makeConst(value)}));
      });
  ModelCheckResult res;
  res.engine = "lap induction";
  res.outcome = Outcome::Unknown;
  TripLoops tl;
  std::vector<Binding> bindings = checked;  // with the fixed parameters' values of the current proof
  // Guards whose branches build alike read as true (trip_guards.h): the
  // copy builds the schedule's systems for every binding without reading
  // their conditions. It must outlive the proof (the Met's trip expression
  // and the systems point into it; its expressions are the schedule's).
  std::unique_ptr<BvProver> alike_prover;
  const std::optional<trip::AlikeGuards> alike = trip::dropAlikeGuards(schedule, [&](const ir::ExprPtr& g) {
    if (!alike_prover) alike_prover = std::make_unique<BvProver>(schedule, solverLimits(opts, budget));
    return alike_prover->prove(g).kind == BvVerdict::Holds;
  });
  alike_prover.reset();
  const ir::Schedule& s = alike ? *alike->s : schedule;
  const ExactCopy alike_runs(schedule, alike ? &*alike->s : nullptr);  // (the schedule's systems)
  try {
    if (checked.empty()) throw Fail("no parameter values were checked");
    uint64_t states = 0;
    try {
      res.engine = proveSchedule(s, target, checked, opts, budget, states, tl, bindings);
    } catch (const Met&) {
      throw;
    } catch (const Fail& f) {
      // The argument does not apply as the schedule is written: once per
      // allowed outcome of its guards on parameters, if it has some.
      // Or, for a K loop that may run no iteration, once per case.
      const auto* empty = dynamic_cast<const InnerMayBeEmpty*>(&f);
      if (!budget.exhausted().empty()) throw;
      if (!empty && trip::guardCount(s) == 0) {
        res.engine = proveTilesPerInnerValue(f, s, target, checked, opts, budget, states, tl, bindings);
      } else {
        try {
          res.engine = empty ? proveInnerCases(s, target, checked, opts, budget, states, empty->inner)
                             : proveGuardCases(s, target, checked, opts, budget, states);
        } catch (const Fail& g) {
          if (!budget.exhausted().empty()) throw;
          Fail both(fmt::format("{}; {}: {}", f.what(),
                                empty ? "per case of the K loop's trip count" : "per outcome of the guards", g.what()));
          both.witnesses = f.witnesses;
          both.witnesses.insert(both.witnesses.end(), g.witnesses.begin(), g.witnesses.end());
          if (dynamic_cast<const Met*>(&g)) throw both;
          res.engine = proveTilesPerInnerValue(both, s, target, checked, opts, budget, states, tl, bindings);
        }
      }
    }
    if (budget.workOut()) throw Fail(budget.exhausted());  // proved iff the work fits the budget
    if (alike)
      res.engine = fmt::format("{} guard{} whose branches build alike read as taken ({}): {}", alike->count,
                               alike->count > 1 ? "s" : "", alike->text, res.engine);
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
    res.witnesses = f.witnesses;
  }
  return res;
}

// Where a table read one slice per K iteration can be widened to its slot
// (trip::widenTableReads, docs/z3.md "A table read one slice per K
// iteration, widened to its slot"), the copy so widened first: every rule
// finds at least as much on it, so its proof is one of the schedule. A
// slice that moves with the K loop stops lap induction on the schedule and
// on every case copy it splits into. Not proved so (a violation met on the
// copy is no finding: it reads more), the schedule as written.
ModelCheckResult proveWithin(const ir::Schedule& schedule, ir::Target target, const std::vector<Binding>& checked,
                             const TripProofOptions& opts, ProofBudget& budget) {
  std::optional<trip::WidenedReads> w;
  if (!checked.empty()) w = trip::widenTableReads(schedule, solverLimits(opts, budget));
  if (!w) return proveWithinAsWritten(schedule, target, checked, opts, budget);
  ModelCheckResult wide = proveWithinAsWritten(*w->s, target, checked, opts, budget);
  if (wide.outcome == Outcome::Proved) {
    wide.engine = fmt::format("{}: {}", w->text, wide.engine);
    return wide;
  }
  ModelCheckResult res = proveWithinAsWritten(schedule, target, checked, opts, budget);
  if (res.outcome == Outcome::Unknown)
    res.detail = fmt::format("{}; {}: {}{}", res.detail, w->text,
                             wide.outcome == Outcome::Violation ? "the exploration meets " : "", wide.detail);
  return res;
}

// The restart argument (docs/z3.md "The writer each read meets; read-backs
// once per tile", helper grouped4): a schedule in the restart form
// (trip_restart.h: every role `for t in lm.range(0, N): lm.sync(bar) ;
// T(t)`), whose registers and read-backs meet their conditions, is clean
// for every N when the one-tile schedule (N fixed to 1) is proved with the
// read caps off and the last-read rule holds on the writers its reads
// meet; with N <= 0 no process runs an op. A slice loop whose cut is its
// last lm.sync (Marlin's `for s: H ; S ; T`, trip_restart_rotate.h) is
// asked the same of its rotated text `for s: S ; H ; T`, which runs each
// process's non-sync ops in the schedule's order; its one-slice proof is
// the schedule's own (docs/z3.md "Marlin's slice loop proved"). The
// argument in one line, or why not (the reason for "unknown").
struct RestartAnswer {
  bool proved = false;
  std::string text;
};

// The text the restart conditions are asked of: the schedule itself, or
// its rotation (only with nothing before the slice loop: code there would
// run in the zero-slice system, which is not proved, and its writes would
// start the generations of slice 0 off the per-slice rates the last-read
// rule compares). Empty with `why` set when neither form holds.
std::optional<ir::Schedule> restartText(const ir::Schedule& s, bool& rotated, std::string& why) {
  const trip::RestartForm form = trip::restartForm(s);
  rotated = false;
  if (form.ok) return s;
  trip::RotatedRestart rot = trip::rotatedRestartForm(s);
  if (!rot.ok) {
    why = fmt::format("{}; rotated at the slice's last lm.sync: {}", form.reason, rot.reason);
    return std::nullopt;
  }
  for (const ir::RoleBody& b : s.bodies)
    if (b.body.size() != 1) {
      why = "the slice loop has code before it (the zero-slice system is not proved)";
      return std::nullopt;
    }
  rotated = true;
  return std::move(rot.rotated);
}

RestartAnswer proveByRestart(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                             const TripProofOptions& opts, ProofBudget& budget) {
  bool rotated = false;
  std::string why_not;
  const std::optional<ir::Schedule> text = restartText(s, rotated, why_not);
  if (!text) return {false, why_not};
  const ir::ExprPtr& count = text->bodies.front().body.front().hi;
  if (count->kind != ir::ExprKind::Param) return {false, "the tile count is no parameter"};
  // Every segment of a run is a one-tile run, whatever N the facts allow:
  // a fact on N (N >= 2) would make the one-tile proof vacuous.
  for (const ir::Assume& a : s.assumes)
    if (a.cond && ir::readsSymbol(*a.cond, ir::ExprKind::Param, count->index))
      return {false, fmt::format("an lm.assume fact reads the tile count (line {})", a.range.line)};
  {
    BvProver prover(s, solverLimits(opts, budget));
    const std::string regs = trip::restartRegisters(
        *text, [&](const ir::ExprPtr& g) { return prover.prove(g).kind == BvVerdict::Holds; });
    if (!regs.empty()) return {false, regs};
  }
  if (auto why = trip::restartReadBacks(*text); !why.empty()) return {false, why};
  ir::Schedule one = s;
  one.assumes.push_back({ir::build::eq(count, ir::build::lit(1)), {}});
  std::vector<Binding> ones;
  for (Binding b : checked) {
    b.params[count->index] = 1;
    const bool seen = std::any_of(ones.begin(), ones.end(), [&](const Binding& o) {
      return o.params == b.params && std::equal(o.block_idx, o.block_idx + 3, b.block_idx) &&
             std::equal(o.grid_dim, o.grid_dim + 3, b.grid_dim);
    });
    if (!seen) ones.push_back(b);
  }
  trip::ReadMeets meets;
  TripProofOptions inner = opts;
  inner.build.cap_read_generations = false;
  inner.meets = &meets;
  const ModelCheckResult r = proveWithin(one, target, ones, inner, budget);
  const std::string n = s.params[count->index].name;
  if (r.outcome != Outcome::Proved)
    return {false, fmt::format("the one-tile proof ({} == 1, reads without the caps): {}", n,
                               r.outcome == Outcome::Violation ? "meets " + r.violations.front().rule : r.detail)};
  if (meets.explorations == 0) return {false, "the one-tile proof explored nothing that records the writers reads meet"};
  if (auto why = trip::lastReadRule(s, meets); !why.empty()) return {false, why};
  if (rotated)
    return {true, fmt::format("restart argument: the slice loop over {0} cut at its last top-level lm.sync into "
                              "one-slice runs, rotated ({0} <= 0 runs no op; after the cut only registers and global "
                              "memory; the last read of each index meets every writer its reads meet); for {0} == 1 "
                              "without the read caps: {1}",
                              n, r.engine)};
  return {true, fmt::format("restart argument: the tile loop over {0} cut at its first lm.sync into one-tile runs "
                            "({0} <= 0 runs no op; the last read of each index meets every writer its reads meet); "
                            "for {0} == 1 without the read caps: {1}",
                            n, r.engine)};
}

// ======================================== the block index as a parameter
// (docs/z3.md "Loops bounded by the block index: the index as a parameter",
// helper bidx, session 33)

// The largest grid dimension CUDA launches: 2^31 - 1 blocks in x, 65,535
// in y and z.
constexpr int64_t kMaxGridDim[3] = {(int64_t{1} << 31) - 1, 65535, 65535};

// A copy of a schedule in which lm.block_idx(d) and lm.grid_dim(d) are
// parameters (`params[block[d]]`, `params[grid[d]]`), with the range CUDA
// gives them as lm.assume facts: 0 <= b < g <= kMaxGridDim[d] (b <=
// kMaxGridDim[d] - 1 where the schedule reads no lm.grid_dim(d)).
struct BlockParams {
  std::shared_ptr<ir::Schedule> s;
  std::map<int, int> block, grid;  // dimension -> the copy's parameter index
  std::string text;                // the argument in words
};

// Does a loop of b (at any depth) read one of these kinds in its start,
// bound or step?
bool loopReads(const ir::Block& b, std::initializer_list<ir::ExprKind> kinds) {
  auto reads = [&](const ir::ExprPtr& e) { return e && ir::exprUses(*e, kinds); };
  return std::any_of(b.begin(), b.end(), [&](const ir::Stmt& st) {
    return (st.kind == ir::Stmt::Kind::For && (reads(st.lo) || reads(st.hi) || reads(st.step))) ||
           loopReads(st.body, kinds) || loopReads(st.orelse, kinds);
  });
}

// e with every lm.block_idx(d) / lm.grid_dim(d) of `bp` its parameter.
ir::ExprPtr blockAsParam(const ir::ExprPtr& e, const BlockParams& bp) {
  if (!e) return e;
  const std::map<int, int>* of = e->kind == ir::ExprKind::BlockIdx ? &bp.block
                                 : e->kind == ir::ExprKind::GridDim ? &bp.grid
                                                                    : nullptr;
  if (of && of->count(e->index)) return symbolNode(ir::ExprKind::Param, of->at(e->index));
  if (e->args.empty()) return e;
  auto copy = std::make_shared<ir::Expr>(*e);
  for (ir::ExprPtr& a : copy->args) a = blockAsParam(a, bp);
  return copy;
}

// The copy, for a schedule one CTA of which the builder models (no cluster:
// there one system holds several block indices), a loop of which reads a
// block index or grid size and none a parameter; nullopt otherwise. Every binding of the
// schedule (parameters, block index b, grid g) is a binding of the copy
// (the same parameters, the new ones at b and g) that its facts allow, and
// for it the copy's builder evaluates every rewritten expression to the
// value the schedule's gives: a proof of the copy for every allowed binding
// is one of the schedule. Reads left outside the role bodies and the facts
// (none in the corpus) stay block indices, which the proof refuses as
// before.
std::optional<BlockParams> blockIndexAsParameter(const ir::Schedule& s) {
  if (s.clusterSize() > 1 || s.cluster_ops) return std::nullopt;
  auto anyLoopReads = [&](std::initializer_list<ir::ExprKind> kinds) {
    return std::any_of(s.bodies.begin(), s.bodies.end(), [&](const ir::RoleBody& b) { return loopReads(b.body, kinds); });
  };
  // A loop bound that reads a parameter makes the schedule's own trip
  // expression (a persistent tile count `lm.cdiv(max(tiles - lm.block_idx(0),
  // 0), lm.grid_dim(0))` reads the block index already): the copy would be
  // refused alike, so it is not tried.
  if (!anyLoopReads({ir::ExprKind::BlockIdx, ir::ExprKind::GridDim}) || anyLoopReads({ir::ExprKind::Param}))
    return std::nullopt;
  std::set<int> dims, grid_read;
  auto collect = [&](const ir::ExprPtr& e) {
    if (e)
      ir::anySubExpr(*e, [&](const ir::Expr& x) {
        if (x.kind == ir::ExprKind::BlockIdx || x.kind == ir::ExprKind::GridDim) dims.insert(x.index);
        if (x.kind == ir::ExprKind::GridDim) grid_read.insert(x.index);
        return false;
      });
    return e;
  };
  BlockParams bp;
  bp.s = std::make_shared<ir::Schedule>(s);
  for (ir::RoleBody& body : bp.s->bodies) mapExprs(body.body, collect);
  for (const ir::Assume& a : s.assumes) collect(a.cond);
  auto fresh = [&](const std::string& name) {
    bp.s->params.push_back({name, ir::ParamType::I32, s.range});
    return static_cast<int>(bp.s->params.size()) - 1;
  };
  auto fact = [&](ir::ExprKind k, ir::ExprPtr a, ir::ExprPtr b) {
    bp.s->assumes.push_back({ir::makeExpr(k, {std::move(a), std::move(b)}), s.range});
  };
  std::vector<std::string> words;
  for (int d : dims) {
    if (d < 0 || d > 2) return std::nullopt;
    bp.block[d] = fresh(fmt::format("lm.block_idx({})", d));
    const ir::ExprPtr b = symbolNode(ir::ExprKind::Param, bp.block[d]);
    fact(ir::ExprKind::Ge, b, ir::makeConst(0));
    if (grid_read.count(d)) {
      bp.grid[d] = fresh(fmt::format("lm.grid_dim({})", d));
      const ir::ExprPtr g = symbolNode(ir::ExprKind::Param, bp.grid[d]);
      fact(ir::ExprKind::Lt, b, g);
      fact(ir::ExprKind::Le, g, ir::makeConst(kMaxGridDim[d]));
      words.push_back(fmt::format("0 <= lm.block_idx({0}) < lm.grid_dim({0}) <= {1}", d, kMaxGridDim[d]));
    } else {
      fact(ir::ExprKind::Lt, b, ir::makeConst(kMaxGridDim[d]));
      words.push_back(fmt::format("0 <= lm.block_idx({}) < {}", d, kMaxGridDim[d]));
    }
  }
  for (ir::RoleBody& body : bp.s->bodies)
    mapExprs(body.body, [&](const ir::ExprPtr& e) { return blockAsParam(e, bp); });
  for (size_t i = 0; i < s.assumes.size(); ++i) bp.s->assumes[i].cond = blockAsParam(s.assumes[i].cond, bp);
  bp.text = fmt::format("the block index read as a parameter ({})", fmt::join(words, ", "));
  return bp;
}

// A binding of the schedule as one of the copy, and back.
Binding toBlockParams(const BlockParams& bp, Binding b) {
  for (const auto& [d, p] : bp.block) b.params[p] = b.block_idx[d];
  for (const auto& [d, p] : bp.grid) b.params[p] = b.grid_dim[d];
  return b;
}
Binding fromBlockParams(const BlockParams& bp, Binding b) {
  for (const auto& [d, p] : bp.block)
    if (auto it = b.params.find(p); it != b.params.end()) {
      b.block_idx[d] = it->second;
      b.params.erase(it);
    }
  for (const auto& [d, p] : bp.grid)
    if (auto it = b.params.find(p); it != b.params.end()) {
      b.grid_dim[d] = it->second;
      b.params.erase(it);
    }
  for (const auto& [d, p] : bp.block)  // a grid that holds the block
    if (!bp.grid.count(d)) b.grid_dim[d] = std::max(b.grid_dim[d], b.block_idx[d] + 1);
  b.replace = nullptr;  // a node of the copy
  return b;
}

// Where the schedule as written is unknown and a loop reads the block
// index: the proof of the copy above, on what is left of the budget. A
// violation met there is no finding (unknown: the bounded check decides);
// witnesses go back as the schedule's bindings.
void proveWithBlockParams(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                          const TripProofOptions& opts, ProofBudget& budget, ModelCheckResult& res) {
  if (res.outcome != Outcome::Unknown || opts.meets || !budget.exhausted().empty() || checked.empty()) return;
  const std::optional<BlockParams> bp = blockIndexAsParameter(s);
  if (!bp) return;
  std::vector<Binding> copy_checked;
  for (const Binding& b : checked) copy_checked.push_back(toBlockParams(*bp, b));
  ModelCheckResult again = proveWithin(*bp->s, target, copy_checked, opts, budget);
  if (again.outcome == Outcome::Proved && !budget.workOut()) {
    res = again;
    res.engine = fmt::format("{}: {}", bp->text, again.engine);
    return;
  }
  res.detail += fmt::format("; {}: {}", bp->text,
                            again.outcome == Outcome::Violation
                                ? fmt::format("meets {} (no finding: the bounded check decides)",
                                              again.violations.empty() ? "a violation" : again.violations.front().rule)
                                : again.detail);
  for (const Binding& w : again.witnesses) res.witnesses.push_back(fromBlockParams(*bp, w));
}

// `hi` with the core splitOffset finds in it replaced by `core` (the
// constant offsets around it kept as written).
ir::ExprPtr withCore(const ir::ExprPtr& hi, const ir::ExprPtr& core) {
  const bool sum = hi->args.size() == 2 && (hi->kind == ir::ExprKind::Add || hi->kind == ir::ExprKind::Sub);
  const int inner = !sum ? -1 : ir::constValue(hi->args[1]) ? 0 : hi->kind == ir::ExprKind::Add && ir::constValue(hi->args[0]) ? 1 : -1;
  if (inner < 0) return core;
  auto out = std::make_shared<ir::Expr>(*hi);
  out->args[inner] = withCore(hi->args[inner], core);
  return out;
}

// A copy of the schedule whose expressions of one value as a loop bound are
// spelled alike (docs/z3.md "Loop bounds respelled by value" and
// "Expressions respelled as the loop bound of their value"):
//  1. the cores of the loop ends (splitOffset's E of `E + c`) that read a
//     parameter and no loop variable, one per value in program order (the
//     first spelling met; ValueComparer, the builder's cross-role pairing's
//     comparison, under the facts);
//  2. a core whose proper sub-expression has the value of another core (one
//     that is itself not rewritten by this step: no chains, no cycles) reads
//     that core there (`2 * lm.cdiv(K, 128)` beside `(K + 127) // 128`: the
//     multiple `loopsInBlocks` then reads as one of the other loop's bound);
//  3. every expression of the schedule, top down: a part that reads the
//     schedule's symbols but no loop variable and whose core has the value
//     of a core of step 2 and reads the same symbols is that core (its
//     constant offsets as written: `withCore`); else its operands are asked.
//     So a loop end, a ring stride `t * (K // 64)` under K % 64 == 0, or a
//     guard's `max(K // 64, 1)` reads the trip expression in its one
//     spelling, which every later step of the proof (the trip expression, the
//     products t * E_B, the replaced node of a trip count T) matches.
// Each replacement is a fresh copy of the core (the proof keys some reads by
// node). nullopt: nothing respelled.
struct RespelledBounds {
  std::shared_ptr<ir::Schedule> s;
  std::string text;
};

// The symbols an expression reads besides loop variables: (kind, index) of
// each parameter, lm.block_idx(d), lm.grid_dim(d) and lm.instance().
std::set<std::pair<ir::ExprKind, int>> symbolsOf(const ir::Expr& e) {
  std::set<std::pair<ir::ExprKind, int>> out;
  anySubExpr(e, [&](const ir::Expr& x) {
    switch (x.kind) {
      case ir::ExprKind::Param: case ir::ExprKind::BlockIdx: case ir::ExprKind::GridDim:
        out.insert({x.kind, x.index});
        break;
      case ir::ExprKind::Instance: out.insert({x.kind, 0}); break;
      default: break;
    }
    return false;
  });
  return out;
}

// A copy of e of its own nodes (the proof keys some reads by node).
ir::ExprPtr freshCopy(const ir::ExprPtr& e) {
  auto out = std::make_shared<ir::Expr>(*e);
  for (ir::ExprPtr& a : out->args)
    if (a) a = freshCopy(a);
  return out;
}

// e with each operand replaced by f(operand); e itself where none changes.
ir::ExprPtr withArgs(const ir::ExprPtr& e, const std::function<ir::ExprPtr(const ir::ExprPtr&)>& f) {
  std::shared_ptr<ir::Expr> out;
  for (size_t i = 0; i < e->args.size(); ++i) {
    if (!e->args[i]) continue;
    ir::ExprPtr a = f(e->args[i]);
    if (a == e->args[i]) continue;
    if (!out) out = std::make_shared<ir::Expr>(*e);
    out->args[i] = std::move(a);
  }
  return out ? ir::ExprPtr(out) : e;
}

// Prover queries one respelling may send (kBoundQueryLimits each: 1 s, 2M
// resource units); past them a part the cheap steps leave open keeps its
// spelling (Unknown is never Equal).
inline constexpr int kRespellQueries = 8;

class BoundRespeller {
 public:
  explicit BoundRespeller(const ir::Schedule& s) : s_(s), comparer_(s, kBoundQueryLimits) {
    comparer_.capProverQueries(kRespellQueries);
  }
  // Step 1.
  void collectCores(const ir::Block& b) {
    for (const ir::Stmt& st : b) {
      if (st.kind == ir::Stmt::Kind::For && st.hi && mentionsParam(*st.hi)) addCore(splitOffset(st.hi).first);
      collectCores(st.body);
      collectCores(st.orelse);
    }
  }
  // Step 2.
  void refineCores() {
    std::vector<bool> plain(cores_.size());
    for (size_t i = 0; i < cores_.size(); ++i)
      plain[i] = !std::any_of(cores_[i]->args.begin(), cores_[i]->args.end(), [&](const ir::ExprPtr& a) {
        return a && anySubExpr(*a, [&](const ir::Expr& x) {
                 return valued(x) && coreOfValue(x, [&](size_t c) { return c != i; });
               });
      });
    for (size_t i = 0; i < cores_.size(); ++i) {
      if (plain[i]) continue;
      const auto among = [&](size_t c) { return c != i && plain[c]; };
      std::function<ir::ExprPtr(const ir::ExprPtr&)> part = [&](const ir::ExprPtr& e) {
        return asCore(e, among, part);
      };
      cores_[i] = withArgs(cores_[i], part);
    }
  }
  // Step 3 on one expression.
  ir::ExprPtr respell(const ir::ExprPtr& e) {
    const auto any = [](size_t) { return true; };
    std::function<ir::ExprPtr(const ir::ExprPtr&)> self = [&](const ir::ExprPtr& x) {
      return asCore(x, any, self, /*beside=*/true);
    };
    return e ? self(e) : e;
  }
  std::vector<std::string> done;  // "X as Y" per part respelled

 private:
  using Among = std::function<bool(size_t)>;
  // A part that may have a core's value: it reads a symbol and no loop
  // variable (a core's variables need not be in scope).
  static bool valued(const ir::Expr& e) {
    return e.kind != ir::ExprKind::Const && !ir::exprUses(e, {ir::ExprKind::LoopVar}) && !symbolsOf(e).empty();
  }
  void addCore(const ir::ExprPtr& core) {
    const auto any = [](size_t) { return true; };
    if (valued(*core) && !coreOfValue(*core, any) && !coreOfValueBeside(*core, any)) cores_.push_back(core);
  }
  // e's core read as the core of its value (one of `among`), its constant
  // offsets kept; else (`beside`: step 3) as a core plus or minus 1, its
  // offsets added to that; else e with its operands asked (`next`).
  ir::ExprPtr asCore(const ir::ExprPtr& e, const Among& among, const std::function<ir::ExprPtr(const ir::ExprPtr&)>& next,
                     bool beside = false) {
    if (valued(*e)) {
      const auto [core, off] = splitOffset(e);
      if (const std::optional<size_t> c = coreOfValue(*core, among)) {
        if (ir::sameExpr(*core, *cores_[*c])) return e;
        note(*core, *c);
        return withCore(e, freshCopy(cores_[*c]));
      }
      if (beside)
        if (const auto cd = coreOfValueBeside(*core, among)) {
          note(*core, cd->first, cd->second);
          return plusConst(freshCopy(cores_[cd->first]), off + cd->second);
        }
    }
    return withArgs(e, next);
  }
  // (c, d), d = -1 or 1: the first core (of `among`) that e equals plus d
  // (`K // 64` as `lm.cdiv(K, 64) - 1` under `K % 64 != 0`), reading e's
  // symbols; asked only where no core has e's value.
  std::optional<std::pair<size_t, int64_t>> coreOfValueBeside(const ir::Expr& e, const Among& among) {
    const std::string key = ir::exprToString(e, s_);
    ir::ExprPtr x(std::shared_ptr<const ir::Expr>{}, &e);  // non-owning: compared here only
    for (size_t i = 0; i < cores_.size(); ++i) {
      if (!among(i) || symbolsOf(*cores_[i]) != symbolsOf(e)) continue;
      for (const int64_t d : {int64_t{-1}, int64_t{1}}) {
        auto [it, fresh] = beside_.try_emplace({key, i, d}, false);
        if (fresh) it->second = comparer_.compare({{plusConst(cores_[i], d), x}}) == ValueEquality::Equal;
        if (it->second) return std::pair{i, d};
      }
    }
    return std::nullopt;
  }

  // The first core (of `among`) spelled as e, else one of e's value that
  // reads e's symbols.
  std::optional<size_t> coreOfValue(const ir::Expr& e, const Among& among) {
    for (size_t i = 0; i < cores_.size(); ++i)
      if (among(i) && ir::sameExpr(*cores_[i], e)) return i;
    const std::string key = ir::exprToString(e, s_);
    for (size_t i = 0; i < cores_.size(); ++i) {
      if (!among(i)) continue;
      auto [it, fresh] = equal_.try_emplace({key, i}, false);
      if (fresh) {
        ir::ExprPtr x(std::shared_ptr<const ir::Expr>{}, &e);  // non-owning: compared here only
        it->second = symbolsOf(*cores_[i]) == symbolsOf(e) && comparer_.compare({{cores_[i], x}}) == ValueEquality::Equal;
      }
      if (it->second) return i;
    }
    return std::nullopt;
  }
  void note(const ir::Expr& e, size_t core, int64_t d = 0) {
    std::string text = fmt::format("{} as {}", ir::exprToString(e, s_), ir::exprToString(*plusConst(cores_[core], d), s_));
    if (std::find(done.begin(), done.end(), text) == done.end()) done.push_back(std::move(text));
  }
  const ir::Schedule& s_;
  ValueComparer comparer_;
  std::vector<ir::ExprPtr> cores_;                         // the first core of each value met
  std::map<std::pair<std::string, size_t>, bool> equal_;  // (spelling, core) -> shown equal
  std::map<std::tuple<std::string, size_t, int64_t>, bool> beside_;  // (spelling, core, d) -> shown core + d
};
std::optional<RespelledBounds> respelledBounds(const ir::Schedule& s) {
  BoundRespeller r(s);
  for (const ir::RoleBody& body : s.bodies) r.collectCores(body.body);
  r.refineCores();
  auto copy = std::make_shared<ir::Schedule>(s);
  ir::forEachExprField(*copy, [&](ir::ExprPtr& e) { e = r.respell(e); });
  if (r.done.empty()) return std::nullopt;
  return RespelledBounds{copy, fmt::format("loop bounds of one value read in one spelling ({})", fmt::join(r.done, ", "))};
}

std::shared_ptr<ir::Schedule> respelledCopy(const ir::Schedule& s, std::string& text) {
  std::optional<RespelledBounds> r = respelledBounds(s);
  if (!r) return nullptr;
  text = std::move(r->text);
  return std::move(r->s);
}

}  // namespace

std::shared_ptr<const ir::Schedule> kSplitTilesCopy(const ir::Schedule& s) {
  const std::optional<KSplit> ks = kSplitShape(s);
  if (!ks) return nullptr;
  std::optional<KSplitTiles> copy = kSplitAsTiles(s, *ks, {});
  return copy ? copy->s : nullptr;
}

std::vector<std::string> copyReadingNames() {
  std::vector<std::string> names;
  for (const CopyReading& reading : kCopyReadings) names.push_back(reading.name);
  return names;
}

static ModelCheckResult proveEveryTripCountAsWritten(const ir::Schedule& schedule, ir::Target target,
                                                     const std::vector<Binding>& checked,
                                                     const TripProofOptions& opts);

// A violation the proof of `s` answers at a trip count (Binding::replace)
// as a sighting (sightedOn), its binding solved on `s` while it lives.
static void sightedAtTrip(const ir::Schedule& s, const Violation& v, const std::vector<Binding>& checked,
                          const TripProofOptions& opts) {
  if (checked.empty()) return;
  ProofBudget budget(opts.work, opts.timeout_ms);
  TripLoops tl;
  tl.trip = ir::ExprPtr(std::shared_ptr<const ir::Expr>{}, v.binding->replace);  // non-owning: `s` owns it
  const Met met("", v, v.binding->replace_value, v.trip_open);
  sightedOn(s, met, ir::makeConst(1), tl, checked.front(), opts, budget);
}

// The schedule with its loop bounds of one value spelled alike
// (respelledBounds): it builds, for every allowed binding, the schedule's
// systems (every bound of the same value, reading the same parameters), so
// its proof is one of the schedule. A violation met on it is no finding
// (its trip count's node is the copy's spelling: unknown, the bounded
// check decides), but a sighting: a binding solved on the copy while it
// lives goes back as a witness (sightedAtTrip).
static ModelCheckResult proveEveryTripCountRespelled(const ir::Schedule& schedule, ir::Target target,
                                                    const std::vector<Binding>& checked,
                                                    const TripProofOptions& opts) {
  const std::optional<RespelledBounds> respelled = respelledBounds(schedule);
  if (!respelled) return proveEveryTripCountAsWritten(schedule, target, checked, opts);
  const ExactCopy exact(schedule, respelled->s.get());
  ModelCheckResult res = proveEveryTripCountAsWritten(*respelled->s, target, checked, opts);
  for (Binding& w : res.witnesses) w.replace = nullptr;
  if (res.outcome == Outcome::Proved) {
    res.engine = fmt::format("{}: {}", respelled->text, res.engine);
  } else if (res.outcome == Outcome::Violation) {
    // the copy builds the schedule's systems: a sighting (its binding is
    // solved on the copy, whose trip expression the violation names)
    for (const Violation& v : res.violations)
      if (v.binding && v.binding->replace) sightedAtTrip(*respelled->s, v, checked, opts);
    res.outcome = Outcome::Unknown;
    res.detail = fmt::format("{}: meets {} (no finding: the bounded check decides)", respelled->text,
                             res.violations.empty() ? "a violation" : res.violations.front().rule);
    res.violations.clear();
  } else {
    res.detail = fmt::format("{}: {}", respelled->text, res.detail);
  }
  return res;
}

// The schedule with its private per-instance loops collapsed to their first
// iteration (trip::collapsePrivateInstanceLoops, docs/z3.md "Per-instance
// trip counts of private loops"): every run of the schedule maps onto a run
// of the copy that meets the same violations, so the copy's proof is one of
// the schedule. Not proved so (a violation met on the copy is no finding:
// the bounded check decides), the schedule as written.
static ModelCheckResult proveEveryTripCountCollapsed(const ir::Schedule& schedule, ir::Target target,
                                                    const std::vector<Binding>& checked,
                                                    const TripProofOptions& opts);

// The proof, with the sightings (SightingLog) of the outermost one handed
// back with its Unknown: the violations of an Unknown answer, and their
// witnesses (docs/z3.md "A violation the proof sees is never checked").
ModelCheckResult proveEveryTripCount(const ir::Schedule& schedule, ir::Target target,
                                     const std::vector<Binding>& checked, const TripProofOptions& opts) {
  if (schedule.cluster_ops && clusterExitsMatter(schedule)) {
    // (the lap arguments, the pace bounds and the reduction count a cluster
    // barrier generation by every warp: docs/semantics.md "Clusters")
    ModelCheckResult res;
    res.detail = "a process's exit may complete a generation of the cluster barrier (lm.cluster_sync() not in the "
                 "same number at the top level of every role): the proof does not count exits";
    return res;
  }
  if (t_sightings) return proveEveryTripCountCollapsed(schedule, target, checked, opts);
  SightingLog log;
  log.exact.insert(&schedule);
  struct Scope {
    explicit Scope(SightingLog* l) { t_sightings = l; }
    ~Scope() { t_sightings = nullptr; }
  } scope(&log);
  ModelCheckResult res = proveEveryTripCountCollapsed(schedule, target, checked, opts);
  if (res.outcome == Outcome::Unknown) {
    res.violations = std::move(log.seen);
    res.witnesses.insert(res.witnesses.end(), log.witnesses.begin(), log.witnesses.end());
  }
  return res;
}

static ModelCheckResult proveEveryTripCountCollapsed(const ir::Schedule& schedule, ir::Target target,
                                                    const std::vector<Binding>& checked,
                                                    const TripProofOptions& opts) {
  const std::optional<trip::CollapsedLoops> collapsed = trip::collapsePrivateInstanceLoops(schedule);
  if (!collapsed) return proveEveryTripCountRespelled(schedule, target, checked, opts);
  ModelCheckResult copy = proveEveryTripCountRespelled(*collapsed->s, target, checked, opts);
  if (copy.outcome == Outcome::Proved) {
    copy.engine = fmt::format("{}: {}", collapsed->text, copy.engine);
    return copy;
  }
  ModelCheckResult res = proveEveryTripCountRespelled(schedule, target, checked, opts);
  if (res.outcome == Outcome::Unknown)
    res.detail = fmt::format("{}; {}: {}", res.detail, collapsed->text,
                             copy.outcome == Outcome::Violation
                                 ? fmt::format("meets {} (no finding: the bounded check decides)",
                                               copy.violations.empty() ? "a violation" : copy.violations.front().rule)
                                 : copy.detail);
  for (Binding w : copy.witnesses) {
    w.replace = nullptr;  // a node of the copy
    res.witnesses.push_back(std::move(w));
  }
  return res;
}

static ModelCheckResult proveEveryTripCountAsWritten(const ir::Schedule& schedule, ir::Target target,
                                                     const std::vector<Binding>& checked,
                                                     const TripProofOptions& opts) {
  const bool restart_shaped = !opts.meets && !checked.empty() &&
                              (trip::restartForm(schedule).ok || trip::rotatedRestartForm(schedule).ok);
  unsigned wall_ms = opts.timeout_ms;
  if (restart_shaped) {
    // A schedule in the restart form is asked the restart argument first,
    // on a budget of its own: its one-tile systems are a fraction of the
    // windows the argument for the whole schedule builds (Marlin's slice
    // loop: the persistent proof's grids, 16 tiles of 40 K iterations,
    // refused only after they are built). Proved: the verdict. Else its
    // work is not counted and the proof runs as before, on the whole
    // budget (the same verdict, the restart argument asked again where it
    // was), within what is left of the wall-clock safety limit.
    ProofBudget first(opts.work, opts.timeout_ms);
    const RestartAnswer restart = proveByRestart(schedule, target, checked, opts, first);
    if (restart.proved && !first.workOut()) {
      ModelCheckResult res;
      res.outcome = Outcome::Proved;
      res.engine = restart.text;
      finish(res, first);
      return res;
    }
    if (opts.timeout_ms > 0) wall_ms = first.wallLeftMs();
  }
  ProofBudget budget(opts.work, wall_ms);
  ModelCheckResult res = proveWithin(schedule, target, checked, opts, budget);
  if (res.outcome == Outcome::Unknown && !opts.meets && budget.exhausted().empty() && !checked.empty() &&
      restart_shaped) {
    const RestartAnswer restart = proveByRestart(schedule, target, checked, opts, budget);
    if (restart.proved && !budget.workOut()) {
      res = {};
      res.outcome = Outcome::Proved;
      res.engine = restart.text;
    } else {
      res.detail += fmt::format("; the restart argument: {}", restart.proved ? budget.exhausted() : restart.text);
    }
  }
  proveWithBlockParams(schedule, target, checked, opts, budget, res);
  finish(res, budget);
  return res;
}

// (trip_cluster.h) The same instructions, each access of `c` that writes
// or names no view one of `u`'s, and each byte a read of `c` reads read by
// an access of `u` of the same instruction, view, index and kind meaning
// at least its generation (the caps cut a read into pieces by byte range
// and lower generations). Then the two have the same runs (no step reads a
// data tag), and sim::staleData, monotone in a read's generation, calls
// every read of a run of `c` stale that it calls stale in `u`.
bool trip::capsOnlyLowerReads(const System& u, const System& c) {
  if (u.procs.size() != c.procs.size()) return false;
  auto bare = [](Instr x) {
    x.accesses.clear();
    return x;
  };
  auto kind = [](Access a) {  // an access's fields besides its bytes and generation
    a.lo = a.hi = a.gen = a.stride = 0;
    a.runs = 1;
    return a;
  };
  auto within = [](const Access& a, int64_t lo, int64_t hi) {  // [lo, hi) inside one run of a
    const int64_t k = a.runs > 1 && a.stride > 0 ? std::max<int64_t>(0, (lo - a.lo) / a.stride) : 0;
    const int64_t start = a.lo + k * a.stride;
    return k < a.runs && lo >= start && hi <= start + a.runBytes();
  };
  for (size_t p = 0; p < u.procs.size(); ++p) {
    const std::vector<Instr>&up = u.procs[p].program, &cp = c.procs[p].program;
    if (up.size() != cp.size()) return false;
    for (size_t pc = 0; pc < up.size(); ++pc) {
      if (!sameInstr(bare(up[pc]), bare(cp[pc]))) return false;
      for (const Access& r : cp[pc].accesses) {
        const bool read = !r.write && r.view >= 0;
        bool covered = true;
        forEachRun(r, [&](int64_t lo, int64_t hi) {
          covered = covered && std::any_of(up[pc].accesses.begin(), up[pc].accesses.end(), [&](const Access& a) {
                      return read ? sameAccess(kind(a), kind(r)) && a.gen >= r.gen && within(a, lo, hi)
                                  : sameAccess(a, r);
                    });
        });
        if (!covered) return false;
      }
    }
  }
  return true;
}

}  // namespace cake::encoder
