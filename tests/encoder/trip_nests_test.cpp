// Two sibling tile loops over one ring, each around its own K loop, read as
// one persistent kernel with a kind per tile and tiles of their own lengths
// (docs/z3.md "Sibling tile loops over one ring read as one persistent
// kernel", helper group45, session 45). A grouped GEMM walks the tiles of
// group 0 (ring index t * kt0 + k), then those of group 1 (T0 * kt0 + t *
// kt1 + k); the proof stopped at `the symbolic loops have different bounds
// (T0 around lm.cdiv(K0, 64): ... not proved yet)`. Broken forms, each found
// by the bounded check, are not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "encoder/trip_proof.h"
#include "test_util.h"

using namespace cake;

namespace trip_nests_test {

const std::string kNests = cake::testing::corpusText("corpus/gemm/sm90_two_sibling_tile_loops.cake");
const std::string kGrouped = cake::testing::corpusText("corpus/gemm/sm90_grouped_gemm_two_groups.cake");

// Group 1's lines of the reproducer (the producer's come first in the text).
const std::string kLoad1 = "                it = T0 * kt0 + t * kt1 + k\n                lm.wait(empty, iter=it - 4)\n";
const std::string kMma1 = "                it = T0 * kt0 + t * kt1 + k\n                lm.wait(full, iter=it)\n";

encoder::ModelCheckResult nestsProve(const std::string& text, bool kinds_in_order = true) {
  const ir::Schedule s = cake::testing::compile(text).schedules.at(0);
  encoder::TripProofOptions o;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  o.kinds_in_order = kinds_in_order;
  return encoder::proveEveryTripCount(
      s, s.target, {cake::testing::bind(s, {{"T0", 2}, {"T1", 3}, {"K0", 128}, {"K1", 320}})}, o);
}

}  // namespace trip_nests_test

namespace tnest = trip_nests_test;

// The reproducer: clean on the explicit engine at tile counts 0..3 of
// lengths 1, 2 and 5 in either group, proved for every T0, T1, K0, K1 as one
// persistent kernel whose tiles run lengths of their own (one exploration
// of every length, not tiles of one length at a time).
TEST(TripNests, SiblingTileLoopsAreProved) {
  const ir::Schedule s = cake::testing::compile(tnest::kNests).schedules.at(0);
  EXPECT_FALSE(cake::testing::brokenOnGrid(
      s, {{"T0", {0, 1, 3}}, {"T1", {0, 2, 3}}, {"K0", {64, 128, 320}}, {"K1", {64, 320}}}));
  auto r = tnest::nestsProve(tnest::kNests);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("2 sibling tile loops over one ring (producer, consumer) of T0 tiles of lm.cdiv(K0, 64) K "
                          "iterations, then T1 of lm.cdiv(K1, 64)"),
            std::string::npos)
      << r.engine;
  EXPECT_NE(r.engine.find("every NT >= 0 tiles of every B >= 1 K iterations, each tile its own"), std::string::npos)
      << r.engine;
  EXPECT_EQ(r.engine.find("one by one"), std::string::npos) << r.engine;
}

// The kinds in tile order across roles: the producer's and the consumer's
// tiles take their kinds from one guard node, one boundary T0 per CTA, so a
// state with the producer in a kind-1 tile below the consumer's kind-0 tile
// is no run's. Proved both ways; the filter across roles explores fewer
// states.
TEST(TripNests, KindsInTileOrderAcrossRolesExploreFewerStates) {
  auto on = tnest::nestsProve(tnest::kNests);
  auto off = tnest::nestsProve(tnest::kNests, false);
  ASSERT_EQ(on.outcome, encoder::Outcome::Proved) << on.detail;
  ASSERT_EQ(off.outcome, encoder::Outcome::Proved) << off.detail;
  EXPECT_LT(on.states, off.states);
}

namespace trip_nests_test {
// The reproducer with one edit is not proved, for `why`.
void expectNotProvedFor(const std::string& from, const std::string& to, const std::string& why) {
  auto r = nestsProve(cake::testing::replace(kNests, from, to));
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
  EXPECT_NE(r.detail.find(why), std::string::npos) << r.detail;
}
}  // namespace trip_nests_test

// In a run whose first loop runs a negative count, the second loop's tile t
// is not the copy's tile T0 + t: the facts must keep T0 >= 0, else unknown.
// A tile of no K iteration is not explored: the facts must keep every K
// trip count >= 1, else unknown.
TEST(TripNests, ACountThatMayBeNegativeOrAnEmptyKLoopIsNotProved) {
  tnest::expectNotProvedFor("    lm.assume(T0 >= 0)\n", "", "do not keep the first tile loop's count T0 from being below 0");
  tnest::expectNotProvedFor("lm.assume(K1 > 0)", "lm.assume(K1 >= 0)",
                     "tile loop 2's K trip count lm.cdiv(K1, 64) from being below 1");
}

// Broken forms of the reproducer: each broken at its witness (explicit
// engine), not proved under `cake check`'s default budget, found by `cake
// check`.
TEST(TripNests, BrokenSiblingTileLoopsAreNotProved) {
  using cake::testing::attacks::Attack;
  const std::string mma = "lm.mma(acc, smem_a[it], smem_a[it], init=(k == 0))\n";
  const std::string mma1 = tnest::kMma1 + "                " + mma;
  const std::vector<Attack> attacks = {
      {{{tnest::kLoad1, "                it = T0 * kt0 + t * kt1 + k - 1\n                lm.wait(empty, iter=it - 4)\n"},
        {tnest::kMma1, "                it = T0 * kt0 + t * kt1 + k - 1\n                lm.wait(full, iter=it)\n"}},
       "group 1's ring starts one iteration early (both roles)", {{"T0", 1}, {"T1", 1}, {"K0", 64}, {"K1", 64}}},
      {{{tnest::kLoad1, "                it = t * kt1 + k\n                lm.wait(empty, iter=it - 4)\n"},
        {tnest::kMma1, "                it = t * kt1 + k\n                lm.wait(full, iter=it)\n"}},
       "group 1's ring without group 0's offset (both roles)", {{"T0", 1}, {"T1", 1}, {"K0", 64}, {"K1", 64}}},
      {{{tnest::kMma1, "                it = t * kt1 + k\n                lm.wait(full, iter=it)\n"}},
       "group 1's ring without group 0's offset in the consumer only", {{"T0", 1}, {"T1", 1}, {"K0", 64}, {"K1", 64}}},
      {{{tnest::kMma1, "                it = T0 * kt0 + t * kt1 + k\n"}},
       "group 1's consumer does not wait for its data", {{"T0", 1}, {"T1", 1}, {"K0", 64}, {"K1", 64}}},
      {{{tnest::kLoad1, "                it = T0 * kt0 + t * kt1 + k\n"}},
       "group 1's producer does not wait for an empty slot", {{"T0", 1}, {"T1", 4}, {"K0", 64}, {"K1", 64}}},
      {{{mma1, tnest::kMma1 + "                lm.mma(acc, smem_a[it + 1], smem_a[it + 1], init=(k == 0))\n"}},
       "group 1's consumer reads the next slot", {{"T0", 1}, {"T1", 1}, {"K0", 64}, {"K1", 128}}},
      {{{"for t in lm.range(0, T1):\n            for k in lm.range(0, kt1):\n                it = T0 * kt0 + t * kt1 + k\n"
         "                lm.wait(empty",
         "for t in lm.range(0, T1 + 1):\n            for k in lm.range(0, kt1):\n                it = T0 * kt0 + t * kt1 + k\n"
         "                lm.wait(empty"}},
       "the producer loads one tile of group 1 more than the consumer takes", {{"T0", 1}, {"T1", 1}, {"K0", 64}, {"K1", 64}}},
  };
  cake::testing::attacks::attack(tnest::kNests, {{"T0", 2}, {"T1", 3}, {"K0", 128}, {"K1", 320}}, attacks);
}

// The CUTLASS grouped GEMM (gemm/sm90_grouped_gemm_two_groups.cake, proved
// at the default budget) and broken forms: group 1's ring one early or
// without group 0's offset (the corpus twin), its consumers not waiting for
// their data, its store slot restarted (`t % 2`: the slot of a store still in
// flight), its MMA not resetting the accumulator, the producer loading one
// tile more. Slow: each form runs the proof and `cake check` (about 2 s each).
TEST(TripNests, SlowGroupedGemmIsProvedAndItsBrokenFormsAreNot) {
  using cake::testing::attacks::Attack;
  const std::string it1 = "it = base1 + t * kt1 + k\n";
  const std::string mma1 = "                it = base1 + t * kt1 + k\n                lm.wait(full, iter=it)\n";
  const std::vector<std::pair<std::string, int64_t>> one_each = {{"M0", 128}, {"N0", 128}, {"K0", 64},
                                                                 {"M1", 128}, {"N1", 128}, {"K1", 64}};
  const std::vector<Attack> attacks = {
      {{{"base1 = n0 * kt0\n", "base1 = n0 * kt0 - 1\n"}}, "group 1's ring starts one iteration early", one_each},
      {{{it1, "it = t * kt1 + k\n"}, {it1, "it = t * kt1 + k\n"}},
       "group 1's ring without group 0's offset (the corpus twin)", one_each},
      {{{mma1, "                it = base1 + t * kt1 + k\n"}}, "group 1's consumers do not wait for their data",
       one_each},
      {{{"s = 2 * lm.instance() + (n0 + t) % 2", "s = 2 * lm.instance() + t % 2"}},
       "group 1's store slot restarts at the group", {{"M0", 128}, {"N0", 128}, {"K0", 64}, {"M1", 256}, {"N1", 128}, {"K1", 64}}},
      {{{mma1 + "                lm.mma(acc, smem_a[it][m0:m0 + 64, :], smem_b[it], init=(k == 0))\n",
         mma1 + "                lm.mma(acc, smem_a[it][m0:m0 + 64, :], smem_b[it], init=False)\n"}},
       "group 1's MMA accumulates onto the last product of group 0", one_each},
      {{{"        for t in lm.range(0, n1):\n            tile = b + (n0 + t) * G - tiles0\n            for k in lm.range(0, kt1):\n"
         "                it = base1 + t * kt1 + k\n                lm.wait(empty",
         "        for t in lm.range(0, n1 + 1):\n            tile = b + (n0 + t) * G - tiles0\n            for k in lm.range(0, kt1):\n"
         "                it = base1 + t * kt1 + k\n                lm.wait(empty"}},
       "the producer loads one tile of group 1 more than the consumers take", one_each},
  };
  cake::testing::attacks::attack(tnest::kGrouped, {{"M0", 256}, {"N0", 128}, {"K0", 128}, {"M1", 128},
                                                   {"N1", 256}, {"K1", 192}},
                                 attacks);
}
