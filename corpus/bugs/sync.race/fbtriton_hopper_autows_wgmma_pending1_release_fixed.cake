# FIXED: facebookexperimental/triton PR #1278 (item 3) - the fix of
# fbtriton_hopper_autows_wgmma_pending1_release.cake: in a warp-specialized
# loop the wgmma is waited with {pendings=0} before the consumer arrives
# on the stage's empty barrier.  Modelled as the broken form (see its
# header).
# expect: pass
@cake.schedule(target="sm_90a")
def fbtriton_hopper_autows_wgmma_pending1_release_fixed(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    lm.assume(K >= 64)
    lm.assume(K % 64 == 0)
    pool   = lm.smem(98304)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=49152, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    mma  = lm.role(warps=[4, 5, 6, 7])

    ring  = lm.pipeline(stages=3)
    full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=ring)
    empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=ring)

    k_tiles = K // 64
    m0 = lm.block_idx(0) * 128
    n0 = lm.block_idx(1) * 128

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 3)
            smem_a.tma_load(A, coords=(m0, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n0, k * 64), iter=k, barrier=full)

    with mma:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.mma_wait(pending=0)
        lm.copy(C, acc, coords=(m0, n0))
