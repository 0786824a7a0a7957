# BUG (sync.race): pytorch/pytorch PR #187687 ("fix: aten embed bwd thread
# sync before proceeding to next batch", 2026-06-18).
# aten/src/ATen/native/cuda/Embedding.cu, embedding_backward_feature_kernel
# (the dense embedding backward fast path; blockDim = (32, BLOCKDIMY), one
# warp per threadIdx.y):
#     for (batch_start = 0; batch_start < n; batch_start += blockDim.x*blockDim.y) {
#       if (batch_start + tid < n) indices_batch[tid] = indices[batch_start + tid];
#       for (chunk_start = batch_start; chunk_start < batch_end; chunk_start += blockDim.y) {
#         __syncthreads();
#         dst_row = indices_batch[src_row - batch_start];      // this warp's row
#         my_s[threadIdx.x] = grad[src_row*stride + f];
#         __syncthreads();
#         match = dst_row == indices_batch[chunk_start - batch_start + threadIdx.x];
#         ... the leader warp of each match group adds its peers' smem rows
#       }
#       // (BUG) no __syncthreads(): the next batch's load overwrites
#       // indices_batch while slower warps still read it in the match test
#     }
# The barrier at the top of each chunk only orders the chunks of one batch.
# Modelled: blockDim (32, 4) - four one-warp instances, a batch of 128
# indices (indices_batch as four 32-entry slots, slot w loaded by warp w),
# chunks of 4 rows; the 32 chunks of a batch shortened to 4, one per slot
# (chunk c's rows in slot c: the race is the last chunk's reads against the
# next batch's load, whatever the chunk count);
# `n` a parameter in whole batches (n_batches); __syncthreads() a named
# barrier over the four warps.  The leader is data-dependent (the lowest
# warp whose dst_row matches); modelled is the all-rows-match case: warp 0
# leads and adds the three peer rows of `smem`.  Left out: padding_idx, the
# f < s bound, the grad_weight read-modify-write in global memory.
# Fix: the _fixed file beside this one. Each warp reads indices_batch[c]
# twice per chunk, across a barrier: the second read means the same batch
# as the first (docs/rules/data.stale-read.md "A slot read twice per round").
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def pytorch_embedding_bwd_feature_indices_batch_reload(lm, Indices: LM.gmem, Grad: LM.gmem,
                                                       GradWeight: LM.gmem, n_batches: LM.i32):
    lm.assume(n_batches >= 1)
    pool  = lm.smem(1024)
    smem  = pool.view(offset=0,   shape=(1, 32), dtype=lm.f32, stages=4)   # my_s rows
    ibat  = pool.view(offset=512, shape=(1, 32), dtype=lm.i32, stages=4)   # indices_batch
    idx   = lm.regs(shape=(1, 32), dtype=lm.i32)
    peer  = lm.regs(shape=(1, 32), dtype=lm.i32)
    g     = lm.regs(shape=(1, 32), dtype=lm.f32)
    other = lm.regs(shape=(1, 32), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()                                # threadIdx.y
        for b in lm.range(0, n_batches):
            lm.copy(idx, Indices, coords=(b, 32 * w))
            lm.copy(ibat[w], idx)                        # indices_batch[tid] = ...    # expect-error: sync.race
            for c in lm.range(0, 4):
                lm.sync(bar)
                lm.copy(peer, ibat[c])              # dst_row = indices_batch[src_row - batch_start]
                lm.copy(g, Grad, coords=(128 * b + 32 * c + w, 0))
                lm.copy(smem[w], g)                      # my_s[threadIdx.x] = grad[...]
                lm.sync(bar)
                lm.copy(peer, ibat[c])              # the match test    # expect-error: sync.race
                if w == 0:                               # the group's leader
                    for p in lm.range(1, 4):
                        lm.copy(other, smem[p])
                        lm.binary(g, g, other, op="add")
                    lm.copy(GradWeight, g, coords=(128 * b + 32 * c, 0))
