# FIXED form of fbgemm_mx4_quantize_early_return_before_syncthreads.cake
# (pytorch/FBGEMM PR #5857): no early return; the loads, the packing
# stores and the output write are masked with `active = linear_tid <
# total_elems`, and every warp of the block reaches both __syncthreads().
# expect: pass
@cake.schedule(target="sm_80")
def fbgemm_mx4_quantize_masked_fixed(lm, Input: LM.gmem, Output: LM.gmem, total_elems: LM.i32):
    lm.assume(total_elems >= 0)
    lm.assume(total_elems % 32 == 0)
    pool = lm.smem(256)
    row  = pool.view(offset=0, shape=(1, 16), dtype=lm.i8, stages=4)   # smem_base of each group
    ev   = lm.regs(shape=(1, 16), dtype=lm.f32)                   # the even threads' elements
    od   = lm.regs(shape=(1, 16), dtype=lm.f32)                   # the odd threads' elements
    q    = lm.regs(shape=(1, 16), dtype=lm.i8)
    lo   = lm.regs(shape=(1, 16), dtype=lm.i8)

    groups = lm.role(warps=[0, 1, 2, 3], group=1)
    block  = lm.named_barrier(roles=[groups])

    with groups:
        g = lm.instance()                                       # threadIdx.y
        linear_group_id = 4 * lm.block_idx(0) + g
        active = 32 * linear_group_id < total_elems
        if active:
            lm.copy(ev, Input, coords=(0, 32 * linear_group_id))
            lm.copy(od, Input, coords=(0, 32 * linear_group_id + 16))
            lm.binary(ev, ev, 0.25, op="mul")                   # scale by the shared exponent
            lm.binary(od, od, 0.25, op="mul")
            lm.copy(q, ev)                                      # quantize_elemwise_mx4
            lm.copy(row[g], q)                                  # even threads: high nibble
        lm.sync(block)
        if active:
            lm.copy(q, row[g])
            lm.copy(lo, od)
            lm.binary(q, q, lo, op="add")
            lm.copy(row[g], q)                                  # odd threads: |= low nibble
        lm.sync(block)
        if active:
            lm.copy(q, row[g])
            lm.copy(Output, q, coords=(0, 17 * linear_group_id))
