# FIXED form of triton_ws_persistent_inner_steps_floor_max_unaligned_k.cake:
# triton-lang/triton PR #2146's fix as the PR writes it,
# num_inner_loop_steps = max(K // 64, 1), under the lemma of the shapes the
# PR talks about (K a multiple of the K tile, or smaller than it).  There
# the stride equals the K loop's trip count cdiv(K, 64) for every K the
# lemma allows, so every wave continues the ring where the previous one
# stopped.  Proof: the stride is read as lm.cdiv(K, 64), the bound of its
# value (Z3 under the lemma; docs/z3.md "Expressions respelled as the loop
# bound of their value"), then lap induction over tiles and K.
# expect: pass
@cake.schedule(target="sm_90a")
def triton_ws_persistent_inner_steps_floor_max_unaligned_k_fixed(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(K > 0)
    lm.assume(K % 64 == 0 or K < 64)
    pool   = lm.smem(131072)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.f16, stages=3, swizzle="128B")
    smem_b = pool.view(offset=24576, shape=(128, 64), dtype=lm.f16, stages=3, swizzle="128B")
    smem_c = pool.view(offset=73728, shape=(64, 128), dtype=lm.f16)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer = lm.role(warps=[4])
    consumer = lm.role(warps=[0, 1, 2, 3])
    full  = lm.barrier(count=3, prod=[producer], cons=[consumer], init_count=1)
    empty = lm.barrier(count=3, prod=[consumer], cons=[producer], init_count=1)

    num_k_tiles = lm.cdiv(K, 64)
    num_inner_loop_steps = max(K // 64, 1)
    my_tiles = lm.cdiv(max(lm.cdiv(M, 64) - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            for k in lm.range(0, num_k_tiles):
                idx = t * num_inner_loop_steps + k
                lm.wait(empty, iter=idx - 3)
                smem_a.tma_load(A, coords=(tile * 64, k * 64), iter=idx, barrier=full)
                smem_b.tma_load(B, coords=(0, k * 64), iter=idx, barrier=full)

    with consumer:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            for k in lm.range(0, num_k_tiles):
                idx = t * num_inner_loop_steps + k
                lm.wait(full, iter=idx)
                lm.mma(acc, smem_a[idx], smem_b[idx], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=idx)
            lm.copy(smem_c[0], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(tile * 64, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
