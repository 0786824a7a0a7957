// Session 48's soundness review (helper sound48, docs/z3.md "Soundness
// review, session 48"): broken schedules aimed at the paths session 47
// added (bench/attacks/sound48_mutants.py). Two holes of the bounded check,
// one rule closes both. First:
// a producer tail one phase short from a far tile count on, where the
// operand steps at a value that is none of its own constants +-1 and their
// quotients +-1 (`(n_tiles + 7) // 1000` steps at 993, `(n_tiles + 13) % 997
// // 996` at 983). The proof refuses the tail and the bounded check runs
// n_tiles <= 7; BindingSearch::nameStepPastTrips looks only at the
// operand's own-constant samples, so the schedule exited 0 *checked*. Now
// the integer solver is asked for any such step of the operand
// (BindingSearch::placeStepsElsewhere): *unknown*, never a pass. Second: a
// slice bound whose crossing of the stored floats is not monotone in the
// parameter (`0:64 + (P * P % 1009 == 777)`), which cover47's crossing
// goals did not place: the same query finds the step and it is run.
#include <gtest/gtest.h>

#include <string>

#include "cover_kernels.h"
#include "exit_tail_kernels.h"
#include "test_util.h"

using cake::testing::replace;

namespace sound48_test {

// The producer tail waiting for phase `iter` after the tile loop.
std::string tailAt(const std::string& iter) {
  return replace(exit_tail_kernels::kProducerTail, exit_tail_kernels::kTail,
                 "        lm.wait(k_empty, iter=" + iter + ")\n");
}

// The producer's wait for the K tile's release inside its tile loop at
// `iter` (the kernel's own: `t - 1`).
std::string loopWaitAt(const std::string& iter) {
  return replace(exit_tail_kernels::kProducerTail, "            lm.wait(k_empty, iter=t - 1)\n",
                 "            lm.wait(k_empty, iter=" + iter + ")\n");
}

// The ring producer's last tail wait at `iter`.
std::string ringTailAt(const std::string& iter) {
  return replace(exit_tail_kernels::kRingProducerTail, exit_tail_kernels::kRingTail1,
                 "        lm.wait(empty, iter=" + iter + ")\n");
}

}  // namespace sound48_test

namespace s48 = sound48_test;

// Off by one phase from a far tile count on, the step at a value no sample
// of main's looked at: main exited 0 *checked* on the first three (after
// the tile loop the wait for phase n_tiles - 2 leaves the last release
// unobserved, sync.async-at-exit; inside it every tile's wait is a phase
// early, and the load overwrites the K tile the MMA still reads, sync.race:
// the same operands scaled down, `(n_tiles + 7) // 10` and `(n_tiles + 13)
// % 17 // 16`, show both at n_tiles = 3). The ring end's form exited 2 on
// main already (a quotient of its constants).
TEST(Sound48, AFarStepAwayFromTheOperandsConstantsIsNotChecked) {
  namespace cover = cake::testing::cover;
  EXPECT_TRUE(cover::boundedVerdict(s48::tailAt("n_tiles - 1 - (n_tiles + 7) // 10")).rules.count("sync.async-at-exit"))
      << "the scaled-down tail is not found";
  EXPECT_TRUE(cover::boundedVerdict(s48::loopWaitAt("t - 1 - (n_tiles + 13) % 17 // 16")).rules.count("sync.race"))
      << "the scaled-down wait in the tile loop is not found";
  for (const std::string& text : {s48::tailAt("n_tiles - 1 - (n_tiles + 7) // 1000"),
                                  s48::tailAt("n_tiles - 1 - (n_tiles + 13) % 997 // 996"),
                                  s48::loopWaitAt("t - 1 - (n_tiles + 13) % 997 // 996"),
                                  s48::ringTailAt("n_tiles * k_tiles - 1 - (n_tiles * k_tiles + 13) % 997 // 996")}) {
    const cover::BoundedVerdict v = cover::boundedVerdict(text);
    EXPECT_TRUE(v.unknown || !v.rules.empty()) << "UNSOUND: the far step exits 0 checked:\n" << text;
  }
}

// cover47's two warps' row (tests/encoder/cover47_test.cpp): every warp
// reads `0:64 + (P * P % 1009 == 777)` of the 64 stored floats, one float
// too many at P = 500 and 509 only (1 <= P <= 1000), a crossing no goal of
// the slice bounds placed (the difference is not monotone in P): main ran P
// = 1 alone and exited 0 *checked*. The step the integer solver finds is
// now run (P = 500: data.stale-read); the correct twin, `64 - ...`, is run
// there too and stays clean and checked.
TEST(Sound48, ASliceBoundThatStepsAtAResidueIsRun) {
  namespace cover = cake::testing::cover;
  const cover::BoundedVerdict bad = cover::boundedVerdict(cover::guardedRowRead("", "64 + (P * P % 1009 == 777)"));
  EXPECT_TRUE(bad.rules.count("data.stale-read")) << "UNSOUND: the read past the stores at P = 500 is not found";
  const cover::BoundedVerdict good = cover::boundedVerdict(cover::guardedRowRead("", "64 - (P * P % 1009 == 777)"));
  EXPECT_TRUE(good.rules.empty() && !good.unknown) << "the correct twin is no longer clean and checked";
}

// Correct forms whose operand is not affine but steps only as the values
// run show it (`n_tiles // 2`, cancelled or times 0) keep their verdict: no
// step is named.
TEST(Sound48, StepsTheValuesShowAreNotNamed) {
  namespace cover = cake::testing::cover;
  for (const std::string& iter : {"n_tiles - 1 + n_tiles // 2 * 0", "n_tiles - 1 + n_tiles // 2 - n_tiles // 2"}) {
    const cover::BoundedVerdict v = cover::boundedVerdict(s48::tailAt(iter));
    EXPECT_TRUE(v.rules.empty() && !v.unknown) << iter << ": a correct tail is no longer checked";
  }
}
