# Marlin W4A16 mainloop (IST-DASLab/marlin, marlin/marlin_cuda_kernel.cu,
# commit 1f25790 on master; the same loop is vLLM's
# csrc/quantization/gptq_marlin/marlin_template.h): fp16 activations A times
# int4 weights B, f32 accumulation, sm_80 mma.sync from registers.
#  * One CTA of 8 warps (256 threads) in one instance; a 4-stage cp.async
#    ring (Marlin's `stages = 4`) holds an A tile (16 rows: thread_m_blocks
#    = 1) and a packed int4 B tile per k-block of 64.
#  * start_pipes(): fetch_to_shared(i) for i < stages-1, one cp.async group
#    each, committed even when the k-block does not exist (empty group).
#  * Each k-block: wait_for_stage() = cp_async_wait<stages-2>() +
#    __syncthreads() (lowering emits the bar.sync after the wait), THEN
#    fetch_to_shared of k-block k+stages-1 into slot (k-1)%4 - the slot the
#    previous k-block read, ordered by that barrier - and only then the
#    ldmatrix/ld.shared of slot k, the dequantization (int4 -> fp16 in
#    registers, lop3 in Marlin) and the mma.sync's.
#  * Per-channel scales (group_blocks == -1): fetched by cp.async after
#    the mainloop, one more group, waited with cp_async_wait<0>() and
#    applied to the accumulator before the fp16 store.
# Reductions: the int4 B tile is modeled as an i8 tile of half the width
# (two nibbles a byte, 64 k-values = 32 bytes a row); the per-channel scale
# row is modeled as a full 16x256 tile (the IR's binary has no broadcast);
# Marlin's cross-warp reduction in shared memory (thread_k_blocks split)
# and the global lock of its slice-wise serial reduction are not modeled.
# smem: A 4 x 2 KiB + B 4 x 8 KiB + scales 8 KiB = 48 KiB.
# lower: unsupported (the dequantized B fragment filled by a register copy into mma.sync operand registers: the lowering fills them from shared memory only)
# expect: pass
@cake.schedule(target="sm_80")
def marlin_w4a16(lm, A: LM.gmem, Bq: LM.gmem, S: LM.gmem, C: LM.gmem,
                 M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool    = lm.smem(49152)
    smem_a  = pool.view(offset=0,     shape=(16, 64),  dtype=lm.f16, stages=4)
    smem_bq = pool.view(offset=8192,  shape=(256, 32), dtype=lm.i8,  stages=4)
    smem_s  = pool.view(offset=40960, shape=(16, 256), dtype=lm.f16, stages=1)
    ra      = lm.regs(shape=(16, 64),  dtype=lm.f16)
    rbq     = lm.regs(shape=(256, 32), dtype=lm.i8)
    rb      = lm.regs(shape=(256, 64), dtype=lm.f16)
    rs      = lm.regs(shape=(16, 256), dtype=lm.f16)
    acc     = lm.regs(shape=(16, 256), dtype=lm.f32)
    res     = lm.regs(shape=(16, 256), dtype=lm.f32)
    out     = lm.regs(shape=(16, 256), dtype=lm.f16)

    team = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7])

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 16
    n_blk = lm.block_idx(1) * 256

    with team:
        for s in lm.range(0, 3):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 64), stage=s)
                smem_bq.cp_async(Bq, coords=(n_blk, s * 32), stage=s)
            lm.cp_async_commit()
        lm.fill(acc, 0.0)
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=2)
            kn = k + 3
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * 64), iter=kn)
                smem_bq.cp_async(Bq, coords=(n_blk, kn * 32), iter=kn)
            lm.cp_async_commit()
            lm.copy(ra, smem_a[k])
            lm.copy(rbq, smem_bq[k])
            lm.copy(rb, rbq)
            lm.mma(acc, ra, rb)
        lm.cp_async_wait(pending=0)
        smem_s.cp_async(S, coords=(0, n_blk), stage=0)
        lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(rs, smem_s[0])
        lm.binary(res, acc, rs, op="mul")
        lm.copy(out, res)
        lm.copy(C, out, coords=(m_blk, n_blk))
