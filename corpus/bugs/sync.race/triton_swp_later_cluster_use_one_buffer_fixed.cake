# FIXED: triton_swp_later_cluster_use_one_buffer.cake as triton-lang/
# triton PR #8139 fixes it: getDefUseStageDiff counts a use that lands in a
# later cluster than its load one stage further ("extra buffer due to
# unusual execution order"), so the load of out_idx gets two buffers
# (ttg.local_alloc 2x1xi32).  The copy of i + 1 then goes to the other
# buffer while the local_load of i reads its own, and the copy of i + 2
# that reuses that buffer is issued only in the next iteration, after the
# read (Triton's membar orders the warps there).  The 4-byte slots take
# 4-byte cp.async chunks (cp.async.ca 4).
# expect: pass
@cake.schedule(target="sm_90a")
def triton_swp_later_cluster_use_extra_buffer(lm, Idx: LM.gmem, Out: LM.gmem, N: LM.i32):
    lm.assume(N > 0)
    pool = lm.smem(128)
    idx  = pool.view(offset=0, shape=(1, 1), dtype=lm.i32, stages=2)
    v    = lm.regs(shape=(1, 1), dtype=lm.i32)

    cta = lm.role(warps=[0, 1, 2, 3])

    with cta:
        idx.cp_async(Idx, coords=(0, 0), iter=0)            # prologue: stage 0 of i = 0
        lm.cp_async_commit()
        for i in lm.range(0, N):
            if i + 1 < N:
                idx.cp_async(Idx, coords=(0, i + 1), iter=i + 1)   # stage 0 of i + 1
            lm.cp_async_commit()
            lm.cp_async_wait(pending=1)                     # the group of i is done
            lm.copy(v, idx[i])                              # epilogue cluster: local_load of i
            lm.copy(Out, v, coords=(0, i))                  # tl.store
        lm.cp_async_wait(pending=0)
