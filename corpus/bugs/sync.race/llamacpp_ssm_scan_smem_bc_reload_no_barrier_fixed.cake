# FIXED form of llamacpp_ssm_scan_smem_bc_reload_no_barrier.cake
# (ggml-org/llama.cpp PR #24360): __syncthreads() at the end of the token
# loop, so every warp has read token i's smemB/smemC before warp 0 stores
# token i + 1's.
# expect: pass
@cake.schedule(target="sm_80")
def llamacpp_ssm_scan_smem_bc_reload_barrier_fixed(lm, B: LM.gmem, C: LM.gmem, X: LM.gmem, Y: LM.gmem, L: LM.i32):
    lm.assume(L >= 1)
    pool  = lm.smem(256)
    smemB = pool.view(offset=0,   shape=(1, 16), dtype=lm.f32)       # __shared__ float smemB[N]
    smemC = pool.view(offset=128, shape=(1, 16), dtype=lm.f32)       # __shared__ float smemC[N]
    bc    = lm.regs(shape=(1, 16), dtype=lm.f32)
    b     = lm.regs(shape=(1, 16), dtype=lm.f32)
    c     = lm.regs(shape=(1, 16), dtype=lm.f32)
    x     = lm.regs(shape=(1, 32), dtype=lm.f32)
    st    = lm.regs(shape=(32, 16), dtype=lm.f32)                     # regs0[N] of the warp's 32 channels
    y     = lm.regs(shape=(32, 1), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        ch = lm.block_idx(1) * 128 + 32 * w                           # this warp's channels
        lm.fill(st, 0.0)
        for i in lm.range(0, L):
            if w == 0:                                                # threadIdx.x < N
                lm.copy(bc, B, coords=(lm.block_idx(0) * L + i, 0))
                lm.copy(smemB[0], bc)
                lm.copy(bc, C, coords=(lm.block_idx(0) * L + i, 0))
                lm.copy(smemC[0], bc)
            lm.sync(block)
            lm.copy(x, X, coords=(lm.block_idx(0) * L + i, ch))
            lm.copy(b, smemB[0])
            lm.binary(st, st, b, op="add")                            # regs0[n] * dA + smemB[n] * x_dt
            lm.copy(c, smemC[0])
            lm.binary(st, st, c, op="mul")
            lm.reduce(y, st, op="sum", axis=1)                        # sumf += state * smemC[n]
            lm.copy(Y, y, coords=(lm.block_idx(0) * L + i, ch))
            lm.sync(block)                                            # the fix (PR #24360)
