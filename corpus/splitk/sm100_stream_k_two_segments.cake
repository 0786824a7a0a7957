# Blackwell stream-K GEMM (CUTLASS's stream-K tile scheduler,
# include/cutlass/gemm/kernel/sm100_tile_scheduler_stream_k.hpp, in its
# simplest split): each CTA owns the TAIL of one output tile (k-blocks
# [S, KT) of tile 2b) and the HEAD of the next (k-blocks [0, S) of tile
# 2b+1), written here as two K loops over one variable `k`, one after the
# other, into one TMEM accumulator. Each segment's partial sum goes to a
# global workspace (the fixup that adds the partials is another kernel,
# not modelled).
#  * MMA warp: segment 1 with init=(k == S) (its first k-block), commit
#    acc_full[0]; wait acc_empty[0] (the epilogue read the partial out of
#    TMEM); segment 2 with init=(k == 0), commit acc_full[1].
#  * epilogue warpgroup: per segment, wait acc_full, tcgen05.ld the 128x128
#    partial, wait::ld, release the accumulator (acc_empty), store the
#    partial to the workspace.
# Broken form: bugs/data.stale-accumulator/sm100_stream_k_second_segment_init_copied.cake
# (segment 2 keeps segment 1's init=(k == S), never true in [0, S): it
# adds the head to the tail's partial).
# smem: A 2 x 16K + B 2 x 16K = 64 KiB.  TMEM: [0,128).
# expect: pass
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
            lm.mma(accum, smem_a[it], smem_b[it], init=(k == 0))
            lm.mma_commit(barrier=empty, iter=it)
        lm.mma_commit(barrier=acc_full, iter=1)

    with epi:
        for seg in lm.range(0, 2):
            lm.wait(acc_full, iter=seg)
            lm.tmem_load(part, accum)
            lm.tmem_load_wait()
            lm.arrive(acc_empty, iter=seg)
            lm.copy(W, part, coords=(128 * (tail_tile + seg), 0))
