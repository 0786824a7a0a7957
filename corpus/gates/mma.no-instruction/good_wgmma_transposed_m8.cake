# GATE mma.no-instruction (good): a decode GEMM tile of 8 rows of A by
# 64 rows of B (the weights). No wgmma has M = 8, but N = 64 is one m64
# block: the mma is lowered transposed (docs/ir-extensions.md "Transposed
# wgmma"), acc^T[64, 8] += smem_b[k] . smem_a[k]^T = wgmma.m64n8k16 x 4
# with B's slot as the wgmma's A and A's slot as its B; the fragment holds
# the transpose of the wgmma layout, so `lm.copy(out, acc)` and the store
# of `out` write each element at its (row, column) of C as for any tile.
# The schedule's accesses are those of the 64 x 128 tile in
# good_wgmma_m64.cake: the transposition is inside the registers.
# Fixes bad_wgmma_transposed_a_regs.cake (a from registers: no wgmma
# takes its B operand from registers).
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_wgmma_transposed_m8(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(36864)
    smem_a = pool.view(offset=0,    shape=(8, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=4096, shape=(64, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    acc    = lm.regs(shape=(8, 64), dtype=lm.f32)
    out    = lm.regs(shape=(8, 64), dtype=lm.bf16)

    load = lm.role(warps=[4])
    math = lm.role(warps=[0, 1, 2, 3])
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 8
    n_blk = lm.block_idx(1) * 64

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with math:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
