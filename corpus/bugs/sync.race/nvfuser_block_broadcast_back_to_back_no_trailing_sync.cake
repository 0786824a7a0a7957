# BUG (sync.race): csarofeen/pytorch PR #712 (nvFuser's history before
# NVIDIA/Fuser; "Fix semantic of block reduce and grid reduce; support block
# reduce in loop", shmsong, opened 2021-03-04, merged), item 3: "adding a
# __syncthreads at the end of block broadcast since codegen may generate
# back-to-back uses of it".  The runtime's broadcast::blockBroadcast<X_THREAD>
# was
#     if (has_valid_data) shared_mem[shared_offset] = inp_val;   // threadIdx.x == 0
#     __syncthreads();
#     out = shared_mem[shared_offset];                           // every thread
# with no barrier after the read.  Two broadcasts back to back on the same
# shared_mem (as the generated kernels do, each after a reduction that
# leaves its result in thread 0): the second call's source thread 0 stores
# the next value into shared_mem[0] while threads of other warps still read
# the first value, and they broadcast the wrong one.
# Modelled: a 128-thread block (blockDim.y = 1, so shared_offset = 0 for
# every thread), four one-warp instances; thread 0's warp 0 is the source;
# __syncthreads() is a named barrier over all four.  The two broadcast
# values (what the reductions left in thread 0) are loads by warp 0.
# Fix: nvfuser_block_broadcast_back_to_back_no_trailing_sync_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def nvfuser_block_broadcast_back_to_back_no_trailing_sync(lm, T1: LM.gmem, T2: LM.gmem,
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
        lm.copy(o1, sm[0])                                                            # expect-error: sync.race
        # (BUG) no __syncthreads() at the end of blockBroadcast
        # broadcast::blockBroadcast<true, false, false>(T4, T2)
        if w == 0:
            lm.copy(sm[0], v2)                                                        # expect-error: sync.race
        lm.sync(bar)
        lm.copy(o2, sm[0])
        # T5 = T0 * T3 + T4
        lm.copy(x, T0, coords=(b, 32 * w))
        lm.binary(x, x, o1, op="mul")
        lm.binary(x, x, o2, op="add")
        lm.copy(T5, x, coords=(b, 32 * w))
