# BUG (sync.race): hipfire (warpfront/hipfire) issue #574, fixed by PR
# #575: kernels/src/qwen35_fa_prep.gfx1100.hip, the fused Qwen3.5
# full-attention prep (deinterleave + RMSNorm + partial RoPE), one
# 256-thread workgroup per head.  The sum of squares is reduced through
# __shared__ float sdata[HD] (sdata[tid] = v * v; a tree of
# `if (tid < s) sdata[tid] += sdata[tid + s]; __syncthreads();` for
# s = 128 .. 1), every thread reads the result in sdata[0], and the RoPE
# stage then reuses sdata: `sdata[tid] = normed;` follows the read of
# sdata[0] with no __syncthreads() in between.  Wave 0 may overwrite
# sdata[0] with its normed value while a lagging wave still reads it as the
# sum of squares (rsqrtf of a negative value: NaN rows on gfx1100).
# Written in CAKE IR as an sm_80 schedule: each wave32 of the workgroup is a
# one-warp instance (group=1), __syncthreads() a named barrier over the
# role, sdata a view with one 32-float slot per wave (sdata[tid] is the
# slot of tid's wave).  Modelled with 4 waves (head_dim 128) instead of 8:
# the tree keeps its shape - cross-wave steps (s = 64, 32), then five steps
# inside wave 0 (s = 16 .. 1), each rewriting sdata[0]'s slot.  Left out:
# the weight, eps, the sin/cos of the RoPE (a running add stands for them).
# Fix: hipfire_fa_prep_sdata_reuse_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def hipfire_fa_prep_sdata_reuse_no_barrier(lm, Qi: LM.gmem, Out: LM.gmem):
    pool  = lm.smem(512)
    sdata = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)
    v      = lm.regs(shape=(1, 32), dtype=lm.f32)
    sq     = lm.regs(shape=(1, 32), dtype=lm.f32)
    other  = lm.regs(shape=(1, 32), dtype=lm.f32)
    rms    = lm.regs(shape=(1, 1), dtype=lm.f32)
    normed = lm.regs(shape=(1, 32), dtype=lm.f32)
    x0     = lm.regs(shape=(1, 32), dtype=lm.f32)
    x1     = lm.regs(shape=(1, 32), dtype=lm.f32)

    waves = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[waves])

    with waves:
        w = lm.instance()
        head = lm.block_idx(0)
        lm.copy(v, Qi, coords=(head, 32 * w))
        lm.binary(sq, v, v, op="mul")
        lm.copy(sdata[w], sq)                       # sdata[tid] = v * v
        lm.sync(block)
        if w < 2:                                   # s = 64
            lm.copy(other, sdata[w + 2])
            lm.copy(sq, sdata[w])
            lm.binary(sq, sq, other, op="add")
            lm.copy(sdata[w], sq)
        lm.sync(block)
        if w == 0:                                  # s = 32
            lm.copy(other, sdata[1])
            lm.copy(sq, sdata[0])
            lm.binary(sq, sq, other, op="add")
            lm.copy(sdata[0], sq)
        lm.sync(block)
        for s in lm.range(0, 5):                    # s = 16, 8, 4, 2, 1
            if w == 0:
                lm.copy(sq, sdata[0])
                lm.binary(sq, sq, sq, op="add")
                lm.copy(sdata[0], sq)
            lm.sync(block)
        lm.copy(rms, sdata[0][:, 0:1])              # rsqrtf(sdata[0] / HD + eps)
        lm.binary(normed, v, rms, op="mul")
        lm.copy(Out, normed, coords=(head, 32 * w))
        lm.copy(sdata[w], normed)                   # expect-error: sync.race
        lm.sync(block)
        if w == 0:                                  # tid < HALF: RoPE
            lm.copy(x0, sdata[0])
            lm.copy(x1, sdata[1])
            lm.binary(x0, x0, x1, op="add")
            lm.copy(Out, x0, coords=(head, 0))
