# Real bug: iree-org/iree PR #23435 ("[LLVMGPU] Fix barrier handling when
# pipelining with non-transfer_read ops", merged; issue #23421, the
# backwards-weight convolution with --iree-llvmgpu-test-load-to-transpose-
# load=true).  ROCDLPrefetchSharedMemoryCopy removes the barriers of the loop
# it software-pipelines and adds them back from the schedule: a gpu.barrier
# before the first op of the kernel loop that reads shared memory, a
# gpu.barrier + sched_barrier before the first op that writes it, and one
# after the loop (postprocessPipelinedLoop).  "Reads shared memory" was
# matched as a vector.transfer_read; when the MFMA operands are read from LDS
# with amdgpu.transpose_load (ds_read_tr) instead, the read barrier is not
# re-inserted ("this causes barriers to be removed from the IR, causing data
# race possibilities").  The pipelined loop then is
#   prologue:  read(0) global -> VGPRs;  write(0) VGPRs -> LDS
#   kernel:    for k in [0, n-1): read(k+1); compute(k) with transpose_load
#              from LDS; gpu.barrier; sched_barrier; write(k+1)
#   epilogue:  gpu.barrier; compute(n-1)
# so nothing orders one wave's write(k) (the prologue's, or the previous
# iteration's) before another wave's transpose_load of the same tile in
# compute(k).  The fix matches any op with a shared-memory read effect
# (MemoryEffectsOpInterface) and restores the barrier before compute(k); the
# fixed form is iree_pipelined_transpose_load_no_read_barrier_fixed.cake.
# Written in CAKE IR as an sm_80 schedule: each wave64 of the 256-thread
# workgroup is a one-warp instance (group=1), gpu.barrier a named barrier; a
# wave writes a 16-row stripe of each LDS tile and its MFMAs read the 32-row
# halves of its 2x2 wave grid position (the transposed LDS read is a read of
# the same bytes); the loop is not nested (no prologue barrier, PR #22868)
# and has the static trip count 4.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def iree_pipelined_transpose_load_no_read_barrier(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem):
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
        # prologue: read(0), write(0)
        lm.copy(ra, A, coords=(16 * w, 0))
        lm.copy(rb, B, coords=(16 * w, 0))
        lm.copy(sa[0][16 * w:16 * w + 16, :], ra)     # expect-error: sync.race
        lm.copy(sb[0][16 * w:16 * w + 16, :], rb)     # expect-error: sync.race
        # kernel: k = 0, 1, 2
        for k in lm.range(0, 3):
            lm.copy(ra, A, coords=(16 * w, 32 * (k + 1)))
            lm.copy(rb, B, coords=(16 * w, 32 * (k + 1)))
            lm.mma(acc, sa[0][32 * wm:32 * wm + 32, :], sb[0][32 * wn:32 * wn + 32, :], init=False)  # expect-error: sync.race
            lm.sync(block)
            lm.copy(sa[0][16 * w:16 * w + 16, :], ra)     # expect-error: sync.race
            lm.copy(sb[0][16 * w:16 * w + 16, :], rb)     # expect-error: sync.race
        # epilogue: compute(3)
        lm.sync(block)
        lm.mma(acc, sa[0][32 * wm:32 * wm + 32, :], sb[0][32 * wn:32 * wn + 32, :], init=False)
        lm.copy(C, acc, coords=(32 * wm, 32 * wn))
