# BUG (sync.arrival-underflow): facebookexperimental/triton PR #1141 ("[TLX] Fix
# persistent WS kernel hang on empty split-K splits", 2026-03-24), the TLX
# Blackwell persistent warp-specialized GEMM
# (third_party/tlx/tutorials/blackwell_gemm_ws.py).  With SPLIT_K > 1 each
# tile id names an (mn tile, split) pair; split s covers K tiles
# [s * kp, min((s + 1) * kp, k_tiles_total)) with kp = cdiv(k_tiles_total,
# SPLIT_K).  When cdiv(k_tiles_total, SPLIT_K) * (SPLIT_K - 1) >=
# k_tiles_total the last split is empty: the producer's K loop is
# range(0, 0) and loads nothing, but _process_tile_mma_inner peels the
# first K iteration and waits on B_smem_full_bars (and A_smem_full_bars)
# unconditionally - a wait no TMA load will ever complete ("the peeled MMA
# consumer unconditionally waits on B_smem_full_bars for the first
# K-iteration, but the producer's loop (range(0, 0)) never loads anything,
# causing a deadlock").  The PR guards all three task loops (epilogue, MMA,
# producer) with `if k_tile_end > k_tile_start`, so they skip empty splits
# in lockstep and their smem/TMEM counters stay consistent.
# Written in CAKE IR (sm_100a, one CTA, NUM_MMA_GROUPS = 1, one TMEM
# buffer, a 1-slot A/B ring): the counters TLX keeps across tiles
# (smem_accum_cnt, tmem_accum_cnt) are the implicit per-slot phases of
# `stage=0` (the n-th wait on a slot waits its n-th phase), so each tile
# may run its own number of K iterations; the ring and the TMEM buffer
# start free by one arrival each (TLX's `phase ^ 1` first-lap waits).  The
# MMA's smem release is the tcgen05 commit on `empty` (async_dot's
# mBarriers=), its signal to the epilogue a commit on `tmem_full` (TLX
# waits the last release, then arrives).  The epilogue writes the split's
# rows of the fp32 workspace.  Left out: the bias path, EPILOGUE_SUBTILE,
# 2-CTA mode, the reduction kernel over the workspace.
# The fixed form (the PR's `if k_tile_end > k_tile_start:` around each
# role's tile body) is fbtriton_tlx_splitk_empty_split_peeled_mma_wait_fixed:
# its guard is no affine comparison of the tile variable but falls only
# once as the tile grows, and the covering values place its flip
# (docs/semantics.md "a split-K tile guard", helper tlx45; *unknown*
# before).  Found on the way (helper hunt45a): this
# broken form exited 0 *checked* until the covering values placed the K
# loop's trip count at the tile loop's first iterations
# (checks/model_check.cpp placeInnerTrips).
# The hang is the empty split's first full wait: a waited phase with no
# arrival, which cake reports as sync.arrival-underflow at the wait (the
# rule's page: a hang of that kind is not a bare sync.deadlock).
# expect: sync.arrival-underflow
@cake.schedule(target="sm_100a")
def fbtriton_tlx_splitk_empty_split_peeled_mma_wait(lm, A: LM.tma2d, B: LM.tma2d, W: LM.gmem,
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
            nk    = min(k0 + kp, k_tiles) - k0
            for kk in lm.range(0, nk):
                lm.wait(empty, stage=0)
                smem_a.tma_load(A, coords=((mn % tiles_m) * 128, (k0 + kk) * 64), stage=0, barrier=full)
                smem_b.tma_load(B, coords=((mn // tiles_m) * 128, (k0 + kk) * 64), stage=0, barrier=full)

    with mma:
        lm.arrive(empty, stage=0)                  # the ring starts free
        for tile in lm.range(lm.block_idx(0), num_tiles, NUM_SMS):
            k0 = (tile // num_mn) * kp
            nk = min(k0 + kp, k_tiles) - k0
            # peeled first K iteration, not guarded by nk > 0
            lm.wait(full, stage=0)                 # expect-error: sync.arrival-underflow
            lm.wait(tmem_empty, stage=0)
            lm.mma(acc, smem_a[0], smem_b[0], init=True)
            lm.mma_commit(barrier=empty, stage=0)
            for kk in lm.range(1, nk):
                lm.wait(full, stage=0)
                lm.mma(acc, smem_a[0], smem_b[0], init=False)
                lm.mma_commit(barrier=empty, stage=0)
            lm.mma_commit(barrier=tmem_full, stage=0)

    with epi:
        lm.arrive(tmem_empty, stage=0)             # the TMEM buffer starts free
        for tile in lm.range(lm.block_idx(0), num_tiles, NUM_SMS):
            mn    = tile % num_mn
            split = tile // num_mn
            lm.wait(tmem_full, stage=0)
            lm.tmem_load(res, acc)
            lm.tmem_load_wait()
            lm.arrive(tmem_empty, stage=0)
            lm.copy(W, res, coords=(split * M + (mn % tiles_m) * 128, (mn // tiles_m) * 128))
