# FIXED form of tileops_grouped_gemm_cshared_refill_before_store_drain.cake
# (tile-ai/TileOPs PR #1550): a warpgroup-scoped named barrier before each
# C_shared refill, so every warp of the warpgroup passes the issuing
# thread's tma_store_wait of the previous wave before it overwrites the
# buffer.
# expect: pass
@cake.schedule(target="sm_90a")
def tileops_grouped_gemm_cshared_refill_before_store_drain_fixed(lm, Acc: LM.gmem, C: LM.tma2d,
                                                                 n_tiles: LM.i32):
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
            lm.sync(wg_bar)                                                # the fix: warp 0 has drained the store
            lm.copy(c_shared[0][16 * w:16 * w + 16, :], acc)
            lm.fence_proxy()
            lm.sync(wg_bar)
            if w == 0:
                c_shared.tma_store(C, coords=(tile * 64, 0), stage=0)
                lm.tma_store_commit()
                lm.tma_store_wait(pending=0)                               # T.copy drains: this thread only
