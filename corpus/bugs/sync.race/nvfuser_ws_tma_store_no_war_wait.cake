# BUG (sync.race): NVIDIA/Fuser PR #5448 ("Fix bug in insertWarAsyncWait",
# following #5447).  In warp-specialized non-matmul kernels the compute
# warp group's outer loop writes its results to a shared-memory tile (T7)
# and TMA-stores that tile to global memory every iteration, but
# WarAsyncWaitInserter short-circuited to handleComputeWarp (written for
# wgmma) and never looked at the TMA store: the only
# cp.async.bulk.commit_group / wait_group sat after the outer loop.  The
# next iteration's st.shared into T7 overwrites the tile while the previous
# iteration's bulk store may still be reading it.  The fix emits
# cpAsyncBulkCommitGroup + cpAsyncBulkWaitGroup after the TMA store inside
# the loop (the ones after the loop stay).
# Modelled: the PR's kernel shape (T0 and T1 TMA-loaded by the load warp
# into a 2-stage circular buffer with full/empty mbarriers, the compute
# warp group adds them and TMA-stores T5 through one output tile); one
# compute warp group instead of the launch's four (640 threads); the
# compute group's generic reads of a stage are fenced before it releases
# the stage (docs/rules/proxy.missing-fence.md), as the fix's kernel does
# before its TMA store.  Left out: predicates of partial tiles.
# Fix: nvfuser_ws_tma_store_no_war_wait_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def nvfuser_ws_tma_store_no_war_wait(lm, T0: LM.tma2d, T1: LM.tma2d, T5: LM.tma2d, n: LM.i32):
    lm.assume(n >= 1)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2)
    smem_b = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2)
    smem_o = pool.view(offset=32768, shape=(64, 64), dtype=lm.bf16, stages=1)   # T7
    a = lm.regs(shape=(64, 64), dtype=lm.f32)
    b = lm.regs(shape=(64, 64), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3])
    load    = lm.role(warps=[4])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[compute], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[compute], cons=[load], init_count=1, pipeline=pipe)

    with load:
        for i in lm.range(0, n):
            r0 = (lm.block_idx(0) * n + i) * 64
            lm.wait(empty, iter=i - 2)
            smem_a.tma_load(T0, coords=(r0, 0), iter=i, barrier=full)
            smem_b.tma_load(T1, coords=(r0, 0), iter=i, barrier=full)

    with compute:
        for i in lm.range(0, n):
            r0 = (lm.block_idx(0) * n + i) * 64
            lm.wait(full, iter=i)
            lm.copy(a, smem_a[i])
            lm.copy(b, smem_b[i])
            lm.fence_proxy()
            lm.arrive(empty, iter=i)
            lm.binary(a, a, b, op="add")
            lm.copy(smem_o[0], a)                           # expect-error: sync.race
            lm.fence_proxy()
            smem_o.tma_store(T5, coords=(r0, 0), stage=0)   # expect-error: sync.race
            # BUG: no cp.async.bulk.commit_group / wait_group here
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
