# Mamba selective-scan style chunked scan (sm_80, 4 warps): the sequence
# is streamed in chunks of 128 through a 2-slot cp.async ring (each warp
# copies its own 32 positions: 8 segment slots, iter 4*chunk + warp); each warp
# scans its 32 positions of the chunk, publishes its segment total to
# carry[w], and after __syncthreads every warp folds in the totals of the
# warps before it (its exclusive prefix) and of all four (the running
# state carried to the next chunk).  The trailing __syncthreads orders
# this chunk's carry reads before the next chunk's carry writes, and
# (with the cp.async wait at the loop top) the smem_x reads of chunk c
# before the refill of its slot at chunk c+1.
# The loop-top __syncthreads alone would also order this chunk's carry
# reads before the next chunk's carry writes (the checker proves that form
# too); the trailing one is kept as the kernels write it.
# Bug twin: corpus/bugs/sync.race/sm80_chunked_scan_carry_no_sync.cake.
# expect: pass
@cake.schedule(target="sm_80")
def chunked_scan(lm, X: LM.gmem, Y: LM.gmem, L: LM.i32):
    lm.assume(L > 0)
    pool   = lm.smem(2048)
    smem_x = pool.view(offset=0,    shape=(1, 32), dtype=lm.f32, stages=8)
    carry  = pool.view(offset=1024, shape=(1, 32), dtype=lm.f32, stages=4)
    x      = lm.regs(shape=(1, 32), dtype=lm.f32)
    oth    = lm.regs(shape=(1, 32), dtype=lm.f32)
    state  = lm.regs(shape=(1, 32), dtype=lm.f32)

    team = lm.role(warps=[0, 1, 2, 3], group=1)
    bar  = lm.named_barrier(roles=[team])

    n_chunks = lm.cdiv(L, 128)
    with team:
        w = lm.instance()
        lm.fill(state, 0.0)
        smem_x.cp_async(X, coords=(0, 32 * w), iter=w)
        lm.cp_async_commit()
        for c in lm.range(0, n_chunks):
            if c + 1 < n_chunks:
                smem_x.cp_async(X, coords=(0, (c + 1) * 128 + 32 * w), iter=4 * (c + 1) + w)
            lm.cp_async_commit()
            lm.cp_async_wait(pending=1)
            lm.sync(bar)                            # every warp's part of chunk c landed
            lm.copy(x, smem_x[4 * c + w])
            lm.binary(x, x, state, op="add")
            lm.copy(carry[w], x)                    # segment total
            lm.sync(bar)
            for i in lm.range(0, 4):
                lm.copy(oth, carry[i])
                if i < w:
                    lm.binary(x, x, oth, op="add")  # exclusive prefix
                lm.binary(state, state, oth, op="add")
            lm.copy(Y, x, coords=(0, c * 128 + 32 * w))
            lm.sync(bar)                            # carry and slot c free again
        lm.cp_async_wait(pending=0)
