# BUG (sync.race): nvFuser's generated code for an asynchronous copy done by
# part of the block, as reported in NVIDIA/Fuser issue #3428 and fixed by
# PR #3438 ("fix race in async copy": a cp.async.wait_all before the
# __syncthreads() that publishes an async copy).  Only the threads with
# threadIdx.y == 0 cp.async a row into T3, then the whole block passes a
# __syncthreads() and every thread reads T3.  The barrier orders the
# threads, not the copy: cp.async.wait_group orders only the calling
# thread's own copies, and the issuing threads had not waited yet, so the
# other threads could read T3 before the bytes landed.
# Modelled (sm_80): the threadIdx.y == 0 row is warp 0 (role copier), the
# other rows are three one-warp instances; __syncthreads() is a named
# barrier over both roles; afterwards each warp cp.asyncs its own 8-row
# tile of T2 (waiting for it), scales it by the T3 row and stores it.
# Fix: nvfuser_cp_async_no_wait_before_syncthreads_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def nvfuser_cp_async_no_wait_before_syncthreads(lm, X: LM.gmem, Y: LM.gmem, O: LM.gmem):
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
        t3.cp_async(X, coords=(lm.block_idx(0), 0), stage=0)            # expect-error: sync.race
        lm.cp_async_commit()
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
        lm.copy(x_row, t3[0])            # expect-error: sync.race
        lm.copy(y_tile, t2[i])
        lm.binary(o_tile, y_tile, x_row, op="mul")
        lm.copy(O, o_tile, coords=(row + 8 * i, 0))
