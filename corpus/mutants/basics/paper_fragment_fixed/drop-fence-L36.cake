# mutant: drop-fence
# original: corpus/basics/paper_fragment_fixed.cake
# line: 36: lm.fence_proxy()
# change: deleted `lm.fence_proxy()`
# label: bad (proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), seqlen_q = 0; block_idx 0 of grid_dim 1; 24 states; first violation: proxy.missing-fence: epi reads smem_o[0] bytes [98304, 131072) through the async proxy, but epi's generic-proxy write of it has no lm.fence_proxy() after it at `smem_o.tma_store(O, coords=(0, 0), stage=0)` (line 36) (seqlen_q=0)
# expect-any: proxy.missing-fence
# The paper's fragment (basics/paper_fragment.cake) completed into a kernel
# that passes on sm_100a: the MMA warp commits its tcgen05 MMAs to a
# barrier (mma_commit(barrier=mma_done)), and an epilogue warpgroup waits
# for it before reading the TMEM accumulator, so no MMA is in flight when
# the block exits.  The epilogue stages the result through smem (fenced)
# and TMA-stores it to O, then drains the store.
# Still a teaching example (it multiplies each Q slot by itself).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_100a")
def fmha_fwd_fixed(lm, Q: LM.tma3d, O: LM.tma2d, seqlen_q: LM.i32):
    pool     = lm.smem(131072)
    smem_q   = pool.view(offset=0, shape=(128,128), dtype=lm.bf16, stage=3)
    smem_o   = pool.view(offset=98304, shape=(128,128), dtype=lm.bf16, stages=1)
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128,128), dtype=lm.f32)
    acc_r    = lm.regs(shape=(128,128), dtype=lm.f32)
    load = lm.role(warps=[0])
    mma  = lm.role(warps=[1])
    epi  = lm.role(warps=[4, 5, 6, 7])
    pipe = lm.pipeline(stages=3)
    q_full = lm.barrier(count=3, prod=[load], cons=[mma],
                        init_count=1, pipeline=pipe)
    mma_done = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    with load:
        for stage in lm.range(0, 3):
            smem_q.tma_load(Q, coords=(0,0,stage), stage=stage, barrier=q_full)
    with mma:
        for stage in lm.range(0, 3):
            lm.wait(q_full, stage=stage)
            lm.fence_proxy()
            lm.mma(tmem_acc, smem_q[stage], smem_q[stage], init=(stage == 0))
        lm.mma_commit(barrier=mma_done, stage=0)
    with epi:
        lm.wait(mma_done, stage=0)
        lm.copy(acc_r, tmem_acc)
        lm.copy(smem_o[0], acc_r)
        smem_o.tma_store(O, coords=(0, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
