# FIXED: trtllm_tinygemm_stale_barrier_pointer.cake as NVIDIA/TensorRT-LLM
# PR #15338 fixes it: the spin-wait polls the barrier of the live stage,
# k % 4, with its phase k // 4 (iter=k), so the read of slot k % 4 follows
# the landing of k-block k.
# expect: pass
@cake.schedule(target="sm_90a")
def tinygemm_live_barrier(lm, W: LM.tma2d, Act: LM.tma2d, Out: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool     = lm.smem(98304)
    smem_w   = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_act = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    acc      = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer = lm.role(warps=[0])
    compute  = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[compute], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[compute], cons=[producer], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    n0 = lm.block_idx(0) * 64

    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 4)
            smem_w.tma_load(W, coords=(n0, k * 64), iter=k, barrier=full)
            smem_act.tma_load(Act, coords=(0, k * 64), iter=k, barrier=full)

    with compute:
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_w[k], smem_act[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(Out, acc, coords=(n0, 0))
