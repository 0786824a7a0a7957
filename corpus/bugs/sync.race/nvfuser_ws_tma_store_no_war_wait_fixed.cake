# FIXED form of nvfuser_ws_tma_store_no_war_wait.cake (NVIDIA/Fuser PR
# #5448): WarAsyncWaitInserter no longer skips the TMA store of a
# non-matmul compute warp group, so every iteration commits its bulk store
# and waits for it before the loop comes back to write T7 again; the
# commit/wait after the loop stay (they close an empty group).
# expect: pass
@cake.schedule(target="sm_90a")
def nvfuser_ws_tma_store_war_wait_fixed(lm, T0: LM.tma2d, T1: LM.tma2d, T5: LM.tma2d, n: LM.i32):
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
            lm.copy(smem_o[0], a)
            lm.fence_proxy()
            smem_o.tma_store(T5, coords=(r0, 0), stage=0)
            lm.tma_store_commit()                           # the fix (PR #5448)
            lm.tma_store_wait(pending=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
