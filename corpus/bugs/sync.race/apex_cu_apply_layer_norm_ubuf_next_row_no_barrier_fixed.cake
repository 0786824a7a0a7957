# FIX of apex_cu_apply_layer_norm_ubuf_next_row_no_barrier.cake: NVIDIA/apex
# PR #1184: a __syncthreads() at the end of cuApplyLayerNorm's row loop, so
# no warp starts the next row's Welford reduction through ubuf before every
# warp has read this row's mu and sigma2 there.  Same model as the broken
# file.  (Before session 23 this correct schedule was a false
# data.stale-read: warp 0 reads ubuf[0..1] at two levels of the tree, each
# written once by a different warp, and its second read meant a second
# generation that no warp writes; docs/semantics.md "data.stale-read".)
# lower: unsupported (a (1, 2) register fragment sliced into its two columns, mu and sigma2: the lowering spreads a fragment's columns over the instance's 32 threads)
# expect: pass
@cake.schedule(target="sm_80")
def apex_cu_apply_layer_norm_ubuf_row_barrier_fixed(lm, X: LM.gmem, Y: LM.gmem, n_rows: LM.i32):
    lm.assume(n_rows > 0)
    pool = lm.smem(1024)
    ubuf = pool.view(offset=0, shape=(1, 8), dtype=lm.f32, stages=1)
    x    = lm.regs(shape=(1, 256), dtype=lm.f32)
    sq   = lm.regs(shape=(1, 256), dtype=lm.f32)
    ms   = lm.regs(shape=(1, 2), dtype=lm.f32)       # this warp's (mu, sigma2)
    mb   = lm.regs(shape=(1, 2), dtype=lm.f32)       # the partner's
    pm   = lm.regs(shape=(1, 1), dtype=lm.f32)
    ps   = lm.regs(shape=(1, 1), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])

    with warps:
        w  = lm.instance()
        c0 = 256 * w
        for i1 in lm.range(0, n_rows):
            row = lm.block_idx(1) + i1 * lm.grid_dim(1)
            lm.copy(x, X, coords=(row, c0))
            lm.reduce(pm, x, op="sum", axis=1)                        # this warp's Welford partial
            lm.binary(sq, x, x, op="mul")
            lm.reduce(ps, sq, op="sum", axis=1)
            lm.copy(ms[:, 0:1], pm)
            lm.copy(ms[:, 1:2], ps)
            if w >= 2:                                                # offset 2: upper half writes
                lm.copy(ubuf[i1][:, 2 * w - 4:2 * w - 2], ms)
            lm.sync(cta)
            if w < 2:                                                 # lower half merges
                lm.copy(mb, ubuf[i1][:, 2 * w:2 * w + 2])
                lm.binary(ms, ms, mb, op="add")
            lm.sync(cta)
            if w == 1:                                                # offset 1
                lm.copy(ubuf[i1][:, 0:2], ms)
            lm.sync(cta)
            if w == 0:
                lm.copy(mb, ubuf[i1][:, 0:2])
                lm.binary(ms, ms, mb, op="add")
            lm.sync(cta)
            if w == 0:
                lm.copy(ubuf[i1][:, 0:2], ms)                         # ubuf[0] = mu; ubuf[1] = sigma2
            lm.sync(cta)
            lm.copy(ms, ubuf[i1][:, 0:2])                             # mu = ubuf[0]; sigma2 = ubuf[1] / n2
            lm.binary(x, x, ms[:, 0:1], op="sub")
            lm.binary(x, x, ms[:, 1:2], op="mul")
            lm.copy(Y, x, coords=(row, c0))
            lm.sync(cta)                                              # the fix: __syncthreads() at the end of the row
