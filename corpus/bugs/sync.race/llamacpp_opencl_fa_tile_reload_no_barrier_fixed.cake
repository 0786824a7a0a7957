# FIXED form of llamacpp_opencl_fa_tile_reload_no_barrier.cake
# (ggml-org/llama.cpp PR #26434): a work-group barrier at the top of the
# k_start loop, before the cooperative reload of l_k, so no subgroup
# overwrites the tile while another still reads the previous one.
# expect: pass
@cake.schedule(target="sm_80")
def llamacpp_opencl_fa_tile_reload_no_barrier_fixed(lm, K: LM.gmem, O: LM.gmem, n_kv: LM.i32):
    pool   = lm.smem(8192)
    l_k    = pool.view(offset=0, shape=(32, 64), dtype=lm.f32)
    k_band = lm.regs(shape=(16, 64), dtype=lm.f32)
    k_tile = lm.regs(shape=(32, 64), dtype=lm.f32)
    acc    = lm.regs(shape=(32, 64), dtype=lm.f32)

    sg = lm.role(warps=[0, 1], group=1)
    wg = lm.named_barrier(roles=[sg])

    with sg:
        r0 = 16 * lm.instance()
        lm.fill(acc, 0.0)
        for k in lm.range(0, lm.cdiv(n_kv, 32)):
            lm.copy(k_band, K, coords=(k * 32 + r0, 0))
            lm.sync(wg)
            lm.copy(l_k[0][r0:r0 + 16, :], k_band)
            lm.sync(wg)
            lm.copy(k_tile, l_k[0])
            lm.binary(acc, acc, k_tile, op="add")
        lm.copy(O, acc, coords=(lm.block_idx(0) * 64 + 32 * lm.instance(), 0))
