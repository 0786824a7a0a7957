// Session 40's soundness review (helper sound40, docs/z3.md "Soundness
// review, session 40"): a proof hole its mutants met. The lap induction
// noted a read of the trip count only where the evaluator read it, and a
// short-circuit `and` / `or` hides it in every iteration of the window:
// `if not (k > 30 and k_tiles > 90):` around the consumers' release reads
// k_tiles only from k = 31 on, so the guard was checked neither as a read
// of the trip count nor as a body expression, and the proof said proved
// although the release stops at k = 31 once k_tiles > 90 (a hang). Now a
// use is noted wherever the expression holds the trip count.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "test_util.h"

using namespace cake;
using namespace cake::testing;
using namespace cake::testing::attacks;

namespace sound40_attacks_test {

const std::string kRelease = "            lm.arrive(empty, iter=k)\n";

std::string releaseUnless(const std::string& cond) {
  return replace(corpusText("corpus/basics/release_every_block_proved.cake"), kRelease,
                 "            if " + cond + ":\n                lm.arrive(empty, iter=k)\n");
}

}  // namespace sound40_attacks_test

namespace s40 = sound40_attacks_test;

// Broken (the release skipped past the window, behind an `and` and an
// `or`): found by the bounded check, not proved. Correct (the `and`'s
// second side never true): proved. Cost: 1.5 s.
TEST(Sound40, ATripCountReadThatTheWindowShortCircuitsIsChecked) {
  expectFoundNotProved(s40::releaseUnless("not (k > 30 and k_tiles > 90)"), "sync.deadlock",
                       "the release skipped from k = 31 on when k_tiles > 90");
  expectFoundNotProved(s40::releaseUnless("k < 30 or k_tiles < 60"), "sync.arrival-underflow",
                       "the release skipped from k = 30 on when k_tiles >= 60");
  auto mod = compile(s40::releaseUnless("not (k > 30 and k_tiles < 0)"));
  ASSERT_FALSE(mod.schedules.empty());
  const CheckAnswer a = modelCheck(mod.schedules.at(0));
  EXPECT_TRUE(a.proved) << a.detail;
  EXPECT_TRUE(a.rules.empty()) << join(a.rules);
}

// The ping-pong GEMM's consumers (each runs every other tile: a process
// that skips tiles, its part before the K loop read open) waiting for the
// tile before's last slot before their K loop: the wait is left out at
// ring start 0, the part did not move, no copies per ring start were made,
// and the proof said proved although the slot may have been refilled
// (sync.lost-phase; the hole fa8 closed for processes that run every tile,
// docs/z3.md "The last tiles to a depth", item 3). Now refused there.
TEST(Sound40, APingPongRingStartReadBeforeTheKLoopIsNotProved) {
  const std::string k_loop =
      "            for k in lm.range(0, k_tiles):\n                it = t * k_tiles + k\n                lm.wait(full, "
      "iter=it)\n";
  expectFoundNotProved(replace(corpusText("corpus/gemm/sm90_pingpong.cake"), k_loop,
                               "            lm.wait(full, iter=t * k_tiles - 1)\n" + k_loop),
                       "sync.lost-phase", "the tile's start waits for the tile before's last slot");
}
