# BUG (sync.race): NVIDIA/apex PR #1184 ("fix race in `cuApplyLayerNorm`",
# 2021-10-07; the same kernel as Megatron-LM's
# megatron/fused_kernels/layer_norm_cuda_kernel.cu, where compute-sanitizer
# reported it).  cuApplyLayerNorm loops over rows
# (for i1 = blockIdx.y; i1 < n1; i1 += gridDim.y); for each row
# cuWelfordMuSigma2 tree-reduces the warps' (mu, sigma2) partials through
# the shared ubuf (the upper half of the warps write ubuf[2 * wrt_y],
# ubuf[2 * wrt_y + 1], __syncthreads(), the lower half merges them,
# __syncthreads(), halving), then thread (0, 0) writes ubuf[0] = mu,
# ubuf[1] = sigma2, __syncthreads(), and every thread reads ubuf[0] and
# ubuf[1] to normalize its part of the row.  No barrier follows that read,
# so a warp that finishes the row early starts the next row's reduction
# and writes ubuf[0..1] while a lagging warp still reads this row's mu and
# sigma2 there (a wrong mean / variance for that row).  The PR adds a
# __syncthreads() at the end of the row loop.
# Modelled: blockDim = (32, 4), each warp its own instance (threadIdx.y)
# with 256 of the row's 1024 columns; ubuf as 8 floats; the Welford merge
# as adds of the partials (one float pair per warp); the row loop runs
# n_rows times.  ubuf is named by row (ubuf[i1] of a one-slot view: the
# same bytes every row).  Left out: the count buffer ibuf, the gamma/beta
# affine part, the mean/invvar outputs.
# Fix: apex_cu_apply_layer_norm_ubuf_next_row_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def apex_cu_apply_layer_norm_ubuf_next_row_no_barrier(lm, X: LM.gmem, Y: LM.gmem, n_rows: LM.i32):
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
                lm.copy(ubuf[i1][:, 2 * w - 4:2 * w - 2], ms)         # expect-error: sync.race
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
            # mu = ubuf[0]; sigma2 = ubuf[1] / n2
            lm.copy(ms, ubuf[i1][:, 0:2])   # expect-error: sync.race
            lm.binary(x, x, ms[:, 0:1], op="sub")
            lm.binary(x, x, ms[:, 1:2], op="mul")
            lm.copy(Y, x, coords=(row, c0))
            # BUG: no __syncthreads() before the next row's reduction rewrites ubuf
