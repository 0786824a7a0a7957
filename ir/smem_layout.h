// The block's shared-memory layout: where every pool, the mbarriers, the
// TMEM address slot and the lowering's reduction scratch lie, as
// expressions over the schedule's parameters. It is the one placement:
//   * the lowering emits these offsets (evaluated at its specialised
//     parameter values) and launches with requestedSmemBytes(total +
//     the scratch it places);
//   * the layout gates (checks/layout_smem.cpp) prove the alignment and
//     the per-block limit (layout.smem-limit) on the same expressions;
//   * the resource report (report.resources) shows them, and the cost
//     model counts the total.
// What is verified is what is emitted: change the placement here, never in
// one of its users.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/schedule.h"
#include "ir/target.h"

namespace cake::ir {

namespace hw {
// Every pool starts at a multiple of this many bytes from the block's base,
// which the lowering rounds up to the same boundary inside the alignment
// slack: a pool is then aligned for any view (the strictest, the 128B
// swizzle atom, is 1024 bytes).
inline constexpr int64_t kSmemPoolAlign = kSmemAlignSlack;
// The mbarriers and the TMEM address slot take hw::kMbarrierBytes each,
// aligned to as many.
// The layout ends 16-byte aligned; the reduction scratch starts there, and
// each thread of a role that needs it gets this many 8-byte values a round.
inline constexpr int64_t kSmemEndAlign = 16;
inline constexpr int64_t kScratchSlotsPerThread = 8;
}  // namespace hw

struct SmemLayout {
  std::vector<ExprPtr> pool_base;  // per pool: its first byte (a multiple of hw::kSmemPoolAlign)
  std::vector<ExprPtr> pool_end;   // per pool: base + bytes
  ExprPtr barrier_base;            // after the last pool, 8-byte aligned
  std::vector<int64_t> barrier_slot_base;  // per lm.barrier: its first slot (8 bytes each from barrier_base)
  int64_t barrier_slots = 0;
  ExprPtr tmem_slot;               // the tcgen05.alloc address slot after the mbarriers; nullptr without lm.tmem
  ExprPtr total;                   // the end of the layout, 16-byte aligned (without the reduction scratch)
  ExprPtr requested;               // total + hw::kSmemAlignSlack: requestedSmemBytes(total), what is launched
                                   // when no reduction scratch is placed
  // The reduction scratch the lowering may place from scratch_base on: one
  // region per role below that it finds needs one (a cross-warp reduction,
  // decided by its fragment layouts), in this order. scratch_roles lists
  // every role that can need one (more than one warp per instance and an
  // lm.reduce of registers), so scratch_bound bounds what is placed.
  ExprPtr scratch_base;            // = total
  std::vector<int> scratch_roles;
  int64_t scratch_bound = 0;       // bytes, every role in scratch_roles
};

SmemLayout smemLayout(const Schedule& s);

// Bytes of reduction scratch per instance of `role` (warps x 32 threads x
// hw::kScratchSlotsPerThread values of 8 bytes).
int64_t reductionScratchStride(const Schedule& s, int role);

}  // namespace cake::ir
