// FlashAttention-4's persistent forward with a correction warpgroup
// (corpus/attention/sm100_fa4_persistent_correction_tmem.cake): the proof
// for every trip count does not cover it yet (docs/z3.md "FA4's correction
// warpgroup: what stops the proof", helper fa4, session 34). These tests pin
// what any later extension of the persistent proof must keep: the file is
// clean on the bounded check, and its broken forms with the bug kinds this
// shape invites (the two-slot Q ring released on the wrong tiles, the
// correction reading O before the tile's last PV MMA committed, a wrong
// phase in the tile's last K iteration) are each found by the bounded check
// and never proved. Each fails if such a form gets proved.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "attack_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_fa4_test {

std::string fa4Correction() {
  return cake::testing::corpusText("corpus/attention/sm100_fa4_persistent_correction_tmem.cake");
}

// Small shapes: one to four key blocks, one to four tiles (the bugs below
// show at one to three tiles).
const std::vector<cake::testing::GridAxis> kFa4Grid = {{"seqlen_k", {1, 129, 257, 385}}, {"T", {1, 2, 3, 4}}};

struct Fa4Bug {
  std::vector<std::pair<std::string, std::string>> edits;  // from -> to, each applied once
  const char* what;
  // The proof of this form is left to the long form (label `slow`): it
  // spends 17 to 24 CPU s exploring before it meets the violation, and the
  // same edit of the distilled FA4 kernel (persistent_kernels.h
  // kTileEndKernel: a loader, an MMA warp, an epilogue that waits for the
  // tile's last block) is proved-against in CI by TripFa12 and
  // TripLastCommits in about a second (docs/ci.md, session 53 citests53).
  bool proof_in_long_form_only = false;
};

const std::string kQRelease = "            if t + 2 < T:\n                lm.mma_commit(barrier=q_empty, iter=t)\n";
const std::string kCorrTileEnd = "lm.wait(o_done, iter=t * n_blocks + n_blocks - 1)";

const std::vector<Fa4Bug> kFa4Bugs = {
    {{{"if t + 2 < T:", "if t + 3 < T:"}},
     "the Q slot released by one tile fewer (the loader waits for tile T - 3's release: a hang)",
     /*proof_in_long_form_only=*/true},  // TripFa12 and TripLastCommits: `t + 3 < T`
    {{{kQRelease, ""},
      {"            lm.wait(q_full, iter=t)\n            lm.wait(k_full, iter=g0)\n",
       "            lm.wait(q_full, iter=t)\n" + kQRelease + "            lm.wait(k_full, iter=g0)\n"}},
     "the Q slot released before the tile's K loop (the load of tile t + 2 overwrites Q under its S MMAs)"},
    {{{kQRelease, "            lm.mma_commit(barrier=q_empty, iter=t)\n"}},
     "the Q slot released by the last tiles too (a commit still in flight when every role exits)"},
    {{{kCorrTileEnd, "lm.wait(o_done, iter=t * n_blocks + n_blocks - 2)"}},
     "the correction reading O before the tile's last PV MMA committed"},
    {{{kCorrTileEnd, "lm.wait(o_done, iter=t * n_blocks + n_blocks + 1)"}},
     "the correction waiting for a phase of o_done two past the tile's last",
     /*proof_in_long_form_only=*/true},  // TripFa12: the tile's end waits past its ring end
    {{{"                lm.wait(v_full, iter=g)\n",
       "                if j + 1 < n_blocks:\n                    lm.wait(v_full, iter=g)\n"
       "                else:\n                    lm.wait(v_full, iter=g - 2)\n"}},
     "the MMA's last K iteration of a tile waiting for V's phase one lap early"},
};

}  // namespace trip_fa4_test

namespace tfa4 = trip_fa4_test;

TEST(TripFa4, CorrectionKernelIsCleanOnTheBoundedCheck) {
  const std::string text = tfa4::fa4Correction();
  const ir::Schedule s = cake::testing::compile(text).schedules.at(0);
  EXPECT_FALSE(cake::testing::brokenOnGrid(s, tfa4::kFa4Grid));
}

namespace trip_fa4_test {

// Each broken form is broken on the small grid, found by `cake check` and
// not said proved by it, and not proved by the proof for every trip count
// (under `cake check`'s default budget). The short form leaves out the
// proof of the forms marked proof_in_long_form_only (about 41 of the six
// proofs' 66 CPU s, measured at load 6); the long form proves every form.
void brokenCorrectionKernelsAreFoundAndNotProved(bool all) {
  namespace at = cake::testing::attacks;
  for (const Fa4Bug& bug : kFa4Bugs) {
    std::string text = fa4Correction();
    for (const auto& [from, to] : bug.edits) text = cake::testing::replace(text, from, to);
    auto mod = cake::testing::compile(text);
    ASSERT_FALSE(mod.schedules.empty()) << bug.what;
    const ir::Schedule& s = mod.schedules.at(0);
    EXPECT_TRUE(cake::testing::brokenOnGrid(s, kFa4Grid)) << bug.what << ": not broken on the grid";
    if (all || !bug.proof_in_long_form_only) {
      const auto r = at::proveDefault(s);
      EXPECT_NE(r.outcome, encoder::Outcome::Proved) << bug.what << ": UNSOUND, proved: " << r.engine;
    }
    const auto answer = at::modelCheck(s);
    EXPECT_FALSE(answer.proved) << bug.what << ": cake check says proved: " << answer.detail;
    EXPECT_FALSE(answer.rules.empty()) << bug.what << ": cake check finds nothing";
  }
}

}  // namespace trip_fa4_test

TEST(TripFa4, BrokenCorrectionKernelsAreFoundAndNotProved) { tfa4::brokenCorrectionKernelsAreFoundAndNotProved(false); }
TEST(TripFa4, SlowBrokenCorrectionKernelsAreFoundAndNotProved) { tfa4::brokenCorrectionKernelsAreFoundAndNotProved(true); }
