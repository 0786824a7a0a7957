// Generation deltas per slot (docs/z3.md "Generations per slot", helper
// slot2, session 21, issue 11): a slot written twice per iteration and read
// once per iteration moves its writes' generations twice as fast as its
// reads'. Lap induction learns one delta per (view, stage index, write or
// read) and accepts a shift when every pair of a write and a read that
// data.stale-read compares keeps its answer or becomes at least as stale.
// Each broken variant is confirmed broken by the bounded explicit-state
// check and is not proved.
#include <gtest/gtest.h>

#include <string>

#include "encoder/proof_budget.h"
#include "encoder/trip_proof.h"
#include "test_util.h"

using namespace cake;

namespace {

encoder::ModelCheckResult proveGenSlotText(const std::string& text) {
  auto m = cake::testing::compile(text);
  EXPECT_FALSE(m.schedules.empty());
  if (m.schedules.empty()) return {};
  const ir::Schedule& s = m.schedules[0];
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = 3;
  encoder::TripProofOptions o;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  return encoder::proveEveryTripCount(s, s.target, {b}, o);
}

bool violatedWith(const std::string& text, const char* param, int64_t value) {
  return cake::testing::violatedAt(cake::testing::compile(text).schedules.at(0), {{param, value}});
}
bool genSlotViolatedAt(const std::string& text, int64_t passes) { return violatedWith(text, "n_passes", passes); }

const char* kRadixFixed = "corpus/bugs/sync.race/pytorch_radix_select_find_pattern_overwrites_counts_fixed.cake";
const char* kRadixBug = "corpus/bugs/sync.race/pytorch_radix_select_find_pattern_overwrites_counts.cake";
const char* kRadixIterFixed =
    "corpus/bugs/sync.race/pytorch_radix_select_find_pattern_overwrites_counts_iter_fixed.cake";

}  // namespace

// radixSelect's counts table: warp 0 writes its slot cnt[4 * b] twice per
// pass (Stage 1 counts, Stage 2 totals), every warp reads it once (Stage
// 3). Per period the slot's write generations move by 2, its reads' by 1;
// one delta per view found no period ("no steady period within 192
// unrolled iterations" before this change).
TEST(TripGenSlot, SlotWrittenTwicePerIterationIsProved) {
  const std::string text = cake::testing::corpusText(kRadixFixed);
  EXPECT_FALSE(genSlotViolatedAt(text, 3));
  auto r = proveGenSlotText(text);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction: every n_passes >= 1"), std::string::npos) << r.engine;
  // the slots named by pass (iteration-named generations) stay proved
  auto iter = proveGenSlotText(cake::testing::corpusText(kRadixIterFixed));
  EXPECT_EQ(iter.outcome, encoder::Outcome::Proved) << iter.detail;
}

// bitsandbytes' kEstimateQuantiles fix: qidx[s] reset by every warp, then
// written again by warps 0 and 1 after a barrier (slot s twice per
// iteration, its reads once). Main: over the work budget at window 160.
// Its broken twin (no barrier between the two writes: a race) is not.
TEST(TripGenSlot, ResetThenWrittenSlotIsProved) {
  const std::string fixed =
      cake::testing::corpusText("corpus/bugs/sync.race/bnb_estimate_quantiles_qidx_init_no_barrier_fixed.cake");
  auto m = cake::testing::compile(fixed);
  ASSERT_FALSE(m.schedules.empty());
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(m.schedules[0].params.size()); ++p) b.params[p] = 3;
  encoder::TripProofOptions o;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  o.work = encoder::ProofBudget::unitsFor(3.0);  // cake check's default budget
  auto r = encoder::proveEveryTripCount(m.schedules[0], m.schedules[0].target, {b}, o);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  const std::string bug =
      cake::testing::corpusText("corpus/bugs/sync.race/bnb_estimate_quantiles_qidx_init_no_barrier.cake");
  EXPECT_TRUE(cake::testing::violatedAt(cake::testing::compile(bug).schedules.at(0), {{"n_iters", 1}}));
  EXPECT_NE(proveGenSlotText(bug).outcome, encoder::Outcome::Proved);
}

// The broken forms are not proved.
TEST(TripGenSlot, StaleAndRacyVariantsAreNotProved) {
  using cake::testing::replace;
  const std::string text = cake::testing::corpusText(kRadixFixed);
  // the corpus twin: no barrier after Stage 3 (warp 0's next write of the
  // table races with a lagging warp's read)
  const std::string bug = cake::testing::corpusText(kRadixBug);
  EXPECT_TRUE(genSlotViolatedAt(bug, 1));
  EXPECT_NE(proveGenSlotText(bug).outcome, encoder::Outcome::Proved);

  // The slot written once per pass (warp 0 no longer writes the totals)
  // and read twice per pass across a barrier: every read of a pass sees
  // that pass's write, so it is correct and proved (the shape of PyTorch's
  // embedding backward, docs/rules/data.stale-read.md "A slot read twice
  // per round"). Before session 27 this was this test's stale variant: a
  // read's meaning counted every return after a barrier as a new lap.
  std::string twice = replace(text, "                lm.copy(cnt[4 * b], counts)\n", "");
  std::string stale = twice;
  twice = replace(twice, "            lm.sync(bar)                                 # the fix (PR #177149)\n",
                  "            lm.sync(bar)\n            lm.copy(other, cnt[4 * b])\n            lm.sync(bar)\n");
  EXPECT_FALSE(genSlotViolatedAt(twice, 3));
  EXPECT_EQ(proveGenSlotText(twice).outcome, encoder::Outcome::Proved);

  // A reader that really reads a stale generation: the second read takes
  // the other buffer's totals slot, written a pass ago (never, in the
  // first pass). Its reads' generations would move faster than the
  // writes' (a shift would make them less stale, which checkLapDeltas
  // refuses).
  stale = replace(stale, "            lm.sync(bar)                                 # the fix (PR #177149)\n",
                  "            lm.sync(bar)\n            lm.copy(other, cnt[4 * ((d + 1) % 2)])\n            lm.sync(bar)\n");
  EXPECT_TRUE(genSlotViolatedAt(stale, 3));
  auto r = proveGenSlotText(stale);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;

  // the totals written after Stage 3 instead (warp 0 overwrites the slot
  // while the other warps read it: a race), the write count per pass kept
  std::string late = replace(text, "                lm.copy(cnt[4 * b], counts)\n", "");
  late = replace(late, "            lm.copy(counts, cnt[4 * b])                  # Stage 3\n",
                 "            lm.copy(counts, cnt[4 * b])                  # Stage 3\n"
                 "            if w == 0:\n                lm.copy(cnt[4 * b], counts)\n");
  EXPECT_TRUE(genSlotViolatedAt(late, 1));
  EXPECT_NE(proveGenSlotText(late).outcome, encoder::Outcome::Proved);
}

// Generation deltas per byte range (docs/z3.md "Generations per byte
// range", helper rowreset, session 25): warp 0 resets a row whole every
// round and then rewrites its own entry, every other warp its entry once;
// every warp reads the row back. Warp 0's read-back is split by the laps it
// means per entry (encoder/system.cpp splitByWrittenLaps): its own entry
// moves by two generations a round, the others' by one, under one (view,
// stage, read, process). One delta per such key found no period ("no
// steady period within 192 unrolled iterations" before this change); a
// delta per byte range does, and checkLapDeltas still checks every pair
// of a write and a read over common bytes.
namespace {
const char* kGenSlotRowReset = "corpus/reduction/sm80_row_reset_entries_read_whole.cake";
bool rowResetViolatedAt(const std::string& text, int64_t n) { return violatedWith(text, "n", n); }
}  // namespace

TEST(TripGenSlot, RowResetThenEntriesRewrittenIsProved) {
  const std::string text = cake::testing::corpusText(kGenSlotRowReset);
  EXPECT_FALSE(rowResetViolatedAt(text, 3));
  auto r = proveGenSlotText(text);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction: every n >= 1"), std::string::npos) << r.engine;
}

// Its broken forms are confirmed broken by the bounded check and not proved.
TEST(TripGenSlot, RowResetBrokenVariantsAreNotProved) {
  using cake::testing::replace;
  const std::string text = cake::testing::corpusText(kGenSlotRowReset);
  // no barrier between the reset and the entries: the fill races them
  const std::string racy =
      replace(text, "            lm.sync(block)\n            lm.copy(one, X", "            lm.copy(one, X");
  EXPECT_TRUE(rowResetViolatedAt(racy, 2));
  EXPECT_NE(proveGenSlotText(racy).outcome, encoder::Outcome::Proved);
  // the row read back before the other warps rewrote their entries
  const std::string early = replace(text, "            lm.copy(row[0][:, w:w + 1], one)\n            lm.sync(block)\n",
                                    "            lm.copy(row[0][:, w:w + 1], one)\n");
  EXPECT_TRUE(rowResetViolatedAt(early, 2));
  EXPECT_NE(proveGenSlotText(early).outcome, encoder::Outcome::Proved);
  // a stale row of the previous round: two rows (round k writes row k % 2),
  // both reset before the loop, and every warp reads the *other* row, which
  // holds round k - 1's entries where round k's are meant
  std::string stale = replace(text, "shape=(1, 32), dtype=lm.f16)\n    full", "shape=(1, 32), dtype=lm.f16, stages=2)\n    full");
  stale = replace(stale, "        w = lm.instance()\n",
                  "        w = lm.instance()\n        if w == 0:\n            lm.fill(full, -65504.0)\n"
                  "            lm.copy(row[0], full)\n            lm.copy(row[1], full)\n        lm.sync(block)\n");
  stale = replace(stale, "                lm.copy(row[0], full)\n", "                lm.copy(row[k], full)\n");
  stale = replace(stale, "            lm.copy(row[0][:, w:w + 1], one)\n", "            lm.copy(row[k][:, w:w + 1], one)\n");
  stale = replace(stale, "            lm.copy(all, row[0])\n", "            lm.copy(all, row[k + 1])\n");
  EXPECT_TRUE(rowResetViolatedAt(stale, 2));
  EXPECT_NE(proveGenSlotText(stale).outcome, encoder::Outcome::Proved);
  // the same two rows read in the round that wrote them: correct, proved
  // (the stale variant fails for its read, not for the two rows)
  const std::string fresh = replace(stale, "            lm.copy(all, row[k + 1])\n", "            lm.copy(all, row[k])\n");
  EXPECT_FALSE(rowResetViolatedAt(fresh, 3));
  EXPECT_EQ(proveGenSlotText(fresh).outcome, encoder::Outcome::Proved);
}
