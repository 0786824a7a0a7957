# FIXED form of nvfuser_cp_async_no_wait_before_syncthreads.cake
# (NVIDIA/Fuser PR #3438): the threads that issued the cp.async into T3
# wait for it (cp.async.wait_all) before the barrier that publishes it.
# expect: pass
@cake.schedule(target="sm_80")
def nvfuser_cp_async_no_wait_before_syncthreads_fixed(lm, X: LM.gmem, Y: LM.gmem, O: LM.gmem):
    pool = lm.smem(17408)
    t3   = pool.view(offset=0,   shape=(1, 128), dtype=lm.f32)
    t2   = pool.view(offset=512, shape=(8, 128), dtype=lm.f32, stages=4)
    x_row  = lm.regs(shape=(1, 128), dtype=lm.f32)
    y_tile = lm.regs(shape=(8, 128), dtype=lm.f32)
    o_tile = lm.regs(shape=(8, 128), dtype=lm.f32)

    copier = lm.role(warps=[0])
    rest   = lm.role(warps=[1, 2, 3], group=1)
    block  = lm.named_barrier(roles=[copier, rest])

    row = lm.block_idx(0) * 32

    with copier:
        t3.cp_async(X, coords=(lm.block_idx(0), 0), stage=0)
        lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.sync(block)
        t2.cp_async(Y, coords=(row, 0), stage=0)
        lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(x_row, t3[0])
        lm.copy(y_tile, t2[0])
        lm.binary(o_tile, y_tile, x_row, op="mul")
        lm.copy(O, o_tile, coords=(row, 0))

    with rest:
        i = lm.instance() + 1
        lm.sync(block)
        t2.cp_async(Y, coords=(row + 8 * i, 0), stage=i)
        lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(x_row, t3[0])
        lm.copy(y_tile, t2[i])
        lm.binary(o_tile, y_tile, x_row, op="mul")
        lm.copy(O, o_tile, coords=(row + 8 * i, 0))
