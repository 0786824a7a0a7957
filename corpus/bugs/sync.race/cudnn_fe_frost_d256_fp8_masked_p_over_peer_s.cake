# BUG (sync.race): NVIDIA/cudnn-frontend issue #981, fixed by PR #985
# ("frost(sdpa): fix d256 fp8 + mxfp8 masked-softmax TMEM race - aliased P
# store vs the other warpgroup's S load").  sm100/prefill_d256_fp8.py packs
# fp8 P into the tail columns (96..127) of the same 128-column TMEM score
# slot it was computed from (P_EVEN_OFF = 96, P_ODD_OFF = 224: there is no
# spare TMEM at d = 256).  The masked variants split each row's 128 keys
# across the two softmax warpgroups: "half 0 loaded everything, published
# the row max, and immediately stored its P (keys 0-63) into cols 96-111 -
# half 1's still-unread S for keys 96-111.  Whenever half 1 lagged ... it
# read clobbered scores" (~0.1 % of O wrong under any causal mask; the bad
# contributions cluster at key mod 128 in [96, 111]).
# Modelled (sm_100a): a TMA warp (Q once, a 2-stage K/V ring), the MMA warp
# (QK into the S slot of the tile's parity - two 128-column f32 slots,
# s_acc[:, 0:128] and s_acc[:, 128:256] - then, after both warpgroups'
# p_ready, PV with P read from TMEM columns 96..127 of that slot as the A
# operand), softmax warpgroups 0 and 1 as one-warp instances (warp i of
# either group reads its TMEM lane quarter i), the row max handed over
# through shared memory and the per-parity mb_softmax_max barrier.  The P
# words are written as f32 columns (the kernel packs four fp8 values per
# 32-bit column; 64 keys = 16 columns, half 0 at 96..111, half 1 at
# 112..127), the PV MMA is written with an f32 (tf32-kind) V tile for the
# same reason (docs/known-limits.md "One region per TMEM allocation range");
# the mask, the sums, the correction warpgroup, O's rescale and the O TMA
# store are left out (warpgroup 1 reads O and stores it at the end).
# Fix: cudnn_fe_frost_d256_fp8_masked_p_over_peer_s_fixed.cake.
# expect: sync.race
# lower: unsupported (tcgen05.mma into the S slot a parity expression picks, and PV with A from TMEM: the lowering takes constant column slices and the shared-memory descriptor form of A only)
@cake.schedule(target="sm_100a")
def cudnn_fe_frost_d256_fp8_masked_p_over_peer_s(lm, Q: LM.tma2d, K: LM.tma2d, V: LM.tma2d, O: LM.gmem, n_kv: LM.i32):
    lm.assume(n_kv >= 1)
    pool  = lm.smem(131072)
    sq    = pool.view(offset=0,     shape=(128, 64), dtype=lm.f16, swizzle="128B")
    sk    = pool.view(offset=16384, shape=(128, 64), dtype=lm.f16, stages=2, swizzle="128B")
    sv    = pool.view(offset=49152, shape=(64, 32), dtype=lm.f32, stages=2)
    xch   = pool.view(offset=65536, shape=(128, 1), dtype=lm.f32, stages=2)
    s_acc = lm.tmem(cols=0,   width=256, shape=(128, 256), dtype=lm.f32)
    o_acc = lm.tmem(cols=256, width=64,  shape=(128, 64),  dtype=lm.f32)
    r_s0  = lm.regs(shape=(32, 128), dtype=lm.f32)
    r_s1  = lm.regs(shape=(32, 64), dtype=lm.f32)
    r_m   = lm.regs(shape=(32, 1), dtype=lm.f32)
    r_p   = lm.regs(shape=(32, 16), dtype=lm.f32)
    r_o   = lm.regs(shape=(32, 64), dtype=lm.f32)

    wg0  = lm.role(warps=[0, 1, 2, 3], group=1)
    wg1  = lm.role(warps=[4, 5, 6, 7], group=1)
    mma  = lm.role(warps=[8])
    load = lm.role(warps=[9])

    kv        = lm.pipeline(stages=2)
    par       = lm.pipeline(stages=2)
    q_full    = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    kv_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv)
    kv_empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv)
    bmm1_done = lm.barrier(prod=[mma], cons=[wg0, wg1], init_count=1, pipeline=par)
    p_ready   = lm.barrier(prod=[wg0, wg1], cons=[mma], init_count=8, pipeline=par)
    bmm2_done = lm.barrier(prod=[mma], cons=[mma], init_count=1, pipeline=par)
    smax      = lm.barrier(prod=[wg0], cons=[wg1], init_count=4, pipeline=par)
    o_done    = lm.barrier(count=1, prod=[mma], cons=[wg1], init_count=1)

    m0 = lm.block_idx(0) * 128

    with load:
        sq.tma_load(Q, coords=(m0, 0), stage=0, barrier=q_full)
        for t in lm.range(0, n_kv):
            lm.wait(kv_empty, iter=t - 2)
            sk.tma_load(K, coords=(128 * t, 0), iter=t, barrier=kv_full)
            sv.tma_load(V, coords=(0, 32 * t), iter=t, barrier=kv_full)

    with mma:
        lm.wait(q_full, stage=0)
        for t in lm.range(0, n_kv):
            p = t % 2
            lm.wait(kv_full, iter=t)
            lm.wait(bmm2_done, iter=t - 2)        # the parity slot's previous PV has read its P
            lm.mma(s_acc[:, 128 * p:128 * p + 128], sq[0], sk[t], init=True)
            lm.mma_commit(barrier=bmm1_done, iter=t)
            lm.wait(p_ready, iter=t)
            lm.mma(o_acc, s_acc[:, 128 * p + 96:128 * p + 128], sv[t], init=(t == 0))
            lm.mma_commit(barrier=kv_empty, iter=t)
            lm.mma_commit(barrier=bmm2_done, iter=t)
        lm.mma_commit(barrier=o_done, stage=0)

    with wg0:
        w = lm.instance()
        for t in lm.range(0, n_kv):
            p = t % 2
            lm.wait(bmm1_done, iter=t)
            lm.tmem_load(r_s0, s_acc[32 * w:32 * w + 32, 128 * p:128 * p + 128])
            lm.tmem_load_wait()
            lm.reduce(r_m, r_s0, op="max", axis=1)
            lm.copy(xch[t][32 * w:32 * w + 32, :], r_m)
            lm.arrive(smax, iter=t)
            lm.unary(r_p, r_s0[:, 0:16], op="exp2")
            lm.tmem_store(s_acc[32 * w:32 * w + 32, 128 * p + 96:128 * p + 112], r_p)      # expect-error: sync.race
            lm.tmem_store_wait()
            lm.arrive(p_ready, iter=t)

    with wg1:
        w = lm.instance()
        for t in lm.range(0, n_kv):
            p = t % 2
            lm.wait(bmm1_done, iter=t)
            lm.wait(smax, iter=t)
            lm.copy(r_m, xch[t][32 * w:32 * w + 32, :])
            lm.tmem_load(r_s1, s_acc[32 * w:32 * w + 32, 128 * p + 64:128 * p + 128])      # expect-error: sync.race
            lm.tmem_load_wait()
            lm.unary(r_p, r_s1[:, 0:16], op="exp2")
            lm.tmem_store(s_acc[32 * w:32 * w + 32, 128 * p + 112:128 * p + 128], r_p)
            lm.tmem_store_wait()
            lm.arrive(p_ready, iter=t)
        lm.wait(o_done, stage=0)
        lm.tmem_load(r_o, o_acc[32 * w:32 * w + 32, :])
        lm.tmem_load_wait()
        lm.copy(O, r_o, coords=(m0 + 32 * w, 0))
