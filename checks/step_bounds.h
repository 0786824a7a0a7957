// Bounds on what one integer parameter does to an expression, over
// unbounded integers with Python's floor `//` and `%` (the semantics of
// encoder::intWitness), every other symbol held at one value.
//
// The far-step rule (BindingSearch::placeStepsElsewhere, model_check.cpp)
// asks the integer solver, for each part of a sampled operand, whether the
// part bends at some value of a parameter into a value or a pair of
// differences no binding shows. Nearly every such query in the corpus
// answers "no step" (helper gate49, session 49: 310 of 311 on the 40 cases
// that grew most in session 48), and each costs a solver context, about 10
// ms. These bounds answer the plain ones first: a part that is constant
// over the allowed values (`0 * lm.cdiv(K, 64) + 0`), one whose every
// possible value the bindings show (`(t * lm.cdiv(K, 64) + t) % 4`), one
// whose steps are at most 0 or 1 with both bends shown (`lm.cdiv(K, 64)`),
// or a side of 0 that the lm.assume facts leave no value on. Each bound
// holds for every value the solver could pick, so a query the bounds rule
// out has no witness; anything else goes to the solver as before.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "ir/schedule.h"

namespace cake::checks {

// An integer interval; an end past +-kFiniteLimit is infinite (every
// arithmetic result is exact or widened, never narrowed).
struct Span {
  static constexpr __int128 kFiniteLimit = static_cast<__int128>(1) << 62;
  __int128 lo = -kFiniteLimit - 1;  // below -kFiniteLimit: minus infinity
  __int128 hi = kFiniteLimit + 1;   // above kFiniteLimit: plus infinity
  static Span of(__int128 lo, __int128 hi);  // (ends past the limit made infinite)
  static Span point(__int128 v) { return of(v, v); }
  static Span all() { return {}; }
  bool empty() const { return lo > hi; }
  bool loFinite() const { return lo >= -kFiniteLimit; }
  bool hiFinite() const { return hi <= kFiniteLimit; }
  bool finite() const { return loFinite() && hiFinite(); }
  bool single() const { return finite() && lo == hi; }
  bool contains(__int128 v) const { return lo <= v && v <= hi; }
};

// What a part does over a span of the parameter's values.
struct PartBounds {
  Span value;  // f(x) at every x of the span where f is defined
  Span step;   // f(x + 1) - f(x) at every x where x and x + 1 are in the span and f is defined at both
  // Every value is `residue` plus a multiple of `modulus` (0: `residue`
  // itself; 1: no more than the span says): `(4 * lm.cdiv(K, 64) + 4) % 4`
  // is 0, `(2 * lm.cdiv(K, 64) + 2) % 4` is 0 or 2.
  __int128 modulus = 1;
  __int128 residue = 0;
  bool allows(__int128 v) const;  // v in the span and the residue class
};

// The bounds of `e` with parameter `p` over `xs`, every other parameter,
// block index and grid size at its value in `at`, lm.instance() anywhere in
// [0, 1024) (the integer solver's domain for it). nullopt where they are
// not worked out: `e` reads a loop variable or a symbol `at` has no value
// for, or divides by a divisor that is not one nonzero value.
std::optional<PartBounds> partBounds(const ir::Expr& e, int p, const Span& xs, const ir::EvalEnv& at);

// The least span inside `xs` that holds every value of parameter `p` at
// which all of `facts` hold (each defined and nonzero), the other symbols
// as in partBounds; nullopt where no value in `xs` satisfies them. Read:
// comparisons of expressions affine in `p` (`K + -1 >= 4`), facts that do
// not read `p` (their value at `at`), and residues of affine expressions
// (`(K + 1) % 4 == 0`: periodic in `p`, asked over one period). A fact read
// otherwise narrows nothing; it never wrongly narrows.
std::optional<Span> allowedSpan(const std::vector<ir::ExprPtr>& facts, int p, Span xs, const ir::EvalEnv& at);

// The gaps (below, above) from each value of parameter `p` that the facts
// allow to the allowed values next to it, but (1, 1): `K % 64 == 0` leaves
// (64, 64); `P % 7 != 0` leaves (2, 1) at 1 and (1, 2) at 6; `P % 7 == 0
// or P % 7 == 3` (3, 4) and (4, 3). The other symbols as in partBounds.
// Facts that repeat in p (shift 0, over a length of at most 4,096 together)
// are read over one length; comparisons affine in p leave no gap inside
// their span. Where a fact reading p is neither (`P % 7 == 0 or P < 10`,
// `P * P % 7 == 0`, `P != 693`, a residue of a longer period), the values
// the facts allow are walked one by one where their span holds at most
// 2^16 values (and give at most 64 pairs); else nullopt: the gaps are not
// worked out. Empty where no fact leaves a gap.
std::optional<std::set<std::pair<int64_t, int64_t>>> allowedGaps(const std::vector<ir::ExprPtr>& facts, int p,
                                                                  const ir::EvalEnv& at);

// Every bend (differences down f(x) - f(x - 1) and up f(x + 1) - f(x), down
// != up) `e` makes at a value x of parameter `p` in `xs` where each fact
// of `facts` that repeats in p holds (`K % 64 != 0` and its shifts `(K +
// -1) % 64 != 0`; the other facts are not read), the other symbols as in
// partBounds. Exact where `e` repeats: e(x + L) = e(x) + D for every
// integer x with L at most 4,096 (sums of constant multiples of floor and
// ceiling quotients and residues of such sums by fixed divisors, and their
// min, max and comparisons where the operands gain alike), so one length
// of the span shows every bend: `c * lm.cdiv(K, 64) + K // 64` bends
// only at K % 64 in {63, 0, 1}, which `K % 64 != 0` at K - 1, K and K + 1
// leaves none of. nullopt where `e` is not seen to repeat, `xs` is not
// finite, or an evaluation fails.
// With `below` and `above` (both 1 unless given) the differences are taken
// to the values that far below and above x (f(x) - f(x - below), f(x +
// above) - f(x): the allowed values next to x where the facts keep them
// apart, allowedGaps).
std::optional<std::set<std::pair<int64_t, int64_t>>> bendsOver(const ir::Expr& e, const std::vector<ir::ExprPtr>& facts,
                                                                int p, const Span& xs, const ir::EvalEnv& at,
                                                                int64_t below = 1, int64_t above = 1);

// Whether `k` compares two integers (<, <=, >, >=, ==, !=); shared with
// the covering values (model_check.cpp).
bool isComparison(ir::ExprKind k);

}  // namespace cake::checks
