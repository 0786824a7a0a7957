# BUG (sync.race): vllm-project/vllm PR #13140 ("Add sync in moe_align kernel
# to prevent garbled inference results", 2025-02-12; DeepSeek R1 deployment:
# garbled text or no output, now and then).
# csrc/moe/moe_align_sum_kernels.cu, sgl_moe_align_block_size_kernel (ported
# from SGLang in vLLM PR #12850): each warp zeroes its row of the shared
# expert counters, then every thread counts its tokens into them:
#     __shared__ int32_t shared_counts[WARPS][experts_per_warp];
#     for (i < experts_per_warp) shared_counts[warp_id][i] = 0;
#     // (BUG) no __syncthreads() here
#     for (i in this thread's tokens) {
#         expert_id = topk_ids[i];
#         atomicAdd(&shared_counts[expert_id / experts_per_warp]
#                                 [expert_id % experts_per_warp], 1);
#     }
#     __syncthreads();
# A token of another warp's expert row can be counted before that warp has
# zeroed the row: the count is lost (or dirty shared memory survives), and
# the block layout derived from it is wrong.  The PR adds the barrier.
# Modelled: 128 threads = four one-warp instances, 8 experts per warp (row
# w of shared_counts is slot w, 8 ints), topk_ids loaded from global memory.
# The IR has no atomics: a warp's atomicAdds into a row are one
# read-modify-write of it, and the data-dependent expert of its tokens is
# modelled as the next warp's row ((w + 1) % 4), so each row has one
# counting warp (the atomics' mutual exclusion is not needed in the model).
# __syncthreads() a named barrier over the block.  Left out: the cumsum /
# block padding stage after the barrier (one read of the counts here).
# Fix: vllm_moe_align_shared_counts_zero_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def vllm_moe_align_shared_counts_zero_no_barrier(lm, TopkIds: LM.gmem, Counts: LM.gmem):
    pool   = lm.smem(256)
    counts = pool.view(offset=0, shape=(1, 8), dtype=lm.i32, stages=4)   # shared_counts[warp][8]
    zero   = lm.regs(shape=(1, 8), dtype=lm.i32)
    ids    = lm.regs(shape=(1, 8), dtype=lm.i32)
    c      = lm.regs(shape=(1, 8), dtype=lm.i32)
    tot    = lm.regs(shape=(1, 8), dtype=lm.i32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()                               # warp_id
        lm.fill(zero, 0)
        lm.copy(counts[w], zero)                        # shared_counts[warp_id][i] = 0    # expect-error: sync.race
        lm.copy(ids, TopkIds, coords=(0, 8 * w))        # this warp's tokens' experts
        lm.copy(c, counts[(w + 1) % 4])                 # atomicAdd(&shared_counts[...], 1) # expect-error: sync.race
        lm.binary(c, c, ids, op="add")
        lm.copy(counts[(w + 1) % 4], c)                                                     # expect-error: sync.race
        lm.sync(bar)
        if w == 0:                                      # the cumsum over the experts
            lm.copy(tot, counts[0])
            for e in lm.range(1, 4):
                lm.copy(c, counts[e])
                lm.binary(tot, tot, c, op="add")
            lm.copy(Counts, tot, coords=(0, 0))
