# IR.md conformance audit (docs/ir-conformance.md): namedbar bad cons arrive only
# expect: sync.race
@cake.schedule(target="sm_80")
def k(lm, C: LM.gmem, N: LM.i32):
    pool = lm.smem(8192)
    s = pool.view(offset=0, shape=(64, 32), dtype=lm.f32, stages=1)
    a = lm.regs(shape=(64, 32), dtype=lm.f32)
    b = lm.regs(shape=(64, 32), dtype=lm.f32)
    prod = lm.role(warps=[0])
    cons = lm.role(warps=[1])
    filled = lm.named_barrier(roles=[prod, cons])
    drained = lm.named_barrier(roles=[prod, cons])
    with prod:
        for i in lm.range(0, N):
            if i > 0:
                lm.sync(drained)
            lm.fill(a, 1)
            lm.copy(s, a)
            lm.bar_arrive(filled)
    with cons:
        for i in lm.range(0, N):
            lm.bar_arrive(filled)
            lm.copy(b, s)
            lm.bar_arrive(drained)
            lm.copy(C, b, coords=(0, i * 32))
