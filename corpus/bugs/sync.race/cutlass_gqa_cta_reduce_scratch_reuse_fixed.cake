# FIXED form of cutlass_gqa_cta_reduce_scratch_reuse.cake (NVIDIA/cutlass
# PR #3600, issue #3597): a second arrival on the same 128-thread named
# barrier after the reads of the cta_reduce scratch orders every warp's
# reads before the next reduction's publication.
# expect: pass
@cake.schedule(target="sm_100a")
def cutlass_gqa_cta_reduce_scratch_reuse_fixed(lm, K: LM.tma2d, Q: LM.tma2d, Mx: LM.gmem, n_kv: LM.i32):
    lm.assume(n_kv >= 1)
    pool    = lm.smem(65536)
    smem_k  = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2)
    smem_q  = pool.view(offset=49152, shape=(32, 64), dtype=lm.bf16, stages=1)
    scratch = pool.view(offset=53248, shape=(1, 32), dtype=lm.f32, stages=4)    # cta_reduce scratch
    tmem_s  = lm.tmem(cols=0, width=32, shape=(128, 32), dtype=lm.f32)
    s_q  = lm.regs(shape=(32, 32), dtype=lm.f32)
    part = lm.regs(shape=(1, 32), dtype=lm.f32)
    red  = lm.regs(shape=(1, 32), dtype=lm.f32)
    oth  = lm.regs(shape=(1, 32), dtype=lm.f32)
    mrow = lm.regs(shape=(1, 32), dtype=lm.f32)

    softmax = lm.role(warps=[0, 1, 2, 3], group=1)
    load    = lm.role(warps=[4])
    mma     = lm.role(warps=[5])
    pipe    = lm.pipeline(stages=2)
    k_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    k_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    q_full  = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    s_full  = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)
    s_empty = lm.barrier(count=1, prod=[softmax], cons=[mma], init_count=4)
    red_bar = lm.named_barrier(roles=[softmax])                                  # 128 threads

    n_tiles = lm.cdiv(n_kv, 128)

    with load:
        smem_q.tma_load(Q, coords=(32 * lm.block_idx(0), 0), stage=0, barrier=q_full)
        for j in lm.range(0, n_tiles):
            lm.wait(k_empty, iter=j - 2)
            smem_k.tma_load(K, coords=(128 * j, 0), iter=j, barrier=k_full)

    with mma:
        lm.wait(q_full, stage=0)
        for j in lm.range(0, n_tiles):
            lm.wait(k_full, iter=j)
            lm.wait(s_empty, iter=j - 1)
            lm.mma(tmem_s, smem_k[j], smem_q[0], init=True)
            lm.mma_commit(barrier=k_empty, iter=j)
            lm.mma_commit(barrier=s_full, iter=j)

    with softmax:
        w = lm.instance()
        lm.fill(mrow, -1.0e30)
        for j in lm.range(0, n_tiles):
            lm.wait(s_full, iter=j)
            lm.tmem_load(s_q, tmem_s[32 * w:32 * w + 32, :])
            lm.tmem_load_wait()
            lm.arrive(s_empty, iter=j)
            lm.reduce(part, s_q, op="max", axis=0)          # this warp's 32 tokens
            lm.copy(scratch[w], part)
            lm.sync(red_bar)                                # publication before the reads
            lm.copy(red, scratch[0])
            for i in lm.range(1, 4):
                lm.copy(oth, scratch[i])
                lm.binary(red, red, oth, op="max")
            lm.binary(mrow, mrow, red, op="max")
            lm.sync(red_bar)                                # the fix (PR #3600): reads before reuse
        if w == 0:
            lm.copy(Mx, mrow, coords=(lm.block_idx(0), 0))
