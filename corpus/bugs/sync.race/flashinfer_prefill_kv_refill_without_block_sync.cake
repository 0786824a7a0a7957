# BUG (sync.race), a mutant of FlashInfer's sm_80 prefill
# (corpus/attention/sm80_flashinfer_prefill_paged_kv.cake, which models
# flashinfer-ai/flashinfer include/flashinfer/attention/prefill.cuh). The
# block.sync() between compute_qk and produce_kv<K> is dropped: each warp
# refills ITS quarter of the single K buffer with tile j+1 as soon as its
# own QK^T is done, while slower warps still read the whole K tile j (every
# warp multiplies its Q rows by all 64 keys). Fixed form: the family file.
# may-also: data.stale-read
# expect: sync.race
@cake.schedule(target="sm_80")
def flashinfer_prefill_paged_kv(lm, Q: LM.gmem, K: LM.gmem, Vt: LM.gmem, O: LM.gmem,
                                kv_len: LM.i32):
    lm.assume(kv_len > 0)
    pool    = lm.smem(49152)
    smem_q  = pool.view(offset=0,     shape=(16, 128), dtype=lm.f16, stages=4)
    smem_kq = pool.view(offset=16384, shape=(16, 128), dtype=lm.f16, stages=4)
    smem_k  = pool.view(offset=16384, shape=(64, 128), dtype=lm.f16, stages=1)
    smem_vq = pool.view(offset=32768, shape=(32, 64),  dtype=lm.f16, stages=4)
    smem_vt = pool.view(offset=32768, shape=(128, 64), dtype=lm.f16, stages=1)
    s   = lm.regs(shape=(16, 64),  dtype=lm.f32)
    mx  = lm.regs(shape=(16, 1),   dtype=lm.f32)
    p   = lm.regs(shape=(16, 64),  dtype=lm.f16)
    o   = lm.regs(shape=(16, 128), dtype=lm.f32)
    out = lm.regs(shape=(16, 128), dtype=lm.f16)

    team = lm.role(warps=[0, 1, 2, 3], group=1)
    blk  = lm.named_barrier(roles=[team])

    kv_tiles = lm.cdiv(kv_len, 64)
    q0 = lm.block_idx(0) * 64

    with team:
        w = lm.instance()
        smem_q.cp_async(Q, coords=(q0 + 16 * w, 0), stage=w)
        lm.cp_async_commit()
        smem_kq.cp_async(K, coords=(16 * w, 0), stage=w)
        lm.cp_async_commit()
        smem_vq.cp_async(Vt, coords=(32 * w, 0), stage=w)
        lm.cp_async_commit()
        lm.fill(o, 0.0)
        for j in lm.range(0, kv_tiles):
            lm.cp_async_wait(pending=1)
            lm.sync(blk)
            lm.mma(s, smem_q[w], smem_k[0], init=True)              # expect-error: sync.race
            lm.reduce(mx, s, op="max", axis=1)
            lm.unary(s, s, op="exp2")
            lm.copy(p, s)
            if j + 1 < kv_tiles:
                smem_kq.cp_async(K, coords=(64 * (j + 1) + 16 * w, 0), stage=w)  # expect-error: sync.race
            lm.cp_async_commit()
            lm.cp_async_wait(pending=1)
            lm.sync(blk)
            lm.mma(o, p, smem_vt[0])
            lm.sync(blk)
            if j + 1 < kv_tiles:
                smem_vq.cp_async(Vt, coords=(32 * w, 64 * (j + 1)), stage=w)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(out, o)
        lm.copy(O, out, coords=(q0 + 16 * w, 0))
