# mutant: trip-skip-first
# original: corpus/gates/target.feature/good_cp_async_on_sm80.cake
# line: 26: for k in lm.range(0, k_tiles):
# change: loop start: `0` -> `1`
# label: bad (data.uninitialized, sync.race, data.stale-read) by the explicit-state simulator (encoder/simulator.h), M = 0, N = 0, K in {1, 48, 80, 112, 144, 240} (6 combinations with every trip count <= 7); block_idx 0 of grid_dim 1; 100 states; first violation: data.uninitialized: mainloop's MMA accumulates into acc element (0, 0), which this instance has not written: init= is false or absent here, so the MMA adds to undefined registers at `lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))` (line 28) (M=0, N=0, K=144)
# expect-any: data.uninitialized sync.race data.stale-read
# GATE target.feature (good): the same mainloop on sm_80 with cp.async and
# cp.async groups (gemm/sm80_cp_async_multistage.cake).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def gemm_sm80_cp_async_feature_ok(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
                         M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(49152)
    smem_a = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    smem_b = pool.view(offset=24576, shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    mainloop = lm.role(warps=[0, 1, 2, 3])

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with mainloop:
        for s in lm.range(0, 2):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 32), stage=s)
                smem_b.cp_async(B, coords=(n_blk, s * 32), stage=s)
            lm.cp_async_commit()
        for k in lm.range(1, k_tiles):
            lm.cp_async_wait(pending=1)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            kn = k + 2
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * 32), iter=kn)
                smem_b.cp_async(B, coords=(n_blk, kn * 32), iter=kn)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        # epilogue: convert and store straight from registers
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
