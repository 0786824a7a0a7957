# FIXED form of cucollections_find_block_sync_in_bounds_branch.cake
# (NVIDIA/cuCollections PR #522): block.sync() moves out of `if (idx < n)`;
# the store to shared memory and the write-back stay under the bounds
# check, so every thread of the block reaches the barrier in every
# iteration of the grid-stride loop.
# expect: pass
@cake.schedule(target="sm_80")
def cucollections_find_block_sync_outside_branch(lm, Keys: LM.gmem, Out: LM.gmem, n: LM.i32):
    lm.assume(n >= 0)
    lm.assume(n % 32 == 0)
    pool   = lm.smem(512)
    outbuf = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)   # output_buffer
    found  = lm.regs(shape=(1, 32), dtype=lm.f32)
    res    = lm.regs(shape=(1, 32), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bsync = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()
        b = lm.block_idx(0)
        if 128 * b < n:                                     # while (idx - thread_idx < n): once
            idx = 128 * b + 32 * w
            if idx < n:
                lm.copy(found, Keys, coords=(0, idx))       # ref.find(key)
                lm.copy(outbuf[w], found)                   # output_buffer[thread_idx] = ...
            lm.sync(bsync)                                  # the fix: every thread reaches it
            if idx < n:
                lm.copy(res, outbuf[w])
                lm.copy(Out, res, coords=(0, idx))          # *(output_begin + idx) = ...
