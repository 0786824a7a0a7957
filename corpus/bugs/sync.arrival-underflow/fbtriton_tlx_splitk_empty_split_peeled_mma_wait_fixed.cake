# FIXED form of fbtriton_tlx_splitk_empty_split_peeled_mma_wait.cake
# (facebookexperimental/triton PR #1141, "[TLX] Fix persistent WS kernel
# hang on empty split-K splits"): each of the three task loops (producer,
# MMA, epilogue) guards its tile with `if k_tile_end > k_tile_start:`
# (k_tile_end = min(k_tile_start + kp, k_tiles_total)), so all three skip
# an empty split in lockstep: the MMA's peeled first wait runs only where
# the producer loads, and the epilogue waits only for a tile the MMA
# committed.  Same model as the broken form (sm_100a, one CTA,
# NUM_MMA_GROUPS = 1, one TMEM buffer, a 1-slot A/B ring).
# The guard reads the tile variable through a floor division and a `min`;
# the covering values place its flip by evaluation (docs/semantics.md
# "a split-K tile guard").
# expect: pass
@cake.schedule(target="sm_100a")
def fbtriton_tlx_splitk_empty_split_peeled_mma_wait_fixed(lm, A: LM.tma2d, B: LM.tma2d, W: LM.gmem,
                                                          M: LM.i32, N: LM.i32, K: LM.i32,
                                                    split_k: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    lm.assume(split_k >= 1)
    lm.assume(split_k <= 4)
    lm.assume(lm.block_idx(0) < 4)                 # grid = NUM_SMS persistent CTAs
    pool   = lm.smem(32768)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    acc    = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    res    = lm.regs(shape=(128, 128), dtype=lm.f32)

    producer = lm.role(warps=[0])
    mma      = lm.role(warps=[1])
    epi      = lm.role(warps=[4, 5, 6, 7])

    full       = lm.barrier(count=1, prod=[producer], cons=[mma], init_count=1)
    empty      = lm.barrier(count=1, prod=[mma], cons=[producer], init_count=1)
    tmem_full  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    tmem_empty = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=1)

    k_tiles   = lm.cdiv(K, 64)
    kp        = lm.cdiv(k_tiles, split_k)
    tiles_m   = lm.cdiv(M, 128)
    num_mn    = tiles_m * lm.cdiv(N, 128)
    num_tiles = num_mn * split_k
    NUM_SMS   = 4                                  # TLX: tile_id += NUM_SMS (a constexpr)

    with producer:
        for tile in lm.range(lm.block_idx(0), num_tiles, NUM_SMS):
            mn    = tile % num_mn
            k0    = (tile // num_mn) * kp
            k1    = min(k0 + kp, k_tiles)
            if k1 > k0:                            # the PR: skip an empty split
                for kk in lm.range(0, k1 - k0):
                    lm.wait(empty, stage=0)
                    smem_a.tma_load(A, coords=((mn % tiles_m) * 128, (k0 + kk) * 64), stage=0, barrier=full)
                    smem_b.tma_load(B, coords=((mn // tiles_m) * 128, (k0 + kk) * 64), stage=0, barrier=full)

    with mma:
        lm.arrive(empty, stage=0)                  # the ring starts free
        for tile in lm.range(lm.block_idx(0), num_tiles, NUM_SMS):
            k0 = (tile // num_mn) * kp
            k1 = min(k0 + kp, k_tiles)
            if k1 > k0:                            # the PR: skip an empty split
                # peeled first K iteration, now under the guard
                lm.wait(full, stage=0)
                lm.wait(tmem_empty, stage=0)
                lm.mma(acc, smem_a[0], smem_b[0], init=True)
                lm.mma_commit(barrier=empty, stage=0)
                for kk in lm.range(1, k1 - k0):
                    lm.wait(full, stage=0)
                    lm.mma(acc, smem_a[0], smem_b[0], init=False)
                    lm.mma_commit(barrier=empty, stage=0)
                lm.mma_commit(barrier=tmem_full, stage=0)

    with epi:
        lm.arrive(tmem_empty, stage=0)             # the TMEM buffer starts free
        for tile in lm.range(lm.block_idx(0), num_tiles, NUM_SMS):
            mn    = tile % num_mn
            split = tile // num_mn
            k0    = split * kp
            if min(k0 + kp, k_tiles) > k0:         # the PR: skip an empty split
                lm.wait(tmem_full, stage=0)
                lm.tmem_load(res, acc)
                lm.tmem_load_wait()
                lm.arrive(tmem_empty, stage=0)
                lm.copy(W, res, coords=(split * M + (mn % tiles_m) * 128, (mn // tiles_m) * 128))
