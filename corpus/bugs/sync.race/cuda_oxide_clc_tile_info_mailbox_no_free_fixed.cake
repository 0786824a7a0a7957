# FIXED: cuda_oxide_clc_tile_info_mailbox_no_free.cake as NVlabs/cuda-oxide
# PR #1066 fixes it: a TILE_INFO_FREE mbarrier with an arrival count of 5.
# Each reader warp copies the mailbox after its TILE_READY wait and arrives
# on TILE_INFO_FREE (lowering syncs the warp's lanes before the elected
# arrive); the producer waits on it before republishing TILE_INFO,
# including the final has_work = 0 publish.
# expect: pass
@cake.schedule(target="sm_100a")
def gemm_sol_clc_tile_info_free(lm, Sched: LM.gmem, Out: LM.gmem, tiles: LM.i32):
    lm.assume(tiles >= 0)
    pool      = lm.smem(1024)
    tile_info = pool.view(offset=0, shape=(1, 4), dtype=lm.i32, stages=1)
    info_p    = lm.regs(shape=(1, 4), dtype=lm.i32)
    info_r    = lm.regs(shape=(1, 4), dtype=lm.i32)

    producer = lm.role(warps=[0])
    mma      = lm.role(warps=[1])
    epi      = lm.role(warps=[2, 3, 4, 5], group=1)
    ready    = lm.barrier(count=1, prod=[producer], cons=[mma, epi], init_count=1)
    free     = lm.barrier(count=1, prod=[mma, epi], cons=[producer], init_count=5)

    with producer:
        for t in lm.range(0, tiles + 1):
            lm.copy(info_p, Sched, coords=(lm.block_idx(0), t * 4))
            lm.wait(free, iter=t - 1)
            lm.copy(tile_info, info_p)
            lm.arrive(ready, iter=t)

    with mma:
        for t in lm.range(0, tiles + 1):
            lm.wait(ready, iter=t)
            lm.copy(info_r, tile_info)
            lm.arrive(free, iter=t)
            lm.copy(Out, info_r, coords=(lm.block_idx(0), t * 4))

    with epi:
        for t in lm.range(0, tiles + 1):
            lm.wait(ready, iter=t)
            lm.copy(info_r, tile_info)
            lm.arrive(free, iter=t)
            lm.copy(Out, info_r, coords=(lm.block_idx(0) + 1 + lm.instance(), t * 4))
