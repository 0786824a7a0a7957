# FIXED form of hecbench_surfel_render_tile_next_tile_no_barrier.cake
# (ORNL/HeCBench issue #253): a __syncthreads() at the end of the tile loop
# of surfel_render_tile, so every thread has tested its ray against the
# whole tile before any thread stages the next tile's surfels into sh.
# expect: pass
@cake.schedule(target="sm_80")
def hecbench_surfel_render_tile_fixed(lm, S: LM.gmem, D: LM.gmem, N: LM.i32):
    lm.assume(N >= 1)
    pool = lm.smem(3584)
    sh   = pool.view(offset=0, shape=(1, 224), dtype=lm.f32, stages=4)
    surf = lm.regs(shape=(1, 224), dtype=lm.f32)
    hit  = lm.regs(shape=(1, 1), dtype=lm.f32)
    dmin = lm.regs(shape=(1, 1), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        lm.fill(dmin, 1.0e20)
        for b in lm.range(0, lm.cdiv(N, 128)):
            lm.copy(surf, S, coords=(0, 896 * b + 224 * w))
            lm.copy(sh[w], surf)
            lm.sync(block)
            for i in lm.range(0, 4):
                lm.copy(surf, sh[i])                    # the ray-surfel tests
                lm.reduce(hit, surf, op="min", axis=1)
                lm.binary(dmin, dmin, hit, op="min")
            lm.sync(block)                              # the fix
        lm.copy(D, dmin, coords=(0, w))
