# FIXED: flashinfer_sparse_mla_spectator_io_warps.cake as
# flashinfer-ai/flashinfer PR #5048 fixes it: the IO threads with
# io_tid >= BI return before the pipeline loop (they have no work after the
# block-wide setup sync), so nobody waits on a phase window it cannot keep
# up with.  The retired warps do nothing the checker could see and are not
# declared.
# expect: pass
@cake.schedule(target="sm_90a")
def sparse_mla_spectators_retired(lm, KV: LM.gmem, O: LM.gmem, tiles: LM.i32):
    lm.assume(tiles > 0)
    pool   = lm.smem(32768)
    kv_buf = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=2)
    kv_io  = lm.regs(shape=(64, 128), dtype=lm.bf16)
    kv_m   = lm.regs(shape=(64, 128), dtype=lm.f32)

    math  = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7])
    io    = lm.role(warps=[8, 9])
    kv    = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[io], cons=[math], init_count=1, pipeline=kv)
    empty = lm.barrier(prod=[math], cons=[io], init_count=1, pipeline=kv)

    with io:
        for t in lm.range(0, tiles):
            lm.wait(empty, iter=t - 2)
            lm.copy(kv_io, KV, coords=(t * 64, 0))
            lm.copy(kv_buf[t], kv_io)
            lm.arrive(full, iter=t)

    with math:
        for t in lm.range(0, tiles):
            lm.wait(full, iter=t)
            lm.copy(kv_m, kv_buf[t])
            lm.arrive(empty, iter=t)
            lm.unary(kv_m, kv_m, op="exp2")
            lm.copy(O, kv_m, coords=(t * 64, 0))
