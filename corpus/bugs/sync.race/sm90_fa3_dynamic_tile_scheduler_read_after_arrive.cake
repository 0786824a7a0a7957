# BUG (sync.race), a mutant of attention/sm90_fa3_dynamic_tile_scheduler.cake
# (FlashAttention-3's DynamicPersistentTileScheduler, hopper/tile_scheduler.hpp
# at 0473b463): a consumer warpgroup bar.arrive's TileCountSmemEmpty BEFORE it
# reads tile_count_smem - a realistic reordering of get_next_work's last two
# lines.  The producer's bar.sync on TileCountSmemEmpty then completes once
# both warpgroups have arrived, and its st.shared of the next tile index
# races with the slower warpgroup's ld.shared of the current one.
# Fix: attention/sm90_fa3_dynamic_tile_scheduler.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def fa3_fwd_dynamic_scheduler_read_after_arrive(lm, Q: LM.tma3d, K: LM.tma3d, Vt: LM.tma3d, O: LM.tma3d,
                              seqlen_k: LM.i32, n_tiles: LM.i32):
    lm.assume(seqlen_k > 0)
    lm.assume(n_tiles > 0)
    pool     = lm.smem(81920)
    smem_q   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_k   = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_vt  = pool.view(offset=32768, shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_o   = pool.view(offset=49152, shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    tile_cnt = pool.view(offset=65536, shape=(1, 1),    dtype=lm.i32)
    s_acc  = lm.regs(shape=(64, 64), dtype=lm.f32)
    p      = lm.regs(shape=(64, 64), dtype=lm.bf16)
    o_acc  = lm.regs(shape=(64, 64), dtype=lm.f32)
    rmax   = lm.regs(shape=(64, 1), dtype=lm.f32)
    l_i    = lm.regs(shape=(64, 1), dtype=lm.f32)
    next_t = lm.regs(shape=(1, 1), dtype=lm.i32)
    tile_r = lm.regs(shape=(1, 1), dtype=lm.i32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=24)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=240)

    kv      = lm.pipeline(stages=2)
    q_full  = lm.barrier(count=1, prod=[producer], cons=[consumers], init_count=1)
    k_full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=kv)
    k_empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=kv)
    v_full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=kv)
    v_empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=kv)
    q_empty = lm.named_barrier(roles=[producer, consumers])
    cnt_empty = lm.named_barrier(roles=[producer, consumers])
    cnt_full  = lm.named_barrier(roles=[producer, consumers])

    n_blocks = lm.cdiv(seqlen_k, 64)

    with producer:
        for t in lm.range(0, n_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            if t > 0:
                lm.sync(q_empty)
            smem_q.tma_load(Q, coords=(tile, 0, 0), iter=t, barrier=q_full)
            # prefetch_next_work: thread 0's atomicAdd (a register value)
            lm.fill(next_t, 1)
            for j in lm.range(0, n_blocks):
                it = t * n_blocks + j
                lm.wait(k_empty, iter=it - 2)
                smem_k.tma_load(K, coords=(tile, j * 64, 0), iter=it, barrier=k_full)
                lm.wait(v_empty, iter=it - 2)
                smem_vt.tma_load(Vt, coords=(tile, 0, j * 64), iter=it, barrier=v_full)
            # get_next_work<IsProducerWarp=true>
            lm.sync(cnt_empty)
            lm.copy(tile_cnt[0], next_t)  # expect-error: sync.race
            lm.bar_arrive(cnt_full)

    with consumers:
        m0 = 64 * lm.instance()
        lm.bar_arrive(cnt_empty)          # init_consumer()
        for t in lm.range(0, n_tiles):
            tile = lm.block_idx(0) + t * lm.grid_dim(0)
            lm.fill(o_acc, 0.0)
            lm.fill(l_i, 0.0)
            lm.wait(q_full, iter=t)
            for j in lm.range(0, n_blocks):
                it = t * n_blocks + j
                lm.wait(k_full, iter=it)
                lm.mma(s_acc, smem_q[t][m0:m0 + 64, :], smem_k[it], init=True)
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(k_empty, iter=it)
                lm.reduce(rmax, s_acc, op="max", axis=1)
                lm.binary(s_acc, s_acc, rmax, op="sub")
                lm.unary(s_acc, s_acc, op="exp2")
                lm.reduce(rmax, s_acc, op="sum", axis=1)
                lm.binary(l_i, l_i, rmax, op="add")
                lm.copy(p, s_acc)
                lm.wait(v_full, iter=it)
                lm.mma(o_acc, p, smem_vt[it], init=False)
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(v_empty, iter=it)
            if t + 1 < n_tiles:
                lm.bar_arrive(q_empty)
            lm.unary(l_i, l_i, op="recip")
            lm.binary(o_acc, o_acc, l_i, op="mul")
            lm.tma_store_wait(pending=0)
            lm.copy(smem_o[lm.instance()], o_acc)
            lm.fence_proxy()
            smem_o.tma_store(O, coords=(tile, m0, 0), stage=lm.instance())
            lm.tma_store_commit()
            # get_next_work<IsProducerWarp=false>
            lm.sync(cnt_full)
            lm.bar_arrive(cnt_empty)
            lm.copy(tile_r, tile_cnt[0])  # expect-error: sync.race
        lm.tma_store_wait(pending=0)
