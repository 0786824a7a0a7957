# FIXED form of pytorch_xpu_ctc_loss_log_alpha_early_return.cake
# (intel/torch-xpu-ops PR #1087): no row returns early; a `valid` flag
# (b < batch_size and input_length > 0) guards the work, and every row of
# the work-group reaches every barrier of the t loop and the one after it.
# expect: pass
@cake.schedule(target="sm_80")
def pytorch_xpu_ctc_loss_log_alpha_fixed(lm, LogProbs: LM.gmem, Alpha: LM.gmem, Nll: LM.gmem,
                                         max_input_length: LM.i32, rows_live: LM.i32):
    lm.assume(max_input_length >= 1)
    lm.assume(rows_live >= 0)
    lm.assume(rows_live <= 4)
    la   = lm.regs(shape=(1, 32), dtype=lm.f32)
    lp   = lm.regs(shape=(1, 32), dtype=lm.f32)
    loss = lm.regs(shape=(1, 1), dtype=lm.f32)

    rows  = lm.role(warps=[0, 1, 2, 3], group=1)
    group = lm.named_barrier(roles=[rows])

    with rows:
        y = lm.instance()
        if y < rows_live:                               # valid
            lm.copy(la, LogProbs, coords=(y, 0))
            lm.copy(Alpha, la, coords=(y, 0))
        for t in lm.range(1, max_input_length):
            lm.sync(group)                              # every row reaches it
            if y < rows_live:
                # alpha[b][t-1][s-2..s]: this row's own values (registers here)
                lm.copy(lp, LogProbs, coords=(y, 32 * t))
                lm.binary(la, la, lp, op="add")
                lm.copy(Alpha, la, coords=(y, 32 * t))
        lm.sync(group)
        if y < rows_live:                               # if (!valid) return;
            # alpha[b][input_length - 1]: this row's own values
            lm.reduce(loss, la, op="max", axis=1)
            lm.copy(Nll, loss, coords=(0, y))
