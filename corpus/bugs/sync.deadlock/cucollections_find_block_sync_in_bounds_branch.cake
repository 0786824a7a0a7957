# BUG (sync.deadlock): NVIDIA/cuCollections PR #522 ("Fix potential sync
# failure in find kernel"): the open-addressing find kernel
# (include/cuco/detail/open_addressing/kernels.cuh, and the static_map /
# static_set copies) stages each result in shared memory and writes it
# back after a block-wide barrier, to keep ld.relaxed.gpu from flushing L1:
#     while (idx - thread_idx < n) {   // the whole block iterates together
#       if (idx < n) {
#         found = ref.find(*(first + idx));
#         output_buffer[thread_idx] = found == ref.end() ? sentinel : *found;
#         block.sync();
#         *(output_begin + idx) = output_buffer[thread_idx];
#       }
#       idx += loop_stride;
#     }
# block.sync() (__syncthreads) sits inside `if (idx < n)`: in the last
# iteration of the block that holds the tail of the input, the threads past
# n skip it and the others wait for a barrier the whole block never
# reaches ("not all threads in the block can take this code path").  The
# fix moves the sync out of the branch.
# Modelled: CGSize 1, a 128-thread block of 4 warps (one-warp instances;
# block.sync() is a named barrier over all of them), block b of the grid
# cuco::detail::grid_size(n) launches (one block per 128 keys at the
# default stride, so each block's grid-stride loop runs at most once: the
# `while` is an `if`), n a multiple of 32 so the branch is uniform in
# each warp (a tail inside a warp also diverges within the warp, which the
# IR cannot say).  Left out: the hash-table probe (a load of the key stands
# for ref.find), the CGSize > 1 path (no barrier).
# Fix: cucollections_find_block_sync_in_bounds_branch_fixed.cake.
# expect: sync.deadlock
@cake.schedule(target="sm_80")
def cucollections_find_block_sync_in_bounds_branch(lm, Keys: LM.gmem, Out: LM.gmem, n: LM.i32):
    lm.assume(n >= 0)
    lm.assume(n % 32 == 0)
    pool   = lm.smem(512)
    outbuf = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)   # output_buffer
    found  = lm.regs(shape=(1, 32), dtype=lm.f32)
    res    = lm.regs(shape=(1, 32), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bsync = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()
        b = lm.block_idx(0)
        if 128 * b < n:                                     # while (idx - thread_idx < n): once
            idx = 128 * b + 32 * w
            if idx < n:
                lm.copy(found, Keys, coords=(0, idx))       # ref.find(key)
                lm.copy(outbuf[w], found)                   # output_buffer[thread_idx] = ...
                # block.sync() inside the branch
                lm.sync(bsync)                                            # expect-error: sync.deadlock
                lm.copy(res, outbuf[w])
                lm.copy(Out, res, coords=(0, idx))          # *(output_begin + idx) = ...
