// Loops whose start reads a parameter, counted from 0 (docs/z3.md "Loops
// from a parameter's start, counted from 0", helper tmem3, session 33): a
// split-K CTA that runs `for k in lm.range(k0, k1)` with k0 =
// lm.block_idx(1) * kpc and ring index `k - k0` was unknown ("a loop's
// start or step depends on a parameter"); the proof now reads the loop as
// `for k in lm.range(0, k1 - k0)` with every k of its body read as `k0 +
// k` (so `k - k0` is `k`) and proves that copy. Broken forms that differ
// only in how the body reads the start (the ring restarted at the wrong
// place), each found by the bounded check, are not proved.
#include <gtest/gtest.h>

#include <string>

#include "tests/common/text_edit.h"
#include "checks/model_check.h"
#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "split_k_range.h"
#include "test_util.h"

using namespace cake;

namespace trip_from_zero_test {

// kSplitKRange of split_k_range.h (a 4-slot ring between a TMA
// producer and two consumer warpgroups, each CTA over k-blocks [k0, k1)).
const char* const kFromZeroSplitK = cake::testing::kSplitKRange;

std::string fromZeroEdit(const std::string& from, const std::string& to) {
  return cake::testing::replace(kFromZeroSplitK, from, to);
}

// The bounded check meets a violation at some K, kpc and CTA of the split.
bool fromZeroBroken(const std::string& text) {
  const ir::Schedule s = cake::testing::compile(text).schedules.at(0);
  for (int64_t kpc : {1, 3, 4, 5, 9})
    for (int64_t blk : {0, 1, 2, 3})
      for (int64_t k_tiles : {kpc * blk + 1, kpc * blk + kpc, kpc * blk + kpc + 5}) {
        encoder::Binding b = cake::testing::bind(s, {{"K", 64 * k_tiles}, {"kpc", kpc}});
        b.block_idx[1] = blk;
        b.grid_dim[1] = 4;
        if (cake::testing::violatedAt(s, b)) return true;
      }
  return false;
}

}  // namespace trip_from_zero_test

namespace tfz = trip_from_zero_test;

TEST(TripFromZero, SplitKRangeIsProved) {
  EXPECT_FALSE(tfz::fromZeroBroken(tfz::kFromZeroSplitK));
  auto r = cake::testing::proveText(tfz::kFromZeroSplitK, 5);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("(k counted from 0)"), std::string::npos) << r.engine;
  EXPECT_NE(r.engine.find("lap induction"), std::string::npos) << r.engine;
}

TEST(TripFromZero, BrokenSplitKRangesAreNotProved) {
  struct Broken {
    std::string what, text;
  };
  const Broken broken[] = {
      // both roles index the ring by k, not k - k0: at k0 = 4 the first
      // wait asks for a phase of parity 1 and passes before any load landed
      {"the ring restarted at the split's k-block",
       cake::test::replaceAll(cake::test::replaceAll(tfz::kFromZeroSplitK, "k - k0 - 4", "k - 4"), "k - k0", "k")},
      // the consumers only: they wait and release at k, the producer at k - k0
      {"the consumers' ring index not shifted",
       cake::testing::replace(tfz::fromZeroEdit("lm.wait(full, iter=k - k0)", "lm.wait(full, iter=k)"),
                              "lm.arrive(empty, iter=k - k0)", "lm.arrive(empty, iter=k)")},
      // the consumers' offset one off: they wait for the next k-block's load
      {"the consumers' offset one off",
       tfz::fromZeroEdit("lm.wait(full, iter=k - k0)", "lm.wait(full, iter=k - k0 + 1)")},
      // the producer refills a slot one lap early
      {"a refill one slot early", tfz::fromZeroEdit("iter=k - k0 - 4)", "iter=k - k0 - 5)")},
      // the consumers read the slot of the k-block before
      {"the consumers read the slot before",
       tfz::fromZeroEdit("smem_a[k - k0][m0:m0 + 64, :], smem_b[k - k0]", "smem_a[k - k0 - 1][m0:m0 + 64, :], smem_b[k - k0 - 1]")},
  };
  for (const Broken& b : broken) {
    ASSERT_NE(b.text, tfz::kFromZeroSplitK) << b.what;
    EXPECT_TRUE(tfz::fromZeroBroken(b.text)) << b.what << ": the bounded check should meet it";
    auto r = cake::testing::proveText(b.text, 5);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.what << ": " << r.engine;
  }
}

// The stream-K CTA's first segment `lm.range(S, KT)` is counted from 0;
// its two segments of independent lengths are then read as the tiles of a
// persistent kernel (trip_segments_test.cpp; docs/z3.md "Consecutive loops
// of independent lengths read as the tiles of a persistent kernel").
TEST(TripFromZero, StreamKFirstSegmentIsCountedFromZero) {
  const ir::Schedule s =
      cake::testing::compile(cake::testing::corpusText("corpus/splitk/sm100_stream_k_two_segments.cake")).schedules.at(0);
  encoder::TripProofOptions o;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  auto r = encoder::proveEveryTripCount(s, s.target, {cake::testing::bind(s, {{"KT", 7}, {"S", 3}})}, o);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lm.range(S, KT) as lm.range(0, KT - S)"), std::string::npos) << r.engine;
}

// The bounded check's own values (the covering bindings `cake check` runs)
// meet the broken forms whose ring index ignores the split's start: before
// session 33 they ran the loop from k0 = 0 only for every trip count above
// 0, and both forms below exited 0 *checked* (the proof does not prove
// them; docs/known-limits.md). checks/model_check.cpp placeStarts: starts 1,
// S - 1, S, S + 1 with trip counts 1 and S + 1.
TEST(TripFromZero, CoveringValuesStartTheSplitPastARingLap) {
  const std::string ring_at_k =
      cake::test::replaceAll(cake::test::replaceAll(tfz::kFromZeroSplitK, "k - k0 - 4", "k - 4"), "k - k0", "k");
  const std::string consumers_at_k =
      cake::testing::replace(tfz::fromZeroEdit("lm.wait(full, iter=k - k0)", "lm.wait(full, iter=k)"),
                             "lm.arrive(empty, iter=k - k0)", "lm.arrive(empty, iter=k)");
  auto metByCoveringValues = [](const std::string& text) {
    const ir::Schedule s = cake::testing::compile(text).schedules.at(0);
    // (only the bindings that start the split past 0, the ones at stake)
    for (const encoder::Binding& b : checks::coveringBindings(s))
      if (b.block_idx[1] * b.params.at(4) > 0 && cake::testing::violatedAt(s, b)) return true;
    return false;
  };
  EXPECT_TRUE(metByCoveringValues(ring_at_k)) << "the ring restarted at the split's k-block";
  EXPECT_TRUE(metByCoveringValues(consumers_at_k)) << "the consumers' ring index not shifted";
  // (the correct form's covering values are all clean: SplitKRangeIsProved's
  // grid and the gate's corpus files; running them all here costs 30 s)
}

// A persistent kernel's K loop over the flat iteration range (helper
// respell42, session 42; docs/known-limits.md "Verdicts that depend on how a
// bug is spelled"): the tile-ai/tilelang pair's producer written `for it in
// lm.range(w * k_blocks, (w + 1) * k_blocks): k = it - w * k_blocks`. Counted
// from 0, its trip count `(w + 1) * k_blocks - w * k_blocks` is spelled as the
// other roles' K loop bound `k_blocks` (equal for every value, the same
// parameters), so the loops are one symbolic dimension again.
namespace trip_from_zero_test {

const char* const kPersistentFixed = "corpus/bugs/data.stale-read/tilelang_ws_persistent_slot_k_vs_phase_fixed.cake";
const char* const kPersistentBroken = "corpus/bugs/data.stale-read/tilelang_ws_persistent_slot_k_vs_phase.cake";

// The producer's K loop over [w * k_blocks, (w + 1) * k_blocks + extra).
std::string flatKLoop(const std::string& text, const std::string& extra = "") {
  return cake::testing::replace(
      text, "            for k in lm.range(0, k_blocks):\n                it = w * k_blocks + k\n"
            "                lm.wait(consumed, iter=it - 4)",
      "            for it in lm.range(w * k_blocks, (w + 1) * k_blocks" + extra +
          "):\n                k = it - w * k_blocks\n                lm.wait(consumed, iter=it - 4)");
}

// The bounded check meets a violation at a few tile and K counts.
bool flatKLoopBroken(const std::string& text) {
  const ir::Schedule s = cake::testing::compile(text).schedules.at(0);
  for (int64_t k_blocks : {1, 2, 5})
    for (int64_t tiles : {1, 2, 3})
      for (int64_t grid : {1, 2}) {
        encoder::Binding b = cake::testing::bind(s, {{"M", 128 * tiles}, {"N", 128}, {"K", 64 * k_blocks}});
        b.block_idx[0] = 0;
        b.grid_dim[0] = grid;
        if (cake::testing::violatedAt(s, b)) return true;
      }
  return false;
}

}  // namespace trip_from_zero_test

TEST(TripFromZero, FlatKLoopOfAPersistentKernelIsProved) {
  const std::string fixed = cake::testing::corpusText(tfz::kPersistentFixed);
  const std::string flat = tfz::flatKLoop(fixed);
  ASSERT_NE(flat, fixed);
  EXPECT_FALSE(tfz::flatKLoopBroken(flat));
  auto r = cake::testing::proveText(flat, 5);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("(k counted from 0)"), std::string::npos) << r.engine;
}

TEST(TripFromZero, BrokenFlatKLoopsAreNotProved) {
  const std::string fixed = cake::testing::corpusText(tfz::kPersistentFixed);
  const std::string broken_text = cake::testing::corpusText(tfz::kPersistentBroken);
  const std::pair<std::string, std::string> broken[] = {
      // the corpus bug (slot and release by the tile-local k), flat producer loop
      {"the slot read by the tile-local k", tfz::flatKLoop(broken_text)},
      // one more producer iteration per tile: the trip count k_blocks + 1
      // is not k_blocks, whatever its spelling
      {"the flat range one longer", tfz::flatKLoop(fixed, " + 1")},
  };
  for (const auto& [what, text] : broken) {
    ASSERT_NE(text, fixed) << what;
    EXPECT_TRUE(tfz::flatKLoopBroken(text)) << what << ": the bounded check should meet it";
    auto r = cake::testing::proveText(text, 5);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << what << ": " << r.engine;
  }
}
