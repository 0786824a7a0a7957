# IR.md conformance audit (docs/ir-conformance.md): cpasync bad no commit
# expect: sync.race
@cake.schedule(target="sm_80")
def k(lm, A: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool = lm.smem(16384)
    sa = pool.view(offset=0, shape=(64, 32), dtype=lm.bf16, stages=2)
    r = lm.regs(shape=(64, 32), dtype=lm.bf16)
    acc = lm.regs(shape=(64, 32), dtype=lm.f32)
    w = lm.role(warps=[0, 1, 2, 3])
    with w:
        lm.fill(acc, 0)
        sa.cp_async(A, coords=(0, 0), iter=0)
        lm.cp_async_commit()
        for k in lm.range(0, K):
            if k + 1 < K:
                sa.cp_async(A, coords=(0, (k + 1) * 32), iter=k + 1)
            lm.cp_async_wait(pending=1)
            lm.copy(r, sa[k])
            lm.binary(acc, acc, r, op="add")
        lm.cp_async_wait(pending=0)
        lm.copy(C, acc, coords=(0, 0))
