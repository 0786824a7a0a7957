# BUG (sync.race): pytorch/pytorch PR #27634 ("Add fused layer norm impl on
# CUDA in PyTorch", 2019-10; caught in review by ngimel and fixed in the PR
# before it landed in aten/src/ATen/native/cuda/layer_norm_kernel.cu).  The
# first version of RowwiseMomentsCUDAKernel computed the row's sum and sum
# of squares with two calls of
#     template <typename T> __device__ T BlockReduceSum(T val) {
#       __shared__ T shared[C10_WARP_SIZE];
#       val = WarpReduceSum(val);
#       if (lid == 0) shared[wid] = val;
#       __syncthreads();
#       val = (threadIdx.x < blockDim.x / C10_WARP_SIZE) ? shared[lid] : 0;
#       if (wid == 0) val = WarpReduceSum(val);
#       return val;
#     }
#     sum1 = BlockReduceSum<T_ACC>(sum1);
#     sum2 = BlockReduceSum<T_ACC>(sum2);
# and both calls of the same instantiation use the same static shared
# array: "you need another __syncthreads here for 2 BlockReduceSum's called
# one after another, otherwise it's a race condition".  Warps 1..3 leave the
# first call right after its barrier and store their sum-of-squares partials
# into shared[wid] while warp 0 still reads shared[lid] for the sum.  The
# fix passes a separate shared buffer to each call (m_shared, v_shared).
# Modelled: one row per block, 128 threads = four one-warp instances, one
# element per thread per column block of 32; shared[] as a 1x4 f32 tile
# (warp w's word [0:1, w:w+1]); the final warp-0 reduction and thread 0's
# stores of mean and rstd as warp 0's ops; __syncthreads() a named barrier
# over the block.  Left out: eps, the row loop over column blocks.
# Fix: pytorch_layer_norm_moments_two_block_reduces_one_shared_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def pytorch_layer_norm_moments_two_block_reduces_one_shared(lm, X: LM.gmem, Mean: LM.gmem,
                                                            Rstd: LM.gmem):
    pool   = lm.smem(256)
    shared = pool.view(offset=0, shape=(1, 4), dtype=lm.f32)       # BlockReduceSum's shared[]
    x      = lm.regs(shape=(1, 32), dtype=lm.f32)
    sq     = lm.regs(shape=(1, 32), dtype=lm.f32)
    part   = lm.regs(shape=(1, 1), dtype=lm.f32)
    allw   = lm.regs(shape=(1, 4), dtype=lm.f32)
    s1     = lm.regs(shape=(1, 1), dtype=lm.f32)
    s2     = lm.regs(shape=(1, 1), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w   = lm.instance()
        row = lm.block_idx(0)
        lm.copy(x, X, coords=(row, 32 * w))
        lm.binary(sq, x, x, op="mul")
        # sum1 = BlockReduceSum(sum1)
        lm.reduce(part, x, op="sum", axis=1)                # WarpReduceSum
        lm.copy(shared[0][0:1, w:w + 1], part)              # shared[wid] = val
        lm.sync(bar)
        if w == 0:
            lm.copy(allw, shared[0])                        # val = shared[lid]     # expect-error: sync.race
            lm.reduce(s1, allw, op="sum", axis=1)
        # sum2 = BlockReduceSum(sum2): the same shared[], no barrier before it
        lm.reduce(part, sq, op="sum", axis=1)
        lm.copy(shared[0][0:1, w:w + 1], part)                                      # expect-error: sync.race
        lm.sync(bar)
        if w == 0:
            lm.copy(allw, shared[0])
            lm.reduce(s2, allw, op="sum", axis=1)
            lm.binary(s1, s1, 0.0078125, op="mul")          # mean = sum1 / N
            lm.binary(s2, s2, 0.0078125, op="mul")
            lm.copy(Mean, s1, coords=(row, 0))
            lm.copy(Rstd, s2, coords=(row, 0))
