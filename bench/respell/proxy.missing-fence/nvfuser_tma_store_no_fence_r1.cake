# RESPELLING of corpus/bugs/proxy.missing-fence/nvfuser_tma_store_no_fence.cake
# (NVIDIA/Fuser PR #1967): a two-slot view used with iter=, a redundant
# fence BEFORE the register fill (orders nothing useful), the store
# coordinate spelled 256 * block.
# expect: proxy.missing-fence
@cake.schedule(target="sm_90a")
def tma_store_kernel(lm, out: LM.tma1d):
    smem  = lm.smem(1024)
    stage = smem.view(offset=0, shape=(256,), dtype=lm.f16, stages=2)
    frag  = lm.regs(shape=(256,), dtype=lm.f16)
    w     = lm.role(warps=[0])
    with w:
        lm.fence_proxy()                       # too early: nothing written yet
        lm.fill(frag, 0.0)
        lm.copy(stage[0], frag)                                   # expect-error: proxy.missing-fence
        stage.tma_store(out, coords=(256 * lm.block_idx(0),), iter=0)   # expect-error: proxy.missing-fence
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
