# FIXED: opencv_cuda_hog_normalize_second_reduce_no_leading_sync.cake as
# opencv/opencv PR #5742 fixes it (issue #5721): a __syncthreads() before
# each reduce_smem call, so every thread has read the first sum out of
# smem[0] before any thread stores its squared element for the second.
# expect: pass
@cake.schedule(target="sm_80")
def opencv_hog_normalize_hists_fixed(lm, BlockHists: LM.gmem):
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
        lm.sync(block)                                      # the PR's first barrier ("for symmetry")
        # reduce_smem #1
        lm.binary(e2, elem, elem, op="mul")
        lm.copy(sq[z][0:1, x0:x0 + 32], e2)                 # smem[tid] = val
        lm.sync(block)
        if w % 2 == 0:
            lm.copy(hi, sq[z][0:1, 32:64])                  # sum + smem[tid + 32]
            lm.binary(e2, e2, hi, op="add")
            lm.reduce(part, e2, op="sum", axis=1)           # shuffles
            lm.copy(sq[z][0:1, 0:1], part)                  # thread 0: smem[0] = sum
        lm.sync(block)
        lm.copy(tot, sq[z][0:1, 0:1])                       # return smem[0]
        lm.unary(tot, tot, op="sqrt")
        lm.binary(tot, tot, 3.6, op="add")                  # + 0.1f * block_hist_size
        lm.unary(tot, tot, op="recip")
        lm.binary(elem, elem, tot, op="mul")
        lm.binary(elem, elem, 0.2, op="min")                # min(elem * scale, threshold)
        lm.sync(block)                                      # the fix
        # reduce_smem #2
        lm.binary(e2, elem, elem, op="mul")
        lm.copy(sq[z][0:1, x0:x0 + 32], e2)
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
