# BUG (sync.race), a mutant of Marlin's W4A16 mainloop
# (corpus/gemm/sm80_marlin_w4a16.cake, which models IST-DASLab/marlin
# marlin/marlin_cuda_kernel.cu). wait_for_stage() waits
# cp_async_wait<stages-1>() instead of <stages-2>(): with stages-1 groups
# in flight before each k-block plus the one just committed, pending=3
# retires nothing the k-block needs, so the ldmatrix of slot k reads bytes
# whose cp.async has not landed (the classic off-by-one of a hand-rolled
# cp.async ring). Fixed form: the family file (pending=2).
# may-also: data.stale-read
# expect: sync.race
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
                smem_a.cp_async(A, coords=(m_blk, s * 64), stage=s)         # expect-error: sync.race
                smem_bq.cp_async(Bq, coords=(n_blk, s * 32), stage=s)
            lm.cp_async_commit()
        lm.fill(acc, 0.0)
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=3)
            kn = k + 3
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * 64), iter=kn)        # expect-error: sync.race
                smem_bq.cp_async(Bq, coords=(n_blk, kn * 32), iter=kn)
            lm.cp_async_commit()
            lm.copy(ra, smem_a[k])                                          # expect-error: sync.race
            lm.copy(rbq, smem_bq[k])                                        # expect-error: sync.race
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
