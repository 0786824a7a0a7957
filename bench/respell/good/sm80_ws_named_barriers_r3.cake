# respells: corpus/gemm/sm80_ws_named_barriers.cake
# change: the four named barriers as two 2-slot mbarrier rings (full: the loader arrives after
# its cp.async wait, the math role waits; empty: the math role releases, the loader waits
# iter=k - 2), so no parity branch and no release guard.
# expect: pass
@cake.schedule(target="sm_80")
def gemm_sm80_ws_named(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(32768)
    smem_a = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=2, swizzle="64B")
    smem_b = pool.view(offset=16384, shape=(128, 32), dtype=lm.bf16, stages=2, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    loader = lm.role(warps=[0, 1])
    math   = lm.role(warps=[4, 5, 6, 7])
    full   = lm.barrier(count=2, prod=[loader], cons=[math], init_count=1)
    empty  = lm.barrier(count=2, prod=[math], cons=[loader], init_count=1)

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with loader:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            smem_a.cp_async(A, coords=(m_blk, k * 32), iter=k)
            smem_b.cp_async(B, coords=(n_blk, k * 32), iter=k)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.arrive(full, iter=k)

    with math:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.arrive(empty, iter=k)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
