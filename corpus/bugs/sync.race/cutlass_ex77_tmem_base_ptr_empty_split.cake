# BUG (sync.race): NVIDIA/cutlass PR #2835 ("Fix TMEM address read/write
# race in example 77", milesvant, 2025-12-03), examples/77_blackwell_fmha,
# kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp.  The MMA warp
# allocates TMEM up front (tmem_allocator.allocate(..., &shared_storage.
# tmem_base_ptr): tcgen05.alloc stores the base address to shared memory)
# and the warp that frees TMEM at the end (the epilogue warp;
# shared_storage.tmem_base_ptr -> tmem_allocator.free) reads it back.
# Nothing orders that store before that read except the pipelines the
# tile's work runs through (mma_s -> softmax -> s_corr / mma_corr ->
# correction -> corr_epi -> epilogue).  When the CTA has no KV tile
# (an empty split, seqlen_kv = 0: every role skips the tile), none of them
# runs, so the epilogue reads tmem_base_ptr with no barrier after the
# MMA warp's store and may free an undefined address.  The PR's fix
# allocates TMEM only when the CTA has at least one KV tile, and the free
# is taken only then (the "Lazy TMEM allocation / deallocation" form of the
# kernel: has_valid_tile guards both).
# Modelled: one Q tile of 128 rows per CTA (ex77's individual tile
# scheduler; the PR's persistent CTA whose tiles all have seqlen_kv = 0
# behaves alike), head_dim 64, n_kv KV blocks of 128 (n_kv = 0: the empty
# split); one softmax warpgroup (ex77 has two, one per Q half, on the same
# pipelines), the correction warpgroup, the MMA, load and epilogue warps;
# tmem_base_ptr as a 16-byte shared slot written with st.shared (what
# tcgen05.alloc does) and read by the epilogue warp before its
# tcgen05.dealloc.  Simplified: K and V in two 2-stage rings (ex77 shares
# one KV ring), P through shared memory (ex77 keeps P in TMEM), no online
# softmax rescale.  The n_kv = 0 read also reads a slot nothing has
# written yet: data.stale-read follows from the same bug.
# Fix: cutlass_ex77_tmem_base_ptr_empty_split_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_100a")
def cutlass_ex77_tmem_base_ptr_empty_split(lm, Q: LM.tma3d, K: LM.tma3d, Vt: LM.tma3d, O: LM.tma3d, n_kv: LM.i32):
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
        # BUG: tcgen05.alloc (tmem_base_ptr store) whether or not the CTA has a KV tile
        lm.fill(base, 0)
        lm.copy(tptr[0], base)                          # expect-error: sync.race
        if n_kv > 0:
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
        # the epilogue warp frees TMEM at the end: reads tmem_base_ptr
        if n_kv > 0:
            lm.wait(corr_epi, stage=0)
            smem_o.tma_store(O, coords=(head, q0, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
        lm.copy(fbase, tptr[0])                         # expect-error: sync.race
