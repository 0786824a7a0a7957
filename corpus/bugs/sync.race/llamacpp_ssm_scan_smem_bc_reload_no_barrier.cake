# BUG (sync.race): ggml-org/llama.cpp PR #24360 ("CUDA: Fix ssm_scan_f32
# data-races", 2026-06-09; ggml/src/ggml-cuda/ssm-scan.cu; reported as
# ggml-org/ggml issue #1498 after commit 43e6301 dropped the loop's second
# __syncthreads()).  ssm_scan_f32<splitD=128, N=16> (Mamba-1 selective
# scan, one block of 128 threads per (sequence, 128-channel slice)) walks
# the L tokens of a sequence; per token the first N = 16 threads (lanes
# 0..15 of warp 0) store B[i] and C[i] into __shared__ smemB[16] /
# smemC[16], __syncthreads(), and then EVERY thread reads all sixteen
# entries of both arrays in its state update (`smemB[n] * x_dt`,
# `state * smemC[n]`).  Nothing orders those reads before the next
# token's stores: warp 0 finishes token i, comes back and overwrites
# smemB/smemC with token i + 1 while warps 1..3 still read token i's
# values (the sporadic CUDA CI failures; reproduced on gfx1100 and a DGX
# Spark).  The fix adds __syncthreads() at the end of the loop body.
# Modelled: the 128 threads as four one-warp instances (`group=1`, warp w
# = threadIdx.x / 32), __syncthreads() a named barrier over them; smemB
# and smemC one 16-float slot each, written by warp 0 only; the reads are
# lm.copy into registers, the state update lm.binary; L a parameter.
# Left out: the CUB BlockLoad/BlockStore of A and the initial state (their
# temp storages are separate __shared__ arrays, used once), dt's softplus.
# Fix: llamacpp_ssm_scan_smem_bc_reload_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def llamacpp_ssm_scan_smem_bc_reload_no_barrier(lm, B: LM.gmem, C: LM.gmem, X: LM.gmem, Y: LM.gmem, L: LM.i32):
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
                lm.copy(smemB[0], bc)                                 # expect-error: sync.race
                lm.copy(bc, C, coords=(lm.block_idx(0) * L + i, 0))
                lm.copy(smemC[0], bc)                                 # expect-error: sync.race
            lm.sync(block)
            lm.copy(x, X, coords=(lm.block_idx(0) * L + i, ch))
            lm.copy(b, smemB[0])                                      # expect-error: sync.race
            lm.binary(st, st, b, op="add")                            # regs0[n] * dA + smemB[n] * x_dt
            lm.copy(c, smemC[0])                                      # expect-error: sync.race
            lm.binary(st, st, c, op="mul")
            lm.reduce(y, st, op="sum", axis=1)                        # sumf += state * smemC[n]
            lm.copy(Y, y, coords=(lm.block_idx(0) * L + i, ch))
            # BUG: no __syncthreads() here; warp 0 rewrites smemB/smemC for token i + 1
