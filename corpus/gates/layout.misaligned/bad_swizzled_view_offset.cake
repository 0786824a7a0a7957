# GATE layout.misaligned (bad): a 512-byte scratch area was put at the
# start of the pool and the 128B-swizzled operand rings moved up by 512
# bytes: smem_a starts at byte 512, but a 128B-swizzled slot must start
# on a 1024-byte boundary (the swizzle pattern is a function of the
# address bits; TMA and the wgmma descriptor assume the atom is
# aligned).  smem_b (at 16896) is misaligned the same way.
# Fix: good_swizzled_view_offset.cake - keep swizzled rings 1024-aligned
# and place small buffers after them.
# expect: layout.misaligned
@cake.schedule(target="sm_90a")
def gemm_misaligned_ring(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(66048)
    smem_a = pool.view(offset=512, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")  # expect-error: layout.misaligned
    smem_b = pool.view(offset=16896, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")  # expect-error: layout.misaligned
    smem_c = pool.view(offset=49664, shape=(64, 128), dtype=lm.bf16, stages=1)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with math:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        for h in lm.range(0, 1):
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[h], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=h)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
