# FIXED: ik_llama_indexer_mask_passes_no_barrier.cake as
# ikawrakow/ik_llama.cpp PR #2148 fixes it (issue #2139): a
# __syncthreads() after the -inf fill and after the top-k scatter, so each
# pass over the row d[] starts when the previous one is complete.
# expect: pass
@cake.schedule(target="sm_80")
def k_indexer_mask_synced(lm, D: LM.gmem, Mk: LM.gmem):
    ninf = lm.regs(shape=(1, 32), dtype=lm.f32)
    zero = lm.regs(shape=(1, 1), dtype=lm.f32)
    dv   = lm.regs(shape=(1, 32), dtype=lm.f32)
    mv   = lm.regs(shape=(1, 32), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()
        row = lm.block_idx(0)
        lm.fill(ninf, -1.0e30)
        for s in lm.range(0, 4):
            lm.copy(D, ninf, coords=(row, 128 * s + 32 * w))        # d[j] = -inf
        lm.sync(bar)                                                # the fix
        lm.fill(zero, 0.0)
        lm.copy(D, zero, coords=(row, 32 * ((w + 1) % 4) + 7))    # d[i[j]] = 0
        lm.sync(bar)                                                # the fix
        for s in lm.range(0, 4):
            lm.copy(dv, D, coords=(row, 128 * s + 32 * w))          # d[j] += m[j]
            lm.copy(mv, Mk, coords=(row, 128 * s + 32 * w))
            lm.binary(dv, dv, mv, op="add")
            lm.copy(D, dv, coords=(row, 128 * s + 32 * w))
