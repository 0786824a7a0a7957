# BUG (sync.race): tile-ai/tilelang issue #2613 (a wrong-code bug of the
# warp-specialization pass found by fuzzing): an un-pipelined
# (num_stages=0) Hopper GEMM whose K loop is split across two threadIdx-
# guarded warpgroup regions (T.ws(0) / T.ws(1)) that both read one shared
# operand with an asynchronous wgmma.  The pass inserts the post-copy RAW
# barrier but drops the loop-back WAR __syncthreads(): the next
# iteration's all-threads T.copy overwrites the shared tile while the
# OTHER warpgroup's wgmma from the previous iteration may still read it
# (warpgroup_wait<0> orders only the issuing warpgroup's own reads).
# Modelled: each warpgroup (one instance of `wgs`) stages its 64 rows of
# the A and B tiles with st.shared, fences, and bar.syncs; each then
# multiplies its rows of A by the whole B tile (both halves), so either
# warpgroup's next write of its B half races with the other's wgmma.
# Fix: tilelang_ws_shared_operand_no_loopback_sync_fixed.cake (the
# loop-back barrier, as in the neighbouring shapes the pass gets right).
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def ws_gemm_shared_operand_no_loopback_sync(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(32768)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    a_r    = lm.regs(shape=(64, 64), dtype=lm.bf16)
    b_r    = lm.regs(shape=(64, 64), dtype=lm.bf16)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    wgs   = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=4)
    ready = lm.named_barrier(roles=[wgs])

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with wgs:
        r0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.copy(a_r, A, coords=(m_blk + r0, k * 64))
            lm.copy(smem_a[0][r0:r0 + 64, :], a_r)
            lm.copy(b_r, B, coords=(n_blk + r0, k * 64))
            lm.copy(smem_b[0][r0:r0 + 64, :], b_r)  # expect-error: sync.race
            lm.fence_proxy()
            lm.sync(ready)
            lm.mma(acc, smem_a[0][r0:r0 + 64, :], smem_b, init=(k == 0))  # expect-error: sync.race
            lm.mma_commit()
            lm.mma_wait(pending=0)
        lm.copy(C, acc, coords=(m_blk + r0, n_blk))
