# BUG (sync.race): facebookexperimental/triton PR #2058 "[TLX][AMD] Fix
# warp-pipe addmm RAW race in async_load pipeline (unblocks all shapes)"
# (2026-07-16).  The TLX addmm template committed A and B as two separate
# async_load_commit_groups per K-tile, and its drain (the wait_group) sat
# before the prefetch commits, counting one group per tile: "the oldest
# pending groups are exactly next_buf's A and B loads - the tile the loop
# is about to local_load and feed to the MFMA - so for the winning
# NUM_BUFFERS=2 config the barrier left next_buf's own loads in flight and
# local_load(next_buf) read a half-filled LDS buffer" (about a third of
# the output tiles garbage on large GEMMs).
# The template targets gfx950, whose TLX async_load/commit_group/
# wait_group follow cp.async's group semantics exactly; written here on
# sm_80 with cp.async (the checker has no AMD target).  Modelled: one
# 4-warp role, 2 buffers, the wait count NUM_BUFFERS - 1 = 1 (one tile in
# flight) while each tile is two groups, so the wait retires A(k) and
# leaves B(k) in flight under the MMA that reads it; the pipeline drains
# before the epilogue.
# Fix: fbtriton_tlx_addmm_split_commit_groups_wait_one_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_80")
def fbtriton_tlx_addmm_split_commit_groups_wait_one(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
                                                   M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(32768)
    smem_a = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=2, swizzle="64B")
    smem_b = pool.view(offset=16384, shape=(128, 32), dtype=lm.bf16, stages=2, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    mainloop = lm.role(warps=[0, 1, 2, 3])

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with mainloop:
        smem_a.cp_async(A, coords=(m_blk, 0), stage=0)
        lm.cp_async_commit()
        smem_b.cp_async(B, coords=(n_blk, 0), stage=0)
        lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=1)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))        # expect-error: sync.race
            if k + 1 < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, (k + 1) * 32), iter=k + 1)
                lm.cp_async_commit()
                smem_b.cp_async(B, coords=(n_blk, (k + 1) * 32), iter=k + 1)
                lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
