# BUG (sync.race): ml-explore/mlx PR #2591 ("Fix metal scan", merged
# 2025-09-15: "Fix race condition in metal kernel.  It's quite difficult to
# get this to show up in a unit test" - mx.cumsum over 4M elements, run in
# 100 processes at once, differs now and then).
# mlx/backend/metal/kernels/scan.h, contiguous_scan: one threadgroup scans a
# row chunk by chunk (N_READS * lsize elements), carrying `prefix`, through
# one `threadgroup U simdgroup_sums[32]`:
#     for (r = 0; r < ceildiv(axis_size, N_READS * lsize); r++) {
#       ... load; per-thread scan; prev_thread = simd_exclusive_scan(...);
#       if (lane == 31) simdgroup_sums[g] = op(prev_thread, values[N_READS - 1]);
#       threadgroup_barrier(mem_threadgroup);
#       if (g == 0) simdgroup_sums[lane] = simd_exclusive_scan(simdgroup_sums[lane]);
#       threadgroup_barrier(mem_threadgroup);
#       values[i] = op(op(op(values[i], prefix), simdgroup_sums[g]), prev_thread);
#       ... write the chunk;
#       // (no barrier here in the stored 0189ab6 text)
#       if (g == simd_groups - 1 && lane == 31) simdgroup_sums[0] = values[N_READS - 1];
#       threadgroup_barrier(mem_threadgroup);
#       prefix = simdgroup_sums[0];
#     }
# The last simdgroup stores the chunk total into simdgroup_sums[0] while
# simdgroup 0 may still read simdgroup_sums[0] as its own exclusive offset
# for this chunk.  The stored later text (75fb8ae) has a
# threadgroup_barrier(mem_threadgroup) right before that store; the PR's
# diff is not in the stored corpora.  That text still has a second race,
# across chunks (in this text too: no barrier after the prefix read), see
# sync.race/mlx_contiguous_scan_next_chunk_sum_over_prefix.cake.
# Written in CAKE IR (a simdgroup is a warp, threadgroup_barrier(
# mem_threadgroup) a bar.sync over the threadgroup): lsize = 128 = four
# one-simdgroup instances, N_READS = 4 (a simdgroup's 128 values of a chunk
# as one register fragment); simdgroup_sums as one slot of 4 words (the
# kernel's 32 lanes read all 32 words; with 4 simdgroups only 4 are
# written, the others are lanes whose results nobody reads); the simd
# scans and the ops as lm.reduce / lm.binary.  The scratch is named by the
# chunk (`ss[r]`: one slot, the same bytes every chunk) so that each read
# is checked against the chunk it means (docs/known-limits.md "data.stale-
# read: what a stage-like read means is inferred": written `ss[0]`, the
# correct form's prefix read is a false data.stale-read).
# Fix: mlx_contiguous_scan_prefix_share_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def mlx_contiguous_scan(lm, In: LM.gmem, Out: LM.gmem, axis_size: LM.i32):
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
            lm.copy(off, ss[r][0:1, g:g + 1])                # simdgroup_sums[simd_group_id]   # expect-error: sync.race
            lm.binary(vals, vals, prefix, op="add")
            lm.binary(vals, vals, off, op="add")
            lm.copy(Out, vals, coords=(row, 512 * r + 128 * g))
            # BUG: no barrier before the prefix share
            if g == 3:                                       # simd_groups - 1, lane 31
                lm.reduce(tot, vals, op="max", axis=1)       # values[N_READS - 1]
                lm.copy(ss[r][0:1, 0:1], tot)                # simdgroup_sums[0] = ...          # expect-error: sync.race
            lm.sync(tg)
            lm.copy(prefix, ss[r][0:1, 0:1])                 # prefix = simdgroup_sums[0]
