# BUG (sync.race): NVIDIA/cudf issue #5595 ("Illegal memory access when
# using ParquetWriter.write_table for several large amount of data", 2020;
# the same kernel's racecheck report is NVIDIA-Merlin/NVTabular issue
# #102): cpp/src/io/parquet/page_enc.cu, gpuInitPageFragments (512
# threads, 16 warps) walks a fragment 512 rows at a time:
#     for (uint32_t i = 0; i < nrows; i += 512) {
#       ... is_valid, valid_warp = BALLOT(is_valid), len, hash ...
#       nz_pos = s->frag.non_nulls + __popc(valid_warp & lanes below);
#       len = WarpReduceSum32(len);
#       if (!(t & 0x1f)) { s->scratch_red[(t >> 5) + 0]  = __popc(valid_warp);
#                          s->scratch_red[(t >> 5) + 16] = len; }
#       __syncthreads();
#       if (t < 32) { warp_pos = WarpReducePos16(scratch_red[t]); ...
#                     if (t < 16) s->scratch_red[t] = warp_pos;
#                     if (!t) { s->frag.non_nulls += non_nulls; ... } }
#       __syncthreads();
#       if (is_valid && dtype != BOOLEAN) {
#         if (t >= 32) { nz_pos += s->scratch_red[(t - 32) >> 5]; }
#         ... dict_index[start_row + nz_pos] = ...;
#       }
#     }
# "the value in scratch_red used in nz_pos += s->scratch_red[(t - 32) >> 5]
# is written by the previous warp which may reach [the lane-0 store] in the
# next iteration of the loop before this one does": warp w reads warp
# w-1's prefix after warp w-1 has stored its next chunk's count over it,
# and dict_index is written out of bounds.  The fix (the issue's, and the
# stored later text of page_enc.cu): a __syncthreads() at the end of the
# loop body.
# Fix: cudf_parquet_init_page_fragments_scratch_red_loop_no_barrier_fixed.cake.
# Written in CAKE IR: the 16 warps cut to four one-warp instances,
# __syncthreads() a named barrier over them; scratch_red[32] as one slot of
# 2 x 4 words per chunk (warp w's count at [0:1, w:w+1], its length at
# [0:1, 4+w:5+w]); s->frag (non_nulls, fragment_data_size) as a one-word
# slot named by the chunk whose count it holds (frag[c + 1] written by
# chunk c); the ballot, popc and warp scans as lm.reduce on registers;
# dict_index as a global store.  Left out: the shared hash-map counts
# (atomicAdd, no order between threads is meant) and the code after the
# loop (it starts with a __syncthreads()).
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def gpu_init_page_fragments(lm, Valid: LM.gmem, DictIndex: LM.gmem, chunks: LM.i32):
    lm.assume(chunks >= 1)
    pool    = lm.smem(64)
    scratch = pool.view(offset=0,  shape=(1, 8), dtype=lm.i32)   # s->scratch_red
    frag    = pool.view(offset=32, shape=(1, 1), dtype=lm.i32)   # s->frag.non_nulls
    bits    = lm.regs(shape=(1, 32), dtype=lm.i32)               # is_valid of 32 lanes
    cnt     = lm.regs(shape=(1, 1), dtype=lm.i32)                # __popc(valid_warp)
    lens    = lm.regs(shape=(1, 1), dtype=lm.i32)                # WarpReduceSum32(len)
    base    = lm.regs(shape=(1, 1), dtype=lm.i32)                # s->frag.non_nulls
    allw    = lm.regs(shape=(1, 8), dtype=lm.i32)
    total   = lm.regs(shape=(1, 1), dtype=lm.i32)
    prev    = lm.regs(shape=(1, 1), dtype=lm.i32)                # scratch_red[(t - 32) >> 5]

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w   = lm.instance()
        blk = lm.block_idx(1)                                    # fragment (blockIdx.y)
        if w == 0:
            lm.fill(base, 0)
            lm.copy(frag[0], base)                               # s->frag.non_nulls = 0
        lm.sync(block)
        for c in lm.range(0, chunks):
            lm.copy(bits, Valid, coords=(blk, 128 * c + 32 * w))
            lm.copy(base, frag[c])                               # nz_pos = s->frag.non_nulls + ...
            lm.reduce(cnt, bits, op="sum", axis=1)               # __popc(BALLOT(is_valid))
            lm.reduce(lens, bits, op="sum", axis=1)              # WarpReduceSum32(len)
            lm.copy(scratch[c][0:1, w:w + 1], cnt)               # scratch_red[(t >> 5) + 0]   # expect-error: sync.race
            lm.copy(scratch[c][0:1, 4 + w:5 + w], lens)          # scratch_red[(t >> 5) + 16]
            lm.sync(block)
            if w == 0:
                lm.copy(allw, scratch[c])                        # WarpReducePos16 / WarpReduceSum16
                lm.reduce(total, allw, op="sum", axis=1)
                lm.copy(scratch[c], allw)                        # scratch_red[t] = warp_pos
                lm.binary(total, total, base, op="add")
                lm.copy(frag[c + 1], total)                      # s->frag.non_nulls += non_nulls
            lm.sync(block)
            if w >= 1:
                lm.copy(prev, scratch[c][0:1, w - 1:w])          # nz_pos += scratch_red[(t - 32) >> 5]  # expect-error: sync.race
                lm.binary(prev, prev, base, op="add")
                lm.copy(DictIndex, prev, coords=(blk, 4 * c + w))   # dict_index[start_row + nz_pos] = ...
            # BUG: no __syncthreads() at the end of the loop body
