# BUG (sync.race): triton-lang/triton PR #124 ("[CODEGEN] Bugfix in membar
# pass", 2021-06-14): "Membar pass on top of master is buggy with
# asynchronous copy. For example, it doesn't wait for asynchronous copies
# to complete before recoalescing accumulator in GEMM, which leads to
# undefined behavior when the program doesn't enter the loop."  The
# pipelined sm_80 GEMM issues its prologue cp.async loads (masked loads:
# with K = 0 they still run and zero-fill their stage) and waits for each
# stage inside the K loop; after the loop, the accumulator's layout
# conversion ("recoalescing") goes through shared memory that the
# allocator shares with the pipeline buffers.  When the loop is not entered
# (or exits with prefetched groups outstanding), nothing waits for the
# prologue's cp.async groups before the conversion's st.shared, so the
# async copies land on top of the converted accumulator.  The fix makes
# membar insert a `cp.async.wait_all` (and the barrier) before shared
# memory that async copies may still write is reused.
# Modelled: sm_80, one 4-warp role; A and B in 2-stage cp.async rings; the
# prologue loads both stages unconditionally (the masked loads), the loop
# waits for stage k, multiplies (mma.sync from shared memory) and prefetches
# stage k + 2 when it exists; after the loop the accumulator is written to
# a conversion buffer that aliases the A ring, read back in the other
# layout and stored.  Left out: the masks' zero-fill values and the
# conversion's exact layouts.
# Fix: triton_membar_cp_async_under_epilogue_convert_fixed.cake.
# expect: sync.race
# may-also: sync.async-at-exit
@cake.schedule(target="sm_80")
def triton_membar_cp_async_under_epilogue_convert(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K >= 0)
    pool = lm.smem(32768)
    a_s  = pool.view(offset=0,     shape=(64, 32), dtype=lm.f16, stages=2)
    b_s  = pool.view(offset=8192,  shape=(64, 32), dtype=lm.f16, stages=2)
    cv_s = pool.view(offset=0,     shape=(64, 64), dtype=lm.f16)
    acc  = lm.regs(shape=(64, 64), dtype=lm.f32)
    out  = lm.regs(shape=(64, 64), dtype=lm.f16)

    wg = lm.role(warps=[0, 1, 2, 3])
    k_tiles = lm.cdiv(K, 32)
    m0 = 64 * lm.block_idx(0)
    n0 = 64 * lm.block_idx(1)

    with wg:
        lm.fill(acc, 0.0)
        for s in lm.range(0, 2):
            a_s.cp_async(A, coords=(m0, 32 * s), iter=s)
            b_s.cp_async(B, coords=(n0, 32 * s), iter=s)
            lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=1)
            lm.mma(acc, a_s[k], b_s[k])
            if k + 2 < k_tiles:
                a_s.cp_async(A, coords=(m0, 32 * (k + 2)), iter=k + 2)
                b_s.cp_async(B, coords=(n0, 32 * (k + 2)), iter=k + 2)
            lm.cp_async_commit()
        # BUG: no cp.async.wait_all before the conversion buffer is written
        lm.copy(cv_s[0], acc)                                           # expect-error: sync.race
        lm.copy(out, cv_s[0])
        lm.copy(C, out, coords=(m0, n0))
