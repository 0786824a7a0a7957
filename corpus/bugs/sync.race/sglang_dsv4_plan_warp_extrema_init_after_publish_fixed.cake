# FIXED form of sglang_dsv4_plan_warp_extrema_init_after_publish.cake:
# sgl-project/sglang PR #32467 (merged; issue #32470).  The merged fix
# deletes warp 0's initialisation of warp_max / warp_min: with the fixed
# 1024-thread launch (32 warps, kNumWarps = 32 slots) every warp stores its
# own slot before the __syncthreads() that warp 0's fold waits at, so the
# slots need no initial value and nothing races with the publication.
# Modelled as the broken form (4 of the 32 warps, 4 slots).
# expect: pass
@cake.schedule(target="sm_90a")
def sglang_dsv4_plan_compress_prefill_kernel0(lm, ExtendLens: LM.gmem, PrefixLens: LM.gmem, Plan: LM.gmem):
    pool = lm.smem(1024)
    prefix   = pool.view(offset=0,   shape=(1, 128), dtype=lm.i32)   # s_prefix_len
    warp_max = pool.view(offset=512, shape=(1, 4),   dtype=lm.i32)
    warp_min = pool.view(offset=528, shape=(1, 4),   dtype=lm.i32)
    s_ext    = pool.view(offset=544, shape=(1, 2),   dtype=lm.i32)   # s_max_extend, s_min_extend
    e    = lm.regs(shape=(1, 32), dtype=lm.i32)
    pl   = lm.regs(shape=(1, 32), dtype=lm.i32)
    one  = lm.regs(shape=(1, 1),  dtype=lm.i32)
    slot = lm.regs(shape=(1, 4),  dtype=lm.i32)
    ext  = lm.regs(shape=(1, 2),  dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        # Stage A: per-batch fields, shared scratch
        lm.copy(e, ExtendLens, coords=(0, 32 * w))
        lm.copy(pl, PrefixLens, coords=(0, 32 * w))
        lm.copy(prefix[0][0:1, 32 * w:32 * w + 32], pl)
        # Stage B: per-warp extrema, then warp 0 folds them
        lm.reduce(one, e, op="max", axis=1)
        lm.copy(warp_max[0][0:1, w:w + 1], one)
        lm.reduce(one, e, op="min", axis=1)
        lm.copy(warp_min[0][0:1, w:w + 1], one)
        lm.sync(block)
        if w == 0:
            lm.copy(slot, warp_max[0])
            lm.reduce(one, slot, op="max", axis=1)
            lm.copy(s_ext[0][0:1, 0:1], one)
            lm.copy(slot, warp_min[0])
            lm.reduce(one, slot, op="min", axis=1)
            lm.copy(s_ext[0][0:1, 1:2], one)
        lm.sync(block)
        # Stage C: every warp decides the path and emits its plans
        lm.copy(ext, s_ext[0])
        lm.copy(pl, prefix[0][0:1, 32 * w:32 * w + 32])
        lm.binary(pl, pl, e, op="add")
        lm.copy(Plan, pl, coords=(0, 32 * w))
