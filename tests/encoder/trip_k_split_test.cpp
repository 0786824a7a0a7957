// Two MMA warps that split a persistent tile's K iterations
// (corpus/gemm/sm100_persistent_two_mma_warps_k_split.cake: mma_lo runs
// k-blocks [0, kh), mma_hi [kh, k_tiles) of every tile, both over the one
// smem ring, ordered on the shared TMEM accumulator by k_half / hi_done).
// The proof reads each tile as two tiles (docs/z3.md "K loops over a
// sub-range of the tile's K iterations" and the sections after it; proved
// at the default budget since session 38).
// Whatever argument comes to prove the file must not prove these broken
// forms: each is a real bug of the split, found by the bounded check on a
// small grid of sizes, and each test fails if it gets proved.
#include <gtest/gtest.h>

#include <string>

#include "encoder/proof_budget.h"
#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_k_split_test {

std::string kSplitText() {
  return cake::testing::corpusText("corpus/gemm/sm100_persistent_two_mma_warps_k_split.cake");
}

std::string kSplitEdit(const std::string& from, const std::string& to) {
  return cake::testing::replace(kSplitText(), from, to);
}

// One CTA over 1..3 tiles (M) of 1, 2 or 4 k-blocks (K): odd and even
// splits, the second half empty at one k-block.
bool kSplitBrokenOnGrid(const std::string& text) {
  const ir::Schedule s = cake::testing::compile(text).schedules.at(0);
  return cake::testing::brokenOnGrid(s, {{"N", {129}}, {"M", {1, 129, 257}}, {"K", {1, 65, 193, 257}}});
}

// mma_hi's K loop header and ring index
const std::string kHiLoop = "            for k in lm.range(kh, k_tiles):\n                it = t * k_tiles + k\n";

// The split-tile copy (encoder::kSplitTilesCopy) at even K trip counts E_B
// = 2 * Q, where both parts of a tile are Q = h iterations: the copy runs
// the schedule's operations there, so it is broken exactly where the
// schedule is (over 1..3 tiles of 2, 4 or 6 k-blocks).
struct KSplitEven {
  bool schedule = false, copy = false;
};
KSplitEven kSplitBrokenAtEvenSplits(const ir::Schedule& s, const ir::Schedule& copy) {
  KSplitEven out;
  for (int64_t m : {1, 129, 257})
    for (int64_t q : {1, 2, 3}) {
      const std::initializer_list<std::pair<std::string, int64_t>> at = {{"M", m}, {"N", 129}, {"K", 128 * q}, {"Q", q}};
      out.schedule = out.schedule || cake::testing::violatedAt(s, at);
      out.copy = out.copy || cake::testing::violatedAt(copy, at);
    }
  return out;
}

// The proof with the K split's copy explored whatever the budget (the
// commits of its processes that skip tiles numbered in issue order:
// TripProofOptions::ordinal_commits_from_work 0), capped at `work` units.
encoder::ModelCheckResult proveWithOrdinals(const std::string& text, uint64_t work) {
  encoder::TripProofOptions o = cake::testing::testProofOptions();
  o.work = work;
  o.ordinal_commits_from_work = 0;
  return cake::testing::proveSchedule(cake::testing::compile(text).schedules.at(0), 129, o);
}

// mma_hi's hand-off and accumulator commit, as the corpus file has them
const std::string kHiEnd = "            lm.arrive(hi_done, iter=t)\n            lm.mma_commit(barrier=acc_full, iter=t)";

}  // namespace trip_k_split_test

namespace tks = trip_k_split_test;

// The grid is one the correct schedule passes (so a broken form found on
// it is found for its bug).
TEST(TripKSplit, TheCorrectSplitIsCleanOnTheGrid) {
  EXPECT_FALSE(tks::kSplitBrokenOnGrid(tks::kSplitText()));
}

TEST(TripKSplit, BrokenSplitsAreFoundAndNotProved) {
  struct Broken {
    std::string what, text;
  };
  const Broken broken[] = {
      // the sub-ranges overlap: k-block kh - 1 is consumed (and released) twice
      {"overlapping sub-ranges", tks::kSplitEdit("lm.range(kh, k_tiles)", "lm.range(kh - 1, k_tiles)")},
      // a gap: k-block kh is loaded and never consumed nor released
      {"a gap between the sub-ranges", tks::kSplitEdit("lm.range(kh, k_tiles)", "lm.range(kh + 1, k_tiles)")},
      // the second warp's ring index restarts at the tile's first slot
      // instead of going on from the split point
      {"the second warp starts at the tile's ring start",
       tks::kSplitEdit(tks::kHiLoop, "            for k in lm.range(kh, k_tiles):\n"
                                     "                it = t * k_tiles + k - kh\n")},
      // the second warp ordered after the previous tile's first half only:
      // both warps' MMAs on one accumulator stage unordered
      {"the second warp waits the previous tile's first half",
       tks::kSplitEdit("lm.wait(k_half, iter=t)", "lm.wait(k_half, iter=t - 1)")},
      // the hand-off's wait a lap off: its parity matches at once
      {"the hand-off waited with the wrong parity",
       tks::kSplitEdit("lm.wait(k_half, iter=t)", "lm.wait(k_half, iter=t + 2)")},
      // the second half's full-barrier wait a lap ahead (wrong parity: it
      // passes before the load landed)
      {"the second half's ring wait with the wrong parity",
       tks::kSplitEdit(tks::kHiLoop + "                lm.wait(full, iter=it)\n",
                       tks::kHiLoop + "                lm.wait(full, iter=it + 3)\n")},
      // the corpus twins
      {"the second warp ordered by the ring only (corpus)",
       cake::testing::corpusText("corpus/bugs/sync.race/sm100_k_split_second_warp_unordered.cake")},
  };
  for (const Broken& b : broken) {
    EXPECT_NE(b.text, tks::kSplitText()) << b.what;
    EXPECT_TRUE(tks::kSplitBrokenOnGrid(b.text)) << b.what;
    auto r = cake::testing::proveText(b.text, 129);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.what << ": " << r.engine;
  }
}

// The copy of the corpus file is clean where the file is (even splits);
// each broken form of the shape is broken in its copy where it is broken
// itself, and a form of another shape (overlap, gap) gets no copy.
TEST(TripKSplit, TheSplitTileCopyRunsTheScheduleAtEvenSplits) {
  struct Form {
    std::string what, text;
    bool shaped;
  };
  const Form forms[] = {
      {"the corpus file", tks::kSplitText(), true},
      {"the second warp starts at the tile's ring start",
       tks::kSplitEdit(tks::kHiLoop, "            for k in lm.range(kh, k_tiles):\n"
                                     "                it = t * k_tiles + k - kh\n"),
       true},
      {"the second warp waits the previous tile's first half",
       tks::kSplitEdit("lm.wait(k_half, iter=t)", "lm.wait(k_half, iter=t - 1)"), true},
      {"the hand-off waited with the wrong parity",
       tks::kSplitEdit("lm.wait(k_half, iter=t)", "lm.wait(k_half, iter=t + 2)"), true},
      {"the second half's ring wait with the wrong parity",
       tks::kSplitEdit(tks::kHiLoop + "                lm.wait(full, iter=it)\n",
                       tks::kHiLoop + "                lm.wait(full, iter=it + 3)\n"),
       true},
      {"the corpus twin", cake::testing::corpusText("corpus/bugs/sync.race/sm100_k_split_second_warp_unordered.cake"),
       true},
      {"overlapping sub-ranges", tks::kSplitEdit("lm.range(kh, k_tiles)", "lm.range(kh - 1, k_tiles)"), false},
      {"a gap between the sub-ranges", tks::kSplitEdit("lm.range(kh, k_tiles)", "lm.range(kh + 1, k_tiles)"), false},
  };
  int broken_forms = 0;  // shaped broken forms broken at an even split
  for (const Form& f : forms) {
    const ir::Schedule s = cake::testing::compile(f.text).schedules.at(0);
    const std::shared_ptr<const ir::Schedule> copy = encoder::kSplitTilesCopy(s);
    ASSERT_EQ(copy != nullptr, f.shaped) << f.what;
    if (!copy) continue;
    EXPECT_EQ(copy->params.back().name, "Q") << f.what;
    const tks::KSplitEven broken = tks::kSplitBrokenAtEvenSplits(s, *copy);
    EXPECT_EQ(broken.copy, broken.schedule) << f.what;
    if (&f == &forms[0]) EXPECT_FALSE(broken.schedule);
    else broken_forms += broken.schedule;
  }
  // (so the comparison can fail: most broken forms are broken at even splits)
  EXPECT_GE(broken_forms, 3);
}

// The proof reads the corpus file as the split-tile copy; what stops it is
// named (docs/z3.md "A tile's K range split between processes").
TEST(TripKSplit, TheProofReadsEachTileAsTwoTiles) {
  auto r = cake::testing::proveText(tks::kSplitText(), 129);
  EXPECT_NE(r.detail.find("each tile read as two tiles"), std::string::npos) << r.detail << r.engine;
}

// The copy's processes that skip tiles commit MMA groups that arrive on
// barriers: the proof numbers their completions in issue order
// (docs/z3.md "Commit ordinals in issue order"). Broken forms of those
// commits (found by the bounded check) must stay unproved with the copy
// explored: the hand-off committed before the low half's MMAs (commits
// reordered: sync.race), skipped on odd tiles and its barrier expecting
// two arrivals (sync.arrival-underflow), and hi_done turned into an MMA
// commit after acc_full's (its last completion is observed by no one, not
// even through the FIFO order: sync.async-at-exit). The same commit
// before acc_full's is correct (observed through acc_full's).
TEST(TripKSplit, BrokenCommitsOfTheCopyAreNotProved) {
  const std::string lo_loop = "            lm.wait(acc_empty, iter=t - 2)\n            for k in lm.range(0, kh):";
  const std::string lo_end = "                lm.mma_commit(barrier=empty, iter=it)\n            lm.mma_commit(barrier=k_half, iter=t)\n";
  const std::string k_half_commit = "            lm.mma_commit(barrier=k_half, iter=t)\n";
  struct Broken {
    std::string what, text;
  };
  const Broken broken[] = {
      {"the hand-off committed before the low half's MMAs",
       cake::testing::replace(
           tks::kSplitEdit(lo_loop, "            lm.wait(acc_empty, iter=t - 2)\n" + k_half_commit +
                                        "            for k in lm.range(0, kh):"),
           lo_end, "                lm.mma_commit(barrier=empty, iter=it)\n")},
      {"the hand-off committed on even tiles only",
       tks::kSplitEdit(k_half_commit, "            if t % 2 == 0:\n    " + k_half_commit)},
      {"the hand-off's barrier expecting two arrivals",
       tks::kSplitEdit("k_half    = lm.barrier(prod=[mma_lo], cons=[mma_hi], init_count=1",
                       "k_half    = lm.barrier(prod=[mma_lo], cons=[mma_hi], init_count=2")},
      {"hi_done committed after acc_full, its last completion unobserved",
       tks::kSplitEdit(tks::kHiEnd, "            lm.mma_commit(barrier=acc_full, iter=t)\n"
                                    "            lm.mma_commit(barrier=hi_done, iter=t)")},
  };
  for (const Broken& b : broken) {
    EXPECT_NE(b.text, tks::kSplitText()) << b.what;
    EXPECT_TRUE(tks::kSplitBrokenOnGrid(b.text)) << b.what;
    auto r = tks::proveWithOrdinals(b.text, 3'000'000'000);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.what << ": " << r.engine;
  }
  // the correct order of the last pair: clean on the grid
  EXPECT_FALSE(tks::kSplitBrokenOnGrid(tks::kSplitEdit(tks::kHiEnd, "            lm.mma_commit(barrier=hi_done, iter=t)\n"
                                                                    "            lm.mma_commit(barrier=acc_full, iter=t)")));
}

// The broken forms of the split of the tests above stay unproved with the
// copy explored (its commits numbered in issue order).
TEST(TripKSplit, BrokenSplitsAreNotProvedWithTheCopyExplored) {
  const std::string forms[] = {
      tks::kSplitEdit(tks::kHiLoop, "            for k in lm.range(kh, k_tiles):\n"
                                    "                it = t * k_tiles + k - kh\n"),
      tks::kSplitEdit("lm.wait(k_half, iter=t)", "lm.wait(k_half, iter=t - 1)"),
      tks::kSplitEdit("lm.wait(k_half, iter=t)", "lm.wait(k_half, iter=t + 2)"),
      tks::kSplitEdit(tks::kHiLoop + "                lm.wait(full, iter=it)\n",
                      tks::kHiLoop + "                lm.wait(full, iter=it + 3)\n"),
      cake::testing::corpusText("corpus/bugs/sync.race/sm100_k_split_second_warp_unordered.cake"),
  };
  for (const std::string& f : forms) {
    auto r = tks::proveWithOrdinals(f, 3'000'000'000);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << f << r.engine;
  }
}

namespace trip_k_split_test {

// The proof as `cake check` runs it: the default budget (--proof-timeout 3,
// 3e9 work units), the K split's copy explored from it on
// (kOrdinalCommitsFromWork).
encoder::ModelCheckResult proveAtTheDefaultBudget(const std::string& text) {
  encoder::TripProofOptions o = cake::testing::testProofOptions();
  o.work = 3 * encoder::ProofBudget::kUnitsPerSecond;
  return cake::testing::proveSchedule(cake::testing::compile(text).schedules.at(0), 129, o);
}

// The epilogue's subtile body, as the corpus file has it
const std::string kEpiSubtile =
    "                lm.tmem_load_wait()\n"
    "                if h == 1:\n"
    "                    lm.arrive(acc_empty, iter=t)\n";
const std::string kEpiSecondSync =
    "                lm.fence_proxy()\n"
    "                lm.sync(epi_sync)\n";

}  // namespace trip_k_split_test

// The copy's exploration fits the default budget once a state and its
// image one schedule tile on (two tiles of the copy, half its tile period:
// the other TMEM stage, the epilogue's named barrier four generations on)
// are one (docs/z3.md "A named barrier in a shift by part of the tile
// period"): the corpus file is proved as `cake check` runs it. (About 2.2e9
// work units, 2 s of CPU.)
TEST(TripKSplit, TheCorpusFileIsProvedAtTheDefaultBudget) {
  auto r = tks::proveAtTheDefaultBudget(tks::kSplitText());
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail << r.engine;
}

// Broken forms of what that shift moves (the named barrier's generations,
// the accumulator stages the epilogue releases), each found by the bounded
// check and not proved at the default budget: the staging sync before the
// TMA store on even tiles only (its generations per tile differ from tile
// to tile: tile t + 1's store races the copies into smem_d), one epilogue
// warp skipping that sync (epi_sync short of a warp: the store races, the
// generations drift), one epilogue warp releasing the accumulator stage
// before it read its second subtile (the stage's next tile overwrites what
// it still reads), and the N split's corpus twin (acc_full expecting one of
// the two MMA warps' commits).
TEST(TripKSplit, BrokenFormsOfTheShiftedEpilogueAreNotProved) {
  struct Broken {
    std::string what, text;
    bool k_split;  // a form of the K split file (found on its grid)
  };
  const Broken broken[] = {
      {"the staging sync on even tiles only",
       tks::kSplitEdit(tks::kEpiSecondSync, "                lm.fence_proxy()\n"
                                            "                if t % 2 == 0:\n"
                                            "                    lm.sync(epi_sync)\n"),
       true},
      {"one epilogue warp skips the staging sync",
       tks::kSplitEdit(tks::kEpiSecondSync, "                lm.fence_proxy()\n"
                                            "                if lm.instance() != 3:\n"
                                            "                    lm.sync(epi_sync)\n"),
       true},
      {"one epilogue warp releases the accumulator a subtile early",
       tks::kSplitEdit(tks::kEpiSubtile, "                lm.tmem_load_wait()\n"
                                         "                if h + lm.instance() // 3 == 1:\n"
                                         "                    lm.arrive(acc_empty, iter=t)\n"),
       true},
      {"acc_full expecting one MMA warp's commit (N split, corpus)",
       cake::testing::corpusText("corpus/bugs/sync.race/sm100_two_mma_warps_acc_full_counts_one.cake"), false},
  };
  for (const Broken& b : broken) {
    EXPECT_NE(b.text, tks::kSplitText()) << b.what;
    if (b.k_split) EXPECT_TRUE(tks::kSplitBrokenOnGrid(b.text)) << b.what;
    auto r = tks::proveAtTheDefaultBudget(b.text);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.what << ": " << r.detail << r.engine;
  }
}
