# FIXED: deepgemm_tf32_hc_prenorm_a_regs_reuse.cake as deepseek-ai/DeepGEMM
# PR #448 fixes it (issue #449): warpgroup_wait<0>() moves right after
# warpgroup_commit_batch(), so each k-block's register-source wgmma has
# retired before the next k-block reloads the A fragment, and the stage is
# released right after.
# expect: pass
# lower: unsupported (wgmma with tf32 A from registers: the hardware has it, SM90 RS tf32; the lowering emits register A for bf16/f16 only)
@cake.schedule(target="sm_90a")
def deepgemm_tf32_hc_prenorm_wait_after_commit(lm, A: LM.tma2d, B: LM.tma2d, D: LM.tma2d, K: LM.i32):
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 32), dtype=lm.f32, stages=4, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(32, 32), dtype=lm.f32, stages=4, swizzle="128B")
    smem_d = pool.view(offset=49152, shape=(64, 32), dtype=lm.f32)
    a_frag = lm.regs(shape=(64, 32), dtype=lm.f32)
    acc    = lm.regs(shape=(64, 32), dtype=lm.f32)

    tma  = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[tma], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[tma], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 64

    with tma:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_a.tma_load(A, coords=(m_blk, k * 32), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(0, k * 32), iter=k, barrier=full)

    with math:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.copy(a_frag, smem_a[k])
            lm.fence_proxy()   # generic read of a TMA stage before its release (docs/rules/proxy.missing-fence.md)
            lm.mma(acc, a_frag, smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(smem_d[0], acc)
        lm.fence_proxy()
        smem_d.tma_store(D, coords=(m_blk, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
