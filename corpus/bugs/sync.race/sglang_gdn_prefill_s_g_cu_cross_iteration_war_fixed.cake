# FIXED form of sglang_gdn_prefill_s_g_cu_cross_iteration_war.cake
# (sgl-project/sglang PR #37288): a 128-thread named barrier at the end of
# every chunk iteration orders each warp's last read of s_g_cu before any
# warp's stores of the next chunk.
# expect: pass
@cake.schedule(target="sm_100a")
def sglang_gdn_prefill_s_g_cu_end_of_iteration_barrier(lm, G: LM.gmem, O: LM.gmem, n_chunks: LM.i32):
    pool   = lm.smem(8192)
    s_g_cu = pool.view(offset=0, shape=(64, 16), dtype=lm.f32)
    g_band = lm.regs(shape=(16, 16), dtype=lm.f32)
    g_all  = lm.regs(shape=(64, 16), dtype=lm.f32)
    mask   = lm.regs(shape=(64, 16), dtype=lm.f32)

    cg  = lm.role(warps=[0, 1, 2, 3], group=1)
    bar = lm.named_barrier(roles=[cg])

    with cg:
        r0 = 16 * lm.instance()
        lm.fill(mask, 0.0)
        for c in lm.range(0, n_chunks):
            lm.copy(g_band, G, coords=(c * 64 + r0, 0))
            lm.copy(s_g_cu[0][r0:r0 + 16, :], g_band)
            lm.sync(bar)
            lm.copy(g_all, s_g_cu[0])
            lm.binary(mask, mask, g_all, op="add")
            lm.sync(bar)
        lm.copy(O, mask, coords=(lm.block_idx(0) * 256 + 64 * lm.instance(), 0))
