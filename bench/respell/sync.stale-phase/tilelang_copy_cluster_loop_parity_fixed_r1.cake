# RESPELLING of corpus/bugs/sync.stale-phase/tilelang_copy_cluster_loop_parity_fixed.cake (the fix: phase 0, explicit)
# (tile-ai/tilelang issue #2927): the loop over the column offset in steps
# of 64, slot and phase derived as c // 64 (the parity bug: the loop
# counter used as the phase of a slot that is used once), the accumulator
# zeroed by a copy from a zero fragment, a redundant fence at the top.
# expect: pass
@cake.schedule(target="sm_90a")
def copy_cluster_fixed(lm, src: LM.tma2d, dst: LM.tma2d):
    smem = lm.smem(49152)
    xs   = smem.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stage=4)
    ys   = smem.view(offset=32768, shape=(64, 64), dtype=lm.f32)
    t    = lm.regs(shape=(64, 64), dtype=lm.f32)
    s    = lm.regs(shape=(64, 64), dtype=lm.f32)
    threads = lm.role(warps=[0, 1, 2, 3])
    mbar = lm.barrier(count=4, prod=[threads], cons=[threads], init_count=1)
    r0 = 64 * lm.block_idx(0)
    with threads:
        lm.fence_proxy()
        lm.fill(s, 0.0)
        for c in lm.range(0, 256, 64):
            xs.tma_load(src, coords=(r0, c), stage=c // 64, barrier=mbar)
            lm.wait(mbar, stage=c // 64, phase=0)   # each slot is used once: phase 0
            lm.copy(t, xs[c // 64])
            lm.binary(s, s, t, op="add")
        lm.copy(ys[0], s)
        lm.fence_proxy()
        ys.tma_store(dst, coords=(r0, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
