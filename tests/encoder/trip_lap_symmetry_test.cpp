// Interchangeable processes in lap induction and in the bounded check
// (docs/z3.md "Interchangeable processes in lap induction and in the
// bounded check", helper mc41, session 41): DeepGEMM's two math
// warpgroups of one CTA (rows 64 * lm.instance() of the A stage and of the
// A-scale row) in a 2-CTA cluster with a leader-issued multicast of A.
// The swap of the two, with the rows each reads alone exchanged, is an
// automorphism of both explorations; each keeps one state of a state and
// its image. The form with a 2-slot ring is proved within the default
// budget with the pairs and is not without them; broken forms (each
// confirmed broken by the bounded check) are not proved, and the bounded
// check finds the same rules with the pairs as without, with traces that
// replay.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "encoder/simulator.h"
#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"

namespace trip_lap_symmetry_test {

using namespace cake;
using cake::testing::replace;

constexpr uint64_t kDefaultProofWork = 3'000'000'000;  // cake check's --proof-timeout 3

// bench/limits/sm90_deepgemm_leader_multicast_a_2wg.cake with a 2-slot ring
// (its 3-slot form outruns the budget with the pairs too: docs/known-limits.md).
std::string twoSlotText() {
  std::string t = cake::testing::corpusText("bench/limits/sm90_deepgemm_leader_multicast_a_2wg.cake");
  for (const char* view : {"smem_a   = ", "smem_b   = ", "smem_sfa = "}) {
    const size_t at = t.find(view);
    EXPECT_NE(at, std::string::npos) << view;
    if (at == std::string::npos) continue;
    const size_t st = t.find("stages=3", at);
    t.replace(st, 8, "stages=2");
  }
  t = replace(t, "lm.pipeline(stages=3)", "lm.pipeline(stages=2)");
  return replace(t, "lm.wait(empty, iter=k - 3)", "lm.wait(empty, iter=k - 2)");
}

encoder::ModelCheckResult prove(const std::string& text, bool pairs) {
  auto m = cake::testing::compile(text);
  EXPECT_FALSE(m.schedules.empty());
  if (m.schedules.empty()) return {};
  encoder::TripProofOptions o = cake::testing::testProofOptions();
  o.work = kDefaultProofWork;
  o.lap_symmetry = pairs;
  return cake::testing::proveSchedule(m.schedules[0], 128, o);
}

struct Broken {
  const char* what;
  std::string text;
};

// Broken forms: each changes what one CTA or one warpgroup does, so a
// merge of states that are not images of each other would hide it.
std::vector<Broken> brokenForms(const std::string& base) {
  const std::string fence = "            lm.fence_proxy()\n";
  return {
      {"no release of the peer CTA's slot", replace(base, "            lm.arrive(empty, iter=k, cta=1)\n", "")},
      {"init_count 3 on empty", replace(base, "init_count=4", "init_count=3")},
      {"expect_tx bytes off", replace(base, "lm.expect_tx(full, 33280", "lm.expect_tx(full, 32768")},
      {"multicast to the leader only", replace(base, "multicast=3", "multicast=1")},
      // (the two warpgroups differ: no pair; each explored as before)
      {"warpgroup 1 without its proxy fence",
       replace(base, fence, "            if lm.instance() == 0:\n                lm.fence_proxy()\n")},
      {"both warpgroups release before their MMA retired",
       replace(replace(base, "            lm.mma_wait(pending=0)\n", ""), "            lm.arrive(empty, iter=k, cta=1)\n",
               "            lm.arrive(empty, iter=k, cta=1)\n            lm.mma_wait(pending=0)\n")},
      {"warpgroup 1 releases before its MMA retired",
       replace(base, "            lm.mma_wait(pending=0)\n",
               "            if lm.instance() == 0:\n                lm.mma_wait(pending=0)\n")},
  };
}

bool brokenSomewhere(const std::string& text) {
  auto m = cake::testing::compile(text);
  if (m.schedules.empty()) return false;
  return cake::testing::brokenOnGrid(m.schedules[0], {{"K", {128, 256, 384}}});
}

TEST(TripLapSymmetry, TwoMathWarpgroupsAreProvedWithThePairs) {
  const std::string text = twoSlotText();
  encoder::ModelCheckResult with = prove(text, true);
  EXPECT_EQ(with.outcome, encoder::Outcome::Proved) << with.detail;
  std::cout << "with the pairs: " << with.detail << "\n";
  encoder::ModelCheckResult without = prove(text, false);
  EXPECT_NE(without.outcome, encoder::Outcome::Proved) << without.detail;
  std::cout << "without: " << without.detail << "\n";
}

TEST(TripLapSymmetry, BrokenFormsAreNotProved) {
  for (const Broken& b : brokenForms(twoSlotText())) {
    SCOPED_TRACE(b.what);
    EXPECT_TRUE(brokenSomewhere(b.text));
    encoder::ModelCheckResult r = prove(b.text, true);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.detail;
  }
}

// The bounded check with and without the pairs at two K iterations: the
// same outcome and rules, and each violation's trace (moved into the
// run's own frame) replays to its rule. (Only forms whose warpgroups stay
// a pair and without static counting candidates: the others are explored
// without the pairs, as before.)
TEST(TripLapSymmetry, BoundedCheckFindsTheSameRulesWithThePairs) {
  const std::string base = twoSlotText();
  std::vector<Broken> all = brokenForms(base);
  all.erase(std::remove_if(all.begin(), all.end(),
                           [](const Broken& b) {
                             const std::string w = b.what;
                             return w != "no release of the peer CTA's slot" &&
                                    w != "both warpgroups release before their MMA retired";
                           }),
            all.end());
  all.push_back({"the correct form", base});
  for (const Broken& b : all) {
    SCOPED_TRACE(b.what);
    auto m = cake::testing::compile(b.text);
    ASSERT_FALSE(m.schedules.empty());
    const ir::Schedule& s = m.schedules[0];
    const encoder::System sys = cake::testing::build(s, cake::testing::bind(s, {{"K", 256}}));
    encoder::ExploreOptions o = encoder::everyRule();
    o.timeout_ms = cake::testing::kNoWallClockMs;
    encoder::ModelCheckResult with = encoder::explore(sys, o);
    o.symmetry = false;
    encoder::ModelCheckResult without = encoder::explore(sys, o);
    EXPECT_EQ(with.outcome, without.outcome);
    EXPECT_EQ(cake::testing::ruleSet(with), cake::testing::ruleSet(without));
    EXPECT_LT(with.states, without.states);
    for (const encoder::Violation& v : with.violations) {
      if (v.trace.empty()) continue;
      encoder::ReplayResult rr = encoder::replay(sys, v.trace);
      EXPECT_TRUE(rr.valid) << v.rule << ": " << rr.error;
      bool met = false;
      for (const encoder::Violation& r : rr.violations) met |= r.rule == v.rule && r.message == v.message;
      EXPECT_TRUE(met) << v.rule << ": " << v.message;
    }
    std::cout << b.what << ": " << with.states << " states with the pairs, " << without.states << " without\n";
  }
}

}  // namespace trip_lap_symmetry_test
