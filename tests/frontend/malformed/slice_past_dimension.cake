# expect-error: type.mismatch @ 12:29
# A constant slice end past the slot's 32 columns: the model would clamp it
# to the slot, the lowering would address past it.
@cake.schedule(target="sm_80")
def slice_past_dimension(lm, A: LM.gmem, K: LM.i32):
    pool = lm.smem(16384)
    a = pool.view(offset=0, shape=(128, 32), dtype=lm.bf16, stages=2)
    acc = lm.regs(shape=(128, 128), dtype=lm.f32)
    w = lm.role(warps=[0, 1, 2, 3])
    with w:
        a.cp_async(A, coords=(0, 0), stage=0)
        lm.mma(acc, a[0][:, 16:48], a[0][:, 16:48])
