# BUG (sync.race): NVIDIA/cuml PR #6578 ("Fix race condition in
# `_block_gemv` kernel", 2025-04-23).  MLCommon::LinAlg::_block_gemv
# (cpp/src_prims/linalg/block.cuh; the block-local y = alpha * A * x of the
# batched ARIMA Kalman filter) loops over tiles of ThRows rows of A: every
# thread (th_off_i = tid % ThRows, th_off_j = tid / ThRows) accumulates the
# products of its row and column slice and writes them to
# gemv_storage.acc[threadIdx.x], __syncthreads(), then the first thread of
# each row (th_off_j == 0) sums the ThCols partials of its row from shared
# memory and writes y[i] - and the loop went on to the next tile with no
# barrier: the other threads wrote the next tile's partials into acc while
# the row's first thread was still reading the previous ones.  The fix is a
# __syncthreads() at the end of the loop body ("Ensure that thread 0 has
# finished reading from shared memory before other threads move onto the
# next iteration in the loop and overwrite the shared memory").
# Modelled: ThRows = 32, ThCols = 4, so each column slice th_off_j is one
# warp (a one-warp instance of the role) and warp 0 holds the rows' first
# threads; __syncthreads() is a named barrier over the four warps; acc is
# four 32-float slots (one per warp, acc[w] as in the source); the
# partial is an A column slice loaded into registers times x (lm.binary);
# m is a parameter (lm.cdiv(m, 32) tiles).  Left out: the row guard
# i < m inside a tile (per-lane) and the preloaded x.
# Fix: cuml_block_gemv_acc_reuse_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def cuml_block_gemv_acc_reuse_no_barrier(lm, A: LM.gmem, X: LM.gmem, Y: LM.gmem, m: LM.i32):
    lm.assume(m >= 1)
    pool = lm.smem(512)
    acc  = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)
    part = lm.regs(shape=(1, 32), dtype=lm.f32)
    xv   = lm.regs(shape=(1, 32), dtype=lm.f32)
    oth  = lm.regs(shape=(1, 32), dtype=lm.f32)

    cols = lm.role(warps=[0, 1, 2, 3], group=1)
    bar  = lm.named_barrier(roles=[cols])

    with cols:
        w = lm.instance()                                   # th_off_j
        for t in lm.range(0, lm.cdiv(m, 32)):
            lm.copy(part, A, coords=(w, 32 * t))            # A(i, j) of this column slice
            lm.copy(xv, X, coords=(0, 32 * w))
            lm.binary(part, part, xv, op="mul")
            lm.copy(acc[w], part)                           # expect-error: sync.race
            lm.sync(bar)
            if w == 0:
                # the first thread of each row sums the partials of its row
                lm.copy(part, acc[0])
                for tj in lm.range(1, 4):
                    lm.copy(oth, acc[tj])                   # expect-error: sync.race
                    lm.binary(part, part, oth, op="add")
                lm.copy(Y, part, coords=(0, 32 * t))
            # BUG: no __syncthreads() before the next tile's partials
