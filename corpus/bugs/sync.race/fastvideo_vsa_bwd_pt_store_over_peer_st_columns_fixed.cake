# FIXED: fastvideo_vsa_bwd_pt_store_over_peer_st_columns.cake as the merged
# hao-ai-lab/FastVideo PR #1819 writes it: each softmax warp packs its P^T
# into the first half of its own S^T columns (tmem_bf16x2_offset =
# tmem_f32_offset: bf16x2 columns 64 c .. 64 c + 31), which no other warp
# reads, and the dV MMA reads the two col_halves' P^T where they are (two
# MMAs, each over its 64 q columns of dO^T).
# lower: unsupported (tcgen05.mma with A from TMEM: the lowering emits the shared-memory descriptor form of A only)
# expect: pass
@cake.schedule(target="sm_100a")
def vsa_bwd_pt_in_own_half(lm, K: LM.tma2d, QT: LM.tma2d, DOT: LM.tma2d, DV: LM.gmem, n_quads: LM.i32):
    lm.assume(n_quads >= 1)
    pool    = lm.smem(163840)
    smem_k  = pool.view(offset=0,      shape=(128, 64),  dtype=lm.f16, swizzle="128B")
    smem_q  = pool.view(offset=16384,  shape=(256, 64),  dtype=lm.f16, stages=2, swizzle="128B")
    smem_do = pool.view(offset=81920,  shape=(64, 128),  dtype=lm.f16, stages=2)
    sp      = lm.tmem(cols=0,   width=128, shape=(128, 256), dtype=lm.f16)    # S^T, then P^T over it
    dv      = lm.tmem(cols=128, width=64,  shape=(128, 64),  dtype=lm.f32)
    s_r     = lm.regs(shape=(32, 128), dtype=lm.f16)
    p_r     = lm.regs(shape=(32, 64),  dtype=lm.f16)
    dv_r    = lm.regs(shape=(32, 32),  dtype=lm.f32)

    softmax = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=1)
    mma     = lm.role(warps=[12])
    load    = lm.role(warps=[13])

    pipe    = lm.pipeline(stages=2)
    full    = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty   = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    k_full  = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    st_full = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)
    pt_full = lm.barrier(count=1, prod=[softmax], cons=[mma], init_count=8)
    dv_full = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)

    kv0 = lm.block_idx(0) * 128

    with load:
        smem_k.tma_load(K, coords=(kv0, 0), stage=0, barrier=k_full)
        for j in lm.range(0, n_quads):
            lm.wait(empty, iter=j - 2)
            smem_q.tma_load(QT, coords=(256 * j, 0), iter=j, barrier=full)
            smem_do.tma_load(DOT, coords=(0, 128 * j), iter=j, barrier=full)

    with mma:
        lm.wait(k_full, stage=0)
        for j in lm.range(0, n_quads):
            lm.wait(full, iter=j)
            lm.mma(sp, smem_k[0], smem_q[j], init=True)           # S^T over the last P^T: issue order
            lm.mma_commit(barrier=st_full, iter=j)
            lm.wait(pt_full, iter=j)
            lm.mma(dv, sp[:, 0:64], smem_do[j][:, 0:64], init=(j == 0))      # dV += P^T dO^T, col_half 0's P^T
            lm.mma(dv, sp[:, 128:192], smem_do[j][:, 64:128], init=False)    # col_half 1's P^T
            lm.mma_commit(barrier=empty, iter=j)
        lm.mma_commit(barrier=dv_full, stage=0)

    with softmax:
        q0 = 32 * (lm.instance() % 4)                             # lane quarter (lane_group)
        c = lm.instance() // 4                                    # col_half
        for j in lm.range(0, n_quads):
            lm.wait(st_full, iter=j)
            lm.tmem_load(s_r, sp[q0:q0 + 32, 128 * c:128 * c + 128])  # S^T: fp32 columns 64 c .. 64 c + 63
            lm.tmem_load_wait()
            lm.unary(s_r, s_r, op="exp2")                         # P^T (LSE, scale left out)
            lm.copy(p_r, s_r[:, 0:64])                            # cvt to bf16x2 (stand-in)
            lm.tmem_store(sp[q0:q0 + 32, 128 * c:128 * c + 64], p_r)  # bf16x2 columns 64 c .. 64 c + 31: its own half
            lm.tmem_store_wait()
            lm.arrive(pt_full, iter=j)
        lm.wait(dv_full, stage=0)
        lm.tmem_load(dv_r, dv[q0:q0 + 32, 32 * c:32 * c + 32])
        lm.tmem_load_wait()
        lm.copy(DV, dv_r, coords=(kv0 + q0, 32 * c))
