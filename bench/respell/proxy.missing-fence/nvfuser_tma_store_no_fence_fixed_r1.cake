# RESPELLING of corpus/bugs/proxy.missing-fence/nvfuser_tma_store_no_fence_fixed.cake
# (NVIDIA/Fuser PR #1967): as _r1, the fence between the st.shared and the
# TMA store, and a second (redundant) one before the fill.
# expect: pass
@cake.schedule(target="sm_90a")
def tma_store_kernel_fixed(lm, out: LM.tma1d):
    smem  = lm.smem(1024)
    stage = smem.view(offset=0, shape=(256,), dtype=lm.f16, stages=2)
    frag  = lm.regs(shape=(256,), dtype=lm.f16)
    w     = lm.role(warps=[0])
    with w:
        lm.fence_proxy()
        lm.fill(frag, 0.0)
        lm.copy(stage[0], frag)
        lm.fence_proxy()
        stage.tma_store(out, coords=(256 * lm.block_idx(0),), iter=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
