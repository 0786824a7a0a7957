// A K loop with its remainder tile peeled after it (helper peel48, session
// 48; docs/z3.md "A peeled last iteration after the loop, under a remainder
// guard"): CUTLASS's sm100 mixed TMA / cp.async collective loads B over the
// `K // 64` full k-tiles, then `if K % 64 != 0:` the last one (its columns
// past K cleared), while the other roles loop over `lm.cdiv(K, 64)`. Per
// outcome of the guard, the case's copy reads the peeled tile as the loop's
// last iteration (foldPeeledLastIterations: `lm.range(0, K // 64 + 1)`, the
// clear under `if k == K // 64:`) and its bounds respelled under the case's
// fact, a part equal to a bound plus or minus 1 included (`K // 64` as
// `lm.cdiv(K, 64) - 1` under K % 64 != 0, as `lm.cdiv(K, 64)` under
// K % 64 == 0). Broken twins (the peel at a wrong phase, without its
// commit, clearing before its copies land, without its fence, under a
// coarser remainder guard; a bound one short of the trip count) are found
// by `cake check` and not proved.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attack_util.h"

using namespace cake;
// (declarations, not directives: a unity build puts later test files in this
// one's scope)
using cake::testing::corpusText;
using cake::testing::replace;
using cake::testing::withFactOnK;
using cake::testing::attacks::expectFoundNotProved;

namespace peel48_test {

const std::string kPeeled = "corpus/gemm/sm100_mixed_cpasync_peeled_k_residue.cake";
const std::string kTwoRings = "corpus/gemm/sm100_mixed_tma_cpasync_two_rings.cake";
const std::string kTwin = "cutlass_sm100_mixed_cpasync_peeled_residue_";
const std::string kCpAsyncLoop = "    with load_cpa:\n        for k in lm.range(0, k_tiles):\n";

// The persistent sm90 GEMM's producer with its k-residue tile peeled after
// the loop over the full k-tiles, in every tile; `back` the peel's ring
// distance (4: the producer's acquire of the slot's last release).
const std::string kPersistent = "corpus/gemm/sm90_persistent_ws.cake";
const std::string kProducerKLoop = "            for k in lm.range(0, k_tiles):\n                it = t * k_tiles + k\n"
                                   "                lm.wait(empty, iter=it - 4)\n"
                                   "                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)\n"
                                   "                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=full)\n";
std::string persistentPeeled(int back) {
  const std::string loop = replace(kProducerKLoop, "lm.range(0, k_tiles)", "lm.range(0, K // 64)");
  const std::string peel = "            if K % 64 != 0:\n                lm.wait(empty, iter=t * k_tiles + K // 64 - " +
                           std::to_string(back) +
                           ")\n"
                           "                smem_a.tma_load(A, coords=(m_blk, (K // 64) * 64), iter=t * k_tiles + K // 64, "
                           "barrier=full)\n"
                           "                smem_b.tma_load(B, coords=(n_blk, (K // 64) * 64), iter=t * k_tiles + K // 64, "
                           "barrier=full)\n";
  return replace(corpusText(kPersistent), kProducerKLoop, loop + peel);
}

// `cake check` says proved and finds nothing, and its proof for every trip
// count has each of `parts` in its engine line (the proved verdict's
// detail). That proof is the one proveDefault runs, at the bounded check's
// values: it is not run a second time here, since the covering values'
// search alone is 10 to 14 CPU s on the persistent peels (their far-step
// queries on `K // 64` and `lm.cdiv(K, 64)`; docs/ci.md, session 51).
void expectProvedWith(const std::string& text, const std::vector<std::string>& parts, const char* what) {
  auto mod = cake::testing::compile(text);
  ASSERT_FALSE(mod.schedules.empty()) << what;
  const auto answer = cake::testing::attacks::modelCheck(mod.schedules.at(0));
  EXPECT_TRUE(answer.proved) << what << ": " << answer.detail;
  EXPECT_TRUE(answer.rules.empty()) << what << ": " << cake::testing::attacks::join(answer.rules);
  for (const std::string& part : parts)
    EXPECT_NE(answer.detail.find(part), std::string::npos) << what << ": " << answer.detail;
}

}  // namespace peel48_test

namespace p48 = peel48_test;

// The corpus file is proved per outcome of its guard (main: *checked*, "the
// symbolic loops have different bounds (lm.cdiv(K, 64) and K // 64)").
TEST(Peel48, ThePeeledResidueTileIsProvedPerOutcomeOfItsGuard) {
  p48::expectProvedWith(corpusText(p48::kPeeled), {"for each allowed outcome of the guards (2 of 2 cases)"},
                        "the peeled residue tile");
}

// Under K % 64 != 0 only the taken case is allowed: its copy folds the
// peeled tile into the loop and reads K // 64 as lm.cdiv(K, 64) - 1.
TEST(Peel48, TheTakenCaseFoldsThePeelIntoTheLoop) {
  p48::expectProvedWith(withFactOnK(corpusText(p48::kPeeled), "K % 64 != 0"),
                        {"K // 64 as lm.cdiv(K, 64) - 1", "(1 of 2 cases)",
                         "a loop's peeled last iteration as its own (lm.range(0, lm.cdiv(K, 64) - 1) before 6 of its "
                         "body's statements with the loop variable read as lm.cdiv(K, 64) - 1 and 1 of the last "
                         "iteration only)"},
                        "the residue tile always taken");
}

// A loop end one below another loop's for every allowed value reads as that
// bound minus 1 (main: *checked*, "different bounds"); one that differs from
// it otherwise (K = 65: one k-tile short) is found and not proved.
TEST(Peel48, ABoundPlusOneSpelledApartIsReadAsTheBound) {
  const std::string rings = corpusText(p48::kTwoRings);
  p48::expectProvedWith(replace(rings, p48::kCpAsyncLoop, "    with load_cpa:\n        for k in lm.range(0, (K - 1) // 64 + 1):\n"),
                        {"(K - 1) // 64 as lm.cdiv(K, 64) - 1"}, "the cp.async loop to (K - 1) // 64 + 1");
  expectFoundNotProved(replace(rings, p48::kCpAsyncLoop, "    with load_cpa:\n        for k in lm.range(0, (K - 2) // 64 + 1):\n"),
                       "sync.arrival-underflow", "the cp.async loop to (K - 2) // 64 + 1");
}

// The corpus twins: the peel at a wrong phase, without its commit,
// clearing before its copies land, without its proxy fence (the full tiles
// keep theirs).
// The peel acquiring its slot two laps back (the corpus twin), or at its
// own release (a phase no one completes before it). (About 4 s of CPU: the
// proof alone spends its budget before it refuses.)
TEST(Peel48, SlowAPeelAtAWrongPhaseIsFoundAndNotProved) {
  expectFoundNotProved(corpusText("corpus/bugs/sync.lost-phase/" + p48::kTwin + "old_phase.cake"), "sync.lost-phase",
                       "the peel's wait two laps back");
  expectFoundNotProved(replace(corpusText(p48::kPeeled), "lm.wait(b_empty, iter=k_full - 4)", "lm.wait(b_empty, iter=k_full)"),
                       "sync.deadlock", "the peel's wait for its own release");
}
TEST(Peel48, APeelWithoutItsCommitIsFoundAndNotProved) {
  expectFoundNotProved(corpusText("corpus/bugs/sync.arrival-underflow/" + p48::kTwin + "no_arrive.cake"),
                       "sync.arrival-underflow", "the peel without its commit");
}
TEST(Peel48, APeelClearingBeforeItsCopiesLandIsFoundAndNotProved) {
  expectFoundNotProved(corpusText("corpus/bugs/sync.race/" + p48::kTwin + "clear_before_copies_land.cake"), "sync.race",
                       "the peel's clear before its copies land");
}
TEST(Peel48, APeelWithoutItsFenceIsFoundAndNotProved) {
  expectFoundNotProved(corpusText("corpus/bugs/proxy.missing-fence/" + p48::kTwin + "no_fence.cake"),
                       "proxy.missing-fence", "the peel without its fence");
}

// The peel under a coarser remainder guard: at K = 96 (K % 32 == 0, K % 64
// != 0) the residue tile is never loaded; under that case's fact K // 64 + 1
// is not lm.cdiv(K, 64), so the fold gives no proof.
TEST(Peel48, APeelUnderACoarserGuardIsFoundAndNotProved) {
  expectFoundNotProved(replace(corpusText(p48::kPeeled), "if K % 64 != 0:", "if K % 32 != 0:"),
                       "sync.arrival-underflow", "the peel under K % 32 != 0");
}

// The peel inside a persistent kernel's tile loop (main: *checked*, "the
// symbolic loops have different bounds"): proved per outcome of the guard,
// the taken case by the persistent proof of the folded copy; the peel
// acquiring its slot two laps back is found and not proved.
TEST(Peel48, APeelInsideATileLoopIsProved) {
  p48::expectProvedWith(p48::persistentPeeled(4), {"for each allowed outcome of the guards (2 of 2 cases)"},
                        "the peel in every tile");
  p48::expectProvedWith(withFactOnK(p48::persistentPeeled(4), "K % 64 != 0"),
                        {"a loop's peeled last iteration as its own (lm.range(0, K // 64) before 3 of its body's "
                         "statements with the loop variable read as K // 64)",
                         "lap induction over tiles and K"},
                        "the peel in every tile, always taken");
  expectFoundNotProved(p48::persistentPeeled(8), "sync.lost-phase", "the peel in every tile two laps back");
}
