# FIXED: llamacpp_metal_mul_mm_stage_and_epilogue_war_no_barrier.cake as
# ggml-org/llama.cpp PR #2699 fixes it: a threadgroup_barrier(
# mem_flags::mem_threadgroup) before the stores of each K block into sa /
# sb, and one before an edge tile's simdgroup_store into temp_str, so no
# simdgroup overwrites shared memory that another still reads.
# expect: pass
@cake.schedule(target="sm_80")
def llamacpp_metal_kernel_mul_mm_fixed(lm, A: LM.gmem, B: LM.gmem, Dst: LM.gmem, K: LM.i32):
    lm.assume(K >= 1)
    pool = lm.smem(8192)
    sa   = pool.view(offset=0,    shape=(64, 32), dtype=lm.f16)   # the A block (half)
    sb   = pool.view(offset=4096, shape=(32, 32), dtype=lm.f16)   # the B block
    cst  = pool.view(offset=0,    shape=(64, 32), dtype=lm.f32)   # temp_str over sa and sb
    areg = lm.regs(shape=(16, 32), dtype=lm.f16)                  # temp_a of 32 lanes
    breg = lm.regs(shape=(8, 32), dtype=lm.f16)
    acc  = lm.regs(shape=(32, 16), dtype=lm.f32)                  # c_res[8]
    tile = lm.regs(shape=(64, 32), dtype=lm.f32)

    simd = lm.role(warps=[0, 1, 2, 3], group=1)
    tg   = lm.named_barrier(roles=[simd])

    with simd:
        g  = lm.instance()                                  # sgitg
        r0 = lm.block_idx(0)
        r1 = lm.block_idx(1)
        for kb in lm.range(0, lm.cdiv(K, 32)):              # loop_k
            lm.copy(areg, A, coords=(64 * r0 + 16 * g, 32 * kb))     # dequantize_func
            lm.sync(tg)                                     # the fix (1)
            lm.copy(sa[0][16 * g:16 * g + 16, :], areg)
            lm.copy(breg, B, coords=(32 * r1 + 8 * g, 32 * kb))
            lm.copy(sb[0][8 * g:8 * g + 8, :], breg)
            lm.sync(tg)
            lm.mma(acc, sa[0][32 * (g % 2):32 * (g % 2) + 32, :],
                   sb[0][16 * (g // 2):16 * (g // 2) + 16, :], init=(kb == 0))
        # edge tile: stage through shared memory
        lm.sync(tg)                                         # the fix (2)
        lm.copy(cst[0][32 * (g % 2):32 * (g % 2) + 32, 16 * (g // 2):16 * (g // 2) + 16], acc)
        lm.sync(tg)
        if g == 0:
            lm.copy(tile, cst[0])
            lm.copy(Dst, tile, coords=(64 * r0, 32 * r1))
