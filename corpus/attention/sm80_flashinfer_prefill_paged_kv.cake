# FlashInfer single-request prefill attention, sm_80 cp.async path
# (flashinfer-ai/flashinfer, include/flashinfer/attention/prefill.cuh,
# SinglePrefillWithKVCacheKernel / BatchPrefillWithPagedKVCacheKernel,
# v0.2.x; NUM_MMA_Q = 1, 4 warps along Q, CTA_TILE_Q = 64, a 64-token KV
# tile, head_dim 128, one smem stage for K and one for V).
#  * Each warp is its own instance (group=1): cp.async groups are per
#    thread, so every warp commits and waits its own groups, and the
#    block.sync()s are the named barrier `blk`.
#  * Group order: Q, K_0, V_0, then per KV tile K_{j+1}, V_{j+1}. Before
#    compute_qk: cp_async::wait_group<1>() (all but V_j retired) and
#    block.sync() (every warp's quarter of K_j has landed); after it a
#    block.sync() before produce_kv<K> overwrites K with tile j+1; the same
#    for V around compute_sfm_v.
#  * produce_kv: each warp copies a quarter of the KV tile (one 16-token
#    page of page_size 16 for K). The page table lookup is replaced by a
#    contiguous page index (the checks do not depend on addresses).
# Reductions: V is read as a pre-transposed tensor Vt (FlashInfer uses
# ldmatrix.trans on row-major V; the IR's mma takes B as [N, K]); the online
# softmax is one max/exp2/sum step without the rescale of O; no causal mask.
# smem: Q 16K + K 16K + Vt 16K = 48 KiB.
# expect: pass
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
            lm.mma(s, smem_q[w], smem_k[0], init=True)
            lm.reduce(mx, s, op="max", axis=1)
            lm.unary(s, s, op="exp2")
            lm.copy(p, s)
            lm.sync(blk)
            if j + 1 < kv_tiles:
                smem_kq.cp_async(K, coords=(64 * (j + 1) + 16 * w, 0), stage=w)
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
