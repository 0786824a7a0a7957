# Fixed form of rocmlir_attention_lds_reuse_next_m_block_no_barrier.cake
# (ROCm/rocMLIR PR #1853, merged): an LDS barrier before each M block's
# gemm0 operand stores, emitted only when the M loop may run more than
# once (`bool mIterOneIter = isa<affine::AffineForOp>(mLoopOp) &&
# gemm0MBlocks == 1;` skips it; a KV-cache or causal scf.for loop always
# gets it), so the last gemm1 LDS reads of block m are ordered before
# block m + 1 overwrites the buffer.  The guard is on the trip count
# `n_m`, uniform over the workgroup; at n_m = 1 there is no next block.
# Written as the broken form: four waves as one-warp instances of an sm_80
# role, the LDS barrier a named barrier.
# expect: pass
@cake.schedule(target="sm_80")
def rocmlir_attention_lds_reuse_next_m_block_no_barrier_fixed(lm, Q: LM.gmem, K: LM.gmem, V: LM.gmem, O: LM.gmem, n_m: LM.i32):
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
            if n_m > 1:                                   # not mIterOneIter
                lm.sync(block)                            # the LDS barrier #1853 adds
            lm.copy(part, K, coords=(64 * m + 16 * w, 0))
            lm.copy(lds[0][16 * w:16 * w + 16, :], part)  # gemm0 operand store
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
            lm.mma(o, p, lds[0], init=False)              # blockwise gemm1 from LDS
        lm.copy(O, o, coords=(16 * w, 0))
