# A row reset whole every round, then rewritten in part (llama.cpp's
# vector FlashAttention kqmax_shared, with the -inf fill moved into the KV
# loop): warp 0 sets all 32 entries to -inf, a barrier, warp w writes entry
# w, a barrier, every warp reads the whole row back, a barrier.
# Correct: each read sees this round's entries. Warp 0 writes the row twice
# a round (the fill and its own entry) and every other entry once; its
# read-back used to mean the lap of its latest write over the whole row for
# the others' entries too (lap 2 at round 1): a false data.stale-read at
# n = 3 (docs/rules/data.stale-read.md "A read-back over entries others
# rewrite", session 25).
# expect: pass
@cake.schedule(target="sm_80")
def row_reset_entries_read_whole(lm, X: LM.gmem, Out: LM.gmem, n: LM.i32):
    lm.assume(n >= 1)
    pool  = lm.smem(1024)
    row   = pool.view(offset=0, shape=(1, 32), dtype=lm.f16)
    full  = lm.regs(shape=(1, 32), dtype=lm.f16)
    one   = lm.regs(shape=(1, 1), dtype=lm.f16)
    all   = lm.regs(shape=(1, 32), dtype=lm.f16)
    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        for k in lm.range(0, n):
            if w == 0:
                lm.fill(full, -65504.0)
                lm.copy(row[0], full)
            lm.sync(block)
            lm.copy(one, X, coords=(k, w))
            lm.copy(row[0][:, w:w + 1], one)
            lm.sync(block)
            lm.copy(all, row[0])
            lm.copy(Out, all, coords=(k, 32 * w))
            lm.sync(block)
