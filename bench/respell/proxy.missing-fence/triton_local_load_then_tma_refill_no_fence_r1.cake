# RESPELLING of corpus/bugs/proxy.missing-fence/triton_local_load_then_tma_refill_no_fence.cake
# (triton-lang/triton PR #7262): k tiles as (K + 63) // 64, the prologue
# bounded by min(2, k_tiles), the refill guard spelled `k < k_tiles - 2`,
# the B load before the A load, the assumption as `not K < 128`.
# expect: proxy.missing-fence
@cake.schedule(target="sm_90a")
def matmul_kernel(lm, a_desc: LM.tma2d, b_desc: LM.tma2d, c_desc: LM.tma2d, K: LM.i32):
    lm.assume(not K < 128)
    smem = lm.smem(65536)
    a_s  = smem.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    b_s  = smem.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    c_s  = smem.view(offset=32768, shape=(64, 64), dtype=lm.bf16)
    a_r  = lm.regs(shape=(64, 64), dtype=lm.bf16)
    c_r  = lm.regs(shape=(64, 64), dtype=lm.f32)
    warpgroup = lm.role(warps=[0, 1, 2, 3])
    ready = lm.barrier(count=2, prod=[warpgroup], cons=[warpgroup], init_count=1)
    n_k = (K + 63) // 64
    off_m = 64 * lm.block_idx(0)
    off_n = 64 * lm.block_idx(1)
    with warpgroup:
        for p in lm.range(0, min(2, n_k)):
            b_s.tma_load(b_desc, coords=(off_n, 64 * p), iter=p, barrier=ready)
            a_s.tma_load(a_desc, coords=(off_m, 64 * p), iter=p, barrier=ready)
        for k in lm.range(0, n_k):
            lm.wait(ready, iter=k)
            lm.copy(a_r, a_s[k])
            lm.mma(c_r, a_r, b_s[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            if k < n_k - 2:
                b_s.tma_load(b_desc, coords=(off_n, 64 * (k + 2)), iter=k + 2, barrier=ready)
                a_s.tma_load(a_desc, coords=(off_m, 64 * (k + 2)), iter=k + 2, barrier=ready)  # expect-error: proxy.missing-fence
        lm.copy(c_s[0], c_r)
        lm.fence_proxy()
        c_s.tma_store(c_desc, coords=(off_m, off_n), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
