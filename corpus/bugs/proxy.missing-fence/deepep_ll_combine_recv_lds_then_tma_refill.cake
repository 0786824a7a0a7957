# BUG (proxy.missing-fence): DeepEP's low-latency combine, receive phase
# (csrc/kernels/internode_ll.cu, LOW_LATENCY_COMBINE_RECV), as reported
# in deepseek-ai/DeepEP issue #621 ("DeepEP LL Combine Race on NVL72":
# wrong sums on repeated runs at batch size > 256) and fixed by PR #642
# ("Add fence.proxy.async.shared::cta between mbarrier wait and TMA
# load"; an earlier fix, PR #632, used a GPU-wide fence.proxy.async).  In
# each warp group a TMA load warp streams the top-k expert outputs of a
# token (tma_load_1d from rdma_recv_x) through a ring of shared stages
# with full / empty mbarriers; the reduction (decode) warps wait on full,
# read their part of the stage with ld.shared, accumulate, and arrive on
# empty (count = num_decode_warps).  No fence.proxy.async separated those
# generic reads from the next TMA write of the stage: "the data race here
# comes from LDS and TMA loads" (PR #642) - the async-proxy write may
# overtake reads still in flight.
# Modelled: one warp group - the TMA load warp and three decode warps
# (single-warp instances, each reading its 32 x 64 bf16 band of a
# 96 x 64 stage), 2 stages, top-k = 2 (n_tok tokens, one ring iteration
# per (token, k) pair), each token's combined rows stored with a generic
# store (the real kernel TMA-stores them; no stage is involved).  The
# LogFMT path, the varying byte counts, masked ranks and the receive-flag
# polling are left out.
# Fix: deepep_ll_combine_recv_lds_then_tma_refill_fixed.cake.
# expect: proxy.missing-fence
@cake.schedule(target="sm_90a")
def deepep_ll_combine_recv_lds_then_tma_refill(lm, RecvX: LM.tma2d, Out: LM.gmem,
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
            buf.tma_load(RecvX, coords=((j % 2) * 96, (tok0 + j // 2) * 64), iter=j, barrier=full)  # expect-error: proxy.missing-fence

    with decode:
        r0 = 32 * lm.instance()
        for j in lm.range(0, 2 * n_tok):
            if j % 2 == 0:
                lm.fill(acc, 0.0)
            lm.wait(full, iter=j)
            lm.copy(part, buf[j][r0:r0 + 32, :])
            lm.binary(acc, acc, part, op="add")
            lm.arrive(empty, iter=j)
            if j % 2 == 1:
                lm.copy(Out, acc, coords=(tok0 + j // 2, r0))
