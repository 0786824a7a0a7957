# FIXED: tile-ai/tilelang PR #2406 (commit b07ec47b; issue #2567) - the
# fix of tilelang_ws_2p2c_setmaxnreg_24_240.cake: for the 512-thread
# two-producer / two-consumer layout the pass picks dealloc 24 / alloc 224
# (256 * 24 + 256 * 224 = 63488 of the 65536 registers the block is
# launched with).  Modelled as the broken form (see its header).
# expect: pass
@cake.schedule(target="sm_90a")
def tilelang_ws_2p2c_setmaxnreg_24_240_fixed(lm, K: LM.tma2d, LSE: LM.gmem, DO: LM.gmem,
                                       DQ: LM.gmem, n_kv: LM.i32):
    lm.assume(n_kv >= 1)
    pool   = lm.smem(40960)
    smem_k = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2)
    smem_l = pool.view(offset=16384, shape=(1, 64),  dtype=lm.f32,  stages=2)
    lse_r  = lm.regs(shape=(1, 64),  dtype=lm.f32)
    lse_c  = lm.regs(shape=(1, 64),  dtype=lm.f32)
    do_r   = lm.regs(shape=(64, 64), dtype=lm.bf16)
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)

    tma_p  = lm.role(warps=[0, 1, 2, 3], regs=24)
    simt_p = lm.role(warps=[4, 5, 6, 7], regs=24)
    cons   = lm.role(warps=[8, 9, 10, 11, 12, 13, 14, 15], group=4, regs=224)

    ring    = lm.pipeline(stages=2)
    k_full  = lm.barrier(prod=[tma_p],  cons=[cons],   init_count=1, pipeline=ring)
    k_empty = lm.barrier(prod=[cons],   cons=[tma_p],  init_count=2, pipeline=ring)
    l_full  = lm.barrier(prod=[simt_p], cons=[cons],   init_count=1, pipeline=ring)
    l_empty = lm.barrier(prod=[cons],   cons=[simt_p], init_count=2, pipeline=ring)

    row = lm.block_idx(0) * 128

    with tma_p:
        for j in lm.range(0, n_kv):
            lm.wait(k_empty, iter=j - 2)
            smem_k.tma_load(K, coords=(j * 64, 0), iter=j, barrier=k_full)

    with simt_p:
        for j in lm.range(0, n_kv):
            lm.copy(lse_r, LSE, coords=(lm.block_idx(0), j * 64))
            lm.wait(l_empty, iter=j - 2)
            lm.copy(smem_l[j], lse_r)
            lm.arrive(l_full, iter=j)

    with cons:
        m0 = row + 64 * lm.instance()
        lm.copy(do_r, DO, coords=(m0, 0))
        for j in lm.range(0, n_kv):
            lm.wait(k_full, iter=j)
            lm.wait(l_full, iter=j)
            lm.mma(acc, do_r, smem_k[j], init=(j == 0))
            lm.mma_commit()
            lm.copy(lse_c, smem_l[j])
            lm.mma_wait(pending=0)
            lm.arrive(k_empty, iter=j)
            lm.arrive(l_empty, iter=j)
            lm.binary(acc, acc, 0.5, op="mul")
        lm.copy(DQ, acc, coords=(m0, 0))
