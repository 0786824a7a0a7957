# IR.md conformance audit (docs/ir-conformance.md): builder other name
# expect: pass
@cake.schedule(target="sm_90a")
def gemm(b, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    b.assume(K > 0)
    pool   = b.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=b.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(128, 64), dtype=b.bf16, stages=2, swizzle="128B")
    smem_c = pool.view(offset=49152, shape=(64, 128), dtype=b.bf16, stages=1)
    acc    = b.regs(shape=(64, 128), dtype=b.f32)

    load = b.role(warps=[0])
    math = b.role(warps=[4, 5, 6, 7])
    pipe  = b.pipeline(stages=2)
    full  = b.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = b.barrier(prod=[math], cons=[load], init_count=1, pipeline=pipe)

    k_tiles = b.cdiv(K, 64)
    m_blk = b.block_idx(0) * 64
    n_blk = b.block_idx(1) * 128

    with load:
        for k in b.range(0, k_tiles):
            b.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with math:
        for k in b.range(0, k_tiles):
            b.wait(full, iter=k)
            b.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            b.mma_commit()
            b.mma_wait(pending=0)
            b.arrive(empty, iter=k)
        b.copy(smem_c[0], acc)
        b.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        b.tma_store_commit()
        b.tma_store_wait(pending=0)
