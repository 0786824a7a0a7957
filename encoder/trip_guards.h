// Guards on unbounded parameters in the proof for every trip count
// (docs/z3.md step 1, "Guards on parameters"): `if M > N:` chooses between
// two bodies for every value of M and N, so the proof need not list the
// values, only the guards' outcomes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "encoder/system_hook.h"
#include "ir/schedule.h"

namespace cake::encoder::trip {

// One choice of outcome for every guard: an evaluation hook that gives each
// guard's condition its outcome (for the builder), and the choice in words.
struct GuardOutcome {
  EvalHook hook;
  std::string text;  // "M > N taken, m_blk + 128 >= M not taken"
};

// The guards to split on: every `if` condition of the role bodies that
// reads a parameter or a block index / grid dimension (lm.block_idx,
// lm.grid_dim) and neither a loop variable nor lm.instance(), so that it has
// one value wherever the builder evaluates it (in every iteration and every
// process; in a modelled cluster, every CTA too: sameInEveryCta) for a given
// binding. Structurally equal conditions are one guard (one value for a
// binding). Returns every combination of the distinct guards' outcomes
// (2^n, n <= max_guards), or an empty list when there are none or a
// condition that reads a parameter also reads a loop variable or the
// instance, or there are more than max_guards: then the split does not
// apply. Every binding gives its guards some outcome, so proofs of every
// combination cover every binding; a combination may be one no binding
// gives (the lm.assume facts are not asked), so a violation met under it is
// no finding.
//
// `holds` proves a goal over the lm.assume facts (the bit-vector prover): it
// is asked whether each guard that reads lm.block_idx takes one outcome in
// every CTA of a modelled cluster (sameInEveryCta); when it cannot show
// that, the split does not apply.
//
// Conditions that read lm.instance() (`if 128 * b + 32 * w < n:`, w the
// instance) are guards too when `possible` is given: such a guard has one
// value per instance of the role that tests it, so its outcome is one per
// instance (the hook reads the instance it is evaluated for), each shown
// defined for every allowed binding (`holds` proves `c or not c` with the
// instance a constant). Then the outcome vectors (at most
// kMaxGuardOutcomes outcomes) are those no prefix of which `possible`
// rules out (given the literals of the prefix: it returns false only when
// no allowed binding gives them all, e.g. the solver proved their
// conjunction's negation), so every allowed binding's vector is among them
// (docs/z3.md "Guards that read the instance under a symbolic loop").
using Holds = std::function<bool(const ir::ExprPtr& goal)>;
using Possible = std::function<bool(const std::vector<ir::ExprPtr>& literals)>;
inline constexpr size_t kMaxGuardOutcomes = 16;
std::vector<GuardOutcome> guardOutcomes(const ir::Schedule& s, const Holds& holds, int max_guards = 5,
                                        const Possible* possible = nullptr);

// In a modelled cluster (the schedule reaches across it: the builder makes
// every CTA of one cluster a part of the system, CTA c with block index
// cluster[d] * b_d + c_d, trip_cluster.h), one system holds several block
// indices, so a guard that reads lm.block_idx can take different outcomes
// in the CTAs of one binding (`if rank == 1 or (blk + 1) % G != 0:`). A
// split that gives every process one outcome would miss those runs. The
// goals that say it cannot: for every CTA c != 0, `cond` at c's block index
// equals `cond` at CTA 0's, written with the prover's lm.block_idx(d)
// standing for the cluster's index b_d (its domain, 0 <= b_d < grid_dim,
// holds every b_d a grid of whole clusters gives). Empty when `cond` reads
// no block index or the cluster is not modelled; nullopt when the goals
// cannot say it (an lm.assume reads a block index: the premises would speak
// of b_d, not of the CTAs' indices).
std::optional<std::vector<ir::ExprPtr>> sameInEveryCta(const ir::Schedule& s, const ir::Expr& cond);

// The same guards (structurally equal conditions counted once), one case
// per combination of outcomes that `possible` does not rule out: a copy of
// the schedule in which every guard's `if` is replaced by the branch it
// takes (its statements spliced into the enclosing block) and each outcome
// is an lm.assume fact (`cond` taken, `not cond` not). For a binding that
// gives its guards this combination, the builder builds the same system
// from the copy as from the schedule (it evaluates a condition only to
// choose the block it then builds), and the copy's facts hold. The one
// plan made from the statements' places, the derived expect_tx's batches
// (ir/expect_tx.h: a batch ends at a compound statement), must come out
// the same: where splicing would join two batches or leave out a role's
// explicit lm.expect_tx, the `if`s are kept instead, each condition the
// constant outcome (docs/z3.md "Guards whose branches build alike"). A
// combination `possible` rules out (no allowed binding gives it: the
// solver proved the facts' negation) needs no case. Empty when the split
// does not apply (as guardOutcomes). docs/z3.md "Guards decided per case"
// (helper loops3).
// How many guards guardCases splits on (0: the split does not apply).
int guardCount(const ir::Schedule& s, int max_guards = 5);

// Does `copy` (a rewrite of s's statements) keep s's derived expect_tx plan
// (ir/expect_tx.h), by the source locations of the TMA loads: every batch
// of the copy is one of s's and the (role, barrier) pairs derived for are
// the same? False too when two TMA loads share a location.
bool sameDerivedTx(const ir::Schedule& s, const ir::Schedule& copy);

// A TMA load's source location (line, column).
using LoadAt = std::pair<int, int>;
// Does `copy` keep s's derived expect_tx plan where each batch of the copy
// runs as the batches `read_as` gives for it (a loop unpeeled: its first
// iteration's batch is the prologue's, its later ones the body's): the
// batches so read are exactly s's, and the (role, barrier) pairs derived
// for are the same? False too when two TMA loads share a location.
bool derivedTxReadAs(const ir::Schedule& s, const ir::Schedule& copy,
                     const std::function<std::vector<std::vector<LoadAt>>(const std::vector<LoadAt>&)>& read_as);

struct GuardCase {
  std::shared_ptr<ir::Schedule> s;
  std::string text;  // "kv_tiles > 0 taken, kv_tiles == 0 not taken"
};
std::vector<GuardCase> guardCases(const ir::Schedule& s,
                                  const std::function<bool(const std::vector<ir::ExprPtr>& facts)>& possible,
                                  const Holds& holds, int max_guards = 5);

// The guards (as guardCases: conditions that read a parameter, a block
// index or a grid size and no loop variable or instance, each shown to take
// one outcome in every CTA of a modelled cluster) whose outcome the
// schedule's lm.assume facts fix: `holds` proves `cond` (taken) or
// `not cond` (not taken) for every allowed binding. A copy in which each
// such `if` is replaced by the branch it takes (spliced, or kept with the
// constant outcome where splicing would change the derived expect_tx plan,
// as guardCases); the other guards stay. For every binding the facts allow,
// the builder, which evaluates a condition only to choose the block it then
// builds, builds the same system from the copy as from the schedule. Used
// per case of a split that adds a fact (the K loop's trip count >= 1 or
// <= 0: `if k_tiles == 0:` is decided in each; docs/z3.md "Guards the
// case's fact decides", helper k0proof). nullopt when none is decided.
struct DecidedGuards {
  std::shared_ptr<ir::Schedule> s;
  std::string text;  // "lm.cdiv(K, 64) == 0 not taken"
  int count = 0;
};
std::optional<DecidedGuards> decideGuards(const ir::Schedule& s, const Holds& holds);

// Guards the loops around them decide (docs/z3.md "Guards the loops'
// ranges decide", helper dg3): an `if` whose condition reads a loop
// variable, evaluated by the builder only inside its enclosing loops, at
// values each loop gives its variable: `for v in lm.range(lo, hi, step)`
// with a constant step > 0 runs v over lo <= v < hi (step < 0: hi < v <=
// lo), lo and hi evaluated at the loop's entry, where every variable they
// read already has the value it keeps through the loop's body. Where
// `holds` proves `cond` (taken) or `not cond` (not taken) under the
// lm.assume facts with those ranges as premises, every evaluation the
// builder makes of the condition, for every allowed binding, gives that
// outcome, so the copy with the `if` replaced by the branch it takes
// (spliced, or kept with the constant outcome where splicing would change
// the derived expect_tx plan, as guardCases) builds the schedule's system.
// `if k * 2 + s < 2 * E:` inside `for k in lm.range(0, E)` and `for s in
// lm.range(0, 2)` is always taken; a condition the ranges leave open
// (`k * 2 + s < 2 * E - 1`) stays. No premise is taken from a loop whose
// variable an enclosing loop binds too (the inner one shadows it: nothing
// below it is decided), and, in a modelled cluster, a condition that reads
// a block index or a grid size is not asked (the prover's single block
// index would stand for several CTAs' ones). At most 32 `if`s are decided;
// nullopt when none is.
using HoldsUnder = std::function<bool(const ir::ExprPtr& goal, const std::vector<ir::ExprPtr>& premises)>;
std::optional<DecidedGuards> decideLoopGuards(const ir::Schedule& s, const HoldsUnder& holds);

// Guards whose branches build alike (docs/z3.md "Guards whose branches
// build alike"): `if t < n_work: lm.fill(r, 1.0) else: lm.fill(r, 0.0)`.
// The builder (encoder/system.cpp) evaluates an `if` condition only to
// choose the block it builds, so where the two blocks build the same
// instructions in every context the system does not depend on the
// condition's value: a copy of the schedule with the condition read as
// true (the `if` kept as a compound statement, its then-branch always
// built) builds, for every binding, the schedule's system up to which of
// the two equal statements an instruction names (Instr::stmt), and the
// condition's reads of parameters are gone. What "build the same" must
// cover, and why it suffices, is `branchesBuildAlike` below.
//
// Two blocks build alike when they are statement by statement equal in
// every field the builder reads:
//  * ops: the kind; the barrier, named barrier and slot selector (stage= /
//    iter= / phase=, structurally equal expressions); expect_tx bytes,
//    arrival count, pending, init=, multicast=, cta=; every operand's
//    buffer (kind, index, view slot, slices); coordinates (structurally
//    equal: the builder evaluates those of a tensor the CTA reads and
//    writes, docs/semantics.md "Global memory"). The ops
//    may differ only in the values they compute or write, which no engine
//    reads: a fill's value, a scalar operand, the element function (op=),
//    a reduction's axis= and base=, and source locations;
//  * nested `if`s: structurally equal conditions and blocks that build
//    alike (evaluated at the same point, they take the same branch);
//  * no loop (`for`): the builder keys the stale-accumulator check on the
//    loop statements around an op (a store and an MMA in two equal loops
//    would be in one loop in the copy);
//  * every op with a shared-memory view operand names its view slot (the
//    operand's index, or stage= / iter=) by an expression of parameters and
//    constants only (no loop variable, lm.instance(), lm.block_idx or
//    lm.grid_dim): the builder marks an op "stage-like" per statement from
//    every index it evaluates there (reaches_stages_), so two equal ops
//    that evaluate different indices would be marked apart in the schedule
//    and together in the copy; with one index per binding they are marked
//    alike.
// The derived expect_tx plan (ir/expect_tx.h) is per statement list up to
// the next compound statement: the `if` stays one, and the two blocks,
// equal in kinds, barriers and selectors, have the same batches.
bool branchesBuildAlike(const ir::Block& a, const ir::Block& b);

// Every `if` of the role bodies whose condition reads a parameter, a block
// index or a grid size and whose branches build alike, with the condition
// shown defined for every allowed binding (`holds` proves `c or not c`,
// loop variables over the prover's domain: the builder evaluates it, and an
// undefined condition is a build error there, not a choice), read as true
// in a copy (`s`; nested ones in its then-branch too). nullopt when there
// is none. `text` lists the conditions.
struct AlikeGuards {
  std::shared_ptr<ir::Schedule> s;
  std::string text;  // "t < n_work"
  int count = 0;
};
std::optional<AlikeGuards> dropAlikeGuards(const ir::Schedule& s, const Holds& holds);

// A condition with a truth value: a comparison, `and`, `or` or `not`.
bool isTruthValue(ir::ExprKind k);

// The guard atoms of a schedule: every `if` condition with a truth value
// that reads a parameter, a block index or a grid size and no loop
// variable (it may read lm.instance()). Shared by the bounded check's
// covering values (checks/model_check.cpp, the combinations of the guards'
// outcomes) and the unlooped proof per class of block indices
// (proveUnloopedPerBlockClass), which split on the same conditions.
struct GuardAtoms {
  struct Atom {
    ir::ExprPtr cond;             // its first occurrence
    bool reads_instance = false;  // reads lm.instance()
  };
  struct Use {
    size_t atom = 0;   // atoms[atom] is structurally equal to cond
    ir::ExprPtr cond;  // this occurrence's condition
    int role = -1;     // the role whose body tests it (-1: a body of no known role)
  };
  std::vector<Atom> atoms;  // structurally equal conditions once, in order of first occurrence
  std::vector<Use> uses;    // every occurrence, in program order (each body in turn, depth first)
};
GuardAtoms guardAtoms(const ir::Schedule& s);

}  // namespace cake::encoder::trip
