# RESPELLING of corpus/bugs/data.stale-read/tilelang_ws_persistent_slot_k_vs_phase.cake
# (tile-ai/tilelang PR #2441), helper respell43: ONE change, the MMA operands indexed
# smem_a[k % 8] (a multiple of the stages: the same slot as smem_a[k]) instead of smem_a[k].
# Broken twin of ..._fixed_r5.cake (smem_a[it % 8]).
# expect: data.stale-read
@cake.schedule(target="sm_100a")
def tilelang_ws_persistent_slot_k_vs_phase(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool     = lm.smem(163840)
    smem_a   = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b   = pool.view(offset=65536,  shape=(128, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c   = pool.view(offset=131072, shape=(128, 128), dtype=lm.bf16)
    tmem_c   = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    c_frag   = lm.regs(shape=(128, 128), dtype=lm.f32)

    tma = lm.role(warps=[0])
    mma = lm.role(warps=[1])
    epi = lm.role(warps=[4, 5, 6, 7])

    pipe      = lm.pipeline(stages=4)
    loaded    = lm.barrier(prod=[tma], cons=[mma], init_count=1, pipeline=pipe)
    consumed  = lm.barrier(prod=[mma], cons=[tma], init_count=1, pipeline=pipe)
    acc_full  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    acc_empty = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=1)

    k_blocks  = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 128)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with tma:
        for w in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + w * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_blocks):
                it = w * k_blocks + k
                lm.wait(consumed, iter=it - 4)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=loaded)
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=loaded)

    with mma:
        for w in lm.range(0, my_tiles):
            if w > 0:
                lm.wait(acc_empty, stage=0)
            for k in lm.range(0, k_blocks):
                it = w * k_blocks + k
                lm.wait(loaded, iter=it)
                lm.mma(tmem_c, smem_a[k % 8], smem_b[k % 8], init=(k == 0))   # expect-error: data.stale-read
                lm.mma_commit(barrier=consumed, stage=k % 4)
            lm.mma_commit(barrier=acc_full, stage=0)

    with epi:
        for w in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + w * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            lm.wait(acc_full, stage=0)
            lm.copy(c_frag, tmem_c)
            lm.arrive(acc_empty, stage=0)
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[0], c_frag)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
