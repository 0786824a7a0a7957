# mutant: pending-minus-1
# original: corpus/copy/sm80_cp_async_double_buffer.cake
# line: 29: lm.cp_async_wait(pending=1)
# change: pending: `1` -> `0`
# label: benign: no violation under exhaustive exploration with rows in {1, 80, 144, 208, 272}; block_idx 0 of grid_dim 1; 120 states (explicit-state simulator (encoder/simulator.h))
# expect: pass
# Ampere streaming kernel with a 2-slot cp.async double buffer: the tile of
# iteration t+1 is in flight while tile t is read from shared memory,
# scaled and written back to global memory (bf16 in, bf16 out).
#  * one cp.async group per tile; cp_async_wait(pending=1) at iteration t
#    retires the group of tile t (t+2 groups committed, the prefetch of t+1
#    may stay in flight); lowering bar.syncs the 4 warps after the wait.
#  * the prefetch of tile t+1 goes into slot (t+1)%2, last read at
#    iteration t-1 - ordered by that same bar.sync.
#  * trailing empty commit keeps the group count uniform; final drain.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def scale_cp_async_db(lm, X: LM.gmem, Y: LM.gmem, rows: LM.i32):
    lm.assume(rows > 0)
    pool   = lm.smem(32768)
    smem_x = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=2)
    x      = lm.regs(shape=(64, 128), dtype=lm.f32)
    y      = lm.regs(shape=(64, 128), dtype=lm.bf16)
    wg = lm.role(warps=[0, 1, 2, 3])
    n_tiles = lm.cdiv(rows, 64)
    r_blk = lm.block_idx(0) * 64 * 8
    my    = min(8, n_tiles - lm.block_idx(0) * 8)
    with wg:
        smem_x.cp_async(X, coords=(r_blk, 0), iter=0)
        lm.cp_async_commit()
        for t in lm.range(0, my):
            if t + 1 < my:
                smem_x.cp_async(X, coords=(r_blk + (t + 1) * 64, 0), iter=t + 1)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=0)
            lm.copy(x, smem_x[t])
            lm.binary(x, x, 0.5, op="mul")
            lm.copy(y, x)
            lm.copy(Y, y, coords=(r_blk + t * 64, 0))
        lm.cp_async_wait(pending=0)
