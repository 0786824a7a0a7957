# A 2x2 thread-block cluster GEMM mainloop with TMA multicast of BOTH
# operands (CUTLASS sm90 CollectiveMma MainloopSm90TmaGmmaWarpSpecialized
# with ClusterShape 2x2: A is multicast along the cluster's N mode, B along
# its M mode).  CTA (x, y) = rank x + 2y computes tile (block_idx(0),
# block_idx(1)): the two CTAs with the same x share the A tile, the two
# with the same y share the B tile.  Each CTA loads HALF of its A tile
# (rows 32y..32y+31) multicast to ranks {x, x+2} and HALF of its B tile
# (rows 64x..64x+63) multicast to ranks {2y, 2y+1}; every full[s] receives
# 2 A halves + 2 B halves = 24 KiB, announced by ONE explicit
# arrive.expect_tx per slot and lap (CUTLASS's producer_acquire with the
# stage's TmaTransactionBytes).  The multicast masks are constants per
# branch (x, y = this CTA's cluster coordinates); a derived expect_tx would
# be one per branch (docs/semantics.md "Derived expect_tx"), so the
# schedule writes it, as CUTLASS does.
# The empty barrier is cluster-wide, as CUTLASS's PipelineTmaAsync sets it
# up: a consumer that is done with slot s arrives on empty[s] of every CTA
# that writes into its slot - itself, its row peer and its column peer
# (consumer_release signals the CTAs of the same row and column), so each
# producer's empty[s] expects (cluster_x + cluster_y - 1) = 3 arrivals.
# lm.cluster_sync() first (mbarrier init visible to the peers) and last
# (no CTA exits while a peer may still arrive on its barriers or multicast
# into it).  smem_ah / smem_bh alias smem_a / smem_b: slot 2s+r is half r
# of slot s.
# expect: pass
@cake.schedule(target="sm_90a", cluster=(2, 2, 1))
def gemm_cluster_2x2_multicast_ab(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                  M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool    = lm.smem(65536)
    smem_a  = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_ah = pool.view(offset=0,     shape=(32, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b  = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_bh = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c  = pool.view(offset=49152, shape=(64, 128), dtype=lm.bf16, stages=1)
    acc     = lm.regs(shape=(64, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=3, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    x = lm.block_idx(0) % 2
    y = lm.block_idx(1) % 2
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with load:
        lm.cluster_sync()
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            lm.expect_tx(full, 24576, iter=k)
            if x == 0:
                smem_ah[2 * (k % 2) + y].tma_load(A, coords=(m_blk + 32 * y, k * 64), iter=k, barrier=full,
                                                  multicast=5)
            else:
                smem_ah[2 * (k % 2) + y].tma_load(A, coords=(m_blk + 32 * y, k * 64), iter=k, barrier=full,
                                                  multicast=10)
            if y == 0:
                smem_bh[2 * (k % 2) + x].tma_load(B, coords=(n_blk + 64 * x, k * 64), iter=k, barrier=full,
                                                  multicast=3)
            else:
                smem_bh[2 * (k % 2) + x].tma_load(B, coords=(n_blk + 64 * x, k * 64), iter=k, barrier=full,
                                                  multicast=12)
        lm.cluster_sync()

    with math:
        lm.cluster_sync()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k, cta=x + 2 * y)
            lm.arrive(empty, iter=k, cta=x + 2 * (1 - y))
            lm.arrive(empty, iter=k, cta=(1 - x) + 2 * y)
        lm.copy(smem_c[0], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
        lm.cluster_sync()
