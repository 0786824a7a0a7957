// The persistent kernel of the read-generation tests (docs/z3.md "A read
// generation past waits outside the K loop"): the MMA warp reads P from a
// one-stage smem view the softmax warpgroup writes with generic stores in
// every K iteration, and waits once per tile outside the K loop for the
// epilogue's release of O. Shared by trip_read_gen_test.cpp and
// trip_fa5_test.cpp (the same kernel with that wait moved into the K loop).
#pragma once

#include <string>

namespace cake::testing::read_gen {

inline const std::string kReadGenKernel = R"CAKE(
@cake.schedule(target="sm_100a")
def p_read_gen(lm, Vt: LM.tma3d, O: LM.tma3d, seqlen_k: LM.i32, T: LM.i32):
    lm.assume(seqlen_k > 0)
    lm.assume(T > 0)
    pool    = lm.smem(98304)
    smem_vt = pool.view(offset=0,     shape=(64, 128),  dtype=lm.bf16, stages=2)
    smem_p  = pool.view(offset=32768, shape=(128, 128), dtype=lm.bf16, stages=1)
    smem_o  = pool.view(offset=65536, shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    tmem_o  = lm.tmem(cols=0, width=64, shape=(128, 64), dtype=lm.f32)
    s = lm.regs(shape=(128, 128), dtype=lm.f32)
    o = lm.regs(shape=(128, 64), dtype=lm.f32)

    soft = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    two     = lm.pipeline(stages=2)
    v_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=two)
    v_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=two)
    p_full  = lm.barrier(count=1, prod=[soft], cons=[mma], init_count=1)
    p_empty = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)
    o_full  = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)
    o_empty = lm.barrier(count=1, prod=[soft], cons=[mma], init_count=1)

    n_blocks = lm.cdiv(seqlen_k, 128)

    with load:
        for t in lm.range(0, T):
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(v_empty, iter=g - 2)
                smem_vt.tma_load(Vt, coords=(0, 0, j * 128), iter=g, barrier=v_full)

    with mma:
        for t in lm.range(0, T):
            lm.wait(o_empty, iter=t - 1)
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(v_full, iter=g)
                lm.wait(p_full, iter=g)
                lm.mma(tmem_o, smem_p[0], smem_vt[g], init=(j == 0))
                lm.mma_commit(barrier=v_empty, iter=g)
                lm.mma_commit(barrier=p_empty, iter=g)
            lm.mma_commit(barrier=o_full, iter=t)

    with soft:
        for t in lm.range(0, T):
            q0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.fill(s, 1.0)
                lm.wait(p_empty, iter=g - 1)
                lm.copy(smem_p[0], s)
                lm.fence_proxy()
                lm.arrive(p_full, iter=g)
            lm.wait(o_full, iter=t)
            lm.tmem_load(o, tmem_o)
            lm.tmem_load_wait()
            lm.arrive(o_empty, iter=t)
            lm.tma_store_wait(pending=0)
            lm.copy(smem_o[0], o)
            lm.fence_proxy()
            smem_o.tma_store(O, coords=(0, q0, 0), stage=0)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
)CAKE";

}  // namespace cake::testing::read_gen
