# FIXED: popsift_excl_blk_prefix_sum_loop_total_update_no_barrier.cake as
# alicevision/popsift PR #82 fixes it (src/popsift/common/
# excl_blk_prefix_sum.h, the stored later text):
#             }
#             // Wait to update loop_total until everyone is done.
#             __syncthreads();
#             if( threadIdx.y == 0 && threadIdx.x == 31 ) {
#                 loop_total += ibs;
#             }
#             __syncthreads();
# every warp has read this chunk's loop_total before warp 0 adds the
# chunk's total, and the barrier after the update orders it before the
# next chunk's reads and the final _total_writer.set(loop_total).
# expect: pass
@cake.schedule(target="sm_80")
def popsift_excl_blk_prefix_sum_fixed(lm, Reader: LM.gmem, Writer: LM.gmem, Total: LM.gmem,
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
            lm.copy(base, loop_total[c])                            # ebs = loop_total + ...
            lm.copy(mine, sums[c][0:1, w:w + 1])                    # ... + sum[threadIdx.y] + ews
            lm.copy(Writer, base, coords=(c, w))                    # _writer.set(cell, ebs)
            lm.copy(Writer, mine, coords=(c, 4 + w))                # _mapping_writer.set(ebs, self, cell)
            lm.sync(block)                                          # Wait to update loop_total ...
            if w == 0:
                lm.copy(base, loop_total[c])                        # lane 31: loop_total += ibs
                lm.binary(base, base, ibs, op="add")
                lm.copy(loop_total[c + 1], base)
            lm.sync(block)
        lm.copy(base, loop_total[chunks])                           # _total_writer.set(loop_total)
        if w == 0:
            lm.copy(Total, base, coords=(0, 0))
