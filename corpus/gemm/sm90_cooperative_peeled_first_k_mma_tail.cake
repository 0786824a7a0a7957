# Hopper persistent cooperative GEMM with CUTLASS's collective mainloop as it
# is written (NVIDIA/cutlass include/cutlass/gemm/collective/
# sm90_mma_tma_gmma_ss_warpspecialized.hpp, mma() and mma_tail(), K_PIPE_MMAS
# = 1; kernel include/cutlass/gemm/kernel/
# sm90_gemm_tma_warpspecialized_cooperative.hpp with its producer load_tail):
#  * per tile, the FIRST k-tile is peeled: wait full, wgmma with ScaleOut::Zero
#    (init=True), commit, and no release (one wgmma group stays in flight);
#  * the loop over k-tiles 1..K-1: wait full, wgmma, commit,
#    warpgroup_wait<K_PIPE_MMAS>() (pending=1), consumer_release of the
#    PREVIOUS k-tile (smem_pipe_release lags smem_pipe_read by one);
#  * mma_tail: warpgroup_wait<0>() then release the tile's last k-tile;
#  * the pipeline state runs on across tiles (it = t * k_tiles + k); the
#    producer warp ends with load_tail (producer_acquire of every stage).
# Two consumer warpgroups (64 rows each; empty expects one arrival per
# warpgroup), per-warpgroup double-buffered D staging with
# tma_store_wait<1> before a slot is rewritten.
# Broken forms: bugs/sync.race/cutlass_sm90_mma_tail_release_before_wait.cake,
# bugs/sync.race/cutlass_sm90_mainloop_wait_pending2.cake.
# smem: A 64K + B 64K + D 4 x 16K = 192 KiB.
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_sm90_coop_peeled_first_k(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                  M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(196608)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(64, 128), dtype=lm.bf16, stages=4)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 128)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=full)
        for s in lm.range(0, 4):
            lm.wait(empty, iter=my_tiles * k_tiles + s - 4)

    with consumers:
        m0 = 64 * lm.instance()
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            base  = t * k_tiles
            lm.wait(full, iter=base)
            lm.mma(acc, smem_a[base][m0:m0 + 64, :], smem_b[base], init=True)
            lm.mma_commit()
            for k in lm.range(1, k_tiles):
                it = base + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it][m0:m0 + 64, :], smem_b[it], init=False)
                lm.mma_commit()
                lm.mma_wait(pending=1)
                lm.arrive(empty, iter=it - 1)
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=base + k_tiles - 1)
            s = 2 * lm.instance() + t % 2
            lm.tma_store_wait(pending=1)
            lm.copy(smem_c[s], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=s)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
