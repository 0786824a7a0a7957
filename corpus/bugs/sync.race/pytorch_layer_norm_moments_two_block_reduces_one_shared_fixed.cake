# FIXED form of pytorch_layer_norm_moments_two_block_reduces_one_shared.cake
# (pytorch/pytorch PR #27634, as merged): BlockReduceSum takes its shared
# buffer as an argument and RowwiseMomentsCUDAKernel passes a different one
# to each call (m_shared for the sum, v_shared for the sum of squares), so
# the second reduction's partials never overwrite words warp 0 still reads.
# Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_80")
def pytorch_layer_norm_moments_two_block_reduces_one_shared_fixed(lm, X: LM.gmem, Mean: LM.gmem,
                                                                  Rstd: LM.gmem):
    pool     = lm.smem(256)
    m_shared = pool.view(offset=0,  shape=(1, 4), dtype=lm.f32)
    v_shared = pool.view(offset=16, shape=(1, 4), dtype=lm.f32)
    x      = lm.regs(shape=(1, 32), dtype=lm.f32)
    sq     = lm.regs(shape=(1, 32), dtype=lm.f32)
    part   = lm.regs(shape=(1, 1), dtype=lm.f32)
    allw   = lm.regs(shape=(1, 4), dtype=lm.f32)
    s1     = lm.regs(shape=(1, 1), dtype=lm.f32)
    s2     = lm.regs(shape=(1, 1), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w   = lm.instance()
        row = lm.block_idx(0)
        lm.copy(x, X, coords=(row, 32 * w))
        lm.binary(sq, x, x, op="mul")
        lm.reduce(part, x, op="sum", axis=1)
        lm.copy(m_shared[0][0:1, w:w + 1], part)
        lm.sync(bar)
        if w == 0:
            lm.copy(allw, m_shared[0])
            lm.reduce(s1, allw, op="sum", axis=1)
        lm.reduce(part, sq, op="sum", axis=1)
        lm.copy(v_shared[0][0:1, w:w + 1], part)
        lm.sync(bar)
        if w == 0:
            lm.copy(allw, v_shared[0])
            lm.reduce(s2, allw, op="sum", axis=1)
            lm.binary(s1, s1, 0.0078125, op="mul")
            lm.binary(s2, s2, 0.0078125, op="mul")
            lm.copy(Mean, s1, coords=(row, 0))
            lm.copy(Rstd, s2, coords=(row, 0))
