# FIXED form of kokkos_inter_warp_reduction_repeated_no_barrier.cake
# (kokkos/kokkos PR #5540): cuda_inter_warp_reduction ends with a
# __syncthreads(), so every warp has read result[0..3] before any warp of
# the next team reduction writes result[id].
# expect: pass
@cake.schedule(target="sm_80")
def kokkos_inter_warp_reduction_repeated_fixed(lm, Val: LM.gmem, Out: LM.gmem,
                                                 n_calls: LM.i32):
    lm.assume(n_calls >= 1)
    pool   = lm.smem(512)
    result = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)
    value  = lm.regs(shape=(1, 32), dtype=lm.f32)
    joined = lm.regs(shape=(1, 32), dtype=lm.f32)
    other  = lm.regs(shape=(1, 32), dtype=lm.f32)

    team = lm.role(warps=[0, 1, 2, 3, 4], group=1)
    bar  = lm.named_barrier(roles=[team])

    with team:
        w = lm.instance()
        for c in lm.range(0, n_calls):
            lm.copy(value, Val, coords=(c, 32 * w))     # this warp's partial
            if w < 4:
                lm.copy(result[w + 4 * c], value)       # result[id] = value
            lm.sync(bar)
            if w == 4:                                  # shift = 4
                lm.copy(joined, result[w - 4 + 4 * c])
                lm.binary(joined, joined, value, op="add")
                lm.copy(result[w - 4 + 4 * c], joined)  # join(result[id % 4], value)
            lm.sync(bar)
            lm.copy(value, result[4 * c])               # value = result[0]
            for i in lm.range(1, 4):
                lm.copy(other, result[i + 4 * c])       # join(value, result[i])
                lm.binary(value, value, other, op="add")
            lm.copy(Out, value, coords=(c, 32 * w))
            lm.sync(bar)                                # the fix (PR #5540)
