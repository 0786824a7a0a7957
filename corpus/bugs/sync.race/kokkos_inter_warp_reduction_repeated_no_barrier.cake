# BUG (sync.race): kokkos/kokkos issue #5475, fixed by PR #5540 ("Fix
# repeated team_reduce without barrier", Kokkos 3.7.01).  The CUDA backend's
# cuda_inter_warp_reduction (core/src/Cuda/Kokkos_Cuda_ReduceScan.hpp)
# combines the per-warp results of a team reduction through a
# __shared__ double sh_result[STEP_WIDTH = 4]:
#     id = threadIdx.y % step == 0 ? threadIdx.y / step : 65000;  // warp
#     if (id < STEP_WIDTH) result[id] = value;
#     __syncthreads();
#     while (shift <= max_active_thread / step) {
#       if (shift <= id && shift + STEP_WIDTH > id && threadIdx.x == 0)
#         join(result[id % STEP_WIDTH], value);
#       __syncthreads(); shift += STEP_WIDTH; }
#     value = result[0];
#     for (i = 1; i * step < max_active_thread && i < STEP_WIDTH; i++)
#       join(value, result[i]);
# and returns with no barrier after those reads.  Two team reductions in a
# row (E3SM's back-to-back parallel_reduce calls; the PR's
# TestRepeatedTeamReduce) let a fast warp of the next call write
# result[id] = value while a slow warp is still reading result[0..3] of the
# previous one: wrong sums, reported by compute-sanitizer racecheck.  The
# fix is a __syncthreads() at the end of the function ("we need to ensure
# that we are done using it before exiting the function").
# Modelled: a team of 5 warps (team_size 160 - the PR's test picks a team
# size that is not a power of two - vector length 1, so step = 32 and id is
# the warp index), each warp a one-warp instance,
# __syncthreads() a named barrier over all of them, sh_result as four slots
# (one 32-float slot per result[i]; the real one is one double each), and
# n_calls reductions in a row over a per-call input.  With 5 warps the
# while loop runs once (shift = 4 <= 160 / 32: warp 4 joins into
# result[0]).  The slots are named by call (result[i + 4 * c] is result[i]
# of call c; see docs/corpus.md, session 19, for the stage-named form).
# Left out: the intra-warp shuffle reduction before it (registers only).
# Fix: kokkos_inter_warp_reduction_repeated_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def kokkos_inter_warp_reduction_repeated_no_barrier(lm, Val: LM.gmem, Out: LM.gmem,
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
                # result[id] = value
                lm.copy(result[w + 4 * c], value)                         # expect-error: sync.race
            lm.sync(bar)
            if w == 4:                                  # shift = 4
                lm.copy(joined, result[w - 4 + 4 * c])
                lm.binary(joined, joined, value, op="add")
                lm.copy(result[w - 4 + 4 * c], joined)  # join(result[id % 4], value)
            lm.sync(bar)
            # value = result[0]
            lm.copy(value, result[4 * c])                                 # expect-error: sync.race
            for i in lm.range(1, 4):
                # join(value, result[i])
                lm.copy(other, result[i + 4 * c])                         # expect-error: sync.race
                lm.binary(value, value, other, op="add")
            lm.copy(Out, value, coords=(c, 32 * w))
            # BUG: no __syncthreads() before returning
