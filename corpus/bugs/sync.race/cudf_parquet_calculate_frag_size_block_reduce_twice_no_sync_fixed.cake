# FIXED: cudf_parquet_calculate_frag_size_block_reduce_twice_no_sync.cake
# as NVIDIA/cudf PR #14598 fixes it (the stored later text of
# cpp/src/io/parquet/page_enc.cu):
#     auto const total_len = block_reduce(reduce_storage).Sum(len);
#     __syncthreads();
#     auto const total_valid = block_reduce(reduce_storage).Sum(num_valid);
# thread 0 has read every warp's length aggregate before any warp stores
# its count aggregate over it.
# expect: pass
@cake.schedule(target="sm_80")
def calculate_frag_size_fixed(lm, Lens: LM.gmem, Valid: LM.gmem, Frags: LM.gmem):
    pool = lm.smem(32)
    agg  = pool.view(offset=0,  shape=(1, 4), dtype=lm.i32)   # reduce_storage (warp aggregates)
    frag = pool.view(offset=16, shape=(1, 2), dtype=lm.i32)   # s->frag.{fragment_data_size, num_valid}
    lens = lm.regs(shape=(1, 32), dtype=lm.i32)
    vals = lm.regs(shape=(1, 32), dtype=lm.i32)
    wsum = lm.regs(shape=(1, 1), dtype=lm.i32)
    allw = lm.regs(shape=(1, 4), dtype=lm.i32)
    tlen = lm.regs(shape=(1, 1), dtype=lm.i32)               # total_len
    tval = lm.regs(shape=(1, 1), dtype=lm.i32)               # total_valid
    size = lm.regs(shape=(1, 2), dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w   = lm.instance()
        blk = lm.block_idx(0)
        lm.copy(lens, Lens, coords=(blk, 32 * w))               # len += dtype_len + str.size_bytes()
        lm.copy(vals, Valid, coords=(blk, 32 * w))              # num_valid++
        lm.sync(block)
        # block_reduce(reduce_storage).Sum(len)
        lm.reduce(wsum, lens, op="sum", axis=1)                 # WarpReduce
        lm.copy(agg[0][0:1, w:w + 1], wsum)                     # lane 0: warp_aggregates[warp_id]
        lm.sync(block)
        if w == 0:
            lm.copy(allw, agg[0])                               # thread 0: ApplyWarpAggregates
            lm.reduce(tlen, allw, op="sum", axis=1)              # total_len
        lm.sync(block)                                          # __syncthreads() (PR #14598)
        # block_reduce(reduce_storage).Sum(num_valid)
        lm.reduce(wsum, vals, op="sum", axis=1)
        lm.copy(agg[1][0:1, w:w + 1], wsum)
        lm.sync(block)
        if w == 0:
            lm.copy(allw, agg[1])
            lm.reduce(tval, allw, op="sum", axis=1)              # total_valid
            lm.copy(frag[0][0:1, 0:1], tlen)                    # s->frag.fragment_data_size = total_len
            lm.copy(frag[0][0:1, 1:2], tval)                    # s->frag.num_valid = total_valid
        lm.sync(block)
        lm.copy(size, frag[0])                                  # s->frag.fragment_data_size > INT32_MAX?
        if w == 0:
            lm.copy(Frags, size, coords=(blk, 0))
