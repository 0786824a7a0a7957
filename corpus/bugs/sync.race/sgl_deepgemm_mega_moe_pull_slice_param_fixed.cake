# FIXED: sgl_deepgemm_mega_moe_pull_slice_param.cake with the host that
# keeps num_bytes_per_pull at the whole 7,168-byte token on the full-pool
# path (sgl-project/DeepGEMM PR #82 / PR #85): the four slices are a token
# wide and disjoint.
# expect: pass
# lower: unsupported (view offsets that read a parameter: the lowering needs constant offsets, `cake lower --set pull=7168` specialises it)
@cake.schedule(target="sm_100a")
def sgl_deepgemm_mega_moe_pull_slice_param_whole(lm, Remote: LM.tma2d, L1Pool: LM.tma2d, n_tok: LM.i32, pull: LM.i32):
    lm.assume(n_tok > 0)
    lm.assume(pull == 7168)
    pool = lm.smem(28672)       # four slices of 7,168 bytes

    tok0 = pool.view(offset=0, shape=(28, 256), dtype=lm.e4m3)
    tok1 = pool.view(offset=pull, shape=(28, 256), dtype=lm.e4m3)
    tok2 = pool.view(offset=2 * pull, shape=(28, 256), dtype=lm.e4m3)
    tok3 = pool.view(offset=3 * pull, shape=(28, 256), dtype=lm.e4m3)

    warp0 = lm.role(warps=[0])
    warp1 = lm.role(warps=[1])
    warp2 = lm.role(warps=[2])
    warp3 = lm.role(warps=[3])
    pull0 = lm.barrier(count=1, prod=[warp0], cons=[warp0], init_count=1)
    pull1 = lm.barrier(count=1, prod=[warp1], cons=[warp1], init_count=1)
    pull2 = lm.barrier(count=1, prod=[warp2], cons=[warp2], init_count=1)
    pull3 = lm.barrier(count=1, prod=[warp3], cons=[warp3], init_count=1)

    with warp0:
        for t in lm.range(0, n_tok):
            row = ((t * lm.grid_dim(0) + lm.block_idx(0)) * 4 + 0) * 28
            tok0.tma_load(Remote, coords=(row, 0), stage=0, barrier=pull0)
            lm.wait(pull0, stage=0)
            tok0.tma_store(L1Pool, coords=(row, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
    with warp1:
        for t in lm.range(0, n_tok):
            row = ((t * lm.grid_dim(0) + lm.block_idx(0)) * 4 + 1) * 28
            tok1.tma_load(Remote, coords=(row, 0), stage=0, barrier=pull1)
            lm.wait(pull1, stage=0)
            tok1.tma_store(L1Pool, coords=(row, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
    with warp2:
        for t in lm.range(0, n_tok):
            row = ((t * lm.grid_dim(0) + lm.block_idx(0)) * 4 + 2) * 28
            tok2.tma_load(Remote, coords=(row, 0), stage=0, barrier=pull2)
            lm.wait(pull2, stage=0)
            tok2.tma_store(L1Pool, coords=(row, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
    with warp3:
        for t in lm.range(0, n_tok):
            row = ((t * lm.grid_dim(0) + lm.block_idx(0)) * 4 + 3) * 28
            tok3.tma_load(Remote, coords=(row, 0), stage=0, barrier=pull3)
            lm.wait(pull3, stage=0)
            tok3.tma_store(L1Pool, coords=(row, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
