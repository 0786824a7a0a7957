# Real bug: ROCm/aiter PR #4537, fix 1 ("compute_bound prologue over-fills
# the TDM ring"; the PR was closed after review, its measurements stand): the
# gfx1250 Gluon a16w16 GEMM's compute_bound pipelines issue NUM_BUFFERS
# async_load pairs into a ring of NUM_BUFFERS LDS slots, then, each
# iteration, issue the next load into slot load_idx % NUM_BUFFERS, wait, and
# read tile compute_idx + 1 - one ahead of the tile the MMA consumes.  With
# the ring full, the slot the iteration's load overwrites is the one whose
# tile the previous iteration read ahead, and nothing orders the two: the
# LDS reads go through load_shared_relaxed (`syncedViaAsyncWait`), which
# suppresses the barrier MembarPass would insert, so the only workgroup
# barrier is the async_wait's, after the load.  A wave that has not drained
# its read sees the tile overwritten under it (wrong results in 2-8 of 8
# processes per tile config, 0 of 8 after the fix).  The fix fills
# NUM_BUFFERS - 1 slots, leaving one free, and shifts the async_wait counts;
# the fixed form is aiter_gfx1250_gluon_gemm_prologue_fills_every_buffer_fixed.cake.
# Written in CAKE IR as an sm_80 schedule: the TDM loads as cp.async groups,
# each wave a one-warp instance (group=1) loading its 16-row quarter of a
# 64 x 64 A tile (`aq`, a view of quarters over the ring `a`: quarter w of
# tile t is aq[4t + w]) and reading the half of A's rows its WMMAs use (2 x 2
# waves), async_wait(n) as cp_async_wait(pending=n) followed by a named
# barrier over the waves; NUM_BUFFERS = 3.  Left out: the B tile (loaded the
# same way), the WMMA (a register add of the rows read ahead stands for
# it), the epilogue's layout conversion.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def aiter_gfx1250_gluon_gemm_prologue_fills_every_buffer(lm, A: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K >= 64)
    pool = lm.smem(24576)
    a    = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=3)
    aq   = pool.view(offset=0, shape=(16, 64), dtype=lm.bf16, stages=12)
    cur  = lm.regs(shape=(32, 64), dtype=lm.bf16)
    acc  = lm.regs(shape=(32, 64), dtype=lm.f32)

    waves = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[waves])

    kt = lm.cdiv(K, 64)
    m0 = lm.block_idx(0) * 64

    with waves:
        w = lm.instance()
        for i in lm.range(0, 3):                            # prologue: NUM_BUFFERS loads
            if i < kt:
                aq.cp_async(A, coords=(m0 + 16 * w, 64 * i), iter=4 * i + w)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=2)
        lm.sync(block)
        r0 = 32 * (w // 2)                                  # the wave's half of A's rows
        lm.copy(cur, a[0][r0:r0 + 32, :])                   # expect-error: sync.race
        lm.fill(acc, 0.0)
        for k in lm.range(0, kt):
            ld = k + 3                                      # load_idx
            if ld < kt:
                aq.cp_async(A, coords=(m0 + 16 * w, 64 * ld), iter=4 * ld + w)  # expect-error: sync.race
            lm.cp_async_commit()
            lm.cp_async_wait(pending=2)
            lm.sync(block)
            lm.binary(acc, acc, cur, op="add")              # (the WMMA on tile k)
            if k + 1 < kt:
                lm.copy(cur, a[k + 1][r0:r0 + 32, :])       # tile compute_idx + 1  # expect-error: sync.race
        lm.cp_async_wait(pending=0)
        lm.copy(C, acc, coords=(m0 + r0, 64 * (w % 2)))
