# BUG (sync.race): NVIDIA/cccl issue #351 ("Racy non-trivial runs test"),
# fixed by PR #399 ("Fixes a race in DeviceRunLengthEncode::NonTrivialRuns",
# 2023-09-04; cub/cub/agent/agent_rle.cuh).  AgentRle::WarpScanAllocations
# has the last lane of every warp write its warp's run-count aggregate to
# temp_storage.aliasable.scan_storage.warp_aggregates[warp_id], CTA_SYNC(),
# then every thread reads the aggregates (warp_aggregates[warp_id] and
# warp_aggregates[0], the prefix over the earlier warps and the tile
# aggregate).  Scatter() then repurposes the same shared memory (the
# `aliasable` union) as each warp's WarpExchange scratch - with no barrier
# between the last read of warp_aggregates and the first exchange write, so
# warp 0 could start scattering into the bytes that still hold the
# aggregates while a lagging warp had not read them yet (compute-sanitizer
# racecheck; "INCORRECT: [173]: 0 != 968 Offsets FAIL" once in ~1300 runs).
# The fix adds CTA_SYNC() at the end of WarpScanAllocations.
# Modelled: 4 warps, each a one-warp instance (the warp-level scans and
# exchanges are intra-warp); __syncthreads()/CTA_SYNC() a named barrier
# over them; warp_aggregates is four 128-byte slots (one per warp) at the
# start of the union, each warp's exchange scratch a 1 KiB slot of the
# same union, so warp 0's exchange covers every aggregate; the run lengths
# are a register tile loaded from the input (lm.reduce stands for the
# warp's scan of its run flags, lm.binary for the prefix combination).
# Left out: the tile's decoupled look-back and the per-lane run offsets.
# Fix: cccl_rle_warp_aggregates_scatter_alias_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def cccl_rle_warp_aggregates_scatter_alias(lm, In: LM.gmem, Offsets: LM.gmem):
    pool     = lm.smem(4096)
    warp_agg = pool.view(offset=0, shape=(1, 32), dtype=lm.i32, stages=4)   # scan_storage.warp_aggregates
    exch     = pool.view(offset=0, shape=(8, 32), dtype=lm.i32, stages=4)   # aliasable: per-warp exchange
    runs  = lm.regs(shape=(8, 32), dtype=lm.i32)
    agg   = lm.regs(shape=(1, 32), dtype=lm.i32)
    other = lm.regs(shape=(1, 32), dtype=lm.i32)
    pre   = lm.regs(shape=(1, 32), dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        lm.copy(runs, In, coords=(8 * (4 * lm.block_idx(0) + w), 0))
        # WarpScanAllocations: the warp's aggregate to shared memory
        lm.reduce(agg, runs, op="sum", axis=0)
        lm.copy(warp_agg[w], agg)                           # expect-error: sync.race
        lm.sync(cta)                                        # CTA_SYNC()
        lm.copy(pre, warp_agg[0])                           # expect-error: sync.race
        for j in lm.range(1, 4):
            lm.copy(other, warp_agg[j])                     # expect-error: sync.race
            lm.binary(pre, pre, other, op="add")
        # BUG: no CTA_SYNC() before Scatter() reuses the union
        # Scatter(): the warp's exchange through shared memory
        lm.binary(runs, runs, pre, op="add")
        lm.copy(exch[w], runs)                              # expect-error: sync.race
        lm.copy(runs, exch[w])
        lm.copy(Offsets, runs, coords=(8 * (4 * lm.block_idx(0) + w), 0))
