#include "search/ablate.h"

#include <algorithm>

#include <fmt/format.h>

namespace cake::search {

namespace {

bool broken(const std::string& result) { return result == "wrong" || result == "hang" || result == "crash"; }

// Results recorded without a GPU run.
bool offGpu(const std::string& result) {
  return result.empty() || result == "lower_error" || result == "unsupported_shape" || result == "no_oracle" ||
         result == "compile_error" || result == "no_gpu";
}

void count(GateArm& arm, const Record& r) {
  const std::string res = r.result();
  if (offGpu(res)) return;
  ++arm.runs;
  arm.seconds += r.gpu_wall_s;
  if (res == "ok") {
    ++arm.ok;
    return;
  }
  if (broken(res)) ++arm.broken;
  else ++arm.failed;
  arm.broken_seconds += r.gpu_wall_s;
  if (res == "hang") ++arm.hangs;
}

// Runs needed to reach a good candidate when measuring in `order` (1-based); 0: never.
int runsToGood(const std::vector<const Record*>& order, double limit) {
  for (size_t k = 0; k < order.size(); ++k)
    if (auto ms = order[k]->measuredMs(); ms && *ms <= limit) return static_cast<int>(k + 1);
  return 0;
}

}  // namespace

Ablation ablate(const std::string& run_name, const std::vector<Record>& records, double within) {
  Ablation a;
  a.run = run_name;
  std::vector<const Record*> enumeration, ranked;
  for (const Record& r : records) {
    if (r.origin == "baseline") continue;
    const bool gated_out = r.verdict == "rejected" || r.verdict == "unknown";
    if (gated_out) ++a.rejected, a.rejected_measured += r.measured();
    if (r.measured() && r.verdict == "verified") count(a.gated, r);
    if (r.measured() && (r.verdict == "verified" || gated_out)) count(a.ungated, r);
    if (r.verdict != "verified") continue;
    ++a.model.verified;
    if (r.measured()) ++a.model.measured;
    enumeration.push_back(&r);
    ranked.push_back(&r);
  }
  ModelArm& m = a.model;
  m.exhaustive = m.verified > 0 && m.measured == m.verified;
  if (!m.exhaustive) return a;
  std::sort(ranked.begin(), ranked.end(), [](const Record* x, const Record* y) { return x->rank < y->rank; });
  std::optional<double> best;
  const Record* best_r = nullptr;
  for (const Record* r : enumeration)
    if (auto ms = r->measuredMs(); ms && (!best || *ms < *best)) best = ms, best_r = r;
  if (!best) return a;
  const double limit = *best * (1 + within);
  for (const Record* r : enumeration)
    if (auto ms = r->measuredMs(); ms && *ms <= limit) ++m.good;
  m.runs_model = runsToGood(ranked, limit);
  m.runs_enumeration = runsToGood(enumeration, limit);
  // The first good one in a uniformly random order of n with g good: (n + 1) / (g + 1).
  m.runs_random = static_cast<double>(m.verified + 1) / (m.good + 1);
  m.best_rank = best_r->rank;
  m.top3_has_best = best_r->rank >= 1 && best_r->rank <= 3;
  for (const Record* r : ranked)
    if (auto ms = r->measuredMs(); r->rank >= 1 && r->rank <= 3 && ms && *ms <= limit) m.top3_has_good = true;
  return a;
}

std::string ablationTable(const std::vector<Ablation>& runs) {
  std::string t;
  t += "(a) with gates / (b) without gates: GPU runs on broken candidates\n\n";
  t += "| run | arm | GPU runs | ok | broken (wrong/hang/crash) | hangs | other GPU failures | GPU s | GPU s on "
       "broken + failed |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const Ablation& a : runs) {
    auto row = [&](const std::string& arm, const GateArm& g) {
      t += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {:.1f} | {:.1f} |\n", a.run, arm, g.runs, g.ok, g.broken,
                       g.hangs, g.failed, g.seconds, g.broken_seconds);
    };
    row("(a) with gates", a.gated);
    if (a.rejected_measured == 0)
      t += fmt::format("| {} | (b) without gates | not measured ({} rejected/unknown; run with --ungated) | | | | | | |\n",
                       a.run, a.rejected);
    else
      row(fmt::format("(b) without gates ({} of {} rejected measured)", a.rejected_measured, a.rejected), a.ungated);
  }
  t += "\n(c) with vs. without the cost model: GPU runs to reach a candidate within 2% of the measured best\n\n";
  t += "| run | verified | within 2% | model order | enumeration order | random order (expected) | best's rank | "
       "top 3 holds best | top 3 holds one within 2% |\n|---|---|---|---|---|---|---|---|---|\n";
  int exhaustive = 0, hits = 0, good_hits = 0;
  for (const Ablation& a : runs) {
    const ModelArm& m = a.model;
    if (!m.exhaustive) {
      t += fmt::format("| {} | {} | needs every verified candidate measured ({} of {}) | | | | | | |\n", a.run,
                       m.verified, m.measured, m.verified);
      continue;
    }
    ++exhaustive;
    hits += m.top3_has_best;
    good_hits += m.top3_has_good;
    t += fmt::format("| {} | {} | {} | {} | {} | {:.1f} | {} | {} | {} |\n", a.run, m.verified, m.good, m.runs_model,
                     m.runs_enumeration, m.runs_random, m.best_rank, m.top3_has_best ? "yes" : "no",
                     m.top3_has_good ? "yes" : "no");
  }
  if (exhaustive > 0) {
    t += fmt::format("\ntop 3 holds the measured best in {} of {} exhaustive run(s) ({:.0f}%)\n", hits, exhaustive,
                     100.0 * hits / exhaustive);
    t += fmt::format("top 3 holds a candidate within 2% of it in {} of {} ({:.0f}%)\n", good_hits, exhaustive,
                     100.0 * good_hits / exhaustive);
  }
  return t;
}

}  // namespace cake::search
