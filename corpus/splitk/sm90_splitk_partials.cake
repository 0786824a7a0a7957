# Hopper split-K GEMM in two kernels (CUTLASS "parallel split-K"
# reduction mode): kernel 1 - grid (m, n, split) - computes the partial
# product of K-slice blockIdx.z into an f32 workspace W[split, M, N] with
# TMA stores; kernel 2 sums the partials and writes bf16 C.
#  * kernel 1 clamps the slice: a CTA whose slice is empty still writes a
#    zero partial (acc is zero-filled, MMAs accumulate with init=False).
#  * kernel 2 streams the S partial tiles of one output tile through a
#    2-slot TMA ring.
# Both schedules must pass.
# expect: pass
@cake.schedule(target="sm_90a")
def splitk_partial(lm, A: LM.tma2d, B: LM.tma2d, W: LM.tma3d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(196608)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_p = pool.view(offset=131072, shape=(64, 128), dtype=lm.f32,  stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    k_per   = lm.cdiv(k_tiles, lm.grid_dim(2))
    k_lo    = lm.block_idx(2) * k_per
    k_n     = max(min(k_per, k_tiles - k_lo), 0)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with producer:
        for k in lm.range(0, k_n):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, (k_lo + k) * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, (k_lo + k) * 64), iter=k, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        lm.fill(acc, 0.0)
        for k in lm.range(0, k_n):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=False)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(smem_p[lm.instance()], acc)
        lm.fence_proxy()
        smem_p.tma_store(W, coords=(lm.block_idx(2), m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)

@cake.schedule(target="sm_90a")
def splitk_reduce(lm, W: LM.tma3d, C: LM.tma2d, S: LM.i32):
    lm.assume(S > 0)
    pool   = lm.smem(81920)
    smem_w = pool.view(offset=0,     shape=(64, 128), dtype=lm.f32,  stages=2)
    smem_c = pool.view(offset=65536, shape=(64, 128), dtype=lm.bf16, stages=1)
    part   = lm.regs(shape=(64, 128), dtype=lm.f32)
    total  = lm.regs(shape=(64, 128), dtype=lm.f32)

    load  = lm.role(warps=[0])
    wg    = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[wg], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[wg], cons=[load], init_count=1, pipeline=pipe)

    m0 = lm.block_idx(0) * 64
    n0 = lm.block_idx(1) * 128

    with load:
        for s in lm.range(0, S):
            lm.wait(empty, iter=s - 2)
            smem_w.tma_load(W, coords=(s, m0, n0), iter=s, barrier=full)

    with wg:
        lm.fill(total, 0.0)
        for s in lm.range(0, S):
            lm.wait(full, iter=s)
            lm.copy(part, smem_w[s])
            lm.fence_proxy()  # generic reads done before the slot goes back to TMA
            lm.arrive(empty, iter=s)
            lm.binary(total, total, part, op="add")
        lm.copy(smem_c[0], total)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m0, n0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
