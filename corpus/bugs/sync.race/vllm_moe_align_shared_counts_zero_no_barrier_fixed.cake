# FIXED form of vllm_moe_align_shared_counts_zero_no_barrier.cake
# (vllm-project/vllm PR #13140): a __syncthreads() after each warp zeroes
# its row of shared_counts, before any thread counts a token into a row.
# Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_80")
def vllm_moe_align_shared_counts_zero_no_barrier_fixed(lm, TopkIds: LM.gmem, Counts: LM.gmem):
    pool   = lm.smem(256)
    counts = pool.view(offset=0, shape=(1, 8), dtype=lm.i32, stages=4)   # shared_counts[warp][8]
    zero   = lm.regs(shape=(1, 8), dtype=lm.i32)
    ids    = lm.regs(shape=(1, 8), dtype=lm.i32)
    c      = lm.regs(shape=(1, 8), dtype=lm.i32)
    tot    = lm.regs(shape=(1, 8), dtype=lm.i32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()                               # warp_id
        lm.fill(zero, 0)
        lm.copy(counts[w], zero)                        # shared_counts[warp_id][i] = 0
        lm.sync(bar)                                    # the fix
        lm.copy(ids, TopkIds, coords=(0, 8 * w))        # this warp's tokens' experts
        lm.copy(c, counts[(w + 1) % 4])                 # atomicAdd(&shared_counts[...], 1)
        lm.binary(c, c, ids, op="add")
        lm.copy(counts[(w + 1) % 4], c)
        lm.sync(bar)
        if w == 0:                                      # the cumsum over the experts
            lm.copy(tot, counts[0])
            for e in lm.range(1, 4):
                lm.copy(c, counts[e])
                lm.binary(tot, tot, c, op="add")
            lm.copy(Counts, tot, coords=(0, 0))
