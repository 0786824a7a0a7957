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
// choose the block it then builds), and the copy's facts hold. A
// combination `possible` rules out (no allowed binding gives it: the
// solver proved the facts' negation) needs no case. Empty when the split
// does not apply (as guardOutcomes). docs/z3.md "Guards decided per case"
// (helper loops3).
// How many guards guardCases splits on (0: the split does not apply).
int guardCount(const ir::Schedule& s, int max_guards = 5);

struct GuardCase {
  std::shared_ptr<ir::Schedule> s;
  std::string text;  // "kv_tiles > 0 taken, kv_tiles == 0 not taken"
};
std::vector<GuardCase> guardCases(const ir::Schedule& s,
                                  const std::function<bool(const std::vector<ir::ExprPtr>& facts)>& possible,
                                  const Holds& holds, int max_guards = 5);

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
