#include "encoder/cluster_exits.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace cake::encoder {

namespace {

// How many lm.cluster_sync() a block runs at its top level; nullopt where
// one lies deeper (under a loop or an `if`).
std::optional<int> topLevelClusterSyncs(const ir::Block& block) {
  int n = 0;
  for (const ir::Stmt& st : block) {
    if (st.kind == ir::Stmt::Kind::Op) {
      n += st.op.kind == ir::OpKind::ClusterSync;
      continue;
    }
    bool deeper = false;
    ir::forEachOp(st.body, [&](const ir::Stmt& o) { deeper |= o.op.kind == ir::OpKind::ClusterSync; });
    ir::forEachOp(st.orelse, [&](const ir::Stmt& o) { deeper |= o.op.kind == ir::OpKind::ClusterSync; });
    if (deeper) return std::nullopt;
  }
  return n;
}

}  // namespace

bool clusterExitsMatter(const ir::Schedule& s) {
  std::vector<int> per_role(s.roles.size(), 0);
  bool any = false;
  for (const ir::RoleBody& body : s.bodies) {
    const std::optional<int> n = topLevelClusterSyncs(body.body);
    if (!n) return true;
    if (body.role >= 0 && body.role < static_cast<int>(per_role.size())) per_role[body.role] += *n;
    any = any || *n > 0;
  }
  if (!any) return false;
  return std::any_of(per_role.begin(), per_role.end(), [&](int n) { return n != per_role.front(); });
}

bool clusterExitsMatter(const System& sys) {
  return sys.cluster_named >= 0 && sys.schedule && clusterExitsMatter(*sys.schedule);
}

}  // namespace cake::encoder
