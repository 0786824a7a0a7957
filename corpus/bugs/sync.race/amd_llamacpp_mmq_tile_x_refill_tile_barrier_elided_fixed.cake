# FIXED form of amd_llamacpp_mmq_tile_x_refill_tile_barrier_elided.cake
# (AMD-Ecosystem/llama.cpp PR #75, commit 1): the barrier at the top of
# mul_mat_q's K loop is a __syncthreads() for every mmq_x (it was
# mmq_hip_tile_barrier<mmq_x>(), elided for mmq_x <= 32), so no warp's
# load_tiles() of the next K block overwrites tile_x (or its y store
# tile_y) while another warp is still in the previous block's vec_dot.
# The model is the broken file's (4 one-warp instances, mmq_y = 32,
# mmq_x = 16).
# expect: pass
@cake.schedule(target="sm_80")
def amd_llamacpp_mmq_tile_x_refill_tile_barrier_elided_fixed(lm, X: LM.gmem, Y: LM.gmem, Dst: LM.gmem, kb: LM.i32):
    lm.assume(kb >= 1)
    pool = lm.smem(3072)
    xs   = pool.view(offset=0,    shape=(32, 64), dtype=lm.i8)   # tile_x
    ys   = pool.view(offset=2048, shape=(16, 64), dtype=lm.i8)   # tile_y
    xt   = lm.regs(shape=(8, 64),  dtype=lm.i8)
    yt   = lm.regs(shape=(4, 64),  dtype=lm.i8)
    a    = lm.regs(shape=(32, 64), dtype=lm.i8)
    b    = lm.regs(shape=(16, 64), dtype=lm.i8)
    sx   = lm.regs(shape=(32, 64), dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    row0 = lm.block_idx(0) * 32
    col0 = lm.block_idx(1) * 16

    with warps:
        w = lm.instance()
        lm.fill(sx, 0)
        for k in lm.range(0, kb):
            lm.sync(block)                                          # the fix: the tile barrier for every mmq_x
            lm.copy(xt, X, coords=(row0 + 8 * w, 64 * k))          # load_tiles
            lm.copy(xs[0][8 * w:8 * w + 8, :], xt)                
            lm.copy(yt, Y, coords=(col0 + 4 * w, 64 * k))           # the y tile store
            lm.copy(ys[0][4 * w:4 * w + 4, :], yt)                
            lm.sync(block)
            lm.copy(a, xs[0])                                       # vec_dot
            lm.copy(b, ys[0])                                     
            lm.binary(sx, sx, a, op="add")
        lm.copy(Dst, sx, coords=(row0, 64 * (4 * lm.block_idx(1) + w)))
