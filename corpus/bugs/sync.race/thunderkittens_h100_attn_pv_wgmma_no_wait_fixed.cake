# FIXED: thunderkittens_h100_attn_pv_wgmma_no_wait.cake as the kernel reads
# after HazyResearch/ThunderKittens issue #33 was answered: the P.V wgmma
# group is waited (warpgroup::mma_async_wait) before the consumer arrives
# on compute_done, so the producer never refills a V stage that the tensor
# cores still read.
# expect: pass
@cake.schedule(target="sm_90a")
def thunderkittens_h100_attn_pv_wgmma_wait_then_arrive(lm, Q: LM.tma2d, K: LM.tma2d, V: LM.tma2d, O: LM.tma2d,
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
            v_smem.tma_load(V, coords=(64 * kv, 0), iter=kv, barrier=v_arrived)

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
            lm.mma(o_reg, att_mma, v_smem[kv % 2], init=False)
            lm.mma_commit()
            lm.mma_wait(pending=0)                                # the fix: warpgroup::mma_async_wait()
            lm.arrive(compute_done, iter=kv)
        lm.copy(o_smem[wg], o_reg)
        lm.fence_proxy()
        o_smem.tma_store(O, coords=(64 * (q_tile + wg), 0), stage=wg)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
