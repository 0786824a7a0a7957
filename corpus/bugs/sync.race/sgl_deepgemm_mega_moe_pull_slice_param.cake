# BUG (sync.race): sgl_deepgemm_mega_moe_pull_slice_overrun.cake with the
# host's slice size as the parameter `pull` (num_bytes_per_pull): the four
# dispatch warps' slices of dispatch_send_buffer sit `pull` bytes apart
# (layout::Buffer(Data(kNumBytesPerPull), kNumDispatchWarps)), and the
# MXFP8FP4 full-pool path moves the whole 7,168-byte token with one TMA.
# sgl-project/DeepGEMM v0.1.6 kept pull at the whole token on that path;
# v0.1.7 (PR #80) halves it to 3,584 (PRs #82 / #85 restore the
# agreement). The facts allow both hosts: the warps' TMA loads share bytes
# at pull = 3,584 and not at 7,168.
# A covering-values probe too (helper hunt48a, session 48): the offsets
# read a parameter, which the bounded check did not vary or name before
# (docs/z3.md "Views placed by a parameter").
# Fix: sgl_deepgemm_mega_moe_pull_slice_param_fixed.cake (pull is the
# whole token).
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_100a")
def sgl_deepgemm_mega_moe_pull_slice_param(lm, Remote: LM.tma2d, L1Pool: LM.tma2d, n_tok: LM.i32, pull: LM.i32):
    lm.assume(n_tok > 0)
    lm.assume(pull >= 3584)
    lm.assume(pull <= 7168)
    lm.assume(pull % 3584 == 0)
    pool = lm.smem(28672)       # four slices of the larger size

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
            tok0.tma_load(Remote, coords=(row, 0), stage=0, barrier=pull0)   # expect-error: sync.race
            lm.wait(pull0, stage=0)
            tok0.tma_store(L1Pool, coords=(row, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
    with warp1:
        for t in lm.range(0, n_tok):
            row = ((t * lm.grid_dim(0) + lm.block_idx(0)) * 4 + 1) * 28
            tok1.tma_load(Remote, coords=(row, 0), stage=0, barrier=pull1)   # expect-error: sync.race
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
