# FIXED: fa3_varlen_epilogue_write_tiled_no_sync.cake as FlashAttention-3
# fixed it (Dao-AILab/flash-attention issue #1344; the decode-branch
# epilogue that replaced epilogue_fwd_sm90_tma.hpp): the MMA warpgroups
# sync on the epilogue named barrier after writing O to shared memory and
# before the tiled smem->gmem copy reads rows the other warpgroup wrote.
# expect: pass
@cake.schedule(target="sm_90a")
def fa3_varlen_epilogue_write_tiled_synced(lm, Q: LM.tma2d, V: LM.tma2d, O: LM.gmem, n_kv: LM.i32):
    pool   = lm.smem(65536)
    smem_q = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    smem_v = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_o = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16)
    o_acc  = lm.regs(shape=(64, 64), dtype=lm.f32)
    o_out  = lm.regs(shape=(128, 32), dtype=lm.bf16)

    producer = lm.role(warps=[0])
    mma      = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)

    q_full  = lm.barrier(count=1, prod=[producer], cons=[mma], init_count=1)
    kv      = lm.pipeline(stages=2)
    v_full  = lm.barrier(prod=[producer], cons=[mma], init_count=1, pipeline=kv)
    v_empty = lm.barrier(prod=[mma], cons=[producer], init_count=2, pipeline=kv)

    epi_bar = lm.named_barrier(roles=[mma])

    q_blk = lm.block_idx(0) * 128

    with producer:
        smem_q.tma_load(Q, coords=(q_blk, 0), stage=0, barrier=q_full)
        for j in lm.range(0, n_kv):
            lm.wait(v_empty, iter=j - 2)
            smem_v.tma_load(V, coords=(j * 64, 0), iter=j, barrier=v_full)

    with mma:
        m0 = 64 * lm.instance()
        c0 = 32 * lm.instance()
        lm.wait(q_full, stage=0, phase=0)
        for j in lm.range(0, n_kv):
            lm.wait(v_full, iter=j)
            lm.mma(o_acc, smem_q[0][m0:m0 + 64, :], smem_v[j], init=(j == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(v_empty, iter=j)
        # epilogue, varlen path (write_tiled)
        lm.copy(smem_o[0][m0:m0 + 64, :], o_acc)
        lm.sync(epi_bar)
        lm.copy(o_out, smem_o[0][:, c0:c0 + 32])
        lm.copy(O, o_out, coords=(q_blk, c0))
