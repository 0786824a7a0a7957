# fa3_d128_fold_pingpong: fa3_d128_pingpong.cake with the softmax scale folded into the exponent's argument
# (FA3's form): the row max is taken on the raw scores and scaled once per row
# (the scale is positive, so max(c*s) = c*max(s) exactly: rounding is monotone),
# and c*s - m is one FFMA per element (nvcc contracts the mul into the sub: the
# scaled score has no other use), one instruction per score fewer.
# FlashAttention-3 style forward pass on Hopper for head_dim 128 with FA3's
# intra-warpgroup overlap (issue 13's shape B=4, H=32, S=8192, D=128).
# As fa3_d128_b128.cake, but each consumer issues S_{j+1} = Q K_{j+1}^T and
# O += P_j V_j back to back, retires the first (mma_wait(pending=1)), runs
# the softmax of S_{j+1} while P_j V_j is still on the tensor cores, and only
# then retires P_j V_j and writes P_{j+1} (P and O are registers an in-flight
# wgmma group reads / writes: the checker models each fragment as memory).
# Peeled: S_0 and its softmax before the loop, the last P V after it.
# Plus FA3's inter-warpgroup ping-pong: the two consumers take turns issuing
# their pair of wgmmas (an order barrier as in corpus/gemm/sm90_pingpong.cake:
# slot i = "warpgroup i may issue"), so one warpgroup's softmax runs while the
# other's GEMMs hold the tensor cores. Warpgroup 0 issues first; the last
# arrival of warpgroup 1 has no waiter (a completed phase nobody waits for).
# The structure of corpus/attention/sm90_fa3_fwd.cake at D = 128 and a key
# block of 128 (FA3's hdim-128 tile: 128 query rows x 128 keys per block):
#  * producer warpgroup (setmaxnreg 24): Q once (q_full), then K and V^T
#    blocks through two independent 2-slot rings (32 KiB a slot).
#  * two consumer warpgroups (setmaxnreg 240): instance i owns query rows
#    [64i, 64i+64). Per key block: S = Q_i K_j^T (64x128, SS wgmma n128),
#    release K; online softmax in base 2; O += P V_j (RS wgmma, P from
#    registers), release V.
#  * epilogue: O /= l, bf16 into the instance's own staging slot, fence, TMA store.
# Q, K, V^T and O tiles are 256-byte rows, declared unswizzled: lowering stores them as two
# 128-byte swizzled column blocks (the wgmma K-major layout), one TMA box each.
# softmax_scale * log2(e) = 0.12751743 for d = 128.
# expect: pass
@cake.schedule(target="sm_90a")
def fa3_d128_fold_pingpong(lm, Q: LM.tma3d, K: LM.tma3d, Vt: LM.tma3d, O: LM.tma3d,
                  seqlen_q: LM.i32, seqlen_k: LM.i32):
    lm.assume(seqlen_q > 0)
    lm.assume(seqlen_k > 0)
    pool    = lm.smem(196608)
    smem_q  = pool.view(offset=0,      shape=(128, 128), dtype=lm.bf16, stages=1)
    smem_k  = pool.view(offset=32768,  shape=(128, 128), dtype=lm.bf16, stages=2)
    smem_vt = pool.view(offset=98304,  shape=(128, 128), dtype=lm.bf16, stages=2)
    smem_o  = pool.view(offset=163840, shape=(64, 128),  dtype=lm.bf16, stages=2)
    s_acc = lm.regs(shape=(64, 128), dtype=lm.f32)
    p     = lm.regs(shape=(64, 128), dtype=lm.bf16)
    o_acc = lm.regs(shape=(64, 128), dtype=lm.f32)
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
    order   = lm.barrier(count=2, prod=[consumers], cons=[consumers], init_count=1)

    n_blocks = lm.cdiv(seqlen_k, 128)
    q0   = lm.block_idx(0) * 128
    head = lm.block_idx(1)

    with producer:
        smem_q.tma_load(Q, coords=(head, q0, 0), stage=0, barrier=q_full)
        for j in lm.range(0, n_blocks):
            lm.wait(k_empty, iter=j - 2)
            smem_k.tma_load(K, coords=(head, j * 128, 0), iter=j, barrier=k_full)
            lm.wait(v_empty, iter=j - 2)
            smem_vt.tma_load(Vt, coords=(head, 0, j * 128), iter=j, barrier=v_full)

    with consumers:
        m0 = 64 * lm.instance()
        lm.fill(o_acc, 0.0)
        lm.fill(m_i, -1e30)
        lm.fill(l_i, 0.0)
        lm.wait(q_full, stage=0)
        # S_0 and its softmax
        lm.wait(k_full, iter=0)
        lm.mma(s_acc, smem_q[0][m0:m0 + 64, :], smem_k[0], init=True)
        lm.mma_commit()
        lm.mma_wait(pending=0)
        lm.arrive(k_empty, iter=0)
        lm.reduce(m_i, s_acc, op="max", axis=1)
        lm.binary(m_i, m_i, 0.12751743, op="mul")
        lm.binary(s_acc, s_acc, 0.12751743, op="mul")
        lm.binary(s_acc, s_acc, m_i, op="sub")
        lm.unary(s_acc, s_acc, op="exp2")
        lm.reduce(l_i, s_acc, op="sum", axis=1)
        lm.copy(p, s_acc)
        for j in lm.range(0, n_blocks - 1):
            # S_{j+1} and P_j V_j in flight together, issued in this warpgroup's turn
            lm.wait(k_full, iter=j + 1)
            lm.wait(v_full, iter=j)
            if j + lm.instance() > 0:
                lm.wait(order, stage=lm.instance())
            lm.mma(s_acc, smem_q[0][m0:m0 + 64, :], smem_k[j + 1], init=True)
            lm.mma_commit()
            lm.mma(o_acc, p, smem_vt[j], init=False)
            lm.mma_commit()
            lm.arrive(order, stage=1 - lm.instance())
            lm.mma_wait(pending=1)
            lm.arrive(k_empty, iter=j + 1)
            # softmax of S_{j+1} while P_j V_j runs
            lm.reduce(m_blk, s_acc, op="max", axis=1)
            lm.binary(m_blk, m_blk, 0.12751743, op="mul")
            lm.binary(m_new, m_i, m_blk, op="max")
            lm.binary(corr, m_i, m_new, op="sub")
            lm.unary(corr, corr, op="exp2")
            lm.binary(s_acc, s_acc, 0.12751743, op="mul")
            lm.binary(s_acc, s_acc, m_new, op="sub")
            lm.unary(s_acc, s_acc, op="exp2")
            lm.reduce(rsum, s_acc, op="sum", axis=1)
            lm.binary(l_i, l_i, corr, op="mul")
            lm.binary(l_i, l_i, rsum, op="add")
            lm.copy(m_i, m_new)
            lm.mma_wait(pending=0)
            lm.arrive(v_empty, iter=j)
            lm.binary(o_acc, o_acc, corr, op="mul")
            lm.copy(p, s_acc)
        # the last P V
        lm.wait(v_full, iter=n_blocks - 1)
        lm.mma(o_acc, p, smem_vt[n_blocks - 1], init=False)
        lm.mma_commit()
        lm.mma_wait(pending=0)
        lm.arrive(v_empty, iter=n_blocks - 1)
        lm.unary(l_i, l_i, op="recip")
        lm.binary(o_acc, o_acc, l_i, op="mul")
        lm.copy(smem_o[lm.instance()], o_acc)
        lm.fence_proxy()
        smem_o.tma_store(O, coords=(head, q0 + m0, 0), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
