# BUG (sync.race): ml-explore/mlx-lm issue #1700 ("Fused Metal KL-divergence
# kernel overflows (-3.39e38) in backward pass during DWQ"), fixed by PR
# #1719 (a re-creation of PR #1714, "Fix threadgroup memory race in fused
# KL and JS Metal kernels").  mlx_lm/tuner/losses.py, _make_kl_backward_kernel
# (the forward and the JS kernels alike), one threadgroup of 1024 threads
# per row, `threadgroup float shared[32 * 2]`:
#     max_q = simd_max(max_q); max_p = simd_max(max_p);
#     if (simd_lane_id == 0) { shared[g*2+0] = max_q; shared[g*2+1] = max_p; }
#     threadgroup_barrier(mem_flags::mem_threadgroup);
#     max_q = shared[simd_lane_id*2+0]; max_p = shared[simd_lane_id*2+1];
#     max_q = simd_max(max_q); max_p = simd_max(max_p);
#     // no barrier here
#     sum_exp_q *= exp(prev_max_q - max_q); ... sum_exp_q = simd_sum(sum_exp_q); ...
#     if (simd_lane_id == 0) { shared[g*2+0] = sum_exp_q; shared[g*2+1] = sum_exp_p; }
#     threadgroup_barrier(mem_flags::mem_threadgroup);
#     sum_exp_q = shared[simd_lane_id*2+0]; ...
# "lane 0 of each simdgroup then writes its partial sum into the same
# slots.  There is no barrier between those reads and writes ... a fast
# group can overwrite a slot before a slow group has read it.  The affected
# thread folds a partial sum into what it believes is a max, the row
# logsumexp collapses, and exp(vals - lse) saturates in the gradient
# write."  The fix adds a threadgroup_barrier(mem_threadgroup) between the
# max reads and the sum stores (and turns the kernels' mem_none barriers,
# which order execution but not threadgroup memory, into mem_threadgroup;
# the IR has no execution-only barrier, so that second defect is not in
# this file).  The broken text is the stored c5fd26cd version of
# losses.py, the fixed one 21f1f60b.
# Written in CAKE IR (a simdgroup is a warp, threadgroup_barrier(
# mem_threadgroup) a bar.sync over the threadgroup), scaled down: 128
# threads = four one-simdgroup instances, V = 512 (one full block of
# M = 4 values per thread: a simdgroup's 128 logits of q and of p as two
# register fragments); shared[] as one slot of 2 words per simdgroup (the
# kernel has exactly 32 simdgroups for its 32 * 2 words, so every word a
# lane reads is written), simdgroup g's words the slice [0:1, 2g:2g+2]; the reads of the interleaved q/p words
# by the 32 lanes as one read of the row (the deinterleave is lane
# arithmetic); simd_max / simd_sum as lm.reduce; exp as exp2.
# Fix: mlxlm_kl_backward_max_then_sum_shared_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def mlxlm_kl_backward(lm, LQ: LM.gmem, LP: LM.gmem, Cotan: LM.gmem, DQ: LM.gmem):
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
        lm.copy(allw, sh[0])                                # max_q = shared[lane*2+0] ...  # expect-error: sync.race
        lm.reduce(mq, allw, op="max", axis=1)
        lm.reduce(mp, allw, op="max", axis=1)
        # share the sum_exp across the threadgroup: no barrier before the stores
        lm.binary(fac, pmq, mq, op="sub")
        lm.unary(fac, fac, op="exp2")
        lm.binary(sq, sq, fac, op="mul")                    # sum_exp_q *= exp(prev - max)
        lm.binary(fac, pmp, mp, op="sub")
        lm.unary(fac, fac, op="exp2")
        lm.binary(sp, sp, fac, op="mul")
        lm.copy(sh[0][0:1, 2 * g:2 * g + 1], sq)            # shared[g*2+0] = sum_exp_q      # expect-error: sync.race
        lm.copy(sh[0][0:1, 2 * g + 1:2 * g + 2], sp)        # shared[g*2+1] = sum_exp_p      # expect-error: sync.race
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
