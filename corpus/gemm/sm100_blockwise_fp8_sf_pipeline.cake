# CUTLASS's Blackwell FP8 GEMM with blockwise scaling: the scale factors
# travel on their OWN pipeline, loaded by their own warp with cp.async and
# consumed by the epilogue warps, which scale each K block's partial
# product out of TMEM and accumulate it in registers
# (NVIDIA/cutlass include/cutlass/gemm/collective/
# sm100_mma_warpspecialized_blockwise_scaling.hpp: MainloopABPipeline =
# PipelineTmaUmmaAsync, MainloopSFPipeline = PipelineAsync, Accumulator-
# Pipeline = PipelineUmmaAsync; the kernel's WarpCategory: MMA = 0,
# Sched = 1, MainloopABLoad = 2, EpilogueLoad = 3, Epilogue = 4..7,
# MainloopSFLoad = 8).  One 128x128 output tile per CTA, TileK = 128 =
# ScaleGranularityK (ScaleKsPerTile = 1), SFA per (row, K block), SFB per
# (128 columns, K block); scheduler and epilogue-load warps left out.
#  * AB load warp: producer_acquire (empty a ring lap back), TMA A and B
#    into slot k % 4 on full.
#    At the end load_ab_tail (producer_tail) waits every slot's release.
#  * SF load warp (load_sf): producer_acquire on the SF ring, cp.async of
#    the tile's SFA column and SFB entry into slot k % 4, producer_commit
#    with cpasync_barrier_arrive_noinc: the arrival lands when the copies
#    have.  Written as cp_async_commit, cp_async_wait(0) and an arrive
#    (the same order, one barrier arrival per warp instance); then
#    load_sf_tail.
#  * MMA warp (mma): per K block, consumer_wait(full), accumulator_pipeline
#    .producer_acquire (the TMEM partial a lap back is drained), the MMAs
#    into partial k % 2 with ScaleOut::Zero first, producer_commit (a
#    tcgen05.commit to acc_full), then consumer_release of the AB slot (a
#    second tcgen05.commit to empty: it tracks the same MMAs).
#  * epilogue warps (accum): per K block, consumer_wait on the SF slot,
#    copy the scales to registers, consumer_release; consumer_wait on the
#    partial, tcgen05.ld it in two 64-column halves, scale by
#    SFA * SFB and add into the register accumulator, then
#    consumer_release of the partial.  After the K loop: the epilogue
#    stores the accumulator (st.global here).
# Mutant: bugs/sync.race/sm100_blockwise_sf_release_before_copy.cake.
# expect: pass
@cake.schedule(target="sm_100a")
def cutlass_sm100_blockwise_fp8(lm, A: LM.tma2d, B: LM.tma2d, SFA: LM.gmem, SFB: LM.gmem,
                                D: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool     = lm.smem(133184)
    smem_a   = pool.view(offset=0,      shape=(128, 128), dtype=lm.e4m3, stages=4, swizzle="128B")
    smem_b   = pool.view(offset=65536,  shape=(128, 128), dtype=lm.e4m3, stages=4, swizzle="128B")
    smem_sfa = pool.view(offset=131072, shape=(128, 1),   dtype=lm.f32,  stages=4)
    smem_sfb = pool.view(offset=133120, shape=(4, 1),     dtype=lm.f32,  stages=4)
    part0    = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    part1    = lm.tmem(cols=128, width=128, shape=(128, 128), dtype=lm.f32)
    acc_lo   = lm.regs(shape=(128, 64), dtype=lm.f32)
    acc_hi   = lm.regs(shape=(128, 64), dtype=lm.f32)
    part_r   = lm.regs(shape=(128, 64), dtype=lm.f32)
    sfa_r    = lm.regs(shape=(128, 1), dtype=lm.f32)
    sfb_r    = lm.regs(shape=(1, 1), dtype=lm.f32)
    scale    = lm.regs(shape=(128, 1), dtype=lm.f32)

    mma     = lm.role(warps=[0])
    load_ab = lm.role(warps=[2])
    epi     = lm.role(warps=[4, 5, 6, 7])
    load_sf = lm.role(warps=[8])

    pipe      = lm.pipeline(stages=4)
    full      = lm.barrier(prod=[load_ab], cons=[mma], init_count=1, pipeline=pipe)
    empty     = lm.barrier(prod=[mma], cons=[load_ab], init_count=1, pipeline=pipe)
    sf_full   = lm.barrier(prod=[load_sf], cons=[epi], init_count=1, pipeline=pipe)
    sf_empty  = lm.barrier(prod=[epi], cons=[load_sf], init_count=1, pipeline=pipe)
    accp      = lm.pipeline(stages=2)
    acc_full  = lm.barrier(prod=[mma], cons=[epi], init_count=1, pipeline=accp)
    acc_empty = lm.barrier(prod=[epi], cons=[mma], init_count=1, pipeline=accp)

    k_tiles = lm.cdiv(K, 128)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with load_ab:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 128), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 128), iter=k, barrier=full)
        # load_ab_tail: producer_tail waits every slot's last release
        for k in lm.range(k_tiles, k_tiles + 4):
            lm.wait(empty, iter=k - 4)

    with load_sf:
        for k in lm.range(0, k_tiles):
            lm.wait(sf_empty, iter=k - 4)
            smem_sfa.cp_async(SFA, coords=(m_blk, k), iter=k)
            smem_sfb.cp_async(SFB, coords=(lm.block_idx(1) * 4, k), iter=k)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.arrive(sf_full, iter=k)
        # load_sf_tail
        for k in lm.range(k_tiles, k_tiles + 4):
            lm.wait(sf_empty, iter=k - 4)

    with mma:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.wait(acc_empty, iter=k - 2)
            if k % 2 == 0:
                lm.mma(part0, smem_a[k], smem_b[k], init=True)
            else:
                lm.mma(part1, smem_a[k], smem_b[k], init=True)
            lm.mma_commit(barrier=acc_full, iter=k)
            lm.mma_commit(barrier=empty, iter=k)

    with epi:
        lm.fill(acc_lo, 0.0)
        lm.fill(acc_hi, 0.0)
        for k in lm.range(0, k_tiles):
            lm.wait(sf_full, iter=k)
            lm.copy(sfa_r, smem_sfa[k])
            lm.copy(sfb_r, smem_sfb[k][0:1, :])
            lm.arrive(sf_empty, iter=k)
            lm.binary(scale, sfa_r, sfb_r, op="mul")
            lm.wait(acc_full, iter=k)
            if k % 2 == 0:
                lm.tmem_load(part_r, part0[:, 0:64])
            else:
                lm.tmem_load(part_r, part1[:, 0:64])
            lm.tmem_load_wait()
            lm.binary(part_r, part_r, scale, op="mul")
            lm.binary(acc_lo, acc_lo, part_r, op="add")
            if k % 2 == 0:
                lm.tmem_load(part_r, part0[:, 64:128])
            else:
                lm.tmem_load(part_r, part1[:, 64:128])
            lm.tmem_load_wait()
            lm.binary(part_r, part_r, scale, op="mul")
            lm.binary(acc_hi, acc_hi, part_r, op="add")
            lm.arrive(acc_empty, iter=k)
        lm.copy(D, acc_lo, coords=(m_blk, n_blk))
        lm.copy(D, acc_hi, coords=(m_blk, n_blk + 64))
