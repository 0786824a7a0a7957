# One block of four warps stages 32 keys per warp through shared memory for
# each of K rounds; in block 5 the last two warps skip the block barrier
# (`if b != 5 or w < 2`), so its first two warps wait for them forever.
# The hang needs two guards' outcomes together: block 5 *and* a problem
# size n that gives block 5 work (n > 640). The covering values took each
# guard's flip alone (block 5 at n <= 96, or n <= 96 at block 0), and the
# K loop's lap-induction proof refuses the schedule (it reads n besides the
# trip count), so it exited 0 ("checked") until the covering values took
# one binding per allowed vector of the guards' outcomes (session 21,
# docs/z3.md "The guards' outcomes together under a symbolic loop").
# expect: sync.deadlock
@cake.schedule(target="sm_80")
def block_sync_skipped_by_one_block_k_loop(lm, Keys: LM.gmem, Out: LM.gmem, n: LM.i32, K: LM.i32):
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
                if b != 5 or w < 2:
                    lm.sync(bs)  # expect-error: sync.deadlock
                if idx < n:
                    lm.copy(r, buf[w])
                    lm.copy(Out, r, coords=(k, idx))
