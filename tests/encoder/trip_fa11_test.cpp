// Reads named by the ring start (docs/z3.md "Reads named by the ring
// start", helper fa4y, session 42; FA4's correction warpgroup, whose MMA
// reads `smem_k[g0]` before its K loop). A process whose part before the K
// loop reads a ring view at the tile's ring start (`smem_k[t * n_blocks]`)
// reads it by stage in the grid (every tile at ring start 0) and by
// iteration past the ring's first lap; where that read is the process's
// first access of its index in every run, the copies name it as the ring.
// Here a peeking warpgroup reads each tile's first K block before the MMA
// warp's K loop takes it. Broken forms, each found by the bounded check,
// are not proved.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attack_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_fa11_test {

const std::string kPeekKernel = R"CAKE(
@cake.schedule(target="sm_100a")
def ring_start_peek(lm, K: LM.tma3d, seqlen_k: LM.i32, T: LM.i32):
    lm.assume(seqlen_k > 0)
    lm.assume(T > 0)
    pool   = lm.smem(65536)
    smem_k = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    tmem_s = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    s = lm.regs(shape=(128, 128), dtype=lm.f32)
    kf = lm.regs(shape=(128, 64), dtype=lm.bf16)
    r = lm.regs(shape=(128, 1), dtype=lm.f32)

    soft = lm.role(warps=[0, 1, 2, 3])
    peek = lm.role(warps=[4, 5, 6, 7])
    mma  = lm.role(warps=[8])
    load = lm.role(warps=[9])

    two       = lm.pipeline(stages=2)
    k_full    = lm.barrier(prod=[load], cons=[mma, peek], init_count=1, pipeline=two)
    k_empty   = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=two)
    s_full    = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)
    s_empty   = lm.barrier(count=1, prod=[soft], cons=[mma], init_count=1)
    peek_done = lm.barrier(count=1, prod=[peek], cons=[mma], init_count=1)
    peek_free = lm.barrier(count=1, prod=[mma], cons=[peek], init_count=1)

    n_blocks = lm.cdiv(seqlen_k, 128)

    with load:
        for t in lm.range(0, T):
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(k_empty, iter=g - 2)
                smem_k.tma_load(K, coords=(0, j * 128, 0), iter=g, barrier=k_full)

    with peek:
        for t in lm.range(0, T):
            g0 = t * n_blocks
            lm.wait(peek_free, iter=t - 1)
            lm.wait(k_full, iter=g0)
            lm.copy(kf, smem_k[g0])
            lm.fence_proxy()
            lm.arrive(peek_done, iter=t)
            for j in lm.range(0, n_blocks):
                lm.fill(r, 0.0)

    with mma:
        for t in lm.range(0, T):
            lm.wait(peek_done, iter=t)
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(k_full, iter=g)
                lm.wait(s_empty, iter=g - 1)
                lm.mma(tmem_s, smem_k[g], smem_k[g], init=True)
                lm.mma_commit(barrier=k_empty, iter=g)
                lm.mma_commit(barrier=s_full, iter=g)
            lm.arrive(peek_free, iter=t)

    with soft:
        for t in lm.range(0, T):
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(s_full, iter=g)
                lm.tmem_load(s, tmem_s)
                lm.tmem_load_wait()
                lm.arrive(s_empty, iter=g)
)CAKE";

const std::string kPeekWait = "            lm.wait(k_full, iter=g0)\n";
const std::string kPeekRead = "            lm.copy(kf, smem_k[g0])\n";

std::vector<cake::testing::attacks::Attack> peekAttacks() {
  return {
      {{{kPeekWait, "            lm.wait(k_full, iter=g0 - 1)\n"}},
       "the peek waits for the tile before's last K block and reads the tile's first (a stale read)",
       {{"seqlen_k", 1}, {"T", 1}}},
      {{{kPeekWait, "            if t > 1:\n                lm.wait(k_full, iter=g0 - 1)\n            else:\n    " +
                        kPeekWait}},
       "from tile 2 on, the peek waits for the tile before's last K block (a stale read past the first lap)",
       {{"seqlen_k", 1}, {"T", 3}}},
      {{{kPeekRead, "            lm.copy(kf, smem_k[g0 + 1])\n"}},
       "the peek reads the tile's second K block, which it did not wait for",
       {{"seqlen_k", 1}, {"T", 1}}},
      {{{"            lm.wait(peek_done, iter=t)\n", ""}},
       "the MMA does not wait for the peek (the slot reloaded under it)",
       {{"seqlen_k", 1}, {"T", 2}}},
  };
}

}  // namespace trip_fa11_test

namespace tf11 = trip_fa11_test;

// Refused on main (`the part before the K loop of peek reads smem_k at an
// index of the tile's ring start, named by stage in the grid and by
// iteration past the ring's first lap ...`).
TEST(TripFa11, RingStartReadsNamedAsTheRingAreProvedAndTheirBrokenFormsAreNot) {
  cake::testing::attacks::attack(tf11::kPeekKernel, {{"seqlen_k", 257}, {"T", 3}}, tf11::peekAttacks());
}
