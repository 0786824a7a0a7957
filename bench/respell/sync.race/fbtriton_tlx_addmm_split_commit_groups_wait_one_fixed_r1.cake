# RESPELLING of corpus/bugs/sync.race/fbtriton_tlx_addmm_split_commit_groups_wait_one_fixed.cake
# (facebookexperimental/triton TLX addmm): as _r1, one commit group per
# tile (A and B together) and wait-all before the MMA; the tail wait-all
# kept (redundant).
# expect: pass
@cake.schedule(target="sm_80")
def addmm_kernel_fixed(lm, a_ptr: LM.gmem, b_ptr: LM.gmem, c_ptr: LM.gmem, K: LM.i32):
    lm.assume(K >= 1)
    smem = lm.smem(32768)
    bs   = smem.view(offset=16384, shape=(128, 32), dtype=lm.bf16, stages=2, swizzle="64B")
    as_  = smem.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=2, swizzle="64B")
    acc  = lm.regs(shape=(128, 128), dtype=lm.f32)
    c16  = lm.regs(shape=(128, 128), dtype=lm.bf16)
    wg = lm.role(warps=[0, 1, 2, 3])
    k_tiles = (K + 31) // 32
    pid_m = 128 * lm.block_idx(0)
    pid_n = 128 * lm.block_idx(1)
    with wg:
        bs.cp_async(b_ptr, coords=(pid_n, 0), iter=0)
        as_.cp_async(a_ptr, coords=(pid_m, 0), iter=0)
        lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=0)
            lm.mma(acc, as_[k], bs[k], init=(k == 0))
            if k < k_tiles - 1:
                bs.cp_async(b_ptr, coords=(pid_n, 32 * k + 32), iter=k + 1)
                as_.cp_async(a_ptr, coords=(pid_m, 32 * k + 32), iter=k + 1)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(c16, acc)
        lm.copy(c_ptr, c16, coords=(pid_m, pid_n))
