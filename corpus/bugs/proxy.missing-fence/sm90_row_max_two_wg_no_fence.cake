# BUG (proxy.missing-fence): corpus/reduction/sm90_row_max_two_wg.cake as it
# was before commit c92cb88 - the two reducing warpgroups read their column
# half of a TMA-filled stage with ld.shared (generic proxy) and release it
# (lm.arrive(empty)) with no lm.fence_proxy() in between, so the producer's
# TMA refill of the stage (async proxy) may land before those reads are
# performed: write-after-read across proxies.  On the H200 this is not
# hypothetical: this schedule (lowered, nvcc -O3 sm_90a) computed a wrong
# row max in EVERY one of 3,500 launches at M=65536, N=2048 (about 223 of
# 65,536 rows per launch, each missing one 32-column chunk of its row);
# with the fence, 0 of 2,600 launches were wrong (bench/gpu/results/
# row_max_race/, docs/gpu-ground-truth.md "row_max_two_wg").  It is the
# "wrong after the timed runs" of docs/costmodel.md.  The checker passed it
# before proxy order was modelled for reads (issue 9 point 8).
# Fix: corpus/reduction/sm90_row_max_two_wg.cake - lm.fence_proxy() after
# the lm.copy from the stage, before lm.arrive(empty).
# expect: proxy.missing-fence
@cake.schedule(target="sm_90a")
def row_max_two_wg_no_fence(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(36864)
    smem_x = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2)
    smem_p = pool.view(offset=32768, shape=(128, 1),  dtype=lm.f32,  stages=2)
    x      = lm.regs(shape=(128, 32), dtype=lm.f32)
    part   = lm.regs(shape=(128, 1), dtype=lm.f32)
    other  = lm.regs(shape=(128, 1), dtype=lm.f32)
    best   = lm.regs(shape=(128, 1), dtype=lm.f32)

    load  = lm.role(warps=[0])
    red   = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=2, pipeline=pipe)
    xchg  = lm.named_barrier(roles=[red])

    d_tiles = lm.cdiv(D, 64)
    r0 = lm.block_idx(0) * 128

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(r0, j * 64), iter=j, barrier=full)  # expect-error: proxy.missing-fence

    with red:
        c0 = 32 * lm.instance()
        lm.fill(best, -1e30)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j][:, c0:c0 + 32])
            lm.arrive(empty, iter=j)
            lm.reduce(part, x, op="max", axis=1)
            if lm.instance() == 1:
                lm.copy(smem_p[j], part)
            lm.sync(xchg)
            if lm.instance() == 0:
                lm.copy(other, smem_p[j])
                lm.binary(part, part, other, op="max")
                lm.binary(best, best, part, op="max")
        if lm.instance() == 0:
            lm.copy(Y, best, coords=(r0, 0))
