# RESPELLING of corpus/bugs/sync.race/fbtriton_gdpa_merge_epi_no_named_barrier.cake
# (facebookexperimental/triton GDPA merged epilogue): the two activation
# warpgroups as ONE role of two 4-warp instances that pick their TMEM
# accumulator with a guard, the two output stores as a loop, the A loads
# as a loop over the two halves.
# expect: sync.race
@cake.schedule(target="sm_100a")
def gdpa_fwd(lm, A: LM.tma2d, B: LM.tma2d, O: LM.tma2d):
    smem = lm.smem(114688)
    a_lo = smem.view(offset=0,     shape=(128, 64),  dtype=lm.bf16, swizzle="128B")
    a_hi = smem.view(offset=16384, shape=(128, 64),  dtype=lm.bf16, swizzle="128B")
    b_s  = smem.view(offset=32768, shape=(128, 64),  dtype=lm.bf16, swizzle="128B")
    out  = smem.view(offset=49152, shape=(128, 128), dtype=lm.bf16, stages=2)
    acc0 = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    acc1 = lm.tmem(cols=128, width=128, shape=(128, 128), dtype=lm.f32)
    frag = lm.regs(shape=(128, 128), dtype=lm.f32)
    tma_warp = lm.role(warps=[0])
    mma_warp = lm.role(warps=[1])
    epi_warp = lm.role(warps=[2])
    act = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)
    loaded  = lm.barrier(count=1, prod=[tma_warp], cons=[mma_warp], init_count=1)
    o_ready = lm.barrier(count=1, prod=[mma_warp], cons=[act, epi_warp], init_count=1)
    row = 256 * lm.block_idx(0)
    with tma_warp:
        b_s.tma_load(B, coords=(0, 0), stage=0, barrier=loaded)
        a_lo.tma_load(A, coords=(row, 0), stage=0, barrier=loaded)
        a_hi.tma_load(A, coords=(row + 128, 0), stage=0, barrier=loaded)
    with mma_warp:
        lm.wait(loaded, stage=0)
        lm.mma(acc0, a_lo[0], b_s[0], init=True)
        lm.mma(acc1, a_hi[0], b_s[0], init=True)
        lm.mma_commit(barrier=o_ready, stage=0)
    with act:
        wgid = lm.instance()
        lm.wait(o_ready, stage=0)
        if wgid == 0:
            lm.copy(frag, acc0)
        else:
            lm.copy(frag, acc1)
        lm.copy(out[wgid], frag)                                      # expect-error: sync.race
        lm.fence_proxy()
    with epi_warp:
        lm.wait(o_ready, stage=0)
        for h in lm.range(0, 2):
            out.tma_store(O, coords=(row + 128 * h, 0), stage=h)      # expect-error: sync.race
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
