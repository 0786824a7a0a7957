# BUG (layout.view-outside-pool, sync.race): FlashInfer's FA2 single-request decode
# (include/flashinfer/attention/decode.cuh, SingleDecodeWithKVCacheKernel)
# with an FP8 KV cache, a GQA group and num_stages_smem = 1, as fixed by
# flashinfer-ai/flashinfer PR #5038 ("fix(decode): reserve max(K+V, st.o)
# smem for FA2 FP8+GQA decode", issue #5030).
# The kernel places smem_md right after a K+V region of
# 2 * num_stages_smem * bdy * tile_size_per_bdx * bdz * head_dim *
# sizeof(DTypeKV) bytes, and the launcher allocates exactly that plus
# 2 * bdy * bdz floats.  sync_state (bdz > 1) then reuses the K+V region as
# float storage for every warp's partial o: bdz * bdy * head_dim * 4 bytes.
# With 1-byte KV, tile_size_per_bdx = 1 (GQA) and one stage (SM75) that is
# twice the K+V region: st.o overwrites smem_md (warp 2's o store and
# warp 0's md store hit the same bytes before the block.sync) and runs past
# the allocation (the PR reports an illegal shared-memory write and a crash).
# Shapes: head_dim 128, GQA group bdy = 4 (vec_size 16, bdx 8: one warp
# per tz), bdz = 4 warps, 16 keys per iteration: K and V rings of one stage
# (4 rows of 128 e4m3 per warp), smem_md at 4096, a pool of 4096 + 128
# bytes; st.o needs 4 x (4 x 128) floats = 8192 bytes from offset 0.
# Modelled on sm_80 (the IR has no SM75 target) with SM75's stage count;
# the loop and sync_state otherwise as
# corpus/attention/sm80_flashinfer_decode_kv_groups.cake (score and output
# arithmetic reduced to reductions of the tiles).
# Fix: flashinfer_decode_fp8_gqa_sync_state_over_md_fixed.cake (the K+V
# region reserves max(K+V, st.o) bytes).
# expect: layout.view-outside-pool
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def flashinfer_decode_fp8_gqa_one_stage(lm, Q: LM.gmem, K: LM.gmem, V: LM.gmem, O: LM.gmem, LSE: LM.gmem,
                                        L: LM.i32):
    lm.assume(L > 0)
    pool    = lm.smem(4224)
    smem_k  = pool.view(offset=0,    shape=(4, 128), dtype=lm.e4m3, stages=4)
    smem_v  = pool.view(offset=2048, shape=(4, 128), dtype=lm.e4m3, stages=4)
    smem_md = pool.view(offset=4096, shape=(4, 2),   dtype=lm.f32,  stages=4)
    smem_o  = pool.view(offset=0,    shape=(4, 128), dtype=lm.f32,  stages=4)   # expect-error: layout.view-outside-pool
    q    = lm.regs(shape=(4, 128), dtype=lm.f32)
    kt   = lm.regs(shape=(4, 128), dtype=lm.f32)
    vt   = lm.regs(shape=(4, 128), dtype=lm.f32)
    s    = lm.regs(shape=(4, 1),   dtype=lm.f32)
    o    = lm.regs(shape=(4, 128), dtype=lm.f32)
    md   = lm.regs(shape=(4, 2),   dtype=lm.f32)
    oth  = lm.regs(shape=(4, 128), dtype=lm.f32)
    mdo  = lm.regs(shape=(4, 2),   dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    n_tiles = lm.cdiv(L, 16)
    kv_head = lm.block_idx(1)

    with warps:
        w = lm.instance()
        lm.copy(q, Q, coords=(4 * kv_head, 0))
        lm.sync(block)
        smem_k.cp_async(K, coords=(4 * w, kv_head, 0), iter=w)   # preload the one stage
        lm.cp_async_commit()
        smem_v.cp_async(V, coords=(4 * w, kv_head, 0), iter=w)
        lm.cp_async_commit()
        lm.fill(o, 0.0)
        lm.fill(md, 0.0)
        for it in lm.range(0, n_tiles):
            lm.cp_async_wait(pending=1)             # wait_group<2 * 1 - 1>: K of tile it
            lm.sync(block)
            lm.copy(kt, smem_k[w])                  # compute_qk
            lm.reduce(s, kt, op="sum", axis=1)
            lm.sync(block)
            if it + 1 < n_tiles:
                smem_k.cp_async(K, coords=(16 * (it + 1) + 4 * w, kv_head, 0), iter=w)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=1)             # V of tile it
            lm.sync(block)
            lm.copy(vt, smem_v[w])                  # update_local_state
            lm.binary(oth, vt, s, op="mul")
            lm.binary(o, o, oth, op="add")
            lm.sync(block)
            if it + 1 < n_tiles:
                smem_v.cp_async(V, coords=(16 * (it + 1) + 4 * w, kv_head, 0), iter=w)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.sync(block)
        lm.copy(smem_o[w], o)                       # expect-error: sync.race
        lm.copy(smem_md[w], md)                     # expect-error: sync.race
        lm.sync(block)
        lm.fill(o, 0.0)
        for j in lm.range(0, 4):
            lm.copy(mdo, smem_md[j])
            lm.copy(oth, smem_o[j])
            lm.binary(o, o, oth, op="add")
        lm.copy(O, o, coords=(lm.block_idx(0), 4 * kv_head, 0))
        lm.copy(LSE, mdo, coords=(lm.block_idx(0), 4 * kv_head, 0))
