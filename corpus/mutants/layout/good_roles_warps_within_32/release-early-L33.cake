# mutant: release-early
# original: corpus/layout/good_roles_warps_within_32.cake
# line: 33: lm.arrive(empty, iter=j)
# change: moved `lm.copy(x, smem_x[j])` after `lm.arrive(empty, iter=j)`
# label: bad (sync.race, data.stale-read, proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), D in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 78 states; first violation: sync.race: load's TMA load (not landed yet) writes smem_x[0] bytes [0, 16384) while red's lm.copy reads them at `smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)` (line 26) (D=144)
# expect-any: sync.race data.stale-read proxy.missing-fence
# LAYOUT roles.too-many-warps (good): 8 warps (256 threads).
# Bad twin: bad_roles_warps_beyond_32.
# (the original's expectation: see the label above)

@cake.schedule(target="sm_90a")
def good_roles_warps_within_32(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem(32768)
    smem_x = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x      = lm.regs(shape=(128, 64), dtype=lm.f32)
    part   = lm.regs(shape=(128, 1), dtype=lm.f32)
    total  = lm.regs(shape=(128, 1), dtype=lm.f32)

    load = lm.role(warps=[0])
    red  = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    row0 = lm.block_idx(0) * 128

    with load:
        for j in lm.range(0, d_tiles):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)

    with red:
        lm.fill(total, 0.0)
        for j in lm.range(0, d_tiles):
            lm.wait(full, iter=j)
            lm.arrive(empty, iter=j)
            lm.copy(x, smem_x[j])
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(total, total, part, op="add")
        lm.copy(Y, total, coords=(row0, 0))
