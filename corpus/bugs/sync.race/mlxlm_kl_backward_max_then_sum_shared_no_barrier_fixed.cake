# FIXED: mlxlm_kl_backward_max_then_sum_shared_no_barrier.cake as
# ml-explore/mlx-lm PR #1719 (PR #1714; issue #1700) fixes it: a
#     threadgroup_barrier(mem_flags::mem_threadgroup);
# after the simd_max of the shared maxes, so every simdgroup has read the
# max slots before any lane 0 stores its sum_exp partial into them (the
# stored 21f1f60b version of mlx_lm/tuner/losses.py).
# expect: pass
@cake.schedule(target="sm_80")
def mlxlm_kl_backward_fixed(lm, LQ: LM.gmem, LP: LM.gmem, Cotan: LM.gmem, DQ: LM.gmem):
    pool  = lm.smem(32)
    sh    = pool.view(offset=0, shape=(1, 8), dtype=lm.f32)       # shared[32 * 2], 4 simdgroups
    q     = lm.regs(shape=(1, 128), dtype=lm.f32)                 # vals_q of 32 lanes
    p     = lm.regs(shape=(1, 128), dtype=lm.f32)
    eq    = lm.regs(shape=(1, 128), dtype=lm.f32)
    ep    = lm.regs(shape=(1, 128), dtype=lm.f32)
    mq    = lm.regs(shape=(1, 1), dtype=lm.f32)
    mp    = lm.regs(shape=(1, 1), dtype=lm.f32)
    pmq   = lm.regs(shape=(1, 1), dtype=lm.f32)                   # prev_max_q
    pmp   = lm.regs(shape=(1, 1), dtype=lm.f32)
    sq    = lm.regs(shape=(1, 1), dtype=lm.f32)
    sp    = lm.regs(shape=(1, 1), dtype=lm.f32)
    fac   = lm.regs(shape=(1, 1), dtype=lm.f32)
    allw  = lm.regs(shape=(1, 8), dtype=lm.f32)
    c     = lm.regs(shape=(1, 1), dtype=lm.f32)

    simd = lm.role(warps=[0, 1, 2, 3], group=1)
    tg   = lm.named_barrier(roles=[simd])

    with simd:
        g   = lm.instance()                                 # simd_group_id
        row = lm.block_idx(0)                               # out_idx
        lm.copy(q, LQ, coords=(row, 128 * g))
        lm.copy(p, LP, coords=(row, 128 * g))
        # per-thread running max and sum of exponentials
        lm.reduce(pmq, q, op="max", axis=1)
        lm.reduce(pmp, p, op="max", axis=1)
        lm.binary(eq, q, pmq, op="sub")
        lm.unary(eq, eq, op="exp2")
        lm.reduce(sq, eq, op="sum", axis=1)
        lm.binary(ep, p, pmp, op="sub")
        lm.unary(ep, ep, op="exp2")
        lm.reduce(sp, ep, op="sum", axis=1)
        # share the maxs across the threadgroup
        lm.copy(sh[0][0:1, 2 * g:2 * g + 1], pmq)           # shared[g*2+0] = max_q
        lm.copy(sh[0][0:1, 2 * g + 1:2 * g + 2], pmp)       # shared[g*2+1] = max_p
        lm.sync(tg)
        lm.copy(allw, sh[0])                                # max_q = shared[lane*2+0] ...
        lm.reduce(mq, allw, op="max", axis=1)
        lm.reduce(mp, allw, op="max", axis=1)
        lm.sync(tg)                                         # the fix
        # share the sum_exp across the threadgroup
        lm.binary(fac, pmq, mq, op="sub")
        lm.unary(fac, fac, op="exp2")
        lm.binary(sq, sq, fac, op="mul")                    # sum_exp_q *= exp(prev - max)
        lm.binary(fac, pmp, mp, op="sub")
        lm.unary(fac, fac, op="exp2")
        lm.binary(sp, sp, fac, op="mul")
        lm.copy(sh[0][0:1, 2 * g:2 * g + 1], sq)            # shared[g*2+0] = sum_exp_q
        lm.copy(sh[0][0:1, 2 * g + 1:2 * g + 2], sp)        # shared[g*2+1] = sum_exp_p
        lm.sync(tg)
        lm.copy(allw, sh[0])
        lm.reduce(sq, allw, op="sum", axis=1)
        lm.reduce(sp, allw, op="sum", axis=1)
        lm.unary(sq, sq, op="recip")                        # exp(-lse_q) = exp(-max_q) / sum_exp_q
        lm.unary(sp, sp, op="recip")
        # out[offset + j] = c * (exp(q - lse_q) - exp(p - lse_p))
        lm.copy(c, Cotan, coords=(0, row))
        lm.binary(eq, q, mq, op="sub")
        lm.unary(eq, eq, op="exp2")
        lm.binary(eq, eq, sq, op="mul")
        lm.binary(ep, p, mp, op="sub")
        lm.unary(ep, ep, op="exp2")
        lm.binary(ep, ep, sp, op="mul")
        lm.binary(eq, eq, ep, op="sub")
        lm.binary(eq, eq, c, op="mul")
        lm.copy(DQ, eq, coords=(row, 128 * g))
