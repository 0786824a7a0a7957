# FIXED: sglang_fused_a_gemm_sc_aliases_sa_no_prestore_barrier.cake as
# sgl-project/sglang PR #37287 fixes it: a compute-warp barrier
# (cute.arch.barrier(barrier_id=1, number_of_threads=COMPUTE_THREADS))
# immediately before the first sC store orders every compute warpgroup's
# sA/sB reads - and the TMA writes they waited for - before the aliased sC
# writes.  The loader warp stays out of the barrier.
# expect: pass
# lower: unsupported (a 16-row register fragment in a wgmma role: the lowering lays fragments out as wgmma accumulators of 64-row blocks)
# K > 64: the kernel's K is DeepSeek-V3's hidden size (7168); below two
# k-blocks warpgroup 1 has none and would store an accumulator it never
# wrote (data.uninitialized: an empty loop at a positive size writes
# nothing, docs/rules/data.uninitialized.md "Decision (session 31)").
@cake.schedule(target="sm_90a")
def sglang_fused_a_gemm_sc_aliases_sa_prestore_barrier(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
    lm.assume(K > 64)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_c = pool.view(offset=0,     shape=(16, 128), dtype=lm.f32)                 # aliases smem_a slot 0
    smem_o = pool.view(offset=49152, shape=(64, 128), dtype=lm.bf16)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    part   = lm.regs(shape=(16, 128), dtype=lm.f32)

    loader  = lm.role(warps=[0])
    compute = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)

    ring  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[loader], cons=[compute], init_count=1, pipeline=ring)
    empty = lm.barrier(prod=[compute], cons=[loader], init_count=1, pipeline=ring)
    post  = lm.named_barrier(roles=[compute])

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with loader:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with compute:
        for k in lm.range(lm.instance(), k_tiles, 2):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == lm.instance()))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        # split-K reduction through sC (16 rows of the partial, the slot of the
        # real kernel's small-M tile)
        lm.sync(post)      # the pre-store barrier the fix adds
        if lm.instance() == 1:
            lm.copy(smem_c[0], acc[0:16, :])
        lm.sync(post)
        if lm.instance() == 0:
            lm.copy(part, smem_c[0])
            lm.binary(acc[0:16, :], acc[0:16, :], part, op="add")
            lm.copy(smem_o[0], acc)
            lm.fence_proxy()
            smem_o.tma_store(C, coords=(m_blk, n_blk), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
