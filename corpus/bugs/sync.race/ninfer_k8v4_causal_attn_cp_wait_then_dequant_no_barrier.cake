# BUG (sync.race): ashalliants/ninfer-3090 PR #43 / PR #49 ("fix(attention):
# barrier between cp_wait and the shared-memory dequant in the quantized
# kernels", merged 2026-09-08).  The quantized causal-prompt attention kernels
# (fp8, nvfp4, k8v4 KV cache; here the k8v4 one, sm_86) prefetch the next KV
# tile's raw codes with cp.async issued cooperatively by every thread, and at
# the end of each key block dequantize the raw K codes into the BF16 tile the
# next QK MMA reads:
#     if (has_next) issue_kv_tile((kb + 1) * Bc, tid, kThreads);   // cp.async
#     ... P.V MMA ...
#     if (has_next) {
#         ninfer::ops::cp_wait<0>();
#         dequant_k_tile();     // for (chunk = tid; chunk < Bc*(D/8); chunk += kThreads)
#     }
#     __syncthreads();
# "cp_wait<0>() retires only the calling thread's cp.async group.
# dequant_k_tile() then walks the whole tile with every thread strided across
# it, so each thread reads bytes another thread issued.  Without a block
# barrier between the wait and the read, that is a plain data race."  The
# prologue does it right (cp_wait, __syncthreads, dequant), and the lambda's
# comment requires it; only the steady-state loop left the barrier out.  The
# fix adds it (ninfer_k8v4_causal_attn_cp_wait_then_dequant_no_barrier_fixed.cake).
# Written in CAKE IR: 4 one-warp instances (the kernel's warps, scaled down
# from its block) and a tile scaled down to 1 KB of raw e4m3 codes, as 4
# rows of 256 bytes: the cooperative issue (16 bytes a thread, strided by
# thread) gives warp w row w, the dequant's 8-byte chunks strided by thread
# give warp w the column band 64 w .. 64 w + 63 of every row.  The
# dequantized BF16 tile is written by the same bands and read by the QK MMA
# (a copy of the whole tile stands for the ldmatrix); the V codes, the
# scales, P and the softmax are left out.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def k8v4_causal_prompt_attention(lm, KC: LM.gmem, key_blocks: LM.i32):
    lm.assume(key_blocks >= 1)
    pool   = lm.smem(32768)
    raw    = pool.view(offset=0,     shape=(4, 256), dtype=lm.e4m3)             # k_fp8: the raw codes
    rawrow = pool.view(offset=0,     shape=(1, 256), dtype=lm.e4m3, stages=4)   # warp w's cp.async row
    kb16   = pool.view(offset=16384, shape=(4, 256), dtype=lm.bf16)             # k_b16
    codes  = lm.regs(shape=(4, 64), dtype=lm.e4m3)
    kv     = lm.regs(shape=(4, 64), dtype=lm.bf16)
    kfrag  = lm.regs(shape=(4, 256), dtype=lm.bf16)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        # prologue: issue tile 0, cp_wait, __syncthreads, dequant, __syncthreads
        rawrow.cp_async(KC, coords=(w, 0), stage=w)
        lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.sync(block)
        lm.copy(codes, raw[0][:, 64 * w:64 * w + 64])
        lm.copy(kv, codes)                                          # kv_cache_fp8_dequant_bf16x8
        lm.copy(kb16[0][:, 64 * w:64 * w + 64], kv)
        lm.sync(block)
        for kb in lm.range(0, key_blocks):
            lm.copy(kfrag, kb16[0])                                 # QK: ldmatrix of k_b16
            lm.sync(block)                                          # the __syncthreads after QK / V dequant
            if kb + 1 < key_blocks:
                rawrow.cp_async(KC, coords=(4 * (kb + 1) + w, 0), stage=w)  # issue_kv_tile  # expect-error: sync.race
                lm.cp_async_commit()
            if kb + 1 < key_blocks:
                lm.cp_async_wait(pending=0)
                # BUG: no __syncthreads() between cp_wait and the dequant
                lm.copy(codes, raw[0][:, 64 * w:64 * w + 64])    # dequant_k_tile: other warps' bytes  # expect-error: sync.race
                lm.copy(kv, codes)
                lm.copy(kb16[0][:, 64 * w:64 * w + 64], kv)
            lm.sync(block)
