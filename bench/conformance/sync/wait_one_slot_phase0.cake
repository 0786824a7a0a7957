# IR.md conformance audit (docs/ir-conformance.md): wait one slot phase0
# expect: pass
@cake.schedule(target="sm_100a")
def k(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool = lm.smem(65536)
    sa = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    sb = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    out = lm.regs(shape=(128, 128), dtype=lm.f32)
    load = lm.role(warps=[0])
    mma = lm.role(warps=[1])
    epi = lm.role(warps=[4, 5, 6, 7])
    pipe = lm.pipeline(stages=2)
    full = lm.barrier(prod=[load], cons=[mma], pipeline=pipe)
    empty = lm.barrier(prod=[mma], cons=[load], pipeline=pipe)
    done = lm.barrier(count=1, prod=[mma], cons=[epi])
    with load:
        for k in lm.range(0, K):
            lm.wait(empty, iter=k - 2)
            sa.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)
            sb.tma_load(B, coords=(0, k * 64), iter=k, barrier=full)
    with mma:
        for k in lm.range(0, K):
            lm.wait(full, iter=k)
            lm.mma(acc, sa[k], sb[k], init=(k == 0))
            lm.mma_commit(barrier=empty, iter=k)
        lm.mma_commit(barrier=done)
    with epi:
        lm.wait(done, phase=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(0, 0))
