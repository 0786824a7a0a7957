# cub::BlockRadixSort (NVIDIA CUB, cub/block/block_radix_sort.cuh SortBlocked
# with cub/block/block_radix_rank.cuh BlockRadixRank::RankKeys and
# cub/block/block_exchange.cuh ScatterToBlocked; as vendored in
# ClickHouse/ClickHouse contrib/cub): 128 threads = 4 warps, 4 keys per
# thread, RADIX_BITS = 4, 32-bit keys: 8 passes.  One shared union holds the
# ranking storage and the key exchange buffer, and inside the ranking
# storage digit_counters[PADDED_COUNTER_LANES][BLOCK_THREADS] and
# raking_grid[BLOCK_THREADS][RAKING_SEGMENT] are a union again.  Per pass,
# at warp granularity:
#  * ResetCounters + count: warp w zeroes and increments its threads' column
#    band of digit_counters (thread-private columns), CTA_SYNC;
#  * ScanCounters: Upsweep -- thread t reads raking_grid[t], a ROW of the
#    same bytes (warp w: bytes [640w, 640w + 640), other warps' columns);
#    BlockScan (WARP_SCANS) ExclusiveSum with a prefix callback: warp
#    aggregates, CTA_SYNC, warp 0's block prefix, CTA_SYNC;
#    ExclusiveDownsweep writes the row back; CTA_SYNC;
#  * rank extraction: each thread reads its own column band of
#    digit_counters (written by other warps' downsweeps), then SortBlocked's
#    CTA_SYNC: the exchange buffer aliases the counters;
#  * ScatterToBlocked: each thread stores its keys at their ranks,
#    CTA_SYNC, reads its blocked keys back; CTA_SYNC before the next pass
#    (its ResetCounters writes over the exchange buffer).
# digit_counters and raking_grid are one flat view of the 640 counters:
# thread t's counters are entries 128 * lane + t (a column band of warp w per
# lane), its raking row entries 5t .. 5t + 4 (warp w: 160w .. 160w + 159).
# Written as the two union members (two views over the same bytes, both
# written) they need `union=` (docs/ir-extensions.md "Union members"):
# corpus/reduction/sm80_cub_block_radix_rank_union_views.cake.
# The scatter's destinations depend on the keys; the ranks are a permutation,
# so the stores never overlap: modelled as warp w storing the quarter that
# warp (w + 1) % 4 reads back (every read comes from another warp).
# Bug twins: corpus/bugs/sync.race/cub_radix_sort_exchange_over_counters_no_sync.cake
# (the CTA_SYNC between the rank extraction and the scatter dropped),
# corpus/bugs/sync.race/cub_radix_sort_next_pass_reset_no_sync.cake (the
# CTA_SYNC at the end of a pass dropped).
# expect: pass
@cake.schedule(target="sm_80")
def block_radix_sort(lm, KEYS: LM.gmem, OUT: LM.gmem):
    pool = lm.smem(2592)
    ctr  = pool.view(offset=0,    shape=(1, 640), dtype=lm.i32, stages=1)   # digit_counters / raking_grid
    ex   = pool.view(offset=0,    shape=(1, 128), dtype=lm.i32, stages=4)   # exchange_keys, a quarter per warp
    agg  = pool.view(offset=2560, shape=(1, 1),   dtype=lm.i32, stages=4)   # block_scan warp aggregates
    bpre = pool.view(offset=2576, shape=(1, 1),   dtype=lm.i32, stages=1)   # block_scan block prefix
    keys = lm.regs(shape=(1, 128), dtype=lm.i32)
    cnt  = lm.regs(shape=(1, 32),  dtype=lm.i32)
    seg  = lm.regs(shape=(1, 160), dtype=lm.i32)
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
            for lane in lm.range(0, 5):
                lm.copy(ctr[p][:, 128 * lane + c0:128 * lane + c0 + 32], cnt)
            for lane in lm.range(0, 5):                          # count: thread_prefixes, + 1
                lm.copy(cnt, ctr[p][:, 128 * lane + c0:128 * lane + c0 + 32])
                lm.binary(cnt, cnt, 1, op="add")
                lm.copy(ctr[p][:, 128 * lane + c0:128 * lane + c0 + 32], cnt)
            lm.sync(block)
            lm.copy(seg, ctr[p][:, 160 * w:160 * w + 160])       # Upsweep: raking rows
            lm.reduce(part, seg, op="sum", axis=1)
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
            lm.copy(ctr[p][:, 160 * w:160 * w + 160], seg)       # ExclusiveDownsweep
            lm.sync(block)
            for lane in lm.range(0, 5):                          # ranks
                lm.copy(cnt, ctr[p][:, 128 * lane + c0:128 * lane + c0 + 32])
            lm.sync(block)                                       # SortBlocked: union reuse
            lm.copy(ex[(w + 1) % 4], keys)                       # ScatterToBlocked
            lm.sync(block)
            lm.copy(keys, ex[w])
            if p < 7:
                lm.sync(block)
        lm.copy(OUT, keys, coords=(lm.block_idx(0), 128 * w))
