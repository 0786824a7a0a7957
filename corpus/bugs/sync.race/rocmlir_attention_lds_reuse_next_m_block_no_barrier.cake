# Real bug: ROCm/rocMLIR PR #1853 ("Add missing LDS barriers to attention",
# merged; rocMLIR-internal issues #1811, #1844, validation failures on Navi
# and MI100), in GridwiseAttentionAccelRewritePattern of
# mlir/lib/Dialect/Rock/Transforms/GridwiseGemmToBlockwise.cpp: the
# generated attention kernel loops over the gemm0 M blocks (KV tiles); each
# iteration stores its gemm0 operand tile into LDS, barriers, runs the
# blockwise gemm0 from LDS, then reuses the LDS for gemm1's V tile (store,
# barrier, blockwise gemm1).  "If there is more than one iteration, some
# threads might be loading from LDS while others are in the next iteration
# writing to the same buffer" (the PR): nothing orders the last gemm1 LDS
# reads of block m before the first gemm0 LDS stores of block m + 1.  The
# fix emits an LDS barrier at the top of the next iteration's operand
# stores, and only where the M loop may run more than once (`mIterOneIter`
# skips it for a static single-block loop); the fixed form is
# rocmlir_attention_lds_reuse_next_m_block_no_barrier_fixed.cake.
# Written in CAKE IR as an sm_80 schedule from the PR's description and
# diff: the workgroup's four waves are one-warp instances (group=1), each
# storing a quarter of an operand tile, and an LDS barrier a named barrier
# over the role; the K tile of gemm0 fits one K step (head dim <= kPerBlock)
# and the barrier between gemm0's reads and the V stores is the one the
# kernel had; the Q tile sits in LDS of its own, stored once.  Left out:
# the online-softmax bookkeeping beyond a row max, the padding / causal
# masks.
# expect: sync.race
@cake.schedule(target="sm_80")
def rocmlir_attention_lds_reuse_next_m_block_no_barrier(lm, Q: LM.gmem, K: LM.gmem, V: LM.gmem, O: LM.gmem, n_m: LM.i32):
    pool = lm.smem(16384)
    lds  = pool.view(offset=0, shape=(64, 64), dtype=lm.f16)
    qlds = pool.view(offset=8192, shape=(64, 64), dtype=lm.f16)
    part = lm.regs(shape=(16, 64), dtype=lm.f16)
    s    = lm.regs(shape=(16, 64), dtype=lm.f32)
    mx   = lm.regs(shape=(16, 1), dtype=lm.f32)
    p    = lm.regs(shape=(16, 64), dtype=lm.f16)
    o    = lm.regs(shape=(16, 64), dtype=lm.f32)

    waves = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[waves])

    with waves:
        w = lm.instance()
        lm.copy(part, Q, coords=(16 * w, 0))
        lm.copy(qlds[0][16 * w:16 * w + 16, :], part)     # Q tile, stored once
        lm.fill(o, 0.0)
        for m in lm.range(0, n_m):
            lm.copy(part, K, coords=(64 * m + 16 * w, 0))
            lm.copy(lds[0][16 * w:16 * w + 16, :], part)  # gemm0 operand store  # expect-error: sync.race
            lm.sync(block)
            lm.mma(s, qlds[0][16 * w:16 * w + 16, :], lds[0], init=True)  # blockwise gemm0 from LDS
            lm.reduce(mx, s, op="max", axis=1)
            lm.binary(s, s, mx, op="sub")
            lm.unary(s, s, op="exp2")
            lm.copy(p, s)
            lm.sync(block)
            lm.copy(part, V, coords=(64 * m + 16 * w, 0))
            lm.copy(lds[0][16 * w:16 * w + 16, :], part)  # gemm1 V store
            lm.sync(block)
            lm.mma(o, p, lds[0], init=False)              # blockwise gemm1 from LDS  # expect-error: sync.race
        lm.copy(O, o, coords=(16 * w, 0))
