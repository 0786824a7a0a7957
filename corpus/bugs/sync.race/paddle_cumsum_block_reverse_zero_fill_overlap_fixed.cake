# FIX of paddle_cumsum_block_reverse_zero_fill_overlap.cake: PaddlePaddle/
# Paddle PR #42205 ("Fix the race condition in cumsum operator").  Every
# thread now writes only its own element,
#     sh_mem[offset] = src_offset < valid_item ? idata[src_base + src_offset] : 0;
#     (src_offset = BLOCK_SIZE - offset - 1)
# and after the barrier reads the mirrored one, so no two threads store to
# one element.  Same model as the broken file, for the issue's shapes: a row
# of at most one block (R <= BLOCK_SIZE, one call of BlockReverse; the loop
# of MatrixRowReverse runs once).  Longer rows call BlockReverse again with
# no barrier between the reads and the next call's stores:
# paddle_cumsum_block_reverse_next_tile_no_barrier.cake.
# expect: pass
@cake.schedule(target="sm_80")
def paddle_cumsum_block_reverse_zero_fill_overlap_fixed(lm, X: LM.gmem, Y: LM.gmem, R: LM.i32):
    lm.assume(R >= 32)
    lm.assume(R <= 128)
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
                # sh_mem[offset] = idata[src_base + BLOCK_SIZE - offset - 1]
                lm.copy(v, X, coords=(row, 128 * t + 96 - 32 * w))
                lm.copy(sh[w + 4 * t], v)
            else:
                lm.fill(sh[w + 4 * t], 0)                             # sh_mem[offset] = 0
            lm.sync(bar)
            if 32 * w < nv:
                lm.copy(v, sh[3 - w + 4 * t])                         # sh_mem[BLOCK_SIZE - offset - 1]
                lm.copy(Y, v, coords=(row, R - 128 * t - 32 * w - 32))
