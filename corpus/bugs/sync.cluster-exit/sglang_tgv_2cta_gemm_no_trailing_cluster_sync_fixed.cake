# FIXED: sglang_tgv_2cta_gemm_no_trailing_cluster_sync.cake with the
# trailing cluster barrier of sgl-project/sglang PR #32954: every role of
# both CTAs arrives and waits on the cluster barrier before exit, so no CTA
# retires while the leader's last arrivals on the peer's barriers (the
# multicast commit's) are still in flight.
# expect: pass
@cake.schedule(target="sm_100a", cluster=(2, 1, 1))
def sglang_tgv_2cta_gemm_no_trailing_cluster_sync_fixed(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    lm.assume(K >= 64)
    lm.assume(K % 64 == 0)
    pool = lm.smem(65536)
    a_s  = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    b_s  = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc  = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    out  = lm.regs(shape=(128, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    mma  = lm.role(warps=[1])
    epi  = lm.role(warps=[4, 5, 6, 7])
    rest = lm.role(warps=[2, 3])       # the CTA's other warps: they run the cluster barriers only

    pipe       = lm.pipeline(stages=2)
    full       = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty      = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    peer_full  = lm.barrier(prod=[mma], cons=[mma], init_count=1, pipeline=pipe)
    peer_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full   = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)

    rank = lm.cluster_rank()
    k_tiles = K // 64
    m0 = lm.block_idx(0) // 2 * 128
    n0 = lm.block_idx(1) * 256 + 128 * rank

    with load:
        lm.cluster_sync()
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            if rank == 1:
                lm.wait(peer_empty, iter=k - 2)                 # the leader's MMA is done with the stage
            a_s.tma_load(A, coords=(m0, k * 64), iter=k, barrier=full)
            b_s.tma_load(B, coords=(n0, k * 64), iter=k, barrier=full)
        lm.cluster_sync()
    with mma:
        lm.cluster_sync()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            if rank == 1:
                lm.arrive(peer_full, iter=k, cta=0)             # the redirected arrive
            else:
                lm.wait(peer_full, iter=k)
            lm.mma(acc, a_s[k], b_s[k], init=(k == 0))
            lm.mma_commit(barrier=empty, iter=k)
            if rank == 0:
                lm.arrive(peer_empty, iter=k, cta=1)
        lm.mma_commit(barrier=acc_full, stage=0)
        lm.cluster_sync()                                       # the fix: no CTA exits before its peer is done
    with epi:
        lm.cluster_sync()
        lm.wait(acc_full, stage=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m0, n0))
        lm.cluster_sync()
    with rest:
        # every thread of the real kernel runs its cluster barriers (in the lowered
        # kernel a warp without a role would wait at the TMEM dealloc's
        # __syncthreads() and never arrive at barrier.cluster: a hang)
        lm.cluster_sync()
        lm.cluster_sync()
