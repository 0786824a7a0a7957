# RESPELLING of corpus/bugs/sync.race/triton_wgmma_pipelined_single_buffered_operand_fixed.cake
# (triton-lang/triton): another fix an engineer would write - keep one
# wgmma in flight but double-buffer the upcast operand (slot k % 2): the
# wait(pending=1) before writing slot k % 2 again retires the wgmma of
# tile k - 2 that read it.
# expect: pass
@cake.schedule(target="sm_90a")
def matmul_fp8_upcast_double_buffered(lm, a_desc: LM.tma2d, b_desc: LM.tma2d, c_desc: LM.tma2d, K: LM.i32):
    smem  = lm.smem(65536)
    a_s   = smem.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    b8_s  = smem.view(offset=24576, shape=(64, 64), dtype=lm.e4m3, stages=3)
    b16_s = smem.view(offset=40960, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    c_s   = smem.view(offset=57344, shape=(64, 64), dtype=lm.bf16)
    b_r   = lm.regs(shape=(64, 64), dtype=lm.bf16)
    acc   = lm.regs(shape=(64, 64), dtype=lm.f32)
    wg = lm.role(warps=[0, 1, 2, 3])
    ring = lm.pipeline(stages=3)
    bar = lm.barrier(prod=[wg], cons=[wg], init_count=1, pipeline=ring)
    nk = lm.cdiv(K, 64)
    om = 64 * lm.block_idx(0)
    on = 64 * lm.block_idx(1)
    with wg:
        for k in lm.range(0, min(2, nk)):
            a_s.tma_load(a_desc, coords=(om, 64 * k), iter=k, barrier=bar)
            b8_s.tma_load(b_desc, coords=(on, 64 * k), iter=k, barrier=bar)
        for k in lm.range(0, nk):
            lm.wait(bar, iter=k)
            lm.copy(b_r, b8_s[k])
            lm.copy(b16_s[k], b_r)
            lm.fence_proxy()
            lm.mma(acc, a_s[k], b16_s[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=1)
            if k + 2 < nk:
                a_s.tma_load(a_desc, coords=(om, 64 * (k + 2)), iter=k + 2, barrier=bar)
                b8_s.tma_load(b_desc, coords=(on, 64 * (k + 2)), iter=k + 2, barrier=bar)
        lm.mma_wait(pending=0)
        lm.copy(c_s[0], acc)
        lm.fence_proxy()
        c_s.tma_store(c_desc, coords=(om, on), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
