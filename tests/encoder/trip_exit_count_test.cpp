// A part after the tile loop that reads the tile count: a producer's tail
// (`lm.wait(k_empty, iter=n_tiles - 1)` after its tile loop, CUTLASS's /
// CuTe DSL's producer_tail(), which waits for the consumer's last release
// before the CTA exits). docs/z3.md "A part after the tile loop that reads
// the tile count" (helper tail46, session 46). Refused before (`the
// schedule reads n_tiles outside its loop bound`); each explored tile count
// now gets its own copy of the exit path. Broken tails, each found by the
// bounded check, are not proved.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attack_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_exit_count_test {

// A persistent kernel: the load warp fills a per-tile K tile (k_full /
// k_empty by tile), the compute warps a ring of A tiles (by ring index
// t * steps + j), and the MMA warp releases the K tile after each tile's
// K loop; the load warp's tail waits for the last release.
const std::string kTail = "        lm.wait(k_empty, iter=n_tiles - 1)\n";
const std::string kProducerTail = R"(@cake.schedule(target="sm_100a")
def producer_tail(lm, K: LM.tma2d, n_tiles: LM.i32, steps: LM.i32):
    lm.assume(steps >= 1)
    pool   = lm.smem(32768)
    smem_k = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, swizzle="128B")
    smem_a = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    acc    = lm.tmem(cols=64, width=64, shape=(128, 64), dtype=lm.f32)
    a_r    = lm.regs(shape=(128, 64), dtype=lm.bf16)
    compute = lm.role(warps=[0, 1, 2, 3])
    mma     = lm.role(warps=[4])
    load    = lm.role(warps=[5])
    k_full  = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    k_empty = lm.barrier(count=1, prod=[mma], cons=[load], init_count=1)
    a_full  = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)
    a_empty = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    with load:
        for t in lm.range(0, n_tiles):
            lm.wait(k_empty, iter=t - 1)
            smem_k.tma_load(K, coords=(0, 64 * t), iter=t, barrier=k_full)
)" + kTail + R"(    with mma:
        for t in lm.range(0, n_tiles):
            lm.wait(k_full, iter=t)
            for j in lm.range(0, steps):
                e = t * steps + j
                lm.wait(a_full, iter=e)
                lm.mma(acc, smem_a[e], smem_k[t], init=True)
                lm.mma_commit(barrier=a_empty, iter=e)
            lm.mma_commit(barrier=k_empty, iter=t)
    with compute:
        for t in lm.range(0, n_tiles):
            for j in lm.range(0, steps):
                e = t * steps + j
                lm.fill(a_r, 0.5)
                lm.wait(a_empty, iter=e - 1)
                lm.copy(smem_a[e], a_r)
                lm.fence_proxy()
                lm.arrive(a_full, iter=e)
)";

// A producer's tail on the ring: the load warp waits for the MMA's last two
// releases of its 2-slot ring after its tile loop (`iter=n_tiles * k_tiles
// - 2` and `- 1`, the ring end E_A * E_B).
const std::string kRingTail1 = "        lm.wait(empty, iter=n_tiles * k_tiles - 1)\n";
const std::string kRingTail2 = "        lm.wait(empty, iter=n_tiles * k_tiles - 2)\n";
const std::string kRingProducerTail = R"(@cake.schedule(target="sm_100a")
def ring_producer_tail(lm, A: LM.tma2d, n_tiles: LM.i32, k_tiles: LM.i32):
    lm.assume(k_tiles >= 1)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    with load:
        for t in lm.range(0, n_tiles):
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 2)
                smem_a.tma_load(A, coords=(0, 64 * k), iter=it, barrier=full)
)" + kRingTail2 + kRingTail1 + R"(    with mma:
        for t in lm.range(0, n_tiles):
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_a[it], init=True)
                lm.mma_commit(barrier=empty, iter=it)
)";

// Each text compiles and is proved for every trip count.
void expectEachProved(const std::vector<std::string>& texts) {
  for (const std::string& text : texts) {
    auto mod = cake::testing::compile(text);
    ASSERT_FALSE(mod.schedules.empty());
    const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  }
}

}  // namespace trip_exit_count_test

namespace tec = trip_exit_count_test;

// Refused before (the tile count read after the tile loop), proved now:
// the tail as written, and spelled with the tile count on the other side.
TEST(TripExitCount, ProducerTailAfterThePersistentLoopIsProved) {
  tec::expectEachProved({tec::kProducerTail, cake::testing::replace(tec::kProducerTail, tec::kTail,
                                                                    "        lm.wait(k_empty, iter=-1 + n_tiles)\n")});
}

// Broken tails: a wait on the wrong phase, one skipped for some tile
// counts, one past the last release; each broken at its witness, found by
// `cake check` and not proved.
TEST(TripExitCount, BrokenProducerTailsAreNotProved) {
  namespace at = cake::testing::attacks;
  const std::string& w = tec::kTail;
  at::attack(tec::kProducerTail, {{"n_tiles", 3}, {"steps", 2}},
             {
                 {{{w, "        lm.wait(k_empty, iter=n_tiles - 2)\n"}},
                  "the tail waits for the second-to-last release (the last commit still in flight at exit)",
                  {{"n_tiles", 1}, {"steps", 1}}},
                 {{{w, "        if n_tiles > 1:\n    " + w}},
                  "the tail is skipped for one tile",
                  {{"n_tiles", 1}, {"steps", 1}}},
                 {{{w, "        if n_tiles % 2 == 0:\n    " + w}},
                  "the tail is skipped for odd tile counts",
                  {{"n_tiles", 1}, {"steps", 1}}},
                 {{{w, "        lm.wait(k_empty, iter=n_tiles)\n"}},
                  "the tail waits for a release that never comes",
                  {{"n_tiles", 1}, {"steps", 1}}},
                 {{{w, "        lm.wait(k_empty, iter=2 * n_tiles - 1)\n"}},
                  "the tail's phase runs ahead by one per tile",
                  {{"n_tiles", 2}, {"steps", 1}}},
                 {{{w, ""}}, "no tail: the last release still in flight at exit", {{"n_tiles", 1}, {"steps", 1}}},
                 {{{w, "        if n_tiles != 20:\n    " + w}},
                  "the tail is skipped for 20 tiles only (past the window)",
                  {{"n_tiles", 20}, {"steps", 1}}},
             });
}

// Refused before (`the schedule reads k_tiles outside the loop bounds`),
// proved now: the ring end read after the tile loop, in both orders.
TEST(TripExitCount, RingProducerTailAfterThePersistentLoopIsProved) {
  tec::expectEachProved({tec::kRingProducerTail,
                         cake::testing::replace(tec::kRingProducerTail, tec::kRingTail1,
                                                "        lm.wait(empty, iter=k_tiles * n_tiles - 1)\n")});
}

// Broken ring tails: a wait on an older phase, one past the last release,
// a phase that runs ahead with the ring end, one short from a far ring end
// on (only the proof that the reads move alike beyond the window stops it),
// none at all; and a tail that reads the tile count besides the ring end,
// or the ring end's expression read before the tile loop too (refused: not
// proved, whatever it does).
TEST(TripExitCount, BrokenRingProducerTailsAreNotProved) {
  namespace at = cake::testing::attacks;
  const std::string &w1 = tec::kRingTail1, &w2 = tec::kRingTail2;
  at::attack(tec::kRingProducerTail, {{"n_tiles", 3}, {"k_tiles", 2}},
             {
                 {{{w2, "        lm.wait(empty, iter=n_tiles * k_tiles - 3)\n"}},
                  "the tail waits for an older phase of the second-to-last slot",
                  {{"n_tiles", 3}, {"k_tiles", 1}}},
                 {{{w1, "        lm.wait(empty, iter=n_tiles * k_tiles)\n"}},
                  "the tail waits for a release that never comes",
                  {{"n_tiles", 0}, {"k_tiles", 1}}},
                 {{{w1, "        lm.wait(empty, iter=n_tiles * k_tiles + n_tiles * k_tiles - 1)\n"}},
                  "the tail's phase runs ahead by one per ring index",
                  {{"n_tiles", 1}, {"k_tiles", 1}}},
                 {{{w1, "        lm.wait(empty, iter=n_tiles * k_tiles - 1 - (n_tiles * k_tiles) // 40)\n"}},
                  "the tail's last wait one phase short from ring end 40 on (past the window and the bounded check)",
                  {{"n_tiles", 40}, {"k_tiles", 1}},
                  false},
                 {{{w1, ""}, {w2, ""}}, "no tail", {{"n_tiles", 1}, {"k_tiles", 1}}},
             });
  // (and the ring end read before the tile loop too, one expression: the
  // builder would read it as the ring end there; refused)
  const std::string both = "        lm.wait(empty, iter=n_tiles * k_tiles - 1 + n_tiles - n_tiles)\n";
  const std::string before = cake::testing::replace(
      cake::testing::replace(tec::kRingProducerTail, "    with load:\n",
                             "    last = n_tiles * k_tiles - 1\n    with load:\n        lm.wait(empty, iter=last - last - 1)\n"),
      w1, "        lm.wait(empty, iter=last)\n");
  for (const std::string& text : {cake::testing::replace(tec::kRingProducerTail, w1, both), before}) {
    auto mod = cake::testing::compile(text);
    ASSERT_FALSE(mod.schedules.empty());
    const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.detail;
  }
}
