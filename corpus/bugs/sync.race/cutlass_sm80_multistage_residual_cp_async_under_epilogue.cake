# BUG (sync.race): NVIDIA/cutlass issue #1326 ("random error with
# sm80_mma_multistage and sm70_epilogue_vectorized", 2024-02-01),
# confirmed by a maintainer ("this is a legit bug that I found myself a
# few weeks ago as well ... the fix is to insert cp_async_wait<0>();
# __syncthreads(); at the end of the mainloop", fixed in CUTLASS 3.5).
# CUTLASS 3's MainloopSm80CpAsync (collective/sm80_mma_multistage.hpp)
# keeps issuing the predicated cp.async copy of k-tile k + Stages - 1
# every iteration and waits only cp_async_wait<Stages - 2>() before the
# next; after the last k-tile, Stages - 2 commit groups (the residue
# copies) are still in flight, and the rows the other warps' ldmatrix
# reads of the last stage may still be pending.  The kernel's
# SharedStorage is a union of the mainloop's A/B stages and the
# epilogue's staging tile, so sm70_epilogue_vectorized's st.shared of the
# accumulators into smem can be overwritten by a late cp.async and can
# overwrite a stage another warp is still reading ("random results";
# correct with cp_async_wait<0>() and __syncthreads() after the mainloop).
# Modelled: Stages = 3, a 128x128x32 CTA tile, 2x2 warps of 64x64 (each
# warp its own instance); every thread copies its own part of the A and B
# stage (here: warp w the rows 32w..32w+31 of each, through a finer view
# of 32-row quarters, slot 4 * stage + w), waits its own groups, and
# __syncthreads() makes the stage visible to the other warps' ldmatrix;
# the copies are unguarded (a predicated-off zero-fill still writes the
# slot).  The epilogue tile (128x128 bf16) at offset 0 covers the three A
# stages and B's first.  Left out: the register double buffering of the
# fragments, the swizzle, the epilogue's thread-block-level layout change.
# Fix: cutlass_sm80_multistage_residual_cp_async_under_epilogue_fixed.cake.
# expect: sync.race
# may-also: data.stale-read sync.async-at-exit
@cake.schedule(target="sm_80")
def cutlass_sm80_multistage_residual_cp_async_under_epilogue(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool    = lm.smem(49152)
    smem_a  = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=3)
    smem_b  = pool.view(offset=24576, shape=(128, 32), dtype=lm.bf16, stages=3)
    smem_aq = pool.view(offset=0,     shape=(32, 32),  dtype=lm.bf16, stages=12)   # quarter w of A stage s: slot 4s + w
    smem_bq = pool.view(offset=24576, shape=(32, 32),  dtype=lm.bf16, stages=12)
    smem_c  = pool.view(offset=0,     shape=(128, 128), dtype=lm.bf16, stages=1)   # epilogue staging (the union)
    acc     = lm.regs(shape=(64, 64), dtype=lm.f32)
    out     = lm.regs(shape=(64, 64), dtype=lm.bf16)
    row     = lm.regs(shape=(32, 64), dtype=lm.bf16)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with warps:
        w  = lm.instance()
        wm = 64 * (w // 2)
        wn = 64 * (w % 2)
        for s in lm.range(0, 2):                                   # prologue: Stages - 1 k-tiles
            smem_aq.cp_async(A, coords=(m_blk + 32 * w, s * 32), stage=4 * s + w)
            smem_bq.cp_async(B, coords=(n_blk + 32 * w, s * 32), stage=4 * s + w)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=1)                                # cp_async_wait<Stages - 2>
        lm.sync(cta)
        for k in lm.range(0, k_tiles):
            smem_aq.cp_async(A, coords=(m_blk + 32 * w, (k + 2) * 32), stage=4 * ((k + 2) % 3) + w)   # expect-error: sync.race
            smem_bq.cp_async(B, coords=(n_blk + 32 * w, (k + 2) * 32), stage=4 * ((k + 2) % 3) + w)   # expect-error: sync.race
            lm.cp_async_commit()
            lm.mma(acc, smem_a[k][wm:wm + 64, :], smem_b[k][wn:wn + 64, :], init=(k == 0))          # expect-error: sync.race
            lm.cp_async_wait(pending=1)                            # cp_async_wait<Stages - 2>
            lm.sync(cta)
        # BUG: no cp_async_wait<0>(); __syncthreads(); before the epilogue reuses the union
        lm.copy(out, acc)
        lm.copy(smem_c[0][wm:wm + 64, wn:wn + 64], out)            # expect-error: sync.race
        lm.sync(cta)
        for h in lm.range(0, 2):                                   # vectorized read-back, global store
            lm.copy(row, smem_c[0][32 * w:32 * w + 32, 64 * h:64 * h + 64])
            lm.copy(C, row, coords=(m_blk + 32 * w, n_blk + 64 * h))
