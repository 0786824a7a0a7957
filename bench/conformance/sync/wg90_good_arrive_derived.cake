# IR.md conformance audit (docs/ir-conformance.md): wg90 good arrive derived
# expect: pass
@cake.schedule(target="sm_90a")
def k(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
    lm.assume(K > 0)
    pool = lm.smem(131072)
    sa = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    sb = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    sc = pool.view(offset=65536, shape=(64, 128), dtype=lm.bf16, stages=2)
    acc = lm.regs(shape=(64, 128), dtype=lm.f32)
    load = lm.role(warps=[0, 1, 2, 3], regs=40)
    math = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    pipe = lm.pipeline(stages=2)
    full = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=2, pipeline=pipe)
    with load:
        for k in lm.range(0, K):
            lm.wait(empty, iter=k - 2)
            sa.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)
            sb.tma_load(B, coords=(0, k * 64), iter=k, barrier=full)
    with math:
        m0 = 64 * lm.instance()
        for k in lm.range(0, K):
            lm.wait(full, iter=k)
            lm.mma(acc, sa[k][m0:m0 + 64, :], sb[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, stage=k % 2)
        lm.copy(sc[lm.instance()], acc)
        lm.fence_proxy()
        sc.tma_store(C, coords=(m0, 0), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
