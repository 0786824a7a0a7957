# FIXED: cudf_parquet_init_page_fragments_scratch_red_loop_no_barrier.cake
# with the barrier NVIDIA/cudf issue #5595 adds ("there should be a
# __syncthreads() before the next iteration of the loop"); the stored later
# text of cpp/src/io/parquet/page_enc.cu ends the loop body of
# gpuInitPageFragments with it:
#         dict_index[start_value_idx + nz_pos] = ...;
#       }
#     }
#     __syncthreads();
#   }
# every warp has read its predecessor's prefix before any warp stores the
# next chunk's count into scratch_red.
# expect: pass
@cake.schedule(target="sm_80")
def gpu_init_page_fragments_fixed(lm, Valid: LM.gmem, DictIndex: LM.gmem, chunks: LM.i32):
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
            lm.copy(scratch[c][0:1, w:w + 1], cnt)               # scratch_red[(t >> 5) + 0]
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
                lm.copy(prev, scratch[c][0:1, w - 1:w])          # nz_pos += scratch_red[(t - 32) >> 5]
                lm.binary(prev, prev, base, op="add")
                lm.copy(DictIndex, prev, coords=(blk, 4 * c + w))   # dict_index[start_row + nz_pos] = ...
            lm.sync(block)                                       # __syncthreads()
