# BUG (sync.race): uccl-project/mKernel PR #18 ("[AG+GEMM] Fix correctness
# producer/store race", merged 2026-05-24).  The fused AllGather + GEMM
# kernel (a ThunderKittens-style persistent warp-specialized Hopper GEMM:
# a producer warp TMA-loads a 3-stage A/B ring, consumer warps run wgmma and
# stage the output tile C in shared memory for a TMA store) "produced
# incorrect results at large problem sizes (M = 16384 and M = 32768)".  From
# the PR: "one shared-memory tile is reused for two purposes - it holds an
# input during the GEMM and the output C afterward.  Before reusing that
# tile for the next task, the producer warp must wait for the previous
# task's C store to finish draining to global memory.  The original code
# placed that wait at a fixed pipeline iteration.  That iteration only lined
# up with the actual slot-reuse point when the per-task GEMM length was an
# exact multiple of the pipeline depth.  For other shapes, the wait fired
# too late, and the producer's next TMA load raced with the previous task's
# still-in-flight C store."  Fix: "Move the wait to the start of each task"
# (mkernel_ag_gemm_c_store_wait_at_ring_slot0_fixed.cake).
# Written in CAKE IR (the PR shows no code; this is one reading of it): the
# C staging tile (128 x 128 bf16, 32 KB) lies over ring slots 0 and 1 of A;
# the producer waits for the store of task t - 1 (c_free, phase t - 1) at
# the first iteration of task t that refills ring slot 0 - the slot-reuse
# point only when task t starts at slot 0, i.e. when k_tiles % 3 == 0.
# With k_tiles = 4, task 1 starts at ring slot 1 and loads A there before
# the wait, while task 0's TMA store may still be reading those bytes.  The
# communication part (intra-node gather, RDMA arrivals) is left out.
# expect: sync.race
# may-also: data.stale-read sync.stale-phase
@cake.schedule(target="sm_90a")
def ag_gemm_c_store_wait_at_slot0(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                  n_tasks: LM.i32, k_tiles: LM.i32):
    lm.assume(n_tasks >= 1)
    lm.assume(k_tiles >= 1)
    pool   = lm.smem(98304)
    smem_a = pool.view(offset=0,     shape=(128, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=49152, shape=(128, 64),  dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c = pool.view(offset=0,     shape=(128, 128), dtype=lm.bf16, stages=1)   # over A slots 0 and 1
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)

    producer = lm.role(warps=[0])
    consumer = lm.role(warps=[4, 5, 6, 7])

    pipe   = lm.pipeline(stages=3)
    full   = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=pipe)
    empty  = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=pipe)
    c_free = lm.barrier(count=1, prod=[consumer], cons=[producer], init_count=1)

    with producer:
        for t in lm.range(0, n_tasks):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            k0 = (3 - (t * k_tiles) % 3) % 3                   # first k of the task at ring slot 0
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                if k == k0:
                    lm.wait(c_free, iter=t - 1)                # BUG: only the reuse point when k0 == 0
                lm.wait(empty, iter=it - 3)
                smem_a.tma_load(A, coords=(128 * tile, 64 * k), iter=it, barrier=full)  # expect-error: sync.race
                smem_b.tma_load(B, coords=(0, 64 * k), iter=it, barrier=full)

    with consumer:
        for t in lm.range(0, n_tasks):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            lm.copy(smem_c[0], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(128 * tile, 0), stage=0)  # expect-error: sync.race
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(c_free, iter=t)
