# RESPELLING of corpus/bugs/sync.race/triton_wgmma_pipelined_single_buffered_operand_fixed.cake (the fix: a synchronous dot, wait(0) each tile; the final wait-all kept)
# (triton-lang/triton, fp8 B upcast into a single-buffered wgmma operand):
# the ring as count=3 barriers, the prologue as two guarded loads, the
# tile count as (K + 63) // 64, one fence after the st.shared only (the
# first one, between the ld.shared and the st.shared, orders nothing the
# race needs).
# expect: pass
@cake.schedule(target="sm_90a")
def matmul_fp8_upcast_fixed(lm, a_desc: LM.tma2d, b_desc: LM.tma2d, c_desc: LM.tma2d, K: LM.i32):
    smem  = lm.smem(65536)
    a_s   = smem.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    b8_s  = smem.view(offset=24576, shape=(64, 64), dtype=lm.e4m3, stages=3)
    b16_s = smem.view(offset=40960, shape=(64, 64), dtype=lm.bf16, swizzle="128B")
    c_s   = smem.view(offset=49152, shape=(64, 64), dtype=lm.bf16)
    b_r   = lm.regs(shape=(64, 64), dtype=lm.bf16)
    acc   = lm.regs(shape=(64, 64), dtype=lm.f32)
    wg = lm.role(warps=[0, 1, 2, 3])
    bar = lm.barrier(count=3, prod=[wg], cons=[wg], init_count=1)
    nk = (K + 63) // 64
    om = 64 * lm.block_idx(0)
    on = 64 * lm.block_idx(1)
    with wg:
        if nk >= 1:
            a_s.tma_load(a_desc, coords=(om, 0), iter=0, barrier=bar)
            b8_s.tma_load(b_desc, coords=(on, 0), iter=0, barrier=bar)
        if nk >= 2:
            a_s.tma_load(a_desc, coords=(om, 64), iter=1, barrier=bar)
            b8_s.tma_load(b_desc, coords=(on, 64), iter=1, barrier=bar)
        for k in lm.range(0, nk):
            lm.wait(bar, iter=k)
            lm.copy(b_r, b8_s[k])
            lm.copy(b16_s[0], b_r)
            lm.fence_proxy()
            lm.mma(acc, a_s[k], b16_s[0], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            if k + 2 < nk:
                a_s.tma_load(a_desc, coords=(om, 64 * k + 128), iter=k + 2, barrier=bar)
                b8_s.tma_load(b_desc, coords=(on, 64 * k + 128), iter=k + 2, barrier=bar)
        lm.mma_wait(pending=0)
        lm.copy(c_s[0], acc)
        lm.fence_proxy()
        c_s.tma_store(c_desc, coords=(om, on), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
