# BUG (sync.race): the C-smem stage rotation of the CuTeDSL persistent
# Blackwell GEMM epilogue under the CLC dynamic tile scheduler, as reported
# and fixed in NVIDIA/cutlass PR #3636 ("Fix CLC epilogue TMA-store stage
# rotation").  The epilogue picks its staging buffer as
#     c_buffer = (num_tiles_executed * subtile_count + subtile_idx) % num_c_stages
# but only the scheduler warp advances num_tiles_executed: in the epilogue
# warps it stays 0, so every output tile restarts at stage 0.  With four
# 64x64 subtiles per M64xN256 tile and a 3-stage ring, tile t's subtile 0
# writes stage 0 after tma_store_wait(pending=2) - which retires the store
# of tile t-1's subtile 1, not that of subtile 3, which was issued from
# stage 0 and may still be reading it.  Short K exposes it (no mainloop
# latency hides the store).
# Modelled: only the epilogue warpgroup and its store ring; the finished
# accumulator tile is a register fragment loaded from X (the mainloop, the
# TMEM load and the CLC query are not part of the bug and are left out).
# The four subtiles are written out (the lowering takes constant register
# slices only).
# Fix: cutlass_clc_epilogue_store_stage_restarts_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_90a")
def clc_epilogue_store_stage_restarts(lm, X: LM.gmem, C: LM.tma2d, M: LM.i32):
    lm.assume(M > 0)
    pool   = lm.smem(24576)
    smem_c = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=3)
    acc    = lm.regs(shape=(64, 256), dtype=lm.f32)

    epi = lm.role(warps=[0, 1, 2, 3])

    n_tiles  = lm.cdiv(M, 64)
    my_tiles = lm.cdiv(max(n_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with epi:
        for t in lm.range(0, my_tiles):
            m0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 64
            lm.copy(acc, X, coords=(m0, 0))
            # subtile 0: columns 0..63, stage 0
            lm.tma_store_wait(pending=2)
            lm.copy(smem_c[0], acc[:, 0:64])  # expect-error: sync.race
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m0, 0), stage=0)
            lm.tma_store_commit()
            # subtile 1: columns 64..127, stage 1
            lm.tma_store_wait(pending=2)
            lm.copy(smem_c[1], acc[:, 64:128])  # expect-error: sync.race
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m0, 64), stage=1)
            lm.tma_store_commit()
            # subtile 2: columns 128..191, stage 2
            lm.tma_store_wait(pending=2)
            lm.copy(smem_c[2], acc[:, 128:192])  # expect-error: sync.race
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m0, 128), stage=2)
            lm.tma_store_commit()
            # subtile 3: columns 192..255, stage 0
            lm.tma_store_wait(pending=2)
            lm.copy(smem_c[0], acc[:, 192:256])  # expect-error: sync.race
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m0, 192), stage=0)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
