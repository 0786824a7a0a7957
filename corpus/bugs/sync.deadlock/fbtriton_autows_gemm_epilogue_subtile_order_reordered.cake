# BUG (sync.deadlock): facebookexperimental/triton PR #1485 ("[AutoWS] Fix
# AutoWS GEMM hang due to reordered epilogue", 2026-05-11).  In the
# warp-specialized persistent GEMM (tutorial 09's
# matmul_tma_persistent_warp_specialize, EPILOGUE_SUBTILE > 1) the
# compute partition stages each accumulator subtile in an epilogue buffer
# ring and the store partition TMA-stores them.  `reorderEpilogOps`
# reordered the store partition's consumption of the local stores, so it
# "can be reordered to no longer match the order produced in the other
# partition.  This can result in a hang anytime num_epilogue_buffers <
# subtile_size": the consumer waits on a slot the producer cannot fill
# before the consumer frees another one.  The fix keeps, for writes to the
# same buffer, the producer's order.
# Modelled: 2 epilogue buffers, 4 subtiles (64 columns each) of a
# 128x256 tile, one tile per CTA; the ring's slot and phase are the
# subtile's running index (iter=s).  The reordering is written as the
# consumer taking subtiles 0, 3, 2, 1 (the PR text does not give the
# permutation): it waits for subtile 3 while subtile 1, which holds the
# slot subtile 3 needs, is still unconsumed; any order that takes a
# subtile before an earlier one of the same slot deadlocks the same way,
# and one that keeps each slot's order (0, 2, 1, 3) does not.  The K loop is left
# out: the accumulator arrives in registers (a fill).
# Fix: fbtriton_autows_gemm_epilogue_subtile_order_reordered_fixed.cake.
# expect: sync.deadlock
# may-also: sync.stale-phase
@cake.schedule(target="sm_90a")
def fbtriton_autows_gemm_epilogue_subtile_order_reordered(lm, C: LM.tma2d):
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
            lm.wait(empty, iter=s - 2)             # expect-error: sync.deadlock
            lm.copy(sepi[s], acc)
            lm.fence_proxy()
            lm.arrive(full, iter=s)

    with store:
        for i in lm.range(0, 4):
            s = (3 * i) % 4                        # the reordered consumption: 0, 3, 2, 1
            lm.wait(full, iter=s)                  # expect-error: sync.deadlock  # expect-error: sync.stale-phase
            sepi.tma_store(C, coords=(m0, n0 + s * 64), iter=s)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(empty, iter=s)
