# BUG (sync.race): karpathy/llm.c PR #847 ("Fix data race between two writes
# on a shared memory in soft_max_autoregressive_backward_kernel",
# 2026-04-22).  The attention backward's softmax kernel (train_gpt2_fp32.cu
# softmax_autoregressive_backward_kernel; dev/cuda/attention_backward.cu
# kernel 7 has the same three sites) reduces sum(att * datt) of a row
# through __shared__ float block_acc[32]:
#     if (warp.meta_group_rank() == 0) block_acc[warp.thread_rank()] = 0;   // A
#     ... local_sum = sum over t2 of att[t2] * datt[t2] ...
#     block_acc[warp.meta_group_rank()] = cg::reduce(warp, local_sum, plus); // B
#     block.sync();
#     local_sum = cg::reduce(warp, block_acc[warp.thread_rank()], plus);    // C
# Nothing orders A before B: warp 1 can store its partial sum in
# block_acc[1] before warp 0 zeroes all 32 words, and warp 0's zero then
# wins, so C sums a wrong row total.  The PR adds a barrier between A and B.
# Modelled: one row (kernel 7; the T_per_block loop of the train_gpt2 kernel
# is left out), 128 threads = four one-warp instances (BlockSize 256 has
# eight; four show the same race), each thread one column of the row;
# block_acc as one 32-float tile, warp w's word the slice [0:1, w:w+1];
# cg::reduce as lm.reduce on registers; block.sync() a named barrier.
# Left out: the scale, the t2 <= t causal bound.
# Fix: llmc_softmax_autoregressive_bwd_block_acc_init_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def llmc_softmax_autoregressive_bwd_block_acc_init_no_barrier(lm, Att: LM.gmem, DAtt: LM.gmem,
                                                              DPreAtt: LM.gmem):
    pool  = lm.smem(256)
    acc   = pool.view(offset=0, shape=(1, 32), dtype=lm.f32)       # block_acc[32]
    zero  = lm.regs(shape=(1, 32), dtype=lm.f32)
    att   = lm.regs(shape=(1, 32), dtype=lm.f32)
    datt  = lm.regs(shape=(1, 32), dtype=lm.f32)
    prod  = lm.regs(shape=(1, 32), dtype=lm.f32)
    part  = lm.regs(shape=(1, 1), dtype=lm.f32)
    allw  = lm.regs(shape=(1, 32), dtype=lm.f32)
    total = lm.regs(shape=(1, 1), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()                               # warp.meta_group_rank()
        t = lm.block_idx(0)
        if w == 0:
            lm.fill(zero, 0.0)
            lm.copy(acc[0], zero)                       # A: block_acc[lane] = 0    # expect-error: sync.race
        lm.copy(att, Att, coords=(t, 32 * w))
        lm.copy(datt, DAtt, coords=(t, 32 * w))
        lm.binary(prod, att, datt, op="mul")
        lm.reduce(part, prod, op="sum", axis=1)         # cg::reduce(warp, local_sum)
        lm.copy(acc[0][0:1, w:w + 1], part)             # B: block_acc[warp] = ...  # expect-error: sync.race
        lm.sync(bar)                                    # block.sync()
        lm.copy(allw, acc[0])                           # C: block_acc[lane]
        lm.reduce(total, allw, op="sum", axis=1)
        lm.copy(DPreAtt, total, coords=(t, w))
