# RESPELLING of corpus/bugs/sync.deadlock/flashinfer_tinygemm2_syncthreads_in_branch_fixed.cake
# (flashinfer-ai/flashinfer PR #2996): the two DMA roles as ONE role of
# eight one-warp instances that picks W or X with a guard, the final
# reduction loop shifted to start at 0, the fragments renamed.
# expect: pass
@cake.schedule(target="sm_90a")
def tinygemm2_fixed(lm, W: LM.tma2d, X: LM.tma2d, Y: LM.gmem):
    smem = lm.smem(65536)
    sw   = smem.view(offset=0,     shape=(16, 64), dtype=lm.bf16, stages=4)
    sx   = smem.view(offset=8192,  shape=(16, 64), dtype=lm.bf16, stages=4)
    part = smem.view(offset=16384, shape=(16, 64), dtype=lm.f32, stages=4)
    a    = lm.regs(shape=(16, 64), dtype=lm.f32)
    b    = lm.regs(shape=(16, 64), dtype=lm.f32)

    math = lm.role(warps=[0, 1, 2, 3], group=1)
    dma  = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=1)
    wbar = lm.barrier(count=4, prod=[dma], cons=[math], init_count=1)
    xbar = lm.barrier(count=4, prod=[dma], cons=[math], init_count=1)
    all_threads = lm.named_barrier(roles=[math])   # the fix: only the math warps

    with dma:
        d = lm.instance()
        if d < 4:
            sw.tma_load(W, coords=(d * 16, 0), stage=d, barrier=wbar)
        else:
            sx.tma_load(X, coords=((d - 4) * 16, 0), stage=d - 4, barrier=xbar)

    with math:
        t = lm.instance()
        lm.wait(xbar, stage=t)
        lm.wait(wbar, stage=t)
        lm.copy(b, sx[t])
        lm.copy(a, sw[t])
        lm.binary(a, a, b, op="mul")
        lm.copy(part[t], a)
        lm.sync(all_threads)
        if t == 0:
            lm.copy(a, part[0])
            for j in lm.range(0, 3):
                lm.copy(b, part[j + 1])
                lm.binary(a, a, b, op="add")
            lm.copy(Y, a, coords=(0, 0))
