# flashinfer-ai/flashinfer PR #4638 ("feat(cake_activation): add fused
# Blackwell SwiGLU MXFP8 quantization", merged 2026-08-20),
# csrc/gated_act_mxfp8/gated_act_mxfp8_bwd_col.cu: one block of 128 threads
# per 32 x 64 tile; warp 0's elected thread issues the three TMA loads (gate,
# up and the incoming gradient, 3 x 4096 bytes) on input_full, and then
#     if (tid_0 == 0) mbarrier_arrive_expect_tx(input_full_addr, 12288);
#     else            mbarrier_arrive(input_full_addr);
# with input_full initialized for all 128 threads.  A review bot flagged the
# expect_tx after the loads as critical ("must precede" the copies); it is
# correct: the phase cannot complete before thread 0's arrive.expect_tx,
# one of the 128 pending arrivals, so bytes that land first only leave the
# transaction count short for a while.  Known-good: cake must neither
# report a tx-imbalance nor a race here.
# Modelled: the four warps as one-warp instances; thread 0's expect_tx and
# its warp's other 31 arrivals by warp 0's instance, 32 arrivals by each
# other warp; each warp then reads its 8 rows of the three tiles and stores
# the product (the SwiGLU backward and the MXFP8 quantization left out).
# The arrivals name their phase (phase=0): without it the second
# arrive-type op of warp 0's instance on the slot is annotated phase 1
# (docs/semantics.md "Slots and phases": stage= arrive-type ops count
# the instance's earlier ones), a sync.phase-annotation-mismatch warning
# (docs/known-limits.md "Two arrive-type ops of one instance in one phase").
# expect: pass
@cake.schedule(target="sm_100a")
def flashinfer_gated_act_mxfp8_bwd_col(lm, Gate: LM.tma2d, Up: LM.tma2d, Grad: LM.tma2d, Out: LM.gmem):
    pool  = lm.smem(12288)
    gate  = pool.view(offset=0,    shape=(32, 64), dtype=lm.bf16)
    up    = pool.view(offset=4096, shape=(32, 64), dtype=lm.bf16)
    grad  = pool.view(offset=8192, shape=(32, 64), dtype=lm.bf16)
    g     = lm.regs(shape=(8, 64), dtype=lm.bf16)
    u     = lm.regs(shape=(8, 64), dtype=lm.bf16)
    d     = lm.regs(shape=(8, 64), dtype=lm.bf16)

    warps      = lm.role(warps=[0, 1, 2, 3], group=1)
    input_full = lm.barrier(count=1, prod=[warps], cons=[warps], init_count=128)

    with warps:
        w = lm.instance()
        bx = lm.block_idx(0) * 64
        by = lm.block_idx(1) * 32
        if w == 0:
            gate.tma_load(Gate, coords=(by, bx), stage=0, barrier=input_full)
            up.tma_load(Up, coords=(by, bx), stage=0, barrier=input_full)
            grad.tma_load(Grad, coords=(by, bx), stage=0, barrier=input_full)
            lm.expect_tx(input_full, 12288, stage=0, phase=0)   # thread 0, after the loads
            lm.arrive(input_full, stage=0, phase=0, count=31)   # the warp's other lanes
        else:
            lm.arrive(input_full, stage=0, phase=0, count=32)
        lm.wait(input_full, stage=0)
        lm.copy(g, gate[0][8 * w:8 * w + 8, :])
        lm.copy(u, up[0][8 * w:8 * w + 8, :])
        lm.copy(d, grad[0][8 * w:8 * w + 8, :])
        lm.binary(g, g, u, op="mul")
        lm.binary(g, g, d, op="mul")
        lm.copy(Out, g, coords=(by + 8 * w, bx))
