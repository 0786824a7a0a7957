#include "search/tune.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "checks/check.h"
#include "gate/corpus_gate.h"
#include "search/candidates.h"

namespace fs = std::filesystem;

namespace cake::search {

namespace {

std::optional<std::string> readText(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = fmt::format("{}: cannot read", path);
    return std::nullopt;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The candidates of a spec: the baseline, the grid, the mutants.
std::optional<std::vector<Candidate>> generate(const TuneSpec& spec, std::string* error) {
  std::vector<Candidate> out;
  if (!spec.baseline.empty()) {
    auto text = readText(spec.baseline, error);
    if (!text) return std::nullopt;
    out.push_back({"baseline", "baseline", {}, "", spec.baseline, *text});
  }
  if (!spec.template_path.empty()) {
    auto text = readText(spec.template_path, error);
    if (!text) return std::nullopt;
    std::string e;
    auto grid = enumerateGrid(*text, spec.template_path, spec.schedule, spec.choices, &e);
    if (!grid) {
      *error = fmt::format("{}: {}", spec.template_path, e);
      return std::nullopt;
    }
    out.insert(out.end(), grid->begin(), grid->end());
  }
  for (const std::string& path : spec.mutate) {
    auto text = readText(path, error);
    if (!text) return std::nullopt;
    auto mutants = enumerateMutants(path, *text, error);
    if (!mutants) return std::nullopt;
    out.insert(out.end(), mutants->begin(), mutants->end());
  }
  return out;
}

void gate(Record& r, const ir::Schedule& s, unsigned timeout_ms) {
  checks::CheckOptions co;
  co.target = s.target;
  co.timeout_ms = timeout_ms;
  checks::CheckResult cr = checks::checkSchedule(s, co);
  if (cr.hasErrors()) {
    r.verdict = "rejected";
    for (const ir::Finding& f : cr.findings)
      if (f.severity == ir::Severity::Error) {
        r.rule = f.rule;
        r.detail = f.message;
        break;
      }
    return;
  }
  if (cr.undecided()) {
    // Unknown is never a pass: the candidate is not measured.
    r.verdict = "unknown";
    for (const checks::PropertyVerdict& v : cr.verdicts)
      if (v.kind == checks::VerdictKind::Unknown || v.kind == checks::VerdictKind::Error) {
        r.rule = v.property;
        r.detail = v.detail;
        break;
      }
    return;
  }
  r.verdict = "verified";
}

// Verified records ordered by prediction (unpredicted last), ties and the
// no-estimator case in enumeration order; ranks 1, 2, ...
void assignRanks(std::vector<Record>& records) {
  std::vector<size_t> order;
  for (size_t i = 0; i < records.size(); ++i) {
    records[i].rank = 0;
    if (records[i].verdict == "verified" && records[i].origin != "baseline") order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& pa = records[a].prediction;
    const auto& pb = records[b].prediction;
    if (pa.has_value() != pb.has_value()) return pa.has_value();
    return pa && pa->ms < pb->ms;
  });
  for (size_t k = 0; k < order.size(); ++k) records[order[k]].rank = static_cast<int>(k + 1);
}

}  // namespace

std::string resultsPath(const std::string& run_dir) { return (fs::path(run_dir) / "results.jsonl").string(); }
std::string candidatesDir(const std::string& run_dir) { return (fs::path(run_dir) / "candidates").string(); }

std::string safeName(const std::string& id) {
  std::string s;
  for (char c : id) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  if (s.size() > 120) s = s.substr(0, 100) + "_" + checks::gate::contentHash(id);
  return s;
}

std::optional<std::vector<Record>> gateAndRank(const TuneOptions& opts, std::string* error) {
  auto candidates = generate(opts.spec, error);
  if (!candidates) return std::nullopt;
  std::error_code ec;
  fs::create_directories(candidatesDir(opts.run_dir), ec);
  if (ec) {
    *error = fmt::format("{}: cannot create: {}", candidatesDir(opts.run_dir), ec.message());
    return std::nullopt;
  }
  auto previous = readRecords(resultsPath(opts.run_dir), error);
  if (!previous) return std::nullopt;
  std::map<std::string, Record> before;
  for (Record& r : *previous) before[r.id] = std::move(r);
  // Verdicts from another run of the same candidates (another shape): the
  // gate does not depend on the shape, the prediction does.
  std::map<std::string, Record> gated;
  if (!opts.verdicts_from.empty()) {
    auto other = readRecords(resultsPath(opts.verdicts_from), error);
    if (!other) return std::nullopt;
    for (Record& r : *other) gated[r.id] = std::move(r);
  }

  const size_t n = candidates->size();
  std::vector<Record> records(n);
  std::vector<Prepared> prepared(n);
  std::vector<bool> fresh(n, false), predict(n, false);
  // Front end + lowering (the dedupe key) for every candidate not already recorded.
  checks::gate::parallelFor(n, opts.jobs, [&](size_t i) {
    const Candidate& c = (*candidates)[i];
    Record& r = records[i];
    r.id = c.id;
    r.origin = c.origin;
    for (const auto& [k, v] : c.params) r.params[k] = v;
    r.mutation = c.mutation;
    r.source_path = (fs::path(candidatesDir(opts.run_dir)) / (safeName(c.id) + ".cake")).string();
    r.source_hash = checks::gate::contentHash(c.source);
    auto it = before.find(c.id);
    if (it != before.end() && it->second.source_hash == r.source_hash) {
      r = it->second;   // resume: unchanged text, keep what was found
      return;
    }
    std::ofstream(r.source_path, std::ios::trunc) << c.source;
    if (auto g = gated.find(c.id); g != gated.end() && g->second.source_hash == r.source_hash) {
      r.verdict = g->second.verdict;
      r.rule = g->second.rule;
      r.detail = g->second.detail;
      r.code_hash = g->second.code_hash;
      if (r.verdict == "verified" && opts.estimator) {
        prepared[i] = prepare(c, c.origin == "grid" ? opts.spec.schedule : "");
        predict[i] = prepared[i].schedule != nullptr;
      }
      return;
    }
    fresh[i] = true;
    prepared[i] = prepare(c, c.origin == "grid" ? opts.spec.schedule : "");
    const Prepared& p = prepared[i];
    r.code_hash = p.code_hash;
    if (!p.module) {
      r.verdict = "front_end_error";
      r.detail = firstLine(p.front_end_error);
    } else if (!p.excluded.empty()) {
      r.verdict = "excluded";
      r.detail = p.excluded;
    }
  });
  // Dedupe in enumeration order: the first candidate with a lowered code keeps it.
  std::map<std::string, std::string> first_with;
  for (size_t i = 0; i < n; ++i) {
    Record& r = records[i];
    if (r.code_hash.empty()) continue;
    auto [it, inserted] = first_with.emplace(r.code_hash, r.id);
    if (!inserted && r.origin != "baseline" && fresh[i]) {
      r.verdict = "duplicate";
      r.detail = it->second;
      fresh[i] = false;
    }
  }
  // Gate and predict what is new.
  checks::gate::parallelFor(n, opts.jobs, [&](size_t i) {
    Record& r = records[i];
    const Prepared& p = prepared[i];
    if (fresh[i] && r.verdict.empty()) {
      gate(r, *p.schedule, opts.check_timeout_ms);
      if (r.verdict == "verified" && !p.lowered) {
        r.verdict = "lower_error";
        r.detail = firstLine(p.lower_error);
      }
      predict[i] = r.verdict == "verified";
    }
    if (predict[i] && opts.estimator) r.prediction = opts.estimator(*p.schedule, opts.spec.workload);
  });
  assignRanks(records);
  if (!writeRecords(resultsPath(opts.run_dir), records, error)) return std::nullopt;
  return records;
}

std::vector<size_t> selectForMeasurement(const std::vector<Record>& records, int top_k, int limit, bool ungated) {
  std::vector<size_t> out;
  auto want = [&](size_t i) {
    if (static_cast<int>(out.size()) < limit && !records[i].measured()) out.push_back(i);
  };
  for (size_t i = 0; i < records.size(); ++i)
    if (records[i].origin == "baseline" && records[i].verdict == "verified") want(i);
  std::vector<size_t> ranked;
  for (size_t i = 0; i < records.size(); ++i)
    if (records[i].rank > 0 && (top_k <= 0 || records[i].rank <= top_k)) ranked.push_back(i);
  std::sort(ranked.begin(), ranked.end(), [&](size_t a, size_t b) { return records[a].rank < records[b].rank; });
  for (size_t i : ranked) want(i);
  if (ungated)
    for (size_t i = 0; i < records.size(); ++i)
      if (records[i].verdict == "rejected" || records[i].verdict == "unknown") want(i);
  return out;
}

}  // namespace cake::search
