# FIXED form of flashinfer_gdn_cg1_shared_acc_release_before_ld_wait.cake
# (flashinfer-ai/flashinfer PR #5335): tcgen05.wait::ld
# (fence_view_async_tmem_load, lm.tmem_load_wait) before the release of
# the shared TMEM stage, so the MMA of the next chunk cannot overwrite
# columns the tcgen05.ld still reads.
# expect: pass
@cake.schedule(target="sm_100a")
def flashinfer_gdn_cg1_shared_acc_ld_wait_then_release(lm, K: LM.tma2d, S: LM.tma2d, Out: LM.gmem,
                                                     n_chunks: LM.i32):
    pool   = lm.smem(65536)
    smem_k = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_s = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    ks_r   = lm.regs(shape=(128, 128), dtype=lm.f32)

    cg1  = lm.role(warps=[0, 1, 2, 3])
    load = lm.role(warps=[4])
    mma  = lm.role(warps=[5])

    pipe      = lm.pipeline(stages=2)
    full      = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty     = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full  = lm.barrier(count=1, prod=[mma], cons=[cg1], init_count=1)
    acc_empty = lm.barrier(count=1, prod=[cg1], cons=[mma], init_count=1)

    row0 = lm.block_idx(0) * 128

    with load:
        for c in lm.range(0, n_chunks):
            lm.wait(empty, iter=c - 2)
            smem_k.tma_load(K, coords=(row0, c * 64), iter=c, barrier=full)
            smem_s.tma_load(S, coords=(c * 128, 0), iter=c, barrier=full)

    with mma:
        for c in lm.range(0, n_chunks):
            lm.wait(full, iter=c)
            lm.wait(acc_empty, iter=c - 1)
            lm.mma(acc, smem_k[c], smem_s[c], init=True)
            lm.mma_commit(barrier=empty, iter=c)
            lm.mma_commit(barrier=acc_full, iter=c)

    with cg1:
        for c in lm.range(0, n_chunks):
            lm.wait(acc_full, iter=c)
            lm.tmem_load(ks_r, acc)
            lm.tmem_load_wait()
            lm.arrive(acc_empty, iter=c)
            lm.binary(ks_r, ks_r, 0.5, op="mul")
            lm.copy(Out, ks_r, coords=(c * 128, row0))
