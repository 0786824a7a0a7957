# FlashInfer single-request decode attention on Ampere (flashinfer-ai/
# flashinfer include/flashinfer/attention/decode.cuh,
# SingleDecodeWithKVCacheKernel): one CTA per (KV chunk, KV head), bdz = 4
# warps (threadIdx.z) that split each KV tile, each warp holding bdy = 2
# query heads of the GQA group (bdx = 16 lanes x 8 elements = head_dim 128).
#  * K and V live in two separate cp.async rings of num_stages_smem = 2
#    stages, and every K load and every V load is its OWN commit group: the
#    prologue commits K0, V0, K1, V1; the loop waits with
#    cp_async::wait_group<2 * num_stages_smem - 1> = pending 3 before the
#    K tile (the oldest group: K of this tile) and again before the V tile
#    (after the K refill was committed, the oldest two: K and V of this
#    tile), so K and V groups interleave in one FIFO of groups.
#  * each warp copies and reads only its own 8 rows of a tile (slot
#    4 * stage + warp of an 8-slot view); the block.sync() around each
#    compute step is kept as the kernel writes it.  A refill past the chunk
#    end is a predicated-off pred_load, but the group is still committed
#    (empty), which keeps the pending count right in the last iterations.
#  * after the loop: wait_group<0>, block.sync, then sync_state merges the
#    four warps' (o, m, d) through shared memory: o goes to the START of
#    the dynamic smem, i.e. over the K ring's first slots, which is safe
#    only because every warp's K reads and copies are over (the
#    wait_group<0> + block.sync before it).  All four warps store the same
#    merged o (redundant, as the kernel does); the LSE is stored per warp.
# Bug twin: corpus/bugs/sync.race/flashinfer_decode_sync_state_no_barrier.cake.
# lower: unsupported (the per-warp score and output reductions of an 8 x 128 key tile into a GQA group's 2 x 8 / 2 x 128 fragments are not lowered)
# expect: pass
@cake.schedule(target="sm_80")
def flashinfer_single_decode(lm, Q: LM.gmem, K: LM.gmem, V: LM.gmem, O: LM.gmem, LSE: LM.gmem,
                             L: LM.i32):
    lm.assume(L > 0)
    pool    = lm.smem(33024)
    smem_k  = pool.view(offset=0,     shape=(8, 128), dtype=lm.bf16, stages=8)
    smem_v  = pool.view(offset=16384, shape=(8, 128), dtype=lm.bf16, stages=8)
    smem_md = pool.view(offset=32768, shape=(2, 2),   dtype=lm.f32,  stages=4)
    smem_o  = pool.view(offset=0,     shape=(2, 128), dtype=lm.f32,  stages=4)   # over the K ring
    q    = lm.regs(shape=(2, 128), dtype=lm.f32)
    kt   = lm.regs(shape=(8, 128), dtype=lm.f32)
    vt   = lm.regs(shape=(8, 128), dtype=lm.f32)
    s    = lm.regs(shape=(2, 8),   dtype=lm.f32)
    o    = lm.regs(shape=(2, 128), dtype=lm.f32)
    md   = lm.regs(shape=(2, 2),   dtype=lm.f32)
    oth  = lm.regs(shape=(2, 128), dtype=lm.f32)
    mdo  = lm.regs(shape=(2, 2),   dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    n_tiles = lm.cdiv(L, 32)
    kv_head = lm.block_idx(1)

    with warps:
        w = lm.instance()
        lm.copy(q, Q, coords=(2 * kv_head, 0))
        lm.sync(block)
        for st in lm.range(0, 2):                   # preload k tiles and v tiles
            if st < n_tiles:
                smem_k.cp_async(K, coords=(32 * st + 8 * w, kv_head, 0), iter=4 * st + w)
            lm.cp_async_commit()
            if st < n_tiles:
                smem_v.cp_async(V, coords=(32 * st + 8 * w, kv_head, 0), iter=4 * st + w)
            lm.cp_async_commit()
        lm.fill(o, 0.0)
        lm.fill(md, 0.0)
        for it in lm.range(0, n_tiles):
            lm.cp_async_wait(pending=3)             # K of tile it landed
            lm.sync(block)
            lm.copy(kt, smem_k[4 * it + w])         # compute_qk
            lm.reduce(s, kt, op="sum", axis=1)
            lm.sync(block)
            if it + 2 < n_tiles:
                smem_k.cp_async(K, coords=(32 * (it + 2) + 8 * w, kv_head, 0), iter=4 * (it + 2) + w)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=3)             # V of tile it landed
            lm.sync(block)
            lm.copy(vt, smem_v[4 * it + w])         # update_local_state
            lm.reduce(oth, vt, op="sum", axis=0)
            lm.binary(o, o, oth, op="add")
            lm.sync(block)
            if it + 2 < n_tiles:
                smem_v.cp_async(V, coords=(32 * (it + 2) + 8 * w, kv_head, 0), iter=4 * (it + 2) + w)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.sync(block)
        lm.copy(smem_o[w], o)                       # sync_state: over the K ring
        lm.copy(smem_md[w], md)
        lm.sync(block)
        lm.fill(o, 0.0)
        for j in lm.range(0, 4):
            lm.copy(mdo, smem_md[j])
            lm.copy(oth, smem_o[j])
            lm.binary(o, o, oth, op="add")
        lm.copy(O, o, coords=(lm.block_idx(0), 2 * kv_head, 0))
        lm.copy(LSE, mdo, coords=(lm.block_idx(0), 2 * kv_head, 0))
