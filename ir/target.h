// The target table: what each GPU generation allows, in one place. The
// checks (layout and hardware gates, resource report), lowering and the
// cost model read their limits from here, so a number such as the shared
// memory of a block is written once.
#pragma once

#include <algorithm>
#include <cstdint>

#include "ir/schedule.h"

namespace cake::ir {

struct TargetLimits {
  Target target = Target::Unspecified;
  bool known = false;
  // shared memory
  int64_t smem_per_block = 0;     // opt-in per-block limit (bytes)
  int64_t smem_per_sm = 0;        // per-SM capacity (bytes)
  int64_t smem_reserved = 1024;   // per-block system reservation (bytes)
  // registers
  int64_t register_file = 65536;  // 32-bit registers per SM (and per block)
  int max_regs_per_thread = 255;
  // threads
  int max_warps_per_block = 32;   // 1024 threads
  int max_warps_per_sm = 64;
  int max_blocks_per_sm = 32;
  int hw_named_barriers = 16;     // bar.sync ids 0..15
  // tensor memory (sm_100a)
  int tmem_columns = 0;           // 32-bit columns per SM; 0: no TMEM
  int tmem_lanes = 0;
  // features
  bool tma = false, setmaxnreg = false, clusters = false, tmem = false;
  bool wgmma = false, tcgen05 = false;

  // Registers per thread a block of `threads` threads is launched with:
  // min(255, register file / threads), rounded down to the allocation
  // granule of 8 (248 when the thread count is unknown).
  int launchRegsPerThread(int threads) const;

  // Shared memory a block occupies on an SM when it requests `requested`
  // bytes of dynamic shared memory: the request plus the per-block
  // reservation of the driver (smem_reserved).
  int64_t smemFootprint(int64_t requested) const { return requested + smem_reserved; }
  // Blocks that fit on one SM by shared memory alone.
  int64_t blocksBySmem(int64_t requested) const { return smem_per_sm / std::max<int64_t>(smemFootprint(requested), 1); }
};

// The limits of `t`; for Target::Unspecified `known` is false and the
// sizes are zero.
const TargetLimits& targetLimits(Target t);

// Limits that hold on every target, for the front end, which checks sizes
// before a target is chosen: a value beyond these fits no GPU.
namespace hw {
// The largest per-block shared memory of any target.
int64_t maxSmemPerBlock();
// An mbarrier is 8 bytes of shared memory.
inline constexpr int64_t kMbarrierBytes = 8;
// The pending-arrival and transaction counts of an mbarrier are 20 bits
// (PTX ISA, mbarrier: expected count in [1, 2^20 - 1]).
inline constexpr int64_t kMaxArrivalCount = (int64_t{1} << 20) - 1;
inline constexpr int64_t kMaxTxCount = (int64_t{1} << 20) - 1;
// Tensor memory: 128 lanes of 512 32-bit columns per SM (sm_100a).
inline constexpr int kTmemColumns = 512;
inline constexpr int kTmemLanes = 128;
// Thread-block clusters: at most 16 CTAs (non-portable size).
inline constexpr int kMaxClusterSize = 16;
// The lowering requests this many bytes of dynamic shared memory beyond its
// layout and rounds the base up to a 1024-byte boundary at run time (the
// 128B swizzle atom), since `extern __shared__` alignment is not promised.
inline constexpr int64_t kSmemAlignSlack = 1024;
}  // namespace hw

// The dynamic shared memory a kernel whose layout ends at `layout_bytes`
// requests at launch: the layout plus the alignment slack. The lowering
// launches with it; the resource report and the cost model count it.
inline int64_t requestedSmemBytes(int64_t layout_bytes) { return layout_bytes + hw::kSmemAlignSlack; }

}  // namespace cake::ir
