// Schedules whose parameters reach only guards (docs/z3.md "No symbolic
// loop: each system explored whole", helper guardonly, session 18, issue
// 11): proved once per allowed outcome of the guards, each case's system
// explored whole; and guards in a modelled cluster, which must take one
// outcome in every CTA of the cluster before a case may decide them for
// all processes. Each broken variant is confirmed broken by the bounded
// explicit-state check and is not proved.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "encoder/simulator.h"
#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace {

encoder::ModelCheckResult proveGuardCases(const ir::Schedule& s) { return cake::testing::proveSchedule(s); }

bool textViolatedAt(const std::string& text, std::initializer_list<std::pair<std::string, int64_t>> values) {
  return cake::testing::violatedAt(cake::testing::compile(text).schedules.at(0), values);
}

encoder::ModelCheckResult proveGuardCasesOfText(const std::string& text) {
  auto m = cake::testing::compile(text);
  EXPECT_FALSE(m.schedules.empty());
  if (m.schedules.empty()) return {};
  return proveGuardCases(m.schedules[0]);
}

const char* kFlagTree = "corpus/bugs/sync.race/flagtree_tma_store_pending_out_of_region_reused_alloc_fixed.cake";
const char* kFlagTreeBug = "corpus/bugs/sync.race/flagtree_tma_store_pending_out_of_region_reused_alloc.cake";

}  // namespace

// FlagTree's fixed file: no loop, `flag` read by `if flag > 0:` only (and
// the coordinates, which the builder does not evaluate). Both outcomes are
// allowed; each case's system reads no parameter and is explored whole.
TEST(TripGuardOnly, ParameterReadOnlyByAGuardIsProvedPerOutcome) {
  using cake::testing::replace;
  const std::string text = cake::testing::corpusText(kFlagTree);
  auto r = proveGuardCasesOfText(text);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("for each of the 2 allowed outcome vectors"), std::string::npos) << r.engine;
  EXPECT_NE(r.engine.find("explored whole"), std::string::npos) << r.engine;

  // the corpus twin: no drain at the end of the if (a race when flag > 0)
  const std::string twin = cake::testing::corpusText(kFlagTreeBug);
  EXPECT_TRUE(textViolatedAt(twin, {{"flag", 1}}));
  EXPECT_NE(proveGuardCasesOfText(twin).outcome, encoder::Outcome::Proved);

  // the parameter reaches a trip count: flag stores through `later`, each
  // waited for with one left pending (a race from the second on)
  const std::string loop =
      replace(text,
              "        lm.fill(frag, 2.0)\n        lm.copy(later[0], frag)\n        lm.fence_proxy()\n"
              "        later.tma_store(Out1, coords=(row0, 0), stage=0)\n        lm.tma_store_commit()\n",
              "        for i in lm.range(0, flag):\n            lm.fill(frag, 2.0)\n            lm.copy(later[0], frag)\n"
              "            lm.fence_proxy()\n            later.tma_store(Out1, coords=(row0, 0), stage=0)\n"
              "            lm.tma_store_commit()\n            lm.tma_store_wait(pending=1)\n");
  ASSERT_NE(loop, text);
  EXPECT_FALSE(textViolatedAt(loop, {{"flag", 1}}));
  EXPECT_TRUE(textViolatedAt(loop, {{"flag", 2}}));
  EXPECT_NE(proveGuardCasesOfText(loop).outcome, encoder::Outcome::Proved);
  // lap induction over flag meets the race (at a trip count still open)
  const std::string few = replace(loop, "    pool   = lm.smem(16384)\n",
                                  "    lm.assume(flag >= 0)\n    lm.assume(flag <= 3)\n    pool   = lm.smem(16384)\n");
  ASSERT_NE(few, loop);
  EXPECT_NE(proveGuardCasesOfText(few).outcome, encoder::Outcome::Proved);
}

// A parameter read besides the guard, with few allowed values (`off`, the
// second view's offset: over the region's bytes or beside them): listed,
// and each value's system explored whole. The corpus twin (no drain) is
// broken where the views overlap (off = 0) only.
TEST(TripGuardOnly, FewValuedParametersBesideTheGuardAreListed) {
  using cake::testing::replace;
  auto withOffset = [](const std::string& text) {
    std::string t = replace(text, "flag: LM.i32):", "flag: LM.i32, off: LM.i32):");
    t = replace(t, "    pool   = lm.smem(16384)\n",
                "    lm.assume(off >= 0)\n    lm.assume(off <= 1)\n    pool   = lm.smem(16384)\n");
    return replace(t, "later  = pool.view(offset=0,", "later  = pool.view(offset=off * 8192,");
  };
  const std::string text = withOffset(cake::testing::corpusText(kFlagTree));
  auto r = proveGuardCasesOfText(text);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("each off in {0,1}, the system explored whole"), std::string::npos) << r.engine;
  const std::string twin = withOffset(cake::testing::corpusText(kFlagTreeBug));
  EXPECT_TRUE(textViolatedAt(twin, {{"flag", 1}, {"off", 0}}));
  EXPECT_FALSE(textViolatedAt(twin, {{"flag", 1}, {"off", 1}}));
  auto b = proveGuardCasesOfText(twin);
  EXPECT_NE(b.outcome, encoder::Outcome::Proved);
  EXPECT_NE(b.detail.find("off in {0}: meets"), std::string::npos) << b.detail;
}

// With a loop whose trip count is a constant: the builder unrolls it, and
// the cases' systems still read no parameter.
TEST(TripGuardOnly, ConstantLoopsAroundAGuardAreProvedPerOutcome) {
  using cake::testing::replace;
  auto looped = [](const std::string& text) {
    // the role's body, run three times
    const std::string head = "    with wg:\n";
    const size_t at = text.find(head);
    std::string body = text.substr(at + head.size());
    std::string indented;
    size_t pos = 0;
    while (pos < body.size()) {
      size_t nl = body.find('\n', pos);
      if (nl == std::string::npos) nl = body.size();
      const std::string line = body.substr(pos, nl - pos);
      indented += (line.empty() ? "" : "    ") + line + "\n";
      pos = nl + 1;
    }
    return text.substr(0, at) + head + "        for r in lm.range(0, 3):\n" + indented;
  };
  const std::string text = looped(cake::testing::corpusText(kFlagTree));
  auto r = proveGuardCasesOfText(text);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail << "\n" << text;
  EXPECT_NE(r.engine.find("explored whole"), std::string::npos) << r.engine;
  // the drain of the last store moved out of the loop: the next round's
  // region write races with the last round's store of `later`
  const std::string late = replace(text, "\n            lm.tma_store_wait(pending=0)\n",
                                   "\n            lm.tma_store_wait(pending=1)\n");
  ASSERT_NE(late, text);
  EXPECT_TRUE(textViolatedAt(late, {{"flag", 0}}));
  EXPECT_NE(proveGuardCasesOfText(late).outcome, encoder::Outcome::Proved);
  // the corpus twin in the loop
  const std::string twin = looped(cake::testing::corpusText(kFlagTreeBug));
  EXPECT_TRUE(textViolatedAt(twin, {{"flag", 1}}));
  EXPECT_NE(proveGuardCasesOfText(twin).outcome, encoder::Outcome::Proved);
}

// A guard on the block index in a modelled cluster: the CTAs of one
// system have different block indices. DeepGEMM's broken k-grouped
// multicast decides per CTA (`rank == 1 or (blk + 1) % group_blocks !=
// 0`): the CTAs may disagree, which a case giving every process one outcome
// would never explore. Its guard is not shown to agree, so the guards are
// not decided; the fixed form's (`(blk - rank) // group_blocks == ...`,
// the cluster's first block) is.
TEST(TripGuardOnly, ClusterGuardsMustAgreeInEveryCta) {
  using cake::testing::replace;
  // The 2x1 multicast mainloop of test_util.h, each CTA loading one half of
  // B for both: with `rank == 0 or G > 0` its own half, else the other's.
  // Every CTA taking the guard, or every CTA not taking it, loads both
  // halves; for G <= 0 CTA 0 takes it and CTA 1 does not, and both load
  // half 0. Split on the guard with one outcome for all processes, both
  // cases are correct, and this schedule was proved.
  std::string mixed = replace(cake::testing::kClusterMulticast, "K: LM.i32):", "K: LM.i32, G: LM.i32):");
  mixed = replace(mixed, "            lm.wait(empty, iter=k - 2)\n",
                  "            lm.wait(empty, iter=k - 2)\n            lm.expect_tx(full, 24576, iter=k)\n");
  mixed = replace(mixed,
                  "            smem_bh[2 * (k % 2) + rank].tma_load(B, coords=(64 * rank, k), iter=k, barrier=full, "
                  "multicast=3)\n",
                  "            if rank == 0 or G > 0:\n"
                  "                smem_bh[2 * (k % 2) + rank].tma_load(B, coords=(64 * rank, k), iter=k, barrier=full, "
                  "multicast=3)\n"
                  "            else:\n"
                  "                smem_bh[2 * (k % 2) + 1 - rank].tma_load(B, coords=(64 - 64 * rank, k), iter=k, "
                  "barrier=full, multicast=3)\n");
  EXPECT_FALSE(textViolatedAt(mixed, {{"K", 3}, {"G", 1}}));
  EXPECT_TRUE(textViolatedAt(mixed, {{"K", 1}, {"G", 0}}));
  auto m = proveGuardCasesOfText(mixed);
  EXPECT_NE(m.outcome, encoder::Outcome::Proved) << m.engine;
  // the same guard written so that every CTA agrees (the cluster's first
  // block decides): proved per outcome
  const std::string agreed = replace(mixed, "if rank == 0 or G > 0:", "if (lm.block_idx(0) - rank) % 4 == 0 or G > 0:");
  auto a = proveGuardCasesOfText(agreed);
  EXPECT_EQ(a.outcome, encoder::Outcome::Proved) << a.detail;
  EXPECT_NE(a.engine.find("outcome of the guards"), std::string::npos) << a.engine;


  const std::string bug =
      cake::testing::corpusText("corpus/bugs/sync.tx-imbalance/deepgemm_kgrouped_multicast_straddle.cake");
  EXPECT_TRUE(textViolatedAt(bug, {{"K", 64}, {"group_blocks", 1}}));
  auto b = proveGuardCasesOfText(bug);
  EXPECT_NE(b.outcome, encoder::Outcome::Proved) << b.engine;
  EXPECT_EQ(b.detail.find("taken"), std::string::npos) << b.detail;  // no case was made
}
