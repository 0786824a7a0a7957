# BUG (sync.stale-phase): TileLang's T.copy_cluster, as reported in
# tile-ai/tilelang issue #2927 ("T.copy_cluster mbarrier wait parity is
# derived from the loop iteration - silent corruption when remote_barrier
# differs per iteration", sm_90).  T.copy_cluster(src, dst,
# remote_barrier=bar) lowers to a self-contained expect_tx + TMA load +
# wait on the barrier it is given.  The wait's phase came from the
# ENCLOSING LOOP ITERATION (bar[s].wait(s & 1)), which is right only for
# one barrier reused every iteration.  With a different barrier per
# iteration (bar[s], each completing once), the wait of iteration s = 1
# (and 3) asks for phase 1 of a barrier whose phase 0 has not completed
# yet: the parities differ, the wait returns at once, and the tile is
# read before the TMA has written it.
# Written with stage= (one barrier slot per iteration) and phase=s: the
# phase number the generated code means (its parity is s & 1).
# Modelled: one warpgroup that, for s in 0..3, copies a 64x64 bf16 tile of
# X into its own buffer with its own barrier, waits, and accumulates it;
# the sum is stored with a TMA store.  The cluster multicast of the real
# op (rank 0 issues, every CTA waits on its own barrier) is left out: the
# wrong phase is the same in every CTA.
# Fix: tilelang_copy_cluster_loop_parity_fixed.cake (the phase of the
# barrier's own history: each slot's first wait, phase 0).
# expect: sync.stale-phase
# may-also: sync.race data.stale-read sync.arrival-underflow
@cake.schedule(target="sm_90a")
def tilelang_copy_cluster_loop_parity(lm, X: LM.tma2d, Y: LM.tma2d):
    pool   = lm.smem(49152)
    smem_x = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=4)
    smem_y = pool.view(offset=32768, shape=(64, 64), dtype=lm.f32)
    frag   = lm.regs(shape=(64, 64), dtype=lm.f32)
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)

    wg  = lm.role(warps=[0, 1, 2, 3])
    bar = lm.barrier(count=4, prod=[wg], cons=[wg], init_count=1)

    row = lm.block_idx(0) * 64

    with wg:
        lm.fill(acc, 0.0)
        for s in lm.range(0, 4):
            smem_x.tma_load(X, coords=(row, s * 64), stage=s, barrier=bar)
            lm.wait(bar, stage=s, phase=s)                 # expect-error: sync.stale-phase
            lm.copy(frag, smem_x[s])
            lm.binary(acc, acc, frag, op="add")
        lm.copy(smem_y[0], acc)
        lm.fence_proxy()
        smem_y.tma_store(Y, coords=(row, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
