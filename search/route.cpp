#include "search/route.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "search/tune.h"

namespace fs = std::filesystem;

namespace cake::search {

namespace {

bool isGpuDefect(const std::string& result) { return result == "wrong" || result == "hang" || result == "crash"; }

// The corpus case: the candidate's text under a header with the evidence.
bool writeCorpusCase(const Record& r, const TuneSpec& spec, const std::string& dir, std::string* error) {
  std::ifstream in(r.source_path);
  std::stringstream body;
  body << in.rdbuf();
  if (!in) {
    *error = fmt::format("{}: cannot read the candidate", r.source_path);
    return false;
  }
  const auto& m = r.measurement;
  std::string evidence = m.value("result", std::string());
  if (m.contains("rel_error") && m["rel_error"].is_number()) evidence += fmt::format(" (rel_error {:.3g})", m["rel_error"].get<double>());
  if (m.contains("detail") && m["detail"].is_string()) evidence += ": " + firstLine(m["detail"].get<std::string>());
  std::ofstream out(fs::path(dir) / (safeName(r.id) + ".cake"), std::ios::trunc);
  out << fmt::format(
      "# tune finding: `cake check` verified this candidate, but on the GPU it is {}\n"
      "# candidate: {}{}\n"
      "# workload: {} {}\n"
      "# triage: a verifier defect (give the rule it misses: `# expect: <rule>`) or a lowering\n"
      "# defect (`# expect: pass` and a lowering test), then move it into corpus/.\n",
      evidence, r.id, r.mutation.empty() ? "" : " (" + r.mutation + ")", spec.workload.kind(), spec.workload.text());
  out << body.str();
  return static_cast<bool>(out);
}

double relError(double predicted, double measured) { return std::fabs(predicted - measured) / measured; }

}  // namespace

std::optional<Report> route(std::vector<Record>& records, const TuneSpec& spec, const std::string& run_dir,
                            std::string* error) {
  Report rep;
  const fs::path corpus_dir = fs::path(run_dir) / "findings" / "corpus";
  const fs::path calib_path = fs::path(run_dir) / "findings" / "calibration.jsonl";
  std::error_code ec;
  fs::create_directories(corpus_dir, ec);
  std::ofstream calib(calib_path, std::ios::trunc);   // rebuilt from the records: routing is idempotent
  for (size_t i = 0; i < records.size(); ++i) {
    Record& r = records[i];
    ++rep.verdicts[r.verdict];
    r.route.clear();
    if (!r.measured()) continue;
    ++rep.measured;
    rep.gpu_seconds += r.gpu_wall_s;
    const bool verified = r.verdict == "verified";
    auto ms = r.measuredMs();
    if (verified && isGpuDefect(r.result())) {
      if (!writeCorpusCase(r, spec, corpus_dir.string(), error)) return std::nullopt;
      r.route = "corpus";
      rep.to_corpus.push_back(i);
      continue;
    }
    if (!verified || !ms) continue;
    if (r.origin == "baseline") {
      rep.baseline = i;
    } else if (!rep.best || *ms < *records[*rep.best].measuredMs()) {
      rep.best = i;
    }
    if (r.prediction && relError(r.prediction->ms, *ms) > spec.calibration_error) {
      calib << nlohmann::json{{"id", r.id},
                              {"source", r.source_path},
                              {"workload", {{"kind", spec.workload.kind()}, {"shape", spec.workload.text()}}},
                              {"predicted_ms", r.prediction->ms},
                              {"bottleneck", r.prediction->bottleneck},
                              {"measured_ms", *ms},
                              {"rel_error", relError(r.prediction->ms, *ms)}}
                   .dump()
            << '\n';
      r.route = "calibration";
      rep.to_calibration.push_back(i);
    }
  }

  std::string t = fmt::format("# cake tune report\n\nworkload: {} {}\n\n", spec.workload.kind(), spec.workload.text());
  t += "| verdict | candidates |\n|---|---|\n";
  for (const auto& [v, n] : rep.verdicts) t += fmt::format("| {} | {} |\n", v, n);
  t += fmt::format("\nmeasured: {} ({:.1f} GPU seconds)\n", rep.measured, rep.gpu_seconds);
  if (rep.best) {
    const Record& b = records[*rep.best];
    t += fmt::format("best: {} {:.4f} ms", b.id, *b.measuredMs());
    if (b.prediction) t += fmt::format(" (predicted {:.4f} ms, rank {})", b.prediction->ms, b.rank);
    if (b.measurement.contains("baseline_ms") && b.measurement["baseline_ms"].is_number())
      t += fmt::format(", cuBLAS {:.4f} ms", b.measurement["baseline_ms"].get<double>());
    t += "\n";
    if (rep.baseline)
      t += fmt::format("ratio to the baseline: {:.3f}x (baseline {:.4f} ms / best)\n",
                       *records[*rep.baseline].measuredMs() / *b.measuredMs(), *records[*rep.baseline].measuredMs());
    else
      t += "ratio to the baseline: none (no baseline measured)\n";
  } else {
    t += "best: none (no verified candidate measured correct)\n";
  }
  t += fmt::format("\nfindings -> corpus ({}): {}\n", rep.to_corpus.size(), corpus_dir.string());
  for (size_t i : rep.to_corpus) t += fmt::format("  {} ({})\n", records[i].id, records[i].result());
  t += fmt::format("findings -> calibration ({}): {}\n", rep.to_calibration.size(), calib_path.string());
  for (size_t i : rep.to_calibration)
    t += fmt::format("  {} predicted {:.4f} ms, measured {:.4f} ms\n", records[i].id, records[i].prediction->ms,
                     *records[i].measuredMs());
  rep.text = t;
  std::ofstream(fs::path(run_dir) / "report.md", std::ios::trunc) << t;
  return rep;
}

}  // namespace cake::search
