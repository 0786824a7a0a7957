# FIXED form of tirx_gdn_state_input_rewritten_before_empty.cake
# (mlc-ai/TIRx-kernels PR #19, PR #53): CG1 acquires the single-stage
# state-input slot (waits `state_inp_ready.empty`, which the MMA warp's
# tcgen05.commit completes once the MMA that reads the slot has finished)
# before it writes the next chunk's state input.  Everything else is
# unchanged.
# expect: pass
# lower: unsupported (tcgen05.mma with A from TMEM: the lowering emits the shared-memory descriptor form of A only)
@cake.schedule(target="sm_100a")
def tirx_gdn_state_input_rewritten_before_empty_fixed(lm, KT: LM.tma2d, VT: LM.tma2d, Q: LM.tma2d, O: LM.gmem, n_c: LM.i32):
    lm.assume(n_c >= 1)
    pool    = lm.smem(65536)
    smem_kt = pool.view(offset=0,     shape=(128, 64), dtype=lm.f16, stages=2, swizzle="128B")
    smem_vt = pool.view(offset=32768, shape=(64, 64),  dtype=lm.f16, stages=2, swizzle="128B")
    smem_q  = pool.view(offset=49152, shape=(64, 64),  dtype=lm.f16, stages=2, swizzle="128B")
    kv_acc  = lm.tmem(cols=0,   width=64, shape=(128, 64), dtype=lm.f32)
    qs_acc  = lm.tmem(cols=128, width=64, shape=(128, 64), dtype=lm.f32)
    st_in   = lm.tmem(cols=192, width=32, shape=(128, 64), dtype=lm.f16)
    state_r = lm.regs(shape=(128, 64), dtype=lm.f32)
    state_h = lm.regs(shape=(128, 64), dtype=lm.f16)
    qs_r    = lm.regs(shape=(128, 64),  dtype=lm.f32)

    cg1  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    pipe     = lm.pipeline(stages=2)
    full     = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty    = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    kv_full  = lm.barrier(count=1, prod=[mma], cons=[cg1], init_count=1)
    kv_empty = lm.barrier(count=1, prod=[cg1], cons=[mma], init_count=1)
    qs_full  = lm.barrier(count=1, prod=[mma], cons=[cg1], init_count=1)
    qs_empty = lm.barrier(count=1, prod=[cg1], cons=[mma], init_count=1)
    in_full  = lm.barrier(count=1, prod=[cg1], cons=[mma], init_count=1)   # state_inp_ready.full
    in_empty = lm.barrier(count=1, prod=[mma], cons=[cg1], init_count=1)   # state_inp_ready.empty

    h = lm.block_idx(0) * 128

    with load:
        for c in lm.range(0, n_c):
            lm.wait(empty, iter=c - 2)
            smem_kt.tma_load(KT, coords=(h, c * 64), iter=c, barrier=full)
            smem_vt.tma_load(VT, coords=(lm.block_idx(1) * 64, c * 64), iter=c, barrier=full)
            smem_q.tma_load(Q, coords=(c * 64, lm.block_idx(1) * 64), iter=c, barrier=full)

    with mma:
        for c in lm.range(0, n_c):
            lm.wait(full, iter=c)
            lm.wait(kv_empty, iter=c - 1)
            lm.mma(kv_acc, smem_kt[c], smem_vt[c], init=(c == 0))        # S += K^T V (the state, in TMEM)
            lm.mma_commit(barrier=kv_full, iter=c)
            lm.wait(in_full, iter=c)
            lm.wait(qs_empty, iter=c - 1)
            lm.mma(qs_acc, st_in, smem_q[c], init=True)                  # reads the state input (TMEM A)
            lm.mma_commit(barrier=in_empty, iter=c)
            lm.mma_commit(barrier=empty, iter=c)
            lm.mma_commit(barrier=qs_full, iter=c)

    with cg1:
        lm.fill(state_h, 0.0)                                            # no initial state
        lm.tmem_store(st_in, state_h)
        lm.tmem_store_wait()
        lm.arrive(in_full, iter=0)
        for c in lm.range(0, n_c):
            lm.wait(kv_full, iter=c)
            lm.tmem_load(state_r, kv_acc)
            lm.tmem_load_wait()
            lm.arrive(kv_empty, iter=c)
            if c + 1 < n_c:
                lm.copy(state_h, state_r)                                # f16 copy (decay left out)
                lm.wait(in_empty, iter=c)                                # acquire the slot
                lm.tmem_store(st_in, state_h)                            # next chunk's input
                lm.tmem_store_wait()
                lm.arrive(in_full, iter=c + 1)
            lm.wait(qs_full, iter=c)
            lm.tmem_load(qs_r, qs_acc)
            lm.tmem_load_wait()
            lm.arrive(qs_empty, iter=c)
            lm.copy(O, qs_r, coords=(c * 64, h))
