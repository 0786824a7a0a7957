# BUG (sync.race): the trailing async_wait of the loop keeps 3 groups in
# flight instead of num_stages - 2 = 2, so the dot of iteration k+1 reads a
# slot whose cp.async group (k-block k+1) is not retired.  Fixed form:
# corpus/gemm/sm80_triton_pipelined_s4.cake.
# Triton-style software-pipelined GEMM (num_stages=4, sm_80 cp.async):
# the pipeliner issues k-blocks 0..2 in the prologue (one commit group
# each, empty groups past K), waits for group 0, then each iteration
# FIRST issues the load of k-block k+3 into slot (k+3)%4 = (k-1)%4 and
# commits, THEN runs the dot on slot k, and ends with
# async_wait(num=2) (+ bar.sync), which retires group k+1 for the next
# iteration.  The slot refilled in iteration k was last read by the dot
# of iteration k-1, ordered by that iteration's trailing wait + barrier.
# expect: sync.race
@cake.schedule(target="sm_80")
def triton_gemm_s4(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
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
        for s in lm.range(0, 3):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 32), stage=s)
                smem_b.cp_async(B, coords=(n_blk, s * 32), stage=s)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=2)
        for k in lm.range(0, k_tiles):
            kn = k + 3
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * 32), iter=kn)
                smem_b.cp_async(B, coords=(n_blk, kn * 32), iter=kn)
            lm.cp_async_commit()
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.cp_async_wait(pending=3)
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
