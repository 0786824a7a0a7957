# mutant: fence-early
# original: corpus/attention/sm90_fa3_persistent.cake
# line: 107: lm.fence_proxy()
# change: moved `lm.copy(smem_o[s], o_acc)` after `lm.fence_proxy()`
# label: bad (proxy.missing-fence) by the explicit-state simulator (encoder/simulator.h), seqlen_q in {1, 144, 400, 528, 1040}, seqlen_k in {1, 80, 208, 272, 528}, heads in {1, 2, 4, 5, 9} (60 combinations with every trip count <= 9); block_idx 0 of grid_dim 1; 16279 states; first violation: proxy.missing-fence: consumers[0] reads smem_o[0] bytes [49152, 57344) through the async proxy, but consumers[0]'s generic-proxy write of it has no lm.fence_proxy() after it at `smem_o.tma_store(O, coords=(head, q0 + m0, 0), stage=s)` (line 108) (seqlen_q=1, seqlen_k=1, heads=1)
# expect-any: proxy.missing-fence
# FlashAttention-3 style forward, persistent over (query block, head) tiles
# (FA3 StaticPersistentTileScheduler).  head_dim 64, key block 64.
#  * Q is reloaded per tile into the single Q slot.  Before overwriting it
#    the producer bar.sync's the named barrier q_empty (FA3's QueryEmpty),
#    which the consumer warpgroups bar.arrive once their last QK^T of the
#    tile has retired.  Generation t of q_empty = consumers' arrive after
#    tile t + producer's sync before tile t+1; the first tile has no sync,
#    the last tile no arrive.  q_full is waited with iter=t (slot 0, phase t).
#  * K / V^T rings use a global block counter it = t*n_blocks + j.
#  * O goes out through a per-instance 2-slot store ring (pending=1).
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def fa3_fwd_persistent(lm, Q: LM.tma3d, K: LM.tma3d, Vt: LM.tma3d, O: LM.tma3d,
                       seqlen_q: LM.i32, seqlen_k: LM.i32, heads: LM.i32):
    lm.assume(seqlen_q > 0)
    lm.assume(seqlen_k > 0)
    lm.assume(heads > 0)
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

    n_blocks  = lm.cdiv(seqlen_k, 64)
    q_blocks  = lm.cdiv(seqlen_q, 128)
    num_tiles = q_blocks * heads
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with producer:
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            q0   = (tile % q_blocks) * 128
            head = tile // q_blocks
            if t > 0:
                lm.sync(q_empty)
            smem_q.tma_load(Q, coords=(head, q0, 0), iter=t, barrier=q_full)
            for j in lm.range(0, n_blocks):
                it = t * n_blocks + j
                lm.wait(k_empty, iter=it - 2)
                smem_k.tma_load(K, coords=(head, j * 64, 0), iter=it, barrier=k_full)
                lm.wait(v_empty, iter=it - 2)
                smem_vt.tma_load(Vt, coords=(head, 0, j * 64), iter=it, barrier=v_full)

    with consumers:
        m0 = 64 * lm.instance()
        for t in lm.range(0, my_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            q0   = (tile % q_blocks) * 128
            head = tile // q_blocks
            lm.fill(o_acc, 0.0)
            lm.fill(m_i, -1e30)
            lm.fill(l_i, 0.0)
            lm.wait(q_full, iter=t)
            for j in lm.range(0, n_blocks):
                it = t * n_blocks + j
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
            lm.fence_proxy()
            lm.copy(smem_o[s], o_acc)
            smem_o.tma_store(O, coords=(head, q0 + m0, 0), stage=s)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
