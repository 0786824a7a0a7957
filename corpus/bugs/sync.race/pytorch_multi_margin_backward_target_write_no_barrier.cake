# BUG (sync.race): pytorch/pytorch issue #158921, PR #158994 ("Is it
# necessary to add a __syncthreads in the MultiMarginLoss_backward_kernel";
# labelled "module: correctness (silent)").
# aten/src/ATen/native/cuda/MultiMarginLoss.cu MultiMarginLoss_backward_kernel,
# one block per sample k, thread i handles gradInput_k[i]:
#     for (i = threadIdx.x; i < dim; i += blockDim.x) {
#       ... gradInput_k[i] = h (or 0); buffer[threadIdx.x] -= h; }
#     __syncthreads();
#     if (threadIdx.x == 0) {  // sum buffer[]
#       ... gradInput_k[target_k] = gradInput_target_k; }
#     for (i = threadIdx.x; i < dim; i += blockDim.x)
#       gradInput_k[i] *= *gradOutput_k;
# Nothing orders thread 0's store of gradInput_k[target_k] before the
# read-modify-write of that element by the thread that owns column
# target_k: it may scale the old value (0) and store it after or over
# thread 0's sum, and the gradient of the target class is lost.  PR
# #158994 puts a __syncthreads() after thread 0's store
# (pytorch_multi_margin_backward_target_write_no_barrier_fixed.cake).
# Written in CAKE IR, scaled down: dim = 128, 128 threads as four one-warp
# instances (warp w owns columns 32 w .. 32 w + 31; __syncthreads() is a
# named barrier over them); buffer[] is one 32-float slot per warp; thread
# 0's store is warp 0's one-element store at column target_k, which is
# data (target[k]): modelled as column 37, in warp 1's columns.
# expect: sync.race
@cake.schedule(target="sm_80")
def multi_margin_backward(lm, GI: LM.gmem, GO: LM.gmem):
    pool = lm.smem(512)
    buf  = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)
    g    = lm.regs(shape=(1, 32), dtype=lm.f32)
    part = lm.regs(shape=(1, 32), dtype=lm.f32)
    tot  = lm.regs(shape=(1, 1), dtype=lm.f32)
    go   = lm.regs(shape=(1, 1), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()
        k = lm.block_idx(0)
        lm.fill(g, 0.0)
        lm.copy(GI, g, coords=(k, 32 * w))                 # gradInput_k[i] = h
        lm.copy(buf[w], g)                                 # buffer[threadIdx.x] -= h
        lm.sync(bar)
        if w == 0:
            lm.fill(tot, 0.0)
            for s in lm.range(0, 4):
                lm.copy(part, buf[s])
                lm.reduce(go, part, op="sum", axis=1)
                lm.binary(tot, tot, go, op="add")
            lm.copy(GI, tot, coords=(k, 37))           # gradInput_k[target_k] = ...  # expect-error: sync.race
        # BUG: no __syncthreads() here
        lm.copy(go, GO, coords=(0, 0))
        lm.copy(g, GI, coords=(k, 32 * w))                 # gradInput_k[i] *= *gradOutput_k  # expect-error: sync.race
        lm.binary(g, g, go, op="mul")
        lm.copy(GI, g, coords=(k, 32 * w))
