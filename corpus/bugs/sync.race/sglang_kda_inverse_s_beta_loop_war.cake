# BUG (sync.race): sgl-project/sglang PR #37289 ("[Kernel] Fix
# cross-iteration s_beta WAR race in Blackwell KDA prefill", open,
# 2026-08-31; the sibling GDN kernels in PR #37288).  In the KDA CuTe DSL
# inverse kernel the four inverse warps (128 threads) loop over the chunks
# of a sequence: near the top of each iteration they store the chunk's
# beta to the shared s_beta, and in phase 4 every warp reads s_beta again
# to scale its rows of the inverted block.  No barrier crosses the loop
# back edge, "so the next iteration can overwrite s_beta while a lagging
# warp still reads it" (a row of chunk c scaled by chunk c + 1's beta).
# The fix adds cute.arch.barrier(barrier_id=1, number_of_threads=128) at
# the end of the chunk loop.
# Modelled: each inverse warp its own instance (the warps run
# independently between the 128-thread barriers); chunks of 64 tokens,
# warp w owning rows 16w..16w+15; beta as one f32 row of 64 in shared
# memory; phases 2-3 (the KK^T blocks and their triangular inverse) as a
# per-warp block of 16 rows read from global memory with the existing
# 128-thread barrier after the beta store; phase 4 reads all 64 betas and
# writes the warp's rows out.  n_chunks is the sequence's chunk count.
# Fix: sglang_kda_inverse_s_beta_loop_war_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_100a")
def sglang_kda_inverse_s_beta_loop_war(lm, Beta: LM.gmem, KK: LM.gmem, W: LM.gmem, n_chunks: LM.i32):
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
            lm.copy(s_beta[c][:, 16 * w:16 * w + 16], beta_w)        # expect-error: sync.race
            lm.sync(bar1)
            lm.copy(blk, KK, coords=(c * 64 + 16 * w, 0))            # phases 2-3
            lm.unary(blk, blk, op="neg")
            lm.copy(beta_a, s_beta[c])                               # phase 4
            lm.binary(blk, blk, 2.0, op="mul")
            lm.copy(W, blk, coords=(c * 64 + 16 * w, 0))
            # BUG: no barrier before the next chunk's beta store
