// Tensor-memory lanes and the warps that reach them (tcgen05.ld / .st,
// sm_100a): warp w of a CTA reaches only lane quarter w % 4, the lanes
// 32*(w%4) .. 32*(w%4)+31. The model checker (one access per quarter a
// reference touches, encoder/system.cpp), the tmem.reader gate
// (checks/layout_tmem.cpp) and the lowering (the warp that holds each
// fragment row, lowering/plan.cpp) read a reference's lanes through these.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/schedule.h"

namespace cake::ir {

inline constexpr int64_t kTmemQuarterLanes = 32;

// The lane quarter warp `warp` reaches.
inline int tmemQuarterOfWarp(int warp) { return warp % 4; }

// The lane quarters that lanes [lo, hi) touch, in order (none when the
// range is empty; lanes below 0 count from 0).
std::vector<int> tmemQuarters(int64_t lo, int64_t hi);

// The lanes [lo, hi) a TMEM reference names under `env`: its row slice
// (the first one) where it has one, the region's edges otherwise or where
// the slice leaves a side open (0; shape[0] as a constant, at most the 128
// lanes, or all 128 lanes when the shape is not constant). A side is
// nullopt when its bound does not evaluate under `env`. Bounds are as
// written (not clamped to the region).
struct TmemLaneBounds {
  std::optional<int64_t> lo, hi;
};
TmemLaneBounds tmemLaneBounds(const Schedule& s, const BufferRef& ref, const EvalEnv& env);

}  // namespace cake::ir

namespace cake::ir {

// Whether the lowered kernel holds tensor memory: some op reads or writes a
// TMEM region (a tcgen05.mma into it, tcgen05.ld / .st). Such a kernel
// allocates TMEM after its set-up barrier and frees it at its end.
bool kernelUsesTmem(const Schedule& s);

// Whether the lowered kernel ends with a block barrier that every thread
// of the CTA reaches after its role body (if it has one): the lowering
// emits `__syncthreads(); tcgen05.dealloc` after all role bodies of a
// kernel that holds TMEM (lowering/emit_kernel.cpp), so no thread of such a
// CTA exits before every thread of it is done; a warp without a role goes
// straight to that barrier. Elsewhere a thread exits at the end of its role
// body, a warp without a role at once. The model checker reads the same
// fact for the cluster barrier (barrier.cluster waits for every non-exited
// thread of the cluster: encoder/system.cpp, docs/semantics.md "Clusters").
inline bool kernelEndsWithBlockBarrier(const Schedule& s) { return kernelUsesTmem(s); }

}  // namespace cake::ir
