# FIXED: vllm_cutlass_mla_epilogue_arrive_no_wait.cake as vllm-project/vllm
# PR #26026 fixes it: the early-return path calls arrive_and_wait
# (lm.sync) on the epilogue named barrier, so the compute warps cannot
# arrive for tile t + 1 before the generation of tile t has completed with
# the load warps' arrival.
# expect: pass
@cake.schedule(target="sm_90a")
def mla_epilogue_arrive_and_wait(lm, Q: LM.tma2d, KV: LM.tma2d, O: LM.gmem,
                                kv_tiles: LM.i32, tiles: LM.i32):
    lm.assume(kv_tiles >= 0)
    lm.assume(tiles > 0)
    pool    = lm.smem(65536)
    smem_q  = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_kv = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    s_acc   = lm.regs(shape=(64, 64), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3])
    load    = lm.role(warps=[4])

    kv    = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[compute], init_count=1, pipeline=kv)
    empty = lm.barrier(prod=[compute], cons=[load], init_count=1, pipeline=kv)
    q_full = lm.barrier(count=1, prod=[load], cons=[compute], init_count=1)
    epi   = lm.named_barrier(roles=[compute, load])

    with load:
        for t in lm.range(0, tiles):
            if kv_tiles > 0:
                smem_q.tma_load(Q, coords=(t * 64, 0), iter=t, barrier=q_full)
                for j in lm.range(0, kv_tiles):
                    it = t * kv_tiles + j
                    lm.wait(empty, iter=it - 2)
                    smem_kv.tma_load(KV, coords=(j * 64, 0), iter=it, barrier=full)
            lm.sync(epi)

    with compute:
        for t in lm.range(0, tiles):
            if kv_tiles == 0:
                lm.sync(epi)
            else:
                lm.wait(q_full, iter=t)
                for j in lm.range(0, kv_tiles):
                    it = t * kv_tiles + j
                    lm.wait(full, iter=it)
                    lm.mma(s_acc, smem_q, smem_kv[it], init=(j == 0))
                    lm.mma_commit()
                    lm.mma_wait(pending=0)
                    lm.arrive(empty, iter=it)
                lm.copy(O, s_acc, coords=(t * 64, 0))
                lm.sync(epi)
