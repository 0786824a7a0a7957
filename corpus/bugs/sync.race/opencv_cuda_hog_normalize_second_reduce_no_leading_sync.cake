# BUG (sync.race): opencv/opencv issue #5721 ("cuda::HOG instability bug in
# release mode": about 3 to 5 of 1000 descriptor extractions differ),
# fixed by PR #5742 ("Race condition bug-fix in hog.cu", merged).
# modules/cudaobjdetect/src/cuda/hog.cu, normalize_hists_kernel_many_blocks
# <nthreads, nblocks>: each group of nthreads threads (threadIdx.z picks
# the block histogram, its own sh_squares row) L2-Hys-normalizes one
# histogram with two sums of squares through one shared row:
#     float sum = reduce_smem<nthreads>(squares, elem * elem);
#     float scale = 1.0f / (sqrtf(sum) + 0.1f * block_hist_size);
#     elem = min(elem * scale, threshold);
#     // missing: __syncthreads();
#     sum = reduce_smem<nthreads>(squares, elem * elem);
# reduce_smem: cv::cuda::device::reduce<size>(smem, sum, tid, plus) (every
# thread stores smem[tid] = val, __syncthreads(), the first warp adds
# smem[tid + 32], shuffles), then `if (threadIdx.x == 0) smem[0] = sum;
# __syncthreads(); return smem[0];`.  "there is a race condition in
# calling reduce_smem ... a __syncthreads() has to be added before the
# second call": the first warp stores its squared elements for the second
# sum into smem[0..32) while the histogram's second warp still reads
# smem[0], the first sum.  The PR adds the __syncthreads() before the
# second call (and one before the first, "for symmetry").
# Written in CAKE IR: nthreads = 64 (block_hist_size 36: two warps per
# histogram), nblocks = 2 (threadIdx.z), so four one-warp instances,
# warp w working on histogram z = w // 2 with threadIdx.x in 32 (w % 2) ..
# + 31; sh_squares as two 64-float slots (one per z); __syncthreads() a
# named barrier over the block; the shuffles and the scale arithmetic as
# lm.reduce / lm.binary on registers; the histogram's 64 values (36 used)
# as one 32-wide fragment per warp.
# Fix: opencv_cuda_hog_normalize_second_reduce_no_leading_sync_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def opencv_hog_normalize_hists(lm, BlockHists: LM.gmem):
    pool = lm.smem(512)
    sq   = pool.view(offset=0, shape=(1, 64), dtype=lm.f32, stages=2)   # sh_squares, a row per z
    elem = lm.regs(shape=(1, 32), dtype=lm.f32)
    e2   = lm.regs(shape=(1, 32), dtype=lm.f32)
    hi   = lm.regs(shape=(1, 32), dtype=lm.f32)
    part = lm.regs(shape=(1, 1), dtype=lm.f32)
    tot  = lm.regs(shape=(1, 1), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w  = lm.instance()
        z  = w // 2                                         # threadIdx.z
        x0 = 32 * (w % 2)                                   # this warp's threadIdx.x
        h  = 2 * lm.block_idx(0) + z                        # the block histogram
        lm.copy(elem, BlockHists, coords=(h, x0))           # elem = hist[0]
        # reduce_smem #1
        lm.binary(e2, elem, elem, op="mul")
        lm.copy(sq[z][0:1, x0:x0 + 32], e2)                 # smem[tid] = val              # expect-error: sync.race
        lm.sync(block)
        if w % 2 == 0:
            lm.copy(hi, sq[z][0:1, 32:64])                  # sum + smem[tid + 32]
            lm.binary(e2, e2, hi, op="add")
            lm.reduce(part, e2, op="sum", axis=1)           # shuffles
            lm.copy(sq[z][0:1, 0:1], part)                  # thread 0: smem[0] = sum
        lm.sync(block)
        lm.copy(tot, sq[z][0:1, 0:1])                       # return smem[0]               # expect-error: sync.race
        lm.unary(tot, tot, op="sqrt")
        lm.binary(tot, tot, 3.6, op="add")                  # + 0.1f * block_hist_size
        lm.unary(tot, tot, op="recip")
        lm.binary(elem, elem, tot, op="mul")
        lm.binary(elem, elem, 0.2, op="min")                # min(elem * scale, threshold)
        # reduce_smem #2: no __syncthreads() before it
        lm.binary(e2, elem, elem, op="mul")
        lm.copy(sq[z][0:1, x0:x0 + 32], e2)                                                # expect-error: sync.race
        lm.sync(block)
        if w % 2 == 0:
            lm.copy(hi, sq[z][0:1, 32:64])
            lm.binary(e2, e2, hi, op="add")
            lm.reduce(part, e2, op="sum", axis=1)
            lm.copy(sq[z][0:1, 0:1], part)
        lm.sync(block)
        lm.copy(tot, sq[z][0:1, 0:1])
        lm.unary(tot, tot, op="sqrt")
        lm.binary(tot, tot, 0.001, op="add")
        lm.unary(tot, tot, op="recip")
        lm.binary(elem, elem, tot, op="mul")
        lm.copy(BlockHists, elem, coords=(h, x0))           # hist[0] = elem * scale
