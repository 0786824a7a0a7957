# BUG (sync.race): FlashAttention-4's CuTe DSL SM100 forward with block
# sparsity (flex attention), as fixed by Dao-AILab/flash-attention PR #2258
# ("[Cute][Flex] Fix kernel hang w/ multiple empty tiles", bug 2): for a
# tile with no KV block the softmax/correction side still arrived on the
# barrier that hands the O accumulator back to the MMA warp, although the
# MMA warp never waits for an empty tile - an arrival with no matching
# waiter.  The surplus completions let the MMA warp's next wait pass a
# tile early, so it starts overwriting O in TMEM while the correction
# warpgroup is still reading the previous tile's O (or hangs later, with
# the phases out of step).
# Written with stage= and implicit phases everywhere (IR.md: each wait and
# each arrival on a slot counts this instance's earlier ones).
# Modelled as fa4_flex_empty_tile_phase_flip.cake (TMA warp, MMA warp with
# O in TMEM, correction warpgroup, tiles below first_work empty).
# Fix: fa4_flex_empty_tile_extra_arrive_fixed.cake (no arrival for an
# empty tile).
# expect: sync.race
# may-also: sync.lost-phase sync.stale-phase sync.arrival-overflow sync.deadlock data.stale-read
@cake.schedule(target="sm_100a")
def fa4_flex_empty_tile_extra_arrive(lm, A: LM.tma2d, B: LM.tma2d, O: LM.tma2d, M: LM.i32, K: LM.i32, first_work: LM.i32):
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
                    lm.mma(tmem_o, smem_a[it], smem_b[it], init=(k == 0))   # expect-error: sync.race
                    lm.mma_commit(barrier=empty, iter=it)
                lm.mma_commit(barrier=o_full, stage=0)

    with corr:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            if t >= n_empty:
                lm.wait(o_full, stage=0)
                lm.copy(o_frag, tmem_o)                               # expect-error: sync.race
                lm.arrive(o_empty, stage=0)
            else:
                lm.fill(o_frag, 0.0)
                lm.arrive(o_empty, stage=0)                            # expect-error: sync.race
            lm.tma_store_wait(pending=0)
            lm.copy(smem_o[0], o_frag)
            lm.fence_proxy()
            smem_o.tma_store(O, coords=(tile * 128, 0), stage=0)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
