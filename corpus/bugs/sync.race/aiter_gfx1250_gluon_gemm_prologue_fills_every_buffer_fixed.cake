# FIXED form of aiter_gfx1250_gluon_gemm_prologue_fills_every_buffer.cake
# (ROCm/aiter PR #4537, fix 1): the prologue fills NUM_BUFFERS - 1 = 2 of
# the 3 LDS slots, leaving one free, and the async_wait counts shift by one
# (pending=1): the slot an iteration's load overwrites then holds the tile
# read ahead two iterations earlier, and the previous iteration's
# async_wait barrier lies between that read and the load.  The model is the
# broken file's (4 one-wave instances, each loading a 16-row quarter).
# expect: pass
@cake.schedule(target="sm_80")
def aiter_gfx1250_gluon_gemm_prologue_fills_every_buffer_fixed(lm, A: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K >= 64)
    pool = lm.smem(24576)
    a    = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=3)
    aq   = pool.view(offset=0, shape=(16, 64), dtype=lm.bf16, stages=12)
    cur  = lm.regs(shape=(32, 64), dtype=lm.bf16)
    acc  = lm.regs(shape=(32, 64), dtype=lm.f32)

    waves = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[waves])

    kt = lm.cdiv(K, 64)
    m0 = lm.block_idx(0) * 64

    with waves:
        w = lm.instance()
        for i in lm.range(0, 2):                            # prologue: NUM_BUFFERS - 1 loads (the fix)
            if i < kt:
                aq.cp_async(A, coords=(m0 + 16 * w, 64 * i), iter=4 * i + w)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=1)
        lm.sync(block)
        r0 = 32 * (w // 2)                                  # the wave's half of A's rows
        lm.copy(cur, a[0][r0:r0 + 32, :])
        lm.fill(acc, 0.0)
        for k in lm.range(0, kt):
            ld = k + 2                                      # load_idx
            if ld < kt:
                aq.cp_async(A, coords=(m0 + 16 * w, 64 * ld), iter=4 * ld + w)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=1)
            lm.sync(block)
            lm.binary(acc, acc, cur, op="add")              # (the WMMA on tile k)
            if k + 1 < kt:
                lm.copy(cur, a[k + 1][r0:r0 + 32, :])       # tile compute_idx + 1
        lm.cp_async_wait(pending=0)
        lm.copy(C, acc, coords=(m0 + r0, 64 * (w % 2)))
