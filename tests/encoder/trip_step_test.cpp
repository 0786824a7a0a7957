// encoder/trip_step.h: the syntactic "moves by one constant every period"
// shortcut the lap induction asks before the bit-vector prover.
#include <gtest/gtest.h>

#include <random>

#include "encoder/trip_step.h"

namespace {

using cake::ir::ExprKind;
using cake::ir::ExprPtr;
using cake::ir::makeConst;
using cake::ir::makeExpr;

ExprPtr var(int i) {
  auto x = std::make_shared<cake::ir::Expr>();
  x->kind = ExprKind::LoopVar;
  x->index = i;
  return x;
}
ExprPtr op(ExprKind k, ExprPtr a, ExprPtr b) { return makeExpr(k, {std::move(a), std::move(b)}); }

std::optional<int64_t> at(const ExprPtr& e, int64_t x, int64_t y) {
  cake::ir::EvalEnv env;
  env.loop_vars[0] = x;
  env.loop_vars[1] = y;
  return cake::ir::evaluate(*e, env);
}

TEST(TripStep, DecidesTheRingExpressions) {
  using cake::encoder::trip::constantStep;
  const ExprPtr k = var(0);
  // k // 3 - 1 and k % 3 for the period 3 (a 3-stage ring)
  EXPECT_EQ(constantStep(*op(ExprKind::Sub, op(ExprKind::FloorDiv, k, makeConst(3)), makeConst(1)), *k, 3), 1);
  EXPECT_EQ(constantStep(*op(ExprKind::Mod, k, makeConst(3)), *k, 3), 0);
  EXPECT_EQ(constantStep(*op(ExprKind::Mod, op(ExprKind::Add, k, makeConst(1)), makeConst(4)), *k, 8), 0);
  EXPECT_EQ(constantStep(*op(ExprKind::Mul, makeConst(64), k), *k, 2), 128);
  // not one step: k // 3 for the period 2, k % 4 for 6, min(k, 30), k * k
  EXPECT_FALSE(constantStep(*op(ExprKind::FloorDiv, k, makeConst(3)), *k, 2));
  EXPECT_FALSE(constantStep(*op(ExprKind::Mod, k, makeConst(4)), *k, 6));
  EXPECT_FALSE(constantStep(*op(ExprKind::Min, k, makeConst(30)), *k, 1));
  EXPECT_FALSE(constantStep(*op(ExprKind::Mul, k, k), *k, 1));
  // a product with a symbol free of k is the prover's (or affineIn's) case
  EXPECT_FALSE(constantStep(*op(ExprKind::Mul, var(1), k), *k, 1));
  EXPECT_EQ(constantStep(*op(ExprKind::Mul, var(1), makeConst(5)), *k, 1), 0);
}

// Random expressions over k and one other symbol: wherever constantStep
// answers, e(k + P) - e(k) is that answer for every k and symbol value tried.
TEST(TripStep, EveryAnswerHoldsOnRandomExpressions) {
  using cake::encoder::trip::constantStep;
  std::mt19937 rng(11011);
  const ExprKind kinds[] = {ExprKind::Add, ExprKind::Sub, ExprKind::Mul, ExprKind::Max,
                            ExprKind::Min, ExprKind::FloorDiv, ExprKind::Mod, ExprKind::Neg};
  std::function<ExprPtr(int)> gen = [&](int depth) -> ExprPtr {
    if (depth == 0 || rng() % 4 == 0) {
      switch (rng() % 3) {
        case 0: return var(0);
        case 1: return var(1);
        default: return makeConst(static_cast<int64_t>(rng() % 9) - 4);
      }
    }
    const ExprKind k = kinds[rng() % 8];
    if (k == ExprKind::Neg) return makeExpr(k, {gen(depth - 1)});
    if (k == ExprKind::FloorDiv || k == ExprKind::Mod) {
      int64_t c = static_cast<int64_t>(rng() % 7) - 3;
      return op(k, gen(depth - 1), makeConst(c == 0 ? 2 : c));
    }
    return op(k, gen(depth - 1), gen(depth - 1));
  };
  int decided = 0, nonconstant_bodies = 0;
  for (int i = 0; i < 4000; ++i) {
    const ExprPtr e = gen(4);
    const int64_t P = 1 + static_cast<int64_t>(rng() % 6);
    auto d = constantStep(*e, *var(0), P);
    if (!d) continue;
    ++decided;
    bool has_div = cake::ir::exprUses(*e, {ExprKind::FloorDiv, ExprKind::Mod, ExprKind::Max, ExprKind::Min});
    nonconstant_bodies += has_div && cake::ir::dependsOnLoopVar(*e, 0);
    for (int64_t x = -40; x <= 40; ++x)
      for (int64_t y : {-7, -1, 0, 3, 10}) {
        auto a = at(e, x + P, y), b = at(e, x, y);
        ASSERT_TRUE(a && b);
        ASSERT_EQ(*a - *b, *d) << "P=" << P << " x=" << x << " y=" << y;
      }
  }
  // the test exercises the rules it checks
  EXPECT_GT(decided, 1000);
  EXPECT_GT(nonconstant_bodies, 100);
}

}  // namespace
