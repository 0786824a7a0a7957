# BUG (sync.race): joeyan/gaussian_splatting issue #30 ("Potentially
# undefined output on empty tiles", 2025-08-04, closed).  render_tiles_kernel
# (src/render.cu, 16x16 threads per tile) zeroes its shared _image[16*16*3]
# with a block-strided loop (thread t writes _image[t], _image[t + 256],
# _image[t + 512]), then runs the chunk loop, whose FIRST statement is the
# __syncthreads() that also orders that zeroing before the first
# `_image[(ty * 16 + tx) * 3 + c] += ...` (thread t touches elements
# 3t .. 3t+2, zeroed by other threads).  A tile with no splats
# (num_chunks = 0) never enters the loop, so the background add after it
# (`_image[...] += background_rgb[c] * (1 - alpha_accum)`) reads elements
# another warp may not have zeroed yet.  The fix proposed in the issue (and
# applied in the reporter's fork) is a __syncthreads() after the zeroing.
# Modelled: the 256 threads as 8 one-warp instances (warp w zeroes elements
# [32w + 256j, +32) for j = 0..2, and its pixels own [96w, 96w + 96)),
# __syncthreads() a named barrier over all of them, the four per-splat
# input arrays as one 960 x 9 f32 chunk (CHUNK_SIZE = 960 for N_SH = 1:
# uv 2 + opacity 1 + rgb 3 + conic 3), each thread's copy of splat rows as
# its warp's 32-row bands, the splat loop as reads of the chunk in 240-row
# pieces, the blend as an add into the warp's own pixels.  Left out: the
# per-pixel math, valid_pixel guards, early exit at alpha 0.9999, and the
# per-pixel outputs besides the image.
# Fix: gsplat_render_empty_tile_image_zero_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def gsplat_render_empty_tile_image_zero_no_barrier(lm, Splats: LM.gmem, Bg: LM.gmem, Image: LM.gmem,
                                                   n_splats: LM.i32):
    lm.assume(n_splats >= 0)
    pool  = lm.smem(65536)
    chunk = pool.view(offset=0,     shape=(960, 9), dtype=lm.f32)   # _uvs/_opacity/_rgb/_conic
    img   = pool.view(offset=36864, shape=(768,), dtype=lm.f32)     # _image[16 * 16 * 3]
    zero  = lm.regs(shape=(32,), dtype=lm.f32)
    rows  = lm.regs(shape=(32, 9), dtype=lm.f32)
    seen  = lm.regs(shape=(240, 9), dtype=lm.f32)
    mine  = lm.regs(shape=(96,), dtype=lm.f32)
    bg    = lm.regs(shape=(96,), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=1)
    block = lm.named_barrier(roles=[warps])                          # __syncthreads()

    with warps:
        w = lm.instance()
        lm.fill(zero, 0.0)
        for j in lm.range(0, 3):                                     # _image[i] = 0.0, i += 256
            lm.copy(img[0][256 * j + 32 * w:256 * j + 32 * w + 32], zero)   # expect-error: sync.race
        # BUG: no __syncthreads() here; the chunk loop's first one orders
        # the zeroing only when the tile has at least one splat
        for c in lm.range(0, lm.cdiv(n_splats, 960)):
            lm.sync(block)                                           # previous chunk is done
            for j in lm.range(0, 4):
                if 256 * j + 32 * w < 960:
                    lm.copy(rows, Splats, coords=(960 * c + 256 * j + 32 * w, 0))
                    lm.copy(chunk[0][256 * j + 32 * w:256 * j + 32 * w + 32, :], rows)
            lm.sync(block)                                           # copies complete
            lm.copy(mine, img[0][96 * w:96 * w + 96])
            for i in lm.range(0, 4):                                 # the splat loop
                lm.copy(seen, chunk[0][240 * i:240 * i + 240, :])
                lm.binary(mine, mine, 1.0, op="add")
            lm.copy(img[0][96 * w:96 * w + 96], mine)
        lm.copy(bg, Bg, coords=(0,))                                 # background if not saturated
        lm.copy(mine, img[0][96 * w:96 * w + 96])                    # expect-error: sync.race
        lm.binary(mine, mine, bg, op="add")
        lm.copy(img[0][96 * w:96 * w + 96], mine)
        lm.sync(block)                                               # wait for splatting to complete
        lm.copy(mine, img[0][96 * w:96 * w + 96])
        lm.copy(Image, mine, coords=(96 * w,))
