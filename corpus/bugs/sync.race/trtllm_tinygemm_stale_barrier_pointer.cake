# BUG (sync.race): TensorRT-LLM's tinygemm consumer polls a stale barrier,
# as reported and fixed in NVIDIA/TensorRT-LLM PR #15338 ("fix tinygemm
# barrier bug").  The compute warps' spin-wait used bar_ptr_wt / bar_ptr_act,
# computed ONCE before the k-loop for the initial stage, while the stage
# advances every k-block.  With the phase of the live stage, the wait on
# stage 0's barrier passes at once (stage 0 completed that phase at k = 0),
# and the consumer reads stage k % 4 before the TMA has filled it:
# corrupted output whenever the producer lags (the PR saw it only under
# concurrent UVA copies).  Here: wait(full, stage=0, phase=k // 4) guards
# the read of slot k % 4.
# Modelled: one TMA producer warp and one consumer warpgroup over a 4-stage
# ring of weight and activation tiles; tinygemm reads the stage with
# ldmatrix + mma.sync, written here as one wgmma (the read of the stage is
# what the bug is about).  cake reports the race at the refilling TMA load
# with a note at the MMA that reads the slot; either line counts.
# Fix: trtllm_tinygemm_stale_barrier_pointer_fixed.cake.
# expect: sync.race
# may-also: data.stale-read sync.async-at-exit
@cake.schedule(target="sm_90a")
def tinygemm_stale_barrier_pointer(lm, W: LM.tma2d, Act: LM.tma2d, Out: LM.gmem, K: LM.i32):
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
            smem_w.tma_load(W, coords=(n0, k * 64), iter=k, barrier=full)  # expect-error: sync.race
            smem_act.tma_load(Act, coords=(0, k * 64), iter=k, barrier=full)

    with compute:
        for k in lm.range(0, k_tiles):
            lm.wait(full, stage=0, phase=k // 4)
            lm.mma(acc, smem_w[k], smem_act[k], init=(k == 0))  # expect-error: sync.race
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(Out, acc, coords=(n0, 0))
