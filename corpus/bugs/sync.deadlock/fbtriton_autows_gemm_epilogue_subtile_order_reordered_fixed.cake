# FIXED: facebookexperimental/triton PR #1485 ("[AutoWS] Fix AutoWS GEMM
# hang due to reordered epilogue"): the twin of
# fbtriton_autows_gemm_epilogue_subtile_order_reordered.cake in which the
# store partition consumes the epilogue buffers' local stores in the order
# the compute partition produced them ("for writes to the same buffer, the
# ordering must be maintained").  Same model and scaling as the broken twin.
# expect: pass
@cake.schedule(target="sm_90a")
def fbtriton_autows_gemm_epilogue_subtile_order_reordered_fixed(lm, C: LM.tma2d):
    pool  = lm.smem(32768)
    sepi  = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc   = lm.regs(shape=(128, 64), dtype=lm.bf16)

    compute = lm.role(warps=[0, 1, 2, 3])
    store   = lm.role(warps=[4])

    epi   = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[compute], cons=[store], init_count=1, pipeline=epi)
    empty = lm.barrier(prod=[store], cons=[compute], init_count=1, pipeline=epi)

    m0 = lm.block_idx(0) * 128
    n0 = lm.block_idx(1) * 256

    with compute:
        for s in lm.range(0, 4):
            lm.fill(acc, 0.0)                        # subtile s of the accumulator
            lm.wait(empty, iter=s - 2)
            lm.copy(sepi[s], acc)
            lm.fence_proxy()
            lm.arrive(full, iter=s)

    with store:
        for s in lm.range(0, 4):                   # the fix: the producer's order
            lm.wait(full, iter=s)
            sepi.tma_store(C, coords=(m0, n0 + s * 64), iter=s)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(empty, iter=s)
