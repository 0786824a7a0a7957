#include "encoder/testing/z3_differential.h"

#include <algorithm>
#include <chrono>
#include <ostream>
#include <vector>

#include <fmt/format.h>

#include "encoder/simulator.h"

namespace cake::encoder {

DiffEngine bmcEngine(const Z3BmcOptions& opts) {
  return [opts](const System& sys) {
    Z3BmcResult r = bmcCheck(sys, opts);
    return DiffRun{std::move(r.result), r.internal_error, std::move(r.error), r.depth};
  };
}

DiffEngine poEngine(const PoOptions& opts) {
  return [opts](const System& sys) {
    PoResult r = poCheck(sys, opts);
    return DiffRun{std::move(r.result), r.internal_error, std::move(r.error), r.events};
  };
}

DiffCase diffOne(const RandomSchedule& rs, const DiffEngine& engine) {
  DiffCase dc;
  dc.description = rs.description;
  std::string err;
  auto sys = buildSystem(rs.schedule, rs.binding, rs.schedule.target, &err);
  if (!sys) {
    dc.detail = "build: " + err;
    return dc;
  }
  dc.built = true;
  // every rule the explorer can reach, not only those near the first one
  ModelCheckResult sim = explore(*sys, everyRule());
  DiffRun bmc = engine(*sys);
  dc.sim_seconds = sim.seconds;
  dc.bmc_seconds = bmc.result.seconds;
  dc.depth = bmc.depth;
  for (const auto& v : sim.violations) dc.sim_rules.insert(v.rule);
  for (const auto& v : bmc.result.violations) dc.bmc_rules.insert(v.rule);
  dc.internal_error = bmc.internal_error;
  dc.decided = sim.outcome != Outcome::Unknown && bmc.result.outcome != Outcome::Unknown;
  dc.agree = dc.decided && !dc.internal_error && dc.sim_rules == dc.bmc_rules;
  auto join = [](const std::set<std::string>& s) {
    std::string o;
    for (const auto& r : s) o += (o.empty() ? "" : ",") + r;
    return o.empty() ? std::string("none") : o;
  };
  dc.detail = fmt::format("sim={} [{}] bmc={} [{}]{}", outcomeName(sim.outcome), join(dc.sim_rules),
                          outcomeName(bmc.result.outcome), join(dc.bmc_rules),
                          bmc.internal_error ? " internal: " + bmc.error
                          : bmc.result.outcome == Outcome::Unknown ? " (" + bmc.result.detail + ")"
                          : sim.outcome == Outcome::Unknown ? " (" + sim.detail + ")" : "");
  return dc;
}

DiffStats runDifferential(uint64_t seed, int n, const RandomScheduleOptions& ro, const DiffEngine& engine,
                          std::ostream* log, bool verbose, double budget_s) {
  DiffStats st;
  auto t0 = std::chrono::steady_clock::now();
  std::mt19937_64 rng(seed);
  std::vector<double> times;
  for (int i = 0; i < n; ++i) {
    if (budget_s > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > budget_s) break;
    RandomSchedule rs = randomSchedule(rng, ro);
    DiffCase dc = diffOne(rs, engine);
    ++st.runs;
    if (!dc.built) {
      ++st.not_built;
      if (log) *log << fmt::format("#{} not built: {} ({})\n", i, dc.detail, dc.description);
      continue;
    }
    times.push_back(dc.bmc_seconds);
    st.sim_max = std::max(st.sim_max, dc.sim_seconds);
    if (dc.internal_error) ++st.internal_errors;
    if (!dc.decided) {
      ++st.undecided;
      if (log) *log << fmt::format("#{} undecided: {} | {}\n", i, dc.description, dc.detail);
      continue;
    }
    if (dc.agree) {
      ++st.agree;
      if (dc.sim_rules.empty()) ++st.passing;
      for (const auto& r : dc.sim_rules) ++st.rules[r];
      if (log && verbose) *log << fmt::format("#{} ok {:.3f}s depth {}: {} | {}\n", i, dc.bmc_seconds, dc.depth,
                                              dc.description, dc.detail);
    } else {
      ++st.disagree;
      if (log) *log << fmt::format("#{} DISAGREE: {} | {}\n", i, dc.description, dc.detail);
    }
  }
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    st.bmc_median = times[times.size() / 2];
    st.bmc_max = times.back();
  }
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

}  // namespace cake::encoder
