# FIXED form of gsplat_render_empty_tile_image_zero_no_barrier.cake
# (joeyan/gaussian_splatting issue #30): a __syncthreads() right after the
# block-strided zeroing of _image orders it before every pixel's first
# `+=`, whether or not the chunk loop runs.
# expect: pass
@cake.schedule(target="sm_80")
def gsplat_render_empty_tile_image_zero_synced(lm, Splats: LM.gmem, Bg: LM.gmem, Image: LM.gmem,
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
            lm.copy(img[0][256 * j + 32 * w:256 * j + 32 * w + 32], zero)
        lm.sync(block)                                               # the fix: zeroing done
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
        lm.copy(mine, img[0][96 * w:96 * w + 96])                 
        lm.binary(mine, mine, bg, op="add")
        lm.copy(img[0][96 * w:96 * w + 96], mine)
        lm.sync(block)                                               # wait for splatting to complete
        lm.copy(mine, img[0][96 * w:96 * w + 96])
        lm.copy(Image, mine, coords=(96 * w,))
