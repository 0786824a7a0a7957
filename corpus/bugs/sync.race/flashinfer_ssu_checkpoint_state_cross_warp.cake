# BUG (sync.race): FlashInfer's Mamba checkpointing SSU kernel
# (checkpointing_ssu, must_checkpoint=True path), as fixed by
# flashinfer-ai/flashinfer PR #3439 ("Fix cross-warp race in checkpointing
# SSU kernel (mamba)").  load_state_per_warp splits the state tile by rows:
# warp W cp.asyncs rows [W*D/4, (W+1)*D/4) of smem.state.  The load tail was
# only __pipeline_wait_prior(0) + __syncwarp(), which makes a warp's OWN
# copies visible to itself.  replay_state_mma then uses a Layout<_1,_4>
# tiled MMA (4 warps along N): every warp reads the FULL M extent of
# smem.state for its columns - rows the three other warps are still copying
# (different output on every launch).
# Modelled (sm_80, cp.async): one state tile of 64 x 128 f16; four
# single-warp instances (group=1); the per-warp row bands are a finer view
# (16 x 128, 4 slots) over the same bytes as the whole tile's view; the MMA
# warp tile reads its 32 columns of all 64 rows as the accumulator's initial
# value, updates them and writes them back to global memory.
# Fix: flashinfer_ssu_checkpoint_state_cross_warp_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def flashinfer_ssu_checkpoint_state_cross_warp(lm, State: LM.gmem, X: LM.gmem, Bm: LM.gmem, Out: LM.gmem):
    pool   = lm.smem(32768)
    state  = pool.view(offset=0, shape=(64, 128), dtype=lm.f16)
    band   = pool.view(offset=0, shape=(16, 128), dtype=lm.f16, stages=4)   # warp w's rows of state
    xs     = pool.view(offset=16384, shape=(64, 16), dtype=lm.f16)
    bs     = pool.view(offset=18432, shape=(32, 16), dtype=lm.f16, stages=4)
    frag_h = lm.regs(shape=(64, 32), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)

    head = lm.block_idx(0)

    with warps:
        w  = lm.instance()
        n0 = 32 * w
        # load_state_per_warp + load_data: this warp's rows of the state, its
        # slice of B, and (warp 0) the x tile
        band.cp_async(State, coords=(head * 64 + 16 * w, 0), stage=w)        # expect-error: sync.race
        bs.cp_async(Bm, coords=(head * 128 + n0, 0), stage=w)
        if w == 0:
            xs.cp_async(X, coords=(head * 64, 0), stage=0)
        lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        # replay_state_mma: all 64 rows of this warp's 32 columns
        lm.copy(frag_h, state[0][:, n0:n0 + 32])                               # expect-error: sync.race
        lm.mma(frag_h, xs[0], bs[w], init=False)
        lm.copy(Out, frag_h, coords=(head * 64, n0))
