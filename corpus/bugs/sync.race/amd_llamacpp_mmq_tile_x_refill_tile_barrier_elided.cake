# Real bug: AMD-Ecosystem/llama.cpp PR #75, commit 1 ("HIP: fix MMQ
# tile-barrier race"): in mul_mat_q's K loop (ggml/src/ggml-cuda/mmq.cuh,
# the fork's RDNA3.5 path, nwarps = 4) load_tiles() overwrites tile_x while
# other warps of the block can still be inside the previous iteration's
# vec_dot().  The guard at the top of the loop was
# mmq_hip_tile_barrier<mmq_x>(), which is elided for mmq_x <= 32, and the
# __syncthreads() calls further down all sit between the y tile store and
# vec_dot, on the wrong side of the hazard: with mmq_x of 16 and 32 the
# whole K loop was unprotected (115 of 1568 configurations wrong,
# non-deterministically; MUL_MAT_ID failing intermittently on q4_0; every
# MoE launch runs at mmq_x = 16).  The fix makes the top-of-loop barrier a
# __syncthreads() for every mmq_x; the fixed form is
# amd_llamacpp_mmq_tile_x_refill_tile_barrier_elided_fixed.cake.
# Written in CAKE IR as an sm_80 schedule: each warp is a one-warp instance
# (group=1), __syncthreads() a named barrier over the role; mmq_y = 32 rows
# of q8 weights and mmq_x = 16 columns of q8_1 activations per K block.
# load_tiles() gives warp w rows [8w, 8w + 8) of tile_x and the y store
# tokens [4w, 4w + 4) of tile_y; the dp4a vec_dot gives warp w the columns
# j = w + 4 * j0 and every row of tile_x (rows by lane), modelled as reading
# all of tile_x and tile_y (the sums of warp w are stored as one 32 x 64
# block of its own).  Left out: the scales (d, sum) of both tiles,
# the second half of each K block (a second y store and vec_dot in the same
# pattern), the dp4a arithmetic (a register add of the tiles stands for
# it), the write-back's bounds.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def amd_llamacpp_mmq_tile_x_refill_tile_barrier_elided(lm, X: LM.gmem, Y: LM.gmem, Dst: LM.gmem, kb: LM.i32):
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
            # mmq_hip_tile_barrier<mmq_x>(): elided for mmq_x <= 32
            lm.copy(xt, X, coords=(row0 + 8 * w, 64 * k))          # load_tiles
            lm.copy(xs[0][8 * w:8 * w + 8, :], xt)                  # expect-error: sync.race
            lm.copy(yt, Y, coords=(col0 + 4 * w, 64 * k))           # the y tile store
            lm.copy(ys[0][4 * w:4 * w + 4, :], yt)                  # expect-error: sync.race
            lm.sync(block)
            lm.copy(a, xs[0])                                       # vec_dot  # expect-error: sync.race
            lm.copy(b, ys[0])                                       # expect-error: sync.race
            lm.binary(sx, sx, a, op="add")
        lm.copy(Dst, sx, coords=(row0, 64 * (4 * lm.block_idx(1) + w)))
