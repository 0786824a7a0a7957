# FIX of sglang_kda_inverse_s_beta_loop_war.cake: sgl-project/sglang
# PR #37289: a 128-thread named barrier (barrier 1) at the end of the
# inverse warps' chunk loop orders every warp's phase-4 reads of s_beta
# before the next chunk's stores.  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_100a")
def sglang_kda_inverse_s_beta_loop_barrier_fixed(lm, Beta: LM.gmem, KK: LM.gmem, W: LM.gmem, n_chunks: LM.i32):
    lm.assume(n_chunks > 0)
    pool   = lm.smem(1024)
    s_beta = pool.view(offset=0, shape=(1, 64), dtype=lm.f32, stages=1)
    beta_w = lm.regs(shape=(1, 16), dtype=lm.f32)
    beta_a = lm.regs(shape=(1, 64), dtype=lm.f32)
    blk    = lm.regs(shape=(16, 64), dtype=lm.f32)

    inv  = lm.role(warps=[0, 1, 2, 3], group=1)
    bar1 = lm.named_barrier(roles=[inv])

    with inv:
        w = lm.instance()
        for c in lm.range(0, n_chunks):
            lm.copy(beta_w, Beta, coords=(0, c * 64 + 16 * w))
            lm.copy(s_beta[c][:, 16 * w:16 * w + 16], beta_w)
            lm.sync(bar1)
            lm.copy(blk, KK, coords=(c * 64 + 16 * w, 0))            # phases 2-3
            lm.unary(blk, blk, op="neg")
            lm.copy(beta_a, s_beta[c])                               # phase 4
            lm.binary(blk, blk, 2.0, op="mul")
            lm.copy(W, blk, coords=(c * 64 + 16 * w, 0))
            lm.sync(bar1)                                            # the fix: barrier 1, 128 threads, every chunk
