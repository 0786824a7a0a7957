# GATE mma.no-instruction (bad): the decode tile of
# good_wgmma_transposed_m8.cake (8 rows of A by 64 rows of B) with A read
# from global memory into a register fragment. M = 8 has no wgmma; the
# transposed form (docs/ir-extensions.md "Transposed wgmma") would make a
# the wgmma's B operand, and wgmma reads B only from shared memory
# (a descriptor): no instruction tiles this MMA.
# Fix: good_wgmma_transposed_m8.cake (A's rows through a TMA ring).
# expect: mma.no-instruction
@cake.schedule(target="sm_90a")
def gemm_wgmma_transposed_a_regs(lm, A: LM.gmem, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(32768)
    smem_b = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    a      = lm.regs(shape=(8, 64), dtype=lm.bf16)
    acc    = lm.regs(shape=(8, 64), dtype=lm.f32)
    out    = lm.regs(shape=(8, 64), dtype=lm.bf16)

    load = lm.role(warps=[4])
    math = lm.role(warps=[0, 1, 2, 3])
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 8
    n_blk = lm.block_idx(1) * 64

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with math:
        for k in lm.range(0, k_tiles):
            lm.copy(a, A, coords=(m_blk, k * 64))
            lm.wait(full, iter=k)
            lm.mma(acc, a, smem_b[k], init=(k == 0))  # expect-error: mma.no-instruction
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
