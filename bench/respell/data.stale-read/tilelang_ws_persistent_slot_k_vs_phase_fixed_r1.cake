# RESPELLING of corpus/bugs/data.stale-read/tilelang_ws_persistent_slot_k_vs_phase_fixed.cake (the fix: slot and release by the flat iteration)
# (tile-ai/tilelang PR #2441): the producer's k loop over the flat
# iteration range [w * kb, (w + 1) * kb), the MMA warp's ring waits with
# stage=it % 4 and implicit phases, the operands and the release
# indexed by it % 4 (the fix), the tile count per CTA as a
# max(0, ...) inside lm.cdiv, the assumptions as one conjunction.
# expect: pass
@cake.schedule(target="sm_100a")
def ws_persistent_gemm_fixed(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0 and N > 0 and K > 0)
    smem = lm.smem(163840)
    a_s  = smem.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    b_s  = smem.view(offset=65536,  shape=(128, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    c_s  = smem.view(offset=131072, shape=(128, 128), dtype=lm.bf16)
    c_t  = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    c_r  = lm.regs(shape=(128, 128), dtype=lm.f32)
    producer = lm.role(warps=[0])
    issuer   = lm.role(warps=[1])
    epilogue = lm.role(warps=[4, 5, 6, 7])
    full   = lm.barrier(count=4, prod=[producer], cons=[issuer], init_count=1)
    empty  = lm.barrier(count=4, prod=[issuer], cons=[producer], init_count=1)
    tfull  = lm.barrier(count=1, prod=[issuer], cons=[epilogue], init_count=1)
    tempty = lm.barrier(count=1, prod=[epilogue], cons=[issuer], init_count=1)
    kb = (K + 63) // 64
    tm = (M + 127) // 128
    tiles = tm * ((N + 127) // 128)
    bid = lm.block_idx(0)
    grid = lm.grid_dim(0)
    mine = lm.cdiv(max(0, tiles - bid), grid)
    with producer:
        for w in lm.range(0, mine):
            t = bid + grid * w
            for it in lm.range(w * kb, (w + 1) * kb):
                k = it - w * kb
                lm.wait(empty, iter=it - 4)
                a_s.tma_load(A, coords=(128 * (t % tm), 64 * k), iter=it, barrier=full)
                b_s.tma_load(B, coords=(128 * (t // tm), 64 * k), iter=it, barrier=full)
    with issuer:
        for w in lm.range(0, mine):
            if w >= 1:
                lm.wait(tempty, stage=0)
            for k in lm.range(0, kb):
                it = kb * w + k
                lm.wait(full, stage=it % 4)
                lm.mma(c_t, a_s[it % 4], b_s[it % 4], init=(k == 0))
                lm.mma_commit(barrier=empty, stage=it % 4)
            lm.mma_commit(barrier=tfull, stage=0)
    with epilogue:
        for w in lm.range(0, mine):
            t = bid + grid * w
            lm.wait(tfull, stage=0)
            lm.copy(c_r, c_t)
            lm.arrive(tempty, stage=0)
            lm.tma_store_wait(pending=0)
            lm.copy(c_s[0], c_r)
            lm.fence_proxy()
            c_s.tma_store(C, coords=(128 * (t % tm), 128 * (t // tm)), stage=0)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
