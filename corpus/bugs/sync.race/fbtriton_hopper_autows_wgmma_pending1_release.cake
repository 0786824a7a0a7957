# BUG (sync.race): facebookexperimental/triton PR #1278 ("Hopper AutoWS
# GEMM: enable warp specialization end-to-end", D101639060), item 3:
# "WGMMAPipeline: skip the properly-async wgmma optimization when the loop
# body contains cross-warp barriers (ttng.arrive_barrier /
# ttng.wait_barrier).  The pendings>0 wait would otherwise let an
# arrive_barrier signaling SMEM-free fire while wgmma is still
# asynchronously reading SMEM, allowing the producer to overwrite the
# buffer mid-read.  Forces wait {pendings=0} after every wgmma in WS
# kernels."  With the optimization, the consumer partition of the
# warp-specialized GEMM committed the k-th wgmma, waited with
# `warpgroup.wait(pendings=1)` - which retires only the (k-1)-th - and
# then arrived on the empty barrier of stage k.
# Modelled: the warp-specialized Hopper GEMM of the PR's tests - a TMA
# producer warp filling a 3-stage A/B ring (128 x 64 bf16 tiles), one
# consumer warpgroup issuing one wgmma per K tile into a 128 x 128 f32
# register accumulator, and the epilogue storing it; the persistent tile
# loop is reduced to one tile per CTA.
# Fix: fbtriton_hopper_autows_wgmma_pending1_release_fixed.cake
# (wait {pendings=0} before the release).
# expect: sync.race
@cake.schedule(target="sm_90a")
def fbtriton_hopper_autows_wgmma_pending1_release(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
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
            smem_a.tma_load(A, coords=(m0, k * 64), iter=k, barrier=full)  # expect-error: sync.race
            smem_b.tma_load(B, coords=(n0, k * 64), iter=k, barrier=full)  # expect-error: sync.race

    with mma:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))                  # expect-error: sync.race
            lm.mma_commit()
            lm.mma_wait(pending=1)
            lm.arrive(empty, iter=k)                                         # expect-error: sync.race
        lm.mma_wait(pending=0)
        lm.copy(C, acc, coords=(m0, n0))
