# BUG (sync.race): NVIDIA/Fuser issue #2000 ("Matmul circular buffering
# interferes with epilogue smem reuse", 2024-03-26), fixed by PR #2008
# ("Drain cp.async jobs after main loop"; #2001 was a first work-around).
# nvFuser lowered a circular-buffered (D stages) cp.async operand as: a
# prologue of D-1 predicated loads, each committed; a main loop whose
# iteration i issues the predicated load of k-block i+D-1 into slot
# (i+D-1) % D, reads slot i % D, commits and waits `cp.async.wait_group
# D-2`.  Past the last k-block the predicated loads still run (they
# zero-fill their slot) and are committed, and after the main loop D-2
# groups are still in flight - never waited.  With the smem epilogue
# (use_smem_epilogue) the output tile reuses the operand buffers' shared
# memory, so those zero-fills land in the epilogue tile after the warps
# wrote it (about 10 wrong values per million; racecheck flags the
# circular-buffer cp.async).  The fix places `cp.async.wait_group 0`
# right after every circular-buffer main loop, as CUTLASS's
# mma_multistage does.
# Modelled: D = 3 (stages:3), a 128x128x32 tile, the four warps of one
# instance (mma.sync is synchronous on sm_80; lowering syncs the instance's
# warps after a cp.async wait); A and B each one cp.async per k-block,
# unguarded (the zero-fill past the end is still a write of the slot); the
# epilogue tile (128x128 bf16) at offset 0 covers the three A slots and B's
# slot 0.  Left out: split-K, the swizzle, the predicates' zero source.
# Fix: nvfuser_cp_async_in_flight_under_smem_epilogue_fixed.cake.
# expect: sync.race
# may-also: data.stale-read sync.async-at-exit
@cake.schedule(target="sm_80")
def nvfuser_cp_async_in_flight_under_smem_epilogue(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(49152)
    smem_a = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=3)
    smem_b = pool.view(offset=24576, shape=(128, 32), dtype=lm.bf16, stages=3)
    smem_c = pool.view(offset=0,     shape=(128, 128), dtype=lm.bf16, stages=1)   # smem epilogue (reuse)
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    mainloop = lm.role(warps=[0, 1, 2, 3])

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with mainloop:
        for s in lm.range(0, 2):                            # prologue: D-1 predicated loads
            smem_a.cp_async(A, coords=(m_blk, s * 32), iter=s)
            smem_b.cp_async(B, coords=(n_blk, s * 32), iter=s)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=1)                         # wait D-2
        for i in lm.range(0, k_tiles):
            smem_a.cp_async(A, coords=(m_blk, (i + 2) * 32), iter=i + 2)   # expect-error: sync.race
            smem_b.cp_async(B, coords=(n_blk, (i + 2) * 32), iter=i + 2)   # expect-error: sync.race
            lm.mma(acc, smem_a[i], smem_b[i], init=(i == 0))
            lm.cp_async_commit()
            lm.cp_async_wait(pending=1)                     # wait D-2
        # BUG: no cp.async.wait_group 0 before the smem epilogue reuses the buffers
        lm.copy(out, acc)
        lm.copy(smem_c[0], out)                             # expect-error: sync.race
        lm.copy(out, smem_c[0])
        lm.copy(C, out, coords=(m_blk, n_blk))
