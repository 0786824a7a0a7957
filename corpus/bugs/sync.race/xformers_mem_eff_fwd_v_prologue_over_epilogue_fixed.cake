# FIXED: xformers_mem_eff_fwd_v_prologue_over_epilogue.cake with the
# barrier the kernel has after facebookresearch/xformers PR #381 before each
# column block's mainloop ("__syncthreads(); // we share shmem between mma
# and epilogue"): no warp cp.asyncs the next V block into the union before
# every warp has read its epilogue rows.
# expect: pass
@cake.schedule(target="sm_80")
def xformers_mem_eff_fwd_sync_before_mainloop(lm, P: LM.gmem, V: LM.gmem, O: LM.gmem, Kv: LM.i32):
    lm.assume(Kv >= 1)
    pool   = lm.smem(24576)
    si     = pool.view(offset=0,    shape=(64, 32), dtype=lm.f16, stages=2)   # shared_storage_si, by k-step
    v      = pool.view(offset=8192, shape=(64, 32), dtype=lm.f16, stages=2)   # mm: V stage (value cols x keys)
    v_band = pool.view(offset=8192, shape=(16, 32), dtype=lm.f16, stages=8)
    epi    = pool.view(offset=8192, shape=(64, 64), dtype=lm.f32, stages=1)   # epilogue (union with mm)
    p      = lm.regs(shape=(16, 32), dtype=lm.f16)
    acc    = lm.regs(shape=(64, 16), dtype=lm.f32)
    out    = lm.regs(shape=(16, 64), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[warps])

    m0 = 64 * lm.block_idx(0)
    n_blocks = lm.cdiv(Kv, 64)

    with warps:
        w = lm.instance()
        for k in lm.range(0, 2):                               # MM0's P tile -> si
            lm.copy(p, P, coords=(m0 + 16 * w, 32 * k))
            lm.copy(si[k][16 * w:16 * w + 16, :], p)
        lm.sync(bar)
        for n in lm.range(0, n_blocks):
            lm.sync(bar)                                       # the fix: we share shmem between mma and epilogue
            v_band.cp_async(V, coords=(64 * n + 16 * w, 0), stage=w)
            lm.cp_async_commit()
            for k in lm.range(0, 2):
                lm.cp_async_wait(pending=0)
                lm.sync(bar)
                if k + 1 < 2:
                    v_band.cp_async(V, coords=(64 * n + 16 * w, 32 * (k + 1)), stage=4 * ((k + 1) % 2) + w)
                lm.cp_async_commit()
                lm.mma(acc, si[k], v[k % 2][16 * w:16 * w + 16, :], init=(k == 0))
            lm.cp_async_wait(pending=0)
            lm.sync(bar)                                       # we share shmem between mma and epilogue
            lm.copy(epi[0][:, 16 * w:16 * w + 16], acc)
            lm.sync(bar)
            lm.copy(out, epi[0][16 * w:16 * w + 16, :])
            lm.copy(O, out, coords=(m0 + 16 * w, 64 * n))
