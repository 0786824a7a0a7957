# RESPELLING of corpus/bugs/sync.race/tilelang_pipelined_gemm_mbar_ring_parity_fixed.cake (the fix: the k-th completion, as an implicit phase)
# (tile-ai/tilelang, sm_100a pipelined GEMM): the one-slot MMA barrier's
# wait annotated with iter=k // 3 (the ring's lap used as its phase), the
# ring as count=3 barriers, the prologue as two guarded single loads, the
# tile count as (K + 63) // 64, the epilogue tcgen05.ld into a differently
# named fragment.
# expect: pass
@cake.schedule(target="sm_100a")
def gemm_pipelined_fixed(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
    smem = lm.smem(131072)
    a_s  = smem.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    b_s  = smem.view(offset=49152, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    c_s  = smem.view(offset=98304, shape=(128, 128), dtype=lm.bf16)
    d    = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    c_r  = lm.regs(shape=(128, 128), dtype=lm.f32)
    threads = lm.role(warps=[0, 1, 2, 3])
    loaded  = lm.barrier(count=3, prod=[threads], cons=[threads], init_count=1)
    mma_bar = lm.barrier(count=1, prod=[threads], cons=[threads], init_count=1)
    nk = (K + 63) // 64
    bm = 128 * lm.block_idx(0)
    bn = 128 * lm.block_idx(1)
    with threads:
        if nk > 0:
            a_s.tma_load(A, coords=(bm, 0), iter=0, barrier=loaded)
            b_s.tma_load(B, coords=(bn, 0), iter=0, barrier=loaded)
        if nk > 1:
            a_s.tma_load(A, coords=(bm, 64), iter=1, barrier=loaded)
            b_s.tma_load(B, coords=(bn, 64), iter=1, barrier=loaded)
        for k in lm.range(0, nk):
            lm.wait(loaded, iter=k)
            lm.mma(d, a_s[k], b_s[k], init=(k == 0))
            lm.mma_commit(barrier=mma_bar, stage=0)
            lm.wait(mma_bar, stage=0)         # implicit phase: the k-th wait means phase k
            if k + 2 < nk:
                a_s.tma_load(A, coords=(bm, 64 * (k + 2)), iter=k + 2, barrier=loaded)
                b_s.tma_load(B, coords=(bn, 64 * (k + 2)), iter=k + 2, barrier=loaded)
        lm.copy(c_r, d)
        lm.copy(c_s[0], c_r)
        lm.fence_proxy()
        c_s.tma_store(C, coords=(bm, bn), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
