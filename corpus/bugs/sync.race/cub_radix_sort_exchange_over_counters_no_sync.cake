# BROKEN twin of corpus/reduction/sm80_cub_block_radix_sort_passes.cake
# (cub::BlockRadixSort::SortBlocked, NVIDIA CUB cub/block/block_radix_sort.cuh):
# the CTA_SYNC between RankKeys and BlockExchange::ScatterToBlocked dropped.
# The exchange buffer is a member of the same TempStorage union as the digit
# counters: a warp that is done ranking scatters its keys over counters that
# a slower warp is still reading for its ranks.
# Fixed form: corpus/reduction/sm80_cub_block_radix_sort_passes.cake.
# expect: sync.race
# may-also: data.stale-read
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
                lm.copy(cnt, ctr[p][:, 128 * lane + c0:128 * lane + c0 + 32])   # expect-error: sync.race
            lm.copy(ex[(w + 1) % 4], keys)                       # expect-error: sync.race
            lm.sync(block)
            lm.copy(keys, ex[w])
            if p < 7:
                lm.sync(block)
        lm.copy(OUT, keys, coords=(lm.block_idx(0), 128 * w))
