# RESPELLING of corpus/bugs/sync.race/fbtriton_gdpa_merge_epi_no_named_barrier_fixed.cake
# (facebookexperimental/triton GDPA merged epilogue): as _r1, a named
# barrier between the activation instances' st.shared + fence and the
# epilogue warp's TMA stores (the epilogue no longer waits on o_ready).
# expect: pass
@cake.schedule(target="sm_100a")
def gdpa_fwd_fixed(lm, A: LM.tma2d, B: LM.tma2d, O: LM.tma2d):
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
    o_ready = lm.barrier(count=1, prod=[mma_warp], cons=[act], init_count=1)
    stored  = lm.named_barrier(roles=[act, epi_warp])
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
        lm.copy(out[wgid], frag)
        lm.fence_proxy()
        lm.bar_arrive(stored)
    with epi_warp:
        lm.sync(stored)
        for h in lm.range(0, 2):
            out.tma_store(O, coords=(row + 128 * h, 0), stage=h)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
