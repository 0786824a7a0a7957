// Soundness review, session 35 (docs/z3.md "Soundness review, session 35
// (helper sound35)"): broken schedules that exited 0, each fixed in the
// semantics or the bounded check, and broken twins of session 34's new
// proof paths. None may be proved; each must be found by `cake check`.
//   * data.stale-read: a stage-named table that its loop rewrites per
//     iteration, written on the first iteration only (DeepGEMM's B-scale
//     row, `smem_sfb[0]`): the cap "at most the highest lap written" read
//     it as a table written once;
//   * the bounded check's loop starts (placeStarts): a start that no one
//     parameter moves (`sidx * stride`, both 0 in the base).
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "attack_util.h"
#include "last_stage_scale.h"
#include "split_k_range.h"

using namespace cake;
using namespace cake::testing;
using namespace cake::testing::attacks;

namespace sound35_attacks_test {

// Broken at its witness, found by `cake check`'s model checker (the rule
// `rule` among what it reports), and not proved.
void s35ExpectCaught(const std::string& text, const char* what,
                     const std::vector<std::pair<std::string, int64_t>>& witness, const std::string& rule) {
  auto mod = compile(text);
  ASSERT_FALSE(mod.schedules.empty()) << what;
  const ir::Schedule& s = mod.schedules.at(0);
  EXPECT_TRUE(violatedAt(s, bindAll(s, witness))) << what << ": not broken at its witness";
  auto [proved, rules, detail] = modelCheck(s);
  EXPECT_FALSE(proved) << what << ": cake check says proved: " << detail;
  EXPECT_TRUE(rules.count(rule)) << what << ": cake check finds " << join(rules) << ": " << detail;
  auto r = proveDefault(s);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << what << ": UNSOUND, proved: " << r.engine;
}

// The correct form: nothing reported, whatever the proof says.
void s35ExpectClean(const std::string& text, const char* what, size_t schedule = 0) {
  auto mod = compile(text);
  ASSERT_GT(mod.schedules.size(), schedule) << what;
  auto [proved, rules, detail] = modelCheck(mod.schedules.at(schedule));
  EXPECT_TRUE(rules.empty()) << what << ": a false alarm: " << join(rules) << ": " << detail;
}

const std::string kSfbStage = corpusText("corpus/gemm/sm90_deepgemm_persistent_sfb_stage_indexed.cake");
const std::string kSfbWrite = "            lm.copy(smem_sfb[0][:, 32 * wg:32 * wg + 32], sbv)\n";

// The split-K CTA over a segment [sidx * stride, sidx * stride + n): its
// start reads two parameters, both at 0 in the bounded check's base.
std::string segment() {
  std::string t = replace(kSplitKRange, "kpc: LM.i32):", "n: LM.i32, sidx: LM.i32, stride: LM.i32):");
  t = replace(t, "    lm.assume(kpc > 0)\n",
              "    lm.assume(n > 0)\n    lm.assume(sidx >= 0)\n    lm.assume(stride >= 0)\n"
              "    lm.assume(stride % 2 == 0)\n    lm.assume(sidx % 2 == 0)\n");
  t = replace(t, "k0 = lm.block_idx(1) * kpc", "k0 = sidx * stride");
  t = replace(t, "k1 = min(k0 + kpc, k_tiles)", "k1 = k0 + n");
  return replace(t, "lm.block_idx(1) * 128 + m0", "sidx * 128 + m0");
}

// The consumers' ring indexed by the segment's k, not k - k0.
std::string consumersAtK(std::string t) {
  const size_t at = t.find("    with consumers:");
  std::string tail = t.substr(at);
  tail = replace(tail, "lm.wait(full, iter=k - k0)", "lm.wait(full, iter=k)");
  tail = replace(tail, "smem_a[k - k0][m0:m0 + 64, :], smem_b[k - k0]", "smem_a[k][m0:m0 + 64, :], smem_b[k]");
  tail = replace(tail, "lm.arrive(empty, iter=k - k0)", "lm.arrive(empty, iter=k)");
  return t.substr(0, at) + tail;
}


// corpus/gemm/sm100_persistent_double_tmem.cake with one TMEM accumulator
// (a one-slot acc_full / acc_empty pair): every tile does the same to
// TMEM, so the persistent proof builds no consecutive run of tiles for
// it (docs/z3.md "Tiles that do different things to TMEM by their index").
std::string singleTmem() {
  std::string t = corpusText("corpus/gemm/sm100_persistent_double_tmem.cake");
  t = replace(t,
              "                if t % 2 == 0:\n"
              "                    lm.mma(tmem_acc0, smem_a[it], smem_b[it], init=(k == 0))\n"
              "                else:\n"
              "                    lm.mma(tmem_acc1, smem_a[it], smem_b[it], init=(k == 0))\n",
              "                lm.mma(tmem_acc0, smem_a[it], smem_b[it], init=(k == 0))\n");
  t = replace(t,
              "                if t % 2 == 0:\n"
              "                    lm.tmem_load(acc_q, tmem_acc0[q:q + 32, h * 64:h * 64 + 64])\n"
              "                else:\n"
              "                    lm.tmem_load(acc_q, tmem_acc1[q:q + 32, h * 64:h * 64 + 64])\n",
              "                lm.tmem_load(acc_q, tmem_acc0[q:q + 32, h * 64:h * 64 + 64])\n");
  t = replace(t, "    tmem_acc1 = lm.tmem(cols=128, width=128, shape=(128, 128), dtype=lm.f32)\n", "");
  t = replace(t, "accp      = lm.pipeline(stages=2)", "accp      = lm.pipeline(stages=1)");
  return replace(t, "lm.wait(acc_empty, iter=t - 2)", "lm.wait(acc_empty, iter=t - 1)");
}
const std::string kAccEmptyWait = "            lm.wait(acc_empty, iter=t - 1)\n";
const std::string kEpiRelease = "                lm.tmem_load_wait()\n                if h == 1:\n                    lm.arrive(acc_empty, iter=t)\n";


// The partial-gradient kernel of corpus/normalization/
// sm80_layernorm_bwd_gamma_two_stage.cake (its first schedule), which the
// pacer's free step alone proves (docs/z3.md "The pacer's free step
// alone").
std::string layerNormPartial() {
  const std::string t = corpusText("corpus/normalization/sm80_layernorm_bwd_gamma_two_stage.cake");
  return t.substr(0, t.find("@cake.schedule(target=\"sm_80\")\ndef layernorm_bwd_grad_gamma"));
}
const std::string kLnAddRow = "                lm.copy(buf_b[y + 4 * k], accb)\n";
// Warp 1 also writes warp 0's row of buf_b in the paced loop where `cond`.
std::pair<std::string, std::string> lnWarp1WritesRow0(const std::string& cond) {
  return {kLnAddRow, kLnAddRow + "                if y == 1 and " + cond + ":\n                    lm.copy(buf_b[4 * k], accb)\n"};
}


// corpus/splitk/sm100_stream_k_two_segments.cake (segmentsAsTiles).
const std::string kStreamK = corpusText("corpus/splitk/sm100_stream_k_two_segments.cake");
const std::string kSeg2Wait = "            it = n_tail + k\n            lm.wait(full, iter=it)\n"
                              "            lm.mma(accum, smem_a[it], smem_b[it], init=(k == 0))\n";
// Segment 2's MMA warp waits for its full slot only where `cond`.
std::pair<std::string, std::string> seg2WaitOnlyIf(const std::string& cond) {
  return {kSeg2Wait, "            it = n_tail + k\n            if " + cond + ":\n                lm.wait(full, iter=it)\n"
                     "            lm.mma(accum, smem_a[it], smem_b[it], init=(k == 0))\n"};
}


// corpus/attention/sm90_flashinfer_persistent_merge_states.cake (the least
// window of 4 tiles, stagesSettled).
const std::string kMergeStates = corpusText("corpus/attention/sm90_flashinfer_persistent_merge_states.cake");
const std::string kItemSync = "            item = lm.block_idx(0) + t * lm.grid_dim(0)\n            lm.sync(block)\n";
// The item's first barrier kept only where `cond`.
std::pair<std::string, std::string> itemSyncOnlyIf(const std::string& cond) {
  return {kItemSync, "            item = lm.block_idx(0) + t * lm.grid_dim(0)\n            if " + cond +
                         ":\n                lm.sync(block)\n"};
}

}  // namespace sound35_attacks_test

namespace s35 = sound35_attacks_test;

// DeepGEMM's B-scale row named by its slot (`smem_sfb[0]`), written by the
// math warpgroups on the CTA's first tile only: every later tile multiplies
// tile 0's scales. The read means its return (lap 1 at tile 1) and the cap
// at the highest lap written (0) read it as a table written once; the
// write sits in the tile loop, no writer writes the row at tile 1, so the
// read finds tile 0's data: `data.stale-read` (exit 0 before session 35).
// The corpus form, and a tree reduction whose relay skips a level's write
// (another warp writes the slot at that level), stay clean.
TEST(Sound35, StageNamedRowWrittenOnTheFirstTileOnlyIsFound) {
  const std::string broken =
      replace(s35::kSfbStage, s35::kSfbWrite, "            if t == 0:\n    " + s35::kSfbWrite);
  s35::s35ExpectCaught(broken, "B-scale row written on the first tile only", {{"M", 129}, {"N", 1}, {"K", 1}},
                       "data.stale-read");
  s35::s35ExpectClean(s35::kSfbStage, "the corpus form");
  s35::s35ExpectClean(corpusText("corpus/normalization/sm80_layernorm_bwd_gamma_two_stage.cake"),
                      "the relay of a tree reduction", 1);
}

// placeStarts: a start `sidx * stride` with both at 0 in the base. One
// parameter moved keeps the start at 0, so the consumers' ring at the
// segment's k ran from 0 only and `cake check` exited 0 (checked: sidx in
// {0}, stride in {0}); two moved reach the start 4 (sidx = stride = 2).
TEST(Sound35, BoundedCheckPlacesAStartTwoParametersReach) {
  const std::string good = s35::segment();
  s35::s35ExpectClean(good, "the segment, ring at k - k0");
  s35::s35ExpectCaught(s35::consumersAtK(good), "the consumers' ring at the segment's k",
                       {{"K", 64 * 16}, {"n", 1}, {"sidx", 2}, {"stride", 2}}, "sync.stale-phase");
}

// Tiles that do the same to TMEM, broken between tiles: the accumulator
// reused before the epilogue's read of the previous tile (the MMA warp's
// acc_empty wait a tile early, skipped from tile 2 on, or on even tiles;
// the epilogue's release after the first half, or before its
// tcgen05.wait::ld), and the epilogue's acc_full wait a tile early. Each is
// broken at its witness, not proved, and found by `cake check`.
TEST(Sound35, SlowTmemTilesAlikeKeepTheirBugs) {
  using s35::kAccEmptyWait;
  using s35::kEpiRelease;
  const std::vector<std::pair<std::string, int64_t>> two = {{"M", 129}, {"N", 1}, {"K", 1}};
  attack(s35::singleTmem(), {{"M", 256}, {"N", 256}, {"K", 128}},
         {
             {{{kAccEmptyWait, "            lm.wait(acc_empty, iter=t - 2)\n"}},
              "the MMA warp's acc_empty wait one tile early",
              two},
             {{{kAccEmptyWait, "            if t < 2:\n    " + kAccEmptyWait}},
              "the MMA warp's acc_empty wait skipped from tile 2 on",
              {{"M", 257}, {"N", 1}, {"K", 1}}},
             {{{kAccEmptyWait, "            if t % 2 == 1:\n    " + kAccEmptyWait}},
              "the MMA warp's acc_empty wait skipped on even tiles",
              {{"M", 257}, {"N", 1}, {"K", 1}}},
             {{{kEpiRelease, "                lm.tmem_load_wait()\n                if h == 0:\n"
                             "                    lm.arrive(acc_empty, iter=t)\n"}},
              "the epilogue's release after the first half",
              two},
             {{{kEpiRelease, "                if h == 1:\n                    lm.arrive(acc_empty, iter=t)\n"
                             "                lm.tmem_load_wait()\n"}},
              "the epilogue's release before its tcgen05.wait::ld",
              two},
             {{{"            lm.wait(acc_full, iter=t)\n", "            lm.wait(acc_full, iter=t - 1)\n"}},
              "the epilogue's acc_full wait one tile early",
              {{"M", 1}, {"N", 1}, {"K", 1}}},
         });
}

// The pacer's free step alone (TripProofOptions::pace_alone): warps that
// add into their own rows in a loop no barrier paces, broken so that a
// warp touches another's row before a barrier orders them (in the loop, at
// one iteration or a residue of it; in the tree after a removed barrier).
TEST(Sound35, SlowPacedRowsKeepTheirRaces) {
  using s35::lnWarp1WritesRow0;
  attack(s35::layerNormPartial(), {{"rows_per_part", 48}},
         {
             {{{"        lm.copy(buf_b[y], accb)\n        lm.sync(block)\n        if y < 2:",
                "        lm.copy(buf_b[y], accb)\n        if y < 2:"}},
              "the tree's first barrier removed",
              {{"rows_per_part", 16}}},
             {{{"            lm.copy(buf_b[y], accb)\n        lm.sync(block)\n        if y == 0:",
                "            lm.copy(buf_b[y], accb)\n        if y == 0:"}},
              "the tree's second barrier removed",
              {{"rows_per_part", 16}}},
             {{{"                lm.copy(acc, buf_g[y + 4 * k])\n", "                lm.copy(acc, buf_g[(y + 1) % 4 + 4 * k])\n"}},
              "the loop reads the next warp's row",
              {{"rows_per_part", 32}}},
             {{{"            lm.copy(othb, buf_b[y + 4 * k])\n", "            lm.copy(othb, buf_b[(y + 3) % 4 + 4 * k])\n"}},
              "the warp's own sum reads the previous warp's row before the barrier",
              {{"rows_per_part", 16}}},
             {{lnWarp1WritesRow0("seg == n_seg - 1")}, "warp 1 writes row 0 at the last segment", {{"rows_per_part", 32}}},
             {{lnWarp1WritesRow0("seg == 5")}, "warp 1 writes row 0 at segment 5", {{"rows_per_part", 96}}},
             {{lnWarp1WritesRow0("seg % 7 == 6")}, "warp 1 writes row 0 at segments 6 mod 7", {{"rows_per_part", 112}}},
         });
}

// Consecutive loops read as tiles (segmentsAsTiles, registerUniform): a
// stream-K CTA's two segments, broken inside segment 2 at one iteration,
// at the boundary (segment 1's last release, the epilogue's release before
// its tcgen05.wait::ld, the hand-off's phase), or by an `init=` that differs.
TEST(Sound35, SlowSegmentsAsTilesKeepTheirBugs) {
  using s35::seg2WaitOnlyIf;
  attack(s35::kStreamK, {{"KT", 5}, {"S", 2}},
         {
             {{seg2WaitOnlyIf("k != 1")}, "segment 2's wait skipped at k = 1", {{"KT", 3}, {"S", 2}}},
             {{seg2WaitOnlyIf("k != 9")}, "segment 2's wait skipped at k = 9", {{"KT", 11}, {"S", 10}}},
             {{{"            lm.mma(accum, smem_a[it], smem_b[it], init=(k == S))\n"
                "            lm.mma_commit(barrier=empty, iter=it)\n",
                "            lm.mma(accum, smem_a[it], smem_b[it], init=(k == S))\n"
                "            if k + 1 < KT:\n                lm.mma_commit(barrier=empty, iter=it)\n"}},
              "segment 1's last release missing",
              {{"KT", 3}, {"S", 2}}},
             {{{"            lm.tmem_load_wait()\n            lm.arrive(acc_empty, iter=seg)\n",
                "            lm.arrive(acc_empty, iter=seg)\n            lm.tmem_load_wait()\n"}},
              "the epilogue's release before its tcgen05.wait::ld",
              {{"KT", 2}, {"S", 1}}},
             {{{"smem_b[it], init=(k == 0))", "smem_b[it], init=(k == 1))"}},
              "segment 2 resets at its second iteration",
              {{"KT", 3}, {"S", 2}}},
             {{{"        lm.wait(acc_empty, iter=0)\n", "        lm.wait(acc_empty, iter=1)\n"}},
              "the hand-off waits for the wrong phase",
              {{"KT", 2}, {"S", 1}}},
         });
}

// The least window for a tile loop unrolled per inner value: FlashInfer's
// persistent merge-states, broken between items (the item's first barrier
// removed, skipped every fifth item, skipped at one n_sets value), before
// the merge (the barrier after l_smem's write removed), or in its ring
// (prefetched a stage too far).
TEST(Sound35, SlowLeastWindowKeepsItemBugs) {
  using s35::itemSyncOnlyIf;
  attack(s35::kMergeStates, {{"total", 3}, {"n_sets", 9}},
         {
             {{{s35::kItemSync, "            item = lm.block_idx(0) + t * lm.grid_dim(0)\n"}},
              "the item's first barrier removed",
              {{"total", 3}, {"n_sets", 2}}},
             {{itemSyncOnlyIf("t % 5 != 4")}, "the item's first barrier skipped every fifth item", {{"total", 5}, {"n_sets", 2}}},
             {{itemSyncOnlyIf("n_sets != 61 or t == 0")},
              "the item's first barrier skipped at n_sets = 61",
              {{"total", 2}, {"n_sets", 61}}},
             {{{"                lm.copy(l_smem[ty], lse)\n                lm.sync(block)\n",
                "                lm.copy(l_smem[ty], lse)\n"}},
              "the barrier before the merge removed",
              {{"total", 1}, {"n_sets", 2}}},
             {{{"if 4 * (it + 2) + ty < n_sets:\n                        v_smem.cp_async(V, coords=(item, 4 * (it + 2) + ty, 0), "
                "iter=4 * (it + 2) + ty)",
                "if 4 * (it + 3) + ty < n_sets:\n                        v_smem.cp_async(V, coords=(item, 4 * (it + 3) + ty, 0), "
                "iter=4 * (it + 3) + ty)"}},
              "the ring prefetched a stage too far",
              {{"total", 1}, {"n_sets", 13}}},
         });
}

// Register fragments no branch can leave behind (pathFreeRegs): the last
// K iteration's branch leaves `acc`'s product unread (it copies `out`, not
// `acc`, into `tmp`), or runs a second MMA into `acc` that nothing reads and
// that no wait retires. Each is refused or met by the proof.
TEST(Sound35, SlowPathFreeRegsKeepTheirBugs) {
  const std::string last = "                    lm.copy(tmp, acc)\n";
  const std::string scale = "                    lm.binary(out, out, 0.5, op=\"mul\")\n";
  attack(cake::testing::lastStageScale(), {{"M", 192}, {"K", 192}},
         {
             {{{last, "                    lm.copy(tmp, out)\n"}},
              "the last iteration leaves acc's product unread",
              {{"M", 129}, {"K", 1}}},
             {{{scale, scale + "                    lm.mma(acc, smem_a[it], smem_b[it], init=True)\n"}},
              "the last iteration runs a second MMA into acc",
              {{"M", 129}, {"K", 1}}},
         });
}
