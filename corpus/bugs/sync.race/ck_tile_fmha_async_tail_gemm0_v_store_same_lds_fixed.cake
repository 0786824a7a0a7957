# FIXED: ROCm/rocm-libraries PR #4742 ("[CK_TILE] Fix FMHA async pipeline
# LDS sync issue"): the twin of
# ck_tile_fmha_async_tail_gemm0_v_store_same_lds.cake with the PR's
# s_barrier after the tail gemm_0, emitted because LdsSeq[k0_loops - 1] ==
# LdsSeq[k0_loops] (the first V sub-tile reuses the last K sub-tile's LDS
# buffer):
#     if constexpr(LdsSeq.at(number<k0_loops - 1>{}) == LdsSeq.at(number<k0_loops>{}))
#         __builtin_amdgcn_s_barrier();
# Every wave now finishes reading K sub-tile 1 before any wave stores its
# band of V sub-tile 0 over it.  Same model and scaling as the broken twin.
# expect: pass
@cake.schedule(target="sm_80")
def ck_tile_fmha_async_tail_gemm0_v_store_same_lds_fixed(lm, Q: LM.gmem, K: LM.gmem, Vt: LM.gmem,
                                                         O: LM.gmem, seqlen_k: LM.i32):
    lm.assume(seqlen_k > 0)
    pool = lm.smem(8192)
    lds  = pool.view(offset=0, shape=(64, 32), dtype=lm.f16, stages=2)   # LdsSeq buffers 0, 1
    band = pool.view(offset=0, shape=(16, 32), dtype=lm.f16, stages=8, union=lds)   # band w of buffer b: slot 4b + w
    q0   = lm.regs(shape=(32, 32), dtype=lm.f16)
    q1   = lm.regs(shape=(32, 32), dtype=lm.f16)
    s    = lm.regs(shape=(32, 64), dtype=lm.f32)
    p0   = lm.regs(shape=(32, 32), dtype=lm.f16)
    p1   = lm.regs(shape=(32, 32), dtype=lm.f16)
    v    = lm.regs(shape=(16, 32), dtype=lm.f16)
    o    = lm.regs(shape=(32, 64), dtype=lm.f32)
    ob   = lm.regs(shape=(32, 64), dtype=lm.f16)

    waves = lm.role(warps=[0, 1, 2, 3], group=1)
    wg    = lm.named_barrier(roles=[waves])

    with waves:
        w  = lm.instance()
        m0 = lm.block_idx(0) * 128 + 32 * w
        r0 = 16 * w
        lm.copy(q0, Q, coords=(m0, 0))
        lm.copy(q1, Q, coords=(m0, 32))
        lm.fill(o, 0.0)
        for j in lm.range(0, lm.cdiv(seqlen_k, 64)):
            # K sub-tile 0 -> LdsSeq[0] = 0, each wave its band
            band.cp_async(K, coords=(j * 64 + r0, 0), stage=w)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.sync(wg)
            # prefetch K sub-tile 1 -> LdsSeq[1] = 1 while gemm_0 runs on 0
            band.cp_async(K, coords=(j * 64 + r0, 32), stage=4 + w)
            lm.cp_async_commit()
            lm.mma(s, q0, lds[0], init=True)
            lm.cp_async_wait(pending=0)
            lm.sync(wg)
            lm.mma(s, q1, lds[1], init=False)
            lm.sync(wg)   # the fix: LdsSeq[k0_loops - 1] == LdsSeq[k0_loops]
            lm.copy(p0, s[:, 0:32])
            lm.copy(p1, s[:, 32:64])
            # V sub-tile 0 -> LdsSeq[2] = 1, over the K sub-tile 1 still read above
            lm.copy(v, Vt, coords=(r0, j * 64))
            lm.copy(lds[1][r0:r0 + 16, :], v)
            lm.sync(wg)
            lm.mma(o, p0, lds[1], init=False)
            # V sub-tile 1 -> LdsSeq[3] = 0 (its K reads ended before the tail barrier)
            lm.copy(v, Vt, coords=(r0, j * 64 + 32))
            lm.copy(lds[0][r0:r0 + 16, :], v)
            lm.sync(wg)
            lm.mma(o, p1, lds[0], init=False)
            lm.sync(wg)
        lm.copy(ob, o)
        lm.copy(O, ob, coords=(m0, 0))
