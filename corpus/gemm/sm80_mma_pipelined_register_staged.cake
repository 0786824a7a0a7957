# CUTLASS sm80 MmaPipelined (the 2-stage mainloop of
# cutlass/gemm/threadblock/mma_pipelined.h, without cp.async): each of the
# 4 warps loads its 32-row quarter of the next A and B k-blocks from global
# into registers (ld.global), runs the MMA of its rows on the current
# smem k-block, then stores the registers to the OTHER smem buffer
# (st.shared) and __syncthreads; one barrier per k-block is enough because
# the buffer written in iteration k was last read in iteration k-1, before
# that iteration's barrier.
# Bug twin: corpus/bugs/sync.race/cutlass_sm80_mma_pipelined_single_buffer.cake.
# expect: pass
@cake.schedule(target="sm_80")
def gemm_sm80_pipelined(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(32768)
    smem_a = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=2)
    smem_b = pool.view(offset=16384, shape=(128, 32), dtype=lm.bf16, stages=2)
    ra     = lm.regs(shape=(32, 32), dtype=lm.bf16)
    rb     = lm.regs(shape=(32, 32), dtype=lm.bf16)
    acc    = lm.regs(shape=(32, 128), dtype=lm.f32)
    team = lm.role(warps=[0, 1, 2, 3], group=1)
    bar  = lm.named_barrier(roles=[team])
    kt = lm.cdiv(K, 32)
    with team:
        w = lm.instance()
        lm.copy(ra, A, coords=(32 * w, 0))
        lm.copy(rb, B, coords=(32 * w, 0))
        lm.copy(smem_a[0][32 * w:32 * w + 32, :], ra)
        lm.copy(smem_b[0][32 * w:32 * w + 32, :], rb)
        lm.sync(bar)
        for k in lm.range(0, kt):
            if k + 1 < kt:
                lm.copy(ra, A, coords=(32 * w, (k + 1) * 32))
                lm.copy(rb, B, coords=(32 * w, (k + 1) * 32))
            lm.mma(acc, smem_a[k][32 * w:32 * w + 32, :], smem_b[k], init=(k == 0))
            if k + 1 < kt:
                lm.copy(smem_a[k + 1][32 * w:32 * w + 32, :], ra)
                lm.copy(smem_b[k + 1][32 * w:32 * w + 32, :], rb)
            lm.sync(bar)
        lm.copy(C, acc, coords=(32 * w, 0))
