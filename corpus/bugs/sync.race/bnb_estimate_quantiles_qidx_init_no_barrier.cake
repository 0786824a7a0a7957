# BUG (sync.race): bitsandbytes-foundation/bitsandbytes PR #1061 ("Fix race
# condition in kEstimateQuantiles": "needs additional synchronization
# step"; wrong quantiles on ROCm).  csrc/kernels.cu kEstimateQuantiles keeps
# its shared memory in one union (cub BlockLoad / BlockRadixSort temp
# storage and int smem_qidx[BLOCK_ESTIMATE]); per block of 4096 values:
#     __syncthreads(); LoadFloat(temp_storage.loadf).Load(...);
#     __syncthreads(); BlockRadixSort(temp_storage.sort).SortBlockedToStriped(vals);
#     __syncthreads();
#     for (j = threadIdx.x; j < BLOCK_ESTIMATE; j += blockDim.x) smem_qidx[j] = -1;
#     if (threadIdx.x < 256) { local_idx = round((offset + tid*q_interval)*(valid_items-1));
#                              smem_qidx[local_idx] = threadIdx.x; }
#     __syncthreads();
#     for (i = threadIdx.x; i < BLOCK_ESTIMATE; i += blockDim.x)
#       if (smem_qidx[i] != -1) atomicAdd(&code[smem_qidx[i]], vals[i/THREADS_ESTIMATE]);
# Nothing orders one warp's `smem_qidx[j] = -1` after another warp's
# `smem_qidx[local_idx] = threadIdx.x`: local_idx ~ 16 * tid lands in the
# stripes every other warp resets, so a lagging warp's -1 can overwrite a
# quantile index (write-after-write), and that quantile is lost.  The fix
# puts a __syncthreads() between the reset loop and the index writes
# (bnb_estimate_quantiles_qidx_init_no_barrier_fixed.cake).
# Written in CAKE IR, scaled down: 128 threads (4 one-warp instances;
# __syncthreads() is a named barrier over them), a block of 512 values,
# smem_qidx as 16 slots of 32 ints (warp w's reset stripes are slots
# w, w + 4, w + 8, w + 12), the threads tid < 64 (warps 0 and 1) write the
# indices: thread t's local_idx = 8 t lies in slot t / 4, so warp w writes
# into slots 8 w .. 8 w + 7 (modelled as writes of those whole slots).
# The radix sort's exchange is one cross-warp write/read of a scratch view
# aliasing smem_qidx (the union); the load transpose is warp-local, left out.
# The atomicAdd to code[] is a global store of the slot read.
# expect: sync.race
@cake.schedule(target="sm_80")
def bnb_estimate_quantiles_qidx_init_no_barrier(lm, A: LM.gmem, Code: LM.gmem, n_iters: LM.i32):
    lm.assume(n_iters >= 1)
    pool = lm.smem(2048)
    qidx = pool.view(offset=0, shape=(1, 32), dtype=lm.i32, stages=16)
    keys = pool.view(offset=0, shape=(1, 128), dtype=lm.f32, stages=4)    # BlockRadixSort temp storage
    vals = lm.regs(shape=(1, 128), dtype=lm.f32)
    part = lm.regs(shape=(1, 32), dtype=lm.f32)
    neg  = lm.regs(shape=(1, 32), dtype=lm.i32)
    qv   = lm.regs(shape=(1, 32), dtype=lm.i32)
    rq   = lm.regs(shape=(1, 32), dtype=lm.i32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()
        for it in lm.range(0, n_iters):
            row = lm.block_idx(0) + it * lm.grid_dim(0)
            lm.sync(bar)
            lm.copy(vals, A, coords=(row, 128 * w))            # LoadFloat
            lm.sync(bar)
            lm.copy(keys[w], vals)                             # SortBlockedToStriped: exchange
            lm.sync(bar)
            for s in lm.range(0, 4):
                lm.copy(part, keys[s][:, 32 * w:32 * w + 32])
            lm.sync(bar)
            lm.fill(neg, -1)
            for s in lm.range(w, 16, 4):
                lm.copy(qidx[s], neg)                          # smem_qidx[j] = -1        # expect-error: sync.race
            # BUG: no __syncthreads() here
            if w < 2:
                lm.fill(qv, 1)
                for s in lm.range(8 * w, 8 * w + 8):
                    lm.copy(qidx[s], qv)                       # smem_qidx[local_idx] = tid  # expect-error: sync.race
            lm.sync(bar)
            for s in lm.range(w, 16, 4):
                lm.copy(rq, qidx[s])
                lm.copy(Code, rq, coords=(row, 32 * s))        # atomicAdd(&code[...], ...)
