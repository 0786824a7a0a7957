# FIXED form of sglang_moe_align_prefix_search_before_barrier.cake
# (sgl-project/sglang PR #37663): a __syncthreads() after the shared
# prefix[] stores, before the expert_ids binary searches read it.
# expect: pass
@cake.schedule(target="sm_80")
def sglang_moe_align_prefix_search_after_barrier_fixed(lm, Counts: LM.gmem, ExpertIds: LM.gmem, n_blocks: LM.i32):
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
            lm.copy(prefix[0][:, 32 * w:32 * w + 32], cnt)
        lm.sync(cta)                                        # the fix (PR #37663)
        for r in lm.range(0, lm.cdiv(n_blocks, 128)):
            lm.copy(pre, prefix[0])
            lm.binary(eid, pre[:, 0:32], pre[:, 32:64], op="min")
            lm.copy(ExpertIds, eid, coords=(0, 128 * r + 32 * w))
