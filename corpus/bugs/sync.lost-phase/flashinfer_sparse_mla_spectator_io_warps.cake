# BUG (sync.lost-phase): FlashInfer's SM120 sparse-MLA swapAB prefill
# kernel, fixed by flashinfer-ai/flashinfer PR #5048 (issue #5001).  It
# runs 4 IO warps, but only BI = 64 IO threads gather KV; the other IO
# threads do no work and no barrier counts them, yet they still spin on
# mbarrier_wait_parity each tile.  The pipeline's phases advance without
# them, so a spectator warp starved for a full phase window waits on a
# parity the barrier has already passed twice: near kernel drain it spins
# forever and the CTA never retires (cuda-gdb: the whole grid drained except
# one spectator IO warp at the wait; ~2% of launches of the worst shape).
# Modelled: the gathering IO threads as a 2-warp role, the spectators as a
# 2-warp role that waits on the same `empty` slots and does nothing else;
# a 2-slot KV ring (full/empty) with 8 math warps.  Written on sm_90a (the
# checker has no sm_120 target; nothing here is specific to it).
# Fix: flashinfer_sparse_mla_spectator_io_warps_fixed.cake (the spectators
# return before the pipeline loop).
# expect: sync.lost-phase
@cake.schedule(target="sm_90a")
def sparse_mla_spectator_io_warps(lm, KV: LM.gmem, O: LM.gmem, tiles: LM.i32):
    lm.assume(tiles > 0)
    pool   = lm.smem(32768)
    kv_buf = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=2)
    kv_io  = lm.regs(shape=(64, 128), dtype=lm.bf16)
    kv_m   = lm.regs(shape=(64, 128), dtype=lm.f32)

    math      = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7])
    io        = lm.role(warps=[8, 9])
    spectator = lm.role(warps=[10, 11])
    kv    = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[io], cons=[math], init_count=1, pipeline=kv)
    empty = lm.barrier(prod=[math], cons=[io, spectator], init_count=1, pipeline=kv)

    with io:
        for t in lm.range(0, tiles):
            lm.wait(empty, iter=t - 2)
            lm.copy(kv_io, KV, coords=(t * 64, 0))
            lm.copy(kv_buf[t], kv_io)
            lm.arrive(full, iter=t)

    with spectator:
        for t in lm.range(0, tiles):
            lm.wait(empty, iter=t - 2)  # expect-error: sync.lost-phase

    with math:
        for t in lm.range(0, tiles):
            lm.wait(full, iter=t)
            lm.copy(kv_m, kv_buf[t])
            lm.arrive(empty, iter=t)
            lm.unary(kv_m, kv_m, op="exp2")
            lm.copy(O, kv_m, coords=(t * 64, 0))
