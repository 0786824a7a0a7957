# FIX of helion_flash_bwd_2cta_compute_168_no_dealloc.cake: pytorch/helion
# PR #3620 as merged: the reduce warpgroup decreases to 80 registers and
# the MMA / load / empty warpgroup to 88, so 128 * (80 + 2 * 168 + 88) =
# 64512 of the 65536 registers a 512-thread block is launched with.  Same
# model as the broken file.
# expect: pass
# lower: unsupported (setmaxnreg for a role of one warp: the hardware sets it per warpgroup, so the lowering needs roles that own whole warpgroups)
@cake.schedule(target="sm_100a")
def helion_flash_bwd_2cta_balanced_budgets_fixed(lm, dO: LM.tma2d, V: LM.tma2d, DQ: LM.gmem, n_m: LM.i32):
    lm.assume(n_m > 0)
    pool    = lm.smem(131072)
    smem_do = pool.view(offset=0,     shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_v  = pool.view(offset=32768, shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_ds = pool.view(offset=65536, shape=(128, 128), dtype=lm.bf16, stages=2)
    dp      = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    dp_r    = lm.regs(shape=(128, 64), dtype=lm.f32)
    ds_r    = lm.regs(shape=(128, 64), dtype=lm.bf16)
    dq_r    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    reduce  = lm.role(warps=[0, 1, 2, 3], regs=80)
    compute = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=168)
    mma     = lm.role(warps=[12], regs=88)
    load    = lm.role(warps=[13, 14, 15], regs=88)

    ring     = lm.pipeline(stages=2)
    full     = lm.barrier(prod=[load],    cons=[mma],     init_count=1, pipeline=ring)
    empty    = lm.barrier(prod=[mma],     cons=[load],    init_count=1, pipeline=ring)
    dp_full  = lm.barrier(count=1, prod=[mma],     cons=[compute], init_count=1)
    dp_empty = lm.barrier(count=1, prod=[compute], cons=[mma],     init_count=2)
    ds_full  = lm.barrier(prod=[compute], cons=[reduce],  init_count=2, pipeline=ring)
    ds_empty = lm.barrier(prod=[reduce],  cons=[compute], init_count=1, pipeline=ring)

    n0 = lm.block_idx(0) * 128

    with load:
        for m in lm.range(0, n_m):
            lm.wait(empty, iter=m - 2)
            smem_do.tma_load(dO, coords=(m * 128, 0), iter=m, barrier=full)
            smem_v.tma_load(V, coords=(n0, 0), iter=m, barrier=full)

    with mma:
        for m in lm.range(0, n_m):
            lm.wait(full, iter=m)
            lm.wait(dp_empty, iter=m - 1)
            lm.mma(dp, smem_do[m], smem_v[m], init=True)
            lm.mma_commit(barrier=empty, iter=m)
            lm.mma_commit(barrier=dp_full, iter=m)

    with compute:
        g = lm.instance()
        for m in lm.range(0, n_m):
            lm.wait(dp_full, iter=m)
            lm.copy(dp_r, dp[:, g * 64:g * 64 + 64])
            lm.arrive(dp_empty, iter=m)
            lm.binary(dp_r, dp_r, 0.5, op="mul")
            lm.copy(ds_r, dp_r)
            lm.wait(ds_empty, iter=m - 2)
            lm.copy(smem_ds[m][:, g * 64:g * 64 + 64], ds_r)
            lm.arrive(ds_full, iter=m)

    with reduce:
        for m in lm.range(0, n_m):
            lm.wait(ds_full, iter=m)
            lm.copy(dq_r, smem_ds[m])
            lm.arrive(ds_empty, iter=m)
            lm.copy(DQ, dq_r, coords=(m * 128, n0))
