# FIXED: deepep_tma_copy_store_wait_pending1.cake as DeepEP fixed it
# (deepseek-ai/DeepEP PR #660, merged as #674 / commit 099d5f2: the reuse
# wait became ptx::tma_store_wait() = cp.async.bulk.wait_group 0).  Before
# chunk i + 2 is loaded into stage i % 2 every store group is retired,
# including the store of chunk i that reads that stage.
# expect: pass
@cake.schedule(target="sm_90a")
def deepep_tma_copy_store_wait_all(lm, Src: LM.tma2d, Dst: LM.tma2d, n_chunks: LM.i32):
    lm.assume(n_chunks > 0)
    pool = lm.smem(65536)
    buf  = pool.view(offset=0, shape=(128, 128), dtype=lm.bf16, stages=2)

    copier = lm.role(warps=[0])
    ring   = lm.pipeline(stages=2)
    full   = lm.barrier(prod=[copier], cons=[copier], init_count=1, pipeline=ring)

    base = lm.block_idx(0) * n_chunks

    with copier:
        for i in lm.range(0, min(2, n_chunks)):
            buf.tma_load(Src, coords=((base + i) * 128, 0), iter=i, barrier=full)
        for i in lm.range(0, n_chunks):
            lm.wait(full, iter=i)
            buf.tma_store(Dst, coords=((base + i) * 128, 0), iter=i)
            lm.tma_store_commit()
            if i + 2 < n_chunks:
                lm.tma_store_wait(pending=0)
                buf.tma_load(Src, coords=((base + i + 2) * 128, 0), iter=i + 2, barrier=full)
        lm.tma_store_wait(pending=0)
