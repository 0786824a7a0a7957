# FIXED form of quack_sm100_varlen_mma_epi_decode_before_pdl_wait.cake
# (Dao-AILab/quack issue #206, PR #207): the MMA warp and the epilogue
# warps call griddepcontrol_wait() before they decode their first tile from
# cu_seqlens_m, as the AB-load and scheduler warps already did.
# expect: pass
@cake.schedule(target="sm_100a")
def quack_sm100_varlen_mma_epi_wait_then_decode_fixed(lm, A: LM.tma2d, B: LM.tma3d, D: LM.tma2d,
                                                     CuSeqlens: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    lm.grid_dependency(A)
    lm.grid_dependency(CuSeqlens)
    pool     = lm.smem(163840)
    smem_a   = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b   = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_d   = pool.view(offset=131072, shape=(128, 128), dtype=lm.bf16, stages=1)
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    acc_r    = lm.regs(shape=(128, 128), dtype=lm.f32)
    seg      = lm.regs(shape=(1, 2), dtype=lm.i32)        # cu_seqlens_m[g], cu_seqlens_m[g + 1]

    epi   = lm.role(warps=[0, 1, 2, 3])
    mma   = lm.role(warps=[4])
    load  = lm.role(warps=[5])
    sched = lm.role(warps=[6])

    pipe     = lm.pipeline(stages=4)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    g     = lm.block_idx(2)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with sched:
        lm.grid_dep_wait()
        lm.copy(seg, CuSeqlens, coords=(0, g))           # decodes the first tile for the CLC pipeline

    with load:
        lm.grid_dep_wait()
        lm.copy(seg, CuSeqlens, coords=(0, g))
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(g, n_blk, k * 64), iter=k, barrier=full)

    with mma:
        lm.grid_dep_wait()                               # the fix (PR #207)
        lm.copy(seg, CuSeqlens, coords=(0, g))
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(tmem_acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit(barrier=empty, iter=k)
        lm.mma_commit(barrier=acc_full, stage=0)

    with epi:
        lm.grid_dep_wait()                               # the fix (PR #207)
        lm.copy(seg, CuSeqlens, coords=(0, g))
        lm.wait(acc_full, stage=0)
        lm.copy(acc_r, tmem_acc)
        lm.copy(smem_d[0], acc_r)
        lm.fence_proxy()
        smem_d.tma_store(D, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
