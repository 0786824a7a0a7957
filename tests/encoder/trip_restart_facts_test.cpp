// The restart argument under lm.assume facts on the tile count (docs/z3.md
// "Session 53 (helper restart53)"): the one-tile proof is of the schedule
// with N == 1 added to its facts, so it stands for every tile of a run of N
// tiles with the other symbols at `o` only where the facts allow N == 1 with
// `o` wherever they allow some N >= 1 with it, and where nothing but the
// tile loops' bounds reads N. Base: the IREE nested prefetch with a dynamic
// K trip count (the corpus pair session 52 proved).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_restart_facts_test {

using cake::testing::compile;
using cake::testing::replace;

const char* kFixed = "corpus/bugs/sync.race/iree_prefetch_nested_loop_dynamic_k_prologue_no_barrier_fixed.cake";

const std::string kFactOnK = "    lm.assume(n_k >= 3)\n";
const std::string kLoopSync = "                lm.copy(x, sa[0])\n                lm.sync(block)\n";
const std::string kEpilogue = "            lm.sync(block)\n            lm.copy(x, sa[0])\n        lm.copy(C";
const std::string kTail = "        lm.copy(C, x, coords=(0, 32 * w))\n";

std::string fixedText() { return cake::testing::corpusText(kFixed); }

// `text` with `lm.assume(fact)` after its fact on n_k.
std::string withFact(const std::string& text, const std::string& fact) {
  return replace(text, kFactOnK, kFactOnK + "    lm.assume(" + fact + ")\n");
}

bool violatedAtTrips(const std::string& text, int64_t n_outer, int64_t n_k) {
  return cake::testing::violatedAt(compile(text).schedules.at(0), {{"n_outer", n_outer}, {"n_k", n_k}});
}

// The proof for every trip count, checked at (n_outer, n_k) (a binding the
// facts of these tests allow).
encoder::ModelCheckResult prove(const std::string& text, int64_t n_outer = 64, int64_t n_k = 64) {
  const ir::Schedule s = compile(text).schedules.at(0);
  return encoder::proveEveryTripCount(s, s.target, {cake::testing::bind(s, {{"n_outer", n_outer}, {"n_k", n_k}})},
                                      cake::testing::testProofOptions());
}
// The same, checked at several (n_outer, n_k).
encoder::ModelCheckResult proveCheckedAt(const std::string& text, const std::vector<std::pair<int64_t, int64_t>>& at) {
  const ir::Schedule s = compile(text).schedules.at(0);
  std::vector<encoder::Binding> checked;
  for (const auto& [n_outer, n_k] : at) checked.push_back(cake::testing::bind(s, {{"n_outer", n_outer}, {"n_k", n_k}}));
  return encoder::proveEveryTripCount(s, s.target, checked, cake::testing::testProofOptions());
}

// The bounded check meets it at (n_outer, n_k), and the proof (checked
// there) does not say proved.
void expectFoundNotProved(const std::string& text, int64_t n_outer, int64_t n_k, const std::string& what) {
  EXPECT_TRUE(violatedAtTrips(text, n_outer, n_k)) << what;
  const auto r = prove(text, n_outer, n_k);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << what << ": " << r.engine;
}

// The broken twins of the base, each with `fact`: a skipped barrier in the
// K loop, an extra arrival at the barrier by one wave, the epilogue's
// barrier after the read it guards (the named barrier's late flip), and a K
// loop whose bound reads the tile with its barrier skipped in the
// iterations only later tiles run (clean in one tile). Each is met at every
// n_outer >= 2, n_k >= 3.
struct Twin {
  std::string what;
  std::string text;
};
std::vector<Twin> brokenTwins(const std::string& fact) {
  const std::string base = withFact(fixedText(), fact);
  return {
      {"the K loop's barrier skipped", replace(base, kLoopSync, "                lm.copy(x, sa[0])\n")},
      {"an extra arrival by wave 0",
       replace(base, kLoopSync, kLoopSync + "                if w == 0:\n                    lm.bar_arrive(block)\n")},
      {"the epilogue's barrier after its read",
       replace(base, kEpilogue, "            lm.copy(x, sa[0])\n            lm.sync(block)\n        lm.copy(C")},
      {"a K bound that reads the tile, its barrier skipped past n_k - 1",
       replace(replace(base, "for k in lm.range(0, n_k - 1):", "for k in lm.range(0, n_k - 1 + o):"), kLoopSync,
               "                lm.copy(x, sa[0])\n                if k < n_k - 1:\n                    lm.sync(block)\n")},
  };
}


// A fact on the tile count and a binding it allows.
struct Fact {
  std::string text;
  int64_t n_outer, n_k;
};

// Facts whose instance at n_outer == 1 follows from them and n_outer >= 1
// (kept so in the one-tile proof): a lower bound of at most 1 (the store
// after the tile loop makes n_outer == 0 a run of that store alone, which a
// lower bound of 1 excludes), an upper bound of at least 1, a residue 1
// has, bounds by another parameter that n_outer >= 1 carries over; and
// facts whose instance does not follow (left out of it): n_outer >= 2 (kept
// as written it would contradict n_outer == 1), an even or a fixed
// n_outer, n_k tied to n_outer. Each was "unknown" before (the restart
// argument refused every fact that reads the count).
const std::vector<Fact> kFacts = {
    {"n_outer >= 1", 2, 3},        {"n_outer > 0", 2, 3},      {"1 <= n_outer", 2, 3},
    {"n_outer >= 1 and n_outer <= 4096", 2, 3},                {"n_outer % 2 == 1", 3, 3},
    {"n_outer <= n_k", 2, 3},      {"64 * n_outer <= 64 * n_k", 2, 3},
    {"n_outer >= 2", 2, 3},        {"n_outer % 2 == 0", 2, 3}, {"n_outer == 3", 3, 3},
    {"n_k == n_outer + 2", 2, 4},
};

TEST(TripRestartFacts, CorrectScheduleIsProvedUnderFactsOnTheTileCount) {
  const std::string fixed = fixedText();
  for (const Fact& f : kFacts) {
    const std::string text = withFact(fixed, f.text);
    EXPECT_FALSE(violatedAtTrips(text, f.n_outer, f.n_k)) << f.text;
    const auto r = prove(text, f.n_outer, f.n_k);
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << f.text << ": " << r.detail;
  }
}

// Without the store after the tile loop (the tile stores its result), no
// run of no tile reads anything: lower bounds below 1 are proved too.
TEST(TripRestartFacts, LowerBoundsBelowOneAreProvedWithoutATail) {
  const std::string in_tile = replace(fixedText(), kTail, "    " + kTail);
  for (const std::string fact : {"n_outer >= 0", "n_outer >= -7"}) {
    const std::string text = withFact(in_tile, fact);
    EXPECT_FALSE(violatedAtTrips(text, 0, 3)) << fact;
    EXPECT_FALSE(violatedAtTrips(text, 2, 3)) << fact;
    const auto r = prove(text);
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << fact << ": " << r.detail;
  }
}

// The broken twins under each fact: met by the bounded check, never
// proved.
TEST(TripRestartFacts, BrokenTwinsUnderFactsOnTheTileCountAreFoundNotProved) {
  for (const Fact& f : kFacts)
    for (const Twin& t : brokenTwins(f.text)) expectFoundNotProved(t.text, f.n_outer, f.n_k, f.text + ": " + t.what);
}

// A fact whose instance at n_outer == 1 does not follow must not be taken
// at 1: under n_k == n_outer + 2 the one-tile proof would then cover n_k ==
// 3 alone, while a run of two tiles runs n_k == 4. A K loop whose barrier
// is skipped in iteration 2 (so broken from n_k == 4, in one tile) is
// clean at (1, 3).
TEST(TripRestartFacts, AFactThatDoesNotFollowAtOneTileIsLeftOut) {
  const std::string text =
      replace(withFact(fixedText(), "n_k == n_outer + 2"), kLoopSync,
              "                lm.copy(x, sa[0])\n                if k != 2:\n                    lm.sync(block)\n");
  EXPECT_FALSE(violatedAtTrips(text, 1, 3));
  expectFoundNotProved(text, 2, 4, "the K loop's barrier skipped in iteration 2");
  // checked at a binding with one tile too (which the instance n_k == 3 allows)
  const auto r = proveCheckedAt(text, {{1, 3}, {2, 4}});
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
}

// The tile count read in the tile (a guard): the one-tile system, built
// with N == 1, takes the other branch from the tiles of a larger N. Here
// the K loop's barrier between the read and the write of sa[0] is skipped
// from n_outer == 100000 on (beyond what the bounded check unrolls), or
// from 2 on.
TEST(TripRestartFacts, TheTileCountReadInTheTileIsRefused) {
  const std::string late = replace(fixedText(), kLoopSync,
                                   "                lm.copy(x, sa[0])\n                if n_outer < 100000:\n"
                                   "                    lm.sync(block)\n");
  const std::string early = replace(late, "if n_outer < 100000:", "if n_outer < 2:");
  EXPECT_FALSE(violatedAtTrips(early, 1, 3));
  EXPECT_TRUE(violatedAtTrips(early, 2, 3));
  for (const std::string& text : {late, early, withFact(late, "n_outer >= 1")}) {
    const auto r = prove(text);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
  }
}

}  // namespace trip_restart_facts_test
