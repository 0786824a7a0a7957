# FIXED form of flashinfer_gdn_cg0_tails_cg1_o_store_pipeline.cake
# (flashinfer-ai/flashinfer PR #3581): only compute group 1, the producer of
# the CG1 -> epilogue output ring, tails it (waits the last releases of
# both stages before exiting); compute group 0 no longer waits on a
# pipeline it never acquires or commits.
# expect: pass
@cake.schedule(target="sm_100a")
def flashinfer_gdn_only_cg1_tails_o_store_pipeline(lm, K: LM.tma2d, O: LM.tma2d, n_chunks: LM.i32):
    pool   = lm.smem(98304)
    smem_k = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    s_ks   = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    s_o    = pool.view(offset=65536, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    k_r    = lm.regs(shape=(128, 64), dtype=lm.bf16)
    o_r    = lm.regs(shape=(128, 64), dtype=lm.bf16)

    cg0  = lm.role(warps=[0, 1, 2, 3])
    cg1  = lm.role(warps=[4, 5, 6, 7])
    load = lm.role(warps=[8])
    epi  = lm.role(warps=[9])

    kpipe    = lm.pipeline(stages=2)
    k_full   = lm.barrier(prod=[load], cons=[cg0], init_count=1, pipeline=kpipe)
    k_empty  = lm.barrier(prod=[cg0], cons=[load], init_count=1, pipeline=kpipe)
    kspipe   = lm.pipeline(stages=2)
    ks_full  = lm.barrier(prod=[cg0], cons=[cg1], init_count=1, pipeline=kspipe)
    ks_empty = lm.barrier(prod=[cg1], cons=[cg0], init_count=1, pipeline=kspipe)
    opipe    = lm.pipeline(stages=2)
    o_full   = lm.barrier(prod=[cg1], cons=[epi], init_count=1, pipeline=opipe)
    o_empty  = lm.barrier(prod=[epi], cons=[cg1], init_count=1, pipeline=opipe)

    lm.assume(n_chunks > 0)
    row0 = lm.block_idx(0) * 128

    with load:
        for c in lm.range(0, n_chunks):
            lm.wait(k_empty, iter=c - 2)
            smem_k.tma_load(K, coords=(row0 + c * 128, 0), iter=c, barrier=k_full)

    with cg0:
        for c in lm.range(0, n_chunks):
            lm.wait(k_full, iter=c)
            lm.copy(k_r, smem_k[c])
            lm.fence_proxy()
            lm.arrive(k_empty, iter=c)
            lm.binary(k_r, k_r, 0.5, op="mul")
            lm.wait(ks_empty, iter=c - 2)
            lm.copy(s_ks[c], k_r)
            lm.arrive(ks_full, iter=c)

    with cg1:
        for c in lm.range(0, n_chunks):
            lm.wait(ks_full, iter=c)
            lm.copy(o_r, s_ks[c])
            lm.arrive(ks_empty, iter=c)
            lm.wait(o_empty, iter=c - 2)
            lm.copy(s_o[c], o_r)
            lm.fence_proxy()
            lm.arrive(o_full, iter=c)
        for s in lm.range(0, 2):
            lm.wait(o_empty, iter=n_chunks + s - 2)

    with epi:
        for c in lm.range(0, n_chunks):
            lm.wait(o_full, iter=c)
            s_o.tma_store(O, coords=(row0 + c * 128, 0), iter=c)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(o_empty, iter=c)
