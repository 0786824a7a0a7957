# BUG (sync.race): mirage-project/mirage PR #384 ("Race fix && Norm loop
# sequence modify": "Repair r/w race among rope adding threads").
# include/mirage/persistent_kernel/tasks/norm.cuh, rms_norm() with
# rotary_emd: 128 threads (4 warps), thread i owns column i of each head's
# row of smem_input (HEAD_DIM = 128).  Per head: the sum of squares is
# reduced through smem_sum[warp] (__syncthreads, warp 0 adds the four
# partials into smem_sum[0], __syncthreads), every thread normalizes its
# column in place, __syncthreads, and then applies RoPE in place: thread
# i < 64 reads v1 = x[i] and v2 = x[i + 64] and writes x[i] = v1 cos - v2
# sin; thread i >= 64 reads x[i] and x[i - 64] and writes x[i].  Thread i
# (warps 0, 1) may overwrite x[i] before thread i + 64 (warps 2, 3) has
# read it as its v2, and vice versa.  Fix (the PR): keep v_rot in a
# register, __syncthreads(), then write it
# (mirage_rms_norm_rope_in_place_no_barrier_fixed.cake).
# Written in CAKE IR: sm_90a (the persistent kernel's Hopper build), each
# warp its own instance (group=1), __syncthreads a named barrier over them;
# smem_input is a ring of NUM_HEAD = 4 head rows (1 x 128 bf16), warp w
# owns columns [32 w, 32 w + 32) and its RoPE partner is band (w + 2) % 4;
# smem_sum has one 32-float slot per warp (the warp-reduced partial stands
# for the shuffle reduction).  Left out: the weight, eps, cos/sin (an add
# stands for the rotation), the loads that fill smem_input (one band per
# warp, then a barrier), the other tasks of the persistent kernel.
# expect: sync.race
@cake.schedule(target="sm_90a")
def mirage_rms_norm_rope_in_place_no_barrier(lm, X: LM.gmem, Out: LM.gmem):
    pool  = lm.smem(2048)
    inp   = pool.view(offset=0,    shape=(1, 128), dtype=lm.bf16, stages=4)   # smem_input[head]
    ssum  = pool.view(offset=1024, shape=(1, 32),  dtype=lm.f32,  stages=4)   # smem_sum[warp]
    x     = lm.regs(shape=(1, 32), dtype=lm.bf16)
    v1    = lm.regs(shape=(1, 32), dtype=lm.bf16)
    v2    = lm.regs(shape=(1, 32), dtype=lm.bf16)
    sq    = lm.regs(shape=(1, 32), dtype=lm.f32)
    part  = lm.regs(shape=(1, 32), dtype=lm.f32)
    rms   = lm.regs(shape=(1, 32), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        c0 = 32 * w                      # this warp's columns
        p0 = 32 * ((w + 2) % 4)          # the RoPE partner's columns
        for h in lm.range(0, 4):
            lm.copy(x, X, coords=(h, c0))
            lm.copy(inp[h][:, c0:c0 + 32], x)
        lm.sync(bar)
        for h in lm.range(0, 4):
            lm.copy(x, inp[h][:, c0:c0 + 32])
            lm.binary(sq, x, x, op="mul")
            lm.copy(ssum[w], sq)                         # smem_sum[warp_idx] = sum
            lm.sync(bar)
            if w == 0:                                   # threadIdx.x < NUM_WARPS
                lm.copy(rms, ssum[0])
                for j in lm.range(1, 4):
                    lm.copy(part, ssum[j])
                    lm.binary(rms, rms, part, op="add")
                lm.copy(ssum[0], rms)                    # smem_sum[0] = sum
            lm.sync(bar)
            lm.copy(rms, ssum[0])                        # rsqrt(smem_sum[0] / HEAD_DIM + eps)
            lm.binary(x, x, rms, op="mul")
            lm.copy(inp[h][:, c0:c0 + 32], x)            # normalized, in place
            lm.sync(bar)                                 # if (rotary_emd) __syncthreads()
            lm.copy(v1, inp[h][:, c0:c0 + 32])
            lm.copy(v2, inp[h][:, p0:p0 + 32])           # expect-error: sync.race
            lm.binary(v1, v1, v2, op="add")              # v1 * cos -/+ v2 * sin
            # BUG: no __syncthreads() between the partner's read and this write
            lm.copy(inp[h][:, c0:c0 + 32], v1)           # expect-error: sync.race
            lm.copy(Out, v1, coords=(h, c0))
