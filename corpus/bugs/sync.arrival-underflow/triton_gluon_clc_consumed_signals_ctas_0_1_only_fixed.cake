# FIXED: triton-lang/triton PR #10926 - the fix of
# triton_gluon_clc_consumed_signals_ctas_0_1_only.cake: every CTA's
# consumer releases the multicast CLC response slot in every CTA of the
# cluster (here 4), so each CTA's CLC partition sees its 4 arrivals.
# Modelled as the broken form (see its header).
# expect: pass
@cake.schedule(target="sm_100a", cluster=(4, 1, 1))
def triton_gluon_clc_consumed_signals_ctas_0_1_only_fixed(lm, Clc: LM.tma2d, n_tiles: LM.i32):
    lm.assume(n_tiles >= 1)
    pool = lm.smem(1024)
    resp = pool.view(offset=0, shape=(1, 4), dtype=lm.i32)
    info = lm.regs(shape=(1, 4), dtype=lm.i32)

    clc  = lm.role(warps=[0])
    cons = lm.role(warps=[1])

    clc_full = lm.barrier(count=1, prod=[clc], cons=[cons], init_count=1)
    consumed = lm.barrier(count=1, prod=[cons], cons=[clc], init_count=4)

    rank = lm.cluster_rank()

    with clc:
        lm.cluster_sync()
        for k in lm.range(0, n_tiles):
            lm.wait(consumed, iter=k - 1)
            lm.expect_tx(clc_full, 16, iter=k)
            if rank == 0:
                resp.tma_load(Clc, coords=(k, 0), iter=k, barrier=clc_full, multicast=15)
        lm.cluster_sync()

    with cons:
        lm.cluster_sync()
        for k in lm.range(0, n_tiles):
            lm.wait(clc_full, iter=k)    
            lm.copy(info, resp[k])
            lm.fence_proxy()
            lm.arrive(consumed, iter=k, cta=0)
            lm.arrive(consumed, iter=k, cta=1)
            lm.arrive(consumed, iter=k, cta=2)
            lm.arrive(consumed, iter=k, cta=3)
        lm.cluster_sync()
