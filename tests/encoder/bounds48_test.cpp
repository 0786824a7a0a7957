// Loops in sequence of independent bounds (helper bounds48, session 48,
// issue 11; docs/z3.md "Loops in sequence of independent bounds: the first
// reduced at a cut"). PyTorch's XPU radix select runs its radix passes
// (`n_passes`, each ending on a block barrier) and then findPattern's
// search (`hit + 1` chunks): two symbolic loops one after the other whose
// bounds are independent. The proof read one trip expression and said
// *unknown* ("the symbolic loops have different bounds (n_passes and hit +
// 1)") unless a fact bounded one of them (the corpus file assumes
// `n_passes <= 16`). The form without that fact is now proved: the passes
// of every process run as h of them (a cut after each pass), so the
// schedule is the one with h passes, one symbolic loop. Its broken twins
// (a barrier skipped at one pass or one chunk only, a pass count that may
// be 0 with the flag zeroed only in the passes, the cut's barrier dropped,
// a pass skip tied to the other loop's bound) are found by `cake check`
// and never proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "find_pattern_form.h"

namespace bounds48_test {

using cake::testing::attacks::Attack;

const std::string kFindPattern = cake::testing::forms::kFindPatternTwoLoops;

// The lines the attacks edit.
const std::string kPassEnd = "            lm.copy(part, cnt[0][:, 0:4])\n            lm.sync(wgroup)\n";
const std::string kChunkEnd = "            lm.copy(fv, flag[0])\n            lm.sync(wgroup)\n";
const std::string kCut = "            lm.copy(flag[0], fz)\n        lm.sync(wgroup)\n";

TEST(Bounds48, LoopsInSequenceOfIndependentBoundsAreProved) {
  cake::testing::attacks::expectCheckedAndProved(kFindPattern, "find pattern, n_passes unbounded");
  auto mod = cake::testing::compile(kFindPattern);
  ASSERT_FALSE(mod.schedules.empty());
  const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
  EXPECT_NE(r.engine.find("then over hit + 1, in sequence"), std::string::npos) << r.engine;
}

// A pass count that may be 0 (the flag zeroed between the loops, as the
// fix does): the bindings with no pass are the schedule without its first
// loop, proved as a case of their own.
TEST(Bounds48, NoPassCaseIsProvedOnItsOwn) {
  const std::string text =
      cake::testing::replace(kFindPattern, "    lm.assume(n_passes >= 1)\n", "    lm.assume(n_passes >= 0)\n");
  cake::testing::attacks::expectCheckedAndProved(text, "find pattern, n_passes >= 0");
  auto mod = cake::testing::compile(text);
  ASSERT_FALSE(mod.schedules.empty());
  const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
  EXPECT_NE(r.engine.find("for n_passes <= 0, the first loop run no iteration"), std::string::npos) << r.engine;
}

// Each broken form is broken at its witness, not proved, found by cake check.
TEST(Bounds48, BrokenLoopsInSequenceAreNotProved) {
  const std::vector<Attack> attacks = {
      {{{kPassEnd, "            lm.copy(part, cnt[0][:, 0:4])\n"}},
       "the passes' last barrier dropped (the next clear races the totals' reads)",
       {{"n_passes", 2}, {"hit", 0}}},
      {{{kPassEnd, "            lm.copy(part, cnt[0][:, 0:4])\n            if d != 2:\n                lm.sync(wgroup)\n"}},
       "the passes' last barrier skipped at pass 2 only",
       {{"n_passes", 4}, {"hit", 0}}},
      {{{kPassEnd,
         "            lm.copy(part, cnt[0][:, 0:4])\n            if d + 1 != hit:\n                lm.sync(wgroup)\n"}},
       "the passes' last barrier skipped at the pass before the match chunk (the other loop's bound)",
       {{"n_passes", 3}, {"hit", 1}}},
      {{{kChunkEnd, "            lm.copy(fv, flag[0])\n"}},
       "the chunks' last barrier dropped (the match's write races the flag's reads)",
       {{"n_passes", 1}, {"hit", 1}}},
      {{{kChunkEnd, "            lm.copy(fv, flag[0])\n            if i != 3:\n                lm.sync(wgroup)\n"}},
       "the chunks' last barrier skipped at chunk 3 only",
       {{"n_passes", 1}, {"hit", 4}}},
      {{{kCut, "            lm.copy(flag[0], fz)\n"}},
       "the barrier between the loops dropped (the zeroing races the match at chunk 0)",
       {{"n_passes", 1}, {"hit", 0}}},
      {{{"    lm.assume(n_passes >= 1)\n", "    lm.assume(n_passes >= 0)\n"},
        {kPassEnd, kPassEnd + "            if w == 0:\n                lm.fill(fz, 0.0)\n                lm.copy(flag[0], fz)\n"},
        {"        if w == 0:\n            lm.fill(fz, 0.0)\n            lm.copy(flag[0], fz)\n        lm.sync(wgroup)\n",
         "        lm.sync(wgroup)\n"}},
       "the flag zeroed in the passes only, and no pass at n_passes = 0 (the flag read before any write)",
       {{"n_passes", 0}, {"hit", 1}}},
      {{{"    lm.assume(n_passes >= 1)\n", "    lm.assume(n_passes >= 0)\n"},
        {kChunkEnd, kChunkEnd + "            lm.copy(part, cnt[1][:, 0:4])\n"}},
       "the chunks read a count only the passes write, and no pass at n_passes = 0",
       {{"n_passes", 0}, {"hit", 0}}},
  };
  cake::testing::attacks::attack(kFindPattern, {{"n_passes", 3}, {"hit", 2}}, attacks);
}

}  // namespace bounds48_test
