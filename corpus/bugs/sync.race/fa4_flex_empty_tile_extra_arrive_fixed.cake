# FIXED form of fa4_flex_empty_tile_extra_arrive.cake (Dao-AILab/flash-attention
# PR #2258, bug 2): the correction warpgroup arrives on o_empty only for the
# tiles whose O it actually read; implicit phases throughout.
# expect: pass
@cake.schedule(target="sm_100a")
def fa4_flex_empty_tile_extra_arrive_fixed(lm, A: LM.tma2d, B: LM.tma2d, O: LM.tma2d, M: LM.i32, K: LM.i32, first_work: LM.i32):
    lm.assume(M > 0)
    lm.assume(K > 0)
    pool   = lm.smem(98304)
    smem_a = pool.view(offset=0,     shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_o = pool.view(offset=65536, shape=(128, 128), dtype=lm.bf16)
    tmem_o = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    o_frag = lm.regs(shape=(128, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    mma  = lm.role(warps=[1])
    corr = lm.role(warps=[4, 5, 6, 7])

    pipe    = lm.pipeline(stages=2)
    full    = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty   = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    o_full  = lm.barrier(count=1, prod=[mma], cons=[corr], init_count=1)
    o_empty = lm.barrier(count=1, prod=[corr], cons=[mma], init_count=1)

    k_tiles   = lm.cdiv(K, 64)
    num_tiles = lm.cdiv(M, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))
    # tiles below first_work have no KV block (block-sparse empty rows);
    # this CTA's first n_empty tiles are empty
    n_empty   = min(my_tiles, lm.cdiv(max(first_work - lm.block_idx(0), 0), lm.grid_dim(0)))

    with load:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            if t >= n_empty:
                for k in lm.range(0, k_tiles):
                    it = (t - n_empty) * k_tiles + k
                    lm.wait(empty, iter=it - 2)
                    smem_a.tma_load(A, coords=(tile * 128, k * 64), iter=it, barrier=full)
                    smem_b.tma_load(B, coords=(0, k * 64), iter=it, barrier=full)

    with mma:
        for t in lm.range(0, my_tiles):
            if t >= n_empty:
                w = t - n_empty
                if w > 0:
                    lm.wait(o_empty, stage=0)
                for k in lm.range(0, k_tiles):
                    it = w * k_tiles + k
                    lm.wait(full, iter=it)
                    lm.mma(tmem_o, smem_a[it], smem_b[it], init=(k == 0))
                    lm.mma_commit(barrier=empty, iter=it)
                lm.mma_commit(barrier=o_full, stage=0)

    with corr:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            if t >= n_empty:
                lm.wait(o_full, stage=0)
                lm.copy(o_frag, tmem_o)
                lm.arrive(o_empty, stage=0)
            else:
                lm.fill(o_frag, 0.0)
            lm.tma_store_wait(pending=0)
            lm.copy(smem_o[0], o_frag)
            lm.fence_proxy()
            smem_o.tma_store(O, coords=(tile * 128, 0), stage=0)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
