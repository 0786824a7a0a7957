// Holes in the bounded check's covering values that helper sound41's attack
// on session 40's steps found (bench/attacks/sound41_mutants.py; docs/z3.md
// "Soundness review, session 41"), each a broken schedule that exited 0
// *checked* with nothing named, now found, beside a correct twin that stays
// clean:
//  * a split-K wait skipped at iteration 40 of each block (`if k - k0 !=
//    40`): its flip is at no iteration the flip targets took, so every
//    target was ruled out and the flip went unplaced (flipTargets now adds
//    the guard's flips at the base's values, BindingSearch::baseFlips);
//  * a table band left short from the second-to-last tile on, past tile 9
//    (`t + 2 != N or t < 9`): the far K ran with the tile loop held at the
//    flip's own tile, where the stale column is not read yet
//    (Goal::far_flips: a lap past the flip);
//  * the band short on tile 3 of block 2 only: the guard's outcome vector
//    of block 2 ran the far K on two tiles (each vector base is now also
//    held past a loop's later flips).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "attack_pair.h"
#include "attack_util.h"
#include "cover_kernels.h"
#include "split_k_range.h"
#include "test_util.h"

using namespace cake;

namespace sound41_test {

// Two warps read one column of a 64-column table per K step on each of N
// tiles; warp 0 writes the table on every tile, its first 63 columns only
// where `short_when` holds (cover40_test.cpp's band, the short tiles chosen).
std::string bandShortWhen(const std::string& short_when) {
  return R"(@cake.schedule(target="sm_80")
def band_tiles(lm, Out: LM.gmem, K: LM.i32, N: LM.i32):
    lm.assume(K >= 1)
    lm.assume(K <= 64)
    lm.assume(N >= 1)
    pool  = lm.smem(1024)
    tab   = pool.view(offset=0, shape=(1, 64), dtype=lm.i32, stages=1)
    v     = lm.regs(shape=(1, 64), dtype=lm.i32)
    x     = lm.regs(shape=(1, 1), dtype=lm.i32)
    warps = lm.role(warps=[0, 1], group=1)
    cta   = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        for t in lm.range(0, N):
            if w == 0:
                lm.fill(v, 1)
                if )" + short_when + R"(:
                    lm.copy(tab[0][:, 0:63], v[:, 0:63])
                else:
                    lm.copy(tab[0], v)
            lm.sync(cta)
            for k in lm.range(0, K):
                lm.copy(x, tab[0][:, k:k + 1])
                lm.copy(Out, x, coords=(64 * t + k, w))
            lm.sync(cta)
)";
}

// Eight warps of one role, a block barrier per iteration of the loops in
// BODY (w = lm.instance()).
std::string warpLoops(const std::string& body) {
  return R"(@cake.schedule(target="sm_80")
def warp_loop(lm, n: LM.i32):
    lm.assume(n >= 1)
    sg = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=1)
    wg = lm.named_barrier(roles=[sg])
    with sg:
        w = lm.instance()
)" + body;
}

// The rules the bounded check alone (the proof off) reports with an error.
std::set<std::string> boundedRules(const std::string& text) {
  return cake::testing::cover::errorRules(cake::testing::cover::bounded(text));
}

}  // namespace sound41_test

namespace s41 = sound41_test;

// The wait skipped at iteration 40 of every block races with the load of
// slot 40 % 4; the twin's guard `k * 2 != k0 * 2 + 7` never holds false (the
// wait always runs). The bounded check alone (the proof of the split-K
// range is unknown with a guard on k - k0). Cost: 2 s.
TEST(Sound41, ASplitKFlipAtAFixedFarIterationIsPlaced) {
  EXPECT_TRUE(s41::boundedRules(cake::testing::splitKWaitIf("k - k0 != 40")).count("sync.race"))
      << "the wait skipped at iteration 40 of each block";
  EXPECT_TRUE(s41::boundedRules(cake::testing::splitKWaitIf("k * 2 != k0 * 2 + 7")).empty()) << "a guard that never flips";
}

// Found at N = 11 and at block 2 with N >= 5, K = 64; the band short where
// column 63 is never read is clean. The bounded check alone (the proof of
// either form is unknown: `k` is not a function of the ring index).
// Cost: 0.3 s.
TEST(Sound41, FarTripsRunALapPastALoopsFlipAndWithEachOutcomeVector) {
  EXPECT_TRUE(s41::boundedRules(s41::bandShortWhen("t + 2 == N and t >= 9")).count("data.stale-read"))
      << "the band short on the second-to-last tile past tile 9";
  EXPECT_TRUE(s41::boundedRules(s41::bandShortWhen("t == 3 and lm.block_idx(0) == 2")).count("data.stale-read"))
      << "the band short on tile 3 of block 2";
  EXPECT_TRUE(s41::boundedRules(s41::bandShortWhen("t + 2 == N and t >= 9 and K < 64")).empty())
      << "the short band never read at column 63";
}

// A bound that reads lm.instance() through an outer loop's variable (j =
// w), and a second loop whose bound reads it (read as a segment of its own
// length by segmentsAsTiles): the proofs read one trip count for every
// warp and proved both; warp 3's extra barrier (n % 128 in 97..127, or n %
// 5 == 4) deadlocks. Refused before any engine now; the one-bound twin is
// proved. Cost: 0.5 s.
TEST(Sound41, ABoundThatReadsTheInstanceIndirectlyIsNotProved) {
  using cake::testing::attacks::expectFoundNotProved;
  const std::string sync = "lm.sync(wg)\n";
  expectFoundNotProved(s41::warpLoops("        for j in lm.range(w, w + 1):\n"
                                      "            for kb in lm.range(0, lm.cdiv(n + 32 * j, 128)):\n"
                                      "                " + sync),
                       "sync.deadlock", "a bound read through an outer loop's variable");
  expectFoundNotProved(s41::warpLoops("        for kb in lm.range(0, lm.cdiv(n, 64)):\n            " + sync +
                                      "        for j in lm.range(0, 1 + (w == 3) * (n % 5 == 4)):\n            " + sync),
                       "sync.deadlock", "a second loop one iteration longer on warp 3");
  auto m = cake::testing::compile(s41::warpLoops("        for kb in lm.range(0, lm.cdiv(n, 64)):\n            " + sync));
  EXPECT_EQ(cake::testing::attacks::proveDefault(m.schedules.at(0)).outcome, encoder::Outcome::Proved);
}
