# BUG (sync.race): uccl-project/mKernel PR #18 ("[AG+GEMM] Fix correctness
# producer/store race"), the same pre-fix kernel as
# mkernel_ag_gemm_c_store_wait_at_ring_slot0.cake, written for the shapes a
# caller might have promised: lm.assume(k_tiles % 3 == 1). The producer waits
# for task t - 1's C store only at the first K iteration of task t that
# refills ring slot 0, `k == (3 - t * k_tiles % 3) % 3`; the C staging tile
# lies over A's ring slots 0 and 1. With k_tiles = 4 task 1 starts at ring
# slot 1 and loads A there before the wait, while task 0's TMA store may
# still read those bytes. The residue fact does not make the guard constant
# (it reads `(3 - t * 1 % 3) % 3`, ir/fact_fold.h), and the race stays.
# Fixed twin: mkernel_ag_gemm_c_store_wait_residue_fact_fixed.cake.
# expect: sync.race
# may-also: data.stale-read sync.stale-phase
@cake.schedule(target="sm_90a")
def ag_gemm_c_store_wait_residue_fact(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                                  n_tasks: LM.i32, k_tiles: LM.i32):
    lm.assume(n_tasks >= 1)
    lm.assume(k_tiles >= 1)
    lm.assume(k_tiles % 3 == 1)
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
                    lm.wait(c_free, iter=t - 1)                # BUG: too late when the task starts at slot 1 or 2
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
