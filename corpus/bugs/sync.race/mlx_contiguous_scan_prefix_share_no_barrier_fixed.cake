# FIXED: mlx_contiguous_scan_prefix_share_no_barrier.cake with the barrier
# of the later text before the prefix share (ml-explore/mlx PR #2591; the
# stored 75fb8ae text of scan.h) AND a barrier after the prefix read, which
# that text lacks (mlx_contiguous_scan_next_chunk_sum_over_prefix.cake: the
# next chunk's store into simdgroup_sums[0] races with a slow simdgroup's
# prefix read).  The second barrier is this file's, not an upstream change.
# expect: pass
@cake.schedule(target="sm_80")
def mlx_contiguous_scan_fixed(lm, In: LM.gmem, Out: LM.gmem, axis_size: LM.i32):
    lm.assume(axis_size >= 1)
    pool   = lm.smem(16)
    ss     = pool.view(offset=0, shape=(1, 4), dtype=lm.f32)      # simdgroup_sums[32]
    vals   = lm.regs(shape=(1, 128), dtype=lm.f32)                # values[N_READS] of 32 lanes
    tot    = lm.regs(shape=(1, 1), dtype=lm.f32)
    sums   = lm.regs(shape=(1, 4), dtype=lm.f32)
    off    = lm.regs(shape=(1, 1), dtype=lm.f32)                  # prev_simdgroup
    prefix = lm.regs(shape=(1, 1), dtype=lm.f32)

    simd = lm.role(warps=[0, 1, 2, 3], group=1)
    tg   = lm.named_barrier(roles=[simd])

    with simd:
        g   = lm.instance()                                  # simd_group_id
        row = lm.block_idx(0)
        lm.fill(prefix, 0.0)                                 # Op::init
        for r in lm.range(0, lm.cdiv(axis_size, 512)):
            lm.copy(vals, In, coords=(row, 512 * r + 128 * g))
            lm.reduce(tot, vals, op="sum", axis=1)           # per-thread scan + simd scan
            lm.copy(ss[r][0:1, g:g + 1], tot)                # lane 31: simdgroup_sums[g]
            lm.sync(tg)
            if g == 0:
                lm.copy(sums, ss[r])                         # simdgroup_sums[lane]
                lm.binary(sums, sums, 1.0, op="add")         # simd_exclusive_scan
                lm.copy(ss[r], sums)
            lm.sync(tg)
            lm.copy(off, ss[r][0:1, g:g + 1])                # simdgroup_sums[simd_group_id]
            lm.binary(vals, vals, prefix, op="add")
            lm.binary(vals, vals, off, op="add")
            lm.copy(Out, vals, coords=(row, 512 * r + 128 * g))
            lm.sync(tg)                                      # PR #2591 (the stored 75fb8ae text)
            if g == 3:                                       # simd_groups - 1, lane 31
                lm.reduce(tot, vals, op="max", axis=1)       # values[N_READS - 1]
                lm.copy(ss[r][0:1, 0:1], tot)                # simdgroup_sums[0] = ...
            lm.sync(tg)
            lm.copy(prefix, ss[r][0:1, 0:1])                 # prefix = simdgroup_sums[0]
            lm.sync(tg)                                      # and before the next chunk's stores
