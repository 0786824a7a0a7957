# FIXED: flashinfer_decode_fp8_gqa_sync_state_over_md.cake as
# flashinfer-ai/flashinfer PR #5038 fixes it: the K+V region reserves
# max(K+V data, st.o floats) bytes, in the kernel's smem layout (smem_md
# after it) and in the launcher's smem_size.  With FP8, GQA and one stage
# that is 8192 bytes: K and V still use the first 4096, sync_state's
# partial o of the four warps fills all 8192 after the loop's
# wait_group<0> + block.sync, and smem_md sits at 8192, past it.
# Shapes and modelling as the broken form (sm_80 with SM75's stage count).
# expect: pass
@cake.schedule(target="sm_80")
def flashinfer_decode_fp8_gqa_one_stage_max_region(lm, Q: LM.gmem, K: LM.gmem, V: LM.gmem, O: LM.gmem, LSE: LM.gmem,
                                        L: LM.i32):
    lm.assume(L > 0)
    pool    = lm.smem(8320)
    smem_k  = pool.view(offset=0,    shape=(4, 128), dtype=lm.e4m3, stages=4)
    smem_v  = pool.view(offset=2048, shape=(4, 128), dtype=lm.e4m3, stages=4)
    smem_md = pool.view(offset=8192, shape=(4, 2),   dtype=lm.f32,  stages=4)
    smem_o  = pool.view(offset=0,    shape=(4, 128), dtype=lm.f32,  stages=4)   # over K and V: the region is 8192 bytes
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
        lm.copy(smem_o[w], o)                       # sync_state: st.o over the K+V region
        lm.copy(smem_md[w], md)
        lm.sync(block)
        lm.fill(o, 0.0)
        for j in lm.range(0, 4):
            lm.copy(mdo, smem_md[j])
            lm.copy(oth, smem_o[j])
            lm.binary(o, o, oth, op="add")
        lm.copy(O, o, coords=(lm.block_idx(0), 4 * kv_head, 0))
        lm.copy(LSE, mdo, coords=(lm.block_idx(0), 4 * kv_head, 0))
