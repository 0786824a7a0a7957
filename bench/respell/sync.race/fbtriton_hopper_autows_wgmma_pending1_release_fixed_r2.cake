# RESPELLING of corpus/bugs/sync.race/fbtriton_hopper_autows_wgmma_pending1_release_fixed.cake
# (facebookexperimental/triton AutoWS Hopper): the fix as an engineer
# keeping one wgmma group in flight would write it: wait(pending=1)
# retires group k - 1, so slot k - 1 is released one iteration late, and
# the last slot after the final wait-all.
# expect: pass
@cake.schedule(target="sm_90a")
def autows_gemm_lagged_release(lm, a: LM.tma2d, b: LM.tma2d, c: LM.gmem, K: LM.i32):
    lm.assume(K >= 64)
    lm.assume(K % 64 == 0)
    smem = lm.smem(98304)
    sa = smem.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    sb = smem.view(offset=49152, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    acc = lm.regs(shape=(128, 128), dtype=lm.f32)
    producer = lm.role(warps=[0])
    consumer = lm.role(warps=[4, 5, 6, 7])
    ring  = lm.pipeline(stages=3)
    full  = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=ring)
    empty = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=ring)
    nk = K // 64
    bm = 128 * lm.block_idx(0)
    bn = 128 * lm.block_idx(1)
    with producer:
        for k in lm.range(0, nk):
            lm.wait(empty, iter=k - 3)
            sa.tma_load(a, coords=(bm, 64 * k), iter=k, barrier=full)
            sb.tma_load(b, coords=(bn, 64 * k), iter=k, barrier=full)
    with consumer:
        for k in lm.range(0, nk):
            lm.wait(full, iter=k)
            lm.mma(acc, sa[k], sb[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=1)
            if k > 0:
                lm.arrive(empty, iter=k - 1)
        lm.mma_wait(pending=0)
        lm.arrive(empty, iter=nk - 1)
        lm.copy(c, acc, coords=(bm, bn))
