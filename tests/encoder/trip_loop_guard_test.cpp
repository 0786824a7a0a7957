// Guards the loops' ranges decide (docs/z3.md "Guards the loops' ranges
// decide", helper dg3, session 33): in a case of a split that adds a fact
// (here the finer quotient's case lm.cdiv(K, 64) == 2 * lm.cdiv(K, 128)),
// DeepGEMM's tail-stage guard `if 2 * k + s < k_blocks:` reads
// `2 * k + s < 2 * lm.cdiv(K, 128)`, true at every k < lm.cdiv(K, 128) and
// s in {0, 1}: the copy builds the then-branch. Before, the persistent
// proof refused the guard (it reads the tile count and decides what a tile
// does to its register fragments). Broken forms that differ where the
// argument reasons (a guard the ranges leave open) are found by the
// explicit engine and not proved.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "encoder/bv_prover.h"
#include "encoder/simulator.h"
#include "encoder/trip_guards.h"
#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"
#include "two_stage_ring.h"

using namespace cake;

namespace trip_loop_guard_test {

// (two_stage_ring.h's deepGemmTailStages: K a multiple of 128, the case r
// = 0 alone; a stage past the k blocks loads nothing, the producer arrives
// without bytes, and the consumer releases it without an MMA.)
// The explicit engine at `tiles` tiles of K = 128 * pairs.
encoder::Outcome tailAt(const ir::Schedule& x, int64_t tiles, int64_t pairs) {
  return cake::testing::ringAt(x, tiles, 128 * pairs);
}

// The conditions trip::decideLoopGuards decides in the first schedule of
// `text` (by the bit-vector prover under its facts), "" when none.
std::string decidedIn(const std::string& text) {
  auto mod = cake::testing::compile(text);
  const ir::Schedule& s = mod.schedules.at(0);
  encoder::BvProver prover(s);
  const auto d = encoder::trip::decideLoopGuards(s, [&](const ir::ExprPtr& g, const std::vector<ir::ExprPtr>& in) {
    return prover.prove(g, in).kind == encoder::BvVerdict::Holds;
  });
  return d ? d->text : "";
}

// A one-role schedule whose body is `body` (indented 8 spaces), over n.
std::string oneRole(const std::string& body) {
  return std::string(R"(@cake.schedule(target="sm_90a")
def loop_guards(lm, n: LM.i32):
    lm.assume(n > 0)
    r = lm.regs(shape=(1, 1), dtype=lm.f32)
    w = lm.role(warps=[0], regs=40)
    with w:
)") + body;
}

}  // namespace trip_loop_guard_test

namespace tlg = trip_loop_guard_test;

TEST(TripLoopGuard, TautologyUnderTheLoopsRangesIsTaken) {
  auto mod = cake::testing::compile(cake::testing::deepGemmTailStages());
  const ir::Schedule& s = mod.schedules.at(0);
  cake::testing::expectCleanAt(s, {1, 2, 3}, {128, 256, 384});
  auto r = cake::testing::proveSchedule(s, 128);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("per case of lm.cdiv(K, 64) against lm.cdiv(K, 128) (1 of 2 cases allowed)"),
            std::string::npos)
      << r.engine;
  EXPECT_NE(r.engine.find("within the loops' ranges: 2 * k + s < 2 * lm.cdiv(K, 128) taken"), std::string::npos)
      << r.engine;
  std::cout << "[ " << r.engine << " ]\n";
}

// Each differs from the proved kernel only in a guard the loops' ranges
// leave open in the case r = 0; each is a violation of the explicit engine
// at the shape given and is not proved.
TEST(TripLoopGuard, GuardsTheRangesLeaveOpenAreNotProved) {
  struct Broken {
    const char *from, *to, *what;
    int64_t tiles, pairs;  // where the explicit engine finds it
  };
  const Broken broken[] = {
      // the producer's guard one stage short: its last stage arrives
      // without loading, and the consumer reads the slot's previous lap
      {"                    if 2 * k + s < k_blocks:\n                        smem_a",
       "                    if 2 * k + s + 1 < k_blocks:\n                        smem_a",
       "the producer's last stage loads nothing", 1, 1},
      // the producer's wait skipped at a tile's last stage
      {"                    lm.wait(empty, iter=it - 4)\n",
       "                    if 2 * k + s + 1 < k_blocks:\n                        lm.wait(empty, iter=it - 4)\n",
       "the producer's last stage skips its wait", 3, 1},
      // the stage loop one stage long: the guard at s = 2 is false at the
      // last pair only (and the ring runs a stage ahead of the consumer's)
      {"                for s in lm.range(0, 2):\n                    it = (t * k_pairs + k) * 2 + s\n"
       "                    lm.wait(empty",
       "                for s in lm.range(0, 3):\n                    it = (t * k_pairs + k) * 2 + s\n"
       "                    lm.wait(empty",
       "the producer's stage loop one stage long", 1, 2},
  };
  for (const Broken& b : broken) {
    const std::string text = cake::testing::replace(cake::testing::deepGemmTailStages(), b.from, b.to);
    ASSERT_NE(text, cake::testing::deepGemmTailStages()) << b.what;
    auto mod = cake::testing::compile(text);
    const ir::Schedule& x = mod.schedules.at(0);
    EXPECT_EQ(tlg::tailAt(x, b.tiles, b.pairs), encoder::Outcome::Violation) << b.what;
    auto r = cake::testing::proveSchedule(x, 128);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.what << ": " << r.engine;
    std::cout << b.what << ": " << (r.outcome == encoder::Outcome::Violation ? "violation" : r.detail) << "\n";
  }
}

// What the ranges decide, guard by guard: a loop's range with a positive
// step (lo <= v < hi), with a negative step (hi < v <= lo), the variables
// of several loops together; what they leave open stays.
TEST(TripLoopGuard, EachLoopGivesItsRange) {
  const std::string up = "        for j in lm.range(0, n, 2):\n            if j < n:\n                lm.fill(r, 1.0)\n";
  EXPECT_EQ(tlg::decidedIn(tlg::oneRole(up)), "j < n taken");
  const std::string open = "        for j in lm.range(0, n, 2):\n            if j + 1 < n:\n                lm.fill(r, 1.0)\n";
  EXPECT_EQ(tlg::decidedIn(tlg::oneRole(open)), "");
  const std::string down = "        for j in lm.range(3, -1, -1):\n            if j < 0:\n                lm.fill(r, 1.0)\n";
  EXPECT_EQ(tlg::decidedIn(tlg::oneRole(down)), "j < 0 not taken");
  const std::string down_open =
      "        for j in lm.range(3, -1, -1):\n            if j > 0:\n                lm.fill(r, 1.0)\n";
  EXPECT_EQ(tlg::decidedIn(tlg::oneRole(down_open)), "");
  const std::string nested =
      "        for i in lm.range(0, n):\n            for j in lm.range(0, i):\n"
      "                if j + 1 < n:\n                    lm.fill(r, 1.0)\n";
  EXPECT_EQ(tlg::decidedIn(tlg::oneRole(nested)), "j + 1 < n taken");
  // the range of i is not a fact after its loop
  const std::string after =
      "        for i in lm.range(0, n):\n            lm.fill(r, 1.0)\n"
      "        for j in lm.range(0, 2 * n):\n            if j < n:\n                lm.fill(r, 1.0)\n";
  EXPECT_EQ(tlg::decidedIn(tlg::oneRole(after)), "");
}
