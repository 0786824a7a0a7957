// Roles and registers: disjoint warps, warp counts, groups, setmaxnreg
// budgets, the register file, and register fragments per role.
#include <fmt/format.h>

#include "checks/layout_internal.h"

namespace cake::checks::layout {

namespace {

std::string warpList(const std::vector<int>& ws) {
  std::vector<std::string> out;
  for (int w : ws) out.push_back(std::to_string(w));
  return fmt::format("[{}]", fmt::join(out, ", "));
}

// Register fragments each role touches.
std::vector<std::set<int>> fragmentsByRole(const Gates& g) {
  std::vector<std::set<int>> out(g.s.roles.size());
  for (const OpSite& site : g.sites) {
    if (site.role < 0 || site.role >= static_cast<int>(out.size())) continue;
    const ir::Op& op = site.op();
    for (const ir::BufferRef* r : {&op.dst, &op.src, &op.src2})
      if (r->kind == ir::BufferRef::Kind::Regs && r->index >= 0) out[site.role].insert(r->index);
  }
  return out;
}

}  // namespace

// Per-thread registers a fragment takes in an instance of `threads` threads.
static ExprPtr fragmentRegs(const ir::Regs& r, int threads) {
  // ceil(bytes / 4 / threads) = ceil(bytes / (4 * threads)) for positive sizes.
  return cdiv(mul(product(r.shape), lit(ir::dtypeBytes(r.dtype))), lit(4 * std::max(threads, 1)));
}

void runRoleGates(Gates& g) {
  const ir::Schedule& s = g.s;
  const int nr = static_cast<int>(s.roles.size());

  // ---- warps: disjoint, in range
  std::map<int, int> owner;  // warp -> role
  for (int i = 0; i < nr; ++i) {
    const ir::Role& r = s.roles[i];
    std::set<int> seen;
    for (int w : r.warps) {
      if (!seen.insert(w).second) {
        g.fact("roles.warp-overlap", false);
        ir::Finding f = g.finding("roles.warp-overlap", r.range,
                                  fmt::format("role '{}' lists warp {} twice", r.name, w));
        f.subject["role"] = r.name;
        f.subject["warp"] = w;
        g.emit(std::move(f));
        continue;
      }
      auto [it, inserted] = owner.emplace(w, i);
      g.fact("roles.warp-overlap", inserted);
      if (inserted) continue;
      const ir::Role& other = s.roles[it->second];
      ir::Finding f = g.finding("roles.warp-overlap", r.range,
                                fmt::format("warp {} of role '{}' already belongs to role '{}'", w, r.name, other.name));
      Gates::note(f, other.range, fmt::format("role '{}' takes warps {}", other.name, warpList(other.warps)));
      f.subject["role"] = r.name;
      f.subject["warp"] = w;
      f.subject["other_role"] = other.name;
      g.emit(std::move(f));
    }
  }
  int warps = s.warpCount();
  {
    bool ok = warps <= 32;
    g.fact("roles.too-many-warps", ok);
    if (!ok) {
      // Blame the role holding the highest warp (or the decorator).
      ir::SourceRange at = s.range;
      std::string who = fmt::format("the schedule declares warps={}", warps);
      if (!s.warps) {
        for (const ir::Role& r : s.roles)
          for (int w : r.warps)
            if (w + 1 == warps) {
              at = r.range;
              who = fmt::format("role '{}' uses warp {}", r.name, w);
            }
      }
      ir::Finding f = g.finding("roles.too-many-warps", at,
                                fmt::format("the block has {} warps ({} threads); at most 32 warps (1024 threads): {}",
                                            warps, 32 * warps, who));
      if (at.line != s.range.line) Gates::note(f, s.range, fmt::format("schedule '{}' starts here", s.name));
      f.data["warps"] = warps;
      g.emit(std::move(f));
    }
  }
  if (s.warps) {
    for (const ir::Role& r : s.roles) {
      int hi = -1, lo = 0;
      for (int w : r.warps) hi = std::max(hi, w), lo = std::min(lo, w);
      bool ok = hi < *s.warps && lo >= 0;
      g.fact("roles.too-many-warps", ok);
      if (ok) continue;
      ir::Finding f = g.finding("roles.too-many-warps", r.range,
                                fmt::format("role '{}' uses warp {}, but the schedule has warps={} (warps 0..{})",
                                            r.name, lo < 0 ? lo : hi, *s.warps, *s.warps - 1));
      Gates::note(f, s.range, fmt::format("schedule '{}' declares warps={}", s.name, *s.warps));
      f.subject["role"] = r.name;
      g.emit(std::move(f));
    }
  }

  // ---- groups
  for (const ir::Role& r : s.roles) {
    bool ok = r.group == 0 || (r.group > 0 && r.warps.size() % r.group == 0);
    g.fact("roles.group", ok);
    if (ok) continue;
    ir::Finding f = g.finding("roles.group", r.range,
                              r.group < 0 ? fmt::format("role '{}' has group={}; a group must be positive", r.name, r.group)
                                          : fmt::format("role '{}' has {} warps, which group={} does not divide", r.name,
                                                        r.warps.size(), r.group));
    f.subject["role"] = r.name;
    g.emit(std::move(f));
  }

  // ---- setmaxnreg budgets
  bool setmaxnreg_ok_target = !g.ti.known || g.ti.setmaxnreg;  // else target.feature already
  bool any_regs = false;
  for (const ir::Role& r : s.roles) {
    if (!r.regs) continue;
    any_regs = true;
    if (!setmaxnreg_ok_target) continue;
    int v = *r.regs;
    bool ok = v >= 24 && v <= 256 && v % 8 == 0;
    g.fact("regs.setmaxnreg", ok);
    if (ok) continue;
    ir::Finding f = g.finding("regs.setmaxnreg", r.range,
                              fmt::format("role '{}' asks for regs={}; setmaxnreg takes a multiple of 8 in 24..256",
                                          r.name, v));
    f.subject["role"] = r.name;
    g.emit(std::move(f));
  }
  if (any_regs && setmaxnreg_ok_target) {
    // setmaxnreg is .aligned: every warp of an aligned warpgroup executes
    // the same one. A warp of no role in a warpgroup with a budget runs no
    // setmaxnreg (lowering never imposes a budget the schedule did not
    // state), which is a conflict too.
    std::map<int, std::vector<int>> wg;  // warpgroup -> warps
    for (int w = 0; w < warps; ++w) wg[w / 4].push_back(w);
    for (auto& [grp, ws] : wg) {
      std::map<std::optional<int>, std::vector<int>> budgets;  // budget -> warps
      std::map<std::optional<int>, int> role_of;                // budget -> a role index (-1: idle warps)
      for (int w : ws) {
        auto it = owner.find(w);
        int ri = it == owner.end() ? -1 : it->second;
        std::optional<int> b = ri >= 0 ? s.roles[ri].regs : std::nullopt;
        budgets[b].push_back(w);
        if (!role_of.count(b) || role_of[b] < 0) role_of[b] = ri;
      }
      bool ok = budgets.size() <= 1;
      g.fact("regs.setmaxnreg", ok);
      if (ok) continue;
      auto describe = [&](const std::optional<int>& b, const std::vector<int>& w) {
        int ri = role_of[b];
        std::string who = ri >= 0 ? fmt::format("role '{}'", s.roles[ri].name) : std::string("in no role");
        return fmt::format("warps {} ({}) {}", warpList(w), who,
                           b ? fmt::format("set regs={}", *b) : std::string("execute no setmaxnreg"));
      };
      auto first = budgets.begin();
      while (first != budgets.end() && !first->first) ++first;
      if (first == budgets.end()) continue;
      int ri = role_of[first->first];
      ir::Finding f = g.finding("regs.setmaxnreg", s.roles[ri].range,
                                fmt::format("warpgroup {} (warps {}..{}) mixes register budgets: {}; setmaxnreg must be "
                                            "executed by all 4 warps of a warpgroup with the same count",
                                            grp, 4 * grp, 4 * grp + 3, describe(first->first, first->second)));
      for (auto& [b, w] : budgets) {
        if (b == first->first) continue;
        int rj = role_of[b];
        Gates::note(f, rj >= 0 ? s.roles[rj].range : s.range, describe(b, w));
      }
      f.subject["warpgroup"] = grp;
      g.emit(std::move(f));
    }
  }

  // ---- the register file
  int64_t R = g.ti.launchRegsPerThread(32 * warps);
  if (any_regs && setmaxnreg_ok_target && warps > 0 && warps <= 32) {
    int64_t total = 0;
    int biggest = -1;
    for (int w = 0; w < warps; ++w) {
      auto it = owner.find(w);
      int64_t r = R;
      if (it != owner.end() && s.roles[it->second].regs) r = *s.roles[it->second].regs;
      total += 32 * r;
    }
    for (int i = 0; i < nr; ++i)
      if (s.roles[i].regs && (biggest < 0 || *s.roles[i].regs > *s.roles[biggest].regs)) biggest = i;
    int64_t cap = R * 32 * warps;
    bool ok = total <= cap;
    g.fact("regs.budget", ok);
    if (!ok && biggest >= 0) {
      ir::Finding f = g.finding(
          "regs.budget", s.roles[biggest].range,
          fmt::format("the roles' register budgets add up to {} registers, more than the {} the block is launched "
                      "with ({} threads x {} registers; setmaxnreg only moves registers between warpgroups)",
                      total, cap, 32 * warps, R));
      for (int i = 0; i < nr; ++i) {
        if (i == biggest) continue;
        const ir::Role& r = s.roles[i];
        int64_t per = r.regs ? *r.regs : R;
        Gates::note(f, r.range,
                    fmt::format("role '{}': {} warps x 32 threads x {} registers = {}", r.name, r.warps.size(), per,
                                32 * static_cast<int64_t>(r.warps.size()) * per));
      }
      f.data["registers"] = total;
      f.data["capacity"] = cap;
      g.emit(std::move(f));
    }
  }

  // ---- fragments per role (meaningless beyond 32 warps: reported above)
  auto frags = fragmentsByRole(g);
  for (int i = 0; i < nr && warps <= 32; ++i) {
    if (frags[i].empty()) continue;
    const ir::Role& r = s.roles[i];
    int threads = 32 * r.warpsPerInstance();
    if (threads <= 0) continue;
    int64_t budget = r.regs && setmaxnreg_ok_target ? *r.regs : std::min<int64_t>(R, g.ti.max_regs_per_thread);
    budget = std::min<int64_t>(budget, g.ti.max_regs_per_thread);
    ExprPtr need = lit(0);
    for (int k : frags[i]) need = add(need, fragmentRegs(s.regs[k], threads));
    auto res = g.check("regs.fragment", le(need, lit(budget)));
    if (res.kind != encoder::BvVerdict::Fails) continue;
    ir::Finding f = g.finding(
        "regs.fragment", r.range,
        fmt::format("the register fragments of role '{}' need {} registers per thread ({} threads per instance), "
                    "more than its budget of {}{}{}",
                    r.name, g.valueAt(need, &res) ? std::to_string(*g.valueAt(need, &res)) : g.str(need), threads,
                    budget,
                    r.regs ? fmt::format(" (regs={})", *r.regs) : fmt::format(" (launch budget for {} warps)", warps),
                    g.when(res)));
    for (int k : frags[i]) {
      const ir::Regs& fr = s.regs[k];
      Gates::note(f, fr.range,
                  fmt::format("'{}' takes {} registers per thread", fr.name, g.show(fragmentRegs(fr, threads), &res)));
    }
    f.subject["role"] = r.name;
    if (auto v = g.valueAt(need, &res)) f.data["per_thread"] = *v;
    f.data["budget"] = budget;
    g.emit(std::move(f), &res);
  }
}

}  // namespace cake::checks::layout
