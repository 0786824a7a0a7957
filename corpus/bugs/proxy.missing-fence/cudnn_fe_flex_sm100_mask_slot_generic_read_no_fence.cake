# BUG (proxy.missing-fence): NVIDIA/cudnn-frontend PR #993 ("Fix SM100 2CTA
# Flex Attention mask slot synchronization", merged 2026-09-10), the SM100
# CuTe DSL Flex Attention forward (python/cudnn/flex_attention/kernels/
# sm100/fwd/).  The packed block mask of each KV tile reaches shared memory
# through an async-proxy bulk copy into ONE mask slot per N-direction
# stream: the mask warp waits the slot's empty barrier, copies the next
# tile's mask words in (completing bytes on the full barrier), and the
# softmax warpgroup waits the full barrier, reads its rows' mask words with
# generic ld.shared and releases the slot (once per consumer warp) to the
# next bulk copy.  Nothing orders those generic reads before the async-
# proxy write that overwrites the slot: the full-barrier wait orders the
# previous copy before the reads, not the reads before the next copy.  On
# B200 a valid row consumed an all-zero mask (zero output, LSE = -inf).
# The fix issues fence.proxy.async.shared::cta after the shared loads and
# before the release (and counts all 128 reading threads on the empty
# barrier - a lane-level detail the IR's one-process-per-instance model
# already gives: lowering converges a warp before its elected arrive).
# Modelled: one mask stream of the CTA - a one-warp mask loader and the
# four softmax warps as four one-warp instances (`group=1`, one release per
# warp, the empty barrier expecting 4 arrivals); the mask of one
# 128 x 128 tile as 128 rows of 4 packed 32-bit words, each warp reading
# its 32 rows; n_blk KV tiles per CTA.  Left out: the 2CTA tcgen05 MMAs
# and the S/P/O pipelines, which do not touch the mask slot.
# Fix: cudnn_fe_flex_sm100_mask_slot_generic_read_no_fence_fixed.cake.
# expect: proxy.missing-fence
@cake.schedule(target="sm_100a")
def cudnn_fe_flex_sm100_mask_slot_generic_read_no_fence(lm, Mask: LM.tma3d, n_blk: LM.i32):
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
            smask.tma_load(Mask, coords=(lm.block_idx(0), n, 0), iter=n, barrier=m_full)  # expect-error: proxy.missing-fence

    with softmax:
        r0 = 32 * lm.instance()
        for n in lm.range(0, n_blk):
            lm.wait(m_full, iter=n)
            lm.copy(words, smask[n][r0:r0 + 32, :])                      # expect-error: proxy.missing-fence
            # BUG: no fence.proxy.async before the slot goes back to the bulk copy
            lm.arrive(m_empty, iter=n)
