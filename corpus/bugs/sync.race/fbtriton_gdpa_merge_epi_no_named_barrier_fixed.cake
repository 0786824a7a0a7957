# FIXED form of fbtriton_gdpa_merge_epi_no_named_barrier.cake
# (facebookexperimental/triton PR #378): each activation partition arrives
# on named barrier 11 (bar.arrive, 288 threads) after storing and fencing
# its half of the output tile; the epilogue warp waits on it (bar.sync
# 11, 288) before the two TMA stores.  128 + 128 + 32 = 288: the barrier's
# thread count is the three roles', which cake derives from
# lm.named_barrier(roles=[act0, act1, epi]).
# expect: pass
@cake.schedule(target="sm_100a")
def fbtriton_gdpa_merge_epi_named_barrier(lm, A: LM.tma2d, B: LM.tma2d, O: LM.tma2d):
    pool   = lm.smem(114688)
    smem_a0 = pool.view(offset=0,     shape=(128, 64),  dtype=lm.bf16, swizzle="128B")
    smem_a1 = pool.view(offset=16384, shape=(128, 64),  dtype=lm.bf16, swizzle="128B")
    smem_b  = pool.view(offset=32768, shape=(128, 64),  dtype=lm.bf16, swizzle="128B")
    o_s     = pool.view(offset=49152, shape=(128, 128), dtype=lm.bf16, stages=2)
    o0      = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    o1      = lm.tmem(cols=128, width=128, shape=(128, 128), dtype=lm.f32)
    o_r     = lm.regs(shape=(128, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    mma  = lm.role(warps=[1])
    epi  = lm.role(warps=[2])
    act0 = lm.role(warps=[4, 5, 6, 7])
    act1 = lm.role(warps=[8, 9, 10, 11])

    full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    o_full = lm.barrier(count=1, prod=[mma], cons=[act0, act1], init_count=1)
    epi_bar = lm.named_barrier(roles=[act0, act1, epi])

    m0 = lm.block_idx(0) * 256

    with load:
        smem_a0.tma_load(A, coords=(m0, 0), stage=0, barrier=full)
        smem_a1.tma_load(A, coords=(m0 + 128, 0), stage=0, barrier=full)
        smem_b.tma_load(B, coords=(0, 0), stage=0, barrier=full)

    with mma:
        lm.wait(full, stage=0)
        lm.mma(o0, smem_a0[0], smem_b[0], init=True)
        lm.mma(o1, smem_a1[0], smem_b[0], init=True)
        lm.mma_commit(barrier=o_full, stage=0)

    with act0:
        lm.wait(o_full, stage=0)
        lm.copy(o_r, o0)
        lm.copy(o_s[0], o_r)
        lm.fence_proxy()
        lm.bar_arrive(epi_bar)

    with act1:
        lm.wait(o_full, stage=0)
        lm.copy(o_r, o1)
        lm.copy(o_s[1], o_r)
        lm.fence_proxy()
        lm.bar_arrive(epi_bar)

    with epi:
        lm.sync(epi_bar)
        o_s.tma_store(O, coords=(m0, 0), stage=0)
        o_s.tma_store(O, coords=(m0 + 128, 0), stage=1)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
