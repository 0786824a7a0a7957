# BUG (sync.race): persistent Hopper GEMM whose pipeline iteration restarts
# at 0 for every tile (iter=k instead of iter=t*k_tiles+k).
# On tile t>=1 the producer's "wait(empty, iter=k-4)" for k<4 names a
# negative iteration and passes at once - it believes the ring is empty
# again - and refills slot k%4 while the consumers may still be multiplying
# the previous tile's k-blocks out of that slot.  (With k_tiles > 4 the
# restarted phase numbers are also wrong: a later wait names a phase that
# already completed twice -> lost phase, or passes a lap early -> stale
# phase; a checker may report those too.)
# Models: gemm/sm90_persistent_ws.cake with the global ring counter removed.
# Fix: gemm/sm90_persistent_ws.cake (it = t * k_tiles + k everywhere).
# expect: sync.race
# may-also: sync.lost-phase sync.stale-phase data.stale-read sync.arrival-overflow
@cake.schedule(target="sm_90a")
def gemm_persistent_restart(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                            M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(196608)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(64, 128), dtype=lm.bf16, stages=4)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

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
                lm.wait(empty, iter=k - 4)  # expect-error: sync.race
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)  # expect-error: sync.race
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)  # expect-error: sync.race

    with consumers:
        m0 = 64 * lm.instance()
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                lm.wait(full, iter=k)
                lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k == 0))  # expect-error: sync.race
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=k)
            s = 2 * lm.instance() + t % 2
            lm.tma_store_wait(pending=1)
            lm.copy(smem_c[s], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=s)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
