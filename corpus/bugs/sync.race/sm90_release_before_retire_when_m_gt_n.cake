# BUG (sync.race): when M > N (a tall problem) the consumer releases the
# ring slot BEFORE retiring the wgmma group that still reads it, so the
# producer's next TMA load overwrites operands in use.  M and N reach the
# schedule only through the guard `if M > N`, which compares two
# parameters: the covering values must take both outcomes of it (M=2, N=1
# as well as M=N=1), and the verdict line names M and N.
# Fix: basics/guard_two_params_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_90a")
def gemm_release_before_retire_when_m_gt_n(lm, A: LM.tma2d, B: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
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
    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)  # expect-error: sync.race
            smem_b.tma_load(B, coords=(0, k * 64), iter=k, barrier=full)  # expect-error: sync.race
    with consumers:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][0:64, :], smem_b[k], init=(k == 0))
            lm.mma_commit()
            if M > N:
                lm.arrive(empty, iter=k)
                lm.mma_wait(pending=0)
            else:
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=k)
