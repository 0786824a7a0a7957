// The two-warp slice kernel of TripRestart and its three broken forms
// (docs/z3.md "An outer loop that restarts the ring"), shared by
// trip_restart_test.cpp (the proofs) and trip_restart_rotate_test.cpp (the
// rotated restart form's text conditions).
#pragma once

#include <string>
#include <vector>

#include "test_util.h"

namespace restart_slices {

using cake::testing::replace;

// Two warps, a three-stage cp.async ring (each warp loads its band of a
// stage, both read the whole stage: a barrier orders them), restarted at
// stage 0 for every slice `s`; the slice drains the ring (pending=0) and
// ends at a barrier of both warps before the next slice refills stages 0
// and 1.
inline const char* kSlices = R"(@cake.schedule(target="sm_80")
def slices_restart(lm, A: LM.gmem, C: LM.gmem, n: LM.i32, K: LM.i32):
    lm.assume(K >= 64)
    pool = lm.smem(16384)
    sa   = pool.view(offset=0, shape=(16, 64), dtype=lm.f16, stages=3)
    band = pool.view(offset=0, shape=(8, 64), dtype=lm.f16, stages=6)
    sc   = pool.view(offset=8192, shape=(16, 64), dtype=lm.f16)
    r    = lm.regs(shape=(16, 64), dtype=lm.f16)
    r2   = lm.regs(shape=(16, 64), dtype=lm.f16)
    warps = lm.role(warps=[0, 1], group=1)
    bar   = lm.named_barrier(roles=[warps])
    k_tiles = lm.cdiv(K, 64)
    with warps:
        w = lm.instance()
        if w == 0:
            lm.copy(r2, A, coords=(0, 0))
            lm.copy(sc, r2)
        lm.sync(bar)
        for s in lm.range(0, n):
            for i in lm.range(0, 2):
                if i < k_tiles:
                    band.cp_async(A, coords=(8 * w, 64 * i), stage=2 * i + w)
                lm.cp_async_commit()
            for k in lm.range(0, k_tiles):
                lm.cp_async_wait(pending=1)
                lm.sync(bar)
                if k + 2 < k_tiles:
                    band.cp_async(A, coords=(8 * w, 64 * (k + 2)), stage=2 * ((k + 2) % 3) + w)
                lm.cp_async_commit()
                lm.copy(r, sa[k % 3])
            lm.cp_async_wait(pending=0)
            lm.sync(bar)
            lm.copy(C, r, coords=(16 * w, 64 * s))
)";

inline const char* kSliceDrain = "            lm.cp_async_wait(pending=0)\n            lm.sync(bar)\n";
inline const char* kGuardedLoad =
    "                if k + 2 < k_tiles:\n"
    "                    band.cp_async(A, coords=(8 * w, 64 * (k + 2)), stage=2 * ((k + 2) % 3) + w)\n";
inline const char* kSliceStart = "        for s in lm.range(0, n):\n";
inline const char* kWriteBack = "            lm.copy(C, r, coords=(16 * w, 64 * s))\n";

struct Broken {
  const char* what;
  std::string text;
  int64_t K;  // the K at which the second slice shows the bug
};

inline std::vector<Broken> brokenForms() {
  const std::string ok = kSlices;
  return {
      // the barrier that ends the slice dropped: the next slice's prologue
      // refills stage 0 while the other warp still reads it (sync.race)
      {"no barrier at the end of the slice", replace(ok, kSliceDrain, "            lm.cp_async_wait(pending=0)\n"), 64},
      // the last load unguarded and one group left pending at the end of
      // the slice (drained only at exit): the next slice's prologue writes
      // stage 0 under it (sync.race, K = 65)
      {"a cp.async group pending at the end of the slice",
       replace(
           replace(
               replace(ok, kGuardedLoad,
                       "                band.cp_async(A, coords=(8 * w, 64 * (k + 2)), stage=2 * ((k + 2) % 3) + w)\n"),
               kSliceDrain, "            lm.cp_async_wait(pending=1)\n            lm.sync(bar)\n"),
           kWriteBack, std::string(kWriteBack) + "        lm.cp_async_wait(pending=0)\n"),
       65},
      // `sc` read at the start of every slice, written by warp 0 after the
      // slice's last barrier: slice 0 reads the value written before the
      // loop (ordered by the barrier there), slice 1 the previous slice's,
      // unordered (data.stale-read / sync.race)
      {"a read of data written in the previous slice only",
       replace(replace(ok, kSliceStart, std::string(kSliceStart) + "            lm.copy(r2, sc)\n"), kWriteBack,
               std::string(kWriteBack) + "            if w == 0:\n                lm.copy(sc, r)\n"),
       64},
  };
}

}  // namespace restart_slices
