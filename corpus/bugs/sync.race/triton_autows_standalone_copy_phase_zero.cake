# BUG (sync.race): Triton's automatic warp specialization (facebookexperimental
# triton, AutoWS) for a persistent CLC flash-attention kernel, as fixed by
# facebookexperimental/triton PR #3420 ("Rotate 2-CTA rendezvous across CLC
# iterations"): a standalone copy left in the MMA partition by software
# pipelining (the per-tile Q load, outside the KV loop) always waited on
# phase ZERO of its barrier, while the steady-state copies tracked their
# phases; from the second persistent tile on, the wait passes at once on
# the first tile's completion and the MMA reads Q while the next tile's Q
# is still being written (the kernel hung intermittently with two stages:
# synccheck "Missing wait").
# Written with stage= and an explicit phase=0 (what the generated wait
# meant).  Modelled on one CTA (sm_100a): a TMA warp (Q once per tile into
# a one-slot buffer, K tiles through a 2-slot ring), an MMA warp
# accumulating Q.K^T in TMEM, an epilogue warpgroup; the 2-CTA rendezvous
# and softmax are left out.
# Fix: triton_autows_standalone_copy_phase_zero_fixed.cake (the Q wait
# counts its tiles: implicit phase).
# expect: sync.race
# may-also: sync.lost-phase sync.stale-phase data.stale-read sync.arrival-underflow
@cake.schedule(target="sm_100a")
def triton_autows_standalone_copy_phase_zero(lm, Q: LM.tma2d, Kt: LM.tma2d, O: LM.tma2d, M: LM.i32, N: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    pool   = lm.smem(98304)
    smem_q = pool.view(offset=0,     shape=(128, 64),  dtype=lm.bf16, swizzle="128B")
    smem_k = pool.view(offset=16384, shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_o = pool.view(offset=49152, shape=(128, 128), dtype=lm.bf16)
    tmem_s = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    s_frag = lm.regs(shape=(128, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    mma  = lm.role(warps=[1])
    epi  = lm.role(warps=[4, 5, 6, 7])
    ring      = lm.pipeline(stages=2)
    kv_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=ring)
    kv_empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=ring)
    q_full    = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    q_empty   = lm.barrier(count=1, prod=[mma], cons=[load], init_count=1)
    acc_full  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    acc_empty = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=1)

    n_blocks = lm.cdiv(N, 128)
    my_tiles = lm.cdiv(max(lm.cdiv(M, 128) - lm.block_idx(0), 0), lm.grid_dim(0))

    with load:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            if t > 0:
                lm.wait(q_empty, stage=0)
            smem_q.tma_load(Q, coords=(tile * 128, 0), stage=0, barrier=q_full)   # expect-error: sync.race
            for j in lm.range(0, n_blocks):
                it = t * n_blocks + j
                lm.wait(kv_empty, iter=it - 2)
                smem_k.tma_load(Kt, coords=(j * 128, 0), iter=it, barrier=kv_full)

    with mma:
        for t in lm.range(0, my_tiles):
            lm.wait(q_full, stage=0, phase=0)
            if t > 0:
                lm.wait(acc_empty, stage=0)
            for j in lm.range(0, n_blocks):
                it = t * n_blocks + j
                lm.wait(kv_full, iter=it)
                lm.mma(tmem_s, smem_q[0], smem_k[it], init=(j == 0))   # expect-error: sync.race
                lm.mma_commit(barrier=kv_empty, iter=it)
            lm.mma_commit(barrier=q_empty, stage=0)
            lm.mma_commit(barrier=acc_full, stage=0)

    with epi:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            lm.wait(acc_full, stage=0)
            lm.copy(s_frag, tmem_s)
            lm.arrive(acc_empty, stage=0)
            lm.tma_store_wait(pending=0)
            lm.copy(smem_o[0], s_frag)
            lm.fence_proxy()
            smem_o.tma_store(O, coords=(tile * 128, 0), stage=0)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
