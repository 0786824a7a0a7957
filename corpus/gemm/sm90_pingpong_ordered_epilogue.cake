# Hopper persistent ping-pong GEMM whose two math warpgroups take turns on
# BOTH the mainloop and the epilogue and share the epilogue's smem store
# buffers (CUTLASS KernelTmaWarpSpecializedPingpong,
# include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp:
# the OrderedSequenceBarrier `math_wg_order_barrier` has SequenceDepth 2 -
# one wait/arrive pair around collective_mainloop.mma, a second around
# collective_epilogue.store - and the epilogue's store pipeline state is
# shared: warpgroup 1 starts with it advanced past warpgroup 0's stores).
#  * order_mma / order_epi: slot i = "warpgroup i may start its mainloop /
#    epilogue"; the owner of tile t arrives on the other warpgroup's slot
#    when it is done.  Derived phases (stage=): the n-th wait of an
#    instance on its slot waits for the other's n-th arrive.
#  * epilogue: each 64x128 tile goes out as two 64x64 subtiles through the
#    two SHARED staging slots smem_d[0], smem_d[1].  Within a turn, a
#    warpgroup keeps one store in flight (tma_store_wait(pending=1) before
#    rewriting a slot); before handing the epilogue turn over it drains
#    its stores (tma_store_wait(pending=0), CUTLASS's store_tail), so the
#    other warpgroup may rewrite both slots: a TMA store's bulk group is
#    tracked per thread, and the other warpgroup cannot wait for it.
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_sm90_pingpong_ordered_epilogue(lm, A: LM.tma2d, B: LM.tma2d, D: LM.tma2d,
                                        M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(122880)
    smem_a = pool.view(offset=0,      shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=32768,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_d = pool.view(offset=98304,  shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=1, pipeline=pipe)
    order_mma = lm.barrier(count=2, prod=[consumers], cons=[consumers], init_count=1)
    order_epi = lm.barrier(count=2, prod=[consumers], cons=[consumers], init_count=1)

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
                lm.wait(order_mma, stage=lm.instance())
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            lm.arrive(order_mma, stage=1 - lm.instance())
            if t > 0:
                lm.wait(order_epi, stage=lm.instance())
            lm.tma_store_wait(pending=1)
            lm.copy(smem_d[0], acc[:, 0:64])
            lm.fence_proxy()
            smem_d.tma_store(D, coords=(m_blk, n_blk), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=1)
            lm.copy(smem_d[1], acc[:, 64:128])
            lm.fence_proxy()
            smem_d.tma_store(D, coords=(m_blk, n_blk + 64), stage=1)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(order_epi, stage=1 - lm.instance())
