# mutant: trip-plus-1
# original: corpus/moe/sm100_grouped_gemm.cake
# line: 52: for k in lm.range(0, k_tiles):
# change: loop bound: `k_tiles` -> `k_tiles + 1`
# label: bad (sync.arrival-underflow, sync.arrival-overflow, data.stale-read, sync.race, sync.lost-phase) by the explicit-state simulator (encoder/simulator.h), E in {1, 2, 5, 9}, cap in {1, 144, 528, 1040}, N in {1, 144, 528, 1040}, K in {1, 144, 208, 464} (56 combinations with every trip count <= 9); block_idx 0 of grid_dim 1; 8273 states; first violation: sync.arrival-underflow: phase 5 of full[0] gets 0 arrivals, but the barrier expects 1 (init_count): the phase never completes as meant and its waiters hang at `lm.wait(full, iter=it)` (line 54) (E=5, cap=1, N=1, K=208)
# expect-any: sync.arrival-underflow sync.arrival-overflow data.stale-read sync.race sync.lost-phase
# Blackwell MoE grouped GEMM (uniform capacity), tcgen05: persistent over
# (expert, m-tile, n-tile); TMA warp -> 4-slot ring -> MMA warp -> TMEM ->
# epilogue warpgroup with a one-slot accumulator pipeline and a 2-slot
# store ring over two 64-column sub-tiles.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_100a")
def moe_grouped_gemm_sm100(lm, A: LM.tma2d, W: LM.tma3d, C: LM.tma2d,
                           E: LM.i32, cap: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(E > 0)
    lm.assume(cap > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool     = lm.smem(163840)
    smem_a   = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b   = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c   = pool.view(offset=131072, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    acc_r    = lm.regs(shape=(128, 64), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    pipe      = lm.pipeline(stages=4)
    full      = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty     = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    acc_empty = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=1)

    k_tiles   = lm.cdiv(K, 64)
    m_tiles   = lm.cdiv(cap, 128)
    n_tiles   = lm.cdiv(N, 128)
    per_exp   = m_tiles * n_tiles
    num_tiles = E * per_exp
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with load:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            e    = tile // per_exp
            m_bl = ((tile % per_exp) % m_tiles) * 128
            n_bl = ((tile % per_exp) // m_tiles) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(e * cap + m_bl, k * 64), iter=it, barrier=full)
                smem_b.tma_load(W, coords=(e, n_bl, k * 64), iter=it, barrier=full)

    with mma:
        for t in lm.range(0, my_tiles):
            lm.wait(acc_empty, iter=t - 1)
            for k in lm.range(0, k_tiles + 1):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(tmem_acc, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit(barrier=empty, iter=it)
            lm.mma_commit(barrier=acc_full, iter=t)

    with epi:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            e    = tile // per_exp
            m_bl = ((tile % per_exp) % m_tiles) * 128
            n_bl = ((tile % per_exp) // m_tiles) * 128
            lm.wait(acc_full, iter=t)
            for h in lm.range(0, 2):
                lm.copy(acc_r, tmem_acc[:, h * 64:h * 64 + 64])
                if h == 1:
                    lm.arrive(acc_empty, iter=t)
                lm.tma_store_wait(pending=1)
                lm.copy(smem_c[2 * t + h], acc_r)
                lm.fence_proxy()
                smem_c.tma_store(C, coords=(e * cap + m_bl, n_bl + h * 64), iter=2 * t + h)
                lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
