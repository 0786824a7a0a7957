# Hopper long-row softmax (rows longer than shared memory: vocab-sized
# logits, as the two-pass "looped" softmax kernels of Liger/Apex do it):
# a TMA warp streams the row's 128-column blocks through a 3-slot ring
# TWICE - pass 1 for the running max and sum (online rescaling), pass 2
# re-reads every block to write exp2(x - m) / l.  The ring index runs on
# across the passes (pass 2's block k is ring iteration n + k), so the
# slot/phase bookkeeping of pass 2 starts where pass 1 stopped, as a
# single pipeline state carried across both loops does.
# Proof: proved (the passes read as tiles of two kinds; docs/z3.md "Two
# passes over one ring read as tiles of two kinds").
# Bug twin: corpus/bugs/sync.lost-phase/sm90_softmax_two_pass_ring_restart.cake.
# expect: pass
@cake.schedule(target="sm_90a")
def softmax_two_pass_ring(lm, X: LM.tma2d, Y: LM.gmem, V: LM.i32):
    lm.assume(V > 0)
    pool   = lm.smem(49152)
    smem_x = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=3)
    x      = lm.regs(shape=(64, 128), dtype=lm.f32)
    m      = lm.regs(shape=(64, 1), dtype=lm.f32)
    mn     = lm.regs(shape=(64, 1), dtype=lm.f32)
    sc     = lm.regs(shape=(64, 1), dtype=lm.f32)
    l      = lm.regs(shape=(64, 1), dtype=lm.f32)
    s      = lm.regs(shape=(64, 1), dtype=lm.f32)

    load  = lm.role(warps=[0])
    wg    = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=3)
    full  = lm.barrier(prod=[load], cons=[wg], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[wg], cons=[load], init_count=1, pipeline=pipe)

    n  = lm.cdiv(V, 128)
    r0 = lm.block_idx(0) * 64

    with load:
        for k in lm.range(0, n):
            lm.wait(empty, iter=k - 3)
            smem_x.tma_load(X, coords=(r0, k * 128), iter=k, barrier=full)
        for k in lm.range(0, n):
            lm.wait(empty, iter=n + k - 3)
            smem_x.tma_load(X, coords=(r0, k * 128), iter=n + k, barrier=full)

    with wg:
        lm.fill(m, -1.0e30)
        lm.fill(l, 0.0)
        for k in lm.range(0, n):
            lm.wait(full, iter=k)
            lm.copy(x, smem_x[k])
            lm.fence_proxy()
            lm.arrive(empty, iter=k)
            lm.binary(x, x, 1.442695, op="mul")
            lm.reduce(mn, x, op="max", axis=1)
            lm.binary(mn, mn, m, op="max")
            lm.binary(sc, m, mn, op="sub")
            lm.unary(sc, sc, op="exp2")
            lm.binary(l, l, sc, op="mul")
            lm.binary(x, x, mn, op="sub")
            lm.unary(x, x, op="exp2")
            lm.reduce(s, x, op="sum", axis=1)
            lm.binary(l, l, s, op="add")
            lm.copy(m, mn)
        lm.unary(l, l, op="recip")
        for k in lm.range(0, n):
            lm.wait(full, iter=n + k)
            lm.copy(x, smem_x[n + k])
            lm.fence_proxy()
            lm.arrive(empty, iter=n + k)
            lm.binary(x, x, 1.442695, op="mul")
            lm.binary(x, x, m, op="sub")
            lm.unary(x, x, op="exp2")
            lm.binary(x, x, l, op="mul")
            lm.copy(Y, x, coords=(r0, k * 128))
