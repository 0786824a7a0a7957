// target.feature: a feature of another GPU generation (exact-match targets).
#include <fmt/format.h>

#include "checks/layout_internal.h"

namespace cake::checks::layout {

namespace {

using ir::Target;

std::string targetsText(std::initializer_list<Target> ts) {
  std::vector<std::string> names;
  for (Target t : ts) names.emplace_back(ir::targetName(t));
  if (names.size() == 1) return names[0];
  return fmt::format("{} and {}", fmt::join(names.begin(), names.end() - 1, ", "), names.back());
}

bool has(std::initializer_list<Target> ts, Target t) {
  for (Target x : ts)
    if (x == t) return true;
  return false;
}

}  // namespace

void runTargetFeatureGates(Gates& g) {
  const ir::Schedule& s = g.s;
  Target t = g.ti.target;
  std::string tname(ir::targetName(t));

  auto require = [&](std::initializer_list<Target> ts, const ir::SourceRange& at, const std::string& what) {
    bool ok = has(ts, t);
    g.fact("target.feature", ok);
    if (ok) return;
    ir::Finding f = g.finding("target.feature", at,
                              fmt::format("{} is a feature of {}; the target is {}", what, targetsText(ts), tname));
    Gates::note(f, s.range, fmt::format("schedule '{}' is compiled for {} (an exact match: it is never lowered "
                                        "to another generation)",
                                        s.name, tname));
    f.subject["feature"] = what;
    nlohmann::json targets = nlohmann::json::array();
    for (Target x : ts) targets.push_back(std::string(ir::targetName(x)));
    f.data["available_on"] = targets;
    g.emit(std::move(f));
  };

  const auto hopperPlus = {Target::SM90a, Target::SM100a};

  if (s.cluster[0] * s.cluster[1] * s.cluster[2] > 1)
    require(hopperPlus, s.range,
            fmt::format("a thread-block cluster ({}, {}, {})", s.cluster[0], s.cluster[1], s.cluster[2]));
  for (const ir::Tmem& tm : s.tmems)
    require({Target::SM100a}, tm.range, fmt::format("tensor memory (lm.tmem '{}')", tm.name));
  for (const ir::GridDependency& d : s.grid_deps)
    require(hopperPlus, d.range, "programmatic dependent launch (lm.grid_dependency)");
  for (const ir::Role& r : s.roles)
    if (r.regs) require(hopperPlus, r.range, fmt::format("setmaxnreg (regs={} on role '{}')", *r.regs, r.name));

  for (const OpSite& site : g.sites) {
    const ir::Op& op = site.op();
    const ir::SourceRange& at = op.range.valid() ? op.range : site.stmt->range;
    std::string name(ir::opName(op.kind));
    switch (op.kind) {
      case ir::OpKind::TmaLoad:
      case ir::OpKind::TmaStore:
      case ir::OpKind::TmaStoreCommit:
      case ir::OpKind::TmaStoreWait:
        require(hopperPlus, at, fmt::format("the TMA copy engine ({})", name));
        break;
      case ir::OpKind::ExpectTx:
        require(hopperPlus, at, "mbarrier transaction counts (expect_tx)");
        break;
      case ir::OpKind::ClusterSync:
        require(hopperPlus, at, "the cluster barrier (cluster_sync)");
        break;
      case ir::OpKind::Arrive:
        if (op.cta) require(hopperPlus, at, "an arrive on a peer CTA's mbarrier (cta=)");
        break;
      case ir::OpKind::FenceProxy:
        require(hopperPlus, at, "the async proxy fence (fence_proxy)");
        break;
      case ir::OpKind::MmaWait:
        require({Target::SM90a}, at, "wgmma.wait_group (mma_wait)");
        break;
      case ir::OpKind::TmemLoad:
      case ir::OpKind::TmemStore:
      case ir::OpKind::TmemLoadWait:
      case ir::OpKind::TmemStoreWait:
        require({Target::SM100a}, at, fmt::format("asynchronous TMEM moves (tcgen05.ld / tcgen05.st: {})", name));
        break;
      case ir::OpKind::GridDepWait:
      case ir::OpKind::LaunchDependents:
        require(hopperPlus, at, fmt::format("programmatic dependent launch (griddepcontrol: {})", name));
        break;
      case ir::OpKind::MmaCommit:
        if (op.barrier >= 0)
          require({Target::SM100a}, at, "tcgen05.commit to an mbarrier (mma_commit(barrier=...))");
        else
          require({Target::SM90a}, at, "wgmma.commit_group (mma_commit without a barrier)");
        break;
      default: break;
    }
  }
}

}  // namespace cake::checks::layout
