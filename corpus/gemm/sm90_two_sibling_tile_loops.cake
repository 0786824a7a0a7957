# Two sibling persistent tile loops over one ring (the shape of
# gemm/sm90_grouped_gemm_two_groups.cake, reduced): T0 tiles of kt0 K
# iterations (ring index t * kt0 + k), then T1 tiles of kt1 (ring index
# T0 * kt0 + t * kt1 + k: the iteration runs on across the two loops, as
# CUTLASS's one PipelineState through a grouped GEMM's tile loop).
# Proved as one persistent kernel whose tiles are of two kinds, each tile its
# own K length (docs/z3.md "Sibling tile loops over one ring read as one
# persistent kernel"); was the minimal reproducer of docs/known-limits.md
# "A grouped GEMM's sibling tile loops, a 2x2 cluster" (helper good44).
# expect: pass
@cake.schedule(target="sm_90a")
def two_sibling_tile_loops(lm, A: LM.tma2d, T0: LM.i32, T1: LM.i32, K0: LM.i32, K1: LM.i32):
    lm.assume(T0 >= 0)
    lm.assume(T1 >= 0)
    lm.assume(K0 > 0)
    lm.assume(K1 > 0)
    pool   = lm.smem(32768)
    smem_a = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)
    producer = lm.role(warps=[0])
    consumer = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=4, prod=[producer], cons=[consumer], init_count=1)
    empty = lm.barrier(count=4, prod=[consumer], cons=[producer], init_count=1)
    kt0 = lm.cdiv(K0, 64)
    kt1 = lm.cdiv(K1, 64)
    with producer:
        for t in lm.range(0, T0):
            for k in lm.range(0, kt0):
                it = t * kt0 + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(0, k * 64), iter=it, barrier=full)
        for t in lm.range(0, T1):
            for k in lm.range(0, kt1):
                it = T0 * kt0 + t * kt1 + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(64, k * 64), iter=it, barrier=full)
    with consumer:
        for t in lm.range(0, T0):
            for k in lm.range(0, kt0):
                it = t * kt0 + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_a[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
        for t in lm.range(0, T1):
            for k in lm.range(0, kt1):
                it = T0 * kt0 + t * kt1 + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_a[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
