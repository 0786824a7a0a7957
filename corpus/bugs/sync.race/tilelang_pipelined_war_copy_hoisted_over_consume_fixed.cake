# FIXED form of tilelang_pipelined_war_copy_hoisted_over_consume.cake
# (tile-ai/tilelang issue #2668, PR #2823, open): the planner keeps the
# loop-carried WAR edge from the consume of S to the copy that overwrites
# it, so the copy is issued after the consume and waited (with the block
# barrier) before the next iteration reads S - the order of the
# num_stages=0 loop.  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_80")
def tilelang_pipelined_war_copy_hoisted_over_consume_fixed(lm, A: LM.gmem, Sinit: LM.gmem,
                                                           Out: LM.gmem, nk: LM.i32):
    lm.assume(nk >= 1)
    pool = lm.smem(1024)
    s    = pool.view(offset=0, shape=(1, 32), dtype=lm.i32)
    v    = lm.regs(shape=(1, 32), dtype=lm.i32)
    acc  = lm.regs(shape=(1, 32), dtype=lm.i32)

    w   = lm.role(warps=[0])
    bar = lm.named_barrier(roles=[w])

    with w:
        lm.fill(acc, 0)
        lm.copy(v, Sinit, coords=(0, 0))
        lm.copy(s[0], v)
        lm.sync(bar)
        for k in lm.range(0, nk):
            lm.copy(v, s[0])                                # consume the old tile
            lm.binary(acc, acc, v, op="add")
            lm.sync(bar)
            s.cp_async(A, coords=(k, 0), stage=0)           # then overwrite it
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.sync(bar)
        lm.copy(Out, acc, coords=(0, 0))
