# BUG (sync.race): PaddlePaddle/Paddle issue #41932 (the cumsum unit test
# failed on P100), fixed by PR #42205 ("Fix the race condition in cumsum
# operator", 2022-04-24; cherry-picked as #42500).  MatrixRowReverse
# (paddle/fluid/operators/cum_op.cu, later paddle/phi/kernels/gpu/
# cum_kernel.cu) reverses each row of a cumsum with reverse=True through
# BlockReverse<T, 1024>, one 1024-thread block per row, called once per
# 1024-element tile of the row:
#     if (offset >= valid_item) sh_mem[offset] = 0;
#     else sh_mem[BLOCK_SIZE - offset - 1] = idata[src_base + offset];
#     __syncthreads();
#     if (offset < valid_item)
#         odata[dst_base - offset] = sh_mem[BLOCK_SIZE - offset - 1];
# A thread past the row's end zero-fills sh_mem[offset] - the very element
# that thread BLOCK_SIZE - offset - 1 stores its input into when the row is
# at most half a block long (valid_item <= BLOCK_SIZE / 2).  The two
# stores race (nothing orders them before the barrier), and the reader then
# gets 0 instead of its element.  The fix (PR #42205) writes sh_mem[offset]
# from idata[src_base + BLOCK_SIZE - offset - 1] (or 0) and reads the
# mirrored element after the barrier, so every element has one writer.
# Modelled: the block scaled to 4 warps (BLOCK_SIZE 128, sh_mem as four
# 32-element chunks; warp w's lanes own chunk w, their mirrored elements
# chunk 3 - w), each warp a one-warp instance, __syncthreads() a named
# barrier over the block; the row length R a multiple of 32 so that every
# lane of a warp takes the same branch; tile t's chunk k is slot k + 4 * t
# (the slots named by tile, as the corpus names repeated uses).
# Fix: paddle_cumsum_block_reverse_zero_fill_overlap_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def paddle_cumsum_block_reverse_zero_fill_overlap(lm, X: LM.gmem, Y: LM.gmem, R: LM.i32):
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
            if 32 * w < nv:
                # sh_mem[BLOCK_SIZE - offset - 1] = idata[src_base + offset]
                lm.copy(v, X, coords=(row, 128 * t + 32 * w))
                lm.copy(sh[3 - w + 4 * t], v)                                    # expect-error: sync.race
            else:
                # sh_mem[offset] = 0
                lm.fill(sh[w + 4 * t], 0)                                        # expect-error: sync.race
            lm.sync(bar)
            if 32 * w < nv:
                lm.copy(v, sh[3 - w + 4 * t])                                    # expect-error: sync.race
                lm.copy(Y, v, coords=(row, R - 128 * t - 32 * w - 32))
