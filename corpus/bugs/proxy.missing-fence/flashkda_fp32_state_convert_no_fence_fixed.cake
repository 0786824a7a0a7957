# FIXED: flashkda_fp32_state_convert_no_fence.cake as MoonshotAI/FlashKDA
# PR #25 fixes it: every thread that wrote the FP32 state buffer executes
# fence_view_async_shared() after its last write, before the rendezvous
# (__syncthreads) that hands the buffer to the TMA-issuing thread.
# expect: pass
@cake.schedule(target="sm_90a")
def kda_fwd_fp32_state_convert_fenced(lm, X: LM.tma2d, State32: LM.tma2d, seqlen: LM.i32):
    lm.assume(seqlen > 0)
    pool    = lm.smem(81920)
    smem_s  = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1)
    smem_x  = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2)
    smem_32 = pool.view(offset=49152, shape=(128, 64), dtype=lm.f32, stages=1)
    s_r     = lm.regs(shape=(64, 64), dtype=lm.f32)
    x_r     = lm.regs(shape=(64, 64), dtype=lm.f32)

    loader = lm.role(warps=[0])
    math   = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)
    pipe   = lm.pipeline(stages=2)
    full   = lm.barrier(prod=[loader], cons=[math], init_count=1, pipeline=pipe)
    empty  = lm.barrier(prod=[math], cons=[loader], init_count=2, pipeline=pipe)
    done   = lm.named_barrier(roles=[math])

    t_tiles = lm.cdiv(seqlen, 128)
    h0 = lm.block_idx(0) * 128

    with loader:
        for t in lm.range(0, t_tiles):
            lm.wait(empty, iter=t - 2)
            smem_x.tma_load(X, coords=(t * 128, 0), iter=t, barrier=full)

    with math:
        r0 = 64 * lm.instance()
        lm.fill(s_r, 0.0)
        lm.copy(smem_s[0][r0:r0 + 64, :], s_r)
        lm.fence_proxy()
        for t in lm.range(0, t_tiles):
            lm.wait(full, iter=t)
            lm.copy(x_r, smem_x[t][r0:r0 + 64, :])
            lm.fence_proxy()
            lm.arrive(empty, iter=t)
            lm.copy(s_r, smem_s[0][r0:r0 + 64, :])
            lm.binary(s_r, s_r, x_r, op="add")
            lm.copy(smem_s[0][r0:r0 + 64, :], s_r)
            lm.fence_proxy()
        lm.copy(s_r, smem_s[0][r0:r0 + 64, :])
        lm.copy(smem_32[0][r0:r0 + 64, :], s_r)
        lm.fence_proxy()
        lm.sync(done)
        if lm.instance() == 0:
            smem_32.tma_store(State32, coords=(h0, 0))
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
