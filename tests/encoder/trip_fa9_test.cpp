// The tile count's reading carried across windows (docs/z3.md "Cheaper
// refusals of the last tiles' grids", helper fa9, session 40). A read of
// the tile count to depth 2 (`if t + 2 < tiles:`) builds the grid of tiles
// that are none of the last twice per window (E_A read as t + 2, then as
// t + 3 once the depth is known); a window that settled it now hands t + 3
// to the next. An eight-slot Q ring has a tile period of 8 and grows the
// window twice (16, 32, then 64 tiles), so the proof below runs through the
// carried reading; its broken forms, each found by `cake check`, are not
// proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_fa9_test {

const std::string kEightSlotQRing = R"CAKE(
@cake.schedule(target="sm_90a")
def q_ring_release(lm, Q: LM.tma2d, A: LM.tma2d, M: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(K > 0)
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)
    pool   = lm.smem(81920)
    smem_q = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=8, swizzle="128B")
    smem_a = pool.view(offset=65536, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    producer = lm.role(warps=[0, 1, 2, 3])
    consumer = lm.role(warps=[4, 5, 6, 7])
    pipe    = lm.pipeline(stages=2)
    qpipe   = lm.pipeline(stages=8)
    q_full  = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=qpipe)
    full    = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=pipe)
    empty   = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=pipe)
    q_empty = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=qpipe)
    k_tiles = lm.cdiv(K, 64)
    tiles   = lm.cdiv(M, 64)
    with producer:
        for t in lm.range(0, tiles):
            lm.wait(q_empty, iter=t - 8)
            smem_q.tma_load(Q, coords=(t * 64, 0), iter=t, barrier=q_full)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 2)
                smem_a.tma_load(A, coords=(0, k * 64), iter=it, barrier=full)
    with consumer:
        for t in lm.range(0, tiles):
            lm.wait(q_full, iter=t)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_q[t], smem_a[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            if t + 2 < tiles:
                lm.arrive(q_empty, iter=t)
)CAKE";

const std::string kRelease = "            if t + 2 < tiles:\n                lm.arrive(q_empty, iter=t)\n";

}  // namespace trip_fa9_test

namespace tfa9 = trip_fa9_test;

// Proved on main too (the grid built twice per window); here with the
// reading carried (fewer solver queries, one grid fewer per window after
// the first). Each broken form is found by `cake check` and not proved.
TEST(TripFa9, DepthTwoReadAcrossWindowsIsProvedAndItsBrokenFormsAreNot) {
  namespace at = cake::testing::attacks;
  const std::string& rel = tfa9::kRelease;
  at::attack(tfa9::kEightSlotQRing, {{"M", 9 * 64}, {"K", 128}},
             {
                 {{{rel, rel + "            elif t + 2 == tiles:\n                lm.wait(q_full, iter=t + 2)\n"}},
                  "the second-to-last tile waits for a Q tile that never comes",
                  {{"M", 2 * 64}, {"K", 64}}},
                 {{{rel, rel + "            elif t + 1 == tiles:\n                lm.wait(q_full, iter=t + 1)\n"}},
                  "the last tile waits for a Q tile that never comes",
                  {{"M", 64}, {"K", 64}}},
                 {{{"t + 2 < tiles", "t + 2 > tiles"}},
                  "only the last two tiles release their Q slot (the loader of tile 8 hangs)",
                  {{"M", 9 * 64}, {"K", 64}}},
                 {{{"lm.wait(q_empty, iter=t - 8)", "lm.wait(q_empty, iter=t - 9)"}},
                  "the loader waits for the release of the slot one lap behind (a lost phase)",
                  {{"M", 961}, {"K", 1}}},
             });
}
