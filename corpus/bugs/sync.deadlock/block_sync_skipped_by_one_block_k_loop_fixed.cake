# FIXED form of block_sync_skipped_by_one_block_k_loop.cake: block 5 skips
# the block barrier with all four warps (`if b != 5`), so no warp waits for
# one that never comes. The covering values run it at block 5 with work
# (n = 768) as well: no false alarm from the guards' outcome combinations.
# expect: pass
@cake.schedule(target="sm_80")
def block_sync_skipped_by_whole_block_k_loop(lm, Keys: LM.gmem, Out: LM.gmem, n: LM.i32, K: LM.i32):
    lm.assume(n >= 0)
    lm.assume(n % 32 == 0)
    lm.assume(K >= 1)
    pool = lm.smem(512)
    buf  = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)
    r    = lm.regs(shape=(1, 32), dtype=lm.f32)
    blk  = lm.role(warps=[0, 1, 2, 3], group=1)
    bs   = lm.named_barrier(roles=[blk])
    with blk:
        w = lm.instance()
        b = lm.block_idx(0)
        for k in lm.range(0, K):
            if 128 * b < n:
                idx = 128 * b + 32 * w
                if idx < n:
                    lm.copy(r, Keys, coords=(k, idx))
                    lm.copy(buf[w], r)
                if b != 5:
                    lm.sync(bs)
                if idx < n:
                    lm.copy(r, buf[w])
                    lm.copy(Out, r, coords=(k, idx))
