// A part after the tile loop that reads the tile count: a producer's tail
// (`lm.wait(k_empty, iter=n_tiles - 1)` after its tile loop, CUTLASS's /
// CuTe DSL's producer_tail(), which waits for the consumer's last release
// before the CTA exits). docs/z3.md "A part after the tile loop that reads
// the tile count" (helper tail46, session 46). Refused before (`the
// schedule reads n_tiles outside its loop bound`); each explored tile count
// now gets its own copy of the exit path. Broken tails, each found by the
// bounded check, are not proved.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attack_util.h"
#include "exit_tail_kernels.h"
#include "test_util.h"

using namespace cake;

namespace trip_exit_count_test {

using namespace exit_tail_kernels;  // (inside this namespace: the unity build)

// Each text compiles and is proved for every trip count.
void expectEachProved(const std::vector<std::string>& texts) {
  for (const std::string& text : texts) {
    auto mod = cake::testing::compile(text);
    ASSERT_FALSE(mod.schedules.empty());
    const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  }
}

}  // namespace trip_exit_count_test

namespace tec = trip_exit_count_test;

// Refused before (the tile count read after the tile loop), proved now:
// the tail as written, and spelled with the tile count on the other side.
TEST(TripExitCount, ProducerTailAfterThePersistentLoopIsProved) {
  tec::expectEachProved({tec::kProducerTail, cake::testing::replace(tec::kProducerTail, tec::kTail,
                                                                    "        lm.wait(k_empty, iter=-1 + n_tiles)\n")});
}

// Broken tails: a wait on the wrong phase, one skipped for some tile
// counts, one past the last release; each broken at its witness, found by
// `cake check` and not proved.
TEST(TripExitCount, BrokenProducerTailsAreNotProved) {
  namespace at = cake::testing::attacks;
  const std::string& w = tec::kTail;
  at::attack(tec::kProducerTail, {{"n_tiles", 3}, {"steps", 2}},
             {
                 {{{w, "        lm.wait(k_empty, iter=n_tiles - 2)\n"}},
                  "the tail waits for the second-to-last release (the last commit still in flight at exit)",
                  {{"n_tiles", 1}, {"steps", 1}}},
                 {{{w, "        if n_tiles > 1:\n    " + w}},
                  "the tail is skipped for one tile",
                  {{"n_tiles", 1}, {"steps", 1}}},
                 {{{w, "        if n_tiles % 2 == 0:\n    " + w}},
                  "the tail is skipped for odd tile counts",
                  {{"n_tiles", 1}, {"steps", 1}}},
                 {{{w, "        lm.wait(k_empty, iter=n_tiles)\n"}},
                  "the tail waits for a release that never comes",
                  {{"n_tiles", 1}, {"steps", 1}}},
                 {{{w, "        lm.wait(k_empty, iter=2 * n_tiles - 1)\n"}},
                  "the tail's phase runs ahead by one per tile",
                  {{"n_tiles", 2}, {"steps", 1}}},
                 {{{w, ""}}, "no tail: the last release still in flight at exit", {{"n_tiles", 1}, {"steps", 1}}},
                 {{{w, "        if n_tiles != 20:\n    " + w}},
                  "the tail is skipped for 20 tiles only (past the window)",
                  {{"n_tiles", 20}, {"steps", 1}}},
             });
}

// Refused before (`the schedule reads k_tiles outside the loop bounds`),
// proved now: the ring end read after the tile loop, in both orders.
TEST(TripExitCount, RingProducerTailAfterThePersistentLoopIsProved) {
  tec::expectEachProved({tec::kRingProducerTail,
                         cake::testing::replace(tec::kRingProducerTail, tec::kRingTail1,
                                                "        lm.wait(empty, iter=k_tiles * n_tiles - 1)\n")});
}

// Broken ring tails: a wait on an older phase, one past the last release,
// a phase that runs ahead with the ring end, one short from a far ring end
// on (only the proof that the reads move alike beyond the window stops it),
// none at all; and a tail that reads the tile count besides the ring end,
// or the ring end's expression read before the tile loop too (refused: not
// proved, whatever it does).
TEST(TripExitCount, BrokenRingProducerTailsAreNotProved) {
  namespace at = cake::testing::attacks;
  const std::string &w1 = tec::kRingTail1, &w2 = tec::kRingTail2;
  at::attack(tec::kRingProducerTail, {{"n_tiles", 3}, {"k_tiles", 2}},
             {
                 {{{w2, "        lm.wait(empty, iter=n_tiles * k_tiles - 3)\n"}},
                  "the tail waits for an older phase of the second-to-last slot",
                  {{"n_tiles", 3}, {"k_tiles", 1}}},
                 {{{w1, "        lm.wait(empty, iter=n_tiles * k_tiles)\n"}},
                  "the tail waits for a release that never comes",
                  {{"n_tiles", 0}, {"k_tiles", 1}}},
                 {{{w1, "        lm.wait(empty, iter=n_tiles * k_tiles + n_tiles * k_tiles - 1)\n"}},
                  "the tail's phase runs ahead by one per ring index",
                  {{"n_tiles", 1}, {"k_tiles", 1}}},
                 {{{w1, "        lm.wait(empty, iter=n_tiles * k_tiles - 1 - (n_tiles * k_tiles) // 40)\n"}},
                  "the tail's last wait one phase short from ring end 40 on (past the window; found by cake check "
                  "since session 49's merge)",
                  {{"n_tiles", 40}, {"k_tiles", 1}}},
                 {{{w1, ""}, {w2, ""}}, "no tail", {{"n_tiles", 1}, {"k_tiles", 1}}},
             });
  // (and the ring end read before the tile loop too, one expression: the
  // builder would read it as the ring end there; refused)
  const std::string both = "        lm.wait(empty, iter=n_tiles * k_tiles - 1 + n_tiles - n_tiles)\n";
  const std::string before = cake::testing::replace(
      cake::testing::replace(tec::kRingProducerTail, "    with load:\n",
                             "    last = n_tiles * k_tiles - 1\n    with load:\n        lm.wait(empty, iter=last - last - 1)\n"),
      w1, "        lm.wait(empty, iter=last)\n");
  for (const std::string& text : {cake::testing::replace(tec::kRingProducerTail, w1, both), before}) {
    auto mod = cake::testing::compile(text);
    ASSERT_FALSE(mod.schedules.empty());
    const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.detail;
  }
}
