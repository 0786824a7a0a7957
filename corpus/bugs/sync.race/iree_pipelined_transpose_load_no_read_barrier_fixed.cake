# Fixed form of iree_pipelined_transpose_load_no_read_barrier.cake
# (iree-org/iree PR #23435, merged, fixing issue #23421): the pipeliner's
# barrier re-insertion looks for shared-memory read effects through
# MemoryEffectsOpInterface, so the amdgpu.transpose_load of compute(k) gets
# its gpu.barrier back and every wave's write(k) is ordered before any
# wave's LDS read of tile k.  Written as the broken form: four wave64s as
# one-warp instances of an sm_80 role, gpu.barrier a named barrier, the
# loop not nested, the trip count 4.
# expect: pass
@cake.schedule(target="sm_80")
def iree_pipelined_transpose_load_no_read_barrier_fixed(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem):
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
        lm.copy(sa[0][16 * w:16 * w + 16, :], ra)
        lm.copy(sb[0][16 * w:16 * w + 16, :], rb)
        # kernel: k = 0, 1, 2
        for k in lm.range(0, 3):
            lm.copy(ra, A, coords=(16 * w, 32 * (k + 1)))
            lm.copy(rb, B, coords=(16 * w, 32 * (k + 1)))
            lm.sync(block)                                # the read barrier #23435 restores
            lm.mma(acc, sa[0][32 * wm:32 * wm + 32, :], sb[0][32 * wn:32 * wn + 32, :], init=False)
            lm.sync(block)
            lm.copy(sa[0][16 * w:16 * w + 16, :], ra)
            lm.copy(sb[0][16 * w:16 * w + 16, :], rb)
        # epilogue: compute(3)
        lm.sync(block)
        lm.mma(acc, sa[0][32 * wm:32 * wm + 32, :], sb[0][32 * wn:32 * wn + 32, :], init=False)
        lm.copy(C, acc, coords=(32 * wm, 32 * wn))
