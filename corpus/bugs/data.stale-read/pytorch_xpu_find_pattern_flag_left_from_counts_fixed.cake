# FIXED form of pytorch_xpu_find_pattern_flag_left_from_counts.cake
# (intel/torch-xpu-ops PR #4303): findPattern zeroes the found flag and
# value (smem_ptr[0..1]) before its search, so a chunk in which no thread
# matched reads a zero flag, not the last pass's counts.
# expect: pass
@cake.schedule(target="sm_80")
def pytorch_xpu_radix_select_find_pattern_fixed(lm, Data: LM.gmem, Out: LM.gmem,
                                          n_passes: LM.i32, hit: LM.i32):
    lm.assume(n_passes >= 1)
    lm.assume(n_passes <= 16)                           # 32-bit keys, RADIX_BITS = 2
    lm.assume(hit >= 0)
    pool   = lm.smem(256)
    cnt    = pool.view(offset=0,  shape=(1, 8), dtype=lm.i32, stages=4)   # smem[] as int counts
    flag   = pool.view(offset=0,  shape=(1, 2), dtype=lm.f32)             # smem_ptr[0..1]
    zero   = lm.regs(shape=(1, 4), dtype=lm.i32)
    mine   = lm.regs(shape=(1, 4), dtype=lm.i32)
    counts = lm.regs(shape=(1, 4), dtype=lm.i32)
    part   = lm.regs(shape=(1, 4), dtype=lm.i32)
    fz     = lm.regs(shape=(1, 2), dtype=lm.f32)
    fv     = lm.regs(shape=(1, 2), dtype=lm.f32)

    sgs    = lm.role(warps=[0, 1, 2, 3], group=1)
    wgroup = lm.named_barrier(roles=[sgs])

    with sgs:
        w = lm.instance()
        lm.fill(zero, 0)
        for d in lm.range(0, n_passes):                 # countRadixUsingMask
            if w == 0:
                for s in lm.range(0, 4):
                    lm.copy(cnt[s][:, 0:4], zero)       # smem[lid] = 0
            lm.sync(wgroup)
            lm.copy(mine, Data, coords=(d, 4 * w))
            lm.copy(cnt[w][:, 0:4], mine)               # atomicAdd(smem + i, counts[i])
            lm.sync(wgroup)
            lm.fill(counts, 0)
            for s in lm.range(0, 4):
                lm.copy(part, cnt[s][:, 0:4])           # counts[i] = smem[i]
                lm.binary(counts, counts, part, op="add")
            lm.sync(wgroup)
        # findPattern
        if w == 0:
            lm.fill(fz, 0.0)
            lm.copy(flag[0], fz)                        # the fix: smem_ptr[0] = smem_ptr[1] = 0
        lm.sync(wgroup)
        for i in lm.range(0, hit + 1):
            if i == hit and w == 1:                     # the thread holding the match
                lm.copy(fv, Data, coords=(n_passes, 0))
                lm.copy(flag[0], fv)                    # smem_ptr[0] = 1; smem_ptr[1] = v
            lm.sync(wgroup)
            lm.copy(fv, flag[0])
            lm.sync(wgroup)
        lm.copy(Out, fv, coords=(0, 2 * w))
