# BUG (sync.race): Triton's loop pipeliner as triton-lang/triton issue
# #10977 reports it ("Pipeliner under-allocates shared buffers for
# later-cluster completion waits", 2026-07-20; fix proposed in PR #10976,
# "[PIPELINE] Account for later-cluster waits in buffer sizing", open at
# the time of writing).  getDefUseStageDiff() bumps a user's effective
# stage by one when it sits in a later cluster than the load, but reads the
# raw stage again for the completion waits (ttng.wait_barrier) that keep a
# load's buffer live.  The existing @one_dep_barrier_wait fixture:
#     op                stage  cluster  effective stage
#     load                0       2          0
#     ordinary use        2       0          2
#     completion wait     3       3          4
# gets max(2, raw 3) = 3 buffers instead of 4, and the steady-state body
#     cluster 0: consumer(I+1)   cluster 2: producer(I+3)   cluster 3: wait(I)
# writes buffer (I + 3) mod 3 = I mod 3 while the read of iteration I is
# live until its completion wait, later in the same body.
# Modelled: the fixture's shape as a Blackwell GEMM loop in one partition
# (4 warps, one instance): the load is the TMA load of the A and B tiles
# (a `full` ring), the ordinary use a tcgen05 MMA that reads them, the
# completion wait the wait on the barrier its commit arrives on (`done`);
# loads run three iterations ahead, the MMA one, as in the body above.
# Fix: triton_swp_later_cluster_wait_three_buffers_fixed.cake (4 buffers).
# expect: sync.race
@cake.schedule(target="sm_100a")
def triton_swp_later_cluster_wait_three_buffers(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(131072)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=65536, shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    acc    = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.f32)

    cta  = lm.role(warps=[0, 1, 2, 3])
    ring = lm.pipeline(stages=3)
    full = lm.barrier(prod=[cta], cons=[cta], init_count=1, pipeline=ring)
    done = lm.barrier(prod=[cta], cons=[cta], init_count=1, pipeline=ring)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with cta:
        for j in lm.range(0, 3):                        # prologue: loads of 0, 1, 2
            if j < k_tiles:
                smem_a.tma_load(A, coords=(m_blk, j * 64), iter=j, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, j * 64), iter=j, barrier=full)
        lm.wait(full, iter=0)                           # prologue: consumer(0)
        lm.mma(acc, smem_a[0], smem_b[0], init=True)
        lm.mma_commit(barrier=done, iter=0)
        for i in lm.range(0, k_tiles):
            if i + 1 < k_tiles:                         # cluster 0: consumer(i + 1)
                lm.wait(full, iter=i + 1)
                lm.mma(acc, smem_a[i + 1], smem_b[i + 1], init=False)
                lm.mma_commit(barrier=done, iter=i + 1)
            if i + 3 < k_tiles:                         # cluster 2: producer(i + 3)
                smem_a.tma_load(A, coords=(m_blk, (i + 3) * 64), iter=i + 3, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, (i + 3) * 64), iter=i + 3, barrier=full)
            lm.wait(done, iter=i)                       # cluster 3: completion wait(i)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
