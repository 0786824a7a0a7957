# BUG (proxy.missing-fence): the transposed (ETAP) FlashMLA decode kernel
# of pengcuo/FlashMLA-ETAP, bug 1 of PR #3 ("Fix shared-memory
# synchronization races in the ETAP decode kernel"; 17 of 56 configurations
# nondeterministic before, 0 after).  Warpgroup 0 computes S^T = K.Q^T,
# stores P^T to smem_p with plain st.shared and signals SReady to warpgroup
# 1 (a named barrier); both warpgroups then issue the P.V wgmma that reads
# the whole smem_p tile as its B operand.  The wgmma reads through the async
# proxy and the generic stores were never fenced: the PR adds
# cutlass::arch::fence_view_async_shared() after the store, before SReady.
# (Its second half - a 128-thread PReady barrier among warpgroup 0's own
# warps before its wgmma - is intra-instance synchronization, which the IR
# leaves to lowering.)
# Modelled: one KV block of 64 (decode), 64 query rows (heads padded), the
# 128-wide V^T split across the two warpgroups (group=4); softmax is left
# out (P = S converted to bf16; the transposed store is a register-layout
# matter, the tile is 64 x 64 either way).
# Fix: flashmla_etap_pt_to_wgmma_no_fence_fixed.cake.
# expect: proxy.missing-fence
@cake.schedule(target="sm_90a")
def flashmla_etap_pt_to_wgmma_no_fence(lm, Q: LM.tma2d, Kc: LM.tma2d, Vt: LM.tma2d, O: LM.tma2d):
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
            lm.copy(smem_p[0], s_acc)                                  # expect-error: proxy.missing-fence
            lm.bar_arrive(s_ready)
        else:
            lm.sync(s_ready)
        lm.mma(o_acc, smem_vt[0][d0:d0 + 64, :], smem_p[0], init=True)  # expect-error: proxy.missing-fence
        lm.mma_commit()
        lm.mma_wait(pending=0)
        lm.copy(smem_o[lm.instance()], o_acc)
        lm.fence_proxy()
        smem_o.tma_store(O, coords=(d0, blk * 64), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
