# mutant: pending-plus-1
# original: corpus/knn/sm80_l2_distance_tile.cake
# line: 27: lm.cp_async_wait(pending=1)
# change: pending: `1` -> `2`
# label: bad (sync.race) by the explicit-state simulator (encoder/simulator.h), D in {1, 48, 80, 112, 176, 208}; block_idx 0 of grid_dim 1; 46 states; first violation: sync.race: wg reads pool [0, 8192) while its own cp.async (its group is not retired) still accesses it at `lm.mma(dots, smem_q[k], smem_x[k], init=(k == 0))` (line 28) (D=112)
# expect-any: sync.race
# Ampere brute-force kNN, distance stage: D2[i,j] = ||q_i||^2 + ||x_j||^2
# - 2 q_i.x_j for a 128x128 tile of (queries, database vectors), written as
# f32 for a following top-k selection kernel (FAISS GpuIndexFlat "L2
# distance + k-select" split).  3-stage cp.async mainloop over the dims.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def knn_l2_tile(lm, Q: LM.gmem, Xdb: LM.gmem, QN: LM.gmem, XN: LM.gmem, D2: LM.gmem,
                D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(49152)
    smem_q = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    smem_x = pool.view(offset=24576, shape=(128, 32), dtype=lm.bf16, stages=3, swizzle="64B")
    dots   = lm.regs(shape=(128, 128), dtype=lm.f32)
    qn     = lm.regs(shape=(128, 1), dtype=lm.f32)
    xn     = lm.regs(shape=(1, 128), dtype=lm.f32)
    wg = lm.role(warps=[0, 1, 2, 3])
    d_tiles = lm.cdiv(D, 32)
    q0 = lm.block_idx(0) * 128
    x0 = lm.block_idx(1) * 128
    with wg:
        for s in lm.range(0, 2):
            if s < d_tiles:
                smem_q.cp_async(Q, coords=(q0, s * 32), stage=s)
                smem_x.cp_async(Xdb, coords=(x0, s * 32), stage=s)
            lm.cp_async_commit()
        for k in lm.range(0, d_tiles):
            lm.cp_async_wait(pending=2)
            lm.mma(dots, smem_q[k], smem_x[k], init=(k == 0))
            if k + 2 < d_tiles:
                smem_q.cp_async(Q, coords=(q0, (k + 2) * 32), iter=k + 2)
                smem_x.cp_async(Xdb, coords=(x0, (k + 2) * 32), iter=k + 2)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(qn, QN, coords=(q0, 0))
        lm.copy(xn, XN, coords=(0, x0))
        lm.binary(dots, dots, -2.0, op="mul")
        lm.binary(dots, dots, qn, op="add")
        lm.binary(dots, dots, xn, op="add")
        lm.copy(D2, dots, coords=(q0, x0))
