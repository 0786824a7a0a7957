#include "ir/smem_layout.h"

#include <algorithm>

#include "ir/expr_build.h"

namespace cake::ir {

int64_t reductionScratchStride(const Schedule& s, int role) {
  return static_cast<int64_t>(s.roles[role].warpsPerInstance()) * 32 * hw::kScratchSlotsPerThread * 8;
}

SmemLayout smemLayout(const Schedule& s) {
  using namespace build;
  SmemLayout L;
  ExprPtr end = lit(0);
  for (const Pool& pool : s.pools) {
    ExprPtr base = alignUp(end, hw::kSmemPoolAlign);
    L.pool_base.push_back(base);
    end = add(base, pool.bytes ? pool.bytes : lit(0));
    L.pool_end.push_back(end);
  }
  L.barrier_base = alignUp(end, hw::kMbarrierBytes);
  for (const Barrier& b : s.barriers) {
    L.barrier_slot_base.push_back(L.barrier_slots);
    L.barrier_slots += std::max(b.count, 0);
  }
  ExprPtr end_slots = add(L.barrier_base, lit(hw::kMbarrierBytes * L.barrier_slots));
  if (!s.tmems.empty()) {
    L.tmem_slot = end_slots;
    end_slots = add(end_slots, lit(hw::kMbarrierBytes));
  }
  L.total = alignUp(end_slots, hw::kSmemEndAlign);
  L.requested = add(L.total, lit(hw::kSmemAlignSlack));
  L.scratch_base = L.total;
  for (const RoleBody& body : s.bodies) {
    const int r = body.role;
    if (r < 0 || r >= static_cast<int>(s.roles.size()) || s.roles[r].warpsPerInstance() <= 1) continue;
    if (std::find(L.scratch_roles.begin(), L.scratch_roles.end(), r) != L.scratch_roles.end()) continue;
    bool reduces = false;
    for (const RoleBody& b2 : s.bodies)
      if (b2.role == r)
        forEachOp(b2.body, [&](const Stmt& st) {
          reduces = reduces || (st.op.kind == OpKind::Reduce && st.op.src.kind == BufferRef::Kind::Regs);
        });
    if (!reduces) continue;
    L.scratch_roles.push_back(r);
    L.scratch_bound += reductionScratchStride(s, r) * s.roles[r].instanceCount();
  }
  return L;
}

}  // namespace cake::ir
