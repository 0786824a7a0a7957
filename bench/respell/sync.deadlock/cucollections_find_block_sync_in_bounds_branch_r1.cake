# RESPELLING of corpus/bugs/sync.deadlock/cucollections_find_block_sync_in_bounds_branch.cake
# (NVIDIA/cuCollections PR #522): the grid-stride `while` as a one-trip
# lm.range, the bounds as `not (base >= n)`, one register fragment instead of
# two, the assumptions joined with `and`, an unused view at offset 0.
# expect: sync.deadlock
@cake.schedule(target="sm_80")
def find_kernel(lm, keys: LM.gmem, output: LM.gmem, num_keys: LM.i32):
    lm.assume(num_keys >= 0 and num_keys % 32 == 0)
    smem   = lm.smem(1024)
    unused = smem.view(offset=0, shape=(1, 32), dtype=lm.f32)
    buf    = smem.view(offset=512, shape=(1, 32), dtype=lm.f32, stage=4)
    r      = lm.regs(shape=(1, 32), dtype=lm.f32)
    tile_threads = lm.role(warps=[0, 1, 2, 3], group=1)
    bar = lm.named_barrier(roles=[tile_threads])
    with tile_threads:
        lane_group = lm.instance()
        base = lm.block_idx(0) * 128
        my = base + lane_group * 32
        for it in lm.range(0, 1):
            if not (base >= num_keys):
                if num_keys > my:
                    lm.copy(r, keys, coords=(0, my))
                    lm.copy(buf[lane_group], r)
                    lm.sync(bar)                                  # expect-error: sync.deadlock
                    lm.copy(r, buf[lane_group])
                    lm.copy(output, r, coords=(0, my))
