# Guards that compare two symbolic sides (`if M > N`, `if m_blk + 128 >= M`)
# choose between two epilogue orders, and both retire the wgmma group
# before releasing the ring slot.  The covering values take both outcomes
# of each guard and the verdict line names M and N.
# The fixed form of bugs/sync.race/sm90_release_before_retire_when_m_gt_n.cake
# and bugs/sync.race/sm90_interior_tile_releases_early.cake.
# expect: pass
@cake.schedule(target="sm_90a")
def gemm_guard_two_params_fixed(lm, A: LM.tma2d, B: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7], regs=232)
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(0, k * 64), iter=k, barrier=full)
    with consumers:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][0:64, :], smem_b[k], init=(k == 0))
            lm.mma_commit()
            if M > N:
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=k)
            elif m_blk + 128 >= M:
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=k)
            else:
                lm.mma_wait(pending=1)
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=k)
