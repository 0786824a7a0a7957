# FIXED: cutlass_ex77_tmem_base_ptr_empty_split.cake as NVIDIA/cutlass PR
# #2835 fixes it: the MMA warp allocates TMEM (stores tmem_base_ptr) only
# when the CTA has at least one KV tile, and the epilogue warp frees it
# (reads tmem_base_ptr) only then; with a KV tile the pipelines order the
# store before the read (mma_commit -> s_full -> softmax -> p_full, and
# mma_commit -> o_full -> correction -> corr_epi -> epilogue).
# expect: pass
@cake.schedule(target="sm_100a")
def cutlass_ex77_tmem_base_ptr_empty_split_fixed(lm, Q: LM.tma3d, K: LM.tma3d, Vt: LM.tma3d, O: LM.tma3d, n_kv: LM.i32):
    lm.assume(n_kv >= 0)
    pool    = lm.smem(131136)
    smem_q  = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    smem_k  = pool.view(offset=16384,  shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_vt = pool.view(offset=49152,  shape=(64, 128),  dtype=lm.bf16, stages=2)
    smem_p  = pool.view(offset=81920,  shape=(128, 128), dtype=lm.bf16, stages=1)
    smem_o  = pool.view(offset=114688, shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    tptr    = pool.view(offset=131072, shape=(1, 4),     dtype=lm.i32,  stages=1)   # shared_storage.tmem_base_ptr
    tmem_s  = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    tmem_o  = lm.tmem(cols=128, width=64,  shape=(128, 64),  dtype=lm.f32)
    s       = lm.regs(shape=(128, 128), dtype=lm.f32)
    o       = lm.regs(shape=(128, 64), dtype=lm.f32)
    base    = lm.regs(shape=(1, 4), dtype=lm.i32)
    fbase   = lm.regs(shape=(1, 4), dtype=lm.i32)

    soft = lm.role(warps=[0, 1, 2, 3])
    corr = lm.role(warps=[4, 5, 6, 7])
    mma  = lm.role(warps=[8])
    load = lm.role(warps=[9])
    epi  = lm.role(warps=[10])

    kv       = lm.pipeline(stages=2)
    q_full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    k_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv)
    k_empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv)
    v_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv)
    v_empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv)
    s_full   = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)
    p_full   = lm.barrier(count=1, prod=[soft], cons=[mma], init_count=1)
    o_full   = lm.barrier(count=1, prod=[mma], cons=[corr], init_count=1)
    corr_epi = lm.barrier(count=1, prod=[corr], cons=[epi], init_count=1)

    q0   = lm.block_idx(0) * 128
    head = lm.block_idx(1)

    with mma:
        if n_kv > 0:                                    # the fix: allocate only with a KV tile
            lm.fill(base, 0)
            lm.copy(tptr[0], base)                      # tcgen05.alloc -> tmem_base_ptr (st.shared)
            lm.wait(q_full, stage=0)
            for j in lm.range(0, n_kv):
                lm.wait(k_full, iter=j)
                if j > 0:
                    lm.wait(p_full, stage=0, phase=j - 1)   # P_{j-1} read, S free
                lm.mma(tmem_s, smem_q[0], smem_k[j], init=True)
                lm.mma_commit(barrier=k_empty, iter=j)
                lm.mma_commit(barrier=s_full, stage=0, phase=j)
                lm.wait(p_full, stage=0, phase=j)
                lm.wait(v_full, iter=j)
                lm.mma(tmem_o, smem_p[0], smem_vt[j], init=(j == 0))
                lm.mma_commit(barrier=v_empty, iter=j)
            lm.mma_commit(barrier=o_full, stage=0)

    with load:
        if n_kv > 0:
            smem_q.tma_load(Q, coords=(head, q0, 0), stage=0, barrier=q_full)
            for j in lm.range(0, n_kv):
                lm.wait(k_empty, iter=j - 2)
                smem_k.tma_load(K, coords=(head, j * 128, 0), iter=j, barrier=k_full)
                lm.wait(v_empty, iter=j - 2)
                smem_vt.tma_load(Vt, coords=(head, 0, j * 128), iter=j, barrier=v_full)

    with soft:
        for j in lm.range(0, n_kv):
            lm.wait(s_full, stage=0, phase=j)
            lm.copy(s, tmem_s)
            lm.unary(s, s, op="exp2")
            lm.copy(smem_p[0], s)
            lm.fence_proxy()
            lm.arrive(p_full, stage=0, phase=j)

    with corr:
        if n_kv > 0:
            lm.wait(o_full, stage=0)
            lm.copy(o, tmem_o)
            lm.copy(smem_o[0], o)
            lm.fence_proxy()
            lm.arrive(corr_epi, stage=0)

    with epi:
        if n_kv > 0:
            lm.wait(corr_epi, stage=0)
            smem_o.tma_store(O, coords=(head, q0, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.copy(fbase, tptr[0])                     # the fix: free only what was allocated
