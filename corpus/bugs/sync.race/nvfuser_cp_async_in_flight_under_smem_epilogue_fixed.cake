# FIXED form of nvfuser_cp_async_in_flight_under_smem_epilogue.cake
# (NVIDIA/Fuser PR #2008, issue #2000): `cp.async.wait_group 0` right after
# the circular-buffer main loop drains the zero-filling loads past the last
# k-block before the smem epilogue reuses the operand buffers.
# expect: pass
@cake.schedule(target="sm_80")
def nvfuser_cp_async_drained_before_smem_epilogue_fixed(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
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
            smem_a.cp_async(A, coords=(m_blk, (i + 2) * 32), iter=i + 2)
            smem_b.cp_async(B, coords=(n_blk, (i + 2) * 32), iter=i + 2)
            lm.mma(acc, smem_a[i], smem_b[i], init=(i == 0))
            lm.cp_async_commit()
            lm.cp_async_wait(pending=1)                     # wait D-2
        lm.cp_async_wait(pending=0)                         # the fix (PR #2008): drain
        lm.copy(out, acc)
        lm.copy(smem_c[0], out)
        lm.copy(out, smem_c[0])
        lm.copy(C, out, coords=(m_blk, n_blk))
