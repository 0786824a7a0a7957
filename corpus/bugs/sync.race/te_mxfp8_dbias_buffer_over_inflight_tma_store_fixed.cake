# FIX of te_mxfp8_dbias_buffer_over_inflight_tma_store.cake:
# NVIDIA/TransformerEngine PR #2921: before the rowwise dbias reduction
# reuses dshmem, every thread calls cp_async_bulk_wait_group_read<0>() (the
# master's retires the last TMA stores) and __syncthreads() makes the
# other warps wait for it, so the 512 bytes of the buffer that spill over
# in_sh onto out_rowwise_data_sh[0] are written only after the store read
# them.  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_90a")
def te_mxfp8_dbias_after_bulk_wait_fixed(lm, X: LM.tma2d, Y: LM.tma2d, DB: LM.gmem):
    pool   = lm.smem(24576)
    in_s   = pool.view(offset=0,     shape=(32, 128), dtype=lm.bf16, stages=2)
    out_s  = pool.view(offset=16384, shape=(32, 128), dtype=lm.e4m3, stages=2)
    dbias  = pool.view(offset=0,     shape=(32, 132), dtype=lm.f32,  stages=1)   # reuses dshmem (in_sh)
    dbw    = pool.view(offset=0,     shape=(8, 132),  dtype=lm.f32,  stages=4)   # rows 8w..8w+7: slot w
    x_r    = lm.regs(shape=(8, 128),  dtype=lm.f32)
    y_r    = lm.regs(shape=(8, 128),  dtype=lm.e4m3)
    acc    = lm.regs(shape=(8, 132),  dtype=lm.f32)
    col    = lm.regs(shape=(32, 32),  dtype=lm.f32)
    dsum   = lm.regs(shape=(1, 32),   dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    full  = lm.barrier(count=4, prod=[warps], cons=[warps], init_count=1)
    cta   = lm.named_barrier(roles=[warps])

    m0 = lm.block_idx(1) * 128
    n0 = lm.block_idx(0) * 128

    with warps:
        w = lm.instance()
        lm.fill(acc, 0.0)
        if w == 0:
            in_s[0].tma_load(X, coords=(m0, n0), stage=0, barrier=full)
        for s in lm.range(0, 4):
            lm.tma_store_wait(pending=1)                           # every thread; only warp 0 has groups
            lm.sync(cta)                                           # PR #3417's handoff (see the header)
            if s + 1 < 4:
                if w == 0:
                    in_s[(s + 1) % 2].tma_load(X, coords=(m0 + (s + 1) * 32, n0), stage=s + 1, barrier=full)
            lm.wait(full, stage=s)
            lm.copy(x_r, in_s[s % 2][8 * w:8 * w + 8, :])
            lm.binary(acc[:, 0:128], acc[:, 0:128], x_r, op="add") # thread_dbias_rowwise
            lm.copy(y_r, x_r)                                      # scale and cast to e4m3
            lm.copy(out_s[s % 2][8 * w:8 * w + 8, :], y_r)
            lm.fence_proxy()
            lm.sync(cta)
            if w == 0:
                out_s.tma_store(Y, coords=(m0 + s * 32, n0), stage=s % 2)
                lm.tma_store_commit()
        lm.tma_store_wait(pending=0)                               # the fix (PR #2921): wait_group_read<0>
        lm.sync(cta)                                               # and __syncthreads() first
        lm.copy(dbw[w], acc)
        lm.sync(cta)
        lm.copy(col, dbias[0][:, 33 * w:33 * w + 32])
        lm.reduce(dsum, col, op="sum", axis=0)
        lm.copy(DB, dsum, coords=(lm.block_idx(1), n0 + 32 * w))
        lm.tma_store_wait(pending=0)
