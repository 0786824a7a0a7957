# BUG (sync.race): gittensor-ai-lab/sparkinfer PR #665 (and its re-filing
# PR #705, "fix(prefill): missing __syncthreads() on sw[] reuse in the GDN
# conv L2-norm loops (incl. DFlash draft conv)", 2026-07-29; both closed,
# the race argued line by line in the PR text).
# kernels/csrc/cuda/fused/batched_prefill.cu, the GDN causal-conv kernels:
# per token, the q/k L2 normalizer is block-reduced through shared sw[]:
#     if ((t & 31) == 0) sw[t >> 5] = ss;          // (1) warp partials
#     __syncthreads();
#     if (t < 32) { ... if (t == 0) sw[0] = rsqrtf(vv + eps); }  // (2)
#     __syncthreads();
#     cval *= sw[0];                               // (3) every warp reads
#     // (BUG) no __syncthreads(): the next token's (1) can overwrite sw[0]
#     // while a lagging warp is still at (3)
# A lagging warp normalizes token t with warp 0's partial sum of token t+1.
# The PR adds a __syncthreads() after the read of sw[0].
# Modelled: four warps, one instance each (warp w's lane 0 writes sw[w]);
# __syncthreads() is a named barrier over them; warp 0 does step (2) (it
# sums the four partials and writes the normalizer over its own partial in
# sw[0]); the number of tokens is a parameter.  Left out: the warp
# shuffles of (1) and (2) (inside one warp) and the conv itself.
# Fix: sparkinfer_gdn_conv_l2norm_sw_reuse_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def sparkinfer_gdn_conv_l2norm(lm, X: LM.gmem, Y: LM.gmem, n_tok: LM.i32):
    lm.assume(n_tok >= 1)
    pool = lm.smem(16)
    sw   = pool.view(offset=0, shape=(1, 1), dtype=lm.f32, stages=4)
    cval = lm.regs(shape=(1, 32), dtype=lm.f32)
    sq   = lm.regs(shape=(1, 32), dtype=lm.f32)
    ss   = lm.regs(shape=(1, 1), dtype=lm.f32)
    oth  = lm.regs(shape=(1, 1), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        for t in lm.range(0, n_tok):
            lm.copy(cval, X, coords=(t, 32 * w))
            lm.binary(sq, cval, cval, op="mul")
            lm.reduce(ss, sq, op="sum", axis=1)
            lm.copy(sw[w], ss)                          # expect-error: sync.race
            lm.sync(block)
            if w == 0:
                lm.copy(ss, sw[0])
                for i in lm.range(1, 4):
                    lm.copy(oth, sw[i])
                    lm.binary(ss, ss, oth, op="add")
                lm.unary(ss, ss, op="rsqrt")
                lm.copy(sw[0], ss)                      # sw[0] = rsqrtf(vv + eps)
            lm.sync(block)
            lm.copy(ss, sw[0])                          # cval *= sw[0]
            lm.binary(cval, cval, ss, op="mul")
            lm.copy(Y, cval, coords=(t, 32 * w))
            # BUG: no __syncthreads() before the next token's partials
