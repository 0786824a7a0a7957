# BUG (sync.race): NVIDIA/cudnn-frontend PR #1049 ("fix(dsa): synchronize
# SM90 indexer dK staging"; the SM100 dense twin is PR #1135), in
# python/cudnn/deepseek_sparse_attention/indexer_backward/
# indexer_backward_sm90.py, kernel_gemm.  Each compute warpgroup stages its
# D/2 half of acc_dK (GEMM2's wgmma accumulator, x sm_scale) into the
# shared buffer sdK_staging once per top-k block, and then every thread
# my_ni = wg_tidx issues one cp.reduce.async.bulk (float add) of staging row
# my_ni (the 64 D values of top-k entry my_ni) into dK in global memory:
#     warpgroup.wait_group(1)                       # GEMM2 done
#     cp_async_bulk_wait_group(0, read=True)        # previous reduce read
#     for ei: tCsDK_staging[ei] = acc_dK[ei] * sm_scale
#     warpgroup.wait_group(0); fence_view_async_shared()
#     cpasync_reduce_bulk_add_f32(row my_ni -> dK[topk_idx, half])
#     cp_async_bulk_commit_group()
# A row's 64 values come from the accumulator fragments of all four warps
# (the wgmma C layout spreads D over the warps), but one thread issues its
# bulk reduce.  The bulk wait is thread-local: a warp that passes it can
# overwrite rows whose previous reduce, issued by another warp, is still
# reading them; and the proxy fence only orders a thread's own writes, so a
# launcher can issue its reduce before the other warps have written their
# parts of its row.  Intermittent non-finite / wrong dK.  The fix adds a
# 128-thread named barrier per warpgroup (DK_STAGING_BARRIER_WG0/1) after
# the bulk wait and another after the staging stores and proxy fence.
# Modelled: one compute warpgroup (the other owns a disjoint D half and its
# own barrier id) as four one-warp instances: warp w writes D columns
# [16w, 16w + 16) of every row (its part of the C fragment) and issues the
# bulk reduce of rows [32w, 32w + 32) (the rows of its 32 threads) as one
# async-proxy store of a 32-row slot of a second view over the same bytes;
# n_blocks top-k blocks of 128 entries.  Left out: GEMM1/2/3 (the wgmmas;
# each warp's part of acc_dK is a register fragment here, read from a
# stand-in tensor), the K-load warpgroup and its mbarriers, dQ/dW, the
# top-k index gather (the reduce goes to rows i_st + n), the row padding
# (stride 132).
# Fix: cudnn_fe_dsa_indexer_dk_staging_no_wg_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def cudnn_fe_dsa_indexer_dk_staging_no_wg_barrier(lm, AccDK: LM.gmem, DK: LM.tma2d,
                                                  n_blocks: LM.i32):
    lm.assume(n_blocks >= 1)
    pool = lm.smem(32768)
    stg  = pool.view(offset=0, shape=(128, 64), dtype=lm.f32, stages=1)   # sdK_staging_half
    rows = pool.view(offset=0, shape=(32, 64), dtype=lm.f32, stages=4)    # 32 rows per warp
    frag = lm.regs(shape=(128, 16), dtype=lm.f32)

    wg = lm.role(warps=[0, 1, 2, 3], group=1)

    with wg:
        w = lm.instance()
        for bi in lm.range(0, n_blocks):
            i_st = 128 * bi
            lm.copy(frag, AccDK, coords=(i_st, 16 * w))      # this warp's acc_dK part
            lm.tma_store_wait(pending=0)                     # cp_async_bulk_wait_group(0, read=True)
            # tCsDK_staging[ei] = acc_dK[ei] * scale
            lm.copy(stg[0][:, 16 * w:16 * w + 16], frag)                  # expect-error: sync.race
            lm.fence_proxy()                                 # fence_view_async_shared()
            # bulk reduce of its rows
            rows.tma_store(DK, coords=(i_st + 32 * w, 0), stage=w)        # expect-error: sync.race
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
