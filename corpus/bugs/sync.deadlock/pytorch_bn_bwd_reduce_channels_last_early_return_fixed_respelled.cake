# RESPELLING of corpus/bugs/sync.deadlock/pytorch_bn_bwd_reduce_channels_last_early_return_fixed.cake
# (pytorch/pytorch PR #172554): as _r1, no early return: the loads masked,
# the partials zeroed first, every warp runs the two-level loop.
# expect: pass
@cake.schedule(target="sm_80")
def bn_bwd_reduce_cl_fixed(lm, inp: LM.gmem, grad_out: LM.gmem, sum_dy: LM.gmem, sum_dy_xmu: LM.gmem,
                           rsize: LM.i32):
    lm.assume(rsize > 0)
    smem  = lm.smem(1024)
    s_dy  = smem.view(offset=0,   shape=(1, 32), dtype=lm.f32, stages=4)
    s_xmu = smem.view(offset=512, shape=(1, 32), dtype=lm.f32, stages=4)
    a  = lm.regs(shape=(1, 32), dtype=lm.f32)
    b  = lm.regs(shape=(1, 32), dtype=lm.f32)
    ta = lm.regs(shape=(1, 32), dtype=lm.f32)
    tb = lm.regs(shape=(1, 32), dtype=lm.f32)
    ty = lm.role(warps=[0, 1, 2, 3], group=1)
    sync = lm.named_barrier(roles=[ty])
    with ty:
        m = lm.instance()
        c = lm.block_idx(0) * 32
        lm.fill(a, 0.0)
        lm.fill(b, 0.0)
        if not m >= rsize:
            lm.copy(a, grad_out, coords=(m, c))
            lm.copy(b, inp, coords=(m, c))
            lm.binary(b, b, a, op="mul")
        for lvl in lm.range(0, 2):
            off = 2 - lvl
            if m < 2 * off:
                lm.copy(s_dy[m], a)
                lm.copy(s_xmu[m], b)
            lm.sync(sync)
            if m < off:
                lm.copy(ta, s_dy[m + off])
                lm.copy(tb, s_xmu[m + off])
                lm.binary(a, a, ta, op="add")
                lm.binary(b, b, tb, op="add")
            lm.sync(sync)
        if m == 0:
            lm.copy(sum_dy, a, coords=(0, c))
            lm.copy(sum_dy_xmu, b, coords=(0, c))
