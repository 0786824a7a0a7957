# RESPELLING of corpus/bugs/sync.arrival-underflow/fbtriton_clc_multicta_expect_tx_cta0_only.cake
# (facebookexperimental/triton PR #908): both one-slot barriers addressed
# with stage=0 and implicit phases (the producer's first lap as a guard
# `k > 0`), the rank test as `cta != 1`, the two remote arrivals as a loop
# over the cluster's CTAs.
# expect: sync.arrival-underflow
@cake.schedule(target="sm_100a", cluster=(2, 1, 1))
def clc_scheduler(lm, clc_resp: LM.tma2d, num_tiles: LM.i32):
    lm.assume(num_tiles >= 1)
    smem = lm.smem(1024)
    slot = smem.view(offset=0, shape=(1, 4), dtype=lm.i32)
    tile_info = lm.regs(shape=(1, 4), dtype=lm.i32)
    sched  = lm.role(warps=[0])
    worker = lm.role(warps=[1])
    resp_full  = lm.barrier(count=1, prod=[sched], cons=[worker], init_count=1)
    resp_empty = lm.barrier(count=1, prod=[worker], cons=[sched], init_count=2)
    cta = lm.cluster_rank()
    with sched:
        lm.cluster_sync()
        for k in lm.range(0, num_tiles):
            if k > 0:
                lm.wait(resp_empty, stage=0)                          # expect-error: sync.arrival-underflow
            if cta != 1:
                lm.expect_tx(resp_full, 16, stage=0)
                slot.tma_load(clc_resp, coords=(k, 0), stage=0, barrier=resp_full, multicast=3)
        lm.cluster_sync()
    with worker:
        lm.cluster_sync()
        for k in lm.range(0, num_tiles):
            lm.wait(resp_full, stage=0)                               # expect-error: sync.arrival-underflow
            lm.copy(tile_info, slot[0])
            lm.fence_proxy()
            for c in lm.range(0, 2):
                lm.arrive(resp_empty, stage=0, cta=c)
        lm.cluster_sync()
