# BUG (sync.race): sgl-project/sglang PR #37663 ("Fix shared-memory race in
# MoE alignment kernel", 2026-09-02).  moe_align_block_size_kernel
# (sgl-kernel csrc/moe/moe_align_kernel.cu and its JIT twin) computes the
# padded per-expert counts' exclusive scan in scan_buf (two-level warp
# scan, three __syncthreads()), then the threads tid < num_experts copy it
# to the shared prefix[] (`prefix[tid] = scan_buf[tid]`), and every thread
# goes straight on to fill expert_ids: a binary search over prefix[mid] for
# each of its blocks.  No barrier separates the prefix stores from the
# searches, so a thread can read entries another warp has not stored yet.
# The fix adds __syncthreads() after the shared prefix/cumsum setup and
# before the expert_ids loop (AOT and JIT).
# Modelled: num_experts = 64 and 128 threads (scan_size 128): four warps,
# each a one-warp instance; __syncthreads() a named barrier over them;
# scan_buf one 128-entry row (warp w owns entries 32w..32w+31), prefix one
# 64-entry row written by warps 0 and 1; the binary search reads the whole
# prefix row (the entries it probes depend on the data); lm.binary stands
# for the warp scan and for the search's comparisons.  Left out: the
# counting with shared atomics, warp_sums, cumsum and the padding of
# sorted_token_ids.
# Fix: sglang_moe_align_prefix_search_before_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def sglang_moe_align_prefix_search_before_barrier(lm, Counts: LM.gmem, ExpertIds: LM.gmem, n_blocks: LM.i32):
    lm.assume(n_blocks >= 1)
    pool     = lm.smem(1024)
    scan_buf = pool.view(offset=0,   shape=(1, 128), dtype=lm.i32, stages=1)
    prefix   = pool.view(offset=512, shape=(1, 64), dtype=lm.i32, stages=1)
    cnt  = lm.regs(shape=(1, 32), dtype=lm.i32)
    pre  = lm.regs(shape=(1, 64), dtype=lm.i32)
    eid  = lm.regs(shape=(1, 32), dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        lm.copy(cnt, Counts, coords=(0, 32 * w))            # padded counts (0 past num_experts)
        lm.binary(cnt, cnt, 1, op="add")                    # warp_exclusive_scan + offset
        lm.copy(scan_buf[0][:, 32 * w:32 * w + 32], cnt)
        lm.sync(cta)
        if w < 2:
            lm.copy(cnt, scan_buf[0][:, 32 * w:32 * w + 32])
            lm.copy(prefix[0][:, 32 * w:32 * w + 32], cnt)  # expect-error: sync.race
        # BUG: no __syncthreads() before the expert_ids fill
        for r in lm.range(0, lm.cdiv(n_blocks, 128)):
            lm.copy(pre, prefix[0])                         # expect-error: sync.race
            lm.binary(eid, pre[:, 0:32], pre[:, 32:64], op="min")
            lm.copy(ExpertIds, eid, coords=(0, 128 * r + 32 * w))
