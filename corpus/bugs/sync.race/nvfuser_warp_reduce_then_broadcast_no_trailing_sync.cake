# BUG (sync.race): NVIDIA/Fuser PR #489 ("add sync to warp reduction
# runtime avoid smem data race", liqiangxl, opened 2023-06-12, merged; fixes issue
# #271).  runtime/warp.cu warpReduceTIDX<SINGLE_WARP=false> reduces each
# warp with shuffles, then
#     block_sync::sync();  if (lane == 0) shared_mem[smem_offset + warp_idx] = v;
#     block_sync::sync();  if (warp_idx == 0) v = lane < num_of_warps ?
#                              shared_mem[smem_offset + lane] : init;  ...
#     if (is_warp_head) reduction_op(out, v);
# with smem_offset = threadIdx.y * num_of_warps, and returned with no
# barrier after warp 0's reads.  The generated kernel of the issue (two
# reductions per block, blockDim.y = 2) runs two warpReduceTIDX and then
# two broadcast::blockBroadcast<X_THREAD=true> on the same shared_mem; the
# broadcast's source thread (threadIdx.x == 0) of row y writes
# shared_mem[y] with no barrier first, so row 1's source overwrites
# shared_mem[1] while row 0's warp 0 still reads it as the second warp's
# partial: a wrong sum (validation errors when the race hits).  The fix
# adds block_sync::sync() at the end of warpReduceTIDX.
# Modelled: blockDim (64, 2), four one-warp instances (warp w is row
# gy = w // 2, warp_idx wx = w % 2), so shared_mem[smem_offset + warp_idx]
# is slot w of `sm` and the broadcast's shared_mem[y] is slot gy; each
# block_sync::sync() is a named barrier over all four.  The shuffles are
# lm.reduce in registers; the per-thread reduction inputs T31 / T37 are
# loads.
# Fix: nvfuser_warp_reduce_then_broadcast_no_trailing_sync_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def nvfuser_warp_reduce_then_broadcast_no_trailing_sync(lm, T31: LM.gmem, T37: LM.gmem,
                                                        T4: LM.gmem, T5: LM.gmem):
    pool = lm.smem(64)
    sm   = pool.view(offset=0, shape=(1, 1), dtype=lm.f32, stages=4)
    x8   = lm.regs(shape=(1, 32), dtype=lm.f32)
    x11  = lm.regs(shape=(1, 32), dtype=lm.f32)
    r    = lm.regs(shape=(1, 1), dtype=lm.f32)
    p    = lm.regs(shape=(1, 1), dtype=lm.f32)
    t8   = lm.regs(shape=(1, 1), dtype=lm.f32)
    t11  = lm.regs(shape=(1, 1), dtype=lm.f32)
    o8   = lm.regs(shape=(1, 1), dtype=lm.f32)
    o11  = lm.regs(shape=(1, 1), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w  = lm.instance()
        gy = w // 2
        wx = w % 2
        b  = lm.block_idx(0)
        lm.copy(x8, T31, coords=(2 * b + gy, 32 * wx))
        lm.copy(x11, T37, coords=(2 * b + gy, 32 * wx))
        lm.fill(t8, 0.0)
        lm.fill(t11, 0.0)
        # warp::warpReduceTIDX(T8[0], T31[0], ...)
        lm.reduce(r, x8, op="sum", axis=1)
        lm.sync(bar)
        lm.copy(sm[w], r)                           # shared_mem[smem_offset + warp_idx]
        lm.sync(bar)
        if wx == 0:
            lm.copy(r, sm[2 * gy])
            lm.copy(p, sm[2 * gy + 1])
            lm.binary(r, r, p, op="add")
            lm.binary(t8, t8, r, op="add")          # reduction_op(out, reduce_val)
        # (BUG) no block_sync::sync() at the end
        # warp::warpReduceTIDX(T11[0], T37[0], ...)
        lm.reduce(r, x11, op="sum", axis=1)
        lm.sync(bar)
        lm.copy(sm[w], r)
        lm.sync(bar)
        if wx == 0:
            lm.copy(r, sm[2 * gy])
            lm.copy(p, sm[2 * gy + 1])                                              # expect-error: sync.race
            lm.binary(r, r, p, op="add")
            lm.binary(t11, t11, r, op="add")
        # (BUG) no block_sync::sync() at the end
        # broadcast::blockBroadcast<true, false, false>(T9, T8, ...)
        if wx == 0:
            lm.copy(sm[gy], t8)                                                     # expect-error: sync.race
        lm.sync(bar)
        lm.copy(o8, sm[gy])
        lm.sync(bar)
        # broadcast::blockBroadcast<true, false, false>(T12, T11, ...)
        if wx == 0:
            lm.copy(sm[gy], t11)
        lm.sync(bar)
        lm.copy(o11, sm[gy])
        lm.sync(bar)
        lm.copy(T4, o8, coords=(2 * b + gy, w))
        lm.copy(T5, o11, coords=(2 * b + gy, w))
