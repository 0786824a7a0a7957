# FIXED form of cccl_rle_warp_aggregates_scatter_alias.cake (NVIDIA/cccl
# PR #399, issue #351): AgentRle::WarpScanAllocations ends with CTA_SYNC(),
# so every warp has read warp_aggregates before any warp's Scatter() reuses
# the aliased shared memory as its exchange scratch.
# expect: pass
@cake.schedule(target="sm_80")
def cccl_rle_warp_aggregates_scatter_alias_fixed(lm, In: LM.gmem, Offsets: LM.gmem):
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
        lm.reduce(agg, runs, op="sum", axis=0)
        lm.copy(warp_agg[w], agg)
        lm.sync(cta)                                        # CTA_SYNC()
        lm.copy(pre, warp_agg[0])
        for j in lm.range(1, 4):
            lm.copy(other, warp_agg[j])
            lm.binary(pre, pre, other, op="add")
        lm.sync(cta)                                        # the fix (PR #399)
        lm.binary(runs, runs, pre, op="add")
        lm.copy(exch[w], runs)
        lm.copy(runs, exch[w])
        lm.copy(Offsets, runs, coords=(8 * (4 * lm.block_idx(0) + w), 0))
