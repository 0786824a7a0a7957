# BUG (sync.race): TileOPs' GQA sliding-window varlen forward, WGMMA
# pipelined kernel for H200 (tileops gqa_sliding_window_varlen_fwd.py), as
# reported in tile-ai/TileOPs issue #1404 and fixed by PR #1405 ("Fix
# varlen sliding-window WGMMA output race"); the same race in the
# fixed-length sibling was fixed by PR #1633 (issue #1616).  The output
# path normalizes acc_o, copies it into the swizzled o_shared with
# stmatrix (T.copy(acc_o, o_shared)) and immediately copies o_shared to
# global memory with all 256 threads.  The global copy maps threads to rows
# differently from the wgmma accumulator layout (8 threads per 64-element
# row, 32 rows per pass), so each warpgroup reads rows the other warpgroup
# writes, and nothing ordered the two: numerical mismatches ~0.47/0.60.
# The fix puts a named barrier (T.sync_threads(3, threads)) before and
# after the staging copy.
# Written in CAKE IR: one TMA producer warp, two consumer warpgroups
# (group=4, 64 query rows each), a 2-slot K/V ring addressed with iter= and
# a negative-iteration first lap, and the global write-out read back in
# 16-row bands interleaved between the warpgroups (pass p, warpgroup w:
# rows 32 p + 16 w), as the 256-thread copy does.  Left out: the softmax
# and sliding-window masks (register compute), the second GEMM.
# Fix: tileops_gqa_swa_varlen_o_shared_no_sync_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def tileops_gqa_swa_varlen_o_shared_no_sync(lm, Q: LM.tma2d, KV: LM.tma2d, O: LM.gmem, n_kv: LM.i32):
    pool     = lm.smem(65536)
    q_s      = pool.view(offset=0,     shape=(128, 64), dtype=lm.f16, swizzle="128B")
    kv_s     = pool.view(offset=16384, shape=(64, 64),  dtype=lm.f16, stages=2, swizzle="128B")
    o_shared = pool.view(offset=32768, shape=(128, 64), dtype=lm.f16, swizzle="128B")
    acc_o    = lm.regs(shape=(64, 64), dtype=lm.f32)
    o_band   = lm.regs(shape=(16, 64), dtype=lm.f16)

    load = lm.role(warps=[8])
    mma  = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=4)

    q_full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    kv_full  = lm.barrier(count=2, prod=[load], cons=[mma], init_count=1)
    kv_empty = lm.barrier(count=2, prod=[mma], cons=[load], init_count=2)

    m_blk = lm.block_idx(0) * 128
    n_tiles = lm.cdiv(n_kv, 64)

    with load:
        q_s.tma_load(Q, coords=(m_blk, 0), stage=0, barrier=q_full)
        for j in lm.range(0, n_tiles):
            lm.wait(kv_empty, iter=j - 2)
            kv_s.tma_load(KV, coords=(j * 64, 0), iter=j, barrier=kv_full)

    with mma:
        w = lm.instance()
        m0 = 64 * w
        lm.wait(q_full, stage=0)
        lm.fill(acc_o, 0.0)
        for j in lm.range(0, n_tiles):
            lm.wait(kv_full, iter=j)
            lm.mma(acc_o, q_s[0][m0:m0 + 64, :], kv_s[j])
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(kv_empty, iter=j)
        lm.copy(o_shared[0][m0:m0 + 64, :], acc_o)                     # expect-error: sync.race
        for p in lm.range(0, 4):
            r = 32 * p + 16 * w
            lm.copy(o_band, o_shared[0][r:r + 16, :])                  # expect-error: sync.race
            lm.copy(O, o_band, coords=(m_blk + r, 0))
