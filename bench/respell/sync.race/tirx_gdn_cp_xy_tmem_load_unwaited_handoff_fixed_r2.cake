# RESPELLING of corpus/bugs/sync.race/tirx_gdn_cp_xy_tmem_load_unwaited_handoff_fixed.cake
# (mlc-ai/TIRx-kernels GDN chunk): the MMA warp's first-lap wait on the
# TMEM handoff as a guard, the two commits in the other order, the load
# ring with stage=c % 2 and implicit phases, the TMEM columns at 384.
# Commit order swapped: the ld_empty commit comes AFTER the acc_full one, so
# the last chunks' ld_empty arrivals are observed by no wait, directly or
# through a later commit (docs/corpus.md point 8): sync.async-at-exit by
# the project's exit rule - a semantic change, not a re-spelling.
# expect: sync.async-at-exit
@cake.schedule(target="sm_100a")
def gdn_chunk_fixed(lm, X: LM.tma2d, Y: LM.tma2d, O: LM.gmem, chunks: LM.i32):
    lm.assume(chunks > 0)
    smem = lm.smem(65536)
    xs = smem.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    ys = smem.view(offset=32768, shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    t_xy = lm.tmem(cols=384, width=64, shape=(128, 64), dtype=lm.f32)
    r_xy = lm.regs(shape=(128, 64), dtype=lm.f32)
    wg   = lm.role(warps=[0, 1, 2, 3])
    tma  = lm.role(warps=[8])
    mma  = lm.role(warps=[9])
    ld_full  = lm.barrier(count=2, prod=[tma], cons=[mma], init_count=1)
    ld_empty = lm.barrier(count=2, prod=[mma], cons=[tma], init_count=1)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[wg], init_count=1)
    acc_free = lm.barrier(count=1, prod=[wg], cons=[mma], init_count=1)
    col = 64 * lm.block_idx(0)
    with tma:
        for c in lm.range(0, chunks):
            if c >= 2:
                lm.wait(ld_empty, stage=c % 2)
            xs.tma_load(X, coords=(128 * c, 0), stage=c % 2, barrier=ld_full)
            ys.tma_load(Y, coords=(col, 0), stage=c % 2, barrier=ld_full)
    with mma:
        for c in lm.range(0, chunks):
            lm.wait(ld_full, stage=c % 2)
            if c > 0:
                lm.wait(acc_free, iter=c - 1)
            lm.mma(t_xy, xs[c % 2], ys[c % 2], init=True)
            lm.mma_commit(barrier=acc_full, iter=c)
            lm.mma_commit(barrier=ld_empty, stage=c % 2)    # expect-error: sync.async-at-exit
    with wg:
        for c in lm.range(0, chunks):
            lm.wait(acc_full, iter=c)
            lm.tmem_load(r_xy, t_xy)
            lm.tmem_load_wait()
            lm.arrive(acc_free, iter=c)          # the fix: release after the load retired
            lm.copy(O, r_xy, coords=(128 * c, col))
