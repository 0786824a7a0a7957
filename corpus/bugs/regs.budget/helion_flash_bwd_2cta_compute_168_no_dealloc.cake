# BUG (regs.budget): pytorch/helion PR #3620 ("[cutedsl] flash-bwd 2-CTA:
# balance the setmaxnreg budgets (fixes the fresh-compile hang)", merged
# 2026-09-14).  Helion's CuTe DSL flash-attention backward (2-CTA body)
# runs 16 warps: a dQ-reduce warpgroup, two compute warpgroups and one
# warpgroup holding the MMA warp, the load warp and two empty warps.  The
# 2-CTA body raised the compute warpgroups to 168 registers per thread
# (setmaxnreg.inc) "but never decreased any other warpgroup": a 512-thread
# block is launched with 128 registers per thread (65536), and
# 128 + 2 * 168 + 128 = 592 per-thread units of 128 threads ask for 75776.
# Once setmaxnreg is honoured (min_blocks_per_mp = 1) the compute
# warpgroups' TRY_ALLOC can never be satisfied and the kernel spins
# forever.  The PR gives the reduce warps 80 and the MMA / load / empty
# warpgroup 88: 80 + 2 * 168 + 88 = 504 <= 512.
# Modelled: one CTA of the backward's dP -> dS -> dQ chain: the load warp
# brings dO and V tiles into a 2-stage ring (TMA), the MMA warp computes
# dP = dO V^T into TMEM (tcgen05, committed to the ring's empty barrier
# and to dp_full), each compute warpgroup reads its 64 columns of dP,
# forms dS and writes it into a 2-stage shared ring, and the reduce
# warpgroup reads dS back and stores it (the dQ atomic-add stand-in).  The
# two empty warps are folded into the load role (one instance: they run
# the warpgroup's setmaxnreg and nothing else).  Left out: the 2-CTA
# cluster, the S / P path, the dK / dV MMAs.  The synchronization is
# correct; only the register budgets are wrong.
# Fix: helion_flash_bwd_2cta_compute_168_no_dealloc_fixed.cake.
# expect: regs.budget
@cake.schedule(target="sm_100a")
def helion_flash_bwd_2cta_compute_168_no_dealloc(lm, dO: LM.tma2d, V: LM.tma2d, DQ: LM.gmem, n_m: LM.i32):
    lm.assume(n_m > 0)
    pool    = lm.smem(131072)
    smem_do = pool.view(offset=0,     shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_v  = pool.view(offset=32768, shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_ds = pool.view(offset=65536, shape=(128, 128), dtype=lm.bf16, stages=2)
    dp      = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    dp_r    = lm.regs(shape=(128, 64), dtype=lm.f32)
    ds_r    = lm.regs(shape=(128, 64), dtype=lm.bf16)
    dq_r    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    reduce  = lm.role(warps=[0, 1, 2, 3])
    compute = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=168)  # expect-error: regs.budget
    mma     = lm.role(warps=[12])
    load    = lm.role(warps=[13, 14, 15])

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
