# FIXED: te_group_mxfp8_store_wait_leader_only.cake with the CTA-wide
# synchronization point that NVIDIA/TransformerEngine PR #3417 adds after
# the leader's cp_async_bulk_wait_group_read (issue #3474, PR #3483 for the
# grouped kernel): no thread writes a staging buffer before the leader has
# seen its previous TMA store finish reading it.
# expect: pass
@cake.schedule(target="sm_100a")
def te_group_mxfp8_store_wait_then_cta_sync(lm, In: LM.gmem, Out: LM.tma2d, n_stages: LM.i32):
    lm.assume(n_stages >= 1)
    pool    = lm.smem(16384)
    out_buf = pool.view(offset=0, shape=(64, 128), dtype=lm.e4m3, stages=2)
    x       = lm.regs(shape=(16, 128), dtype=lm.bf16)
    q       = lm.regs(shape=(16, 128), dtype=lm.e4m3)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[warps])

    row0 = lm.block_idx(0) * n_stages * 64

    with warps:
        w = lm.instance()
        for s in lm.range(0, n_stages):
            if w == 0:
                lm.tma_store_wait(pending=1)          # leading thread only
            lm.sync(bar)                              # the leader's wait, handed to the CTA
            lm.copy(x, In, coords=(row0 + 64 * s + 16 * w, 0))
            lm.copy(q, x)
            lm.copy(out_buf[s][16 * w:16 * w + 16, :], q)
            lm.fence_proxy()
            lm.sync(bar)
            if w == 0:
                out_buf.tma_store(Out, coords=(row0 + 64 * s, 0), iter=s)
                lm.tma_store_commit()
        if w == 0:
            lm.tma_store_wait(pending=0)
