# BUG (sync.race), found by cake: the text NVIDIA/cudf PR #4369 left (and
# the current cpp/src/io/comp/gpuinflate.cu, inflate_kernel) evaluates the
# loop condition `while (!state->err)` in every thread right after a
# __syncthreads(), and thread 0 then writes state->err (init_stored /
# init_fixed / init_dynamic, or 2 past the end of the input) with no barrier
# between: a slow thread can read the next deflate block's err (and leave
# the loop, taking the post-loop __syncthreads() while the others take the
# body's).  No upstream report of it is in the stored corpora.  Modelled as
# cudf_gpuinflate_blast_test_after_loop_barrier_fixed.cake plus the loop
# condition's read of err.  A fix would have every thread read err before
# a barrier that precedes thread 0's write (for example keep a copy of
# the error in a register after the body's first __syncthreads()).
# expect: sync.race
@cake.schedule(target="sm_80")
def cudf_inflate_kernel_err_head(lm, In: LM.gmem, Res: LM.gmem, n_blocks: LM.i32):
    lm.assume(n_blocks >= 1)
    pool = lm.smem(1024)
    hdr  = pool.view(offset=0,  shape=(1, 4),   dtype=lm.i32)   # state->err, blast, btype
    lut  = pool.view(offset=64, shape=(1, 128), dtype=lm.i32)   # state->lut (length/distance)
    h    = lm.regs(shape=(1, 4),   dtype=lm.i32)
    flag = lm.regs(shape=(1, 1),   dtype=lm.i32)
    ent  = lm.regs(shape=(1, 32),  dtype=lm.i32)
    tab  = lm.regs(shape=(1, 128), dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)                # block_size = 128
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        z = lm.block_idx(0)
        if w == 0:                                              # thread 0: header, shared state
            lm.copy(h, In, coords=(z, 0))
            lm.copy(hdr[0], h)
        lm.sync(block)
        for b in lm.range(0, n_blocks):                         # while (!state->err)
            lm.copy(flag, hdr[b][0:1, 0:1])  # while (!state->err): every thread  # expect-error: sync.race
            if w == 0:                                          # thread 0: blast, btype, err
                lm.copy(h, In, coords=(z, 4 * b + 4))
                lm.copy(hdr[b], h)  # expect-error: sync.race
            lm.sync(block)
            lm.copy(h, hdr[b])                                  # !state->err && btype 1 or 2
            lm.copy(ent, In, coords=(z, 512 + 32 * w))          # init_length_lut / _distance_lut
            lm.copy(lut[b][0:1, 32 * w:32 * w + 32], ent)
            lm.sync(block)
            if w < 2:                                           # warp 0 decode_symbols,
                lm.copy(tab, lut[b])                            # warp 1 process_symbols
                lm.copy(Res, tab, coords=(z, 128 * w))
            lm.copy(flag, hdr[b][0:1, 1:2])              # if (state->blast) break;
            if b + 1 < n_blocks:                                # the last block breaks here
                lm.sync(block)                                  # PR #4369: after the blast test
        lm.sync(block)                                          # PR #4369: after the loop
        if w == 0:                                              # thread 0: status, bytes written
            lm.copy(h, hdr[0])
            lm.copy(Res, h, coords=(z, 256))
