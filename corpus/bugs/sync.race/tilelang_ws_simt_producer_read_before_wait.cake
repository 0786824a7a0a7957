# BUG (sync.race): TileLang's warp-specialization pass
# (src/cuda/transform/producer_consumer_ws.cc), bug 2 of tile-ai/tilelang
# PR #2166 ("Consider non-local store in external call and SIMT producer for
# warp specialize", commit 0dba22aa).  The consumer's mbarrier wait was
# placed before the first read of a TMA-produced buffer only
# (wait_insert_pos was computed for kTmaProducer statements): when the
# consumer first read a buffer that the producer warps fill with plain
# SIMT stores (ld.global + st.shared, then an mbarrier arrive), that read
# came BEFORE the wait - the consumer could see the previous k-block's data
# or a half-written tile.
# Modelled: a producer warpgroup that TMA-loads B and SIMT-copies A per
# k-block into a 2-slot ring (full counts the derived expect_tx arrival of
# the TMA and the producer's own arrive: init_count=2), a consumer
# warpgroup that loads A into registers and runs a register-source wgmma
# against the B slot.
# Fix: tilelang_ws_simt_producer_read_before_wait_fixed.cake (the wait is
# pulled back before the first read of either buffer).
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def tilelang_ws_simt_producer_read_before_wait(lm, A: LM.gmem, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
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
            lm.copy(smem_a[k], a_ld)                         # expect-error: sync.race
            lm.arrive(full, iter=k)

    with consumer:
        for k in lm.range(0, k_tiles):
            lm.copy(a_frag, smem_a[k])                       # expect-error: sync.race
            lm.wait(full, iter=k)
            lm.mma(acc, a_frag, smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(smem_c[0], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
