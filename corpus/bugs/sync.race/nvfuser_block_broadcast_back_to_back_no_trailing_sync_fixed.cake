# FIXED form of nvfuser_block_broadcast_back_to_back_no_trailing_sync.cake
# (csarofeen/pytorch PR #712): blockBroadcast ends with __syncthreads()
# (later block_sync::sync(), as NVIDIA/Fuser's runtime/broadcast.cu has it),
# so the next broadcast's source stores only after every thread has read
# this one's value.  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_80")
def nvfuser_block_broadcast_back_to_back_no_trailing_sync_fixed(lm, T1: LM.gmem, T2: LM.gmem,
                                                                T0: LM.gmem, T5: LM.gmem):
    pool = lm.smem(64)
    sm   = pool.view(offset=0, shape=(1, 1), dtype=lm.f32, stages=1)
    v1   = lm.regs(shape=(1, 1), dtype=lm.f32)
    v2   = lm.regs(shape=(1, 1), dtype=lm.f32)
    o1   = lm.regs(shape=(1, 1), dtype=lm.f32)
    o2   = lm.regs(shape=(1, 1), dtype=lm.f32)
    x    = lm.regs(shape=(1, 32), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()
        b = lm.block_idx(0)
        if w == 0:
            lm.copy(v1, T1, coords=(b, 0))          # thread 0's reduction results
            lm.copy(v2, T2, coords=(b, 0))
        # broadcast::blockBroadcast<true, false, false>(T3, T1)
        if w == 0:
            lm.copy(sm[0], v1)
        lm.sync(bar)
        lm.copy(o1, sm[0])
        lm.sync(bar)                                # the fix: __syncthreads() at the end
        # broadcast::blockBroadcast<true, false, false>(T4, T2)
        if w == 0:
            lm.copy(sm[0], v2)
        lm.sync(bar)
        lm.copy(o2, sm[0])
        lm.sync(bar)
        # T5 = T0 * T3 + T4
        lm.copy(x, T0, coords=(b, 32 * w))
        lm.binary(x, x, o1, op="mul")
        lm.binary(x, x, o2, op="add")
        lm.copy(T5, x, coords=(b, 32 * w))
