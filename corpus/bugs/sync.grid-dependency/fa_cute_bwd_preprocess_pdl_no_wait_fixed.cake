# FIXED form of fa_cute_bwd_preprocess_pdl_no_wait.cake (Dao-AILab/
# flash-attention PR #2481): bwd_preprocess calls
# cute.arch.griddepcontrol_wait() before its first global read, so dO is
# read only once the preceding grid has completed and its writes are
# visible.
# expect: pass
@cake.schedule(target="sm_90a")
def fa_cute_bwd_preprocess_pdl_wait_fixed(lm, O: LM.gmem, dO: LM.gmem, LSE: LM.gmem, dPsum: LM.gmem,
                                          LSElog2: LM.gmem, dQaccum: LM.gmem):
    lm.grid_dependency(dO)
    o    = lm.regs(shape=(16, 128), dtype=lm.f32)
    do   = lm.regs(shape=(16, 128), dtype=lm.f32)
    dps  = lm.regs(shape=(16, 1), dtype=lm.f32)
    lse  = lm.regs(shape=(16, 1), dtype=lm.f32)
    zero = lm.regs(shape=(16, 128), dtype=lm.f32)

    rows = lm.role(warps=[0, 1, 2, 3], group=1)

    with rows:
        m0 = 64 * lm.block_idx(0) + 16 * lm.instance()
        lm.grid_dep_wait()                                  # the fix (PR #2481)
        lm.copy(o, O, coords=(m0, 0))
        lm.copy(do, dO, coords=(m0, 0))
        lm.launch_dependents()
        lm.binary(o, o, do, op="mul")
        lm.reduce(dps, o, op="sum", axis=1)                 # dpsum = rowsum(O * dO)
        lm.copy(dPsum, dps, coords=(m0, 0))
        lm.copy(lse, LSE, coords=(m0, 0))
        lm.binary(lse, lse, 1.4426950408889634, op="mul")   # LSE * log2(e)
        lm.copy(LSElog2, lse, coords=(m0, 0))
        lm.fill(zero, 0.0)
        lm.copy(dQaccum, zero, coords=(m0, 0))
