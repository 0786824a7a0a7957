# FIX of: deepseek-ai/DeepGEMM PR #447 ("Integrate main
# APIs and SM120 kernels while preserving nv_dev features"), review thread
# of 2026-09-15 on deep_gemm/include/deep_gemm/impls/sm100_fp4_fp4_mega_moe.cuh
# (Barry-Delaney; the author confirmed "the global-enabled case is a real
# ordering risk", commit 3a04a69).  The main branch's
# `cudaGridDependencySynchronize()` had been imported into
# sm100_fp8_fp4_mega_moe.cuh only; sm100_fp4_fp4_mega_moe (and the sm90
# mega MoE) were still launched with PDL under `deep_gemm.set_pdl(True)`
# but never waited, so their dispatch loads of the activations the
# preceding kernel writes could race that kernel.  The commit turned PDL off
# for those launchers; the fixed form here is the main-branch kernel's
# shape, a grid-dependency wait before the first read.
# Modelled: a 2x1 cluster (the kernel starts with
# `cluster_sync_with_relaxed_arrive()`); per CTA a dispatch/TMA warp loads
# its 128-token activation tile X (written by the preceding kernel) and its
# half of the expert weight tile W, multicast to both CTAs, into a 2-stage
# ring; an MMA warp multiplies into TMEM, waits for the MMA (a local
# commit barrier) and then releases the stage in both CTAs (the kernel's
# tcgen05.commit multicast, which the IR cannot address to a peer); an epilogue warpgroup reads the accumulator once and stores it.
# Left out: the token dispatch/combine through NVLink, the scale factors,
# the second GEMM.
# Broken form: deepgemm_fp4_mega_moe_pdl_no_wait.cake.
# expect: pass
@cake.schedule(target="sm_100a", cluster=(2, 1, 1))
def deepgemm_fp4_mega_moe_pdl_no_wait_fixed(lm, X: LM.tma2d, W: LM.tma2d, Y: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    lm.grid_dependency(X)
    pool = lm.smem(65536)
    xs   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    ws   = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    wsh  = pool.view(offset=32768, shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    acc  = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    out  = lm.regs(shape=(128, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    mma  = lm.role(warps=[1])
    epi  = lm.role(warps=[4, 5, 6, 7])
    rest = lm.role(warps=[2, 3])       # the CTA's other warps: they run the cluster barriers only

    full     = lm.barrier(count=2, prod=[load], cons=[mma], init_count=1)
    empty    = lm.barrier(count=2, prod=[mma], cons=[load], init_count=2)
    mma_done = lm.barrier(count=2, prod=[mma], cons=[mma], init_count=1)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    rank = lm.cluster_rank()
    k_tiles = lm.cdiv(K, 64)
    m0 = 128 * lm.block_idx(0)

    with load:
        lm.cluster_sync()
        lm.grid_dep_wait()      # FIX: cudaGridDependencySynchronize() before the first read of X
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            xs.tma_load(X, coords=(m0, 64 * k), iter=k, barrier=full)
            wsh[2 * (k % 2) + rank].tma_load(W, coords=(64 * rank, 64 * k), iter=k, barrier=full,
                                             multicast=3)
        lm.cluster_sync()

    with mma:
        lm.cluster_sync()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, xs[k], ws[k], init=(k == 0))
            lm.mma_commit(barrier=mma_done, iter=k)
            lm.wait(mma_done, iter=k)
            lm.arrive(empty, iter=k, cta=0)
            lm.arrive(empty, iter=k, cta=1)
        lm.mma_commit(barrier=acc_full, stage=0)
        lm.cluster_sync()

    with epi:
        lm.cluster_sync()
        lm.wait(acc_full, stage=0)
        lm.copy(out, acc)
        lm.copy(Y, out, coords=(m0, 0))
        lm.cluster_sync()
    with rest:
        # every thread of the real kernel runs its cluster barriers (in the lowered
        # kernel a warp without a role would wait at the TMEM dealloc's
        # __syncthreads() and never arrive at barrier.cluster: a hang)
        lm.cluster_sync()
        lm.cluster_sync()
