# BUG (data.stale-read): the consumers' wait for the producer's store of
# an output slot names a lap too old once it + K reaches 96 (`iter=g - 2 -
# (it + K) // 96`): the consumers then overwrite smem_out while the
# producer's TMA store still reads it.  It shows only at K > 48 (K % 4 ==
# 0), where the step lies inside the K loop: the covering values ran K in
# {4, 8}, and the step moves with K, the loop's own trip count, which the
# far values of session 38 did not follow; the schedule exited 0 *checked*
# until session 39 (helper cover39: the trip count is taken to where the
# step lies at the values it moves to, docs/known-limits.md "Covering
# values past far thresholds").  Fixed form: the file it is edited from.
# Edited from corpus/gemm/sm90_tk_lcsf_finish_alias.cake:
# ThunderKittens' load-compute-store-finish template (prototype/lcsf/lcsf.cuh)
# on Hopper, persistent over tasks: a chunked kernel whose consumers write
# one output tile per input block (stored by the producer) and a running
# state that the finish stage stores at the end of each task.
#  * barriers as lcsf: inputs_arrived (producer: TMA bytes, one arrival),
#    inputs_finished / outputs_arrived / finish_finished (one arrival per
#    consumer warp: 8; each consumer warpgroup arrives with count=4),
#    outputs_finished (producer).  4 input stages, 2 output stages.
#  * the producer loads, and also stores the outputs: wait outputs_arrived,
#    TMA store, store_async_read_wait, arrive outputs_finished.  lcsf polls
#    loads and stores with test_wait; here the order is fixed (the store of
#    block i, then the load of block i+4), one of the interleavings polling
#    allows.
#  * the finish block sits at the end of shared memory and aliases input
#    stage 3 (its B tile) and the output stages, so SAFE_STAGES_BETWEEN_BLOCKS
#    is 3: the producer loads stages 0-2 of the next task, then waits
#    finish_finished before it loads stage 3.  Before the finish, consumer
#    warp group 0 waits outputs_finished of the task's last two outputs
#    (the output stages alias the finish block), then consumers::sync; after
#    writing and storing the finish block (store_async_read_wait), every
#    consumer warp arrives finish_finished and consumers::sync again.
#  * lcsf restarts its rings at stage 0 per task; with K % 4 == 0 (assumed)
#    that is the global ring, so iter= names the slots.
# expect: data.stale-read
@cake.schedule(target="sm_90a")
def tk_lcsf_finish_alias(lm, A: LM.tma2d, B: LM.tma2d, O: LM.tma2d, F: LM.tma3d,
                         K: LM.i32, n_tasks: LM.i32):
    lm.assume(K >= 4)
    lm.assume(K % 4 == 0)
    lm.assume(n_tasks >= 1)
    pool     = lm.smem(131072)
    smem_a   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b   = pool.view(offset=65536, shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_out = pool.view(offset=98304, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_fin = pool.view(offset=90112, shape=(64, 64),  dtype=lm.f32,  stages=2)

    acc   = lm.regs(shape=(64, 64), dtype=lm.f32)
    out   = lm.regs(shape=(64, 64), dtype=lm.bf16)
    state = lm.regs(shape=(64, 64), dtype=lm.f32)

    consumers = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=4)
    producer  = lm.role(warps=[8, 9, 10, 11])

    inp = lm.pipeline(stages=4)
    outp = lm.pipeline(stages=2)
    inputs_arrived   = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=inp)
    inputs_finished  = lm.barrier(prod=[consumers], cons=[producer], init_count=8, pipeline=inp)
    outputs_arrived  = lm.barrier(prod=[consumers], cons=[producer], init_count=8, pipeline=outp)
    outputs_finished = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=outp)
    finish_finished  = lm.barrier(count=1, prod=[consumers], cons=[producer], init_count=8)
    cons_sync = lm.named_barrier(roles=[consumers])

    with producer:
        for t in lm.range(0, n_tasks):
            for li in lm.range(0, 3):
                lm.wait(inputs_finished, iter=t * K + li - 4)
                smem_a.tma_load(A, coords=(0, 64 * li), iter=t * K + li, barrier=inputs_arrived)
                smem_b.tma_load(B, coords=(0, 64 * li), iter=t * K + li, barrier=inputs_arrived)
            lm.wait(finish_finished, iter=t - 1)
            lm.wait(inputs_finished, iter=t * K + 3 - 4)
            smem_a.tma_load(A, coords=(0, 192), iter=t * K + 3, barrier=inputs_arrived)
            smem_b.tma_load(B, coords=(0, 192), iter=t * K + 3, barrier=inputs_arrived)
            for it in lm.range(0, K):
                g = t * K + it
                lm.wait(outputs_arrived, iter=g)
                smem_out.tma_store(O, coords=(128 * t, 64 * it), iter=g)
                lm.tma_store_commit()
                lm.tma_store_wait(pending=0)
                lm.arrive(outputs_finished, iter=g)
                if it + 4 < K:
                    lm.wait(inputs_finished, iter=g)
                    smem_a.tma_load(A, coords=(0, 64 * (it + 4)), iter=g + 4, barrier=inputs_arrived)
                    smem_b.tma_load(B, coords=(0, 64 * (it + 4)), iter=g + 4, barrier=inputs_arrived)

    with consumers:
        w = lm.instance()
        for t in lm.range(0, n_tasks):
            lm.fill(state, 0.0)
            for it in lm.range(0, K):
                g = t * K + it
                lm.wait(outputs_finished, iter=g - 2 - (it + K) // 96)
                lm.wait(inputs_arrived, iter=g)
                lm.mma(acc, smem_a[g][64 * w:64 * w + 64, :], smem_b[g], init=True)
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(inputs_finished, iter=g, count=4)
                lm.binary(state, state, acc, op="add")
                lm.copy(out, acc)
                lm.copy(smem_out[g][64 * w:64 * w + 64, :], out)
                lm.fence_proxy()
                lm.arrive(outputs_arrived, iter=g, count=4)
            if w == 0:
                lm.wait(outputs_finished, iter=t * K + K - 2)
                lm.wait(outputs_finished, iter=t * K + K - 1)
            lm.sync(cons_sync)
            lm.copy(smem_fin[w], state)
            lm.fence_proxy()
            smem_fin.tma_store(F, coords=(t, 64 * w, 0), stage=w)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(finish_finished, stage=0, count=4)
            lm.sync(cons_sync)
