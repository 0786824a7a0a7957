# FIXED: lbfgsb_gpu_cmprlb_syncthreads_in_row_branch.cake as
# raymondyfei/lbfgsb-gpu PR #12 fixes it: the __syncthreads() that
# publishes a[][] moves before the `if (i < nfree && tidx < col)`, so every
# thread reaches both barriers; the rows past nfree only add zeros.
# expect: pass
# lower: unsupported (a row of the 2 x 8 register fragment a[][] broadcast against the warp's 4 x 8 products: the lowering spreads a fragment's rows over the instance's 32 threads)
@cake.schedule(target="sm_90a")
def lbfgsb_cmprlb_kernel1_fixed(lm, Wa: LM.gmem, Wy: LM.gmem, Ws: LM.gmem, R: LM.gmem, nfree: LM.i32):
    lm.assume(nfree >= 1)
    lm.assume(nfree <= 4096)
    pool  = lm.smem(1152)
    a     = pool.view(offset=0, shape=(2, 16), dtype=lm.f32)        # __shared__ real a[2][bsize + 1]
    sdata = pool.view(offset=128, shape=(16, 16), dtype=lm.f32)     # volatile __shared__ real sdata[512 / bsize][bsize + 1]
    wa    = lm.regs(shape=(2, 8), dtype=lm.f32)
    av    = lm.regs(shape=(2, 8), dtype=lm.f32)
    wy    = lm.regs(shape=(4, 8), dtype=lm.f32)
    ws    = lm.regs(shape=(4, 8), dtype=lm.f32)
    s     = lm.regs(shape=(4, 8), dtype=lm.f32)                       # mySum of the warp's 4 rows x 8 lanes
    rs    = lm.regs(shape=(4, 1), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w  = lm.instance()
        i0 = 16 * lm.block_idx(0) + 4 * w                   # i of the warp's first row
        if w == 0:                                          # tidy == 0 && tidx < col
            lm.copy(wa, Wa, coords=(0, 0))
            lm.copy(a[0][0:2, 0:8], wa)                     # a[0][tidx] = wa[tidx]; a[1][tidx] = theta * wa[col + tidx]
        lm.sync(block)                                      # the fix: __syncthreads() before the branch
        if i0 < nfree:                                      # i < nfree && tidx < col
            lm.copy(av, a[0][0:2, 0:8])
            lm.copy(wy, Wy, coords=(i0, 0))                 # wy[k * iPitch + pointr]
            lm.copy(ws, Ws, coords=(i0, 0))
            lm.binary(wy, wy, av[0:1, :], op="mul")
            lm.binary(ws, ws, av[1:2, :], op="mul")
            lm.binary(s, wy, ws, op="add")
        else:
            lm.fill(s, 0.0)                                 # mySum = 0
        lm.copy(sdata[0][4 * w:4 * w + 4, 0:8], s)          # *smem = mySum
        lm.sync(block)
        lm.copy(s, sdata[0][4 * w:4 * w + 4, 0:8])          # the row's sum over smem[4], smem[2], smem[1]
        lm.reduce(rs, s, op="sum", axis=1)
        lm.copy(sdata[0][4 * w:4 * w + 4, 0:1], rs)
        if i0 < nfree:                                      # tidx == 0 && i < nfree
            lm.copy(R, rs, coords=(i0, 0))                  # r[i] = -theta * (z[k] - x[k]) - g[k] + mySum
