# BUG (sync.race): hao-ai-lab/FastVideo PR #1819 ("[kernel] sm_100a CUDA
# backward for VSA block-sparse attention (blk64)", merged 2026-09-06), the
# review finding of 2026-09-05 "Unsynchronized TMEM write/read overlap
# between softmax warps of the same lane group" in
# fastvideo-kernel/csrc/attention/block_sparse_bwd_kernel_sm100a.cuh.  The
# eight softmax warps split S^T (128 lanes x 128 fp32 TMEM columns) by lane
# group (softmax_warp_id & 3, the warp's TMEM lane quarter) and column half
# (col_half = softmax_warp_id >> 2): each tcgen05.ld's its 64 fp32 columns at
# tmem_st + col_half * 64, computes P^T and tcgen05.st's 32 bf16x2 columns
# back into the same TMEM (tmem_pt_bf16 == tmem_st) at
#     tmem_bf16x2_offset = tmem_lane_base + col_half * HALF_COLS / 2
# i.e. columns 32 .. 63 for col_half 1 - inside the 64 columns that the
# col_half 0 warp of the same lane quarter is still loading; the two warps
# share only full_bar_st, which orders neither.  The merged kernel packs
# each warp's P^T into its own half (tmem_bf16x2_offset = tmem_f32_offset)
# and the dV MMA reads the two halves where they are
# (fastvideo_vsa_bwd_pt_store_over_peer_st_columns_fixed.cake).
# Written in CAKE IR: warps 4..11 are the softmax warps (one-warp
# instances; instance i is warp 4 + i, lane quarter i % 4, col_half i // 4),
# warp 12 the MMA warp (S^T = K Q^T, then dV += P^T dO^T with P^T from TMEM,
# the "ts" form), warp 13 the loader; one K tile, a 2-stage ring of Q^T and
# dO^T tiles per quad (n_quads).  The exp2 stands for the softmax; dP^T, dS^T,
# dK, dQ and the LSE/Delta rows are left out; the epilogue is the softmax
# warps' tcgen05.ld of dV and a store.  S^T and P^T share one TMEM region
# (docs/known-limits.md "One region per TMEM allocation range": no region
# reinterprets another's columns), written in f16 throughout; its 32-bit
# column c holds f16 elements 2 c, 2 c + 1, so a warp's 64 fp32 columns of
# S^T are elements 128 c .. 128 c + 127 here and its 32 bf16x2 columns of
# P^T are elements 64 c .. 64 c + 63 (the kernel's offset col_half * 32
# columns); head dim 64 (one of the kernel's two 64-column k-subtiles).
# expect: sync.race
@cake.schedule(target="sm_100a")
def vsa_bwd_pt_over_peer_st(lm, K: LM.tma2d, QT: LM.tma2d, DOT: LM.tma2d, DV: LM.gmem, n_quads: LM.i32):
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
            lm.mma(dv, sp[:, 0:128], smem_do[j], init=(j == 0))    # dV += P^T dO^T, P^T from TMEM
            lm.mma_commit(barrier=empty, iter=j)
        lm.mma_commit(barrier=dv_full, stage=0)

    with softmax:
        q0 = 32 * (lm.instance() % 4)                             # lane quarter (lane_group)
        c = lm.instance() // 4                                    # col_half
        for j in lm.range(0, n_quads):
            lm.wait(st_full, iter=j)
            lm.tmem_load(s_r, sp[q0:q0 + 32, 128 * c:128 * c + 128])  # S^T: fp32 columns 64 c .. 64 c + 63  # expect-error: sync.race
            lm.tmem_load_wait()
            lm.unary(s_r, s_r, op="exp2")                         # P^T (LSE, scale left out)
            lm.copy(p_r, s_r[:, 0:64])                            # cvt to bf16x2 (stand-in)
            lm.tmem_store(sp[q0:q0 + 32, 64 * c:64 * c + 64], p_r)  # BUG: bf16x2 columns 32 c .. 32 c + 31  # expect-error: sync.race
            lm.tmem_store_wait()
            lm.arrive(pt_full, iter=j)
        lm.wait(dv_full, stage=0)
        lm.tmem_load(dv_r, dv[q0:q0 + 32, 32 * c:32 * c + 32])
        lm.tmem_load_wait()
        lm.copy(DV, dv_r, coords=(kv0 + q0, 32 * c))
