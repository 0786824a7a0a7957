# RESPELLING of corpus/bugs/sync.race/fbtriton_hopper_autows_wgmma_pending1_release.cake
# (facebookexperimental/triton AutoWS Hopper): the two assumptions as one
# `and`, the tile count as lm.cdiv(K, 64), the producer's first lap as a
# guard, the consumer's waits with stage=k % 3 and implicit phases, the
# producer as a 4-warp role.
# expect: sync.race
@cake.schedule(target="sm_90a")
def autows_gemm(lm, a: LM.tma2d, b: LM.tma2d, c: LM.gmem, K: LM.i32):
    lm.assume(K % 64 == 0 and K >= 64)
    smem = lm.smem(98304)
    sa = smem.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    sb = smem.view(offset=49152, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    acc = lm.regs(shape=(128, 128), dtype=lm.f32)
    producer = lm.role(warps=[0, 1, 2, 3])
    consumer = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=3, prod=[producer], cons=[consumer], init_count=1)
    empty = lm.barrier(count=3, prod=[consumer], cons=[producer], init_count=1)
    nk = lm.cdiv(K, 64)
    bm = 128 * lm.block_idx(0)
    bn = 128 * lm.block_idx(1)
    with producer:
        for k in lm.range(0, nk):
            if k >= 3:
                lm.wait(empty, iter=k - 3)
            sb.tma_load(b, coords=(bn, 64 * k), iter=k, barrier=full)  # expect-error: sync.race
            sa.tma_load(a, coords=(bm, 64 * k), iter=k, barrier=full)  # expect-error: sync.race
    with consumer:
        for k in lm.range(0, nk):
            lm.wait(full, stage=k % 3)
            lm.mma(acc, sa[k], sb[k], init=(k == 0))                  # expect-error: sync.race
            lm.mma_commit()
            lm.mma_wait(pending=1)
            lm.arrive(empty, stage=k % 3)                             # expect-error: sync.race
        lm.mma_wait(pending=0)
        lm.copy(c, acc, coords=(bm, bn))
