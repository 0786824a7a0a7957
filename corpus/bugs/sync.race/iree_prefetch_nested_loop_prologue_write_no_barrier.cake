# Real bug: iree-org/iree issue #22468 ("Non-deterministic results for
# convolution with strided input slice", closed), fixed by PR #22669
# ("[AMD][GPU] Insert barrier in prologue before first shared memory write",
# merged; credit to PR #22562); the same hazard came back when the prologue
# barrier was skipped as an optimization and was fixed again for nested
# loops by PR #22868 (issue #22857, merged: "Skip prologue pipeline barriers
# only for non-nested pipelined loops").  The kernel is IREE's ROCm IGEMM for
# conv_2d weight backward 12x118x182x448 (stride 2) on MI300x (gfx942): its
# reduction is split into an outer loop and an inner K loop with a static
# trip count, and ROCDLPrefetchSharedMemoryCopy software-pipelines the inner
# loop with ONE LDS buffer per operand (compiler/src/iree/compiler/Codegen/
# LLVMGPU/Utils/ROCDLPrefetchSharedMemoryCopy.cpp, two stages: read and write
# in stage 0, compute in stage 1):
#   prologue:  read(0) global -> VGPRs;  write(0) VGPRs -> LDS
#   kernel:    for k in [0, n-1): read(k+1); gpu.barrier; compute(k) from
#              LDS; gpu.barrier; sched_barrier; write(k+1)
#   epilogue:  gpu.barrier; compute(n-1) from LDS
# Each wave writes a stripe of the A and B tiles and its MFMAs read the rows
# of its 2x2 wave grid position, so the epilogue's LDS reads of outer
# iteration o and the prologue's write(0) of outer iteration o + 1 are
# different waves' accesses to the same bytes, with no barrier between them
# (a fast wave refills the tile while a slow wave still multiplies the last
# one: 13% of runs gave different results).  The fix is a barrier in the
# prologue before its first shared memory write; the fixed form is
# iree_prefetch_nested_loop_prologue_write_no_barrier_fixed.cake (PR #22868
# keeps the barrier out of a loop that is not nested, as in
# iree_pipelined_transpose_load_no_read_barrier_fixed.cake).
# Written in CAKE IR as an sm_80 schedule: each wave64 of the 256-thread
# workgroup is a one-warp instance (group=1), gpu.barrier a named barrier;
# the inner trip count is the smallest the pass pipelines (3), the outer
# trip count `n_outer` is a parameter.
# expect: sync.race
@cake.schedule(target="sm_80")
def iree_prefetch_nested_loop_prologue_write_no_barrier(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, n_outer: LM.i32):
    pool = lm.smem(8192)
    sa   = pool.view(offset=0, shape=(64, 32), dtype=lm.f16)
    sb   = pool.view(offset=4096, shape=(64, 32), dtype=lm.f16)
    ra   = lm.regs(shape=(16, 32), dtype=lm.f16)
    rb   = lm.regs(shape=(16, 32), dtype=lm.f16)
    acc  = lm.regs(shape=(32, 32), dtype=lm.f32)

    waves = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[waves])

    with waves:
        w  = lm.instance()
        wm = w // 2
        wn = w % 2
        lm.fill(acc, 0.0)
        for o in lm.range(0, n_outer):
            # prologue: read(0), write(0)
            lm.copy(ra, A, coords=(16 * w, 96 * o))
            lm.copy(rb, B, coords=(16 * w, 96 * o))
            lm.copy(sa[0][16 * w:16 * w + 16, :], ra)     # expect-error: sync.race
            lm.copy(sb[0][16 * w:16 * w + 16, :], rb)     # expect-error: sync.race
            # kernel: k = 0, 1
            for k in lm.range(0, 2):
                lm.copy(ra, A, coords=(16 * w, 96 * o + 32 * (k + 1)))
                lm.copy(rb, B, coords=(16 * w, 96 * o + 32 * (k + 1)))
                lm.sync(block)
                lm.mma(acc, sa[0][32 * wm:32 * wm + 32, :], sb[0][32 * wn:32 * wn + 32, :], init=False)
                lm.sync(block)
                lm.copy(sa[0][16 * w:16 * w + 16, :], ra)
                lm.copy(sb[0][16 * w:16 * w + 16, :], rb)
            # epilogue: compute(2)
            lm.sync(block)
            lm.mma(acc, sa[0][32 * wm:32 * wm + 32, :], sb[0][32 * wn:32 * wn + 32, :], init=False)  # expect-error: sync.race
        lm.copy(C, acc, coords=(32 * wm, 32 * wn))
