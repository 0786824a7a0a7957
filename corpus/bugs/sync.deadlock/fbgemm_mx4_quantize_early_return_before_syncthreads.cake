# BUG (sync.deadlock): pytorch/FBGEMM PR #5857 ("Fix ROCm __syncthreads
# deadlock in quantize_float_to_mx4_kernel", 2026-06-09).
# quantize_float_to_mx4_kernel (fbgemm_gpu/src/quantize_ops/quantize_mx.cuh)
# runs several MX4 groups per block (blockDim = (group_size,
# num_groups_per_block), threadIdx.y the group) and began with
#     const auto linear_group_id = blockIdx.x * blockDim.y + threadIdx.y;
#     const auto linear_tid = linear_group_id * group_size + threadIdx.x;
#     if (linear_tid >= total_elems) return;
# before the block-wide __syncthreads() calls that order the packing of
# two 4-bit values into one byte of the group's shared-memory row (even
# threads store the high nibble, __syncthreads(), odd threads OR in the low
# nibble, __syncthreads(), the first half of the group writes the bytes).
# The grid is div_round_up(total_num_groups, num_groups_per_block) blocks,
# so when total_num_groups is not a multiple of num_groups_per_block the
# last block holds whole trailing groups whose threads all return at once
# while the active groups wait at __syncthreads() for them: a deadlock on
# ROCm (undefined behaviour on NVIDIA).  The fix removes the early return
# and masks the per-thread work with `active = linear_tid < total_elems`,
# so every thread reaches every barrier.
# Modelled: group_size 32 (one warp per group, has_multiple_warps_in_group
# false: the two packing barriers are the kernel's __syncthreads()), 4
# groups per block, each warp a one-warp instance, __syncthreads() a named
# barrier over the block; total_elems a parameter in elements (a multiple
# of 32: whole groups, as the PR describes the trailing ones); the group's
# shared-memory row as one 16-byte slot per group; the even and the odd
# threads' elements as two 16-element fragments, the shared exponent and
# the quantization as lm.binary and a converting lm.copy on registers, the
# nibble OR as an add.  Left out: the nibble
# arithmetic (per-lane), the multi-warp-group path (its two extra
# barriers behave alike).
# Fix: fbgemm_mx4_quantize_early_return_before_syncthreads_fixed.cake.
# expect: sync.deadlock
@cake.schedule(target="sm_80")
def fbgemm_mx4_quantize_early_return_before_syncthreads(lm, Input: LM.gmem, Output: LM.gmem,
                                                        total_elems: LM.i32):
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
        if 32 * linear_group_id < total_elems:                  # BUG: else return
            lm.copy(ev, Input, coords=(0, 32 * linear_group_id))
            lm.copy(od, Input, coords=(0, 32 * linear_group_id + 16))
            lm.binary(ev, ev, 0.25, op="mul")                   # scale by the shared exponent
            lm.binary(od, od, 0.25, op="mul")
            lm.copy(q, ev)                                      # quantize_elemwise_mx4
            lm.copy(row[g], q)                                  # even threads: high nibble
            lm.sync(block)                                                    # expect-error: sync.deadlock
            lm.copy(q, row[g])
            lm.copy(lo, od)
            lm.binary(q, q, lo, op="add")
            lm.copy(row[g], q)                                  # odd threads: |= low nibble
            lm.sync(block)                                                    # expect-error: sync.deadlock
            lm.copy(q, row[g])
            lm.copy(Output, q, coords=(0, 17 * linear_group_id))
