# Hopper persistent warp-specialized GEMM with a source-C epilogue that
# writes D INTO the source buffer (CUTLASS sm90 CollectiveEpilogue
# <Sm90TmaWarpSpecialized>, sm90_epilogue_tma_warpspecialized.hpp with
# ReuseSmemC = true).  The producer warp loads C through TMA, two 64-row
# boxes per tile into the 4-slot view smem_c (slots 2*(t%2) and 2*(t%2)+1,
# one c_full slot and lap per tile).  Consumer warpgroup i reads its box
# (tiled_s2r, generic), adds it to its accumulator, writes D back over the
# same bytes (generic), fences (fence_view_async_shared: one fence covers
# the earlier shared loads and the stores) and TMA-stores D from that slot.
# The C buffer is released only once the store that reads it has retired:
# CUTLASS's "store_finished" - after the next tile's store is committed,
# producer_acquire (tma_store_wait<StagesD-1>, here pending=1) retires the
# previous store and consumer_release frees the previous tile's C slot.
# The last tile's slot is never released (no load waits for it).
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_sm90_epilogue_reuse_smem_c(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, D: LM.tma2d,
                                M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(163840)
    smem_a = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=49152,  shape=(128, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c = pool.view(offset=98304,  shape=(64, 128),  dtype=lm.bf16, stages=4)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    c_r    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe   = lm.pipeline(stages=3)
    full   = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty  = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)
    c_full  = lm.barrier(count=2, prod=[producer], cons=[consumers], init_count=1)
    c_empty = lm.barrier(count=2, prod=[consumers], cons=[producer], init_count=2)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 128)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 3)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=full)
            # epilogue load of the source tile (CUTLASS collective_epilogue.load)
            lm.wait(c_empty, iter=t - 2)
            smem_c[2 * (t % 2)].tma_load(C, coords=(m_blk, n_blk), iter=t, barrier=c_full)
            smem_c[2 * (t % 2) + 1].tma_load(C, coords=(m_blk + 64, n_blk), iter=t, barrier=c_full)

    with consumers:
        m0 = 64 * lm.instance()
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it][m0:m0 + 64, :], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            # epilogue: S2R of the source box, D written over it, TMA store
            s = 2 * (t % 2) + lm.instance()
            lm.wait(c_full, iter=t)
            lm.copy(c_r, smem_c[s])
            lm.binary(acc, acc, c_r, op="add")
            lm.copy(smem_c[s], acc)
            lm.fence_proxy()
            smem_c.tma_store(D, coords=(m_blk + m0, n_blk), stage=s)
            lm.tma_store_commit()
            # store_finished: the previous tile's store has read its slot
            lm.tma_store_wait(pending=1)
            if t > 0:
                lm.arrive(c_empty, iter=t - 1)
        lm.tma_store_wait(pending=0)
