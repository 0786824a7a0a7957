# BUG (sync.race): the implicit-GEMM conv ring was cut from 5 to 4 stages
# but the producer's empty wait still uses the old depth (iter=it-5).  At
# it = 4 it names iteration -1, passes at once and refills slot 0 while the
# consumer warpgroups may still be multiplying tap/channel block 0 out of
# it.  (The full barrier can also run two phases ahead of its waiters.)
# Models: conv/sm90_fprop_tma4d_ws.cake.
# Fix: conv/sm90_fprop_tma4d_ws.cake (iter=it-4 = the ring depth).
# expect: sync.race
# may-also: sync.lost-phase sync.stale-phase data.stale-read sync.arrival-overflow
@cake.schedule(target="sm_90a")
def conv3x3_fprop_empty_depth_5(lm, X: LM.tma4d, Wt: LM.tma4d, Y: LM.tma4d, P: LM.i32, C: LM.i32):
    lm.assume(C > 0)
    lm.assume(P > 0)
    pool   = lm.smem(163840)
    smem_x = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_w = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_y = pool.view(offset=131072, shape=(64, 128), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    c_blocks = lm.cdiv(C, 64)
    k_iters  = 9 * c_blocks
    q0 = lm.block_idx(0) * 128
    n  = lm.block_idx(1) // P
    p  = lm.block_idx(1) % P
    k0 = lm.block_idx(2) * 128

    with producer:
        for it in lm.range(0, k_iters):
            r  = it // (3 * c_blocks)
            s  = (it // c_blocks) % 3
            c0 = (it % c_blocks) * 64
            lm.wait(empty, iter=it - 5)  # expect-error: sync.race
            smem_x.tma_load(X, coords=(n, p + r - 1, q0 + s - 1, c0), iter=it, barrier=full)  # expect-error: sync.race
            smem_w.tma_load(Wt, coords=(k0, r, s, c0), iter=it, barrier=full)  # expect-error: sync.race

    with consumers:
        m0 = 64 * lm.instance()
        for it in lm.range(0, k_iters):
            lm.wait(full, iter=it)
            lm.mma(acc, smem_x[it][m0:m0 + 64, :], smem_w[it], init=(it == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=it)
        lm.unary(acc, acc, op="relu")
        lm.copy(smem_y[lm.instance()], acc)
        lm.fence_proxy()
        smem_y.tma_store(Y, coords=(n, p, q0 + m0, k0), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
