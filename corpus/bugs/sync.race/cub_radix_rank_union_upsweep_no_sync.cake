# BROKEN twin of corpus/reduction/sm80_cub_block_radix_rank_union_views.cake
# (cub::BlockRadixRank's digit_counters and raking_grid declared one union,
# `rk = pool.view(..., union=dc)`): the CTA_SYNC between the counting and
# ScanCounters' Upsweep dropped.  A warp reads its raking row - other warps'
# counter columns, written through the other member - while a slower warp is
# still storing its counts there.  The union makes the row mean the counts
# written through dc; it orders nothing: the read races with the write.
# Fixed form: corpus/reduction/sm80_cub_block_radix_rank_union_views.cake.
# expect: sync.race
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
            lm.copy(dc[0][:, c0:c0 + 32], cnt)  # expect-error: sync.race
            lm.copy(cnt, dc[0][:, c0:c0 + 32])                   # thread_prefixes
            lm.binary(cnt, cnt, 1, op="add")
            lm.copy(dc[0][:, c0:c0 + 32], cnt)                   # inclusive prefix  # expect-error: sync.race
            lm.copy(seg, rk[w])                                  # Upsweep: BUG, no CTA_SYNC before  # expect-error: sync.race
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
