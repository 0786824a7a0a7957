# FIXED: bnb_estimate_quantiles_qidx_init_no_barrier.cake as
# bitsandbytes-foundation/bitsandbytes PR #1061 fixes it: a __syncthreads()
# between the loop that resets smem_qidx to -1 and the threads tid < 256
# writing their quantile indices, so every reset lands before any index.
# expect: pass
@cake.schedule(target="sm_80")
def bnb_estimate_quantiles_qidx_init_synced(lm, A: LM.gmem, Code: LM.gmem, n_iters: LM.i32):
    lm.assume(n_iters >= 1)
    pool = lm.smem(2048)
    qidx = pool.view(offset=0, shape=(1, 32), dtype=lm.i32, stages=16)
    keys = pool.view(offset=0, shape=(1, 128), dtype=lm.f32, stages=4)    # BlockRadixSort temp storage
    vals = lm.regs(shape=(1, 128), dtype=lm.f32)
    part = lm.regs(shape=(1, 32), dtype=lm.f32)
    neg  = lm.regs(shape=(1, 32), dtype=lm.i32)
    qv   = lm.regs(shape=(1, 32), dtype=lm.i32)
    rq   = lm.regs(shape=(1, 32), dtype=lm.i32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()
        for it in lm.range(0, n_iters):
            row = lm.block_idx(0) + it * lm.grid_dim(0)
            lm.sync(bar)
            lm.copy(vals, A, coords=(row, 128 * w))            # LoadFloat
            lm.sync(bar)
            lm.copy(keys[w], vals)                             # SortBlockedToStriped: exchange
            lm.sync(bar)
            for s in lm.range(0, 4):
                lm.copy(part, keys[s][:, 32 * w:32 * w + 32])
            lm.sync(bar)
            lm.fill(neg, -1)
            for s in lm.range(w, 16, 4):
                lm.copy(qidx[s], neg)                          # smem_qidx[j] = -1
            lm.sync(bar)                                       # the fix
            if w < 2:
                lm.fill(qv, 1)
                for s in lm.range(8 * w, 8 * w + 8):
                    lm.copy(qidx[s], qv)                       # smem_qidx[local_idx] = tid
            lm.sync(bar)
            for s in lm.range(w, 16, 4):
                lm.copy(rq, qidx[s])
                lm.copy(Code, rq, coords=(row, 32 * s))        # atomicAdd(&code[...], ...)
