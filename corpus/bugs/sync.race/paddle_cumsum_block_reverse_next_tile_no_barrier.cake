# BUG (sync.race), latent, not reported upstream: PaddlePaddle/Paddle's
# MatrixRowReverse as fixed by PR #42205 and as it still reads in
# paddle/phi/kernels/gpu/cum_kernel.cu (the InT/OutT version):
#     for (block_offset = 0; block_offset < reverse_size; block_offset += 1024)
#         BlockReverse<InT, OutT, 1024>(matrix_data, reverse_data, ...);
# and BlockReverse is
#     sh_mem[offset] = src_offset < valid_item ? idata[src_base + src_offset] : 0;
#     __syncthreads();
#     if (offset < valid_item) odata[out_index] = sh_mem[BLOCK_SIZE - offset - 1];
# with no barrier after the read.  For a row longer than one block
# (reverse_size > 1024; cumsum/logcumsumexp with reverse=True along a long
# axis) the next call's store to sh_mem[offset] by thread offset races with
# the previous call's read of the same element by thread
# BLOCK_SIZE - offset - 1, which is in another warp: a fast warp
# overwrites an element a slow warp has not read yet (wrong elements in the
# reversed row).  Found while modelling PR #42205
# (paddle_cumsum_block_reverse_zero_fill_overlap.cake); the fix is a
# __syncthreads() at the end of BlockReverse (or of the loop body).
# Modelled as paddle_cumsum_block_reverse_zero_fill_overlap_fixed.cake
# (4 warps, BLOCK_SIZE 128, tile t's chunk k as slot k + 4 * t) with rows of
# any length, a multiple of 32.
# Fix: paddle_cumsum_block_reverse_next_tile_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def paddle_cumsum_block_reverse_next_tile_no_barrier(lm, X: LM.gmem, Y: LM.gmem, R: LM.i32):
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
                lm.copy(sh[w + 4 * t], v)                                        # expect-error: sync.race
            else:
                lm.fill(sh[w + 4 * t], 0)                                        # expect-error: sync.race
            lm.sync(bar)
            if 32 * w < nv:
                lm.copy(v, sh[3 - w + 4 * t])                                    # expect-error: sync.race
                lm.copy(Y, v, coords=(row, R - 128 * t - 32 * w - 32))
            # BUG: no __syncthreads() before the next tile's stores
