# Hopper GEMM with a 2x2 thread-block cluster that multicasts BOTH operands
# (CUTLASS include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp
# with ClusterShape 2x2x1, CUTLASS v3.5; the mcast masks and the empty
# barrier's arrival count are those of include/cutlass/pipeline/sm90_pipeline.hpp,
# PipelineTmaAsync: consumer arrival count = (cluster_x + cluster_y - 1) *
# consumers).
#  * rank = x + 2y (x = block_idx(0) % 2 picks the M tile, y =
#    block_idx(1) % 2 the N tile). The CTAs {x, x+2} share the A tile: CTA
#    (x, y) loads A's half y (64 of 128 rows) multicast to both (mask
#    5 << x, written 5 * (1 + x)). The CTAs {2y, 2y+1} share the B tile: CTA
#    (x, y) loads B's half x multicast to both (mask 3 << 2y, written
#    3 * (1 + 3y)). Each full[s] receives two A halves + two B halves.
#  * Three CTAs write into a CTA's slot (itself, its column peer, its row
#    peer), so the consumer releases a slot in exactly those three CTAs
#    (cta= x+2y, (1-x)+2y, x+2(1-y)), and empty expects 3 arrivals a phase
#    (one consumer warpgroup).
#  * lm.cluster_sync() first (every peer's mbarrier.init is visible before a
#    remote arrive or a multicast) and last (no CTA exits while a peer may
#    still arrive on it or multicast into it).
# Reductions: one consumer warpgroup, 128x128x64 tiles, 2 stages.
# smem: A 2 x 16K + B 2 x 16K + C 32K = 96 KiB.
# expect: pass
@cake.schedule(target="sm_90a", cluster=(2, 2, 1))
def gemm_cluster_2x2_multicast_ab(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                  M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool    = lm.smem(98304)
    smem_a  = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_ah = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b  = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_bh = pool.view(offset=32768, shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c  = pool.view(offset=65536, shape=(128, 128), dtype=lm.bf16, stages=1)
    acc     = lm.regs(shape=(128, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=3, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    x = lm.block_idx(0) % 2
    y = lm.block_idx(1) % 2
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with load:
        lm.cluster_sync()
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            smem_ah[2 * (k % 2) + y].tma_load(A, coords=(m_blk + 64 * y, k * 64), iter=k, barrier=full,
                                              multicast=5 * (1 + x))
            smem_bh[2 * (k % 2) + x].tma_load(B, coords=(n_blk + 64 * x, k * 64), iter=k, barrier=full,
                                              multicast=3 * (1 + 3 * y))
        lm.cluster_sync()

    with math:
        lm.cluster_sync()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k, cta=x + 2 * y)
            lm.arrive(empty, iter=k, cta=1 - x + 2 * y)
            lm.arrive(empty, iter=k, cta=x + 2 * (1 - y))
        lm.copy(smem_c[0], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
        lm.cluster_sync()
