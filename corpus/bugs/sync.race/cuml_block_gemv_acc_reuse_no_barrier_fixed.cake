# FIXED form of cuml_block_gemv_acc_reuse_no_barrier.cake (NVIDIA/cuml PR
# #6578): _block_gemv ends each tile with a __syncthreads(), so the row's
# first thread has read every partial of the tile before any thread writes
# the next tile's partials into gemv_storage.acc.
# expect: pass
@cake.schedule(target="sm_80")
def cuml_block_gemv_acc_reuse_fixed(lm, A: LM.gmem, X: LM.gmem, Y: LM.gmem, m: LM.i32):
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
            lm.copy(acc[w], part)
            lm.sync(bar)
            if w == 0:
                # the first thread of each row sums the partials of its row
                lm.copy(part, acc[0])
                for tj in lm.range(1, 4):
                    lm.copy(oth, acc[tj])
                    lm.binary(part, part, oth, op="add")
                lm.copy(Y, part, coords=(0, 32 * t))
            lm.sync(bar)                                    # the fix (PR #6578)
