# FIXED: fbtriton_ws_per_thread_release_init_count_128.cake with the count of PR #183.  Meta's warp-specialized Triton
# (facebookexperimental/triton), token lowering WSLowerToken.cpp.  PR #10
# ("consumer release on each thread instead of master thread") made every
# consumer thread run the release (mbarrier.arrive) of the buffer-empty
# barrier and initialized that barrier with THREADS_PER_TASK = 128
# ("In Hopper, each task is a warpgroup consisting of 4 warps").  A task
# region with another warp count breaks the count: PR #104 and PR #183
# ("Correctly set up count for init_barrier when a region can have non-4
# warps") replace the constant by the region's warps * THREADS_PER_WARP.
# Modelled for a consumer region of 8 warps (num_warps=8, one partition):
# 256 per-thread arrivals per release against an expected 128, so each
# phase of the empty barrier completes after half of the region's threads
# have arrived (and the rest run over into the next phase): the producer
# refills a stage the other half of the consumer is still reading.
# Fix (PR #183): init count = 8 * 32 = 256.
# Written in CAKE IR: a 1-warp TMA producer, one 8-warp consumer instance
# that reads each stage with generic loads (lm.copy to registers; the
# region's work is CUDA-core compute) and releases it with one
# arrive(count=256), the elected-thread form of 256 per-thread arrivals;
# a 2-slot ring with iter= and negative first-lap waits; fence.proxy.async
# before the release (a generic read of a TMA-filled stage).  Left out: the
# compute on the fragment and the output store.
# Broken form: fbtriton_ws_per_thread_release_init_count_128.cake.
# expect: pass
@cake.schedule(target="sm_90a")
def fbtriton_ws_per_thread_release_init_count_128_fixed(lm, X: LM.tma2d, n_tiles: LM.i32):
    pool = lm.smem(32768)
    xs   = pool.view(offset=0, shape=(128, 64), dtype=lm.f16, stages=2, swizzle="128B")
    frag = lm.regs(shape=(128, 64), dtype=lm.f16)

    producer = lm.role(warps=[8])
    consumer = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7])

    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumer], cons=[producer], init_count=256, pipeline=pipe)

    row0 = lm.block_idx(0) * 128

    with producer:
        for t in lm.range(0, n_tiles):
            lm.wait(empty, iter=t - 2)
            xs.tma_load(X, coords=(row0, t * 64), iter=t, barrier=full)

    with consumer:
        for t in lm.range(0, n_tiles):
            lm.wait(full, iter=t)
            lm.copy(frag, xs[t])
            lm.fence_proxy()
            lm.arrive(empty, iter=t, count=256)
