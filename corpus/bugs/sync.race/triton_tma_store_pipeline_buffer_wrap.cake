# BUG (sync.race): Triton's TMA store pipelining pass (triton-lang/triton
# PR #10782, "[TRITONGPU] Enable TMA store pipelining controlled through
# tl.range(num_stages=)", review comment of 2026-07-02 on
# lib/Dialect/TritonGPU/Transforms/Pipeliner/TMAStoresPipeline.cpp:132,
# "Avoid reusing the last TMA buffer on loop wrap").  Stores of one shape
# in a loop body share numBuffers = min(#stores, num_stages) staging
# buffers, store idx of the body using allocs[idx % numBuffers], and each
# local_store into a staging buffer is preceded by a TMA store wait with
# pendings = numBuffers - 1.  With 5 same-shaped stores per iteration and
# num_stages = 2 the buffers go 0,1,0,1,0 | 0,1,... : the last store of
# iteration i and the first store of iteration i + 1 both use buffer 0,
# and wait(pendings=1) leaves exactly that last store in flight while the
# next iteration's local_store overwrites buffer 0.
# Fix (what the review asks for: a rotation safe across the wrap): index
# the buffers by a counter that runs on across iterations,
# (5 * it + idx) % 2, so consecutive stores always alternate.
# Written in CAKE IR: one warpgroup, the tile of each store computed in
# registers (lm.fill stands for the compute), st.shared into a 2-slot
# staging ring, fence.proxy.async, TMA store, commit; the wait before each
# staging write keeps one group in flight (pending=1).  The five stores of
# the body are a 5-trip inner loop (the pass unrolls nothing; the stores
# are five ops of one shape).  Left out: the loads feeding the compute.
# Fix: triton_tma_store_pipeline_buffer_wrap_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_90a")
def triton_tma_store_pipeline_buffer_wrap(lm, Out: LM.tma2d, n_iters: LM.i32):
    pool  = lm.smem(32768)
    stage = pool.view(offset=0, shape=(64, 64), dtype=lm.f16, stages=2, swizzle="128B")
    frag  = lm.regs(shape=(64, 64), dtype=lm.f16)

    wg = lm.role(warps=[0, 1, 2, 3])

    row0 = lm.block_idx(0) * 64

    with wg:
        for it in lm.range(0, n_iters):
            for idx in lm.range(0, 5):
                lm.fill(frag, 1.0)
                lm.tma_store_wait(pending=1)
                lm.copy(stage[idx % 2], frag)                                   # expect-error: sync.race
                lm.fence_proxy()
                stage.tma_store(Out, coords=(row0, (5 * it + idx) * 64), stage=idx % 2)
                lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
