# RESPELLING of corpus/bugs/sync.race/nvfuser_cp_async_commit_after_wait.cake
# (NVIDIA/Fuser): the prologue addressed with stage=, the refill guard as
# `n > i + 7`, the depth spelled 7 - 1, a redundant cp.async wait-all
# before the main loop is NOT added (it would fix the first lap only).
# expect: sync.race
@cake.schedule(target="sm_80")
def circular_buffer_kernel(lm, src: LM.gmem, dst: LM.gmem, extent: LM.i32):
    lm.assume(extent > 6)
    smem = lm.smem(65536)
    buf  = smem.view(offset=0, shape=(64, 64), dtype=lm.f16, stage=8)
    r    = lm.regs(shape=(64, 64), dtype=lm.f16)
    block = lm.role(warps=[0, 1, 2, 3])
    with block:
        for s in lm.range(0, 7):
            buf.cp_async(src, coords=(64 * s, 0), stage=s)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=7 - 1)
        for i in lm.range(0, extent):
            if extent > i + 7:
                buf.cp_async(src, coords=(64 * (i + 7), 0), iter=i + 7)
            lm.copy(r, buf[i])                                          # expect-error: sync.race
            lm.copy(dst, r, coords=(64 * i, 0))
            lm.cp_async_wait(pending=7 - 1)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
