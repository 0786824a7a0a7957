# FIXED form of fbtriton_tlx_addmm_split_commit_groups_wait_one.cake
# (facebookexperimental/triton PR #2058): A and B of a K-tile go into a
# SINGLE commit group, and the drain moves to the loop tail as
# async_load_wait_group(NUM_BUFFERS - 2) = 0, after the next tile's loads
# are issued: with one group per tile the wait counts tiles directly.
# Written on sm_80 with cp.async like the bug.
# expect: pass
@cake.schedule(target="sm_80")
def fbtriton_tlx_addmm_split_commit_groups_wait_one_fixed(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
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
        smem_b.cp_async(B, coords=(n_blk, 0), stage=0)
        lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        for k in lm.range(0, k_tiles):
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            if k + 1 < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, (k + 1) * 32), iter=k + 1)
                smem_b.cp_async(B, coords=(n_blk, (k + 1) * 32), iter=k + 1)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
