# BUG (sync.race): tile-ai/TileOPs PR #1550 ("[Fix][MoE] Fix C_shared
# TMA-store epilogue race in 3WG persistent grouped GEMM", merged
# 2026-06-02).  tileops/kernels/.../grouped_gemm_persistent_3wg.py: each
# consumer warpgroup stages its result tile through its own C_shared
# buffer (cast -> C_shared -> TMA store).  C_shared is allocated once and
# reused on every wave of the persistent loop, and nothing ordered the next
# wave's refill after the previous wave's in-flight TMA store: T.copy's
# tma_store_wait drains the bulk group only in the thread that issued the
# store, so the warpgroup's other threads run ahead and overwrite C_shared
# while the store still reads it (about one corrupted tile; with E = 384
# sparse experts, many waves, the NaNs blew up through SiLU).  The fix adds
# a warpgroup-scoped named barrier (ids 4 / 5; a CTA-wide sync_threads is
# impossible because the fast path is warpgroup-divergent) before each
# C_shared refill.  The write -> TMA read ordering (fence + the same
# barrier, the later PR #1574) is already in place here, as in the kernel
# after both fixes, so the only bug left is the one PR #1550 fixed.
# Modelled: one of the two consumer warpgroups (the other is symmetric,
# with its own C_shared and barrier id) on the TMA-store fast path, each
# warp its own instance (warp w casts rows 16w..16w+15 of the 64 x 128
# tile); the WGMMA mainloop that produces the accumulator is left out (each
# warp loads its accumulator rows from a precomputed partial), as are the
# producer warpgroup and the STG slow path.
# Fix: tileops_grouped_gemm_cshared_refill_before_store_drain_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_90a")
def tileops_grouped_gemm_cshared_refill_before_store_drain(lm, Acc: LM.gmem, C: LM.tma2d, n_tiles: LM.i32):
    lm.assume(n_tiles > 0)
    pool     = lm.smem(16384)
    c_shared = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=1)
    acc      = lm.regs(shape=(16, 128), dtype=lm.f32)

    wg     = lm.role(warps=[4, 5, 6, 7], group=1)
    wg_bar = lm.named_barrier(roles=[wg])                    # barrier id 4, 128 threads

    my_tiles = lm.cdiv(max(n_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with wg:
        w = lm.instance()
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            lm.copy(acc, Acc, coords=(tile * 64 + 16 * w, 0))              # the wave's accumulator rows
            # BUG: no warpgroup barrier before the refill: the last wave's store may still read C_shared
            lm.copy(c_shared[0][16 * w:16 * w + 16, :], acc)               # expect-error: sync.race
            lm.fence_proxy()
            lm.sync(wg_bar)
            if w == 0:
                c_shared.tma_store(C, coords=(tile * 64, 0), stage=0)      # expect-error: sync.race
                lm.tma_store_commit()
                lm.tma_store_wait(pending=0)                               # T.copy drains: this thread only
