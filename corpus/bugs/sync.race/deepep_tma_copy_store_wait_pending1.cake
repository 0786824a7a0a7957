# BUG (sync.race): DeepEP V2's pipelined TMA copy (tma_copy in
# deep_ep/include/deep_ep/impls/pp_send_recv.cuh), as reported in
# deepseek-ai/DeepEP issue #657 and fixed by PR #660 / #674 (commit
# 099d5f2).  One elected thread streams a chunk of global memory through a
# 2-stage shared-memory ring: it waits for chunk i's TMA load, issues the
# TMA store of stage i % 2, commits it, and before loading chunk i + 2 into
# the SAME stage calls tma_store_wait<kNumStages - 1>() =
# cp.async.bulk.wait_group 1.  That retires only the store of chunk i - 1:
# the store just issued from stage i % 2 may still be reading it while the
# TMA load of chunk i + 2 overwrites it.
# Modelled: the 1D bulk copies (cp.async.bulk without a tensor map) as 2D
# TMA boxes of one 32 KiB stage; one single-warp role (the elected thread);
# the SM's share of the chunks as n_chunks starting at block_idx * n_chunks.
# Fix: deepep_tma_copy_store_wait_pending1_fixed.cake (wait_group 0).
# expect: sync.race
@cake.schedule(target="sm_90a")
def deepep_tma_copy_store_wait_pending1(lm, Src: LM.tma2d, Dst: LM.tma2d, n_chunks: LM.i32):
    lm.assume(n_chunks > 0)
    pool = lm.smem(65536)
    buf  = pool.view(offset=0, shape=(128, 128), dtype=lm.bf16, stages=2)

    copier = lm.role(warps=[0])
    ring   = lm.pipeline(stages=2)
    full   = lm.barrier(prod=[copier], cons=[copier], init_count=1, pipeline=ring)

    base = lm.block_idx(0) * n_chunks

    with copier:
        # fill the pipeline: the first kNumStages chunks
        for i in lm.range(0, min(2, n_chunks)):
            buf.tma_load(Src, coords=((base + i) * 128, 0), iter=i, barrier=full)
        for i in lm.range(0, n_chunks):
            lm.wait(full, iter=i)
            buf.tma_store(Dst, coords=((base + i) * 128, 0), iter=i)
            lm.tma_store_commit()
            if i + 2 < n_chunks:
                lm.tma_store_wait(pending=1)
                buf.tma_load(Src, coords=((base + i + 2) * 128, 0), iter=i + 2, barrier=full)  # expect-error: sync.race
        lm.tma_store_wait(pending=0)
