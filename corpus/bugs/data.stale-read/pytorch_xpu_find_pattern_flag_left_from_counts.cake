# BUG (data.stale-read): intel/torch-xpu-ops PR #4303 ("Fix stale found-flag
# in radix select findPattern", merged 2026-07-11; pinned into
# pytorch/pytorch by PR #189864, see intel/torch-xpu-ops issue #4604:
# torch.topk on XPU returned [7, 6, 5, 5, 5] for [9, 9, 9, 8, 7]).
# PyTorch's XPU radix select, src/ATen/native/xpu/sycl/SortingRadixSelect.h
# (the SYCL port of CUDA's SortingRadixSelect.cuh; the stored version is
# the fixed one).  Each radix pass's countRadixUsingMask clears
# smem[0..RADIX_SIZE), every thread atomicAdds its digit counts there,
# group_barrier(), every thread reads the totals, group_barrier().  When a
# pass finds the unique bucket, findPattern searches the slice:
#     smem_ptr = (scalar_t*) smem;
#     (BUG) smem_ptr[RADIX_SIZE] = 0;      // fix: smem_ptr[0], smem_ptr[1] = 0
#     group_barrier();
#     for (i = tid; i < round_up(sliceSize, blockDim); i += blockDim) {
#       if (match(data[i])) { smem_ptr[0] = 1; smem_ptr[1] = v; }
#       group_barrier();
#       found = smem_ptr[0]; val = smem_ptr[1];
#       group_barrier();
#       if (found != 0) return val;
#     }
# The found flag and value share the bytes of counts[0..1] of the last
# pass; zeroing slot RADIX_SIZE leaves them holding the counts, so in a
# chunk where no thread matched, `found` is a nonzero count and every
# thread returns a count's bits as the k-th value.  The PR zeroes slots
# 0/1, as CUDA does.
# Modelled: four sub-groups as one-warp instances, group_barrier() a named
# barrier; the RADIX_SIZE = 4 counts as the first four words of one
# 8-word slot per sub-group (each sub-group's atomic adds into its own
# slot; the IR has no atomics, and those of one pass never race), slot 0
# holding the real smem[0..3]; the flag/value pair as an f32 view over
# smem[0..1] and smem_ptr[RADIX_SIZE] as an f32 word at byte 16; n_passes
# radix passes, then findPattern over hit + 1 chunks, the match in chunk
# `hit` held by sub-group 1.  Left out: the digit arithmetic.
# Fix: pytorch_xpu_find_pattern_flag_left_from_counts_fixed.cake.
# expect: data.stale-read
@cake.schedule(target="sm_80")
def pytorch_xpu_radix_select_find_pattern(lm, Data: LM.gmem, Out: LM.gmem,
                                          n_passes: LM.i32, hit: LM.i32):
    lm.assume(n_passes >= 1)
    lm.assume(n_passes <= 16)                           # 32-bit keys, RADIX_BITS = 2
    lm.assume(hit >= 0)
    pool   = lm.smem(256)
    cnt    = pool.view(offset=0,  shape=(1, 8), dtype=lm.i32, stages=4)   # smem[] as int counts
    flag   = pool.view(offset=0,  shape=(1, 2), dtype=lm.f32)             # smem_ptr[0..1]
    past   = pool.view(offset=16, shape=(1, 1), dtype=lm.f32)             # smem_ptr[RADIX_SIZE]
    zero   = lm.regs(shape=(1, 4), dtype=lm.i32)
    mine   = lm.regs(shape=(1, 4), dtype=lm.i32)
    counts = lm.regs(shape=(1, 4), dtype=lm.i32)
    part   = lm.regs(shape=(1, 4), dtype=lm.i32)
    pz     = lm.regs(shape=(1, 1), dtype=lm.f32)
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
            lm.fill(pz, 0.0)
            lm.copy(past[0], pz)                        # BUG: smem_ptr[RADIX_SIZE] = 0
        lm.sync(wgroup)
        for i in lm.range(0, hit + 1):
            if i == hit and w == 1:                     # the thread holding the match
                lm.copy(fv, Data, coords=(n_passes, 0))
                lm.copy(flag[0], fv)                    # smem_ptr[0] = 1; smem_ptr[1] = v
            lm.sync(wgroup)
            lm.copy(fv, flag[0])                        # expect-error: data.stale-read
            lm.sync(wgroup)
        lm.copy(Out, fv, coords=(0, 2 * w))
