# FIXED: triton_swp_later_cluster_wait_three_buffers.cake with the buffer
# count that triton-lang/triton PR #10976 computes (one effective-stage
# helper for the ordinary uses and the completion waits: max(2, 4) = 4
# buffers).  The load of i + 3 now goes to buffer (i + 3) mod 4 = (i - 1)
# mod 4, whose MMA was retired by the completion wait of i - 1 at the end of
# the previous body.
# expect: pass
@cake.schedule(target="sm_100a")
def triton_swp_later_cluster_wait_four_buffers(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(131072)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    acc    = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.f32)

    cta  = lm.role(warps=[0, 1, 2, 3])
    ring = lm.pipeline(stages=4)
    full = lm.barrier(prod=[cta], cons=[cta], init_count=1, pipeline=ring)
    done = lm.barrier(prod=[cta], cons=[cta], init_count=1, pipeline=ring)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with cta:
        for j in lm.range(0, 3):                        # prologue: loads of 0, 1, 2
            if j < k_tiles:
                smem_a.tma_load(A, coords=(m_blk, j * 64), iter=j, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, j * 64), iter=j, barrier=full)
        lm.wait(full, iter=0)                           # prologue: consumer(0)
        lm.mma(acc, smem_a[0], smem_b[0], init=True)
        lm.mma_commit(barrier=done, iter=0)
        for i in lm.range(0, k_tiles):
            if i + 1 < k_tiles:                         # cluster 0: consumer(i + 1)
                lm.wait(full, iter=i + 1)
                lm.mma(acc, smem_a[i + 1], smem_b[i + 1], init=False)
                lm.mma_commit(barrier=done, iter=i + 1)
            if i + 3 < k_tiles:                         # cluster 2: producer(i + 3)
                smem_a.tma_load(A, coords=(m_blk, (i + 3) * 64), iter=i + 3, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, (i + 3) * 64), iter=i + 3, barrier=full)
            lm.wait(done, iter=i)                       # cluster 3: completion wait(i)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
