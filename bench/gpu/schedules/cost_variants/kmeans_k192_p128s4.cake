# Cost-model variant of corpus/kmeans/sm90_assign_k256_ws.cake (bench/gpu/cost_plan.py):
# k = 192 centroids, 128 points per CTA (2 consumer warpgroup(s)), D streamed in
# 64-wide chunks through 4 stages.
# expect: pass
@cake.schedule(target="sm_90a")
def kmeans_k192_p128s4(lm, X: LM.tma2d, Cn: LM.tma2d, CN: LM.gmem, Lab: LM.gmem, N: LM.i32, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(163840)
    smem_x = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=65536, shape=(192, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    dots   = lm.regs(shape=(64, 192), dtype=lm.f32)
    cn     = lm.regs(shape=(1, 192), dtype=lm.f32)
    lab    = lm.regs(shape=(64, 1), dtype=lm.i32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    p0 = lm.block_idx(0) * 128

    with producer:
        for k in lm.range(0, d_tiles):
            lm.wait(empty, iter=k - 4)
            smem_x.tma_load(X, coords=(p0, k * 64), iter=k, barrier=full)
            smem_c.tma_load(Cn, coords=(0, k * 64), iter=k, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for k in lm.range(0, d_tiles):
            lm.wait(full, iter=k)
            lm.mma(dots, smem_x[k][m0:m0 + 64, :], smem_c[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(cn, CN, coords=(0, 0))
        lm.binary(dots, dots, -2.0, op="mul")
        lm.binary(dots, dots, cn, op="add")
        lm.reduce(lab, dots, op="argmin", axis=1)
        lm.copy(Lab, lab, coords=(p0 + m0, 0))
