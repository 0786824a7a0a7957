# mutant: commit-early
# original: corpus/normalization/sm90_rmsnorm_resident_row.cake
# line: 50: lm.tma_store_commit()
# change: moved `smem_x.tma_store(Y, coords=(r0, c * 256), stage=c)` after `lm.tma_store_commit()`
# label: bad (sync.async-at-exit) by the explicit-state simulator (encoder/simulator.h), rows = 1; block_idx 0 of grid_dim 1; 262 states; first violation: sync.async-at-exit: wg exits while its TMA store (never committed) still accesses shared memory (smem_x[15] bytes [122880, 131072): no lm.tma_store_wait(pending=0) before exit) at `smem_x.tma_store(Y, coords=(r0, c * 256), stage=c)` (line 50) (rows=1)
# expect-any: sync.async-at-exit
# Hopper RMSNorm for hidden size 4096 with the whole 16-row block resident
# in shared memory (16 chunks of 16x256 bf16 = 128 KiB): a TMA warp issues
# all 16 chunk loads at once, each completing its own barrier slot
# (stage=c, used once); the warpgroup accumulates the sum of squares chunk
# by chunk as they land, then normalizes each chunk IN PLACE (ld.shared,
# scale, st.shared into the same slot), fences, and TMA-stores the chunk.
# The in-place write follows the same instance's read of the slot, and the
# TMA store reads it only after the fence.  All stores drained at exit.
# Rows of 256 bf16 = 512 bytes: unswizzled views (box inner dim 256 ok).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def rmsnorm_4096(lm, X: LM.tma2d, W: LM.gmem, Y: LM.tma2d, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(131072)
    smem_x = pool.view(offset=0, shape=(16, 256), dtype=lm.bf16, stages=16)
    x      = lm.regs(shape=(16, 256), dtype=lm.f32)
    w      = lm.regs(shape=(1, 256), dtype=lm.f32)
    ss     = lm.regs(shape=(16, 1), dtype=lm.f32)
    part   = lm.regs(shape=(16, 1), dtype=lm.f32)

    load = lm.role(warps=[0])
    wg   = lm.role(warps=[4, 5, 6, 7])
    full = lm.barrier(count=16, prod=[load], cons=[wg], init_count=1)

    r0 = lm.block_idx(0) * 16

    with load:
        for c in lm.range(0, 16):
            smem_x.tma_load(X, coords=(r0, c * 256), stage=c, barrier=full)

    with wg:
        lm.fill(ss, 0.0)
        for c in lm.range(0, 16):
            lm.wait(full, stage=c)
            lm.copy(x, smem_x[c])
            lm.binary(x, x, x, op="mul")
            lm.reduce(part, x, op="sum", axis=1)
            lm.binary(ss, ss, part, op="add")
        lm.binary(ss, ss, 0.000244140625, op="mul")
        lm.binary(ss, ss, 0.000001, op="add")
        lm.unary(ss, ss, op="rsqrt")
        for c in lm.range(0, 16):
            lm.copy(x, smem_x[c])
            lm.copy(w, W, coords=(0, c * 256))
            lm.binary(x, x, ss, op="mul")
            lm.binary(x, x, w, op="mul")
            lm.copy(smem_x[c], x)
            lm.fence_proxy()
            lm.tma_store_commit()
            smem_x.tma_store(Y, coords=(r0, c * 256), stage=c)
        lm.tma_store_wait(pending=0)
