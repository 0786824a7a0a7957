# FIXED: ninfer_k8v4_causal_attn_cp_wait_then_dequant_no_barrier.cake as
# ashalliants/ninfer-3090 PR #43 / #49 fixes it: a __syncthreads() between
# cp_wait<0>() and dequant_k_tile() in the steady-state loop ("exactly as the
# prologue above does"), so every thread's cp.async group has landed before
# any thread reads the tile.  (has_next is block-uniform: the barrier sits in
# the branch.)
# expect: pass
@cake.schedule(target="sm_80")
def k8v4_causal_prompt_attention_synced(lm, KC: LM.gmem, key_blocks: LM.i32):
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
                rawrow.cp_async(KC, coords=(4 * (kb + 1) + w, 0), stage=w)  # issue_kv_tile
                lm.cp_async_commit()
            if kb + 1 < key_blocks:
                lm.cp_async_wait(pending=0)
                lm.sync(block)                                      # the __syncthreads() the fix adds
                lm.copy(codes, raw[0][:, 64 * w:64 * w + 64])    # dequant_k_tile: other warps' bytes
                lm.copy(kv, codes)
                lm.copy(kb16[0][:, 64 * w:64 * w + 64], kv)
            lm.sync(block)
