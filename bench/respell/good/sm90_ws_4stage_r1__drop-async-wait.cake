# respells: corpus/mutants/gemm/sm90_ws_4stage/drop-async-wait-L54.cake
# change: roles declared consumers first and renamed, count=4 barriers instead of a pipeline,
# every ring op with stage=k % 4 (implicit phases in the consumers, explicit phase=k // 4 - 1
# in the producer's guarded first-lap wait), the operands as smem_a[k % 4], the tile count as
# (K + 63) // 64, init= as `not k > 0`, the coordinates as (k + 1) * 64 - 64, the three
# assumptions as one conjunction.
@cake.schedule(target="sm_90a")
def gemm_ws4_respelled(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,
                       M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0 and N > 0 and K > 0)
    smem   = lm.smem(163840)
    a_ring = smem.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    b_ring = smem.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    c_out  = smem.view(offset=131072, shape=(64, 128), dtype=lm.bf16, stages=2)
    accum  = lm.regs(shape=(64, 128), dtype=lm.f32)

    math = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    dma  = lm.role(warps=[0, 1, 2, 3], regs=40)

    freed  = lm.barrier(count=4, prod=[math], cons=[dma], init_count=2)
    filled = lm.barrier(count=4, prod=[dma], cons=[math], init_count=1)

    nk = (K + 63) // 64
    row0 = 128 * lm.block_idx(0)
    col0 = lm.block_idx(1) * 128

    with math:
        wg = lm.instance()
        r0 = wg * 64
        for k in lm.range(0, nk):
            lm.wait(filled, stage=k % 4)
            lm.mma(accum, a_ring[k % 4][r0:r0 + 64, :], b_ring[k % 4], init=(not k > 0))
            lm.mma_commit()
            lm.arrive(freed, stage=k % 4)
        lm.copy(c_out[wg], accum)
        lm.fence_proxy()
        c_out.tma_store(C, coords=(row0 + r0, col0), stage=wg)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)

    with dma:
        for k in lm.range(0, nk):
            if k >= 4:
                lm.wait(freed, stage=k % 4, phase=k // 4 - 1)
            a_ring.tma_load(A, coords=(row0, (k + 1) * 64 - 64), stage=k % 4, barrier=filled)
            b_ring.tma_load(B, coords=(col0, (k + 1) * 64 - 64), stage=k % 4, barrier=filled)
