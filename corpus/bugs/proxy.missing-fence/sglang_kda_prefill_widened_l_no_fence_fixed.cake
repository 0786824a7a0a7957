# FIXED: sglang_kda_prefill_widened_l_no_fence.cake as sgl-project/sglang
# PR #39124 fixes it: each writing thread issues
# fence.proxy.async.shared::cta right after its stores of the widened L
# tile, before the CTA synchronization that hands the tile to the MMA.
# expect: pass
@cake.schedule(target="sm_100a")
def kda_prefill_widened_l_fenced(lm, Lg: LM.gmem, Kt: LM.tma2d, O: LM.gmem):
    pool     = lm.smem(32768)
    smem_l   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_k   = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    tmem_acc = lm.tmem(cols=0, width=64, shape=(128, 64), dtype=lm.f32)
    l_r      = lm.regs(shape=(128, 64), dtype=lm.f32)
    o_r      = lm.regs(shape=(128, 64), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3])
    mma     = lm.role(warps=[4])
    load    = lm.role(warps=[5])

    k_full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    l_ready  = lm.named_barrier(roles=[compute, mma])

    m0 = lm.block_idx(0) * 128

    with load:
        smem_k.tma_load(Kt, coords=(0, 0), stage=0, barrier=k_full)

    with compute:
        lm.copy(l_r, Lg, coords=(m0, 0))
        lm.copy(smem_l, l_r)
        lm.fence_proxy()  # PR #39124: fence.proxy.async.shared::cta after widen_map_tf32
        lm.sync(l_ready)
        lm.wait(acc_full, stage=0)
        lm.copy(o_r, tmem_acc)
        lm.copy(O, o_r, coords=(m0, 0))

    with mma:
        lm.wait(k_full, stage=0)
        lm.sync(l_ready)
        lm.mma(tmem_acc, smem_l, smem_k, init=True)
        lm.mma_commit(barrier=acc_full, stage=0)
