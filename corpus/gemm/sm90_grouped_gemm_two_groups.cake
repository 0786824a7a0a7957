# Hopper grouped GEMM with per-group problem sizes (CUTLASS
# examples/57_hopper_grouped_gemm with KernelPtrArrayTmaWarpSpecializedCooperative
# and the GroupScheduler of include/cutlass/gemm/kernel/
# sm90_tile_scheduler_group.hpp, CUTLASS v3.5+): a persistent grid walks the
# concatenated tile list of all groups, tile b, b+G, b+2G, ... (G = grid
# size); group g has its own M_g, N_g, K_g, so the number of tiles and the
# k-blocks per tile differ per group.
#  * The mainloop ring index is global across tiles AND groups: a CTA's
#    tiles of group 0 use iterations t*kt0 + k, those of group 1 continue at
#    n0*kt0 + t*kt1 + k (n0: this CTA's tile count in group 0) - CUTLASS
#    carries one PipelineState through the whole tile loop.
#  * This CTA's first tile of group 1 is the first global index >= tiles0
#    congruent to b modulo G: b + n0*G.
#  * Epilogue: each consumer warpgroup owns two C staging slots and keeps at
#    most one TMA store group in flight (the tile counter runs on across
#    groups too).
# Reductions: two groups with separate tensor parameters instead of the
# device-side pointer array (CUTLASS swaps the TMA descriptor per group;
# the checks do not depend on addresses); 128x128x64 tiles, 4 stages.
# smem: A 64K + B 64K + C 4 x 16K = 192 KiB.
# Proved for every size: the two tile loops read as one persistent kernel
# with a kind per tile, each tile its own K length (docs/z3.md "Sibling tile
# loops over one ring read as one persistent kernel"; helper good44 wrote
# it, session 44, when it was unknown). Broken twin:
# bugs/sync.race/sm90_grouped_gemm_group1_ring_restart.cake.
# expect: pass
@cake.schedule(target="sm_90a")
def grouped_gemm_sm90_two_groups(lm, A0: LM.tma2d, B0: LM.tma2d, C0: LM.tma2d,
                                 A1: LM.tma2d, B1: LM.tma2d, C1: LM.tma2d,
                                 M0: LM.i32, N0: LM.i32, K0: LM.i32,
                                 M1: LM.i32, N1: LM.i32, K1: LM.i32):
    lm.assume(M0 > 0)
    lm.assume(N0 > 0)
    lm.assume(K0 > 0)
    lm.assume(M1 > 0)
    lm.assume(N1 > 0)
    lm.assume(K1 > 0)
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

    G = lm.grid_dim(0)
    b = lm.block_idx(0)
    tm0 = lm.cdiv(M0, 128)
    tm1 = lm.cdiv(M1, 128)
    tiles0 = tm0 * lm.cdiv(N0, 128)
    tiles1 = tm1 * lm.cdiv(N1, 128)
    kt0 = lm.cdiv(K0, 64)
    kt1 = lm.cdiv(K1, 64)
    n0 = lm.cdiv(max(tiles0 - b, 0), G)
    n1 = lm.cdiv(max(tiles0 + tiles1 - b, 0), G) - n0
    base1 = n0 * kt0

    with producer:
        for t in lm.range(0, n0):
            tile = b + t * G
            for k in lm.range(0, kt0):
                it = t * kt0 + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A0, coords=((tile % tm0) * 128, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B0, coords=((tile // tm0) * 128, k * 64), iter=it, barrier=full)
        for t in lm.range(0, n1):
            tile = b + (n0 + t) * G - tiles0
            for k in lm.range(0, kt1):
                it = base1 + t * kt1 + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A1, coords=((tile % tm1) * 128, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B1, coords=((tile // tm1) * 128, k * 64), iter=it, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for t in lm.range(0, n0):
            tile = b + t * G
            for k in lm.range(0, kt0):
                it = t * kt0 + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it][m0:m0 + 64, :], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            s = 2 * lm.instance() + t % 2
            lm.tma_store_wait(pending=1)
            lm.copy(smem_c[s], acc)
            lm.fence_proxy()
            smem_c.tma_store(C0, coords=((tile % tm0) * 128 + m0, (tile // tm0) * 128), stage=s)
            lm.tma_store_commit()
        for t in lm.range(0, n1):
            tile = b + (n0 + t) * G - tiles0
            for k in lm.range(0, kt1):
                it = base1 + t * kt1 + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it][m0:m0 + 64, :], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            s = 2 * lm.instance() + (n0 + t) % 2
            lm.tma_store_wait(pending=1)
            lm.copy(smem_c[s], acc)
            lm.fence_proxy()
            smem_c.tma_store(C1, coords=((tile % tm1) * 128 + m0, (tile // tm1) * 128), stage=s)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
