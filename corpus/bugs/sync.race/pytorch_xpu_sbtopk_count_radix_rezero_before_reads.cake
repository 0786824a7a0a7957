# BUG (sync.race): intel/torch-xpu-ops PR #4312 ("Fix read/write races in
# topk single-workgroup kernel", merged 2026-07-13; pinned into
# pytorch/pytorch by PR #189864, see intel/torch-xpu-ops issue #4604).
# PyTorch's XPU topk, src/ATen/native/xpu/sycl/TensorTopKSingleWgKernel.cpp
# (the stored version, commit 03d70a48, is the racy one), a SYCL
# translation of CUDA's SortingRadixSelect.cuh / TensorTopK.cu: one
# 1024-thread work-group per slice; radixSelect walks the digits MSB to
# LSB, and every pass calls countRadixUsingMask:
#     if (lid < RADIX_SIZE) smem[lid] = 0;            // clear the 16 counts
#     group_barrier();
#     ... per-thread counts, sub-group reduce;
#     if (sg_lid == 0) atomic_ref(smem[j]).fetch_add(total);
#     group_barrier();
#     for (j) counts[j] = smem[j];                     // every thread reads
#     // (BUG) no barrier: CUDA's countRadixUsingMask ends with a
#     // __syncthreads() here; the SYCL port dropped it
# The next pass's `smem[lid] = 0` (sub-group 0) lands while a lagging
# sub-group still reads this pass's totals: it picks a wrong digit bucket
# and the k-th value (and the gathered top-k) are wrong.  The PR adds the
# WAR group_barrier()s "at these points", matching the CUDA source.
# Modelled: four sub-groups as one-warp instances, group_barrier() a named
# barrier over them; the 16 counts as one slot per sub-group (each
# sub-group's lane-0 atomic adds are its own slot: atomics of one pass are
# unordered but never a race among themselves, and the IR has none), so the
# clear writes all four slots and the totals read all four; n_passes radix
# passes.  Left out: findPattern and the gather's prefix scans (the PR's
# other barriers), the digit bookkeeping (registers only).
# Fix: pytorch_xpu_sbtopk_count_radix_rezero_before_reads_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def pytorch_xpu_sbtopk_radix_select(lm, Data: LM.gmem, Out: LM.gmem, n_passes: LM.i32):
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
                    lm.copy(cnt[s], zero)               # expect-error: sync.race
            lm.sync(wgroup)
            lm.copy(mine, Data, coords=(d, 16 * w))     # this sub-group's digit counts
            lm.copy(cnt[w], mine)                       # lane 0's fetch_add of the totals
            lm.sync(wgroup)
            lm.fill(counts, 0)
            for s in lm.range(0, 4):                    # counts[j] = smem[j]
                lm.copy(part, cnt[s])                   # expect-error: sync.race
                lm.binary(counts, counts, part, op="add")
            # BUG: no group_barrier() before the next pass clears smem
        lm.copy(Out, counts, coords=(0, 16 * w))
