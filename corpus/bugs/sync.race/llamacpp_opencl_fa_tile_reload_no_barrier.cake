# BUG (sync.race): llama.cpp's OpenCL generic flash-attention tile kernels
# (flash_attn_f32 / flash_attn_f16), as fixed by ggml-org/llama.cpp PR
# #26434 ("opencl: fix a WAR race bug in the generic flash-attention tile
# kernels").  Each k_start iteration the work-group cooperatively reloads
# the shared K/V tiles l_k / l_v (each subgroup writes its band of rows),
# barriers, and then every subgroup reads the whole tile.  There was no
# barrier before the reload at the top of the loop: a subgroup that
# finishes its compute early overwrites rows of the tile that another
# subgroup of the same work-group is still reading (a write-after-read
# hazard that is live whenever the work-group spans two or more subgroups,
# e.g. two 32-wide subgroups on Intel).
# Written in CAKE IR as an sm_80 schedule: each subgroup is a one-warp
# instance (group=1), the work-group barrier is a named barrier over the
# role; l_k is one 32x64 f32 tile, each instance loads its 16-row band
# through registers and stores it with st.shared, then reads the whole tile.
# Modelled: K only (l_v is the same pattern), a running sum stands for the
# softmax/PV compute.  Left out: the mask, the softmax, Q.
# Fix: llamacpp_opencl_fa_tile_reload_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def llamacpp_opencl_fa_tile_reload_no_barrier(lm, K: LM.gmem, O: LM.gmem, n_kv: LM.i32):
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
            lm.copy(l_k[0][r0:r0 + 16, :], k_band)          # expect-error: sync.race
            lm.sync(wg)
            lm.copy(k_tile, l_k[0])                           # expect-error: sync.race
            lm.binary(acc, acc, k_tile, op="add")
        lm.copy(O, acc, coords=(lm.block_idx(0) * 64 + 32 * lm.instance(), 0))
