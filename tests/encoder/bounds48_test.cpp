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

namespace bounds48_test {

using cake::testing::attacks::Attack;

// corpus/bugs/data.stale-read/pytorch_xpu_find_pattern_flag_left_from_counts_fixed.cake
// without `lm.assume(n_passes <= 16)`, its register and slot counts cut down.
const std::string kFindPattern = R"(
@cake.schedule(target="sm_80")
def find_pattern_unbounded_passes(lm, Data: LM.gmem, Out: LM.gmem, n_passes: LM.i32, hit: LM.i32):
    lm.assume(n_passes >= 1)
    lm.assume(hit >= 0)
    pool   = lm.smem(256)
    cnt    = pool.view(offset=0, shape=(1, 8), dtype=lm.i32, stages=4)
    flag   = pool.view(offset=0, shape=(1, 2), dtype=lm.f32)
    zero   = lm.regs(shape=(1, 4), dtype=lm.i32)
    mine   = lm.regs(shape=(1, 4), dtype=lm.i32)
    part   = lm.regs(shape=(1, 4), dtype=lm.i32)
    fz     = lm.regs(shape=(1, 2), dtype=lm.f32)
    fv     = lm.regs(shape=(1, 2), dtype=lm.f32)
    sgs    = lm.role(warps=[0, 1, 2, 3], group=1)
    wgroup = lm.named_barrier(roles=[sgs])
    with sgs:
        w = lm.instance()
        lm.fill(zero, 0)
        for d in lm.range(0, n_passes):
            if w == 0:
                for s in lm.range(0, 4):
                    lm.copy(cnt[s][:, 0:4], zero)
            lm.sync(wgroup)
            lm.copy(mine, Data, coords=(d, 4 * w))
            lm.copy(cnt[w][:, 0:4], mine)
            lm.sync(wgroup)
            lm.copy(part, cnt[0][:, 0:4])
            lm.sync(wgroup)
        if w == 0:
            lm.fill(fz, 0.0)
            lm.copy(flag[0], fz)
        lm.sync(wgroup)
        for i in lm.range(0, hit + 1):
            if i == hit and w == 1:
                lm.copy(fv, Data, coords=(n_passes, 0))
                lm.copy(flag[0], fv)
            lm.sync(wgroup)
            lm.copy(fv, flag[0])
            lm.sync(wgroup)
        lm.copy(Out, fv, coords=(0, 2 * w))
)";

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
