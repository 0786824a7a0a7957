// Consecutive loops over one ring with lengths of their own, read as the
// tiles of a persistent kernel of exactly that many tiles (docs/z3.md
// "Consecutive loops of independent lengths read as the tiles of a
// persistent kernel", helper streamk, session 34). A stream-K CTA runs the
// tail [S, KT) of one output tile and then the head [0, S) of the next over
// one smem ring: two K loops of lengths KT - S and S. The proof stopped at
// `the symbolic loops have different bounds (KT - S and S)`; it now explores
// every run in which segment j runs its own B_j >= 1 iterations from the
// ring start B_0 + ... + B_(j-1), the tile count fixed. Broken forms, each
// found by the bounded check, are not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "encoder/trip_proof.h"
#include "test_util.h"

using namespace cake;

namespace trip_segments_test {

const std::string kSegmentsStreamK = cake::testing::corpusText("corpus/splitk/sm100_stream_k_two_segments.cake");

// Three segments: the tail of tile 3b, the whole of tile 3b+1, the head of
// 3b+2 (the corpus file with a middle segment of KT k-blocks inserted, ring
// indices from KT - S, then 2 KT - S, and a third partial).
std::string threeSegments() {
  using cake::testing::replace;
  const std::string load2 =
      "        for k in lm.range(0, S):\n            it = n_tail + k\n            lm.wait(empty, iter=it - 2)\n";
  const std::string mma2 = "        for k in lm.range(0, S):\n            it = n_tail + k\n            lm.wait(full, iter=it)\n";
  std::string t = replace(kSegmentsStreamK, "def gemm_sm100_stream_k_two_segments", "def gemm_sm100_stream_k_three");
  t = replace(t, load2,
              "        for k in lm.range(0, KT):\n            it = n_tail + k\n            lm.wait(empty, iter=it - 2)\n"
              "            smem_a.tma_load(A, coords=(128 * tail_tile + 128, 64 * k), iter=it, barrier=full)\n"
              "            smem_b.tma_load(B, coords=(0, 64 * k), iter=it, barrier=full)\n"
              "        for k in lm.range(0, S):\n            it = n_tail + KT + k\n"
              "            lm.wait(empty, iter=it - 2)\n");
  t = replace(t, mma2,
              "        for k in lm.range(0, KT):\n            it = n_tail + k\n            lm.wait(full, iter=it)\n"
              "            lm.mma(accum, smem_a[it], smem_b[it], init=(k == 0))\n"
              "            lm.mma_commit(barrier=empty, iter=it)\n"
              "        lm.mma_commit(barrier=acc_full, iter=1)\n        lm.wait(acc_empty, iter=1)\n"
              "        for k in lm.range(0, S):\n            it = n_tail + KT + k\n            lm.wait(full, iter=it)\n");
  t = replace(t, "        lm.mma_commit(barrier=acc_full, iter=1)\n\n", "        lm.mma_commit(barrier=acc_full, iter=2)\n\n");
  return replace(t, "for seg in lm.range(0, 2):", "for seg in lm.range(0, 3):");
}
const std::string kSegmentsThree = threeSegments();

// The bounded check meets a violation at some (KT, S) with 1 <= S < KT.
bool segmentsBroken(const std::string& text) {
  const ir::Schedule s = cake::testing::compile(text).schedules.at(0);
  for (int64_t kt : {2, 3, 4, 5, 7})
    for (int64_t sv = 1; sv < kt; ++sv)
      if (cake::testing::violatedAt(s, {{"KT", kt}, {"S", sv}})) return true;
  return false;
}

encoder::ModelCheckResult segmentsProve(const std::string& text) {
  const ir::Schedule s = cake::testing::compile(text).schedules.at(0);
  encoder::TripProofOptions o;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  return encoder::proveEveryTripCount(s, s.target, {cake::testing::bind(s, {{"KT", 7}, {"S", 3}})}, o);
}

}  // namespace trip_segments_test

namespace tseg = trip_segments_test;

TEST(TripSegments, StreamKTwoSegmentsAreProved) {
  EXPECT_FALSE(tseg::segmentsBroken(tseg::kSegmentsStreamK));
  auto r = tseg::segmentsProve(tseg::kSegmentsStreamK);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lm.range(S, KT) as lm.range(0, KT - S)"), std::string::npos) << r.engine;
  EXPECT_NE(r.engine.find("2 consecutive loops over one ring (load, mma) of lengths KT - S, S"), std::string::npos)
      << r.engine;
  EXPECT_NE(r.engine.find("exactly 2 tiles"), std::string::npos) << r.engine;
}

TEST(TripSegments, ThreeSegmentsAreProved) {
  EXPECT_FALSE(tseg::segmentsBroken(tseg::kSegmentsThree));
  auto r = tseg::segmentsProve(tseg::kSegmentsThree);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("3 consecutive loops over one ring (load, mma) of lengths KT - S, KT, S"), std::string::npos)
      << r.engine;
  EXPECT_NE(r.engine.find("exactly 3 tiles"), std::string::npos) << r.engine;
}

// A segment the assumptions allow to be empty is a tile of no iteration,
// which the exploration does not run: unknown, never proved.
TEST(TripSegments, ASegmentThatMayBeEmptyIsNotProved) {
  const std::string text = cake::testing::replace(tseg::kSegmentsStreamK, "lm.assume(S > 0)", "lm.assume(S >= 0)");
  auto r = tseg::segmentsProve(text);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
  EXPECT_NE(r.detail.find("segment 2's length S from being below 1"), std::string::npos) << r.detail;
}

// Broken stream-K CTAs: each broken at its witness (explicit engine), not
// proved under `cake check`'s default budget, and found by `cake check`.
TEST(TripSegments, BrokenStreamKSegmentsAreNotProved) {
  using cake::testing::attacks::Attack;
  const std::string seg2_load = "            it = n_tail + k\n            lm.wait(empty, iter=it - 2)\n";
  const std::string seg2_mma = "            it = n_tail + k\n            lm.wait(full, iter=it)\n";
  const std::string seg2_mma_op = "lm.mma(accum, smem_a[it], smem_b[it], init=(k == 0))";
  const std::vector<Attack> attacks = {
      {{{"init=(k == 0))", "init=(k == S))"}},
       "segment 2 keeps segment 1's init=(k == S) (the corpus twin)", {{"KT", 2}, {"S", 1}}},
      {{{"init=(k == 0))", "init=False)"}}, "segment 2 never resets the accumulator", {{"KT", 2}, {"S", 1}}},
      {{{seg2_load, "            it = k\n            lm.wait(empty, iter=it - 2)\n"},
        {seg2_mma, "            it = k\n            lm.wait(full, iter=it)\n"}},
       "segment 2 restarts the ring at slot 0, phase 0 (both roles)", {{"KT", 2}, {"S", 1}}},
      {{{seg2_mma, "            it = k\n            lm.wait(full, iter=it)\n"}},
       "segment 2 restarts the ring in the MMA warp only", {{"KT", 2}, {"S", 1}}},
      {{{seg2_load, "            it = k\n            lm.wait(empty, iter=it - 2)\n"}},
       "segment 2 restarts the ring in the TMA warp only", {{"KT", 2}, {"S", 1}}},
      {{{seg2_mma, "            it = n_tail + k\n            lm.wait(full, iter=it + 2)\n"}},
       "segment 2's MMA waits at the wrong parity (a lap on)", {{"KT", 2}, {"S", 1}}},
      {{{seg2_load, "            it = n_tail + k\n            lm.wait(empty, iter=it - 3)\n"}},
       "segment 2's producer refills a slot before its release", {{"KT", 3}, {"S", 2}}},
      {{{seg2_load, "            it = S + k\n            lm.wait(empty, iter=it - 2)\n"},
        {seg2_mma, "            it = S + k\n            lm.wait(full, iter=it)\n"}},
       "segment 2 starts its ring at S, not KT - S", {{"KT", 3}, {"S", 1}}},
      {{{seg2_mma_op, "lm.mma(accum, smem_a[it + 1], smem_b[it + 1], init=(k == 0))"}},
       "segment 2's MMA reads the next slot", {{"KT", 2}, {"S", 1}}},
      {{{"        lm.wait(acc_empty, iter=0)\n", ""}},
       "segment 2 overwrites the accumulator before the epilogue read segment 1's", {{"KT", 2}, {"S", 1}}},
      {{{"        lm.mma_commit(barrier=acc_full, iter=0)\n", ""}},
       "segment 1's partial is never signalled to the epilogue", {{"KT", 2}, {"S", 1}}},
      // no hand-off between the segments and one read at the end: segment
      // 2's reset overwrites segment 1's product nobody read out (marked
      // only in a run whose tiles follow each other on the ring; the proof's
      // grid, every tile from ring index 0, marked nothing and this was proved)
      {{{"        lm.mma_commit(barrier=acc_full, iter=0)\n        lm.wait(acc_empty, iter=0)\n", ""},
        {"        lm.mma_commit(barrier=acc_full, iter=1)", "        lm.mma_commit(barrier=acc_full, iter=0)"},
        {"for seg in lm.range(0, 2):", "for seg in lm.range(0, 1):"}},
       "segment 1's product overwritten by segment 2's reset before it is read", {{"KT", 2}, {"S", 1}}},
  };
  cake::testing::attacks::attack(tseg::kSegmentsStreamK, {{"KT", 7}, {"S", 3}}, attacks);
}
