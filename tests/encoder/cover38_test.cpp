// Covering values past far thresholds (helper cover38, session 38;
// docs/known-limits.md "Covering values past far thresholds"): broken
// schedules whose bug shows only at a trip count past every trip target of
// the ring, which exited 0 *checked* before (K in {1,...,5}), each with the
// correct ring as its twin (proved).
//  * an operand's comparison whose difference at the loop's end is a
//    constant (`k + 25 == K`: 25 iterations before the end), which the
//    values took for "nothing to place";
//  * an operand's step of the loop variable alone (`k // 30`), first
//    moving at iteration 30.
// (The slice that reaches its view's extent is the corpus pair
// corpus/bugs/data.stale-read/deepgemm_persistent_sfb_band_one_column_short.cake.)
#include <gtest/gtest.h>

#include <string>

#include "attack_pair.h"
#include "test_util.h"

using namespace cake;
using namespace cake::testing::pairs;

namespace {

const std::string& coverRing() {
  static const std::string text =
      cake::testing::wsRingSchedule(2, {.name = "mainloop", .assume_k_positive = true, .epilogue = true});
  return text;
}

}  // namespace

// The consumers wait a phase early 25 iterations before the end: only K >= 26 has such an iteration.
TEST(Cover38, WaitOffFarBeforeTheLoopsEndIsFound) {
  expectPair("wait at k + 25 == K", edited(coverRing(), {{"lm.wait(full, iter=k)", "lm.wait(full, iter=k - (k + 25 == K))"}}),
             "", coverRing());
}

// The consumers' wait names an older lap from iteration 30 on.
TEST(Cover38, WaitOffFromIteration30IsFound) {
  expectPair("wait at k - k // 30", edited(coverRing(), {{"lm.wait(full, iter=k)", "lm.wait(full, iter=k - k // 30)"}}),
             "", "");
}
