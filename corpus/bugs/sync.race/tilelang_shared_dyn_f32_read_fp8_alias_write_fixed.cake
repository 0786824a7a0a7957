# FIXED form of tilelang_shared_dyn_f32_read_fp8_alias_write.cake
# (tile-ai/tilelang PR #2293): with the fast path limited to equal element
# sizes, the byte-range test sees fp8 bytes [32w, 32w + 32) of warp w
# inside the float32 elements other warps read, and ThreadSync inserts a
# __syncthreads() before the aliased fp8 write.
# expect: pass
@cake.schedule(target="sm_90a")
def tilelang_shared_dyn_f32_read_fp8_alias_write_fixed(lm, X: LM.gmem, Y: LM.gmem):
    pool    = lm.smem(1024)
    scratch = pool.view(offset=0, shape=(1, 128), dtype=lm.f32)       # float32 buffer, dead after the read
    out8    = pool.view(offset=0, shape=(1, 128), dtype=lm.e4m3)      # fp8 buffer reusing its bytes
    v       = lm.regs(shape=(1, 32), dtype=lm.f32)
    q       = lm.regs(shape=(1, 32), dtype=lm.e4m3)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        lm.copy(v, X, coords=(lm.block_idx(0), 32 * w))
        lm.copy(scratch[0][:, 32 * w:32 * w + 32], v)
        lm.sync(block)
        lm.copy(v, scratch[0][:, 32 * w:32 * w + 32])
        lm.copy(q, v)
        lm.sync(block)                                                # the fix (PR #2293)
        lm.copy(out8[0][:, 32 * w:32 * w + 32], q)
        lm.sync(block)
        lm.copy(q, out8[0][:, 32 * w:32 * w + 32])
        lm.copy(Y, q, coords=(lm.block_idx(0), 32 * w))
