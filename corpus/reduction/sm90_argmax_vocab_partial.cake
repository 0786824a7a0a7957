# Hopper greedy-decoding argmax, first pass (the split-vocabulary pattern
# of vLLM/FlashInfer sampling kernels): CTA (b, v) scans a 64-row x 2048-
# column chunk of the logits in 8 tiles of 256 columns and writes, per
# tile, the row maximum and its column index to a partial buffer; a second
# pass combines partials.  TMA warp -> 2-slot ring -> one warpgroup.
# Rows of 256 bf16 = 512 bytes: unswizzled view (no swizzle span limit).
# expect: pass
@cake.schedule(target="sm_90a")
def argmax_partial(lm, L: LM.tma2d, PV: LM.gmem, PI: LM.gmem, V: LM.i32):
    lm.assume(V > 0)
    pool   = lm.smem(65536)
    smem_l = pool.view(offset=0, shape=(64, 256), dtype=lm.bf16, stages=2)
    x      = lm.regs(shape=(64, 256), dtype=lm.f32)
    mx     = lm.regs(shape=(64, 1), dtype=lm.f32)
    ix     = lm.regs(shape=(64, 1), dtype=lm.i32)

    load  = lm.role(warps=[0])
    wg    = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[wg], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[wg], cons=[load], init_count=1, pipeline=pipe)

    r0 = lm.block_idx(0) * 64
    v0 = lm.block_idx(1) * 2048
    n  = min(8, lm.cdiv(V - v0, 256))

    with load:
        for j in lm.range(0, n):
            lm.wait(empty, iter=j - 2)
            smem_l.tma_load(L, coords=(r0, v0 + j * 256), iter=j, barrier=full)

    with wg:
        for j in lm.range(0, n):
            lm.wait(full, iter=j)
            lm.copy(x, smem_l[j])
            lm.fence_proxy()  # generic reads done before the slot goes back to TMA
            lm.arrive(empty, iter=j)
            lm.reduce(mx, x, op="max", axis=1)
            lm.reduce(ix, x, op="argmax", axis=1)
            lm.copy(PV, mx, coords=(r0, lm.block_idx(1) * 8 + j))
            lm.copy(PI, ix, coords=(r0, lm.block_idx(1) * 8 + j))
