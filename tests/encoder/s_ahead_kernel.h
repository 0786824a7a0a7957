// The store-warp FMHA's loader and MMA warp with a consumer warpgroup that
// frees S (helper left49's reduced reproducer, docs/z3.md "Left-out MMA reads
// near a tile's end"): the MMA warp issues the first S of a tile before its
// K loop and, in each K iteration but the tile's last, the next block's S
// (one ahead). Shared by trip_left_read_test.cpp, trip_renamed_period_test.cpp
// and trip_last_no_return_test.cpp.
#pragma once

#include <string>

#include "test_util.h"

namespace cake::testing::s_ahead {

inline const std::string kSAhead = R"(@cake.schedule(target="sm_100a")
def s_ahead(lm, Q: LM.tma3d, K: LM.tma3d, seqlen_k: LM.i32, n_tiles: LM.i32):
    lm.assume(seqlen_k > 0)
    lm.assume(n_tiles > 0)
    pool    = lm.smem(65536)
    smem_q  = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    smem_k  = pool.view(offset=16384,  shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    tmem_s  = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    s     = lm.regs(shape=(128, 128), dtype=lm.f32)

    soft  = lm.role(warps=[0, 1, 2, 3])
    mma   = lm.role(warps=[4])
    load  = lm.role(warps=[5])

    kv      = lm.pipeline(stages=2)
    q_full  = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    q_empty = lm.barrier(count=1, prod=[mma], cons=[load], init_count=1)
    k_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv)
    k_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv)
    s_full  = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)
    s_free  = lm.barrier(count=1, prod=[soft], cons=[mma], init_count=1)

    n_blocks = lm.cdiv(seqlen_k, 128)

    with load:
        for t in lm.range(0, n_tiles):
            q0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            lm.wait(q_empty, iter=t - 1)
            smem_q.tma_load(Q, coords=(0, q0, 0), iter=t, barrier=q_full)
            for j in lm.range(0, n_blocks):
                it = t * n_blocks + j
                lm.wait(k_empty, iter=it - 2)
                smem_k.tma_load(K, coords=(0, j * 128, 0), iter=it, barrier=k_full)
        lm.wait(q_empty, iter=n_tiles - 1)

    with mma:
        for t in lm.range(0, n_tiles):
            base = t * n_blocks
            lm.wait(q_full, iter=t)
            lm.wait(k_full, iter=base)
            lm.mma(tmem_s, smem_q[0], smem_k[base], init=True)
            lm.mma_commit(barrier=k_empty, iter=base)
            lm.mma_commit(barrier=s_full, iter=base)
            for j in lm.range(0, n_blocks):
                it = base + j
                lm.wait(s_free, iter=it)
                if j + 1 < n_blocks:
                    lm.wait(k_full, iter=it + 1)
                    lm.mma(tmem_s, smem_q[0], smem_k[it + 1], init=True)
                    lm.mma_commit(barrier=k_empty, iter=it + 1)
                    lm.mma_commit(barrier=s_full, iter=it + 1)
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

// kSAhead with Q on two slots (`smem_q[t]`, its own barriers' two-slot
// pipeline): the tile period 2 (docs/z3.md "FA4 proved: ...", step 2).
inline std::string qOnTwoSlots() {
  std::string k = kSAhead;
  k = replace(k, "smem_q  = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=1,",
              "smem_q  = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=2,");
  k = replace(k, "smem_k  = pool.view(offset=16384,", "smem_k  = pool.view(offset=32768,");
  k = replace(k, "q_full  = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)",
              "q_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv)");
  k = replace(k, "q_empty = lm.barrier(count=1, prod=[mma], cons=[load], init_count=1)",
              "q_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv)");
  k = replace(k, "lm.wait(q_empty, iter=t - 1)", "lm.wait(q_empty, iter=t - 2)");
  k = replace(k, "        lm.wait(q_empty, iter=n_tiles - 1)\n",
              "        lm.wait(q_empty, iter=n_tiles - 2)\n        lm.wait(q_empty, iter=n_tiles - 1)\n");
  for (int i = 0; i < 2; ++i) k = replace(k, "smem_q[0]", "smem_q[t]");
  return k;
}

}  // namespace cake::testing::s_ahead
