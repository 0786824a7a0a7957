# FIXED: sgl_deepgemm_mega_moe_pull_slice_overrun.cake as sgl-project/DeepGEMM
# PR #82 / PR #85 fix it: when the kernel takes its one-shot full-pool path
# the host keeps num_bytes_per_pull at the whole token (7,168 bytes), so the
# four dispatch warps' slices of dispatch_send_buffer are a token wide and
# disjoint; each warp's TMA load, wait, TMA store and tma_store_wait<0>
# touch only its own slice.
# Modelled as the broken form: the 1-D bulk copies as 28 x 256-byte boxes,
# n_tok tokens per warp, SF and weight copies left out.
# expect: pass
@cake.schedule(target="sm_100a")
def sgl_deepgemm_mega_moe_pull_slice_whole_token(lm, Remote: LM.tma2d, L1Pool: LM.tma2d, n_tok: LM.i32):
    lm.assume(n_tok > 0)
    pool  = lm.smem(28672)      # 4 slices of 7,168 bytes
    slice = pool.view(offset=0, shape=(28, 256), dtype=lm.e4m3, stages=4)

    dispatch = lm.role(warps=[0, 1, 2, 3], group=1)
    pull     = lm.barrier(count=4, prod=[dispatch], cons=[dispatch], init_count=1)

    with dispatch:
        w = lm.instance()
        for t in lm.range(0, n_tok):
            row = ((t * lm.grid_dim(0) + lm.block_idx(0)) * 4 + w) * 28
            slice[w].tma_load(Remote, coords=(row, 0), stage=w, barrier=pull)
            lm.wait(pull, stage=w)
            slice.tma_store(L1Pool, coords=(row, 0), stage=w)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
