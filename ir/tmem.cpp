#include "ir/tmem.h"

#include <algorithm>

#include "ir/target.h"

namespace cake::ir {

std::vector<int> tmemQuarters(int64_t lo, int64_t hi) {
  std::vector<int> out;
  lo = std::max<int64_t>(lo, 0);
  for (int64_t q = lo / kTmemQuarterLanes; q * kTmemQuarterLanes < hi && hi > lo; ++q)
    out.push_back(static_cast<int>(q));
  return out;
}

TmemLaneBounds tmemLaneBounds(const Schedule& s, const BufferRef& ref, const EvalEnv& env) {
  const Tmem& tm = s.tmems[ref.index];
  TmemLaneBounds b{0, hw::kTmemLanes};
  if (!tm.shape.empty() && tm.shape[0] && tm.shape[0]->kind == ExprKind::Const)
    b.hi = std::min<int64_t>(tm.shape[0]->value, hw::kTmemLanes);
  if (ref.slices.empty()) return b;
  const Slice& sl = ref.slices[0];
  if (sl.lo) b.lo = evaluate(*sl.lo, env);
  if (sl.hi) b.hi = evaluate(*sl.hi, env);
  return b;
}

}  // namespace cake::ir

namespace cake::ir {

bool kernelUsesTmem(const Schedule& s) {
  bool any = false;
  for (const RoleBody& body : s.bodies)
    forEachOp(body.body, [&](const Stmt& st) {
      any |= st.op.dst.kind == BufferRef::Kind::Tmem || st.op.src.kind == BufferRef::Kind::Tmem;
    });
  return any;
}

}  // namespace cake::ir
