# BUG (sync.race): the SM90 two-CTA multicast GEMM of inclusionAI/humming,
# as fixed by inclusionAI/humming PR #56 ("wait for peer CTA epilogues
# before multicast reuse").  The epilogue staging buffer shares shared
# memory (a union) with the A operand ring, and A is TMA-multicast by the
# cluster leader into BOTH CTAs.  In a persistent cluster that takes a
# second output tile, the leader waited only for its OWN epilogue before
# multicasting the next tile's A, so it could overwrite the peer CTA's
# staging buffer while the peer's epilogue was still reading it (5-18%
# wrong elements at M = 512/4096 on H100/H200).  The fix extends the
# distributed barrier to the epilogue: the leader waits until the
# epilogues of every CTA of the cluster are done.
# Written with the cluster extensions of docs/ir-extensions.md
# (cluster=, lm.cluster_rank(), multicast=, remote arrive cta=), an
# explicit expect_tx (the leader issues A for both CTAs) and a view
# aliasing the A ring (the union).
# Modelled: a 2x1 cluster sharing A (64 rows), each CTA its own 128 columns
# of B, a 2-slot ring released in both CTAs, a persistent loop over the
# cluster's tiles; the epilogue stages C (64x128 bf16) over the A ring and
# TMA-stores it; epi_done hands the staging buffer back to the producer.
# Fix: humming_multicast_peer_epilogue_reuse_fixed.cake (epi_done counts
# both CTAs' epilogues, arrived on the leader).
# expect: sync.race
# may-also: data.stale-read sync.arrival-overflow
@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def humming_multicast_peer_epilogue_reuse(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(K > 0)
    pool   = lm.smem(49152)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_c = pool.view(offset=0,     shape=(64, 128), dtype=lm.bf16)
    smem_b = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    pipe     = lm.pipeline(stages=2)
    full     = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[math], cons=[load], init_count=2, pipeline=pipe)
    epi_done = lm.barrier(count=1, prod=[math], cons=[load], init_count=1)

    k_tiles  = lm.cdiv(K, 64)
    rank     = lm.cluster_rank()
    clusters = lm.grid_dim(0) // 2
    my_tiles = lm.cdiv(max(lm.cdiv(M, 64) - lm.block_idx(0) // 2, 0), clusters)

    with load:
        lm.cluster_sync()
        for t in lm.range(0, my_tiles):
            m_blk = (lm.block_idx(0) // 2 + t * clusters) * 64
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                if rank == 0 and t > 0 and k == 0:
                    lm.wait(epi_done, stage=0)
                lm.wait(empty, iter=it - 2)
                lm.expect_tx(full, 24576, iter=it)
                if rank == 0:
                    smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full, multicast=3)   # expect-error: sync.race
                smem_b.tma_load(B, coords=(rank * 128, k * 64), iter=it, barrier=full)
        lm.cluster_sync()

    with math:
        lm.cluster_sync()
        for t in lm.range(0, my_tiles):
            m_blk = (lm.block_idx(0) // 2 + t * clusters) * 64
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it, cta=0)
                lm.arrive(empty, iter=it, cta=1)
            # epilogue: C staged over the A ring (a union)
            lm.copy(smem_c[0], acc)                      # expect-error: sync.race
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, rank * 128), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(epi_done, stage=0)
        lm.cluster_sync()
