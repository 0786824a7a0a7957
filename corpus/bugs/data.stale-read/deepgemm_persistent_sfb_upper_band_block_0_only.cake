# BUG (data.stale-read): warpgroup 1 copies its half of the per-tile
# B-scale row (columns 32..63) on block 0 only (`if wg == 0 or
# lm.block_idx(0) == 0:`, as if the band were multicast from the cluster's
# leader): on every other block those columns are never written.  They are
# read only from K step 32 on, K > 4096: the far K of session 38 ran on
# block 0 only, and the schedule exited 0 *checked* until session 39
# (helper cover39: the far values also run from a binding of each other
# vector of the guards' outcomes, docs/known-limits.md "Covering values past
# far thresholds").  Fixed form: the file it is edited from.
# Edited from corpus/gemm/sm90_deepgemm_persistent_sfb_stage_indexed.cake:
# DeepGEMM's persistent FP8 1D2D GEMM on Hopper with the per-tile B-scale
# row read as the source names it: smem_sfb[0] (one slot), written once per
# tile by the math warpgroups (a column band each) and read one column per
# K step (corpus/gemm/sm90_deepgemm_persistent_sfb_tail_stages.cake, which
# explains the kernel, names it by tile).  Each column is read once per
# tile: a return to the slot counts over the bytes read before, so the
# K step that reads a column for the first time in a tile means the tile's
# lap: docs/rules/data.stale-read.md "Returns are counted per byte" (a
# false data.stale-read before, at the second K step of tile 1).
# lower: unsupported (the A-scale row, a 1 x 64 slice of the SFA slot, broadcast as a 64 x 1 column against the wgmma fragment is not lowered)
# expect: data.stale-read
@cake.schedule(target="sm_90a")
def deepgemm_fp8_1d2d_persistent_stage_indexed(lm, A: LM.tma2d, B: LM.tma2d, SFA: LM.tma2d, SFB: LM.gmem, D: LM.tma2d,
                                 M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    lm.assume(K <= 8192)
    pool     = lm.smem(100608)
    smem_d   = pool.view(offset=0,      shape=(128, 128), dtype=lm.bf16, stages=1)
    smem_a   = pool.view(offset=32768,  shape=(128, 128), dtype=lm.e4m3, stages=2, swizzle="128B")
    smem_b   = pool.view(offset=65536,  shape=(128, 128), dtype=lm.e4m3, stages=2, swizzle="128B")
    smem_sfa = pool.view(offset=98304,  shape=(1, 128),   dtype=lm.f32,  stages=2)
    smem_sfb = pool.view(offset=99328,  shape=(1, 64),    dtype=lm.f32,  stages=1)
    accum = lm.regs(shape=(64, 128), dtype=lm.f32)
    final = lm.regs(shape=(64, 128), dtype=lm.f32)
    sa    = lm.regs(shape=(64, 1),   dtype=lm.f32)
    sb    = lm.regs(shape=(1, 1),    dtype=lm.f32)
    sbv   = lm.regs(shape=(1, 32),   dtype=lm.f32)

    math = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=4, regs=232)
    tma  = lm.role(warps=[8, 9, 10, 11], regs=40)
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[tma], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[tma], init_count=8, pipeline=pipe)
    math_bar = lm.named_barrier(roles=[math])

    k_blocks  = lm.cdiv(K, 128)
    num_iters = lm.cdiv(K, 256)
    tiles_m   = lm.cdiv(M, 128)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with tma:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, num_iters):
                for s in lm.range(0, 2):
                    g = (t * num_iters + k) * 2 + s
                    lm.wait(empty, iter=g - 2)
                    if k * 2 + s < k_blocks:
                        smem_a.tma_load(A, coords=(m_blk, (k * 2 + s) * 128), iter=g, barrier=full)
                        smem_sfa.tma_load(SFA, coords=(k * 2 + s, m_blk), iter=g, barrier=full)
                        smem_b.tma_load(B, coords=(n_blk, (k * 2 + s) * 128), iter=g, barrier=full)
                        lm.expect_tx(full, 33280, iter=g)
                    else:
                        lm.arrive(full, iter=g)

    with math:
        wg = lm.instance()
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            lm.copy(sbv, SFB, coords=(n_blk // 128, 32 * wg))    # threads >= 32 in the kernel
            if wg == 0 or lm.block_idx(0) == 0:
                lm.copy(smem_sfb[0][:, 32 * wg:32 * wg + 32], sbv)
            lm.sync(math_bar)
            lm.fill(final, 0.0)
            for k in lm.range(0, num_iters):
                for s in lm.range(0, 2):
                    g  = (t * num_iters + k) * 2 + s
                    kb = k * 2 + s
                    if kb < k_blocks:
                        lm.copy(sb, smem_sfb[0][:, kb:kb + 1])
                        lm.wait(full, iter=g)
                        lm.copy(sa, smem_sfa[g][:, 64 * wg:64 * wg + 64])
                        lm.mma(accum, smem_a[g][64 * wg:64 * wg + 64, :], smem_b[g], init=True)
                        lm.mma_commit()
                        lm.mma_wait(pending=0)
                        lm.fence_proxy()
                        lm.arrive(empty, iter=g, count=4)
                        lm.binary(accum, accum, sa, op="mul")
                        lm.binary(accum, accum, sb, op="mul")
                        lm.binary(final, final, accum, op="add")
                    else:
                        lm.wait(full, iter=g)
                        lm.arrive(empty, iter=g, count=4)
            if wg == 0:
                lm.tma_store_wait(pending=0)
            lm.sync(math_bar)
            lm.copy(smem_d[0][64 * wg:64 * wg + 64, :], final)
            lm.fence_proxy()
            lm.sync(math_bar)
            if wg == 0:
                smem_d.tma_store(D, coords=(m_blk, n_blk), stage=0)
                lm.tma_store_commit()
        if wg == 0:
            lm.tma_store_wait(pending=0)
