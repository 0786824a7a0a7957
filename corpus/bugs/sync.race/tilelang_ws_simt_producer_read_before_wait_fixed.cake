# FIXED: tilelang_ws_simt_producer_read_before_wait.cake as tile-ai/tilelang
# PR #2166 fixes it: wait_insert_pos also counts SIMT (and cp.async)
# producers, so the consumer's mbarrier wait comes before its first read of
# any produced buffer - here the register load of the SIMT-filled A slot.
# expect: pass
@cake.schedule(target="sm_90a")
def tilelang_ws_simt_producer_wait_first(lm, A: LM.gmem, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2)
    smem_b = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_c = pool.view(offset=49152, shape=(64, 128), dtype=lm.bf16)
    a_ld   = lm.regs(shape=(64, 64), dtype=lm.bf16)
    a_frag = lm.regs(shape=(64, 64), dtype=lm.bf16)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer = lm.role(warps=[0, 1, 2, 3])
    consumer = lm.role(warps=[4, 5, 6, 7])

    ring  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[producer], cons=[consumer], init_count=2, pipeline=ring)
    empty = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=ring)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)
            lm.copy(a_ld, A, coords=(m_blk, k * 64))
            lm.copy(smem_a[k], a_ld)
            lm.arrive(full, iter=k)

    with consumer:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.copy(a_frag, smem_a[k])
            lm.mma(acc, a_frag, smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(smem_c[0], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
