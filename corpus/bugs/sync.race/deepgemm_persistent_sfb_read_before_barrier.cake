# BUG (sync.race): the named barrier after the per-tile B-scale copy is
# dropped ("the epilogue's barriers already order the tiles"): warpgroup 1
# then reads the half of smem_sfb that warpgroup 0 copies for this tile
# before (or while) warpgroup 0 writes it.
# Fixed form: corpus/gemm/sm90_deepgemm_persistent_sfb_tail_stages.cake.
# DeepGEMM's persistent FP8 1D2D GEMM on Hopper (deepseek-ai/DeepGEMM,
# deep_gemm/include/deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh), no multicast:
# BLOCK_M = 128 (two math warpgroups of 64 rows), BLOCK_N = BLOCK_K = 128,
# kNumStages = 2 here, persistent over output tiles.
#  * the K loop runs in k_iter blocks of ALL the stages (kFullKOfAllStages =
#    256 here): stage s of block k_iter is ring position (t * num_iterations +
#    k_iter) * 2 + s, always barrier slot s.  When K is not a multiple of 256
#    the last block has stages without data ("Wait unaligned cases"): the
#    TMA thread still waits empty[s] and arrives on full[s] with no bytes,
#    and the math warpgroups wait full[s] and release empty[s] without an
#    MMA, so every slot's phase keeps counting one per k_iter.
#  * full[s]: init 1, one arrive_and_expect_tx(A + B + SFA bytes) per stage;
#    the A-scale column (SFA, 128 floats) is a TMA load on the same barrier.
#    empty[s]: init kNumMathThreads / 32 = 8: lane 0 of each of the 8 math
#    warps arrives (count=4 per warpgroup instance).
#  * B scales: per tile every math thread but warp 0 copies the tile's
#    row of B scales from global memory into smem_sfb (st.shared), then a
#    named barrier over the 256 math threads; the K loop reads it with
#    ld.shared.  The next tile's copy is ordered after this tile's reads by
#    the epilogue's named barriers.  smem_sfb is named by tile (one slot,
#    index t): read by its stage index, the K loop's many reads per tile
#    are a false data.stale-read, docs/known-limits.md "data.stale-read: a
#    carried value read one round late, and a per-round table read many
#    times".
#  * promotion: wgmma into a temporary, wgmma wait, release, then
#    final += scale_a * scale_b * accum.  (cake's reading asks the warpgroup
#    that read the TMA-written SFA slot with ld.shared to fence before the
#    release, as corpus/cluster/sm90_deepgemm_leader_multicast_a.cake does;
#    DeepGEMM itself has no fence there, docs/known-limits.md.)
#  * epilogue: the storing threads (warp 0) tma_store_wait<0> for the
#    previous tile's store, named barrier, both warpgroups write smem_d
#    (STSM), tma_store_fence, named barrier, warp 0 issues the TMA store and
#    commits.  cake adds the final tma_store_wait before exit, which the
#    DeepGEMM kernel leaves out (IR.md: the block may not exit while a TMA
#    store still reads shared memory).
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def deepgemm_fp8_1d2d_persistent(lm, A: LM.tma2d, B: LM.tma2d, SFA: LM.tma2d, SFB: LM.gmem, D: LM.tma2d,
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
            lm.copy(smem_sfb[t][:, 32 * wg:32 * wg + 32], sbv)  # expect-error: sync.race
            lm.fill(final, 0.0)
            for k in lm.range(0, num_iters):
                for s in lm.range(0, 2):
                    g  = (t * num_iters + k) * 2 + s
                    kb = k * 2 + s
                    if kb < k_blocks:
                        lm.copy(sb, smem_sfb[t][:, kb:kb + 1])  # expect-error: sync.race
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
