// The bounds that answer the far-step rule's plain queries before the
// integer solver (checks/step_bounds.h, helper gate49, session 49). Each
// bound must hold at every value: checked against evaluation over a span of
// the parameter for random expressions; the facts' spans against a scan;
// and a far step whose values the bounds cannot rule out is still found.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "checks/step_bounds.h"
#include "cover_kernels.h"
#include "exit_tail_kernels.h"
#include "test_util.h"

namespace step_bounds_test {

using cake::checks::PartBounds;
using cake::checks::Span;
using cake::ir::ExprKind;
using cake::ir::ExprPtr;
using cake::ir::makeConst;
using cake::ir::makeExpr;

ExprPtr param(int p) {
  auto e = std::make_shared<cake::ir::Expr>();
  e->kind = ExprKind::Param;
  e->index = p;
  return e;
}

// A random expression over parameter 0 (free) and 1 (fixed), with small
// constants and every operator the bounds read.
ExprPtr randomExpr(std::mt19937& rng, int depth) {
  std::uniform_int_distribution<int> pick(0, 15);
  std::uniform_int_distribution<int> small(-9, 9);
  if (depth == 0) {
    switch (pick(rng) % 3) {
      case 0: return param(0);
      case 1: return param(1);
      default: return makeConst(small(rng));
    }
  }
  auto sub = [&] { return randomExpr(rng, depth - 1); };
  auto divisor = [&] {
    int k = small(rng);
    return makeConst(k == 0 ? 7 : k);
  };
  static const ExprKind binary[] = {ExprKind::Add, ExprKind::Sub, ExprKind::Mul, ExprKind::Min, ExprKind::Max,
                                    ExprKind::Lt,  ExprKind::Eq,  ExprKind::Ne,  ExprKind::And, ExprKind::Or};
  switch (pick(rng)) {
    case 0: return makeExpr(ExprKind::Neg, {sub()});
    case 1: return makeExpr(ExprKind::Not, {sub()});
    case 2: case 3: return makeExpr(ExprKind::FloorDiv, {sub(), divisor()});
    case 4: case 5: return makeExpr(ExprKind::Mod, {sub(), divisor()});
    case 6: return makeExpr(ExprKind::CDiv, {sub(), divisor()});
    default: return makeExpr(binary[pick(rng) % 10], {sub(), sub()});
  }
}

// The other parameter's value in the random tests.
cake::ir::EvalEnv otherParamAtThree() {
  cake::ir::EvalEnv at;
  at.params[1] = 3;
  return at;
}

// `count` random residue facts on parameter 0: `(x + d) % m` (!= or ==) r.
std::vector<ExprPtr> randomResidueFacts(std::mt19937& rng, int count) {
  std::uniform_int_distribution<int> small(-9, 9), modulus(2, 12);
  std::vector<ExprPtr> facts;
  for (int f = count; f > 0; --f) {
    const ExprPtr shifted = makeExpr(ExprKind::Add, {param(0), makeConst(small(rng))});
    const int64_t m = modulus(rng);
    facts.push_back(makeExpr(f % 2 ? ExprKind::Ne : ExprKind::Eq,
                             {makeExpr(ExprKind::Mod, {shifted, makeConst(m)}),
                              makeConst(std::uniform_int_distribution<int64_t>(0, m - 1)(rng))}));
  }
  return facts;
}

}  // namespace step_bounds_test

namespace sbt = step_bounds_test;

// Every value and every step of a random expression over x in [-40, 40]
// (the other parameter at 3) lies within its bounds and residue class.
TEST(StepBounds, BoundsHoldAtEveryValue) {
  std::mt19937 rng(49);
  const cake::ir::EvalEnv at = sbt::otherParamAtThree();
  const sbt::Span xs = sbt::Span::of(-40, 40);
  int checked = 0, narrow = 0;
  for (int n = 0; n < 3000; ++n) {
    const sbt::ExprPtr e = sbt::randomExpr(rng, 1 + n % 4);
    const std::optional<sbt::PartBounds> b = cake::checks::partBounds(*e, 0, xs, at);
    if (!b) continue;
    ++checked;
    narrow += b->step.single() || b->modulus != 1;
    cake::ir::EvalEnv env = at;
    std::optional<int64_t> before;
    for (int64_t x = -40; x <= 40; ++x) {
      env.params[0] = x;
      const std::optional<int64_t> v = cake::ir::evaluate(*e, env);
      if (v) EXPECT_TRUE(b->allows(*v)) << cake::ir::exprToString(*e, {}) << " at " << x << " is " << *v;
      if (v && before) EXPECT_TRUE(b->step.contains(*v - *before)) << cake::ir::exprToString(*e, {}) << " steps at " << x;
      before = v;
    }
  }
  EXPECT_GT(checked, 2000);
  EXPECT_GT(narrow, 300);
}

// The facts' span: comparisons narrow it, residues that no value meets
// together leave none (`(K - 1) % 4 == 0` and `(K + 1) % 4 == 0`), and a
// residue moves the ends to the first and last value meeting it.
TEST(StepBounds, AllowedSpanReadsComparisonsAndResidues) {
  using cake::checks::allowedSpan;  // (in this test only)
  cake::ir::EvalEnv at;
  at.params[1] = 5;
  const sbt::ExprPtr K = sbt::param(0), M = sbt::param(1);
  auto shifted = [&](int64_t d) { return sbt::makeExpr(sbt::ExprKind::Add, {K, sbt::makeConst(d)}); };
  auto residue = [&](const sbt::ExprPtr& e, int64_t m, int64_t r) {
    return sbt::makeExpr(sbt::ExprKind::Eq, {sbt::makeExpr(sbt::ExprKind::Mod, {e, sbt::makeConst(m)}), sbt::makeConst(r)});
  };
  const sbt::Span all = sbt::Span::of(INT32_MIN, INT32_MAX);
  std::optional<sbt::Span> s = allowedSpan({sbt::makeExpr(sbt::ExprKind::Ge, {shifted(-1), sbt::makeConst(4)}),
                                       sbt::makeExpr(sbt::ExprKind::Le, {K, sbt::makeExpr(sbt::ExprKind::Mul, {sbt::makeConst(4), M})})},
                                      0, all, at);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->lo == 5 && s->hi == 20);
  EXPECT_FALSE(allowedSpan({residue(shifted(-1), 4, 0), residue(shifted(1), 4, 0)}, 0, all, at));
  s = allowedSpan({residue(K, 4, 0), sbt::makeExpr(sbt::ExprKind::Gt, {K, sbt::makeConst(5)}), sbt::makeExpr(sbt::ExprKind::Lt, {K, sbt::makeConst(19)})},
                  0, all, at);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->lo == 8 && s->hi == 16);
  // a fact that does not read K and fails at the fixed values: none
  EXPECT_FALSE(allowedSpan({sbt::makeExpr(sbt::ExprKind::Gt, {M, sbt::makeConst(5)})}, 0, all, at));
  // a fact read no way narrows nothing
  s = allowedSpan({sbt::makeExpr(sbt::ExprKind::Lt, {sbt::makeExpr(sbt::ExprKind::Mul, {K, K}), sbt::makeConst(100)})}, 0, sbt::Span::of(0, 50), at);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->lo == 0 && s->hi == 50);
}

// Every bend (down != up) a random expression makes at x in [-300, 300]
// where random residue facts hold (`(x + d) % m != r` and `== r`) is one
// bendsOver names, whose scan reads one period of the span alone.
TEST(StepBounds, BendsOverNamesEveryBendOfTheSpan) {
  std::mt19937 rng(51);
  const cake::ir::EvalEnv at = sbt::otherParamAtThree();
  const sbt::Span xs = sbt::Span::of(-300, 300);
  int decided = 0, bent = 0;
  for (int n = 0; n < 1500; ++n) {
    const sbt::ExprPtr e = sbt::randomExpr(rng, 1 + n % 4);
    const std::vector<sbt::ExprPtr> facts = sbt::randomResidueFacts(rng, n % 3);
    const auto bends = cake::checks::bendsOver(*e, facts, 0, xs, at);
    if (!bends) continue;
    ++decided;
    bent += !bends->empty();
    cake::ir::EvalEnv env = at;
    auto value = [&](int64_t x) {
      env.params[0] = x;
      return cake::ir::evaluate(*e, env);
    };
    for (int64_t x = xs.lo; x <= xs.hi; ++x) {
      env.params[0] = x;
      if (std::any_of(facts.begin(), facts.end(), [&](const sbt::ExprPtr& f) { return cake::ir::evaluate(*f, env) == 0; }))
        continue;
      const auto below = value(x - 1), here = value(x), above = value(x + 1);
      ASSERT_TRUE(below && here && above);
      if (*here - *below == *above - *here) continue;
      EXPECT_TRUE(bends->count({*here - *below, *above - *here}))
          << cake::ir::exprToString(*e, {}) << " bends at " << x << " by (" << *here - *below << ", " << *above - *here
          << "), not named";
    }
  }
  EXPECT_GT(decided, 600);
  EXPECT_GT(bent, 100);
}

// The tile loop's copies of the k-tile count summed (`3 * lm.cdiv(K, 64) +
// K // 64`, Peel48's persistent peel) bend at K % 64 in {63, 0, 1} only:
// under K % 64 != 0 at K - 1, K and K + 1, nowhere. A part that does not
// repeat (`min(K, 100)`, `K * K`) is not worked out.
TEST(StepBounds, SummedTileCountsBendOnlyAtTheResidueTile) {
  using sbt::ExprKind;
  const sbt::ExprPtr K = sbt::param(0);
  const sbt::ExprPtr c64 = sbt::makeConst(64);
  const sbt::ExprPtr part =
      sbt::makeExpr(ExprKind::Add, {sbt::makeExpr(ExprKind::Mul, {sbt::makeConst(3), sbt::makeExpr(ExprKind::CDiv, {K, c64})}),
                                    sbt::makeExpr(ExprKind::FloorDiv, {K, c64})});
  auto notTileEnd = [&](int64_t d) {
    return sbt::makeExpr(ExprKind::Ne, {sbt::makeExpr(ExprKind::Mod, {sbt::makeExpr(ExprKind::Add, {K, sbt::makeConst(d)}), c64}),
                                        sbt::makeConst(0)});
  };
  const sbt::Span xs = sbt::Span::of(1, INT32_MAX);
  const cake::ir::EvalEnv at;
  const auto all = cake::checks::bendsOver(*part, {}, 0, xs, at);
  ASSERT_TRUE(all);
  EXPECT_EQ(*all, (std::set<std::pair<int64_t, int64_t>>{{1, 3}, {3, 0}, {0, 1}}));
  const auto residue = cake::checks::bendsOver(*part, {notTileEnd(-1), notTileEnd(0), notTileEnd(1)}, 0, xs, at);
  ASSERT_TRUE(residue);
  EXPECT_TRUE(residue->empty());
  EXPECT_FALSE(cake::checks::bendsOver(*sbt::makeExpr(ExprKind::Min, {K, sbt::makeConst(100)}), {}, 0, xs, at));
  EXPECT_FALSE(cake::checks::bendsOver(*sbt::makeExpr(ExprKind::Mul, {K, K}), {}, 0, xs, at));
}

// A far step whose every value the bounds allow but no binding shows: `(2 *
// n_tiles) % 2000 // 1998` is 0 or 1 (its residue class and span), and 1
// only from n_tiles = 999 on, past every binding; the tail one phase short
// there must still go to the solver and be found or named, never checked.
TEST(StepBounds, AStepTheBoundsCannotRuleOutIsStillFound) {
  namespace cover = cake::testing::cover;
  const std::string text =
      cake::testing::replace(exit_tail_kernels::kProducerTail, exit_tail_kernels::kTail,
                             "        lm.wait(k_empty, iter=n_tiles - 1 - (2 * n_tiles) % 2000 // 1998)\n");
  const cover::BoundedVerdict v = cover::boundedVerdict(text);
  EXPECT_TRUE(v.unknown || !v.rules.empty()) << "UNSOUND: the far step exits 0 checked:\n" << text;
}

// The gaps the residue facts leave between consecutive allowed values
// (checks::allowedGaps), below and above: `K % 64 == 0` 64 and 64; `P % 7
// != 0` 2 below 1 and above 6; the even values spelled by two residues 2
// and 2; two residues modulo 7 apart by 3 and 4; a fact that does not
// repeat, or none, nothing.
TEST(StepBounds, AllowedGapsOfResidueFacts) {
  using sbt::ExprKind;
  const sbt::ExprPtr P = sbt::param(0);
  auto residue = [&](int64_t m, ExprKind k, int64_t r) {
    return sbt::makeExpr(k, {sbt::makeExpr(ExprKind::Mod, {P, sbt::makeConst(m)}), sbt::makeConst(r)});
  };
  const cake::ir::EvalEnv at;
  using Gaps = std::set<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(*cake::checks::allowedGaps({residue(64, ExprKind::Eq, 0)}, 0, at), (Gaps{{64, 64}}));
  EXPECT_EQ(*cake::checks::allowedGaps({residue(7, ExprKind::Ne, 0)}, 0, at), (Gaps{{2, 1}, {1, 2}}));
  EXPECT_EQ(*cake::checks::allowedGaps({sbt::makeExpr(ExprKind::Or, {residue(4, ExprKind::Eq, 0), residue(4, ExprKind::Eq, 2)})}, 0, at),
            (Gaps{{2, 2}}));
  EXPECT_EQ(*cake::checks::allowedGaps({sbt::makeExpr(ExprKind::Or, {residue(7, ExprKind::Eq, 0), residue(7, ExprKind::Eq, 3)})}, 0, at),
            (Gaps{{4, 3}, {3, 4}}));
  EXPECT_EQ(*cake::checks::allowedGaps({residue(7, ExprKind::Eq, 0), sbt::makeExpr(ExprKind::Le, {P, sbt::makeConst(1000)})}, 0, at),
            (Gaps{{7, 7}}));
  EXPECT_EQ(*cake::checks::allowedGaps({sbt::makeExpr(ExprKind::Le, {P, sbt::makeConst(1000)})}, 0, at), Gaps{});
  EXPECT_EQ(*cake::checks::allowedGaps({}, 0, at), Gaps{});
}

// A part that steps between two allowed values where the lm.assume facts
// allow no two adjacent ones: `(P + 9) // 700 - (P + 3) // 700` is 1 at P =
// 691..696, and of the multiples of 7 only at 693, so the row read `0:64 +
// part` reads one float past the stores there. No value had both neighbours
// allowed, so the far-step query had no witness and the bounded check
// exited 0 *checked* (helper attack52, session 52); it is run over the gap
// of 7 now. The twin under `P % 7 == 4` (none of 691..696) stays clean.
TEST(StepBounds, AStepBetweenResidueFactsValuesIsRun) {
  namespace cover = cake::testing::cover;
  const std::string part = "64 + ((P + 9) // 700 - (P + 3) // 700)";
  auto withFact = [&](const std::string& fact) {
    return cake::testing::replace(cover::guardedRowRead("", part), "    lm.assume(P <= 1000)\n",
                                  "    lm.assume(P <= 1000)\n    lm.assume(" + fact + ")\n");
  };
  const cover::BoundedVerdict bad = cover::boundedVerdict(withFact("P % 7 == 0"));
  EXPECT_TRUE(bad.rules.count("data.stale-read")) << "UNSOUND: the read past the stores at P = 693 is not found";
  const cover::BoundedVerdict good = cover::boundedVerdict(withFact("P % 7 == 4"));
  EXPECT_TRUE(good.rules.empty()) << "a false alarm";
}

// Facts that neither bound nor repeat in P leave gaps too: `P % 7 == 0 or
// P < 10` (every value below 10, then the multiples of 7), `P * P % 7 ==
// 0` (the multiples of 7, through a product the repeats do not read) and
// `P % 7 == 0 or P == 1`. Before, allowedGaps read only the repeating
// facts, found none, and the step at P = 693 exited 0 *checked* under each
// (helper attack53, session 53). Their allowed values are walked now; a
// twin whose step falls on no allowed value stays clean.
TEST(StepBounds, AStepBetweenValuesIrregularFactsKeepApartIsRun) {
  namespace cover = cake::testing::cover;
  auto withFact = [&](const std::string& part, const std::string& fact) {
    return cake::testing::replace(cover::guardedRowRead("", "64 + (" + part + ")"), "    lm.assume(P <= 1000)\n",
                                  "    lm.assume(P <= 1000)\n    lm.assume(" + fact + ")\n");
  };
  const std::string step = "(P + 9) // 700 - (P + 3) // 700";  // 1 at P = 691..696: of the multiples of 7, 693
  for (const std::string fact : {"P % 7 == 0 or P < 10", "P * P % 7 == 0", "P % 7 == 0 or P == 1"}) {
    const cover::BoundedVerdict bad = cover::boundedVerdict(withFact(step, fact));
    EXPECT_TRUE(bad.rules.count("data.stale-read")) << "UNSOUND: the read past the stores at P = 693 is not found under "
                                                    << fact;
  }
  // 1 at P = 694 only: no multiple of 7
  const cover::BoundedVerdict good = cover::boundedVerdict(withFact("(P + 1) // 695 - P // 695", "P % 7 == 0 or P < 10"));
  EXPECT_TRUE(good.rules.empty()) << "a false alarm";
}

// The gaps of facts that neither bound nor repeat: walked over a short
// span (`P % 7 == 0 or P < 10` within [1, 40]: 1 below and 5 above 9, 5
// and 7 at 14, 7 and 7 after), not worked out over a long one.
TEST(StepBounds, AllowedGapsOfIrregularFacts) {
  using sbt::ExprKind;
  const sbt::ExprPtr P = sbt::param(0);
  const auto c = [](int64_t v) { return sbt::makeConst(v); };
  const sbt::ExprPtr irregular = sbt::makeExpr(
      ExprKind::Or, {sbt::makeExpr(ExprKind::Eq, {sbt::makeExpr(ExprKind::Mod, {P, c(7)}), c(0)}),
                     sbt::makeExpr(ExprKind::Lt, {P, c(10)})});
  const sbt::ExprPtr from1 = sbt::makeExpr(ExprKind::Ge, {P, c(1)});
  const cake::ir::EvalEnv at;
  using Gaps = std::set<std::pair<int64_t, int64_t>>;
  const auto gaps = cake::checks::allowedGaps({irregular, from1, sbt::makeExpr(ExprKind::Le, {P, c(40)})}, 0, at);
  ASSERT_TRUE(gaps);
  EXPECT_EQ(*gaps, (Gaps{{1, 5}, {5, 7}, {7, 7}}));
  EXPECT_FALSE(cake::checks::allowedGaps({irregular, from1}, 0, at));
}
