# FIXED form of kokkos_inter_warp_reduction_stage_named_join_before_sync.cake,
# and kokkos/kokkos PR #5540's fixed cuda_inter_warp_reduction
# (core/src/Cuda/Kokkos_Cuda_ReduceScan.hpp) with sh_result's slots named
# as the source names them:
#     if (id < STEP_WIDTH) result[id] = value;
#     __syncthreads();
#     while (shift <= max_active_thread / step) {
#       if (shift <= id && shift + STEP_WIDTH > id && threadIdx.x == 0)
#         join(result[id % STEP_WIDTH], value);
#       __syncthreads(); shift += STEP_WIDTH; }
#     value = result[0];
#     for (i = 1; i * step < max_active_thread && i < STEP_WIDTH; i++)
#       join(value, result[i]);
#     __syncthreads();   // the fix (PR #5540, issue #5475)
# Modelled as corpus/bugs/sync.race/kokkos_inter_warp_reduction_repeated_no_barrier_fixed.cake
# (5 warps, team_size 160, vector length 1: step = 32, id = the warp; the
# while loop runs once, warp 4 joins into result[0]; n_calls reductions in
# a row), but with the stage indices result[w], result[w - 4], result[0],
# result[i] of every call instead of result[i + 4 * c]. Warp 4 reads
# result[0] twice per call (the join, then value = result[0]) and writes it
# once in between; every other reader reads each slot once per call.
# Sessions 19-20: a false data.stale-read (docs/known-limits.md, "data.stale-read:
# what a stage-like read means is inferred"); session 21, helper readbk: a
# read-back of an index the reader wrote itself means the lap of that write
# (docs/semantics.md "Stale data").
# expect: pass
@cake.schedule(target="sm_80")
def kokkos_inter_warp_reduction_stage_named_fixed(lm, Val: LM.gmem, Out: LM.gmem,
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
            lm.sync(bar)
            if w == 4:                                  # shift = 4
                lm.copy(joined, result[w - 4])
                lm.binary(joined, joined, value, op="add")
                lm.copy(result[w - 4], joined)          # join(result[id % 4], value)
            lm.sync(bar)
            lm.copy(value, result[0])                   # value = result[0]
            for i in lm.range(1, 4):
                lm.copy(other, result[i])               # join(value, result[i])
                lm.binary(value, value, other, op="add")
            lm.copy(Out, value, coords=(c, 32 * w))
            lm.sync(bar)                                # the fix (PR #5540)
