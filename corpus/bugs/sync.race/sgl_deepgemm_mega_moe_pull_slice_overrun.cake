# BUG (sync.race): the SM100 MegaMoE dispatch pull of sgl-project/DeepGEMM
# v0.1.7 (deep_gemm/include/deep_gemm/impls/sm100_fp8_fp4_mega_moe.cuh, the
# MXFP8FP4 full-pool path), as diagnosed in sgl-project/DeepGEMM PR #82
# ("fix: size MegaMoE full-pool MXFP8FP4 pull buffer", sglang issue #37559)
# and PR #85 ("Match the MegaMoE dispatch pull to the kernel's full-pool
# predicate"; the regression came with PR #80).
# Each of the 4 dispatch warps owns a slice dispatch_send_buffer[warp] of
# kNumBytesPerPull bytes and its own mbarrier dispatch_barriers[warp]; per
# token its elected lane TMA-loads the token from the remote rank into the
# slice (mbarrier_arrive_and_set_tx), waits, TMA-stores the slice to the
# local L1 pool and waits for the store (tma_store_wait<0>).  The host
# halves kNumBytesPerPull until it is at most 4 KiB: 3,584 bytes for
# DeepSeek-V4's 7,168-byte FP8 token.  The full-pool path does not chunk:
# it moves the whole 7,168-byte token with one TMA, so warp w's load also
# writes the first half of warp w + 1's slice (warp 3's spills into smem_d,
# the next region) while warp w + 1 loads or stores its own token there:
# the PRs report NaN activations and illegal-memory-access failures.
# Modelled: the 1-D bulk copies as 2-D boxes of 28 x 256 bytes (one token);
# the slices as two views whose slots are one token wide, placed where the
# host put them (even warps at 0 and 7168, odd warps at 3584 and 10752);
# n_tok tokens per warp (the kernel's count depends on the routing; every
# warp runs at least one); the SF and weight copies (plain global loads and
# stores) are left out.
# Fix: sgl_deepgemm_mega_moe_pull_slice_overrun_fixed.cake (slices of a
# whole token).
# expect: sync.race
@cake.schedule(target="sm_100a")
def sgl_deepgemm_mega_moe_pull_slice_overrun(lm, Remote: LM.tma2d, L1Pool: LM.tma2d, n_tok: LM.i32):
    lm.assume(n_tok > 0)
    pool     = lm.smem(17920)   # 4 slices of 3,584 bytes, then the first 3,584 bytes of smem_d
    tok_even = pool.view(offset=0,    shape=(28, 256), dtype=lm.e4m3, stages=2)   # warps 0, 2
    tok_odd  = pool.view(offset=3584, shape=(28, 256), dtype=lm.e4m3, stages=2)   # warps 1, 3

    dispatch = lm.role(warps=[0, 1, 2, 3], group=1)
    pull     = lm.barrier(count=4, prod=[dispatch], cons=[dispatch], init_count=1)

    with dispatch:
        w = lm.instance()
        for t in lm.range(0, n_tok):
            row = ((t * lm.grid_dim(0) + lm.block_idx(0)) * 4 + w) * 28
            if w % 2 == 0:
                tok_even[w // 2].tma_load(Remote, coords=(row, 0), stage=w, barrier=pull)  # expect-error: sync.race
            else:
                tok_odd[w // 2].tma_load(Remote, coords=(row, 0), stage=w, barrier=pull)   # expect-error: sync.race
            lm.wait(pull, stage=w)
            if w % 2 == 0:
                tok_even.tma_store(L1Pool, coords=(row, 0), stage=w // 2)   # expect-error: sync.race
            else:
                tok_odd.tma_store(L1Pool, coords=(row, 0), stage=w // 2)    # expect-error: sync.race
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
