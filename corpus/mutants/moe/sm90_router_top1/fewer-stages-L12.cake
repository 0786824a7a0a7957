# mutant: fewer-stages
# original: corpus/moe/sm90_router_top1.cake
# line: 12: smem_x = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
# change: stages: `4` -> `3`
# label: bad (sync.race, data.stale-read) by the explicit-state simulator (encoder/simulator.h), T = 0, H in {1, 80, 144, 208, 272, 528} (6 combinations with every trip count <= 9); block_idx 0 of grid_dim 1; 876 states; first violation: sync.race: producer writes pool [0, 16384) while its own TMA load (not landed yet) writes it at `smem_x.tma_load(X, coords=(t0, k * 64), iter=k, barrier=full)` (line 31) (T=0, H=272)
# expect-any: sync.race data.stale-read
# Hopper MoE router: logits = X . Wr^T for 128 experts (tokens x hidden
# GEMM, two consumer warpgroups of 64 tokens), then softmax over the
# experts, top-1 expert index (argmax) and its gate probability - the
# fused "gating" kernel of Switch/DeepSeek-style routers.
# 4-stage TMA ring over the hidden dimension; outputs via plain stores.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def moe_router_top1(lm, X: LM.tma2d, Wr: LM.tma2d, Eid: LM.gmem, Gate: LM.gmem,
                    T: LM.i32, H: LM.i32):
    lm.assume(H > 0)
    pool   = lm.smem(131072)
    smem_x = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_w = pool.view(offset=65536, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    logit  = lm.regs(shape=(64, 128), dtype=lm.f32)
    m      = lm.regs(shape=(64, 1), dtype=lm.f32)
    l      = lm.regs(shape=(64, 1), dtype=lm.f32)
    eid    = lm.regs(shape=(64, 1), dtype=lm.i32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    k_tiles = lm.cdiv(H, 64)
    t0 = lm.block_idx(0) * 128

    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_x.tma_load(X, coords=(t0, k * 64), iter=k, barrier=full)
            smem_w.tma_load(Wr, coords=(0, k * 64), iter=k, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(logit, smem_x[k][m0:m0 + 64, :], smem_w[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.reduce(eid, logit, op="argmax", axis=1)
        lm.binary(logit, logit, 1.442695, op="mul")
        lm.reduce(m, logit, op="max", axis=1)
        lm.binary(logit, logit, m, op="sub")
        lm.unary(logit, logit, op="exp2")
        lm.reduce(l, logit, op="sum", axis=1)
        lm.unary(l, l, op="recip")
        lm.copy(Eid, eid, coords=(t0 + m0, 0))
        lm.copy(Gate, l, coords=(t0 + m0, 0))
