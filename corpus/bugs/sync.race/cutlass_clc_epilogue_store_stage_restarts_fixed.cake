# FIXED: cutlass_clc_epilogue_store_stage_restarts.cake as NVIDIA/cutlass
# PR #3636 fixes it: the epilogue counts its own completed tiles, so the
# stage is (t * 4 + j) % 3 and keeps rotating across tiles.  Before a stage
# is rewritten, tma_store_wait(pending=2) has retired the store issued from
# it three subtiles earlier.
# expect: pass
@cake.schedule(target="sm_90a")
def clc_epilogue_store_stage_rotates(lm, X: LM.gmem, C: LM.tma2d, M: LM.i32):
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
            # subtile 0: columns 0..63, stage (t * 4 + 0) % 3
            lm.tma_store_wait(pending=2)
            lm.copy(smem_c[(t * 4 + 0) % 3], acc[:, 0:64])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m0, 0), stage=(t * 4 + 0) % 3)
            lm.tma_store_commit()
            # subtile 1: columns 64..127, stage (t * 4 + 1) % 3
            lm.tma_store_wait(pending=2)
            lm.copy(smem_c[(t * 4 + 1) % 3], acc[:, 64:128])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m0, 64), stage=(t * 4 + 1) % 3)
            lm.tma_store_commit()
            # subtile 2: columns 128..191, stage (t * 4 + 2) % 3
            lm.tma_store_wait(pending=2)
            lm.copy(smem_c[(t * 4 + 2) % 3], acc[:, 128:192])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m0, 128), stage=(t * 4 + 2) % 3)
            lm.tma_store_commit()
            # subtile 3: columns 192..255, stage (t * 4 + 3) % 3
            lm.tma_store_wait(pending=2)
            lm.copy(smem_c[(t * 4 + 3) % 3], acc[:, 192:256])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m0, 192), stage=(t * 4 + 3) % 3)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
