# BUG (sync.stale-phase): ping-pong GEMM without the math-warpgroup
# ordering barrier.  Both consumer warpgroups consume the one TMA ring, in
# iteration order it = t*k_tiles + k, but nothing now stops warpgroup 1
# (tile 1) from waiting on its first iterations while warpgroup 0 is still
# at the start of tile 0.  With k_tiles = 4, warpgroup 1 waits
# full iter=4 = slot 0, phase 1 while slot 0 has completed c = 0 phases
# (tile 0's k-block 0 not even landed): the hardware parity check
# (0 % 2 != 1 % 2) lets the wait pass a lap early.  It then multiplies a
# slot that holds - or is still receiving - k-block 0 of tile 0.
# Happens whenever k_tiles >= 3 and the CTA has >= 2 tiles.
# Models: CUTLASS KernelTmaWarpSpecializedPingpong without
# math_wg_order_barrier.
# Fix: gemm/sm90_pingpong.cake.
# expect: sync.stale-phase
# may-also: sync.race data.stale-read sync.arrival-overflow
@cake.schedule(target="sm_90a")
def gemm_sm90_pingpong_no_order(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                       M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(131072)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=98304, shape=(64, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=1, pipeline=pipe)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 64)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 64
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=full)

    with consumers:
        for t in lm.range(lm.instance(), my_tiles, 2):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 64
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)  # expect-error: sync.stale-phase
                lm.mma(acc, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            # epilogue overlaps the other warpgroup's mainloop
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[lm.instance()], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=lm.instance())
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
