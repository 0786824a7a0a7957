# FIX of paddle_cumsum_block_reverse_next_tile_no_barrier.cake (our fix; the
# race is latent in PaddlePaddle/Paddle's cum_kernel.cu, not reported
# upstream): a __syncthreads() after BlockReverse's read, so that every
# warp has read its mirrored elements of tile t before any warp stores tile
# t + 1.  Same model as the broken file: rows of any length, a multiple of
# 32, one 4-warp block per row.
# expect: pass
@cake.schedule(target="sm_80")
def paddle_cumsum_block_reverse_next_tile_no_barrier_fixed(lm, X: LM.gmem, Y: LM.gmem, R: LM.i32):
    lm.assume(R >= 32)
    lm.assume(R % 32 == 0)
    pool = lm.smem(512)
    sh   = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)   # sh_mem[128]
    v    = lm.regs(shape=(1, 32), dtype=lm.f32)

    blk = lm.role(warps=[0, 1, 2, 3], group=1)
    bar = lm.named_barrier(roles=[blk])

    with blk:
        w   = lm.instance()
        row = lm.block_idx(0)
        for t in lm.range(0, lm.cdiv(R, 128)):
            nv = min(R - 128 * t, 128)                                # valid_item
            if 32 * w >= 128 - nv:
                lm.copy(v, X, coords=(row, 128 * t + 96 - 32 * w))
                lm.copy(sh[w + 4 * t], v)
            else:
                lm.fill(sh[w + 4 * t], 0)
            lm.sync(bar)
            if 32 * w < nv:
                lm.copy(v, sh[3 - w + 4 * t])
                lm.copy(Y, v, coords=(row, R - 128 * t - 32 * w - 32))
            lm.sync(bar)                                              # FIX: reads done before the next tile
