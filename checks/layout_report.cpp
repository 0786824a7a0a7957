// The resource report (rule report.resources): shared memory by pool, view
// and barrier; registers per role; TMEM columns; blocks per SM.
#include <fmt/format.h>

#include "checks/layout_internal.h"
#include "ir/smem_layout.h"

namespace cake::checks::layout {

namespace {

// A quantity: a number when constant, else {"expr", "max"} (max under the
// assumptions, null when unbounded or undecided).
struct Quantity {
  nlohmann::json json;
  std::optional<int64_t> value;  // constant value, or the maximum
  bool symbolic = false;
};

Quantity quantity(Gates& g, const ExprPtr& e) {
  Quantity q;
  int64_t v;
  if (isConst(e, &v)) {
    q.json = v;
    q.value = v;
    return q;
  }
  q.symbolic = true;
  q.value = g.prover.maximum(e);
  q.json = {{"expr", g.str(e)}, {"max", q.value ? nlohmann::json(*q.value) : nlohmann::json(nullptr)}};
  return q;
}

// (appends rather than inserting: GCC 12 warns -Wrestrict on an inlined
// std::string::insert when this file shares a unity unit)
std::string withCommas(int64_t v) {
  const std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out = v < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// Blocks per SM from what is known before compiling: shared memory (what
// the lowering requests plus the driver's per-block reservation), warps,
// block slots and TMEM. Registers are not known before ptxas (the kernel is
// built with __launch_bounds__(threads, 1), so ptxas may use up to the
// launch cap R), so their limit is reported as an assumption beside the
// known value, never as the value itself.
nlohmann::json blocksPerSm(const ir::TargetLimits& ti, std::optional<int64_t> layout, int warps, int64_t R,
                           std::optional<int64_t> tmem_cols, std::string* text) {
  nlohmann::json by = nlohmann::json::object();
  std::vector<std::pair<std::string, int64_t>> lim;
  nlohmann::json smem = nullptr;
  std::string smem_text;
  if (layout && *layout >= 0) {
    const int64_t requested = ir::requestedSmemBytes(*layout);
    const int64_t footprint = ti.smemFootprint(requested);
    const int64_t n = ti.blocksBySmem(requested);
    // Bytes each block must shed for one more block to fit.
    const int64_t shed = footprint - ti.smem_per_sm / (n + 1);
    smem = {{"layout", *layout},          {"align_slack", ir::hw::kSmemAlignSlack}, {"requested", requested},
            {"reserved", ti.smem_reserved}, {"per_block", footprint},                 {"per_sm", ti.smem_per_sm},
            {"shed_for_next", shed}};
    lim.push_back({"smem", n});
    smem_text = fmt::format("{} x {} B of {} B per SM (layout {} + {} alignment slack + {} reserved); {} need {} B less "
                            "per block",
                            n, withCommas(footprint), withCommas(ti.smem_per_sm), withCommas(*layout),
                            withCommas(ir::hw::kSmemAlignSlack), withCommas(ti.smem_reserved), n + 1, withCommas(shed));
  }
  lim.push_back({"warps", ti.max_warps_per_sm / warps});
  lim.push_back({"blocks", ti.max_blocks_per_sm});
  if (tmem_cols && *tmem_cols > 0) lim.push_back({"tmem", ir::hw::kTmemColumns / *tmem_cols});
  auto best = lim.front();
  for (auto& l : lim) {
    by[l.first] = l.second;
    if (l.second < best.second) best = l;
  }
  // Registers: assumed at the launch cap R; the largest count per thread
  // at which the known value still fits (allocated in multiples of 8).
  const int64_t threads = 32 * static_cast<int64_t>(warps);
  const int64_t at_assumed = R > 0 ? ti.register_file / (R * threads) : best.second;
  const int64_t fit =
      best.second > 0 ? std::min<int64_t>(ti.max_regs_per_thread, ti.register_file / (best.second * threads)) / 8 * 8 : 0;
  const int64_t with_assumed = std::min(best.second, at_assumed);
  nlohmann::json out = {{"value", best.second},
                        {"limiter", best.first},
                        {"by", by},
                        {"smem", smem},
                        {"registers",
                         {{"known", false},
                          {"assumed_per_thread", R},
                          {"blocks_at_assumed", at_assumed},
                          {"max_per_thread_for_value", fit}}},
                        {"with_assumed_registers", with_assumed},
                        {"assumes", fmt::format("registers unknown before ptxas, assumed {} per thread (the launch cap); "
                                                "{} bytes reserved per block",
                                                R, ti.smem_reserved)}};
  *text = fmt::format("{} block(s)/SM (limited by {}", best.second, best.first);
  if (best.first == "smem") *text += ": " + smem_text;
  *text += ")";
  if (at_assumed < best.second)
    *text += fmt::format("; registers unknown before ptxas: at the assumed {}/thread only {} fit, {} fit at <= {}/thread",
                         R, at_assumed, best.second, fit);
  else
    *text += fmt::format("; registers unknown before ptxas, not limiting even at the assumed {}/thread", R);
  return out;
}

}  // namespace

nlohmann::json buildResourceReport(Gates& g) {
  const ir::Schedule& s = g.s;
  nlohmann::json rep;
  rep["schedule"] = s.name;
  rep["target"] = g.ti.known ? nlohmann::json(std::string(ir::targetName(g.ti.target))) : nlohmann::json(nullptr);

  // ---- shared memory
  // The lowering's placement (ir/smem_layout.h): what the gates prove and
  // what the kernel uses.
  const ir::SmemLayout L = ir::smemLayout(s);
  nlohmann::json pools = nlohmann::json::array();
  for (size_t p = 0; p < s.pools.size(); ++p) {
    nlohmann::json views = nlohmann::json::array();
    for (size_t v = 0; v < s.views.size(); ++v) {
      const ir::View& view = s.views[v];
      if (view.pool != static_cast<int>(p)) continue;
      views.push_back({{"name", view.name},
                       {"offset", quantity(g, view.offset ? view.offset : lit(0)).json},
                       {"slot_bytes", quantity(g, g.slotBytes(static_cast<int>(v))).json},
                       {"stages", view.stages},
                       {"bytes", quantity(g, g.viewBytes(static_cast<int>(v))).json},
                       {"dtype", std::string(ir::dtypeName(view.dtype))},
                       {"swizzle", std::string(ir::swizzleName(view.swizzle))},
                       {"align", g.view_align[v]}});
    }
    pools.push_back({{"name", s.pools[p].name},
                     {"bytes", quantity(g, s.pools[p].bytes ? s.pools[p].bytes : lit(0)).json},
                     {"base", quantity(g, L.pool_base[p]).json},
                     {"align", g.pool_align[p]},
                     {"views", views}});
  }
  nlohmann::json bars = nlohmann::json::array();
  for (const ir::Barrier& b : s.barriers) bars.push_back({{"name", b.name}, {"slots", b.count}, {"bytes", 8 * b.count}});
  Quantity total = quantity(g, L.total);
  rep["smem"] = {{"limit", g.ti.known ? nlohmann::json(g.ti.smem_per_block) : nlohmann::json(nullptr)},
                 {"total", total.json},
                 {"pools", pools},
                 {"barriers",
                  {{"slots", L.barrier_slots},
                   {"bytes", 8 * L.barrier_slots},
                   {"base", quantity(g, L.barrier_base).json},
                   {"list", bars}}},
                 {"tmem_slot", L.tmem_slot ? quantity(g, L.tmem_slot).json : nlohmann::json(nullptr)},
                 {"scratch", nlohmann::json(nullptr)}};
  if (!L.scratch_roles.empty()) {
    nlohmann::json names = nlohmann::json::array();
    for (int r : L.scratch_roles) names.push_back(s.roles[r].name);
    rep["smem"]["scratch"] = {{"base", quantity(g, L.scratch_base).json}, {"bound", L.scratch_bound}, {"roles", names}};
  }

  // ---- registers
  int warps = s.warpCount();
  int64_t R = g.ti.launchRegsPerThread(32 * warps);
  bool setmaxnreg = !g.ti.known || g.ti.setmaxnreg;
  nlohmann::json roles = nlohmann::json::array();
  std::vector<std::set<int>> frags(s.roles.size());
  for (const OpSite& site : g.sites) {
    if (site.role < 0) continue;
    for (const ir::BufferRef* r : {&site.op().dst, &site.op().src, &site.op().src2})
      if (r->kind == ir::BufferRef::Kind::Regs && r->index >= 0) frags[site.role].insert(r->index);
  }
  int64_t block_regs = 0;
  for (size_t i = 0; i < s.roles.size(); ++i) {
    const ir::Role& r = s.roles[i];
    int threads = 32 * std::max(r.warpsPerInstance(), 1);
    int64_t per = r.regs && setmaxnreg ? *r.regs : R;
    nlohmann::json fl = nlohmann::json::array();
    ExprPtr sum = lit(0);
    for (int k : frags[i]) {
      const ir::Regs& fr = s.regs[k];
      ExprPtr words = cdiv(mul(product(fr.shape), lit(ir::dtypeBytes(fr.dtype))), lit(4 * threads));
      sum = add(sum, words);
      fl.push_back({{"name", fr.name}, {"per_thread", quantity(g, words).json}});
    }
    int64_t regs_total = 32 * static_cast<int64_t>(r.warps.size()) * per;
    block_regs += regs_total;
    roles.push_back({{"name", r.name},
                     {"warps", r.warps},
                     {"instances", r.instanceCount()},
                     {"threads_per_instance", threads},
                     {"per_thread", per},
                     {"source", r.regs && setmaxnreg ? "setmaxnreg" : "launch"},
                     {"fragments", fl},
                     {"fragment_regs", quantity(g, sum).json},
                     {"registers", regs_total}});
  }
  // What the block holds: every warp (idle ones included) at its budget.
  int64_t alloc = 0;
  for (int w = 0; w < warps; ++w) {
    int64_t per = R;
    for (const ir::Role& r : s.roles)
      for (int x : r.warps)
        if (x == w && r.regs && setmaxnreg) per = *r.regs;
    alloc += 32 * per;
  }
  block_regs = alloc;
  rep["registers"] = {{"file", g.ti.register_file},
                      {"warps", warps},
                      {"threads", 32 * warps},
                      {"launch_per_thread", R},
                      {"roles", roles},
                      {"total", block_regs}};

  // ---- TMEM
  std::optional<int64_t> tmem_cols;
  if (!s.tmems.empty()) {
    nlohmann::json regions = nlohmann::json::array();
    int64_t hi = 0;
    bool known = true;
    for (const ir::Tmem& tm : s.tmems) {
      Quantity c = quantity(g, tm.cols ? tm.cols : lit(0));
      Quantity w = quantity(g, tm.width ? tm.width : lit(0));
      regions.push_back({{"name", tm.name}, {"cols", c.json}, {"width", w.json}});
      if (c.value && w.value) hi = std::max(hi, *c.value + *w.value);
      else known = false;
    }
    if (known) {
      int64_t alloc = 32;
      while (alloc < hi && alloc < ir::hw::kTmemColumns) alloc *= 2;
      tmem_cols = alloc;
    }
    rep["tmem"] = {{"capacity", ir::hw::kTmemColumns},
                   {"regions", regions},
                   {"allocated", tmem_cols ? nlohmann::json(*tmem_cols) : nlohmann::json(nullptr)}};
  } else {
    rep["tmem"] = nullptr;
  }

  // ---- blocks per SM
  std::string occupancy;
  if (g.ti.known && warps > 0 && warps <= g.ti.max_warps_per_block) {
    rep["blocks_per_sm"] = blocksPerSm(g.ti, total.value, warps, R, tmem_cols, &occupancy);
  } else {
    rep["blocks_per_sm"] = nullptr;
    occupancy = "blocks/SM unknown without a target";
  }

  // ---- the finding
  std::string smem_text =
      total.value ? fmt::format("{}{} B", total.symbolic ? "up to " : "", withCommas(*total.value))
                  : fmt::format("{} B", g.str(L.total));
  if (g.ti.known) smem_text += fmt::format(" of {} B", withCommas(g.ti.smem_per_block));
  std::string msg = fmt::format("resources of '{}': smem {}; {} warps; registers up to {} of {} (launch cap {}/thread)",
                                s.name, smem_text, warps, withCommas(block_regs), withCommas(g.ti.register_file), R);
  if (tmem_cols) msg += fmt::format("; TMEM {} of {} columns", *tmem_cols, ir::hw::kTmemColumns);
  msg += "; " + occupancy;
  ir::Finding f = g.finding("report.resources", s.range, msg);
  f.data = rep;
  g.emit(std::move(f));
  return rep;
}

}  // namespace cake::checks::layout
