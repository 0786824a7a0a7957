# BUG (sync.race): HazyResearch/ThunderKittens issue #33 ("[bug report]
# h100 attn_causal kernel": "Using the same random seed, the result of tk
# h100 attn_causal kernel vary with each run").  The maintainer's answer:
# "There should be a wgmma async_wait after the wgmma is committed ... In
# order to ensure this is completed, you need to call and async_wait on it
# - this was missing from the original code and has now been added to the
# relevant .cu file in the main branch."  The H100 attention kernel is
# warp-specialized: a producer warp TMA-loads K and V tiles into a 2-stage
# ring (k_smem_arrived / v_smem_arrived) and, before refilling a stage,
# waits on compute_done[stage], which each consumer warpgroup's lane 0
# arrives on at the end of its iteration.  A consumer computes S = Q K^T
# (wgmma, commit, async_wait), the online softmax in registers, then
# O += P V with P from registers (warpgroup::mma_AB), commit_group, and -
# in the broken kernel - arrives on compute_done with that wgmma still in
# flight: the producer's next TMA load overwrites the V stage the tensor
# cores are still reading.  Read here as the wait after the P.V commit (the
# one before compute_done, as in the kernel after the fix:
# thunderkittens_h100_attn_pv_wgmma_no_wait_fixed.cake); the S wait before
# row_max is present in both.  The missing wait shows twice: the refill of
# the V stage (kv_blocks >= 3) and, already at kv_blocks = 1, the read of
# o_reg for the epilogue while the last P.V group still writes it.
# Written in CAKE IR: sm_90a, 2 consumer warpgroups (warps 0-7, group=4)
# each with its own 64-row Q tile, one producer warp (8), head dim 64, a
# 64-key KV tile, Q loaded once.  Left out: the causal mask, the
# temperature multiply of Q in place (a generic write of a TMA-filled tile
# that the kernel does before the loop), the max/norm vectors (an add
# stands for the softmax).
# expect: sync.race
# may-also: data.stale-read sync.async-at-exit
@cake.schedule(target="sm_90a")
def thunderkittens_h100_attn_pv_wgmma_no_wait(lm, Q: LM.tma2d, K: LM.tma2d, V: LM.tma2d, O: LM.tma2d,
                                              kv_blocks: LM.i32):
    lm.assume(kv_blocks >= 1)
    pool   = lm.smem(81920)
    q_smem = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    k_smem = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    v_smem = pool.view(offset=32768, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    o_smem = pool.view(offset=49152, shape=(64, 64), dtype=lm.bf16, stages=2)
    att     = lm.regs(shape=(64, 64), dtype=lm.f32)
    att_mma = lm.regs(shape=(64, 64), dtype=lm.bf16)
    o_reg   = lm.regs(shape=(64, 64), dtype=lm.f32)

    consumer = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=4)
    producer = lm.role(warps=[8])

    q_arrived    = lm.barrier(count=2, prod=[producer], cons=[consumer], init_count=1)
    k_arrived    = lm.barrier(count=2, prod=[producer], cons=[consumer], init_count=1)
    v_arrived    = lm.barrier(count=2, prod=[producer], cons=[consumer], init_count=1)
    compute_done = lm.barrier(count=2, prod=[consumer], cons=[producer], init_count=2)

    q_tile = 2 * lm.block_idx(0)

    with producer:
        for g in lm.range(0, 2):
            q_smem.tma_load(Q, coords=(64 * (q_tile + g), 0), stage=g, barrier=q_arrived)
        for kv in lm.range(0, kv_blocks):
            lm.wait(compute_done, iter=kv - 2)
            k_smem.tma_load(K, coords=(64 * kv, 0), iter=kv, barrier=k_arrived)
            v_smem.tma_load(V, coords=(64 * kv, 0), iter=kv, barrier=v_arrived)                # expect-error: sync.race

    with consumer:
        wg = lm.instance()
        lm.wait(q_arrived, stage=wg)
        lm.fill(o_reg, 0.0)
        for kv in lm.range(0, kv_blocks):
            lm.wait(k_arrived, iter=kv)
            lm.mma(att, q_smem[wg], k_smem[kv % 2], init=True)     # mm_ABt
            lm.mma_commit()
            lm.wait(v_arrived, iter=kv)
            lm.mma_wait(pending=0)
            lm.binary(att, att, att, op="add")                    # online softmax (stand-in)
            lm.copy(att_mma, att)                                 # convert to bf16 for the mma
            lm.mma(o_reg, att_mma, v_smem[kv % 2], init=False)    # expect-error: sync.race
            lm.mma_commit()
            # BUG: no warpgroup::mma_async_wait() before releasing the stage
            lm.arrive(compute_done, iter=kv)                      # expect-error: sync.race
        lm.copy(o_smem[wg], o_reg)                                # expect-error: sync.race
        lm.fence_proxy()
        o_smem.tma_store(O, coords=(64 * (q_tile + wg), 0), stage=wg)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
