# BUG (sync.race): alicevision/popsift PR #82 ("Resolve race conditions
# identified by racecheck.", merged 2020-04): src/popsift/common/
# excl_blk_prefix_sum.h, ExclusivePrefixSum::Block::sum() (block (32,32),
# grid (1,1,1)) scans the input chunk by chunk, 1024 cells a chunk, and
# carries the running total in `__shared__ int loop_total`:
#     for (int x = start; x < end; x += wrap) {
#         __syncthreads();
#         ... warp scan (shuffles); lane 31: sum[threadIdx.y] = ews + self;
#         __syncthreads();
#         if (threadIdx.y == 0) { self = sum[threadIdx.x]; ... scan ...;
#                                 sum[threadIdx.x] = ebs; ibs = ebs + self; }
#         __syncthreads();
#         if (valid) {
#             const int ebs = loop_total + sum[threadIdx.y] + ews;
#             _writer.set(cell, ebs); _mapping_writer.set(ebs, self, cell);
#         }
#         if (threadIdx.y == 0 && threadIdx.x == 31) loop_total += ibs;
#         __syncthreads();
#     }
# Nothing orders the other warps' reads of loop_total before warp 0's
# lane 31 adds this chunk's total to it: a slow warp offsets its cells by
# the next chunk's base.  The PR: "Wait to update loop_total until
# everyone is done." - a __syncthreads() before the update (the review
# kept the one after it: "Please don't drop this one, either").
# Fix: popsift_excl_blk_prefix_sum_loop_total_update_no_barrier_fixed.cake.
# Written in CAKE IR: the 32 warps cut to four one-warp instances (warp
# 0, which updates loop_total, and three readers), __syncthreads() a named
# barrier over them; sum[32] as one 4-word slot per chunk (warp w's word
# [0:1, w:w+1]), loop_total as a one-word slot named by the chunk whose
# base it holds (written loop_total[c + 1] by chunk c's update, read
# loop_total[c] by chunk c); the shuffle scans as lm.reduce on registers;
# _writer and _mapping_writer as global stores.  Left out: the `valid`
# guard (cell < _num, per thread: every chunk but the last is full) and
# the code after the loop that the PR also rewrote (a shuffle of
# loop_total whose old text the stored diff cuts off; the model ends with
# the fixed text's _total_writer.set(loop_total)).
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def popsift_excl_blk_prefix_sum(lm, Reader: LM.gmem, Writer: LM.gmem, Total: LM.gmem,
                                chunks: LM.i32):
    lm.assume(chunks >= 1)
    pool       = lm.smem(32)
    sums       = pool.view(offset=0,  shape=(1, 4), dtype=lm.i32)   # __shared__ int sum[32]
    loop_total = pool.view(offset=16, shape=(1, 1), dtype=lm.i32)   # __shared__ int loop_total
    cells      = lm.regs(shape=(1, 32), dtype=lm.i32)
    ews        = lm.regs(shape=(1, 1), dtype=lm.i32)
    allw       = lm.regs(shape=(1, 4), dtype=lm.i32)
    ibs        = lm.regs(shape=(1, 1), dtype=lm.i32)
    mine       = lm.regs(shape=(1, 1), dtype=lm.i32)
    base       = lm.regs(shape=(1, 1), dtype=lm.i32)
    zero       = lm.regs(shape=(1, 1), dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()                                           # threadIdx.y
        if w == 0:
            lm.fill(zero, 0)
            lm.copy(loop_total[0], zero)                            # loop_total = 0
        lm.sync(block)
        for c in lm.range(0, chunks):
            lm.sync(block)
            lm.copy(cells, Reader, coords=(0, 128 * c + 32 * w))    # self = _reader.get(cell)
            lm.reduce(ews, cells, op="sum", axis=1)                 # warp prefix sum (shuffles)
            lm.copy(sums[c][0:1, w:w + 1], ews)                     # lane 31: sum[threadIdx.y] = ...
            lm.sync(block)
            if w == 0:
                lm.copy(allw, sums[c])                              # self = sum[threadIdx.x]
                lm.reduce(ibs, allw, op="sum", axis=1)              # block scan, ibs = ebs + self
                lm.copy(sums[c], allw)                              # sum[threadIdx.x] = ebs
            lm.sync(block)
            lm.copy(base, loop_total[c])                            # ebs = loop_total + ...             # expect-error: sync.race
            lm.copy(mine, sums[c][0:1, w:w + 1])                    # ... + sum[threadIdx.y] + ews
            lm.copy(Writer, base, coords=(c, w))                    # _writer.set(cell, ebs)
            lm.copy(Writer, mine, coords=(c, 4 + w))                # _mapping_writer.set(ebs, self, cell)
            # BUG: no __syncthreads() before the update
            if w == 0:
                lm.copy(base, loop_total[c])                        # lane 31: loop_total += ibs
                lm.binary(base, base, ibs, op="add")
                lm.copy(loop_total[c + 1], base)                                                         # expect-error: sync.race
            lm.sync(block)
        lm.copy(base, loop_total[chunks])                           # _total_writer.set(loop_total)
        if w == 0:
            lm.copy(Total, base, coords=(0, 0))
