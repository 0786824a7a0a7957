# mutant: guard-plus-1
# original: corpus/kmeans/sm80_assign_k128.cake
# line: 30: if k + 2 < d_tiles:
# change: guard: `d_tiles` -> `d_tiles + 1`
# label: benign: no violation under exhaustive exploration with N = 0, D in {1, 48, 80, 112, 176, 208} (6 combinations with every trip count <= 7); block_idx 0 of grid_dim 1; 179 states (explicit-state simulator (encoder/simulator.h))
# expect: pass
# Ampere k-means assignment step for k = 128 clusters (FAISS-style
# "distance GEMM + argmin" fusion): labels[i] = argmin_j ||c_j||^2 - 2 x_i.c_j
# (||x_i||^2 is constant per row and does not change the argmin).
# X: N x D points, Cn: 128 x D centroids, CN: 1 x 128 precomputed norms.
# 3-stage cp.async mainloop over D (as gemm/sm80_cp_async_multistage.cake),
# then the argmin epilogue in registers.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def kmeans_assign_k128(lm, X: LM.gmem, Cn: LM.gmem, CN: LM.gmem, Lab: LM.gmem,
                       N: LM.i32, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(49152)
    smem_x = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    smem_c = pool.view(offset=24576, shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    dots   = lm.regs(shape=(128, 128), dtype=lm.f32)
    cn     = lm.regs(shape=(1, 128), dtype=lm.f32)
    lab    = lm.regs(shape=(128, 1), dtype=lm.i32)
    wg = lm.role(warps=[0, 1, 2, 3])
    d_tiles = lm.cdiv(D, 32)
    p0 = lm.block_idx(0) * 128
    with wg:
        for s in lm.range(0, 2):
            if s < d_tiles:
                smem_x.cp_async(X, coords=(p0, s * 32), stage=s)
                smem_c.cp_async(Cn, coords=(0, s * 32), stage=s)
            lm.cp_async_commit()
        for k in lm.range(0, d_tiles):
            lm.cp_async_wait(pending=1)
            lm.mma(dots, smem_x[k], smem_c[k], init=(k == 0))
            if k + 2 < d_tiles + 1:
                smem_x.cp_async(X, coords=(p0, (k + 2) * 32), iter=k + 2)
                smem_c.cp_async(Cn, coords=(0, (k + 2) * 32), iter=k + 2)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(cn, CN, coords=(0, 0))
        lm.binary(dots, dots, -2.0, op="mul")
        lm.binary(dots, dots, cn, op="add")
        lm.reduce(lab, dots, op="argmin", axis=1)
        lm.copy(Lab, lab, coords=(p0, 0))
