# BUG (sync.deadlock): raymondyfei/lbfgsb-gpu PR #12 ("Fix a issue of
# deadlock in cuda kernel; Make it support H100", merged 2025-08-28).
# cmprlb::kernel1 (L-BFGS-B, r = -theta (z - x) - g + W M c for the free
# variables; blockDim = (bsize, 512 / bsize) = (8, 64) for col > 4, one
# free variable i = blockIdx.x * blockDim.y + threadIdx.y per thread row)
# stages a[2][bsize + 1] by row 0, then:
#     if (i < nfree && tidx < col) {
#       const int pointr = Modular((head + tidx), m);
#       k = index[i];
#       __syncthreads();
#       mySum = wy[k * iPitch + pointr] * a[0][tidx] + ws[k * iPitch + pointr] * a[1][tidx];
#     } else
#       mySum = 0;
#     ... *smem = mySum; __syncthreads(); (the row's reduction in sdata[tidy]) ...
# "Fix a bug causing deadlock when utilize H100. __syncthreads() shouldn't
# be written into the if else phase": the rows past nfree of the last block
# (and the lanes tidx >= col) skip the first barrier and wait in the second
# one, where the rows in range never come before they pass the first.
# Written in CAKE IR with blockDim = (8, 16) (four warps of four rows each;
# the kernel has 64 rows, 16 warps): four one-warp instances, warp w holds
# rows 4w..4w+3, and takes the branch when its first row is in range (the
# lanes tidx >= col skip it inside a warp that goes on: below the IR's
# granularity); a[2][9] as a 2x16 f32 view, sdata[64][9] as 16x16; the
# gathers through index[] read at the row (data-dependent coordinates are
# not in the IR); the products and the row sums as lm.binary / lm.reduce.
# Fix: lbfgsb_gpu_cmprlb_syncthreads_in_row_branch_fixed.cake.
# expect: sync.deadlock
@cake.schedule(target="sm_90a")
def lbfgsb_cmprlb_kernel1(lm, Wa: LM.gmem, Wy: LM.gmem, Ws: LM.gmem, R: LM.gmem, nfree: LM.i32):
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
        if i0 < nfree:                                      # i < nfree && tidx < col
            lm.sync(block)                                  # BUG: __syncthreads() in the branch   # expect-error: sync.deadlock
            lm.copy(av, a[0][0:2, 0:8])
            lm.copy(wy, Wy, coords=(i0, 0))                 # wy[k * iPitch + pointr]
            lm.copy(ws, Ws, coords=(i0, 0))
            lm.binary(wy, wy, av[0:1, :], op="mul")
            lm.binary(ws, ws, av[1:2, :], op="mul")
            lm.binary(s, wy, ws, op="add")
        else:
            lm.fill(s, 0.0)                                 # mySum = 0
        lm.copy(sdata[0][4 * w:4 * w + 4, 0:8], s)          # *smem = mySum
        lm.sync(block)                                                          # expect-error: sync.deadlock
        lm.copy(s, sdata[0][4 * w:4 * w + 4, 0:8])          # the row's sum over smem[4], smem[2], smem[1]
        lm.reduce(rs, s, op="sum", axis=1)
        lm.copy(sdata[0][4 * w:4 * w + 4, 0:1], rs)
        if i0 < nfree:                                      # tidx == 0 && i < nfree
            lm.copy(R, rs, coords=(i0, 0))                  # r[i] = -theta * (z[k] - x[k]) - g[k] + mySum
