# FIXED: mlx_layer_norm_threadgroup_sum_twice_no_leading_barrier.cake as
# ml-explore/mlx PR #2340 fixes it (issue #2333): threadgroup_sum does
#     x = simd_sum(x);
#     threadgroup_barrier(mem_flags::mem_threadgroup);   // the fix
#     if (simd_lane_id == 0) xs[simd_group_id] = x;
#     threadgroup_barrier(mem_flags::mem_threadgroup);
#     x = simd_sum(xs[simd_lane_id]);
# so no simdgroup stores its normalizer partial before every simdgroup has
# read the mean's slots (the barrier is in the helper: both calls have it).
# expect: pass
@cake.schedule(target="sm_80")
def mlx_layer_norm_single_row_fixed(lm, X: LM.gmem, Out: LM.gmem):
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
        lm.sync(tg)                                        # the fix (no-op here: after init)
        lm.copy(buf[0][0:1, g:g + 1], part)                # lane 0: xs[simd_group_id] = x
        lm.sync(tg)
        lm.copy(allw, buf[0])                              # x = xs[simd_lane_id]
        lm.reduce(mean, allw, op="sum", axis=1)            # simd_sum
        lm.binary(mean, mean, 0.0009765625, op="mul")      # mean /= axis_size (1024)
        # normalizer += (thread_x[i] - mean)^2
        lm.binary(x, x, mean, op="sub")
        lm.binary(sq, x, x, op="mul")
        # threadgroup_sum(&normalizer)
        lm.reduce(part, sq, op="sum", axis=1)
        lm.sync(tg)                                        # the fix
        lm.copy(buf[0][0:1, g:g + 1], part)                                   
        lm.sync(tg)
        lm.copy(allw, buf[0])
        lm.reduce(nrm, allw, op="sum", axis=1)
        lm.binary(nrm, nrm, 0.0009765625, op="mul")
        lm.binary(nrm, nrm, 0.00001, op="add")             # + eps
        lm.unary(nrm, nrm, op="rsqrt")
        lm.binary(x, x, nrm, op="mul")
        lm.copy(Out, x, coords=(row, 256 * g))
