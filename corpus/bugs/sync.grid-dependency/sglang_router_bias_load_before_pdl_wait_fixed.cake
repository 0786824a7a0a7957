# FIXED form of sglang_router_bias_load_before_pdl_wait.cake
# (sgl-project/sglang PR #38290): the router waits on the PDL dependency
# before its first load, the bias's included, since the bias may be a
# tensor the preceding kernel just wrote.
# expect: pass
@cake.schedule(target="sm_90a")
def sglang_router_bias_load_after_pdl_wait_fixed(lm, Scores: LM.gmem, Bias: LM.gmem, TopkW: LM.gmem,
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
            lm.grid_dep_wait()                                      # gdc_wait() first (the fix, PR #38290)
            lm.copy(bias, Bias, coords=(0, 0))
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
