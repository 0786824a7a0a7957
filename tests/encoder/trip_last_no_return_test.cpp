// A no-return read in a kernel with last tiles of their own (helper
// fa4_50, session 50, issue 11; docs/z3.md "A no-return read in a kernel
// with last tiles of their own"). left49's no-return case (a left-out MMA
// read of a view the tile's part before the K loop reads, `smem_q[t]`)
// refused every process with a last tile of its own; FA4's MMA warp has one
// (`if t + 2 < T: lm.mma_commit(barrier=q_empty, iter=t)`), and stopped at
// the probe. A last tile runs the grid's text up to its K loop's end, the
// same copies per ring start and near the end, and only its parts after the
// K loop differ, which the argument already asks. Proved; broken twins are
// found by `cake check` and not proved.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attack_util.h"
#include "test_util.h"

namespace trip_last_no_return_test {

// The store-warp FMHA's loader and MMA warp with Q on two slots, released
// by the MMA's commit in every tile but the last two.
const char* kQReleasedButLast = R"(@cake.schedule(target="sm_100a")
def s_ahead(lm, Q: LM.tma3d, K: LM.tma3d, seqlen_k: LM.i32, n_tiles: LM.i32):
    lm.assume(seqlen_k > 0)
    lm.assume(n_tiles > 0)
    pool    = lm.smem(65536)
    smem_q  = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_k  = pool.view(offset=32768,  shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    tmem_s  = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    s     = lm.regs(shape=(128, 128), dtype=lm.f32)

    soft  = lm.role(warps=[0, 1, 2, 3])
    mma   = lm.role(warps=[4])
    load  = lm.role(warps=[5])

    kv      = lm.pipeline(stages=2)
    q_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv)
    q_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv)
    k_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv)
    k_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv)
    s_full  = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)
    s_free  = lm.barrier(count=1, prod=[soft], cons=[mma], init_count=1)

    n_blocks = lm.cdiv(seqlen_k, 128)

    with load:
        for t in lm.range(0, n_tiles):
            q0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            lm.wait(q_empty, iter=t - 2)
            smem_q.tma_load(Q, coords=(0, q0, 0), iter=t, barrier=q_full)
            for j in lm.range(0, n_blocks):
                it = t * n_blocks + j
                lm.wait(k_empty, iter=it - 2)
                smem_k.tma_load(K, coords=(0, j * 128, 0), iter=it, barrier=k_full)

    with mma:
        for t in lm.range(0, n_tiles):
            base = t * n_blocks
            lm.wait(q_full, iter=t)
            lm.wait(k_full, iter=base)
            lm.mma(tmem_s, smem_q[t], smem_k[base], init=True)
            lm.mma_commit(barrier=k_empty, iter=base)
            lm.mma_commit(barrier=s_full, iter=base)
            for j in lm.range(0, n_blocks):
                it = base + j
                lm.wait(s_free, iter=it)
                if j + 1 < n_blocks:
                    lm.wait(k_full, iter=it + 1)
                    lm.mma(tmem_s, smem_q[t], smem_k[it + 1], init=True)
                    lm.mma_commit(barrier=k_empty, iter=it + 1)
                    lm.mma_commit(barrier=s_full, iter=it + 1)
            if t + 2 < n_tiles:
                lm.mma_commit(barrier=q_empty, iter=t)

    with soft:
        for t in lm.range(0, n_tiles):
            base = t * n_blocks
            for j in lm.range(0, n_blocks):
                it = base + j
                lm.wait(s_full, iter=it)
                lm.copy(s, tmem_s)
                lm.arrive(s_free, iter=it)
)";

std::vector<cake::testing::attacks::Attack> lastTileAttacks() {
  return {
      {{{"if t + 2 < n_tiles:", "if t + 3 < n_tiles:"}},
       "Q released on one tile fewer (the loader of the last tile hangs)",
       {{"seqlen_k", 1}, {"n_tiles", 3}}},
      {{{"lm.wait(q_empty, iter=t - 2)", "lm.wait(q_empty, iter=t - 3)"}},
       "the loader waits for Q's release a lap behind",
       {{"seqlen_k", 1}, {"n_tiles", 3}}},
      {{{"smem_q[t], smem_k[it + 1]", "smem_q[t + 1], smem_k[it + 1]"}},
       "the one-ahead S reads the other Q slot",
       {{"seqlen_k", 129}, {"n_tiles", 1}}},
  };
}

}  // namespace trip_last_no_return_test

namespace tlnr = trip_last_no_return_test;

// Proved (before: unknown at the probe); broken twins not.
TEST(TripLastNoReturn, LeftOutQReadWithLastTilesIsProvedAndItsBrokenFormsAreNot) {
  cake::testing::attacks::attack(tlnr::kQReleasedButLast, {{"seqlen_k", 257}, {"n_tiles", 3}}, tlnr::lastTileAttacks());
}
