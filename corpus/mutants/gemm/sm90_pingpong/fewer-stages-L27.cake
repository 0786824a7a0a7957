# mutant: fewer-stages
# original: corpus/gemm/sm90_pingpong.cake
# line: 27: smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
# change: stages: `4` -> `3`
# label: bad (sync.race, data.stale-read) by the explicit-state simulator (encoder/simulator.h), M in {1, 80, 208, 272, 528}, N in {1, 144, 400, 528, 1040}, K in {1, 80, 208, 272, 528} (60 combinations with every trip count <= 9); block_idx 0 of grid_dim 1; 20539 states; first violation: sync.race: producer writes pool [0, 8192) while its own TMA load (not landed yet) writes it at `smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)` (line 53) (M=1, N=1, K=272)
# expect-any: sync.race data.stale-read
# Hopper persistent "ping-pong" GEMM (CUTLASS KernelTmaWarpSpecializedPingpong).
# Two consumer warpgroups work on DIFFERENT output tiles (64x128 each):
# instance i takes the CTA's tiles t = i, i+2, i+4, ...  They take turns on
# the tensor cores through an ordering barrier (CUTLASS's
# math_wg_order_barrier): the warpgroup that owns tile t waits until the
# owner of tile t-1 has finished its mainloop, so one warpgroup's epilogue
# overlaps the other's mainloop.
# The turn-taking is also what keeps the shared TMA ring's phases honest:
# without it, warpgroup 1 could wait on a full-barrier phase one lap ahead
# of the slot while warpgroup 0 still owns that slot
# (bugs/sync.stale-phase/sm90_pingpong_no_order_barrier.cake).
#  * ring iteration it = t*k_tiles + k is global; only the owning
#    warpgroup consumes (and releases) an iteration -> empty init_count=1.
#  * order: slot i = "warpgroup i may start", derived phases; the owner of
#    tile t arrives on the other warpgroup's slot after its mainloop.  The
#    last such arrive has no waiter (a completed phase nobody waits for).
#  * epilogue: each warpgroup has its own staging slot and drains its
#    previous store before rewriting it.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def gemm_sm90_pingpong(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                       M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(131072)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=98304, shape=(64, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=1, pipeline=pipe)
    order = lm.barrier(count=2, prod=[consumers], cons=[consumers], init_count=1)

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
            if t > 0:
                lm.wait(order, stage=lm.instance())
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            lm.arrive(order, stage=1 - lm.instance())
            # epilogue overlaps the other warpgroup's mainloop
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[lm.instance()], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=lm.instance())
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
