# FIXED: deepseek-ai/DeepEP PR #642 (issue #621) - the fix of
# deepep_ll_combine_recv_lds_then_tma_refill.cake: a
# fence.proxy.async.shared::cta orders the reduction warps' ld.shared of a
# stage before the TMA load that refills it.  PR #642 executes the fence
# in the TMA load warp, after its empty-barrier wait and before the
# tma_load_1d; this form puts it where CUTLASS does (each reading warp,
# after its last read of the stage, before its empty arrive), the
# placement cake's reading of the proxy rules accepts
# (docs/rules/proxy.missing-fence.md; PR #642's placement is reported,
# see docs/known-limits.md "A proxy fence by the thread that issues the
# TMA").  Modelled as the broken form (see its header).
# expect: pass
@cake.schedule(target="sm_90a")
def deepep_ll_combine_recv_lds_then_tma_refill_fixed(lm, RecvX: LM.tma2d, Out: LM.gmem,
                                                n_tok: LM.i32):
    lm.assume(n_tok >= 1)
    pool = lm.smem(32768)
    buf  = pool.view(offset=0, shape=(96, 64), dtype=lm.bf16, stages=2)
    part = lm.regs(shape=(32, 64), dtype=lm.f32)
    acc  = lm.regs(shape=(32, 64), dtype=lm.f32)

    tma_w  = lm.role(warps=[0])
    decode = lm.role(warps=[1, 2, 3], group=1)

    ring  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[tma_w],  cons=[decode], init_count=1, pipeline=ring)
    empty = lm.barrier(prod=[decode], cons=[tma_w],  init_count=3, pipeline=ring)

    tok0 = lm.block_idx(0) * n_tok

    with tma_w:
        for j in lm.range(0, 2 * n_tok):
            lm.wait(empty, iter=j - 2)
            buf.tma_load(RecvX, coords=((j % 2) * 96, (tok0 + j // 2) * 64), iter=j, barrier=full)

    with decode:
        r0 = 32 * lm.instance()
        for j in lm.range(0, 2 * n_tok):
            if j % 2 == 0:
                lm.fill(acc, 0.0)
            lm.wait(full, iter=j)
            lm.copy(part, buf[j][r0:r0 + 32, :])
            lm.binary(acc, acc, part, op="add")
            lm.fence_proxy()
            lm.arrive(empty, iter=j)
            if j % 2 == 1:
                lm.copy(Out, acc, coords=(tok0 + j // 2, r0))
