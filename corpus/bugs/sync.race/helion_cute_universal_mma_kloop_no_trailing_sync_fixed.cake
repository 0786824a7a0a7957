# FIXED form of helion_cute_universal_mma_kloop_no_trailing_sync.cake
# (pytorch/helion PR #2975): cute.arch.sync_threads() after cute.gemm, so
# no warp stores the next K tile into sA / sB before every warp has copied
# this one into registers.  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_100a")
def helion_cute_universal_mma_kloop_no_trailing_sync_fixed(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
                                                           n_k: LM.i32):
    lm.assume(n_k > 0)
    pool  = lm.smem(8192)
    sA    = pool.view(offset=0,    shape=(64, 32), dtype=lm.f16, stages=1)
    sB    = pool.view(offset=4096, shape=(64, 32), dtype=lm.f16, stages=1)
    ga    = lm.regs(shape=(16, 32), dtype=lm.f16)
    gb    = lm.regs(shape=(16, 32), dtype=lm.f16)
    ra    = lm.regs(shape=(16, 32), dtype=lm.f16)
    rb    = lm.regs(shape=(64, 32), dtype=lm.f16)
    acc   = lm.regs(shape=(16, 32), dtype=lm.f16)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])

    m0 = lm.block_idx(0) * 64
    n0 = lm.block_idx(1) * 64

    with warps:
        w = lm.instance()
        lm.fill(acc, 0.0)
        for k in lm.range(0, n_k):
            lm.copy(ga, A, coords=(m0 + 16 * w, 32 * k))
            lm.copy(gb, B, coords=(n0 + 16 * w, 32 * k))
            lm.copy(sA[0][16 * w:16 * w + 16, :], ga)                                   # store sA
            lm.copy(sB[0][16 * w:16 * w + 16, :], gb)
            lm.sync(cta)                                                  # sync_threads()
            lm.copy(ra, sA[0][16 * w:16 * w + 16, :])                     # copy SMEM->registers
            lm.copy(rb, sB[0])
            lm.binary(acc, acc, ra, op="add")                             # cute.gemm (registers)
            lm.sync(cta)                                                  # the fix: sync_threads() after cute.gemm
        lm.copy(C, acc, coords=(m0 + 16 * w, n0))
