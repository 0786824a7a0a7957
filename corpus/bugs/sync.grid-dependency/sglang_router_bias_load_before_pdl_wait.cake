# BUG (sync.grid-dependency): sgl-project/sglang PR #38290 ("[Kernel] Wait
# for the PDL dependency before loading the router bias (Triton + radix)",
# 2026-09-07, merged).  The MoE routing kernels
# python/sglang/kernels/ops/moe/moe_fused_gate.py::_router_triton_kernel
# (launched with launch_pdl=True on compute capability >= 9) and the radix
# fast path route_radix.cuh::route_radix_block load the expert `bias`
# before the programmatic-dependent-launch wait (griddepcontrol.wait) and
# the router `scores` after it.  Both assumed the bias is a frozen weight,
# but fused_topk's sigmoid path passes `correction_bias.to(torch.float32)`
# (a fresh tensor when the parameter is fp16/bf16) or a fresh torch.zeros,
# written by the kernel just before this one in the stream: under PDL the
# router may read it before that kernel's stores are visible (the compiled
# sm_121 kernel shows the four bias LDG.E.128 ahead of the wait).  The fix
# moves the bias loads after the wait.
# Modelled: the Triton kernel's program as one one-warp instance per token
# row (four per CTA), E = 128 experts (the bias and one score row a
# 1 x 128 f32 fragment), the bias declared a tensor the preceding grid
# writes (lm.grid_dependency) like the scores; the sigmoid, bias add and
# top-k as unary / binary / reduce ops; the outputs (top-k weights and
# expert ids) one store each.  Left out: expert grouping (the radix path
# is the same order of loads).
# Fix: sglang_router_bias_load_before_pdl_wait_fixed.cake.
# expect: sync.grid-dependency
@cake.schedule(target="sm_90a")
def sglang_router_bias_load_before_pdl_wait(lm, Scores: LM.gmem, Bias: LM.gmem, TopkW: LM.gmem,
                                            TopkIds: LM.gmem, n_tok: LM.i32):
    lm.grid_dependency(Scores)
    lm.grid_dependency(Bias)                            # a fresh .to(float32) / zeros, not a weight
    bias  = lm.regs(shape=(1, 128), dtype=lm.f32)
    score = lm.regs(shape=(1, 128), dtype=lm.f32)
    prob  = lm.regs(shape=(1, 128), dtype=lm.f32)
    wmax  = lm.regs(shape=(1, 1), dtype=lm.f32)
    imax  = lm.regs(shape=(1, 1), dtype=lm.i32)

    rows = lm.role(warps=[0, 1, 2, 3], group=1)

    with rows:
        t = 4 * lm.block_idx(0) + lm.instance()
        if t < n_tok:
            lm.copy(bias, Bias, coords=(0, 0))                       # expect-error: sync.grid-dependency
            lm.grid_dep_wait()                                      # gdc_wait(): after the bias load
            lm.copy(score, Scores, coords=(t, 0))
            lm.unary(prob, score, op="neg")
            lm.unary(prob, prob, op="exp2")
            lm.binary(prob, prob, 1.0, op="add")
            lm.unary(prob, prob, op="recip")                        # sigmoid(scores)
            lm.binary(prob, prob, bias, op="add")                   # + correction bias for the choice
            lm.reduce(wmax, prob, op="max", axis=1)
            lm.reduce(imax, prob, op="argmax", axis=1)
            lm.copy(TopkW, wmax, coords=(t, 0))
            lm.copy(TopkIds, imax, coords=(t, 0))
        lm.launch_dependents()
