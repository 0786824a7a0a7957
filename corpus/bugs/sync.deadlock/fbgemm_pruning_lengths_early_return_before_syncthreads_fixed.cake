# FIXED: fbgemm_pruning_lengths_early_return_before_syncthreads.cake as
# pytorch/FBGEMM PR #5831 fixes it: no early return before the barrier; a
# thread whose segment is empty skips the counting (its loop runs zero
# times, its counters stay the host's zeros) and still reaches the
# __syncthreads() before thread 0 sums the counters.
# expect: pass
@cake.schedule(target="sm_80")
def fbgemm_get_pruning_lengths_fixed(lm, AddressLookups: LM.gmem, PrunedRowLengths: LM.gmem,
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
        if 32 * w * seg < rows:                             # a non-empty segment: count it
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
        lm.sync(block)                                      # every warp reaches it
        if w == 0:                                          # threadIdx.x == 0
            lm.copy(allp, PrunedRowLengths, coords=(t_i, 0))
            lm.copy(alli, InsertedRowLengths, coords=(t_i, 0))
            lm.reduce(tp, allp, op="sum", axis=1)
            lm.reduce(ti, alli, op="sum", axis=1)
            lm.binary(tp, tp, ti, op="min")
            lm.copy(PruningLengths, tp, coords=(0, t_i))
