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
