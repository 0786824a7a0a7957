# BROKEN; cake exited 0 (proved) until helper fp49 made data.discarded-product
# judge products left unread at exit (now exit 1 at K = 1, at the consumer's
# last operation): gemm/sm90_fp8_promotion_interval.cake
# (CUTLASS's FP8 two-level accumulation, one tile per CTA) with
# promote_residue_if_needed left out (helper fp49, session 49). For a
# k-block count that is no multiple of 4 (K = 128: one k-block) the last
# interval's wgmma products stay in `tmp` and never reach `acc`: the output
# misses them. data.discarded-product reported a product only when an op
# overwrote it (docs/rules/data.discarded-product.md "At exit"). The
# persistent form was found before too (the next tile's init= overwrites
# the product):
# corpus/bugs/data.discarded-product/cutlass_sm90_fp8_no_residue_promotion.cake.
# docs/known-limits.md "A product left unread at exit".
# expect: data.discarded-product
@cake.schedule(target="sm_90a")
def cutlass_sm90_fp8_no_residue_promotion_one_tile(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(163840)
    smem_a = pool.view(offset=0,      shape=(128, 128), dtype=lm.e4m3, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 128), dtype=lm.e4m3, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(64, 128),  dtype=lm.bf16, stages=2)
    tmp    = lm.regs(shape=(64, 128), dtype=lm.f32)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    k_tiles = lm.cdiv(K, 128)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 128), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 128), iter=k, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        lm.fill(acc, 0.0)
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(tmp, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k % 4 == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
            if (k + 1) % 4 == 0:
                lm.binary(acc, acc, tmp, op="add")
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
