# BUG (sync.race): sm_80 multistage GEMM whose k-blocks are two lm.mma over
# column slices (k-step ranges) of the slot, with the wait + sync between
# them (CUTLASS's "sync before the last k-step"). All 4 slots are prefetched
# (look-ahead 4 instead of S-1 = 3), so the refill issued between the two
# slices, k-block k + 4, lands in slot k % 4: the slot whose last k-step
# smem_a[k][:, 16:32] / smem_b[k][:, 16:32] is read right after, while the
# cp.async group is still in flight. The read of a slice of slot s races with
# the producer's overwrite of slot s (the model gives a sliced operand the
# bounding byte range of its slice).
# Fix: sm80_kslice_refill_under_last_kstep_fixed.cake (the refill after the
# last slice is read).
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def gemm_sm80_kslice_refill_under_last_kstep(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
                                             M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=4, swizzle="64B")
    smem_b = pool.view(offset=32768, shape=(128, 32), dtype=lm.bf16, stages=4, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    mainloop = lm.role(warps=[0, 1, 2, 3])

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with mainloop:
        for s in lm.range(0, 4):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 32), stage=s)
                smem_b.cp_async(B, coords=(n_blk, s * 32), stage=s)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=3)
        for k in lm.range(0, k_tiles):
            lm.mma(acc, smem_a[k][:, 0:16], smem_b[k][:, 0:16], init=(k == 0))
            lm.cp_async_wait(pending=2)
            kn = k + 4
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * 32), iter=kn)
                smem_b.cp_async(B, coords=(n_blk, kn * 32), iter=kn)
            lm.cp_async_commit()
            lm.mma(acc, smem_a[k][:, 16:32], smem_b[k][:, 16:32])
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
