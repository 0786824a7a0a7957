# FIXED form of cudnn_fe_dsa_indexer_dk_staging_no_wg_barrier.cake
# (NVIDIA/cudnn-frontend PR #1049): a 128-thread named barrier per compute
# warpgroup after the bulk-read wait (no warp overwrites the staging buffer
# while another warp's reduce still reads it) and another after the staging
# stores and the proxy fence (no warp issues the reduce of its rows before
# every warp has written its part of them).
# expect: pass
@cake.schedule(target="sm_90a")
def cudnn_fe_dsa_indexer_dk_staging_wg_barrier(lm, AccDK: LM.gmem, DK: LM.tma2d,
                                                n_blocks: LM.i32):
    lm.assume(n_blocks >= 1)
    pool = lm.smem(32768)
    stg  = pool.view(offset=0, shape=(128, 64), dtype=lm.f32, stages=1)   # sdK_staging_half
    rows = pool.view(offset=0, shape=(32, 64), dtype=lm.f32, stages=4)    # 32 rows per warp
    frag = lm.regs(shape=(128, 16), dtype=lm.f32)

    wg = lm.role(warps=[0, 1, 2, 3], group=1)
    dk_staging = lm.named_barrier(roles=[wg])                 # DK_STAGING_BARRIER_WG0, 128 threads

    with wg:
        w = lm.instance()
        for bi in lm.range(0, n_blocks):
            i_st = 128 * bi
            lm.copy(frag, AccDK, coords=(i_st, 16 * w))      # this warp's acc_dK part
            lm.tma_store_wait(pending=0)                     # cp_async_bulk_wait_group(0, read=True)
            lm.sync(dk_staging)                              # the fix: every reduce has read
            lm.copy(stg[0][:, 16 * w:16 * w + 16], frag)     # tCsDK_staging[ei] = acc_dK[ei] * scale
            lm.fence_proxy()                                 # fence_view_async_shared()
            lm.sync(dk_staging)                              # the fix: every part is written
            rows.tma_store(DK, coords=(i_st + 32 * w, 0), stage=w)   # bulk reduce of its rows
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
