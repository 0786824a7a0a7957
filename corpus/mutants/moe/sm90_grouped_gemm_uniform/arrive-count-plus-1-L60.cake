# mutant: arrive-count-plus-1
# original: corpus/moe/sm90_grouped_gemm_uniform.cake
# line: 60: lm.arrive(empty, iter=it)
# change: added `count=2`
# label: bad (sync.arrival-overflow, sync.race, sync.lost-phase, data.stale-read) by the explicit-state simulator (encoder/simulator.h), E in {1, 2, 5, 9}, cap in {1, 144, 528, 1040}, N in {1, 144, 528, 1040}, K in {1, 80, 272, 528} (56 combinations with every trip count <= 9); block_idx 0 of grid_dim 1; 2354753 states; first violation: sync.arrival-overflow: phase 0 of empty[0] gets 4 arrivals, but the barrier expects 2 (init_count): the extra ones complete a phase nobody meant to complete at `lm.arrive(empty, iter=it, count=2)` (line 60) (E=1, cap=1, N=1, K=1)
# expect-any: sync.arrival-overflow sync.race sync.lost-phase data.stale-read
# Hopper MoE grouped GEMM with a uniform per-expert capacity (Switch
# "capacity factor" layout): tokens are already permuted so that expert e
# owns rows [e*cap, (e+1)*cap) of A; its weights are W[e] (N x K), a 3-D
# TMA tensor addressed (e, n, k).  Persistent over (expert, m-tile,
# n-tile) work items, warp-specialized, global ring counter, per-instance
# 2-slot TMA store ring - gemm/sm90_persistent_ws.cake with a 3-level tile
# decomposition (CUTLASS grouped GEMM with a static scheduler).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def moe_grouped_gemm(lm, A: LM.tma2d, W: LM.tma3d, C: LM.tma2d,
                     E: LM.i32, cap: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(E > 0)
    lm.assume(cap > 0)
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
    m_tiles   = lm.cdiv(cap, 128)
    n_tiles   = lm.cdiv(N, 128)
    per_exp   = m_tiles * n_tiles
    num_tiles = E * per_exp
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
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

    with consumers:
        m0 = 64 * lm.instance()
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            e    = tile // per_exp
            m_bl = ((tile % per_exp) % m_tiles) * 128
            n_bl = ((tile % per_exp) // m_tiles) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it][m0:m0 + 64, :], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it, count=2)
            s = 2 * lm.instance() + t % 2
            lm.tma_store_wait(pending=1)
            lm.copy(smem_c[s], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(e * cap + m_bl + m0, n_bl), stage=s)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
