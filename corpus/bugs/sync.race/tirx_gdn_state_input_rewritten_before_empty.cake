# BUG (sync.race): mlc-ai/TIRx-kernels PR #19 ("fix(gdn): order
# state-input reuse and TMEM deallocation", first item; the same fix in
# the chunk-parallel kernel is PR #53: "acquire the single-stage GDN
# `state_input` empty barrier before republishing it").  The SM100 Gated
# Delta Net prefill (tirx_kernels/attention/gdn_prefill_sm100.py, a
# transcription of FlashInfer's CuTeDSL kernel) keeps the recurrent state
# in TMEM.  Per 64-token chunk the compute group CG1 writes an f16 copy of
# the state into a single-stage TMEM slot (`TMEM_STATE_INPUT_COL`,
# tcgen05.st) and signals `state_inp_ready.full`; the MMA warp waits for
# it and issues a tcgen05.mma that reads the slot as its TMEM A operand,
# then commits `state_inp_ready.empty`.  "The state-input producer advanced
# its generation and overwrote the TMEM slot without first consuming the
# empty token returned by the MMA issuer": CG1 rewrites the slot for the
# next chunk while the previous chunk's MMA may still read it.
# Modelled: one head per CTA, `n_c` chunks, a load warp (2-stage ring of
# the K^T / V^T chunk and the Q chunk), the MMA warp issuing the state
# update K^T V (into a TMEM accumulator CG1 reads and releases) and then
# the state-input MMA (state^T Q^T-side product, A from TMEM) committed to
# `state_inp_ready.empty` and to the ring's empty barrier; CG1 folds the
# update into its register copy of the state and republishes the state
# input after reading the update.  The order of the two MMAs and of CG1's
# steps within a chunk is the model's (the PR text names the slot, the
# barrier and the missing acquire, not the whole order).  Left out: the
# gates, beta, A_inv, the QK / CG0 path, the output store, the TMEM
# deallocation (the PR's second item: TMEM alloc/dealloc are not in the
# IR).
# Fix: tirx_gdn_state_input_rewritten_before_empty_fixed.cake.
# expect: sync.race
# may-also: sync.lost-phase
@cake.schedule(target="sm_100a")
def tirx_gdn_state_input_rewritten_before_empty(lm, KT: LM.tma2d, VT: LM.tma2d, Q: LM.tma2d, O: LM.gmem, n_c: LM.i32):
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
            lm.mma(qs_acc, st_in, smem_q[c], init=True)                  # reads the state input (TMEM A)  # expect-error: sync.race
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
                lm.tmem_store(st_in, state_h)                            # next chunk's input, no empty acquire  # expect-error: sync.race
                lm.tmem_store_wait()
                lm.arrive(in_full, iter=c + 1)
            lm.wait(qs_full, iter=c)
            lm.tmem_load(qs_r, qs_acc)
            lm.tmem_load_wait()
            lm.arrive(qs_empty, iter=c)
            lm.copy(O, qs_r, coords=(c * 64, h))
