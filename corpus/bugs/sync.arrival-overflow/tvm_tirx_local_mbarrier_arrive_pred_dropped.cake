# BUG (sync.arrival-overflow): apache/tvm PR #20250 ("[TIRx][CUDA]
# Preserve local mbarrier predicate and count", 2026-09-01).  A TIRx KDA
# kernel hands a shared tile from a producer warp to its consumers through
# a count-1 local mbarrier, the producer electing one lane on purpose:
#     pred = K.cuda.elect_sync()
#     bar.arrive(0, pred=pred)
# but the local branch of MBarrier.arrive dropped `pred` (and an explicit
# `count`) and emitted an unconditional mbarrier.arrive.shared.b64: all 32
# lanes of the producer warp arrive on a barrier that expects 1 (Synccheck
# and NumSim saw 32 arrivals).  The first lane completes the phase, the
# other 31 complete the next phases of the same slot before the producer
# has written them, so a consumer's later wait passes on a tile that is not
# there yet.  The fix emits the predicated arrive with its count.
# Modelled: the handoff as a 2-slot ring between one producer warp (which
# stages the tile from global memory with st.shared) and a consumer
# warpgroup (which reads it back and releases the slot on an `empty`
# barrier), n tiles; the 32 unpredicated arrivals as
# `lm.arrive(full, iter=i, count=32)` against `init_count=1`.  Left out:
# the KDA arithmetic (the consumer's use of the tile is a copy out); the PR
# does not show the kernel, so the ring depth and roles are this model's.
# Fix: tvm_tirx_local_mbarrier_arrive_pred_dropped_fixed.cake.
# expect: sync.arrival-overflow
# may-also: sync.race data.stale-read sync.stale-phase sync.lost-phase
@cake.schedule(target="sm_100a")
def tvm_tirx_local_mbarrier_arrive_pred_dropped(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
    lm.assume(n >= 1)
    pool = lm.smem(16384)
    buf  = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    tin  = lm.regs(shape=(64, 64), dtype=lm.bf16)
    tout = lm.regs(shape=(64, 64), dtype=lm.bf16)

    prod = lm.role(warps=[0])
    cons = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=2, prod=[prod], cons=[cons], init_count=1)
    empty = lm.barrier(count=2, prod=[cons], cons=[prod], init_count=1)

    with prod:
        for i in lm.range(0, n):
            lm.wait(empty, iter=i - 2)
            lm.copy(tin, X, coords=(64 * i, 0))
            lm.copy(buf[i], tin)
            lm.arrive(full, iter=i, count=32)     # expect-error: sync.arrival-overflow
    with cons:
        for i in lm.range(0, n):
            lm.wait(full, iter=i)
            lm.copy(tout, buf[i])
            lm.arrive(empty, iter=i)
            lm.copy(Y, tout, coords=(64 * i, 0))
