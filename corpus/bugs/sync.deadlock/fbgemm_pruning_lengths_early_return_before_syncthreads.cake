# BUG (sync.deadlock): pytorch/FBGEMM PR #5831 ("Fix ROCm deadlock in
# get_pruning_lengths kernel", 2026-06-04).  get_pruning_lengths
# (fbgemm_gpu embedding pruning, one block of kMaxThreads per table t_i)
# splits the table's rows into one segment per thread and returns early
# when the thread's segment is empty:
#     int64_t rows = buffer_offsets[t_i + 1] - buffer_offsets[t_i];
#     int64_t segment_length = div_round_up(rows, blockDim.x);
#     int64_t segment_start = threadIdx.x * segment_length;
#     if (segment_start >= rows) return;
#     for (idx = segment_start; idx < segment_end; idx++) {
#       if (address_lookup[idx] < 0) pruned_row_length[threadIdx.x] += 1;
#       else if (address_lookup[idx] == INSERTED_ROW_PLACEHOLDER) inserted_row_length[threadIdx.x] += 1;
#     }
#     __syncthreads();
#     if (threadIdx.x == 0) { sum the kMaxThreads counters; pruning_lengths[t_i] = min(...); }
# "Threads with segment_start >= rows took an early return before the
# block-wide __syncthreads() that follows the counting loop ... those
# exited threads never hit the barrier, deadlocking the block on ROCm/HIP"
# (undefined behaviour on NVIDIA).  A table with fewer rows than
# (blockDim.x - 32) * segment_length leaves whole warps with empty
# segments.  The fix removes the early return (the empty segment's loop
# runs zero times) so every thread reaches the barrier.
# Written in CAKE IR: blockDim.x = 128 (the kernel uses kMaxThreads) =
# four one-warp instances, __syncthreads() a named barrier over them; a
# warp returns when its first thread's segment is empty (lanes returning
# inside a warp that goes on are below the IR's granularity); the per-thread
# counters pruned_row_length[] / inserted_row_length[] (global, zeroed by
# the host) as one 32-wide fragment per warp and array, the segment scan as
# one read of address_lookup per segment step (the compare as lm.binary),
# thread 0's sum and min as lm.reduce / lm.binary.  rows is a parameter.
# The block's table t_i = blockIdx.x is lm.block_idx(0), as in the
# kernel (session 43: helper hunt43 first wrote it as table 0, since the
# fixed form was only *checked*; helper blk43's block-term coordinates,
# docs/z3.md "A block's own slice of a read-and-written global tensor",
# prove it).
# Fix: fbgemm_pruning_lengths_early_return_before_syncthreads_fixed.cake.
# expect: sync.deadlock
@cake.schedule(target="sm_80")
def fbgemm_get_pruning_lengths(lm, AddressLookups: LM.gmem, PrunedRowLengths: LM.gmem,
                               InsertedRowLengths: LM.gmem, PruningLengths: LM.gmem,
                               rows: LM.i32):
    lm.assume(rows >= 0)
    lm.assume(rows <= 4096)
    look = lm.regs(shape=(1, 32), dtype=lm.i32)
    hit  = lm.regs(shape=(1, 32), dtype=lm.i32)
    pr   = lm.regs(shape=(1, 32), dtype=lm.i32)
    ins  = lm.regs(shape=(1, 32), dtype=lm.i32)
    allp = lm.regs(shape=(1, 128), dtype=lm.i32)
    alli = lm.regs(shape=(1, 128), dtype=lm.i32)
    tp   = lm.regs(shape=(1, 1), dtype=lm.i32)
    ti   = lm.regs(shape=(1, 1), dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w   = lm.instance()
        t_i = lm.block_idx(0)                               # blockIdx.x: the table
        seg = lm.cdiv(rows, 128)                            # segment_length
        if 32 * w * seg < rows:                             # BUG: else return
            lm.copy(pr, PrunedRowLengths, coords=(t_i, 32 * w))
            lm.copy(ins, InsertedRowLengths, coords=(t_i, 32 * w))
            for s in lm.range(0, seg):
                lm.copy(look, AddressLookups, coords=(t_i, 32 * w * seg + 32 * s))
                lm.binary(hit, look, 0, op="min")           # address_lookup[idx] < 0
                lm.binary(pr, pr, hit, op="add")            # pruned_row_length[threadIdx.x] += 1
                lm.binary(hit, look, 1, op="max")           # == INSERTED_ROW_PLACEHOLDER (rows; the compare abstracted)
                lm.binary(ins, ins, hit, op="add")
            lm.copy(PrunedRowLengths, pr, coords=(t_i, 32 * w))
            lm.copy(InsertedRowLengths, ins, coords=(t_i, 32 * w))
            lm.sync(block)                                                   # expect-error: sync.deadlock
            if w == 0:                                      # threadIdx.x == 0
                lm.copy(allp, PrunedRowLengths, coords=(t_i, 0))
                lm.copy(alli, InsertedRowLengths, coords=(t_i, 0))
                lm.reduce(tp, allp, op="sum", axis=1)
                lm.reduce(ti, alli, op="sum", axis=1)
                lm.binary(tp, tp, ti, op="min")
                lm.copy(PruningLengths, tp, coords=(0, t_i))
