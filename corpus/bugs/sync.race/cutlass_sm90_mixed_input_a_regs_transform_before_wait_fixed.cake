# FIXED form of cutlass_sm90_mixed_input_a_regs_transform_before_wait.cake:
# the mainloop of CUTLASS v4.0.0 (the form sgl-project/sglang PR #9392
# adopted).  Every k-block's commit is followed by
# warpgroup_wait<K_WAIT_MAX>() (K_WAIT_MAX = min(K_BLOCK_MAX - 1, 7)), which
# retires the previous k-tile's wgmma of k-block j + 1 before the transform
# rewrites its A registers; the first k-tile issues each k-block's wgmma
# before converting the next k-block, and the last k-tile converts from the
# k-blocks already prefetched.  Everything else is unchanged.
# lower: unsupported (the column slice of an mma operand must start at a constant: the k-blocks are a loop over j)
# expect: pass
@cake.schedule(target="sm_90a")
def cutlass_sm90_mixed_input_a_regs_transform_before_wait_fixed(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(45056)
    smem_a = pool.view(offset=0,     shape=(64, 64), dtype=lm.i8,   stages=3, swizzle="64B")
    smem_b = pool.view(offset=12288, shape=(64, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c = pool.view(offset=36864, shape=(64, 64), dtype=lm.bf16, stages=1)
    a_load = lm.regs(shape=(64, 64), dtype=lm.i8)      # tCrA_load
    a_mma  = lm.regs(shape=(64, 64), dtype=lm.bf16)    # tCrA_mma
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)

    producer = lm.role(warps=[0])
    math     = lm.role(warps=[4, 5, 6, 7])

    pipe  = lm.pipeline(stages=3)
    full  = lm.barrier(prod=[producer], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[producer], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 64

    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 3)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with math:
        # first k tile
        lm.wait(full, iter=0)
        lm.copy(a_load[:, 0:16], smem_a[0][:, 0:16])
        lm.copy(a_load[:, 16:32], smem_a[0][:, 16:32])
        lm.copy(a_mma[:, 0:16], a_load[:, 0:16])
        for j in lm.range(0, 4):
            lm.mma(acc, a_mma[:, 16 * j:16 * j + 16], smem_b[0][:, 16 * j:16 * j + 16], init=(j == 0))
            lm.mma_commit()
            if j < 2:
                lm.copy(a_load[:, 16 * j + 32:16 * j + 48], smem_a[0][:, 16 * j + 32:16 * j + 48])
            if j < 3:
                lm.copy(a_mma[:, 16 * j + 16:16 * j + 32], a_load[:, 16 * j + 16:16 * j + 32])
        if k_tiles > 1:
            lm.wait(full, iter=1)
            lm.copy(a_load[:, 0:16], smem_a[1][:, 0:16])
            lm.copy(a_load[:, 16:32], smem_a[1][:, 16:32])
            lm.mma_wait(pending=3)                  # warpgroup_wait<K_BLOCK_MAX - 1>
            lm.copy(a_mma[:, 0:16], a_load[:, 0:16])
        # mainloop: k tiles 1 .. k_tiles - 2
        for k in lm.range(1, k_tiles - 1):
            for j in lm.range(0, 4):
                lm.mma(acc, a_mma[:, 16 * j:16 * j + 16], smem_b[k][:, 16 * j:16 * j + 16], init=False)
                lm.mma_commit()
                lm.mma_wait(pending=3)              # warpgroup_wait<K_WAIT_MAX> after every k-block
                if j == 3:
                    lm.fence_proxy()
                    lm.arrive(empty, iter=k - 1)    # consumer_release(smem_pipe_release)
                    lm.wait(full, iter=k + 1)
                    lm.copy(a_load[:, 0:16], smem_a[k + 1][:, 0:16])
                    lm.copy(a_load[:, 16:32], smem_a[k + 1][:, 16:32])
                    lm.copy(a_mma[:, 0:16], a_load[:, 0:16])
                else:
                    if j < 2:
                        lm.copy(a_load[:, 16 * j + 32:16 * j + 48], smem_a[k][:, 16 * j + 32:16 * j + 48])
                    lm.copy(a_mma[:, 16 * j + 16:16 * j + 32], a_load[:, 16 * j + 16:16 * j + 32])
        # last k tile
        if k_tiles > 1:
            kl = k_tiles - 1
            for j in lm.range(0, 4):
                lm.mma(acc, a_mma[:, 16 * j:16 * j + 16], smem_b[kl][:, 16 * j:16 * j + 16], init=False)
                lm.mma_commit()
                lm.mma_wait(pending=3)
                if j == 3:
                    lm.fence_proxy()
                    lm.arrive(empty, iter=kl - 1)
                if j < 2:
                    lm.copy(a_load[:, 16 * j + 32:16 * j + 48], smem_a[kl][:, 16 * j + 32:16 * j + 48])
                if j < 3:
                    lm.copy(a_mma[:, 16 * j + 16:16 * j + 32], a_load[:, 16 * j + 16:16 * j + 32])
        # mma_tail
        lm.mma_wait(pending=0)
        lm.fence_proxy()
        lm.arrive(empty, iter=k_tiles - 1)
        lm.copy(smem_c[0], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
