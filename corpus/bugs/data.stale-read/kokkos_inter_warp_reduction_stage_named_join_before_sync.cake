# BUG (data.stale-read): kokkos/kokkos cuda_inter_warp_reduction
# (core/src/Cuda/Kokkos_Cuda_ReduceScan.hpp, PR #5540's form, see the fixed
# file for the source) with the __syncthreads() between
#     if (id < STEP_WIDTH) result[id] = value;
# and the join loop
#     if (shift <= id && shift + STEP_WIDTH > id && threadIdx.x == 0)
#       join(result[id % STEP_WIDTH], value);
# left out (the loop's own barrier comes after the join). A seeded bug,
# not one of Kokkos' history. Warp 4 joins into result[0] before warp 0's
# result[0] = value of the same call is ordered before its read: it reads
# nothing (the first call) or the previous call's sum (data.stale-read),
# and the two accesses race (sync.race). Slots named by stage as the source
# names them (result[w], result[w - 4], result[0], result[i]); 5 warps,
# team_size 160 (corpus/bugs/sync.race/kokkos_inter_warp_reduction_repeated_no_barrier.cake).
# Fix: kokkos_inter_warp_reduction_stage_named_fixed.cake.
# expect: data.stale-read
# may-also: sync.race
@cake.schedule(target="sm_80")
def kokkos_inter_warp_reduction_stage_named_join_before_sync(lm, Val: LM.gmem, Out: LM.gmem,
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
                lm.copy(result[w], value)               # result[id] = value
            # BUG: no __syncthreads() between result[id] = value and the join
            if w == 4:                                  # shift = 4
                lm.copy(joined, result[w - 4])                                  # expect-error: data.stale-read
                lm.binary(joined, joined, value, op="add")
                lm.copy(result[w - 4], joined)          # join(result[id % 4], value)
            lm.sync(bar)
            lm.copy(value, result[0])                   # value = result[0]
            for i in lm.range(1, 4):
                lm.copy(other, result[i])               # join(value, result[i])
                lm.binary(value, value, other, op="add")
            lm.copy(Out, value, coords=(c, 32 * w))
            lm.sync(bar)                                # the fix (PR #5540)
