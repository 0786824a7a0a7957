# BUG (sync.race): ggml-org/llama.cpp PR #26385 ("CUDA: Fix data-races when
# reusing SMEM in block_reduce", 2026-07-31; compute-sanitizer racecheck on
# test-backend-ops -o SOFT_MAX).  PR #18785 had factored the block
# reductions of ggml-cuda into one helper,
#     val = warp_reduce(val);
#     if (block_size > WARP_SIZE) {
#         if (lane_id == 0) shared_vals[warp_id] = val;
#         __syncthreads();
#         val = lane_id < block_size / WARP_SIZE ? shared_vals[lane_id] : neutral;
#         val = warp_reduce(val);
#     }
#     return val;
# with no barrier after the read, and soft_max_f32 called it twice on the
# same buffer:
#     max_val = block_reduce<block_reduce_method::MAX>(max_val, buf_iw);
#     ... tmp += expf(vals[col] - max_val) ...
#     tmp = block_reduce<block_reduce_method::SUM>(tmp, buf_iw);
# A warp that finished the max writes its partial sum into buf_iw[warp_id]
# while a slower warp still reads buf_iw[] for the max.  The fix double-
# buffers the helper's storage or adds __syncthreads() between the calls.
# Modelled: one row per block, 128 threads = four one-warp instances, the
# row's 4*32 columns (one per thread); buf_iw as one shared 4-float tile,
# warp w's word the slice [0:1, w:w+1]; the warp reductions (shuffles) as
# lm.reduce on registers; __syncthreads() a named barrier over the block.
# Left out: the mask / ALiBi slope, the vals[] staging of wide rows.
# Fix: llamacpp_softmax_block_reduce_max_then_sum_same_smem_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def llamacpp_softmax_block_reduce_max_then_sum_same_smem(lm, X: LM.gmem, Dst: LM.gmem):
    pool  = lm.smem(256)
    buf   = pool.view(offset=0, shape=(1, 4), dtype=lm.f32)        # buf_iw[WARP_SIZE] (4 used)
    x     = lm.regs(shape=(1, 32), dtype=lm.f32)
    part  = lm.regs(shape=(1, 1), dtype=lm.f32)
    allw  = lm.regs(shape=(1, 4), dtype=lm.f32)
    mx    = lm.regs(shape=(1, 1), dtype=lm.f32)
    sm    = lm.regs(shape=(1, 1), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w   = lm.instance()
        row = lm.block_idx(0)
        lm.copy(x, X, coords=(row, 32 * w))
        # block_reduce<MAX>
        lm.reduce(part, x, op="max", axis=1)            # warp_reduce
        lm.copy(buf[0][0:1, w:w + 1], part)             # shared_vals[warp_id] = val
        lm.sync(bar)
        lm.copy(allw, buf[0])                           # val = shared_vals[lane_id]    # expect-error: sync.race
        lm.reduce(mx, allw, op="max", axis=1)
        # tmp += expf(x - max)
        lm.binary(x, x, mx, op="sub")
        lm.unary(x, x, op="exp2")
        # block_reduce<SUM> on the same buffer, no barrier before it
        lm.reduce(part, x, op="sum", axis=1)
        lm.copy(buf[0][0:1, w:w + 1], part)                                             # expect-error: sync.race
        lm.sync(bar)
        lm.copy(allw, buf[0])
        lm.reduce(sm, allw, op="sum", axis=1)
        lm.unary(sm, sm, op="recip")
        lm.binary(x, x, sm, op="mul")
        lm.copy(Dst, x, coords=(row, 32 * w))
