// Session 47's soundness review (helper sound47, docs/z3.md "Soundness
// review, session 47"): broken schedules aimed at the proof paths session 46
// added (bench/attacks/sound47_mutants.py). Two holes, each proved on main:
//  * an exit path's copy per tile count or ring end (exitsByTileCount,
//    exitsByRingEnd) was the suffix of the program made of statements the
//    grid's own exit path runs, so a statement only a few tile counts run
//    after the tile loop (`if n_tiles == 1: lm.wait(...)` before the
//    producer's tail) ended the suffix and was left out of the copy
//    explored for those counts (exitPathOf);
//  * the copy of a split-K kernel whose empty splits every role skips
//    (skippedTiles) reads the tile count E_A as the count of kept tiles, so a
//    part after the tile loop that reads E_A (`lm.wait(tmem_empty,
//    iter=S)`, one release per split) was proved though it hangs where a
//    split is skipped.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "attack_util.h"
#include "exit_tail_kernels.h"
#include "skipped_tiles_kernels.h"

using cake::testing::replace;

namespace sound47_test {

// The producer's tail edit that puts `lines` after the tile loop, before
// the tail.
std::pair<std::string, std::string> beforeTail(const std::string& lines) {
  return {exit_tail_kernels::kTail, lines + exit_tail_kernels::kTail};
}

// The split-K kernel with `line` after the MMA's tile loop.
std::string afterMmaTiles(const std::string& line) {
  const std::string end = "                lm.mma_commit(barrier=tmem_full, stage=0)\n    with epi:\n";
  return replace(skipped_tiles_kernels::kSplitK, end,
                 "                lm.mma_commit(barrier=tmem_full, stage=0)\n" + line + "    with epi:\n");
}

}  // namespace sound47_test

namespace s47 = sound47_test;

// A wait for a phase never completed, run only at one or zero tiles before
// the tail, or a load there: broken at its witness, found by `cake check`,
// not proved (main proved all three: the copies after 0 and 1 tiles left
// the statement out). Run after the tail, the copy left the tail out too and
// met sync.async-at-exit: not proved on main either.
TEST(Sound47, AStatementOnlyFewTileCountsRunAfterTheTileLoopIsInTheirExitPath) {
  namespace at = cake::testing::attacks;
  const std::string hang = "            lm.wait(k_empty, iter=7)\n";
  at::attack(exit_tail_kernels::kProducerTail, {{"n_tiles", 3}, {"steps", 2}},
             {
                 {{s47::beforeTail("        if n_tiles == 1:\n" + hang)},
                  "a hang at one tile, before the tail",
                  {{"n_tiles", 1}, {"steps", 1}}},
                 {{s47::beforeTail("        if n_tiles == 0:\n" + hang)},
                  "a hang at no tile, before the tail",
                  {{"n_tiles", 0}, {"steps", 1}}},
                 {{s47::beforeTail("        if n_tiles == 1:\n            smem_k.tma_load(K, coords=(0, 0), "
                                   "iter=n_tiles, barrier=k_full)\n")},
                  "a load no one waits for at one tile, before the tail",
                  {{"n_tiles", 1}, {"steps", 1}}},
             });
}

// The same with no guard, on the tile count and on the ring end: a wait
// whose iteration falls below 0 (no wait is built) from one tile or ring
// end on, and moves with them alike (`7 - 8 * n_tiles`), so the grid's exit
// path holds none; at 0 tiles (ring end 0 or 1) it waits for a phase that
// never completes. Main proved both.
TEST(Sound47, AWaitOnlySmallCountsBuildIsInTheirExitPath) {
  namespace at = cake::testing::attacks;
  at::attack(exit_tail_kernels::kProducerTail, {{"n_tiles", 3}, {"steps", 2}},
             {{{s47::beforeTail("        lm.wait(k_empty, iter=7 - 8 * n_tiles)\n")},
               "a hang at no tile, from a wait below iteration 0 at every other count",
               {{"n_tiles", 0}, {"steps", 1}}}});
  const std::string& tail = exit_tail_kernels::kRingTail1;
  at::attack(exit_tail_kernels::kRingProducerTail, {{"n_tiles", 3}, {"k_tiles", 2}},
             {{{{tail, "        lm.wait(empty, iter=9 - 8 * (n_tiles * k_tiles))\n" + tail}},
               "a hang at ring ends 0 and 1, from a wait below iteration 0 at every other ring end",
               {{"n_tiles", 1}, {"k_tiles", 1}}}});
}

// The correct tails stay proved with every statement after the tile loop in
// the copies (the tail guarded by `n_tiles > 0`, spelled with a scope
// variable).
TEST(Sound47, TailsAfterTheTileLoopStayProved) {
  const std::string& tail = exit_tail_kernels::kTail;
  const std::string scoped = replace(exit_tail_kernels::kProducerTail, "    with load:\n",
                                     "    last = n_tiles - 1\n    with load:\n");
  for (const std::string& text :
       {exit_tail_kernels::kProducerTail,
        replace(exit_tail_kernels::kProducerTail, tail, "        if n_tiles > 0:\n    " + tail),
        replace(scoped, tail, "        lm.wait(k_empty, iter=last)\n")}) {
    auto mod = cake::testing::compile(text);
    ASSERT_FALSE(mod.schedules.empty());
    const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
    EXPECT_EQ(r.outcome, cake::encoder::Outcome::Proved) << r.detail;
  }
}

// The MMA waits after its split loop for the epilogue's release of every
// split, S of them, where only the kept splits release: it hangs where a
// split is empty (K = 1, S = 2). Found by `cake check`, not proved (main
// proved it through the skipped tiles' copy, whose tile count is the kept
// splits').
TEST(Sound47, APartAfterTheSplitLoopThatReadsTheSplitCountIsNotProved) {
  cake::testing::attacks::expectFoundNotProved(s47::afterMmaTiles("        lm.wait(tmem_empty, iter=S)\n"),
                                               "sync.arrival-underflow",
                                               "the MMA waits for a release per split after its split loop");
}
