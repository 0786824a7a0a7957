# FIXED: flashmla_etap_pt_to_wgmma_no_fence.cake as pengcuo/FlashMLA-ETAP
# PR #3 fixes it: warpgroup 0 executes fence_view_async_shared() after its
# st.shared of P^T and before it signals SReady, so both warpgroups' P.V
# wgmmas (async proxy) see the tile.
# expect: pass
@cake.schedule(target="sm_90a")
def flashmla_etap_pt_to_wgmma_fenced(lm, Q: LM.tma2d, Kc: LM.tma2d, Vt: LM.tma2d, O: LM.tma2d):
    pool    = lm.smem(98304)
    smem_q  = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, swizzle="128B")
    smem_k  = pool.view(offset=8192,  shape=(64, 64),  dtype=lm.bf16, swizzle="128B")
    smem_vt = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    smem_p  = pool.view(offset=32768, shape=(64, 64),  dtype=lm.bf16, swizzle="128B")
    smem_o  = pool.view(offset=40960, shape=(64, 64),  dtype=lm.bf16, stages=2)
    s_acc   = lm.regs(shape=(64, 64), dtype=lm.f32)
    o_acc   = lm.regs(shape=(64, 64), dtype=lm.f32)

    load = lm.role(warps=[0])
    wg   = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)

    kv_full = lm.barrier(count=1, prod=[load], cons=[wg], init_count=1)
    s_ready = lm.named_barrier(roles=[wg])

    blk = lm.block_idx(0)

    with load:
        smem_q.tma_load(Q, coords=(blk * 64, 0), stage=0, barrier=kv_full)
        smem_k.tma_load(Kc, coords=(blk * 64, 0), stage=0, barrier=kv_full)
        smem_vt.tma_load(Vt, coords=(0, blk * 64), stage=0, barrier=kv_full)

    with wg:
        d0 = 64 * lm.instance()
        lm.wait(kv_full, stage=0)
        if lm.instance() == 0:
            lm.mma(s_acc, smem_k[0], smem_q[0], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.copy(smem_p[0], s_acc)
            lm.fence_proxy()
            lm.bar_arrive(s_ready)
        else:
            lm.sync(s_ready)
        lm.mma(o_acc, smem_vt[0][d0:d0 + 64, :], smem_p[0], init=True)
        lm.mma_commit()
        lm.mma_wait(pending=0)
        lm.copy(smem_o[lm.instance()], o_acc)
        lm.fence_proxy()
        smem_o.tma_store(O, coords=(d0, blk * 64), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
