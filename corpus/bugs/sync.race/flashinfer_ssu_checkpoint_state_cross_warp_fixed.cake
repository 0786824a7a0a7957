# FIXED: flashinfer_ssu_checkpoint_state_cross_warp.cake as
# flashinfer-ai/flashinfer PR #3439 fixes it: a block-wide barrier
# (__syncthreads) between load_state_per_warp's cp.async wait and
# replay_state_mma, so every warp's rows have landed before any warp reads
# the full M extent.
# expect: pass
@cake.schedule(target="sm_80")
def flashinfer_ssu_checkpoint_state_block_sync(lm, State: LM.gmem, X: LM.gmem, Bm: LM.gmem, Out: LM.gmem):
    pool   = lm.smem(32768)
    state  = pool.view(offset=0, shape=(64, 128), dtype=lm.f16)
    band   = pool.view(offset=0, shape=(16, 128), dtype=lm.f16, stages=4)   # warp w's rows of state
    xs     = pool.view(offset=16384, shape=(64, 16), dtype=lm.f16)
    bs     = pool.view(offset=18432, shape=(32, 16), dtype=lm.f16, stages=4)
    frag_h = lm.regs(shape=(64, 32), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)

    loaded = lm.named_barrier(roles=[warps])

    head = lm.block_idx(0)

    with warps:
        w  = lm.instance()
        n0 = 32 * w
        # load_state_per_warp + load_data: this warp's rows of the state, its
        # slice of B, and (warp 0) the x tile
        band.cp_async(State, coords=(head * 64 + 16 * w, 0), stage=w)
        bs.cp_async(Bm, coords=(head * 128 + n0, 0), stage=w)
        if w == 0:
            xs.cp_async(X, coords=(head * 64, 0), stage=0)
        lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.sync(loaded)        # the __syncthreads() the fix adds
        # replay_state_mma: all 64 rows of this warp's 32 columns
        lm.copy(frag_h, state[0][:, n0:n0 + 32])
        lm.mma(frag_h, xs[0], bs[w], init=False)
        lm.copy(Out, frag_h, coords=(head * 64, n0))
