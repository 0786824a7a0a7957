// Session 50's soundness review (helper sound50, docs/z3.md "Soundness
// review, session 50"): broken schedules aimed at the paths sessions 48
// and 49 added that exited 0 *checked* on main.
// * A far step taken as covered by a value between the runs (sound48's
//   placeStepsElsewhere, sound49's open hole): a step whose value and
//   differences showed at some value between the least and the largest
//   run was not run. A harmless guard `if P == 1000:` beside cover47's
//   square-residue read (`0:64 + (P * P % 1009 == 777)`, one float past the
//   stores at P = 500 and 509) ran P in {1,999,1000}, and the spike between
//   1 and 999 counted as shown. Now a value between two runs counts only
//   where the part is monotone from the one run to the next
//   (BindingSearch::seenOnSide).
#include <gtest/gtest.h>

#include <string>

#include "cover_kernels.h"
#include "prove_util.h"
#include "test_util.h"

namespace sound50_test {

// The value of parameter `name` in binding `b` (-1 where it has none).
int64_t paramValue(const cake::ir::Schedule& s, const cake::encoder::Binding& b, const std::string& name) {
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p)
    if (s.params[p].name == name && b.params.count(p)) return b.params.at(p);
  return -1;
}

}  // namespace sound50_test

namespace s50 = sound50_test;

// A guard that runs P at (or next to) its greatest allowed value puts a run
// past the spike; main counted every value between the runs as shown and
// exited 0 *checked* on both broken forms. The twin that reads one float
// fewer at the spike stays clean and checked.
TEST(Sound50, AStepBetweenTheRunsWhereThePartIsNotMonotoneIsRun) {
  namespace cover = cake::testing::cover;
  for (const std::string& guard : {"        if P == 1000:\n            lm.sync(block)\n",
                                   "        if P >= 999:\n            lm.sync(block)\n"}) {
    const cover::BoundedVerdict bad = cover::boundedVerdict(cover::guardedRowRead(guard, "64 + (P * P % 1009 == 777)"));
    EXPECT_TRUE(bad.rules.count("data.stale-read")) << "UNSOUND: the read past the stores at P = 500 is not found\n"
                                                    << guard;
    const cover::BoundedVerdict good =
        cover::boundedVerdict(cover::guardedRowRead(guard, "64 - (P * P % 1009 == 777)"));
    EXPECT_TRUE(good.rules.empty() && !good.unknown) << "the correct twin is no longer clean and checked\n" << guard;
  }
}


// A sum of two steps that cancel but for a few values: `(P + 9) // 500 -
// (P + 3) // 500` is 1 at P = 491..496 and 991..996 only. The far-step scan
// asked of each term alone, and each steps as the values run show
// (monotone between them): main exited 0 *checked* beside `if P == 1000:`
// (and found it without the guard only because the run at 1000 was kept
// out of the scan). The loop-free terms that step are now one part. The
// twin (one float fewer there) stays clean and checked.
TEST(Sound50, StepsThatCancelButForAFewValuesAreOnePart) {
  namespace cover = cake::testing::cover;
  const std::string window = "(P + 9) // 500 - (P + 3) // 500";
  for (const std::string& guard : {std::string(), std::string("        if P == 1000:\n            lm.sync(block)\n")}) {
    const cover::BoundedVerdict bad = cover::boundedVerdict(cover::guardedRowRead(guard, "64 + " + window));
    EXPECT_TRUE(bad.rules.count("data.stale-read")) << "UNSOUND: the read past the stores at P = 491 is not found\n"
                                                    << guard;
    const cover::BoundedVerdict good = cover::boundedVerdict(cover::guardedRowRead(guard, "64 - " + window));
    EXPECT_TRUE(good.rules.empty() && !good.unknown) << "the correct twin is no longer clean and checked\n" << guard;
  }
}

// The kind boundary's lap exploration (docs/z3.md "A kind boundary in the
// lap state") met the deadlock of FA3's sliding window with V released
// only inside the window and handed nothing back (`failWith(..., met =
// false)`: "no finding, the bounded check decides"): the exploration's
// system at boundary x is the schedule's at every binding whose boundary is
// x, so it is a sighting (net49's): the proof's Unknown names the deadlock
// and a binding the facts allow (window >= 16) where it is met.
TEST(Sound50, AKindBoundarysViolationIsASighting) {
  const std::string fa3 = "corpus/bugs/data.stale-read/fa3_sliding_window_v_skipped_outside_window";
  const std::string text = cake::testing::replace(cake::testing::corpusText(fa3 + "_fixed.cake"),
                                                  "            lm.arrive(v_empty, iter=j)\n",
                                                  "                lm.arrive(v_empty, iter=j)\n");
  auto m = cake::testing::compile(text);
  const cake::ir::Schedule& s = m.schedules.at(0);
  const auto r = cake::testing::proveSchedule(s);
  ASSERT_EQ(r.outcome, cake::encoder::Outcome::Unknown) << r.detail;
  EXPECT_NE(r.detail.find("as a kind boundary: the exploration over every trip count meets sync.deadlock"),
            std::string::npos)
      << r.detail;
  ASSERT_FALSE(r.violations.empty()) << "the kind boundary's deadlock is dropped: " << r.detail;
  EXPECT_EQ(r.violations.front().rule, "sync.deadlock");
  ASSERT_FALSE(r.witnesses.empty());
  for (const auto& w : r.witnesses) EXPECT_GE(s50::paramValue(s, w, "window"), 16);
}
