# PyTorch softmax forward with the row cached in shared memory
# (pytorch/pytorch, aten/src/ATen/native/cuda/SoftMax.cu,
# cunn_SoftMaxForwardSmem with blockReduceWarp over
# cuda_utils::BlockReduce, aten/src/ATen/native/cuda/block_reduce.cuh):
# one CTA per row, 128 threads = 4 warps, ILP-wide vector loads.
#  * the row goes into smem_input_cache while the thread max is taken
#    (thread t owns vectors t, t + 128, ...: warp w its quarter of each
#    round, written and read back by itself only);
#  * blockReduceWarp(max): BlockReduce's leading __syncthreads ("prevent
#    races when BlockReduces are called in a row"), lane 0 of each warp
#    stores shared[w], __syncthreads, warp 0 reads the four and reduces,
#    thread 0 stores the result over shared[0] (smem_cache[0]),
#    __syncthreads, every thread reads smem_cache[0];
#  * the exp-sum over the cached row, then blockReduceWarp(sum) on the SAME
#    smem_reduction_cache: its leading barrier is what keeps warp 0's store
#    of its sum partial into shared[0] after every warp's read of the max in
#    smem_cache[0];
#  * the epilogue rereads the cached row and stores the output.
# n_vec is the row's rounds of 128 vectors (classes / (128 * ILP)); the
# cache takes at most 8 rounds here (max_smem_per_block in the kernel).
# Bug twin: corpus/bugs/sync.race/pytorch_softmax_block_reduce_in_a_row_no_leading_sync.cake.
# expect: pass
@cake.schedule(target="sm_80")
def softmax_fwd_smem(lm, X: LM.gmem, Y: LM.gmem, n_vec: LM.i32):
    lm.assume(n_vec >= 1)
    lm.assume(n_vec <= 8)
    pool  = lm.smem(32784)
    cache = pool.view(offset=0,     shape=(1, 256), dtype=lm.bf16, stages=32)  # smem_input_cache: round c, warp w
    red   = pool.view(offset=32768, shape=(1, 1),   dtype=lm.f32,  stages=4)   # smem_reduction_cache[warp]
    x     = lm.regs(shape=(1, 256), dtype=lm.bf16)
    xf    = lm.regs(shape=(1, 256), dtype=lm.f32)
    part  = lm.regs(shape=(1, 1),   dtype=lm.f32)
    oth   = lm.regs(shape=(1, 1),   dtype=lm.f32)
    mx    = lm.regs(shape=(1, 1),   dtype=lm.f32)
    sm    = lm.regs(shape=(1, 1),   dtype=lm.f32)
    y     = lm.regs(shape=(1, 256), dtype=lm.bf16)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    row = lm.block_idx(0)

    with warps:
        w = lm.instance()
        lm.fill(part, -1.0e30)
        for c in lm.range(0, n_vec):
            lm.copy(x, X, coords=(row, 1024 * c + 256 * w))
            lm.copy(cache[4 * c + w], x)
            lm.copy(xf, x)
            lm.reduce(oth, xf, op="max", axis=1)
            lm.binary(part, part, oth, op="max")
        lm.sync(block)                                  # BlockReduce: called in a row
        lm.copy(red[w], part)                           # lane 0: shared[wid]
        lm.sync(block)
        if w == 0:
            lm.copy(mx, red[0])
            for i in lm.range(1, 4):
                lm.copy(oth, red[i])
                lm.binary(mx, mx, oth, op="max")
            lm.copy(red[0], mx)                         # thread 0: smem_cache[0] = result
        lm.sync(block)
        lm.copy(mx, red[0])                             # max_k
        lm.fill(part, 0.0)
        for c in lm.range(0, n_vec):
            lm.copy(x, cache[4 * c + w])
            lm.copy(xf, x)
            lm.binary(xf, xf, mx, op="sub")
            lm.unary(xf, xf, op="exp2")
            lm.reduce(oth, xf, op="sum", axis=1)
            lm.binary(part, part, oth, op="add")
        lm.sync(block)                                  # BlockReduce: called in a row
        lm.copy(red[w], part)
        lm.sync(block)
        if w == 0:
            lm.copy(sm, red[0])
            for i in lm.range(1, 4):
                lm.copy(oth, red[i])
                lm.binary(sm, sm, oth, op="add")
            lm.copy(red[0], sm)
        lm.sync(block)
        lm.copy(sm, red[0])                             # sumAll
        lm.unary(sm, sm, op="recip")
        for c in lm.range(0, n_vec):
            lm.copy(x, cache[4 * c + w])
            lm.copy(xf, x)
            lm.binary(xf, xf, mx, op="sub")
            lm.unary(xf, xf, op="exp2")
            lm.binary(xf, xf, sm, op="mul")
            lm.copy(y, xf)
            lm.copy(Y, y, coords=(row, 1024 * c + 256 * w))
