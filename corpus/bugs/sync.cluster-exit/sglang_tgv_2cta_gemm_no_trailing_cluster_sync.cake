# BUG (sync.cluster-exit): sgl-project/sglang PR #32954 ("[Kernel]
# cutedsl_bf16_gemm: trailing cluster barrier for 2-CTA TGV kernel exit",
# issue #32907, also #32855).  The TGV CuTe DSL GEMM with use_2cta
# synchronizes its 2-CTA cluster only at kernel entry (cluster_arrive_relaxed
# / cluster_wait), but cross-CTA traffic lasts until the end: the peer's
# mbarrier arrives redirected to the leader, the leader's multicast
# tcgen05.commit onto both CTAs' barriers, the cluster TMEM dealloc.  One CTA
# can retire while its peer still sends distributed-shared-memory operations
# toward it; under PDL and CUDA graphs the CTAs are descheduled unevenly and
# the straggler faults ("CTA Not Present", CUDBG_EXCEPTION_CLUSTER_BLOCK_NOT_PRESENT).
# The fix adds a trailing cluster arrive/wait before exit.
# Modelled (sm_100a, a 2x1 cluster): per CTA a TMA warp, an MMA warp and an
# epilogue warpgroup; each CTA loads its A and B halves into its own 2-stage
# ring.  The IR cannot write the cta_group::2 MMA (docs/known-limits.md
# "2-CTA tcgen05 MMA, TMEM allocation and memory scopes cannot be
# written"), so each CTA's MMA warp multiplies its own stages into its own
# TMEM accumulator (the half the 2-CTA MMA writes there) and commits to its
# own empty barrier; the cross-CTA traffic is kept as remote arrives: the
# peer (rank 1), once its stage has landed, arrives on the leader's
# peer_full barrier (the redirected arrive), and the leader, after its
# MMA, arrives on the peer's peer_empty barrier (the multicast commit's
# arrival there), which the peer's TMA warp waits for before it refills a
# stage.  The last two stages' peer_empty arrivals are waited for by no one,
# so the peer's epilogue can finish and the peer CTA exit while they are on
# their way.
# Fix: sglang_tgv_2cta_gemm_no_trailing_cluster_sync_fixed.cake.
# expect: sync.cluster-exit
@cake.schedule(target="sm_100a", cluster=(2, 1, 1))
def sglang_tgv_2cta_gemm_no_trailing_cluster_sync(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
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
                lm.arrive(peer_empty, iter=k, cta=1)            # expect-error: sync.cluster-exit
        lm.mma_commit(barrier=acc_full, stage=0)
    with epi:
        lm.cluster_sync()
        lm.wait(acc_full, stage=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m0, n0))
    with rest:
        # every thread of the real kernel runs its cluster barriers (in the lowered
        # kernel a warp without a role would wait at the TMEM dealloc's
        # __syncthreads() and never arrive at barrier.cluster: a hang)
        lm.cluster_sync()
