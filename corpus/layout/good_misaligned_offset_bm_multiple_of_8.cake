# LAYOUT layout.misaligned (good, symbolic): the 128B-swizzled ring starts
# at byte 128*BM of its pool (after a header of BM 128-byte rows). A 128B
# swizzle atom is 8 rows of 128 bytes = 1024 bytes, so the start must be a
# multiple of 1024: proved from lm.assume(BM % 8 == 0).
# Bad twin: bad_misaligned_offset_bm_any.
# expect: pass

@cake.schedule(target="sm_90a")
def good_misaligned_offset_bm_multiple_of_8(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32, BM: LM.i32):
    lm.assume(D > 0)
    lm.assume(BM >= 8)
    lm.assume(BM <= 64)
    lm.assume(BM % 8 == 0)
    pool   = lm.smem(128 * BM + 32768)
    smem_x = pool.view(offset=128 * BM, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x      = lm.regs(shape=(128, 64), dtype=lm.f32)
    part   = lm.regs(shape=(128, 1), dtype=lm.f32)
    total  = lm.regs(shape=(128, 1), dtype=lm.f32)

    load = lm.role(warps=[0])
    red  = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    row0 = lm.block_idx(0) * 128

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])
            lm.fence_proxy()  # generic reads done before the slot goes back to TMA
            lm.arrive(empty, iter=j)
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
