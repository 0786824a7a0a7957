# FIX of flashinfer_allreduce_fusion_fusedop_before_pdl_sync.cake:
# flashinfer-ai/flashinfer PR #5081: the FusedOp (whose constructor loads
# rms_gamma and the first residual_in row) is constructed after
# cudaGridDependencySynchronize() in both all-reduce fusion kernels;
# nothing else moves.  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_90a")
def flashinfer_allreduce_fusion_fusedop_after_pdl_sync_fixed(lm, Input: LM.gmem, ResidualIn: LM.gmem, Gamma: LM.gmem,
                                                             ResidualOut: LM.gmem, NormOut: LM.gmem):
    lm.grid_dependency(Input)
    lm.grid_dependency(ResidualIn)
    pool  = lm.smem(1024)
    s_sum = pool.view(offset=0, shape=(1, 4), dtype=lm.f32, stages=1)
    gamma = lm.regs(shape=(1, 256), dtype=lm.f32)
    res   = lm.regs(shape=(1, 256), dtype=lm.f32)
    x     = lm.regs(shape=(1, 256), dtype=lm.f32)
    sq    = lm.regs(shape=(1, 256), dtype=lm.f32)
    part  = lm.regs(shape=(1, 1), dtype=lm.f32)
    sums  = lm.regs(shape=(1, 4), dtype=lm.f32)
    tot   = lm.regs(shape=(1, 1), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])

    tok = lm.block_idx(0)

    with warps:
        w  = lm.instance()
        c0 = 256 * w
        lm.grid_dep_wait()                                         # cudaGridDependencySynchronize()
        lm.copy(gamma, Gamma, coords=(0, c0))                      # the fix: FusedOp constructed after it
        lm.copy(res, ResidualIn, coords=(tok, c0))                 # first residual_in row
        lm.copy(x, Input, coords=(tok, c0))                        # the all-reduced row
        lm.binary(x, x, res, op="add")                             # + residual
        lm.copy(ResidualOut, x, coords=(tok, c0))
        lm.binary(sq, x, x, op="mul")
        lm.reduce(part, sq, op="sum", axis=1)
        lm.copy(s_sum[0][:, w:w + 1], part)
        lm.sync(cta)
        lm.copy(sums, s_sum[0])
        lm.reduce(tot, sums, op="sum", axis=1)
        lm.binary(tot, tot, 0.0009765625, op="mul")
        lm.unary(tot, tot, op="rsqrt")
        lm.binary(x, x, tot, op="mul")
        lm.binary(x, x, gamma, op="mul")
        lm.copy(NormOut, x, coords=(tok, c0))
