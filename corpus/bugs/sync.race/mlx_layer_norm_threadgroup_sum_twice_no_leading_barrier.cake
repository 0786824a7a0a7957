# BUG (sync.race): ml-explore/mlx PR #2340 ("Fix layernorm race condition",
# closes issue #2333).  mlx/backend/metal/kernels/layer_norm.metal reduces
# the mean and then the normalizer of a row through one helper on one
# threadgroup buffer:
#     threadgroup float local_buffer[SIMD_SIZE];
#     initialize_buffer(local_buffer, ...);           // simdgroup 0 zeroes, barrier
#     ... mean += thread_x[i] ...
#     threadgroup_sum(&mean, local_buffer, lane, simd_group_id);
#     ... normalizer += (x - mean)^2 ...
#     threadgroup_sum(&normalizer, local_buffer, lane, simd_group_id);
# where threadgroup_sum was (as the PR describes it; the stored text of
# the kernel is the fixed one, whose helper has one more barrier)
#     x = simd_sum(x);
#     if (simd_lane_id == 0) xs[simd_group_id] = x;
#     threadgroup_barrier(mem_flags::mem_threadgroup);
#     x = simd_sum(xs[simd_lane_id]);                 // every simdgroup reads all slots
# "There is a race in threadgroup_sum because we are doing two passes and
# using the same shared memory to accumulate in ... when we write the
# normalizer all threads must have finished reading the mean": a simdgroup
# that finished the mean stores its normalizer partial into xs[g] while a
# slower simdgroup still reads xs[g] for the mean.  The fix puts a
# threadgroup_barrier after the simd_sum, before lane 0's store, in the
# helper (so in both calls).
# Written in CAKE IR (the sync maps one to one: a simdgroup is a warp,
# threadgroup_barrier(mem_threadgroup) a bar.sync over the threadgroup):
# layer_norm_single_row with 128 threads = four one-simdgroup instances,
# N_READS = 8 (a simdgroup's 256 elements as one register fragment),
# local_buffer as one 32-float slot (simdgroup g's word the slice
# [0:1, g:g+1]); simd_sum as lm.reduce.  Left out: the weight and bias
# (w * x + b), the partial last row.
# Fix: mlx_layer_norm_threadgroup_sum_twice_no_leading_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def mlx_layer_norm_single_row(lm, X: LM.gmem, Out: LM.gmem):
    pool = lm.smem(128)
    buf  = pool.view(offset=0, shape=(1, 32), dtype=lm.f32)       # local_buffer[SIMD_SIZE]
    x    = lm.regs(shape=(1, 256), dtype=lm.f32)                  # thread_x[N_READS] of 32 lanes
    sq   = lm.regs(shape=(1, 256), dtype=lm.f32)
    zero = lm.regs(shape=(1, 32), dtype=lm.f32)
    part = lm.regs(shape=(1, 1), dtype=lm.f32)
    allw = lm.regs(shape=(1, 32), dtype=lm.f32)
    mean = lm.regs(shape=(1, 1), dtype=lm.f32)
    nrm  = lm.regs(shape=(1, 1), dtype=lm.f32)

    simd = lm.role(warps=[0, 1, 2, 3], group=1)
    tg   = lm.named_barrier(roles=[simd])

    with simd:
        g   = lm.instance()                                # simd_group_id
        row = lm.block_idx(0)                              # gid
        if g == 0:                                         # initialize_buffer
            lm.fill(zero, 0.0)
            lm.copy(buf[0], zero)
        lm.sync(tg)
        lm.copy(x, X, coords=(row, 256 * g))
        # threadgroup_sum(&mean)
        lm.reduce(part, x, op="sum", axis=1)               # mean += thread_x[i]; simd_sum
        lm.copy(buf[0][0:1, g:g + 1], part)                # lane 0: xs[simd_group_id] = x
        lm.sync(tg)
        lm.copy(allw, buf[0])                              # x = xs[simd_lane_id]     # expect-error: sync.race
        lm.reduce(mean, allw, op="sum", axis=1)            # simd_sum
        lm.binary(mean, mean, 0.0009765625, op="mul")      # mean /= axis_size (1024)
        # normalizer += (thread_x[i] - mean)^2
        lm.binary(x, x, mean, op="sub")
        lm.binary(sq, x, x, op="mul")
        # threadgroup_sum(&normalizer): no barrier before the store
        lm.reduce(part, sq, op="sum", axis=1)
        lm.copy(buf[0][0:1, g:g + 1], part)                                        # expect-error: sync.race
        lm.sync(tg)
        lm.copy(allw, buf[0])
        lm.reduce(nrm, allw, op="sum", axis=1)
        lm.binary(nrm, nrm, 0.0009765625, op="mul")
        lm.binary(nrm, nrm, 0.00001, op="add")             # + eps
        lm.unary(nrm, nrm, op="rsqrt")
        lm.binary(x, x, nrm, op="mul")
        lm.copy(Out, x, coords=(row, 256 * g))
