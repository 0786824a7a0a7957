# BUG (data.stale-accumulator): corpus/splitk/sm100_stream_k_two_segments.cake
# (a stream-K CTA: the tail of one tile, k-blocks [S, KT), then the head of
# the next, [0, S), as two sibling K loops over one variable into one TMEM
# accumulator) with the second loop copied from the first, init=(k == S)
# included. In [0, S) that is never true: the head's first tcgen05.mma
# adds to the tail's partial sum, which the epilogue already read out and
# stored. Every barrier is right (acc_full / acc_empty hand the
# accumulator over), so no synchronization rule sees it. The two loops are
# separate runs of the MMA's innermost loop (each `for` statement is its
# own loop), so the read between them is not taken for a scan's running
# state.
# Fix: corpus/splitk/sm100_stream_k_two_segments.cake (init=(k == 0) in
# the second segment).
# expect: data.stale-accumulator
@cake.schedule(target="sm_100a")
def gemm_sm100_stream_k_two_segments(lm, A: LM.tma2d, B: LM.tma2d, W: LM.gmem,
                                     KT: LM.i32, S: LM.i32):
    lm.assume(S > 0)
    lm.assume(KT > S)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    accum  = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    part   = lm.regs(shape=(128, 128), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    pipe      = lm.pipeline(stages=2)
    full      = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty     = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    acc_empty = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=1)

    tail_tile = 2 * lm.block_idx(0)
    n_tail    = KT - S

    with load:
        for k in lm.range(S, KT):
            it = k - S
            lm.wait(empty, iter=it - 2)
            smem_a.tma_load(A, coords=(128 * tail_tile, 64 * k), iter=it, barrier=full)
            smem_b.tma_load(B, coords=(0, 64 * k), iter=it, barrier=full)
        for k in lm.range(0, S):
            it = n_tail + k
            lm.wait(empty, iter=it - 2)
            smem_a.tma_load(A, coords=(128 * tail_tile + 128, 64 * k), iter=it, barrier=full)
            smem_b.tma_load(B, coords=(0, 64 * k), iter=it, barrier=full)

    with mma:
        for k in lm.range(S, KT):
            it = k - S
            lm.wait(full, iter=it)
            lm.mma(accum, smem_a[it], smem_b[it], init=(k == S))
            lm.mma_commit(barrier=empty, iter=it)
        lm.mma_commit(barrier=acc_full, iter=0)
        lm.wait(acc_empty, iter=0)
        for k in lm.range(0, S):
            it = n_tail + k
            lm.wait(full, iter=it)
            lm.mma(accum, smem_a[it], smem_b[it], init=(k == S))
            lm.mma_commit(barrier=empty, iter=it)
        lm.mma_commit(barrier=acc_full, iter=1)

    with epi:
        for seg in lm.range(0, 2):
            lm.wait(acc_full, iter=seg)
            lm.tmem_load(part, accum)
            lm.tmem_load_wait()
            lm.arrive(acc_empty, iter=seg)
            lm.copy(W, part, coords=(128 * (tail_tile + seg), 0))
