# Triton's software-pipelined persistent matmul on Hopper without warp
# specialization (triton-lang/triton, python/tutorials/
# 09-persistent-matmul.py, matmul_kernel_descriptor_persistent with
# num_stages=3: one warpgroup issues its own TMA loads and async wgmmas;
# the pipeliner's schedule as lowered by TritonGPU's
# PipelineExpander/WGMMAPipeline).  Per K step k of a tile:
#   wait full[k % 3] (phase k // 3), wgmma (async), warpgroup.wait(1) -
#   which retires the wgmma of step k-1 - and only then the TMA load of
#   step k+2 into slot (k+2) % 3 = (k-1) % 3, the slot that retired wgmma
#   read.  No empty barrier: the wgmma wait orders the reuse.
# The prologue of a tile issues steps 0 and 1 (a step past the tile's K
# extent is masked off, as the pipeliner predicates it); the ring's
# iteration counter runs across tiles.  Epilogue: wait the last wgmma,
# tma_store_wait(0) on the previous tile's store before rewriting the C
# tile, st.shared, fence.proxy.async, TMA store.
# Verdict: checked, NOT proved (the persistent proof refuses the prologue's
# guard on the K trip count, and without it the tile's last K iterations):
# docs/known-limits.md "Triton's single-role pipelined loop, persistent".
# Mutant: bugs/sync.race/sm90_triton_persistent_c_reuse_no_store_wait.cake.
# The one-tile form, proved: sm90_triton_tma_wgmma_pipelined.cake (its
# mutant: bugs/sync.race/sm90_triton_tma_refill_before_wgmma_wait.cake).
# expect: pass
@cake.schedule(target="sm_90a")
def triton_persistent_tma_wgmma(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(114688)
    smem_a = pool.view(offset=0,     shape=(128, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=49152, shape=(128, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c = pool.view(offset=98304, shape=(64, 128),  dtype=lm.bf16, stages=1)
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    wg   = lm.role(warps=[0, 1, 2, 3])
    pipe = lm.pipeline(stages=3)
    full = lm.barrier(prod=[wg], cons=[wg], init_count=1, pipeline=pipe)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 128)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with wg:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            base  = t * k_tiles
            smem_a.tma_load(A, coords=(m_blk, 0), iter=base, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, 0), iter=base, barrier=full)
            if k_tiles > 1:
                smem_a.tma_load(A, coords=(m_blk, 64), iter=base + 1, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, 64), iter=base + 1, barrier=full)
            for k in lm.range(0, k_tiles):
                it = base + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=1)
                if k + 2 < k_tiles:
                    smem_a.tma_load(A, coords=(m_blk, (k + 2) * 64), iter=it + 2, barrier=full)
                    smem_b.tma_load(B, coords=(n_blk, (k + 2) * 64), iter=it + 2, barrier=full)
            lm.mma_wait(pending=0)
            lm.copy(out, acc)
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[0], out[0:64, :])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[0], out[64:128, :])
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk + 64, n_blk), stage=0)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
