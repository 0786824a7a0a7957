# BUG (sync.race): NVIDIA/cudf PR #14598 ("Fix race detected in Parquet
# writer", issue #14597: ParquetWriterTest.ManyFragments failing at random
# after PR #14000).  cpp/src/io/parquet/page_enc.cu, calculate_frag_size
# (gpuInitRowGroupFragments / gpuCalculatePageFragments, 512 threads):
#     using block_reduce = cub::BlockReduce<uint32_t, block_size>;
#     __shared__ typename block_reduce::TempStorage reduce_storage;
#     ... each thread sums len and num_valid over its values ...
#     __syncthreads();
#     auto const total_len   = block_reduce(reduce_storage).Sum(len);
#     auto const total_valid = block_reduce(reduce_storage).Sum(num_valid);
#     if (t == 0) { s->frag.fragment_data_size = total_len;
#                   s->frag.num_valid          = total_valid; }
#     __syncthreads();
# cub::BlockReduceWarpReductions: lane 0 of each warp stores its warp's
# aggregate in the temp storage, __syncthreads(), thread 0 reads all of
# them; nothing after.  A warp that reaches the second Sum stores its
# num_valid aggregate over its len aggregate while thread 0 still sums the
# lengths (racecheck: "Race reported between Write access at
# block_reduce_warp_reductions.cuh:146 ... and Read access at ...:117",
# 240 hazards).  "Adding a sync between invocations of a block reduce
# resolves the error" (the PR author had read Sum's internal syncthreads
# as enough: "dug into the Sum code and saw that there were syncthreads
# inside").
# Fix: cudf_parquet_calculate_frag_size_block_reduce_twice_no_sync_fixed.cake.
# Written in CAKE IR: the 16 warps cut to four one-warp instances,
# __syncthreads() a named barrier over them; the temp storage's warp
# aggregates as one 4-word slot named by the reduction (agg[0] for the
# lengths, agg[1] for the counts); the warp reductions and thread 0's sum
# as lm.reduce on registers; the values' lengths and validity as one global
# load per warp; s->frag as a two-word slot.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def calculate_frag_size(lm, Lens: LM.gmem, Valid: LM.gmem, Frags: LM.gmem):
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
            lm.copy(allw, agg[0])                               # thread 0: ApplyWarpAggregates   # expect-error: sync.race
            lm.reduce(tlen, allw, op="sum", axis=1)              # total_len
        # BUG: no __syncthreads() between the two reductions
        # block_reduce(reduce_storage).Sum(num_valid)
        lm.reduce(wsum, vals, op="sum", axis=1)
        lm.copy(agg[1][0:1, w:w + 1], wsum)                                                          # expect-error: sync.race
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
