# FIXED form of llamacpp_fattn_vec_masked_tile_skip_no_barrier.cake
# (ggml-org/llama.cpp PR #13742): `if (__all_sync(0xFFFFFFFF, skip)) {
# __syncthreads(); continue; }` - every warp has finished reading the
# tile's mask before any warp stores the next tile's.
# expect: pass
@cake.schedule(target="sm_80")
def llamacpp_fattn_vec_masked_tile_skip_barrier_fixed(lm, Mask: LM.gmem, K: LM.gmem, Dst: LM.gmem,
                                                      n_tiles: LM.i32, n_masked: LM.i32):
    lm.assume(n_tiles >= 1)
    lm.assume(n_masked >= 0)
    lm.assume(n_masked <= n_tiles)
    pool   = lm.smem(1024)
    maskh  = pool.view(offset=0,   shape=(1, 128), dtype=lm.f16)     # maskh_shared[ncols*D]
    kq     = pool.view(offset=256, shape=(1, 128), dtype=lm.f16)     # KQ[ncols*D]
    kqmax  = pool.view(offset=512, shape=(1, 32), dtype=lm.f16)      # kqmax_shared[ncols][WARP_SIZE]
    m      = lm.regs(shape=(1, 32), dtype=lm.f16)
    mall   = lm.regs(shape=(1, 128), dtype=lm.f16)
    s      = lm.regs(shape=(1, 32), dtype=lm.f16)
    mx     = lm.regs(shape=(1, 32), dtype=lm.f16)
    mxall  = lm.regs(shape=(1, 32), dtype=lm.f16)
    mx1    = lm.regs(shape=(1, 1), dtype=lm.f16)
    kqall  = lm.regs(shape=(1, 128), dtype=lm.f16)
    vkq    = lm.regs(shape=(1, 32), dtype=lm.f16)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        if w == 0:
            lm.fill(mx, -65504.0)
            lm.copy(kqmax[0], mx)                                    # kqmax_shared[j][tid.x] = -HALF_MAX_HALF
        lm.fill(m, 0.0)
        lm.copy(maskh[0][:, 32 * w:32 * w + 32], m)                  # maskh_shared[j*D + tid] = 0
        lm.sync(block)
        lm.fill(s, -65504.0)
        lm.copy(kq[0][:, 32 * w:32 * w + 32], s)                     # KQ[j*D + tid] = -HALF_MAX_HALF
        lm.sync(block)
        lm.fill(vkq, 0.0)
        for k in lm.range(0, n_tiles):
            lm.copy(m, Mask, coords=(0, 128 * k + 32 * w))
            lm.copy(maskh[0][:, 32 * w:32 * w + 32], m)
            lm.sync(block)
            lm.copy(mall, maskh[0])
            if k < n_masked:                                         # __all_sync(skip): the tile is masked out
                lm.sync(block)                                       # the fix: __syncthreads(); continue;
            else:
                lm.copy(s, K, coords=(128 * k + 32 * w, 0))          # vec_dot_KQ of this warp's K rows
                lm.copy(m, maskh[0][:, 32 * w:32 * w + 32])
                lm.binary(s, s, m, op="add")                         # sum += maskh_shared[j*D + i_KQ]
                lm.copy(kq[0][:, 32 * w:32 * w + 32], s)             # KQ[j*D + i_KQ] = sum (lane 0)
                lm.reduce(mx1, s, op="max", axis=1)
                lm.copy(kqmax[0][:, w:w + 1], mx1)                   # kqmax_shared[j][threadIdx.y]
                lm.sync(block)
                lm.copy(mxall, kqmax[0])                             # kqmax_shared[j][threadIdx.x]
                lm.copy(s, kq[0][:, 32 * w:32 * w + 32])
                lm.unary(s, s, op="exp2")
                lm.copy(kq[0][:, 32 * w:32 * w + 32], s)             # KQ[j*D + tid] = val
                lm.sync(block)
                lm.copy(kqall, kq[0])                                # VKQ += V_k * KQ2[...]: all of KQ
                lm.reduce(mx1, kqall, op="sum", axis=1)
                lm.binary(vkq, vkq, mx1, op="add")
                lm.sync(block)
        lm.copy(Dst, vkq, coords=(0, 32 * w))
