# FIXED: cudnn_fe_flex_sm100_mask_slot_generic_read_no_fence.cake as
# NVIDIA/cudnn-frontend PR #993 fixed it: every softmax warp issues
# fence.proxy.async.shared::cta after its generic reads of the mask slot and
# before it releases the slot, so the next bulk copy (async proxy) into the
# slot is ordered after those reads.
# expect: pass
@cake.schedule(target="sm_100a")
def cudnn_fe_flex_sm100_mask_slot_fence_before_release(lm, Mask: LM.tma3d, n_blk: LM.i32):
    lm.assume(n_blk >= 1)
    pool  = lm.smem(2048)
    smask = pool.view(offset=0, shape=(128, 4), dtype=lm.i32, stages=1)   # the stream's single mask slot
    words = lm.regs(shape=(32, 4), dtype=lm.i32)

    mload   = lm.role(warps=[0])
    softmax = lm.role(warps=[4, 5, 6, 7], group=1)                        # one release per warp
    slot    = lm.pipeline(stages=1)
    m_full  = lm.barrier(prod=[mload], cons=[softmax], init_count=1, pipeline=slot)
    m_empty = lm.barrier(prod=[softmax], cons=[mload], init_count=4, pipeline=slot)

    with mload:
        for n in lm.range(0, n_blk):
            lm.wait(m_empty, iter=n - 1)
            smask.tma_load(Mask, coords=(lm.block_idx(0), n, 0), iter=n, barrier=m_full)

    with softmax:
        r0 = 32 * lm.instance()
        for n in lm.range(0, n_blk):
            lm.wait(m_full, iter=n)
            lm.copy(words, smask[n][r0:r0 + 32, :])
            lm.fence_proxy()                                              # the fix
            lm.arrive(m_empty, iter=n)
