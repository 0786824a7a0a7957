// The proofs' soundness audit (gate/proof_audit.h, docs/z3.md "Soundness audit").
#include "gate/proof_audit.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "checks/model_check.h"
#include "encoder/proof_budget.h"
#include "encoder/simulator.h"
#include "encoder/trip_proof.h"
#include "ir/diagnostic.h"
#include "ir/frontend.h"

namespace cake::checks::audit {

namespace fs = std::filesystem;
using encoder::Binding;

namespace {

// The lm.assume facts on b, evaluated as the bounded check evaluates them
// (checks/model_check.cpp BindingSearch::assumed: in a modelled cluster the
// binding's block index and grid name clusters, its rank-0 CTA's values).
bool assumed(const ir::Schedule& s, const Binding& b) {
  ir::EvalEnv e;
  e.params = b.params;
  e.instance = 0;
  for (int d = 0; d < 3; ++d) {
    const int64_t c = s.cluster_ops ? s.cluster[d] : 1;
    e.block_idx[d] = c * b.block_idx[d];
    e.grid_dim[d] = c * b.grid_dim[d];
  }
  for (int v = 0; v < static_cast<int>(s.loop_vars.size()); ++v) e.loop_vars[v] = 0;
  for (const auto& a : s.assumes) {
    auto v = ir::evaluate(*a.cond, e);
    if (!v || *v == 0) return false;
  }
  return true;
}

using Key = std::tuple<std::map<int, int64_t>, std::vector<int64_t>>;
Key keyOf(const Binding& b) {
  return {b.params, {b.block_idx[0], b.block_idx[1], b.block_idx[2], b.grid_dim[0], b.grid_dim[1], b.grid_dim[2]}};
}

size_t instructions(const encoder::System& sys) {
  size_t n = 0;
  for (const encoder::Process& p : sys.procs) n += p.program.size();
  return n;
}

uint64_t fnv(const std::string& s, uint64_t seed) {
  uint64_t h = 1469598103934665603ull ^ (seed * 0x9E3779B97F4A7C15ull);
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string verdictText(VerdictKind k) { return std::string(verdictName(k)); }

}  // namespace

std::vector<Binding> largerBindings(const ir::Schedule& s, const std::vector<Binding>& covering) {
  std::vector<Binding> out;
  if (covering.empty()) return out;
  // each parameter's covering values: the largest, and the gcd of all of
  // them and their differences (the step the assumptions' divisibility allows)
  std::map<int, int64_t> vmax, step;
  for (const Binding& b : covering)
    for (auto [p, v] : b.params) {
      auto [it, fresh] = vmax.try_emplace(p, v);
      if (!fresh) it->second = std::max(it->second, v);
    }
  for (auto [p, hi] : vmax) {
    int64_t g = 0;
    for (const Binding& b : covering)
      if (b.params.count(p)) {
        const int64_t v = b.params.at(p);
        g = std::gcd(g, v < 0 ? -v : v);
        g = std::gcd(g, hi - v);
      }
    step[p] = g > 0 ? g : 1;
  }
  auto candidates = [&](int p) {
    const int64_t hi = vmax.at(p), g = step.at(p);
    std::vector<int64_t> c{hi + g, hi + 2 * g, hi + 3 * g, 2 * hi, 2 * hi + g, 3 * hi, 4 * hi + g};
    // and geometric steps, for a parameter the covering values leave at
    // one value (C=1 of a conv whose trip count is 9 * lm.cdiv(C, 64))
    for (int j = 2; j <= 14; ++j) c.push_back(hi + (g << j));
    std::erase_if(c, [&](int64_t v) { return v <= hi; });
    return c;
  };
  // the grid: the dimensions some covering binding varies
  bool grid_varies[3] = {false, false, false};
  int64_t gmax[3] = {1, 1, 1};
  for (int d = 0; d < 3; ++d)
    for (const Binding& b : covering) {
      if (b.grid_dim[d] != covering.front().grid_dim[d] || b.block_idx[d] != covering.front().block_idx[d])
        grid_varies[d] = true;
      gmax[d] = std::max(gmax[d], b.grid_dim[d]);
    }
  std::set<Key> seen;
  for (const Binding& b : covering) seen.insert(keyOf(b));
  auto add = [&](const Binding& b) {
    if (assumed(s, b) && seen.insert(keyOf(b)).second) out.push_back(b);
  };
  // bases: the heaviest covering bindings (the last ones: the bounded
  // check orders them smallest first) and the one with every value largest
  std::vector<Binding> bases;
  for (size_t i = covering.size() > 3 ? covering.size() - 3 : 0; i < covering.size(); ++i) bases.push_back(covering[i]);
  Binding top = covering.back();
  for (auto [p, hi] : vmax) top.params[p] = hi;
  bases.push_back(top);
  for (size_t j = 0; j < 20; ++j) {
    // all parameters together, the j-th candidate of each
    Binding all = top;
    bool any = false;
    for (auto [p, hi] : vmax) {
      auto c = candidates(p);
      if (j < c.size()) all.params[p] = c[j], any = true;
    }
    if (any) add(all);
    // one parameter at a time, from each base
    for (const Binding& base : bases)
      for (auto [p, hi] : vmax) {
        auto c = candidates(p);
        if (j >= c.size()) continue;
        Binding b = base;
        b.params[p] = c[j];
        add(b);
      }
  }
  // Joins: two covering bindings with each parameter at the larger of
  // their values. The bounded check moves one parameter at a time from a
  // small base (a persistent kernel gets many tiles of one K iteration, or
  // one tile of many): a join gives several tiles of several iterations,
  // each value covered alone, never together.
  std::vector<Binding> joins;
  for (size_t i = 0; i < covering.size(); ++i)
    for (size_t j = i + 1; j < covering.size(); ++j) {
      Binding b = covering[j];
      for (auto [p, v] : covering[i].params) b.params[p] = std::max(v, b.params.count(p) ? b.params.at(p) : v);
      for (int d = 0; d < 3; ++d)
        if (covering[i].grid_dim[d] > b.grid_dim[d]) {
          b.grid_dim[d] = covering[i].grid_dim[d];
          b.block_idx[d] = covering[i].block_idx[d];
        }
      if (assumed(s, b) && seen.count(keyOf(b)) == 0) joins.push_back(b);
      add(b);
    }
  // larger grids, each block index of interest, at the base values, with
  // every parameter a step past its largest, and at the joins
  std::vector<Binding> grid_bases{top};
  if (!out.empty()) grid_bases.push_back(out.front());
  for (size_t i = 0; i < joins.size(); i += std::max<size_t>(1, joins.size() / 24)) grid_bases.push_back(joins[i]);
  for (int d = 0; d < 3; ++d) {
    if (!grid_varies[d]) continue;
    for (int64_t g : {gmax[d] + 1, 2 * gmax[d] + 1, 3 * gmax[d]})
      for (int64_t x : {int64_t{0}, int64_t{1}, g / 2, g - 1})
        for (const Binding& base : grid_bases) {
          if (x >= g) continue;
          Binding b = base;
          b.grid_dim[d] = g;
          b.block_idx[d] = x;
          add(b);
        }
  }
  return out;
}

void deepCheck(const ir::Schedule& s, const std::vector<Binding>& covering, const AuditOptions& opts,
               ScheduleAudit& a) {
  size_t largest = 0;
  std::set<uint64_t> seen;
  for (const Binding& b : covering) {
    std::string err;
    if (std::getenv("CAKE_AUDIT_DEBUG")) fmt::print(stderr, "covering {}\n", encoder::bindingToString(s, b));
    if (auto sys = encoder::buildSystem(s, b, s.target, &err)) {
      largest = std::max(largest, instructions(*sys));
      seen.insert(systemFingerprint(*sys));
    }
  }
  // every larger binding's system, distinct from the covering ones' and
  // from each other, within deep_growth times the largest covering one;
  // then deep_bindings of them spread over their sizes, the largest included
  struct Deep {
    Binding b;
    size_t size;
  };
  std::vector<Deep> pool;
  // (the build stops past the cap: a geometric step can ask for millions)
  encoder::BuildLimits cap;
  cap.max_instrs = largest * static_cast<size_t>(std::max(opts.deep_growth, 1)) + 1;
  for (const Binding& b : largerBindings(s, covering)) {
    std::string err;
    auto sys = encoder::buildSystem(s, b, s.target, &err, cap);
    if (std::getenv("CAKE_AUDIT_DEBUG"))
      fmt::print(stderr, "larger {}: {} ({} instructions, largest covering {})\n", encoder::bindingToString(s, b),
                 sys ? "built" : err, sys ? instructions(*sys) : 0, largest);
    if (!sys || instructions(*sys) > largest * static_cast<size_t>(opts.deep_growth)) continue;
    if (!seen.insert(systemFingerprint(*sys)).second) continue;
    pool.push_back({b, instructions(*sys)});
  }
  std::stable_sort(pool.begin(), pool.end(), [](const Deep& x, const Deep& y) { return x.size < y.size; });
  std::vector<size_t> pick;
  const size_t want = static_cast<size_t>(std::max(opts.deep_bindings, 0));
  if (pool.size() <= want) {
    for (size_t i = 0; i < pool.size(); ++i) pick.push_back(i);
  } else if (want == 1) {
    pick.push_back(pool.size() - 1);
  } else {
    for (size_t i = 0; i < want; ++i) pick.push_back(i * (pool.size() - 1) / (want - 1));
  }
  for (size_t i : pick) {
    const Binding& b = pool[i].b;
    std::string err;
    auto sys = encoder::buildSystem(s, b, s.target, &err);
    if (!sys) continue;
    encoder::ExploreOptions eo;
    eo.max_states = opts.deep_states;
    eo.timeout_ms = opts.wall_ms;
    encoder::ProofBudget work(encoder::ProofBudget::unitsFor(opts.deep_work_s), opts.wall_ms);
    eo.budget = &work;
    eo.stop_at_first = true;
    encoder::ModelCheckResult r = encoder::explore(*sys, eo);
    const std::string values = encoder::bindingToString(s, b);
    if (std::getenv("CAKE_AUDIT_DEBUG"))
      fmt::print(stderr, "deep {}: {} ({} states, {:.2f} s) {}\n", values, encoder::outcomeName(r.outcome), r.states,
                 r.seconds, r.detail);
    if (r.outcome == encoder::Outcome::Violation && !r.violations.empty()) {
      a.deep_values.push_back(values);
      ++a.deep_checked;
      a.discrepancy = fmt::format("proved-but-violating: proved ({}), the simulator finds {} at {}: {}", a.engine,
                                  r.violations.front().rule, values, r.violations.front().message);
      return;
    }
    if (r.outcome == encoder::Outcome::Unknown) {
      ++a.deep_too_large;
      continue;
    }
    a.deep_values.push_back(values);
    ++a.deep_checked;
  }
}

ScheduleAudit auditSchedule(const ir::Schedule& s, const AuditOptions& opts) {
  ScheduleAudit a;
  a.schedule = s.name;
  // `cake check`'s model checker, with its default budgets (work)
  CheckOptions co;
  co.target = s.target;
  co.timeout_ms = opts.wall_ms;
  co.bounded_timeout_ms = opts.bounded_timeout_ms;
  co.proof_timeout_ms = opts.proof_timeout_ms;
  ir::DiagnosticSink sink;
  std::vector<PropertyVerdict> verdicts;
  runModelChecker(s, co, sink, verdicts);
  a.verdict = "none";
  for (const PropertyVerdict& v : verdicts) {
    if (v.kind == VerdictKind::Counterexample) {
      if (a.bounded_rule.empty()) a.bounded_rule = v.property;
      a.verdict = "counterexample";
    } else if (v.property == "sync" && a.verdict != "counterexample") {
      a.verdict = verdictText(v.kind);
      if (v.kind == VerdictKind::Proved) a.engine = v.detail;
    }
  }
  for (const ir::Finding& f : sink.findings())
    if (f.severity == ir::Severity::Error && a.bounded_rule.empty()) {
      a.bounded_rule = f.rule;
      a.verdict = "counterexample";
    }
  const std::vector<Binding> covering = coveringBindings(s);
  if (a.verdict == "counterexample") {
    // Broken on the bounded check's values: the proof, run on it directly,
    // must not prove it.
    if (covering.empty()) return a;
    encoder::TripProofOptions to;
    to.work = encoder::ProofBudget::unitsFor(opts.bad_proof_ms / 1000.0);
    to.rlimit = encoder::ProofBudget::rlimitFor(opts.bad_proof_ms / 1000.0);
    to.timeout_ms = opts.wall_ms;
    encoder::ModelCheckResult r =
        opts.prove ? opts.prove(s, covering) : encoder::proveEveryTripCount(s, s.target, covering, to);
    a.bad_proof_run = true;
    a.bad_proof = std::string(encoder::outcomeName(r.outcome));
    if (r.outcome == encoder::Outcome::Proved)
      a.discrepancy = fmt::format("bad-but-proved: the bounded check finds {}, the proof says proved ({})",
                                  a.bounded_rule, r.engine);
    return a;
  }
  if (a.verdict != "proved") return a;
  deepCheck(s, covering, opts, a);
  return a;
}

std::vector<ScheduleAudit> auditText(const std::string& path, const std::string& text, const AuditOptions& opts) {
  ir::DiagnosticSink sink;
  auto mod = ir::compileModule(ir::makeSourceFile(path, text), {}, sink);
  std::vector<ScheduleAudit> out;
  if (!mod) return out;
  for (const ir::Schedule& s : mod->schedules) {
    out.push_back(auditSchedule(s, opts));
    out.back().file = path;
  }
  return out;
}

std::vector<mutate::Original> knownGoodOriginals(const std::string& root) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.path().extension() == ".cake" && e.path().string().find("/mutants/") == std::string::npos)
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<mutate::Original> out;
  const fs::path base = fs::path(root).parent_path();
  for (const fs::path& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    mutate::Original o{fs::path(f).lexically_relative(base.empty() ? fs::path(".") : base).string(), ss.str()};
    if (mutate::isEligible(o)) out.push_back(std::move(o));
  }
  return out;
}

bool sampled(const std::string& path, int every, uint64_t seed) {
  return every <= 1 || fnv(path, seed) % static_cast<uint64_t>(every) == 0;
}

std::vector<mutate::Mutant> sampleMutants(const std::vector<mutate::Original>& originals, int every, int per_file,
                                          uint64_t seed, size_t* enumerated) {
  std::vector<mutate::Mutant> out;
  std::set<std::string> bodies;
  size_t n = 0;
  for (const mutate::Original& o : originals) {
    int taken = 0;
    for (mutate::Mutant& m : mutate::enumerate(o)) {
      if (!bodies.insert(m.body).second) continue;
      ++n;
      if (!sampled(m.relativePath(), every, seed)) continue;
      if (per_file > 0 && taken >= per_file) continue;
      ++taken;
      out.push_back(std::move(m));
    }
  }
  if (enumerated) *enumerated = n;
  // in the order of the hash: a run cut short by a time box has audited a
  // uniform sample, not the first folders
  std::stable_sort(out.begin(), out.end(), [&](const mutate::Mutant& x, const mutate::Mutant& y) {
    return fnv(x.relativePath(), seed + 1) < fnv(y.relativePath(), seed + 1);
  });
  return out;
}

std::string auditLine(const ScheduleAudit& a) {
  std::string line = fmt::format("{} {} {}", a.file, a.schedule, a.verdict);
  if (!a.bounded_rule.empty()) line += " " + a.bounded_rule;
  if (a.bad_proof_run) line += " proof-on-broken=" + a.bad_proof;
  if (a.verdict == "proved") {
    line += fmt::format(" deep={} cut={}", a.deep_checked, a.deep_too_large);
    std::string vs;
    for (const std::string& v : a.deep_values) vs += (vs.empty() ? "" : "; ") + v;
    if (!vs.empty()) line += " [" + vs + "]";
  }
  if (!a.discrepancy.empty()) line += " DISCREPANCY " + a.discrepancy;
  return line;
}

}  // namespace cake::checks::audit
