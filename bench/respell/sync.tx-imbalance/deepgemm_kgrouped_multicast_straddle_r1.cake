# RESPELLING of corpus/bugs/sync.tx-imbalance/deepgemm_kgrouped_multicast_straddle.cake
# (deepseek-ai/DeepGEMM PR #415): the multicast test by De Morgan, `not
# (rank == 0 and (blk + 1) % group_blocks == 0)`, the expected bytes as
# (64 + 128) * 64 * 2, the empty ring's first lap as a guard, the tile
# count as (K + 63) // 64, the assumptions as one conjunction.
# expect: sync.tx-imbalance
@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def kgrouped_gemm(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32, group_blocks: LM.i32):
    lm.assume(K > 0 and group_blocks > 0)
    smem  = lm.smem(65536)
    sa    = smem.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    sb    = smem.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    sb_h  = smem.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    sc    = smem.view(offset=49152, shape=(64, 128), dtype=lm.bf16)
    acc   = lm.regs(shape=(64, 128), dtype=lm.f32)
    tma_warp = lm.role(warps=[0])
    math_wg  = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=2, prod=[tma_warp], cons=[math_wg], init_count=1)
    empty = lm.barrier(count=2, prod=[math_wg], cons=[tma_warp], init_count=2)
    nk   = (K + 63) // 64
    r    = lm.cluster_rank()
    blk  = lm.block_idx(0)
    g    = blk // group_blocks
    row  = 64 * (blk % group_blocks)
    with tma_warp:
        lm.cluster_sync()
        for k in lm.range(0, nk):
            if k >= 2:
                lm.wait(empty, iter=k - 2)
            lm.expect_tx(full, (64 + 128) * 64 * 2, iter=k)   # expect-error: sync.tx-imbalance
            sa.tma_load(A, coords=(row, 64 * k), iter=k, barrier=full)
            if not (r == 0 and (blk + 1) % group_blocks == 0):
                sb_h[2 * (k % 2) + r].tma_load(B, coords=(128 * g + 64 * r, 64 * k), iter=k,
                                               barrier=full, multicast=3)
            else:
                sb.tma_load(B, coords=(128 * g, 64 * k), iter=k, barrier=full)
        lm.cluster_sync()
    with math_wg:
        lm.cluster_sync()
        for k in lm.range(0, nk):
            lm.wait(full, iter=k)   # expect-error: sync.tx-imbalance
            lm.mma(acc, sa[k], sb[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            if not (r == 0 and (blk + 1) % group_blocks == 0):
                for c in lm.range(0, 2):
                    lm.arrive(empty, iter=k, cta=c)
            else:
                lm.arrive(empty, iter=k, count=2)
        lm.copy(sc[0], acc)
        lm.fence_proxy()
        sc.tma_store(C, coords=(64 * blk, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
        lm.cluster_sync()
