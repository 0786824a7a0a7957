# FIXED form of triton_wgmma_rs_persistent_epilogue_no_wait.cake
# (triton-lang/triton PR #8964): the epilogue waits for every wgmma group
# (mma_wait(pending=0)) before it reads the accumulator, and only then
# releases the tile's last ring slot.
# expect: pass
@cake.schedule(target="sm_90a")
def triton_wgmma_rs_persistent_epilogue_no_wait_fixed(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(122880)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=24576, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c = pool.view(offset=73728, shape=(64, 128), dtype=lm.bf16)
    a_frag0 = lm.regs(shape=(64, 64), dtype=lm.bf16)
    a_frag1 = lm.regs(shape=(64, 64), dtype=lm.bf16)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    tma  = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=3)
    full  = lm.barrier(prod=[tma], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[tma], init_count=1, pipeline=pipe)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 64)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with tma:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 3)
                smem_a.tma_load(A, coords=((tile % tiles_m) * 64, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=((tile // tiles_m) * 128, k * 64), iter=it, barrier=full)

    with math:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 64
            n_blk = (tile // tiles_m) * 128
            lm.tma_store_wait(pending=0)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                # two register A fragments: the group still in flight reads the other one
                if k % 2 == 0:
                    lm.copy(a_frag0, smem_a[it])
                    lm.fence_proxy()
                    lm.mma(acc, a_frag0, smem_b[it], init=(k == 0))
                else:
                    lm.copy(a_frag1, smem_a[it])
                    lm.fence_proxy()
                    lm.mma(acc, a_frag1, smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=1)
                if k > 0:
                    lm.arrive(empty, iter=it - 1)
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)
            lm.copy(smem_c[0], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
