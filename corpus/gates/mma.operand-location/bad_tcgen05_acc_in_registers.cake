# GATE mma.operand-location (bad): a Hopper habit on Blackwell - the MMA
# warp keeps the 64x64 accumulator in registers (as wgmma does) and writes
# the tile out itself after waiting for its own commit.  tcgen05.mma
# accumulates only into tensor memory (A from smem or TMEM, B from smem).
# Synchronization is otherwise sound: the MMA warp commits every k-block to
# `empty` and the last group to `acc_done`, which it waits before reading.
# Fix: good_tcgen05_acc_in_tmem.cake (accumulator in TMEM, drained by an
# epilogue warpgroup).
# expect: mma.operand-location
@cake.schedule(target="sm_100a")
def gemm_tcgen05_acc_regs(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(49152)
    smem_a = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=24576, shape=(64, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)
    out    = lm.regs(shape=(64, 64), dtype=lm.bf16)

    mma  = lm.role(warps=[0])
    load = lm.role(warps=[1])

    pipe     = lm.pipeline(stages=3)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_done = lm.barrier(count=1, prod=[mma], cons=[mma], init_count=1)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 64

    with load:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 3)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with mma:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))  # expect-error: mma.operand-location
            lm.mma_commit(barrier=empty, iter=k)
        lm.mma_commit(barrier=acc_done, stage=0)
        lm.wait(acc_done, stage=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
