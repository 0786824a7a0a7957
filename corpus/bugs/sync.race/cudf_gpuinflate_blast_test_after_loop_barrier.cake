# BUG (sync.race): NVIDIA/cudf PR #4369 ("[REVIEW] Fix race condition in
# gpuinflate", 2020-03-07, merged; tentative fix for issue #3883): "state->
# blast is used at the end of the loop but could be modified at the start of
# the next iteration".  cpp/src/io/comp/gpuinflate.cu, inflate_kernel (128
# threads, one compressed stream per block; `state` is the block's shared
# inflate_state_s):
#     while (!state->err) {
#       if (!t) { state->blast = getbits(1); state->btype = getbits(2);
#                 state->err = init_stored / init_fixed / init_dynamic; }
#       __syncthreads();
#       if (!state->err && (btype == 1 || btype == 2)) {
#         init_length_lut(state, t); init_distance_lut(state, t);
#         __syncthreads();
#         warp 0: decode_symbols (thread 0); warp 1: process_symbols
#       } else if (btype == 0) copy_stored(state, t);
#       __syncthreads();                    // (BUG) the PR moves it after
#       if (state->blast) break;            // the blast test ...
#     }                                     // ... and adds one after the loop
# A warp slow to test state->blast after the barrier reads it after thread
# 0 has already overwritten it with the next deflate block's header (a
# warp can leave the loop one block early or late: the block's barriers
# then pair up wrongly).  Modelled: the four warps as one-warp instances of
# one role, __syncthreads() a named barrier over them; `hdr` the
# err/blast/btype words of the shared state, named by the deflate block
# (`hdr[b]`, a one-stage view: the same bytes every block); `lut` the
# length/distance tables every thread initializes and warps 0 and 1 read;
# the number of deflate blocks a parameter, the last one breaking.  Left
# out: the stored-block path (copy_stored), the prefetcher warp, the data
# dependence of the loop exit, and the loop condition's read of
# state->err (cudf_gpuinflate_err_loop_condition_vs_header_write.cake: a
# race the PR's text keeps).
# Fix: cudf_gpuinflate_blast_test_after_loop_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def cudf_inflate_kernel(lm, In: LM.gmem, Res: LM.gmem, n_blocks: LM.i32):
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
            lm.sync(block)                                      # (BUG) before the blast test
            lm.copy(flag, hdr[b][0:1, 1:2])  # if (state->blast) break;  # expect-error: sync.race
        if w == 0:                                              # thread 0: status, bytes written
            lm.copy(h, hdr[0])
            lm.copy(Res, h, coords=(z, 256))
