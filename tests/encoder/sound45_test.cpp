// Helper sound45's attack on session 44's new front-end and proof paths
// (bench/attacks/sound45_mutants.py; docs/known-limits.md "Attacks on
// session 44's paths"): a grid-strided loop's trip number read back
// (`(tile - lo) // step`, ir/resolver.cpp tripOfSteppedVar, countLoopFromZero),
// ring ops spelled `stage=E % S, phase=E // S + c` read as `iter=` and the
// guard that only skips negative iterations dropped (waitsByIteration), the
// loop fold of global coordinates (loop_coords.h), the hand-over in barrier
// order (barrier_order.h) and sound44's block coordinates. No broken
// schedule exited 0; these pin the verdicts of the forms that aim at the
// front end's rewrites, which every engine reads (the bounded check too), on
// one small grid-strided ring that is proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "test_util.h"
#include "turn_taking_kernels.h"

using namespace cake;

namespace sound45_test {

// A producer warp fills a two-slot ring and a consumer warpgroup drains it,
// both over the CTA's tiles of a grid-strided loop, the trip number read
// back from the tile (`t`), every ring op spelled by stage and phase, the
// producer's first lap skipped by `if it >= 2:` (read as `iter=it - 2`).
const std::string kGridStridedStageRing = R"(@cake.schedule(target="sm_90a")
def gs(lm, A: LM.tma2d, T: LM.i32, K: LM.i32):
    lm.assume(T > 0)
    lm.assume(K > 0)
    pool   = lm.smem(16384)
    smem_a = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    r      = lm.regs(shape=(64, 64), dtype=lm.bf16)
    producer = lm.role(warps=[0])
    consumer = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=2, prod=[producer], cons=[consumer], init_count=1)
    empty = lm.barrier(count=2, prod=[consumer], cons=[producer], init_count=1)
    with producer:
        for tile in lm.range(lm.block_idx(0), T, lm.grid_dim(0)):
            t = (tile - lm.block_idx(0)) // lm.grid_dim(0)
            for k in lm.range(0, K):
                it = t * K + k
                if it >= 2:
                    lm.wait(empty, stage=it % 2, phase=it // 2 - 1)
                smem_a.tma_load(A, coords=(tile * 64, k * 64), stage=it % 2, barrier=full)
    with consumer:
        for tile in lm.range(lm.block_idx(0), T, lm.grid_dim(0)):
            t = (tile - lm.block_idx(0)) // lm.grid_dim(0)
            for k in lm.range(0, K):
                it = t * K + k
                lm.wait(full, stage=it % 2, phase=it // 2)
                lm.copy(r, smem_a[it % 2])
                lm.fence_proxy()
                lm.arrive(empty, stage=it % 2, phase=it // 2)
)";

const std::string kProducerTrip = "            t = (tile - lm.block_idx(0)) // lm.grid_dim(0)\n";
const std::string kProducerWait = "                if it >= 2:\n                    lm.wait(empty, stage=it % 2, phase=it // 2 - 1)\n";
const std::string kConsumerWait = "                lm.wait(full, stage=it % 2, phase=it // 2)\n";
const std::string kConsumerRelease = "                lm.arrive(empty, stage=it % 2, phase=it // 2)\n";
const std::string kConsumerLoop = "    with consumer:\n        for tile in lm.range(lm.block_idx(0), T, lm.grid_dim(0)):\n";

}  // namespace sound45_test

namespace s45 = sound45_test;

// The trip number read back wrongly in one role: only the exact `(tile -
// lo) // step` of the loop is its trip variable; any other spelling keeps
// its value (off by one, or by a factor), and the ring the two roles share
// comes apart. Each found by `cake check` and not proved.
TEST(Sound45, ATripNumberReadBackWronglyIsFoundNotProved) {
  namespace at = cake::testing::attacks;
  const std::vector<std::pair<std::string, int64_t>> witness = {{"T", 3}, {"K", 2}};
  at::attack(s45::kGridStridedStageRing, {{"T", 3}, {"K", 2}},
             {
                 {{{s45::kProducerTrip, "            t = (tile - (lm.block_idx(0) + 1)) // lm.grid_dim(0)\n"}},
                  "the producer's trip read back from the block index plus one",
                  witness},
                 {{{s45::kProducerTrip, "            t = (tile - lm.block_idx(0)) // (2 * lm.grid_dim(0))\n"}},
                  "the producer's trip read back by twice the grid",
                  witness},
                 {{{s45::kProducerTrip, "            b1 = lm.block_idx(0) + 1\n            t = (tile - b1) // lm.grid_dim(0)\n"}},
                  "the producer's start renamed, plus one, before the read-back",
                  witness},
                 {{{s45::kConsumerLoop, "    with consumer:\n        for tile in lm.range(lm.block_idx(0) + lm.grid_dim(0), T, "
                                        "lm.grid_dim(0)):\n"}},
                  "the consumer's tile loop starts one grid later",
                  witness},
             });
}

// Ring ops spelled by stage and phase whose phase is off by a lap, whose
// modulus is not the barrier's slot count, or whose E is not the ring's
// iteration, and guards that skip more than the negative iterations: the
// respelling (or its refusal) keeps the bug. Each found, not proved.
TEST(Sound45, RespelledRingOpsKeepTheirBugs) {
  namespace at = cake::testing::attacks;
  const std::vector<std::pair<std::string, int64_t>> witness = {{"T", 3}, {"K", 2}};
  at::attack(s45::kGridStridedStageRing, {{"T", 3}, {"K", 2}},
             {
                 {{{s45::kProducerWait, "                if it >= 4:\n                    lm.wait(empty, stage=it % 2, "
                                        "phase=it // 2 - 2)\n"}},
                  "the producer waits two laps back, its guard dropped (iter=it - 4)",
                  witness},
                 {{{s45::kConsumerWait, "                lm.wait(full, stage=it % 2, phase=it // 2 - 1)\n"}},
                  "the consumer waits a lap early (c = -1)",
                  witness},
                 {{{s45::kConsumerWait, "                lm.wait(full, stage=it % 4 % 2, phase=it // 4)\n"}},
                  "the consumer's phase by a modulus of 4 on a two-slot barrier",
                  witness},
                 {{{s45::kConsumerRelease, "                lm.arrive(empty, stage=(it + 1) % 2, phase=(it + 1) // 2)\n"}},
                  "the release one iteration ahead (E = it + 1)",
                  witness},
                 {{{s45::kProducerWait, "                if it > 2:\n                    lm.wait(empty, stage=it % 2, phase=it // 2 - 1)\n"}},
                  "a guard that skips iteration 2 too (kept, not dropped)",
                  witness},
             });
}

// The correct twins the respelling reads as the base: a release spelled
// with E = it + 2 and c = -1 (iter=it), and the guard written `not it < 2`.
TEST(Sound45, RespelledTwinsAreProved) {
  using cake::testing::replace;
  cake::testing::attacks::expectCheckedAndProved(
      replace(s45::kGridStridedStageRing, s45::kConsumerRelease,
              "                lm.arrive(empty, stage=(it + 2) % 2, phase=(it + 2) // 2 - 1)\n"),
      "the release spelled with E = it + 2, c = -1");
  cake::testing::attacks::expectCheckedAndProved(
      replace(s45::kGridStridedStageRing, "                if it >= 2:\n", "                if not it < 2:\n"),
      "the first-lap guard written not it < 2");
}

// A limit, not a hole (docs/known-limits.md "Attacks on session 44's
// paths"): a partner that skips its write of one round, where the reader
// wrote the word itself before, leaves the reader its own data, which a
// read-back means (the model has no values to tell a lost update). The
// same skip where the partner's own second read finds the write its first
// found is reported (turn_taking_test.cpp, Sound45 bench's bad_st_skip_r1).
TEST(Sound45, APartnersSkippedWriteMaskedByTheReadersOwnIsNotReported) {
  using cake::testing::replace;
  const std::string running_max = replace(cake::testing::kRunningMax,
                                          "            lm.copy(ss[0][0:1, 0:1], y)\n            lm.bar_arrive(to0)\n",
                                          "            if j != 2:\n                lm.copy(ss[0][0:1, 0:1], y)\n"
                                          "            lm.bar_arrive(to0)\n");
  const std::string turns = replace(cake::testing::kMbarrierTurns,
                                    "            lm.copy(ss[0][0:1, 0:1], y)\n            lm.copy(x",
                                    "            if r != 1:\n                lm.copy(ss[0][0:1, 0:1], y)\n            lm.copy(x");
  for (const std::string* text : {&running_max, &turns}) {
    auto mod = cake::testing::compile(*text);
    ASSERT_FALSE(mod.schedules.empty());
    const auto answer = cake::testing::attacks::modelCheck(mod.schedules.at(0));
    EXPECT_TRUE(answer.rules.empty()) << "now found (" << cake::testing::attacks::join(answer.rules)
                                      << "): update docs/known-limits.md";
  }
}
