// A K loop whose first iteration is peeled off with operations of its own
// (helper tlx47, session 47; docs/z3.md "A peeled first iteration with
// operations of its own"): TLX's persistent GEMM runs, per tile, `wait(full);
// wait(tmem_empty); mma(init=True); commit(empty)` and then `for kk in
// lm.range(1, k_tiles): wait(full); mma(init=False); commit(empty)`. The
// prologue is the body's first iteration with a wait of its own and another
// init=, so it is read as `for kk in lm.range(0, k_tiles)` with the wait
// under `if kk == 0:` and `init=(kk == 0)` (encoder/trip_proof.cpp
// unpeelFirstIterations, alignPeel, PeelMatch::merged), and the persistent
// proof counts the wait of the first iteration only once per tile
// (alignCountersToTheRing's first_only, checkFirstCopiesKeepCounters).
// Broken twins (a wrong phase in the peel, a wait left out, an extra
// arrival) are found by `cake check` and not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "skipped_tiles_kernels.h"

using namespace cake;
// (declarations, not directives: a unity build puts later test files in this
// one's scope)
using cake::testing::replace;
using cake::testing::attacks::expectCheckedAndProved;
using cake::testing::attacks::expectFoundNotProved;

namespace peeled_first47_test {

// A tile's body for each role, each line indented by `pad`: `count` K
// steps, tile `t` (its K tiles from `k0`); the MMA's first K step peeled
// with its own wait for the TMEM buffer and init=True.
std::string producerTile(const std::string& pad, const std::string& count, const std::string& k0) {
  return pad + "for kk in lm.range(0, " + count + "):\n" + pad + "    lm.wait(empty, stage=0)\n" + pad +
         "    smem_a.tma_load(A, coords=(t * 128, (" + k0 + " + kk) * 64), stage=0, barrier=full)\n" + pad +
         "    smem_b.tma_load(B, coords=(0, (" + k0 + " + kk) * 64), stage=0, barrier=full)\n";
}
std::string mmaTile(const std::string& pad, const std::string& count) {
  return pad + "lm.wait(full, stage=0)\n" + pad + "lm.wait(tmem_empty, stage=0)\n" + pad +
         "lm.mma(acc, smem_a[0], smem_b[0], init=True)\n" + pad + "lm.mma_commit(barrier=empty, stage=0)\n" + pad +
         "for kk in lm.range(1, " + count + "):\n" + pad + "    lm.wait(full, stage=0)\n" + pad +
         "    lm.mma(acc, smem_a[0], smem_b[0], init=False)\n" + pad + "    lm.mma_commit(barrier=empty, stage=0)\n" +
         pad + "lm.mma_commit(barrier=tmem_full, stage=0)\n";
}
std::string epiTile(const std::string& pad) {
  return pad + "lm.wait(tmem_full, stage=0)\n" + pad + "lm.tmem_load(res, acc)\n" + pad + "lm.tmem_load_wait()\n" +
         pad + "lm.arrive(tmem_empty, stage=0)\n" + pad + "lm.copy(W, res, coords=(t * 128, 0))\n";
}

// The three roles over `tiles` tiles (`for t in lm.range(0, tiles):`),
// each tile under `guard` where one is given, of `count` K steps from k0.
std::string roles(const std::string& tiles, const std::string& guard, const std::string& count, const std::string& k0) {
  const std::string loop = "        for t in lm.range(0, " + tiles + "):\n" +
                           (guard.empty() ? "" : "            if " + guard + ":\n");
  const std::string pad(guard.empty() ? 12 : 16, ' ');
  return "    with producer:\n" + loop + producerTile(pad, count, k0) + "    with mma:\n        lm.arrive(empty, stage=0)\n" +
         loop + mmaTile(pad, count) + "    with epi:\n        lm.arrive(tmem_empty, stage=0)\n" + loop + epiTile(pad);
}

// T tiles of lm.cdiv(K, 64) K steps each.
const std::string kPeeled = R"(@cake.schedule(target="sm_100a")
def peeled_first_k_step(lm, A: LM.tma2d, B: LM.tma2d, W: LM.gmem, T: LM.i32, K: LM.i32):
    lm.assume(T >= 0)
    lm.assume(K > 0))" + skipped_tiles_kernels::kHead + roles("T", "", "k_tiles", "0");

// S split-K tiles of kp K steps, those past the K tiles empty and skipped in
// every role (TLX's PR #1141 fix, corpus
// fbtriton_tlx_splitk_empty_split_peeled_mma_wait_fixed.cake): the peel
// under the guard, read as the loop's own in the copy whose kept tiles have
// their own K counts (proveSkippedTiles).
const std::string kSplitK = R"(@cake.schedule(target="sm_100a")
def peeled_split_k(lm, A: LM.tma2d, B: LM.tma2d, W: LM.gmem, K: LM.i32, S: LM.i32):
    lm.assume(K > 0)
    lm.assume(S >= 1))" + skipped_tiles_kernels::kHead + "    kp = lm.cdiv(k_tiles, S)\n" +
                            roles("S", "min(t * kp + kp, k_tiles) > t * kp", "min(t * kp + kp, k_tiles) - t * kp", "t * kp");

const std::string kFullWait = "            lm.wait(full, stage=0)\n            lm.wait(tmem_empty";
const std::string kBufferWait = "            lm.wait(tmem_empty, stage=0)\n";
const std::string kPeelCommit = "init=True)\n            lm.mma_commit(barrier=empty, stage=0)\n";
// (the split form's, under the guard)
const std::string kSplitBufferWait = "                lm.wait(tmem_empty, stage=0)\n";
const std::string kSplitPeelCommit = "init=True)\n                lm.mma_commit(barrier=empty, stage=0)\n";

// The ring's waits with their phases written out (phase= the K step's
// number): the peel's is the body's at kk = 0.
const std::string kPhases =
    replace(replace(kPeeled, kFullWait, "            lm.wait(full, stage=0, phase=t * k_tiles)\n            lm.wait(tmem_empty"),
            "                lm.wait(full, stage=0)\n", "                lm.wait(full, stage=0, phase=t * k_tiles + kk)\n");

// `cake check` says proved, with the peel read as the loop's own, and
// finds nothing (one proof: the test stays under a second).
void expectProvedAsTheLoop(const std::string& text, const char* what) {
  auto mod = cake::testing::compile(text);
  ASSERT_FALSE(mod.schedules.empty()) << what;
  const auto answer = cake::testing::attacks::modelCheck(mod.schedules.at(0));
  EXPECT_TRUE(answer.proved) << what << ": " << answer.detail;
  EXPECT_NE(answer.detail.find("a K loop's first iteration peeled"), std::string::npos) << what << ": " << answer.detail;
  EXPECT_TRUE(answer.rules.empty()) << what << ": " << cake::testing::attacks::join(answer.rules);
}

}  // namespace peeled_first47_test

namespace pf47 = peeled_first47_test;

// Proved (main: *checked*, "no steady period within 128 tiles of 24 K
// iterations": main took only the peel's last statement as the loop's, and
// left the rest before the K loop).
TEST(PeeledFirst47, APeelWithAWaitOfItsOwnIsProved) {
  pf47::expectProvedAsTheLoop(pf47::kPeeled, "the MMA's first K step peeled with its own wait");
}

// Proved (main: *checked*, "no steady period", as above).
TEST(PeeledFirst47, APeelWithItsPhasesWrittenOutIsProved) {
  pf47::expectProvedAsTheLoop(pf47::kPhases, "the ring's phases written out");
}

// Proved (main: *unknown*, the proof's budget spent asking the bit-vector
// solver whether the split's K count is at least 1, before the skipped
// tiles were tried).
TEST(PeeledFirst47, APeelUnderASplitGuardIsProved) {
  pf47::expectProvedAsTheLoop(pf47::kSplitK, "the peel under TLX's split guard");
}

// Found, not proved: the peel waits for the buffer at a phase of its own
// (phase 0: from the second tile on it passes before the epilogue released
// the buffer; phase 1: nobody completes it).
TEST(PeeledFirst47, APeelWaitingForAWrongBufferPhaseIsFoundAndNotProved) {
  const std::string& s = pf47::kPeeled;
  expectFoundNotProved(replace(s, pf47::kBufferWait, "            lm.wait(tmem_empty, stage=0, phase=0)\n"),
                       "sync.race", "the peel's buffer wait at phase 0");
  expectFoundNotProved(replace(s, pf47::kBufferWait, "            lm.wait(tmem_empty, stage=0, phase=1)\n"),
                       "sync.deadlock", "the peel's buffer wait at phase 1");
}

// Found, not proved: the peel's ring wait one phase late (its phase= and
// the body's differ by more than kk: merged, the proof refuses the copy).
TEST(PeeledFirst47, APeelWaitingForAWrongRingPhaseIsFoundAndNotProved) {
  expectFoundNotProved(replace(pf47::kPhases, "phase=t * k_tiles)", "phase=t * k_tiles + 1)"), "sync.deadlock",
                       "the peel's ring wait one phase late");
}

// Found, not proved: the peel without its buffer wait, without its ring
// wait, or with the buffer wait after its MMA.
TEST(PeeledFirst47, APeelMissingAWaitIsFoundAndNotProved) {
  const std::string& s = pf47::kPeeled;
  expectFoundNotProved(replace(s, pf47::kBufferWait, ""), "sync.race", "the peel without its buffer wait");
  expectFoundNotProved(replace(s, pf47::kFullWait, "            lm.wait(tmem_empty"), "data.stale-read",
                       "the peel without its ring wait");
  expectFoundNotProved(replace(replace(s, pf47::kBufferWait, ""), "init=True)\n",
                               "init=True)\n            lm.wait(tmem_empty, stage=0)\n"),
                       "sync.race", "the peel's buffer wait after its MMA");
}

// Found, not proved: the peel releases the ring twice, or releases the
// buffer itself.
TEST(PeeledFirst47, APeelWithAnExtraArrivalIsFoundAndNotProved) {
  const std::string& s = pf47::kPeeled;
  expectFoundNotProved(replace(s, pf47::kPeelCommit, pf47::kPeelCommit + "            lm.mma_commit(barrier=empty, stage=0)\n"),
                       "sync.arrival-overflow", "the peel releases the ring twice");
  expectFoundNotProved(replace(s, pf47::kBufferWait, pf47::kBufferWait + "            lm.arrive(tmem_empty, stage=0)\n"),
                       "sync.race", "the peel releases the buffer itself");
}

// The same under the split guard (the skipped tiles' copy): the peel
// without its buffer wait, or releasing the ring twice.
TEST(PeeledFirst47, ABrokenPeelUnderASplitGuardIsFoundAndNotProved) {
  const std::string& s = pf47::kSplitK;
  expectFoundNotProved(replace(s, pf47::kSplitBufferWait, ""), "sync.race", "the split peel without its buffer wait");
  expectFoundNotProved(
      replace(s, pf47::kSplitPeelCommit, pf47::kSplitPeelCommit + "                lm.mma_commit(barrier=empty, stage=0)\n"),
      "sync.arrival-overflow", "the split peel releases the ring twice");
}
