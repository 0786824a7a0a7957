# FIXED form of pytorch_xpu_sbtopk_count_radix_rezero_before_reads.cake
# (intel/torch-xpu-ops PR #4312): a group_barrier() after every sub-group
# has read the block totals, as CUDA's countRadixUsingMask has, so the next
# radix pass clears the counts only after the last reader.
# expect: pass
@cake.schedule(target="sm_80")
def pytorch_xpu_sbtopk_radix_select_fixed(lm, Data: LM.gmem, Out: LM.gmem, n_passes: LM.i32):
    lm.assume(n_passes >= 1)
    pool   = lm.smem(512)
    cnt    = pool.view(offset=0, shape=(1, 16), dtype=lm.i32, stages=4)   # smem[0..15]
    zero   = lm.regs(shape=(1, 16), dtype=lm.i32)
    mine   = lm.regs(shape=(1, 16), dtype=lm.i32)
    counts = lm.regs(shape=(1, 16), dtype=lm.i32)
    part   = lm.regs(shape=(1, 16), dtype=lm.i32)

    sgs     = lm.role(warps=[0, 1, 2, 3], group=1)
    wgroup  = lm.named_barrier(roles=[sgs])

    with sgs:
        w = lm.instance()
        lm.fill(zero, 0)
        for d in lm.range(0, n_passes):
            if w == 0:                                  # lid < RADIX_SIZE: smem[lid] = 0
                for s in lm.range(0, 4):
                    lm.copy(cnt[s], zero)
            lm.sync(wgroup)
            lm.copy(mine, Data, coords=(d, 16 * w))     # this sub-group's digit counts
            lm.copy(cnt[w], mine)                       # lane 0's fetch_add of the totals
            lm.sync(wgroup)
            lm.fill(counts, 0)
            for s in lm.range(0, 4):                    # counts[j] = smem[j]
                lm.copy(part, cnt[s])    
                lm.binary(counts, counts, part, op="add")
            lm.sync(wgroup)                             # the fix: totals read before the next clear
        lm.copy(Out, counts, coords=(0, 16 * w))
