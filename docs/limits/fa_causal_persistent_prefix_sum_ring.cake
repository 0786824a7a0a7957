# Reproducer (helper fp48, session 48): a persistent causal attention
# forward whose K/V ring position is the prefix sum of its tiles' causal
# trip counts.  The roles and rings are the corpus's FA3-style Hopper
# persistent forward (attention/sm90_fa3_persistent.cake: producer warp
# group, two consumer warpgroups, Q reloaded per tile behind the
# QueryEmpty named barrier, 2-slot K / V^T rings), with the tile order of
# CUTLASS's CausalPersistentTileScheduler (examples/77_blackwell_fmha/
# kernel/fmha_causal_tile_scheduler.hpp: block_idx += gridDim.x) for one
# head: CTA b runs query blocks m = b + t * G (G = grid_dim(0)), and with
# square causal tiles (128 queries, key blocks of 64, seqlen a multiple
# of 128) block m runs 2 * (m + 1) key blocks.  The pipeline states carry
# across tiles, so tile t starts at ring position
# sum_{u < t} 2 * (b + u * G + 1) = 2 * t * (b + 1) + G * t * (t - 1).
# Correct, and checked (exit 0) at every listed value; not proved:
# "the schedule reads lm.block_idx(0) outside the loop bound"; with one
# CTA (b = 0, G = 1, base t * (t + 1)): "the system for trip count 96
# cannot be built: more than 200000 instructions after unrolling" -
# docs/known-limits.md "Per-tile causal trip counts carried across
# persistent tiles".
# expect: pass
@cake.schedule(target="sm_90a")
def fa_fwd_causal_persistent(lm, Q: LM.tma3d, K: LM.tma3d, Vt: LM.tma3d, O: LM.tma3d,
                             seqlen: LM.i32):
    lm.assume(seqlen > 0)
    lm.assume(seqlen % 128 == 0)
    pool    = lm.smem(81920)
    smem_q  = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_k  = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_vt = pool.view(offset=32768, shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_o  = pool.view(offset=49152, shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    s_acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    p     = lm.regs(shape=(64, 64), dtype=lm.bf16)
    o_acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    m_i   = lm.regs(shape=(64, 1), dtype=lm.f32)
    m_new = lm.regs(shape=(64, 1), dtype=lm.f32)
    m_blk = lm.regs(shape=(64, 1), dtype=lm.f32)
    corr  = lm.regs(shape=(64, 1), dtype=lm.f32)
    l_i   = lm.regs(shape=(64, 1), dtype=lm.f32)
    rsum  = lm.regs(shape=(64, 1), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=24)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=240)

    kv      = lm.pipeline(stages=2)
    q_full  = lm.barrier(count=1, prod=[producer], cons=[consumers], init_count=1)
    k_full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=kv)
    k_empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=kv)
    v_full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=kv)
    v_empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=kv)
    q_empty = lm.named_barrier(roles=[producer, consumers])

    q_blocks  = seqlen // 128
    my_tiles  = lm.cdiv(max(q_blocks - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            q0   = tile * 128
            head = 0
            base = 2 * t * (lm.block_idx(0) + 1) + lm.grid_dim(0) * t * (t - 1)
            if t > 0:
                lm.sync(q_empty)
            smem_q.tma_load(Q, coords=(head, q0, 0), iter=t, barrier=q_full)
            for j in lm.range(0, 2 * (tile + 1)):
                it = base + j
                lm.wait(k_empty, iter=it - 2)
                smem_k.tma_load(K, coords=(head, j * 64, 0), iter=it, barrier=k_full)
                lm.wait(v_empty, iter=it - 2)
                smem_vt.tma_load(Vt, coords=(head, 0, j * 64), iter=it, barrier=v_full)

    with consumers:
        m0 = 64 * lm.instance()
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            q0   = tile * 128
            head = 0
            base = 2 * t * (lm.block_idx(0) + 1) + lm.grid_dim(0) * t * (t - 1)
            lm.fill(o_acc, 0.0)
            lm.fill(m_i, -1e30)
            lm.fill(l_i, 0.0)
            lm.wait(q_full, iter=t)
            for j in lm.range(0, 2 * (tile + 1)):
                it = base + j
                lm.wait(k_full, iter=it)
                lm.mma(s_acc, smem_q[t][m0:m0 + 64, :], smem_k[it], init=True)
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(k_empty, iter=it)
                lm.binary(s_acc, s_acc, 0.18033688, op="mul")
                lm.reduce(m_blk, s_acc, op="max", axis=1)
                lm.binary(m_new, m_i, m_blk, op="max")
                lm.binary(corr, m_i, m_new, op="sub")
                lm.unary(corr, corr, op="exp2")
                lm.binary(s_acc, s_acc, m_new, op="sub")
                lm.unary(s_acc, s_acc, op="exp2")
                lm.reduce(rsum, s_acc, op="sum", axis=1)
                lm.binary(l_i, l_i, corr, op="mul")
                lm.binary(l_i, l_i, rsum, op="add")
                lm.binary(o_acc, o_acc, corr, op="mul")
                lm.copy(m_i, m_new)
                lm.copy(p, s_acc)
                lm.wait(v_full, iter=it)
                lm.mma(o_acc, p, smem_vt[it], init=False)
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(v_empty, iter=it)
            if t + 1 < my_tiles:
                lm.bar_arrive(q_empty)
            # epilogue through a per-instance 2-slot store ring
            s = 2 * lm.instance() + t % 2
            lm.unary(l_i, l_i, op="recip")
            lm.binary(o_acc, o_acc, l_i, op="mul")
            lm.tma_store_wait(pending=1)
            lm.copy(smem_o[s], o_acc)
            lm.fence_proxy()
            smem_o.tma_store(O, coords=(head, q0 + m0, 0), stage=s)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
