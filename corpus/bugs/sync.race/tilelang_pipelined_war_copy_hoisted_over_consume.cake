# BUG (sync.race): tile-ai/tilelang issue #2668 ("`T.Pipelined` with
# `num_stages>=2` silently miscomputes a loop that reads a shared buffer
# then overwrites it (WAR)", 2026-07-14; the fix is PR #2823's
# dependency-DAG pipeline planner, which names #2668 among the issues it
# fixes - both still open in the stored text).  The reproducer keeps a
# shared tile S across iterations:
#     S = Sinit                                  # preload at loop entry
#     for k in T.Pipelined(NK, num_stages=2):
#         acc += S                               # consume the old tile
#         T.copy(A[k, :], S)                     # overwrite S with the next
# PipelinePlanning put the global->shared copy (a cp.async producer) in
# stage 0 and the consume in stage 1 without the loop-carried WAR edge, so
# the emitted loop issues the cp.async that overwrites S ahead of the
# consume that must read the previous value, and does not wait for it
# before that read: the consume reads S while the async copy writes it.
# Modelled: one warp (threads=W=32) as one instance; S a 1x32 i32 tile in
# shared memory; the pipelined loop as emitted (cp.async + commit of
# iteration k's copy, then the consume of iteration k, then the wait and
# the barrier before the next iteration); the accumulator in registers,
# written out after the loop.
# Fix: tilelang_pipelined_war_copy_hoisted_over_consume_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def tilelang_pipelined_war_copy_hoisted_over_consume(lm, A: LM.gmem, Sinit: LM.gmem, Out: LM.gmem,
                                                     nk: LM.i32):
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
        lm.copy(s[0], v)                                    # S[i] = Sinit[i]
        lm.sync(bar)
        for k in lm.range(0, nk):
            s.cp_async(A, coords=(k, 0), stage=0)           # T.copy(A[k, :], S), hoisted    # expect-error: sync.race
            lm.cp_async_commit()
            lm.copy(v, s[0])                                # acc[i] += S[i]                 # expect-error: sync.race
            lm.binary(acc, acc, v, op="add")
            lm.cp_async_wait(pending=0)
            lm.sync(bar)
        lm.copy(Out, acc, coords=(0, 0))
