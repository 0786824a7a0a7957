# BUG (sync.race): ikawrakow/ik_llama.cpp issue #2139 ("CUDA: missing
# block synchronization in k_indexer_mask"), PR #2148 ("Fix race in indexer
# topk on CUDA").  ggml/src/ggml-cuda/indexer_topk.cu k_indexer_mask, one
# block of 256 threads per output row, three passes over the same global
# row d[]:
#     for (j = threadIdx.x; j < ne0;   j += blockDim.x) d[j] = inf;     // fill -inf
#     for (j = threadIdx.x; j < ntopk; j += blockDim.x) d[i[j]] = zero; // scatter 0 at top-k
#     for (j = threadIdx.x; j < ne0;   j += blockDim.x) d[j] += m[j];   // add the base mask
# with no block barrier between them: the top-k index i[j] lands in a
# column another thread fills and updates, so that thread's fill can land
# after the 0 and its `+=` can read d[i[j]] before the 0 lands and store
# over it; a selected key stays masked at -inf.  PR #2148 puts a
# __syncthreads() after each of the first two passes
# (ik_llama_indexer_mask_passes_no_barrier_fixed.cake).
# Written in CAKE IR, scaled down: ne0 = 512, 128 threads as four one-warp
# instances (warp w's stripes: columns 128 s + 32 w .. 128 s + 32 w + 31);
# the top-k indices are data: warp w's scatter is modelled as one element
# in the next warp's first stripe.  cake reports the scatter against the
# `+=` pass (a store and a load of one element); the fill against the
# scatter is two stores, which cake does not report (docs/semantics.md
# "Global memory").
# expect: sync.race
@cake.schedule(target="sm_80")
def k_indexer_mask(lm, D: LM.gmem, Mk: LM.gmem):
    ninf = lm.regs(shape=(1, 32), dtype=lm.f32)
    zero = lm.regs(shape=(1, 1), dtype=lm.f32)
    dv   = lm.regs(shape=(1, 32), dtype=lm.f32)
    mv   = lm.regs(shape=(1, 32), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)

    with block:
        w = lm.instance()
        row = lm.block_idx(0)
        lm.fill(ninf, -1.0e30)
        for s in lm.range(0, 4):
            lm.copy(D, ninf, coords=(row, 128 * s + 32 * w))        # d[j] = -inf
        # BUG: no __syncthreads() here
        lm.fill(zero, 0.0)
        lm.copy(D, zero, coords=(row, 32 * ((w + 1) % 4) + 7))    # d[i[j]] = 0  # expect-error: sync.race
        # BUG: no __syncthreads() here
        for s in lm.range(0, 4):
            lm.copy(dv, D, coords=(row, 128 * s + 32 * w))          # d[j] += m[j]  # expect-error: sync.race
            lm.copy(mv, Mk, coords=(row, 128 * s + 32 * w))
            lm.binary(dv, dv, mv, op="add")
            lm.copy(D, dv, coords=(row, 128 * s + 32 * w))
