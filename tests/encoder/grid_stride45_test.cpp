// The grid-strided persistent GEMM proved (helper gs45, session 45;
// docs/z3.md "The grid-strided persistent loop: a first-lap guard on the
// tile loop, ring indices read by their canonical form"):
//  * the producer's first-lap guard `t > 0 or k >= 4` around `lm.wait(empty,
//    iter=it - 4)` is false only where the waited iteration is negative, so
//    the front end drops it (ir/resolver.cpp guardOnlySkipsNegativeIterations,
//    with the tile loop's trip variable counted from 0);
//  * the flat ring iteration `(t + 1) * k_tiles - k_tiles + k` is read by its
//    canonical form `t * k_tiles + k` (encoder/trip_proof.cpp
//    ringIndicesByForm, ir::polynomialSpelling), as the proof reads `t * E_B`.
// Broken twins of the file stay found and unproved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "ir/expr_canon.h"

using namespace cake;
// (declarations, not directives: a unity build puts later test files in this
// one's scope, and cake::testing's names clash with cake::encoder's there)
using cake::testing::corpusText;
using cake::testing::replace;
using cake::testing::attacks::expectCheckedAndProved;
using cake::testing::attacks::expectFoundNotProved;

namespace grid_stride45_test {

const std::string kGridStride = "corpus/gemm/sm90_persistent_ws_grid_stride.cake";
const std::string kProducerIt =
    "                it = (t + 1) * k_tiles - k_tiles + k\n                if t > 0 or k >= 4:\n";
const std::string kConsumerIt =
    "                it = (t + 1) * k_tiles - k_tiles + k\n                lm.wait(full, iter=it)\n";

ir::ExprPtr sym(ir::ExprKind k, int index) {
  auto e = std::make_shared<ir::Expr>();
  e->kind = k;
  e->index = index;
  return e;
}

}  // namespace grid_stride45_test

namespace gs45 = grid_stride45_test;

// ir::polynomialSpelling spells an expression as its canonical form, the
// atoms it is given first: `(t + 1) * n - n + k` is `t * n + k`, `(t + 1) *
// n - 1` is `t * n + n - 1`, equal for every value (evaluated on a grid of
// values, signs included). hasMonomialWith asks for a monomial both divide;
// constantDifference for a constant difference of forms.
TEST(RingIndexByForm, APolynomialSpellingIsEqualAndPutsTheGivenAtomsFirst) {
  using K = ir::ExprKind;
  const ir::ExprPtr t = gs45::sym(K::LoopVar, 0), k = gs45::sym(K::LoopVar, 1), K_ = gs45::sym(K::Param, 0);
  const ir::ExprPtr n = ir::makeExpr(K::CDiv, {K_, ir::makeConst(64)});
  auto op = [](K kind, ir::ExprPtr a, ir::ExprPtr b) { return ir::makeExpr(kind, {a, b}); };
  const ir::ExprPtr t1n = op(K::Mul, op(K::Add, t, ir::makeConst(1)), n);
  const ir::ExprPtr flat = op(K::Add, op(K::Sub, t1n, n), k);
  const ir::ExprPtr end = op(K::Sub, t1n, ir::makeConst(1));
  const ir::ExprPtr flat_form = ir::polynomialSpelling(flat, {t, n});
  const ir::ExprPtr end_form = ir::polynomialSpelling(end, {t, n});
  ASSERT_TRUE(flat_form && end_form);
  EXPECT_TRUE(ir::sameExpr(*flat_form, *op(K::Add, op(K::Mul, t, n), k)));
  EXPECT_TRUE(ir::sameExpr(*end_form, *op(K::Sub, op(K::Add, op(K::Mul, t, n), n), ir::makeConst(1))))
;
  for (int64_t tv = -3; tv <= 3; ++tv)
    for (int64_t kv = -2; kv <= 2; ++kv)
      for (int64_t Kv : {-129, -64, -1, 0, 1, 63, 64, 65, 200}) {
        ir::EvalEnv env;
        env.loop_vars[0] = tv;
        env.loop_vars[1] = kv;
        env.params[0] = Kv;
        EXPECT_EQ(ir::evaluate(*flat_form, env), ir::evaluate(*flat, env));
        EXPECT_EQ(ir::evaluate(*end_form, env), ir::evaluate(*end, env));
      }
  EXPECT_TRUE(ir::hasMonomialWith(*flat, {t, n}));
  EXPECT_FALSE(ir::hasMonomialWith(*op(K::Sub, t1n, op(K::Mul, t, n)), {t, n}));  // (t + 1) * n - t * n is n
  EXPECT_EQ(ir::constantDifference(*flat, *op(K::Add, op(K::Mul, n, t), k)), 0);
  EXPECT_EQ(ir::constantDifference(*op(K::Sub, k, ir::makeConst(4)), *op(K::Sub, k, ir::makeConst(3))), -1);
  EXPECT_FALSE(ir::constantDifference(*flat, *k).has_value());
}

// The corpus file: `cake check`'s model checker and the proof for every trip
// count prove it, and it finds nothing (was *checked*: the first-lap guard
// refused, and behind it the ring index).
TEST(GridStride45, TheGridStridedPersistentGemmIsProved) {
  expectCheckedAndProved(corpusText(gs45::kGridStride), "the grid-strided persistent GEMM");
}

// The twin that must keep its guard: `t > 1 or k >= 4` lets the producer's
// tile 1 refill slots without waiting for their release. Found by `cake
// check`, not proved.
TEST(GridStride45, AGuardThatSkipsRealWaitsIsFoundAndNotProved) {
  expectFoundNotProved(replace(corpusText(gs45::kGridStride), "if t > 0 or k >= 4:", "if t > 1 or k >= 4:"),
                       "sync.race", "t > 1 or k >= 4");
}

// The long form (about 3 s of CPU): respellings proved alike (the
// consumer's ring index spelled `k + t * k_tiles + k_tiles - k_tiles`, the
// guard `t != 0 or k >= 4` or `t > 0 or k >= 3`, false only where the
// iteration is negative too); broken twins found and not proved (`t > 0 or
// k >= 5` skips iteration 0's wait, each role's ring index one ahead, each
// role's wait dropped).
TEST(GridStride45, SlowTwinsOfTheGridStridedGemm) {
  const std::string text = corpusText(gs45::kGridStride);
  expectCheckedAndProved(replace(text, gs45::kConsumerIt,
                                 replace(gs45::kConsumerIt, "(t + 1) * k_tiles - k_tiles + k",
                                         "k + t * k_tiles + k_tiles - k_tiles")),
                         "the ring index spelled apart");
  expectCheckedAndProved(replace(text, "if t > 0 or k >= 4:", "if t != 0 or k >= 4:"), "t != 0");
  expectCheckedAndProved(replace(text, "if t > 0 or k >= 4:", "if t > 0 or k >= 3:"), "k >= 3");
  expectFoundNotProved(replace(text, "if t > 0 or k >= 4:", "if t > 0 or k >= 5:"), "sync.race", "t > 0 or k >= 5");
  expectFoundNotProved(replace(text, gs45::kConsumerIt, replace(gs45::kConsumerIt, "+ k\n", "+ k + 1\n")),
                       "sync.stale-phase", "the consumer's ring index + 1");
  expectFoundNotProved(replace(text, gs45::kProducerIt, replace(gs45::kProducerIt, "+ k\n", "+ k + 1\n")),
                       "data.stale-read", "the producer's ring index + 1");
  expectFoundNotProved(replace(text, "                lm.wait(full, iter=it)\n", ""), "sync.race",
                       "the consumer's wait dropped");
  expectFoundNotProved(replace(text, "                if t > 0 or k >= 4:\n                    lm.wait(empty, iter=it - 4)\n", ""),
                       "sync.race", "the producer's wait dropped");
}
