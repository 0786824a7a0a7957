# BUG (sync.race): ROCm/rocm-libraries PR #4742 ("[CK_TILE] Fix FMHA async
# pipeline LDS sync issue", merged 2026-02-20).  In CK_TILE's
# BlockFmhaPipelineQRKSVSAsync (block_fmha_pipeline_qr_ks_vs_async.hpp) the
# K and V tiles rotate through the same LDS buffers (the LdsSeq schedule):
# K sub-tile i lives in buffer LdsSeq[i], V sub-tile i in LdsSeq[k0_loops + i].
# After the tail gemm_0 (S += Q * K[k0_loops - 1]) a fast wave goes on to
# store its part of V sub-tile 0 to LDS; when LdsSeq[k0_loops - 1] ==
# LdsSeq[k0_loops] that is the buffer the slow waves are still reading K
# from in their tail gemm_0 ("the V tile store to LDS overwrites K tile data
# that is still being read by other threads during the tail gemm_0";
# attention tests failed intermittently).  The PR adds an s_barrier after
# the tail gemm_0 when the two sequence entries name the same buffer (the
# MFMA waits for its own ds_reads, so only the cross-wave barrier is
# missing).
# Written in CAKE IR as an sm_80 schedule: each wave is a one-warp instance
# (group=1) owning 32 of the 128 query rows; the work-group s_barrier is a
# named barrier over the role.  Scaled: kN0 = 64 keys, hdim 64, k0_loops =
# k1_loops = 2 sub-tiles of 32, two 64x32 LDS buffers with LdsSeq = [0, 1,
# 1, 0] (K0 -> 0, K1 -> 1, V0 -> 1, V1 -> 0).  K arrives by the async
# direct-to-LDS load (buffer_load ... lds, written as cp.async: each wave
# loads its 16-row band through a 16x32 view joined to the buffers'
# union), V through registers and ds_write (lm.copy).
# Left out: the mask, the real softmax (a copy of S, column halves, stands for P), the
# bias and LSE paths, the dropout.
# Fix: ck_tile_fmha_async_tail_gemm0_v_store_same_lds_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def ck_tile_fmha_async_tail_gemm0_v_store_same_lds(lm, Q: LM.gmem, K: LM.gmem, Vt: LM.gmem,
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
            lm.mma(s, q1, lds[1], init=False)                          # expect-error: sync.race
            # (the fix's s_barrier belongs here: LdsSeq[1] == LdsSeq[2])
            lm.copy(p0, s[:, 0:32])
            lm.copy(p1, s[:, 32:64])
            # V sub-tile 0 -> LdsSeq[2] = 1, over the K sub-tile 1 still read above
            lm.copy(v, Vt, coords=(r0, j * 64))
            lm.copy(lds[1][r0:r0 + 16, :], v)                          # expect-error: sync.race
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
