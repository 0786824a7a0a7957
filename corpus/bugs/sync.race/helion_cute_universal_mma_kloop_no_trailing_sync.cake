# BUG (sync.race): pytorch/helion PR #2975 ("[cute] Fix SMEM write-after-read
# race in universal-MMA K-loop", yushangdi, opened 2026-06-30, merged).  Helion's
# CuTe DSL backend, _emit_mma_pipeline, universal-MMA branch: each K
# iteration
#     store sA / sB  ->  sync_threads()  ->  copy SMEM->registers  ->  cute.gemm
# with no trailing barrier, so a thread that finishes its gemm early stores
# the next K tile into sA / sB while a sibling thread still copies this
# one into registers (the `warp` and `tcgen05` paths already ended with a
# sync).  It showed as nondeterministic mismatches (264..725 elements) on
# the cute-b200 CI job for the n_axis_lane variant, first blamed on a CuTe
# DSL regression.  Fix: cute.arch.sync_threads() after cute.gemm.
# Modelled: 128 threads as four one-warp instances (sync_threads() is a
# named barrier over all four), a 64x64 output tile, K tiles of 32; warp w
# stores rows [16w, 16w+16) of sA and sB (its share of the block-wide copy)
# and reads its own 16 rows of sA but all 64 rows of sB (the N extent of
# its MMA partition).  The universal (FMA) gemm works on registers: a
# register-only stand-in (lm.binary) after the SMEM->register copies.
# Left out: masking, the epilogue's conversion.
# Fix: helion_cute_universal_mma_kloop_no_trailing_sync_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_100a")
def helion_cute_universal_mma_kloop_no_trailing_sync(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
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
            lm.copy(sB[0][16 * w:16 * w + 16, :], gb)                                   # expect-error: sync.race
            lm.sync(cta)                                                  # sync_threads()
            lm.copy(ra, sA[0][16 * w:16 * w + 16, :])                     # copy SMEM->registers
            lm.copy(rb, sB[0])                                                          # expect-error: sync.race
            lm.binary(acc, acc, ra, op="add")                             # cute.gemm (registers)
            # (BUG) no sync_threads() before the next K tile's stores
        lm.copy(C, acc, coords=(m0 + 16 * w, n0))
