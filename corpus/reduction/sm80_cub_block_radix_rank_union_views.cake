# cub::BlockRadixRank (NVIDIA CUB cub/block/block_radix_rank.cuh, inside
# BlockRadixSort, as corpus/reduction/sm80_cub_block_radix_sort_passes.cake)
# with digit_counters[lane][thread] and raking_grid[thread][segment] written
# as the two members of their C++ union: two views over the same 2,560
# bytes, both written, declared one union (`rk = pool.view(..., union=dc)`,
# docs/ir-extensions.md "Union members").  Each thread counts into its
# column of digit_counters, the Upsweep reads the same bytes as its ROW of
# raking_grid (other threads' counters), the downsweep writes the row back,
# and the rank extraction reads the column again: a read through one member
# of bytes last written through the other means that write's data.  The
# exchange buffer `ex` reuses the bytes for other data (the keys) and is
# no member: a read of the counters after it stays stale.
# Without union= (docs/known-limits.md before session 33) the Upsweep was a
# false data.stale-read: "warps[0] reads rk[0] bytes [0, 640) meaning lap 0
# of the slot (index 0), but it holds the data of dc (another view's data)".
# Bug twins: corpus/bugs/data.stale-read/cub_radix_rank_union_ranks_after_exchange.cake
# (the ranks read after the exchange buffer's reuse: a view outside the
# union), corpus/bugs/sync.race/cub_radix_rank_union_upsweep_no_sync.cake
# (the CTA_SYNC between the counts and the Upsweep dropped).
# lower: unsupported (the Upsweep's lm.reduce of the 32x5 raking rows along axis 0 into a 1x1 warp aggregate, a shortcut of the session-32 reproducer kept as it was: lower.layout "gives 1x5, not the destination's 1x1")
# expect: pass
@cake.schedule(target="sm_80")
def block_radix_sort(lm, KEYS: LM.gmem, OUT: LM.gmem):
    pool = lm.smem(2592)
    dc   = pool.view(offset=0,    shape=(5, 128), dtype=lm.i32, stages=1)   # digit_counters[lane][thread]
    rk   = pool.view(offset=0,    shape=(32, 5),  dtype=lm.i32, stages=4, union=dc)   # raking_grid rows of warp w
    ex   = pool.view(offset=0,    shape=(1, 128), dtype=lm.i32, stages=4)   # exchange_keys, a quarter per warp
    agg  = pool.view(offset=2560, shape=(1, 1),   dtype=lm.i32, stages=4)   # block_scan warp aggregates
    bpre = pool.view(offset=2576, shape=(1, 1),   dtype=lm.i32, stages=1)   # block_scan block prefix
    keys = lm.regs(shape=(1, 128), dtype=lm.i32)
    cnt  = lm.regs(shape=(5, 32),  dtype=lm.i32)
    seg  = lm.regs(shape=(32, 5),  dtype=lm.i32)
    part = lm.regs(shape=(1, 1),   dtype=lm.i32)
    oth  = lm.regs(shape=(1, 1),   dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        c0 = 32 * w
        lm.copy(keys, KEYS, coords=(lm.block_idx(0), 128 * w))
        for p in lm.range(0, 8):
            lm.fill(cnt, 0)                                      # ResetCounters
            lm.copy(dc[0][:, c0:c0 + 32], cnt)
            lm.copy(cnt, dc[0][:, c0:c0 + 32])                   # thread_prefixes
            lm.binary(cnt, cnt, 1, op="add")
            lm.copy(dc[0][:, c0:c0 + 32], cnt)                   # inclusive prefix
            lm.sync(block)
            lm.copy(seg, rk[w])                                  # Upsweep: raking row
            lm.reduce(part, seg, op="sum", axis=0)
            lm.copy(agg[w], part)                                # BlockScan: warp aggregate
            lm.sync(block)
            for i in lm.range(0, 4):
                lm.copy(oth, agg[i])
                lm.binary(part, part, oth, op="add")
            if w == 0:
                lm.copy(bpre[0], part)                           # prefix callback
            lm.sync(block)
            lm.copy(oth, bpre[0])
            lm.binary(seg, seg, oth, op="add")
            lm.copy(rk[w], seg)                                  # ExclusiveDownsweep
            lm.sync(block)
            lm.copy(cnt, dc[0][:, c0:c0 + 32])                   # ranks
            lm.sync(block)                                       # SortBlocked: union reuse
            lm.copy(ex[(w + 1) % 4], keys)                       # ScatterToBlocked
            lm.sync(block)
            lm.copy(keys, ex[w])
            if p < 7:
                lm.sync(block)
        lm.copy(OUT, keys, coords=(lm.block_idx(0), 128 * w))
