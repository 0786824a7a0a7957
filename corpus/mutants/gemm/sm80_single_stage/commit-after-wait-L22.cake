# mutant: commit-after-wait
# original: corpus/gemm/sm80_single_stage.cake
# line: 22: lm.cp_async_commit()
# change: moved `lm.cp_async_commit()` after `lm.cp_async_wait(pending=0)`
# label: bad (sync.race) by the explicit-state simulator (encoder/simulator.h), K in {1, 48, 80}; block_idx 0 of grid_dim 1; 15 states; first violation: sync.race: wg reads pool [0, 8192) while its own cp.async (its group is not retired) still accesses it at `lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))` (line 24) (K=1)
# expect-any: sync.race
# The first rung of the GEMM ladder: Ampere GEMM with ONE shared-memory
# stage and no overlap - load the k-block with cp.async, retire it, multiply,
# repeat.  The refill of the single slot at iteration k+1 comes after the
# (synchronous) mma.sync of iteration k in program order.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def gemm_sm80_single_stage(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(16384)
    smem_a = pool.view(offset=0,    shape=(128, 32), dtype=lm.bf16, stages=1, swizzle="64B")
    smem_b = pool.view(offset=8192, shape=(128, 32), dtype=lm.bf16, stages=1, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)
    wg = lm.role(warps=[0, 1, 2, 3])
    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128
    with wg:
        for k in lm.range(0, k_tiles):
            smem_a.cp_async(A, coords=(m_blk, k * 32), iter=k)
            smem_b.cp_async(B, coords=(n_blk, k * 32), iter=k)
            lm.cp_async_wait(pending=0)
            lm.cp_async_commit()
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
