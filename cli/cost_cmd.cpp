// `cake cost FILE --workload W --shape ... [--set P=V] [--format text|json]`,
// `cake cost calibrate RECORDS.jsonl [-o FILE]` and
// `cake cost evaluate RECORDS.jsonl [--coefficients FILE]`.
//
// A record (one JSON line, as bench/gpu/device_cost_sweep.sh writes them):
//   {"file": "corpus/gemm/sm90_ws_4stage.cake", "schedule": "...", "workload": "gemm",
//    "shape": "M=4096,N=4096,K=4096", "sets": {"BM": 128}, "split": "calibrate" | "holdout",
//    "choices": {"BN": 64, "STAGES": 7}   (optional: a `cake tune` template's choices, bound as constants
//                                          in the text as tune binds them, search::instantiate),
//    "record": <the runner's evidence record>, "ncu": {"sm_pct": .., "mem_pct": ..}}
// Only records whose evidence says result "ok" count.
#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/cost.h"
#include "cli/load.h"
#include "costmodel/calibrate.h"
#include "costmodel/estimate.h"
#include "search/candidates.h"
#include "workload/workload.h"

namespace cake::cli {

std::optional<costmodel::Estimate> costOf(const ir::Schedule& s, const std::string& workload_name,
                                          const std::string& shape_text, const std::map<std::string, int64_t>& sets,
                                          std::string* error, bool coverage) {
  auto kind = workload::parseKind(workload_name);
  if (!kind) {
    *error = fmt::format("unknown workload '{}' (expected {})", workload_name, workload::kindList());
    return std::nullopt;
  }
  auto shape = workload::parseShape(*kind, shape_text, error);
  if (!shape) {
    *error = fmt::format("bad --shape '{}': {}", shape_text, *error);
    return std::nullopt;
  }
  return costmodel::estimate(s, *shape, sets, coverage);
}

std::string costText(const costmodel::Estimate& e) {
  if (!e.ok) return "cost: " + e.error + "\n";
  std::string out = fmt::format("cost: {:.4f} ms predicted, {} (of peak: memory {:.0f}%, tensor cores {:.0f}%, CUDA cores {:.0f}%)\n",
                                e.time_ms, costmodel::bottleneckName(e.bottleneck), 100 * e.utilization.at("memory"),
                                100 * e.utilization.at("tensor"), 100 * e.utilization.at("core"));
  for (const costmodel::Term& t : e.deciding) out += fmt::format("  {:<9} {:>9.4f} ms  {}\n", t.name, t.ms, t.why);
  return out;
}

namespace {

struct CostArgs {
  std::string file, target, schedule, workload = "gemm", shape, format = "text";
  std::vector<std::string> set;
  std::string records, output, coefficients, split = "holdout";
  bool all_terms = false;
};

int runCost(const CostArgs& a) {
  int exit_code;
  LoadedSchedule ls = load(a.file, a.target, a.schedule, exit_code);
  if (!ls.schedule) return loadFailed(ls, a.format, exit_code);
  auto sets = parseSettings(a.set);
  if (!sets) return failureJson(a.format, "error", "bad --set (expected NAME=INTEGER)", kCannotCheck);
  std::string error;
  auto e = costOf(*ls.schedule, a.workload, a.shape, *sets, &error);
  if (!e) {
    fmt::print(stderr, "cake: error: {}\n", error);
    return failureJson(a.format, "error", error, kCannotCheck);
  }
  if (a.format == "json") {
    nlohmann::json j = costmodel::toJson(*e);
    j["file"] = a.file;
    j["schedule"] = ls.schedule->name;
    j["workload"] = a.workload;
    j["shape"] = a.shape;
    j["coefficients"] = costmodel::Coefficients::load(ls.schedule->target).source;
    fmt::print("{}\n", ir::dumpJson(j, 2));
  } else {
    fmt::print("{}: schedule '{}' ({} {}): {}", a.file, ls.schedule->name, a.workload, a.shape, costText(*e));
    if (a.all_terms && e->ok)
      for (const costmodel::Term& t : e->terms) fmt::print("    {:<9} {:>9.4f} ms  {}\n", t.name, t.ms, t.why);
  }
  return e->ok ? kOk : kCannotCheck;
}

// One usable record: the schedule's raw terms and the measured time.
struct Loaded {
  costmodel::Sample sample;
  std::string workload, split;
  costmodel::Bottleneck predicted_class = costmodel::Bottleneck::Latency;
  std::string ncu_bucket;  // memory | compute | latency, "" without ncu figures
  nlohmann::json facts;    // what the walk found (evaluate --format json shows it per pair)
  // the speed-of-light bucket the model's rule gives at the measured time
  // instead of the predicted one (its utilizations scale as 1 / time): how
  // far the class mapping itself agrees with ncu, time errors aside
  std::string bucket_at_measured;
};

// Nsight Compute's speed-of-light reading, by the rule the model's class uses.
std::string solOf(const nlohmann::json& ncu) {
  if (!ncu.is_object() || !ncu.contains("sm_pct") || !ncu.contains("mem_pct")) return "";
  return std::string(costmodel::solRule(ncu["sm_pct"].get<double>(), ncu["mem_pct"].get<double>()));
}

std::vector<Loaded> loadRecords(const std::string& path, std::string* error) {
  std::vector<Loaded> out;
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read " + path;
    return out;
  }
  std::string line;
  int n = 0;
  std::map<std::string, std::optional<ir::Module>> modules;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const std::exception& ex) {
      *error = fmt::format("{}:{}: not JSON: {}", path, n, ex.what());
      return {};
    }
    const auto& rec = j.value("record", nlohmann::json::object());
    if (rec.value("result", std::string()) != "ok" || !rec.contains("median_ms") || !rec["median_ms"].is_number())
      continue;
    const std::string file = j.value("file", std::string());
    search::Assignment choices;
    const nlohmann::json choice_values = j.value("choices", nlohmann::json::object());  // a named copy: items() refers to it
    for (const auto& [k, v] : choice_values.items()) choices.emplace_back(k, v.get<int64_t>());
    const std::string key = file + " " + search::assignmentId(choices);
    if (!modules.count(key)) {
      std::string err;
      ir::SourceFilePtr f = ir::readSourceFile(file, err);
      if (f && !choices.empty()) {
        auto text = search::instantiate(f->text, file, j.value("schedule", std::string()), choices, &err);
        f = text ? ir::makeSourceFile(fmt::format("{}[{}]", file, search::assignmentId(choices)), *text) : nullptr;
      }
      ir::DiagnosticSink sink;
      modules[key] = f ? ir::compileModule(f, {}, sink) : std::nullopt;
    }
    const auto& mod = modules[key];
    if (!mod || mod->schedules.empty()) {
      *error = fmt::format("{}:{}: cannot compile '{}'", path, n, file);
      return {};
    }
    const ir::Schedule* s = &mod->schedules[0];
    for (const ir::Schedule& x : mod->schedules)
      if (x.name == j.value("schedule", std::string())) s = &x;
    std::map<std::string, int64_t> sets;
    const nlohmann::json set_values = j.value("sets", nlohmann::json::object());
    for (const auto& [k, v] : set_values.items()) sets[k] = v.get<int64_t>();
    std::string err;
    // the pair ran (result ok): its binding is known good, the coverage walk is not needed
    auto e = costOf(*s, j.value("workload", std::string("gemm")), j.value("shape", std::string()), sets, &err,
                    /*coverage=*/false);
    if (!e || !e->ok) {
      *error = fmt::format("{}:{}: {}", path, n, e ? e->error : err);
      return {};
    }
    Loaded l;
    l.sample.id = fmt::format("{} {} {}{}", file, j.value("shape", std::string()), j.value("sets", nlohmann::json::object()).dump(),
                              choices.empty() ? "" : " " + search::assignmentId(choices));
    l.sample.raw = e->raw;
    l.sample.measured_ms = rec["median_ms"].get<double>();
    l.workload = j.value("workload", std::string("gemm"));
    l.split = j.value("split", std::string("calibrate"));
    l.predicted_class = e->bottleneck;
    l.ncu_bucket = solOf(j.value("ncu", nlohmann::json()));
    l.facts = costmodel::toJson(*e).value("facts", nlohmann::json::object());
    const double scale = e->time_ms / l.sample.measured_ms;
    l.bucket_at_measured = costmodel::solRule(100 * scale * std::max(e->utilization["tensor"], e->utilization["core"]),
                                              100 * scale * e->utilization["memory"]);
    out.push_back(std::move(l));
  }
  return out;
}

int runCalibrate(const CostArgs& a) {
  std::string error;
  auto recs = loadRecords(a.records, &error);
  if (!error.empty()) {
    fmt::print(stderr, "cake: error: {}\n", error);
    return kCannotCheck;
  }
  std::vector<costmodel::Sample> samples;
  for (const Loaded& l : recs)
    if (l.split != "holdout") samples.push_back(l.sample);
  if (samples.empty()) {
    fmt::print(stderr, "cake: error: {} holds no usable calibration record (result ok, split != holdout)\n", a.records);
    return kCannotCheck;
  }
  // the sm_90a row: the fitted file is the H200's (costmodel/coefficients/sm_90a.json)
  costmodel::Fit fit = costmodel::calibrate(samples, {}, costmodel::physicalFloors(costmodel::hardware(ir::Target::SM90a)));
  nlohmann::json j = fit.k.toJson();
  j["target"] = "sm_90a";
  j["records"] = a.records;
  j["samples"] = fit.samples;
  j["floors"] = costmodel::physicalFloors(costmodel::hardware(ir::Target::SM90a));
  j["iterations"] = fit.iterations;
  j["median_abs_rel_error_fitted"] = fit.median_abs_rel;
  const std::string text = ir::dumpJson(j, 2);
  if (a.output.empty()) {
    fmt::print("{}\n", text);
  } else {
    std::ofstream o(a.output, std::ios::trunc);
    o << text << "\n";
    if (!o) {
      fmt::print(stderr, "{}: error: cannot write [io.error]\n", a.output);
      return kCannotCheck;
    }
    fmt::print(stderr, "cake: fitted {} samples in {} iterations, median |rel error| {:.1f}% -> {}\n", fit.samples,
               fit.iterations, 100 * fit.median_abs_rel, a.output);
  }
  return kOk;
}

int runEvaluate(const CostArgs& a) {
  if (!a.coefficients.empty()) setenv("CAKE_COST_COEFFICIENTS", a.coefficients.c_str(), 1);
  std::string error;
  auto recs = loadRecords(a.records, &error);
  if (!error.empty()) {
    fmt::print(stderr, "cake: error: {}\n", error);
    return kCannotCheck;
  }
  const costmodel::Coefficients k = costmodel::Coefficients::load(ir::Target::SM90a);
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> per;  // workload -> (pred, meas)
  std::vector<double> pred_all, meas_all;
  int agree = 0, with_ncu = 0;
  nlohmann::json rows = nlohmann::json::array();
  for (const Loaded& l : recs) {
    if (l.split != a.split) continue;
    std::string main;
    const double p = costmodel::combine(l.sample.raw, k, &main);
    per[l.workload].first.push_back(p);
    per[l.workload].second.push_back(l.sample.measured_ms);
    pred_all.push_back(p);
    meas_all.push_back(l.sample.measured_ms);
    rows.push_back({{"id", l.sample.id},
                    {"workload", l.workload},
                    {"predicted_ms", p},
                    {"measured_ms", l.sample.measured_ms},
                    {"class", costmodel::bottleneckName(l.predicted_class)},
                    {"bucket_at_measured_time", l.bucket_at_measured},
                    {"ncu", l.ncu_bucket},
                    {"main", main},
                    {"raw", l.sample.raw},
                    {"facts", l.facts}});
  }
  std::map<std::string, int> confusion;  // "predicted/ncu" -> count
  int agree_at_measured = 0;
  for (const Loaded& l : recs) {
    if (l.split != a.split || l.ncu_bucket.empty()) continue;
    ++with_ncu;
    agree_at_measured += l.bucket_at_measured == l.ncu_bucket;
    const std::string_view b = costmodel::solBucket(l.predicted_class);
    agree += b == l.ncu_bucket;
    ++confusion[fmt::format("{} ({}) / ncu {}", costmodel::bottleneckName(l.predicted_class), b, l.ncu_bucket)];
  }
  auto summary = [](const std::string& w, const std::vector<double>& p, const std::vector<double>& m) {
    return nlohmann::json{{"workload", w},
                          {"pairs", p.size()},
                          {"median_abs_rel_error", costmodel::medianAbsRelError(p, m)},
                          {"spearman", costmodel::spearman(p, m)}};
  };
  if (a.format == "json") {
    // One document, nothing else on stdout: an agent parses every byte.
    nlohmann::json out{{"coefficients", k.source}, {"split", a.split}, {"workloads", nlohmann::json::array()}};
    for (const auto& [w, pm] : per) out["workloads"].push_back(summary(w, pm.first, pm.second));
    out["all"] = summary("all", pred_all, meas_all);
    out["ncu"] = {{"pairs", with_ncu}, {"agree", agree}, {"agree_at_measured_time", agree_at_measured},
                  {"confusion", confusion}};
    out["pairs"] = rows;
    fmt::print("{}\n", ir::dumpJson(out));
    return kOk;
  }
  auto printRow = [](const nlohmann::json& row) {
    fmt::print("{:<16} {:>6} {:>13.1f}% {:>10.3f}\n", row["workload"].get<std::string>(), row["pairs"].get<size_t>(),
               100 * row["median_abs_rel_error"].get<double>(), row["spearman"].get<double>());
  };
  fmt::print("coefficients: {}\n", k.source);
  fmt::print("{:<16} {:>6} {:>14} {:>10}\n", "workload", "pairs", "median |rel|", "Spearman");
  for (const auto& [w, pm] : per) printRow(summary(w, pm.first, pm.second));
  printRow(summary("all", pred_all, meas_all));
  if (with_ncu) {
    fmt::print("bottleneck class vs ncu speed of light: {} of {} agree ({:.0f}%)\n", agree, with_ncu,
               100.0 * agree / with_ncu);
    for (const auto& [k2, n] : confusion) fmt::print("  {:>3}  {}\n", n, k2);
    fmt::print("the same rule at the measured times (the class mapping's ceiling): {} of {} agree ({:.0f}%)\n",
               agree_at_measured, with_ncu, 100.0 * agree_at_measured / with_ncu);
  }
  return kOk;
}

}  // namespace

void addCostCommand(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<CostArgs>();
  CLI::App* cost = app.add_subcommand("cost", "Predicted time and bottleneck of a schedule for a problem (the cost model)");
  cost->add_option("file", a->file, "CAKE IR file");
  cost->add_option("--workload", a->workload, "the problem contract: " + workload::kindList() + " (default gemm)");
  cost->add_option("--shape", a->shape, "problem size (as for cake run)");
  cost->add_option("--set", a->set, "give an i32 parameter the workload does not size a value, e.g. --set BM=64");
  cost->add_option("--target", a->target, "sm_80 | sm_90a | sm_100a")->check(knownTarget());
  cost->add_option("--schedule", a->schedule, "schedule name when the file holds several");
  cost->add_option("--format", a->format, "output format")->check(CLI::IsMember({"text", "json"}));
  cost->add_flag("--all-terms", a->all_terms, "print every term, not only the deciding ones");
  CLI::App* cal = cost->add_subcommand("calibrate", "Fit the model's coefficients to measured records (Eigen)");
  cal->add_option("records", a->records, "JSONL records (bench/gpu/results/...)")->required();
  cal->add_option("-o,--output", a->output, "write the fitted coefficients here (costmodel/coefficients/sm_90a.json)");
  CLI::App* ev = cost->add_subcommand("evaluate", "Accuracy of the model on the held-out records");
  ev->add_option("records", a->records, "JSONL records")->required();
  ev->add_option("--coefficients", a->coefficients, "coefficients file (default: the versioned fit)");
  ev->add_option("--split", a->split, "which records: holdout (default) or calibrate");
  ev->add_option("--format", a->format, "text, or json to add the per-pair rows")->check(CLI::IsMember({"text", "json"}));
  cal->callback([a, &exit_code] { exit_code = runCalibrate(*a); });
  ev->callback([a, &exit_code] { exit_code = runEvaluate(*a); });
  cost->callback([a, cost, &exit_code] {
    if (!cost->get_subcommands().empty()) return;
    if (a->file.empty() || a->shape.empty()) {
      const std::string usage = "cake cost FILE --shape ... [--workload W] (or cake cost calibrate / evaluate)";
      fmt::print(stderr, "cake: error: {}\n", usage);
      printUsageErrorDocument(a->format, usage);
      exit_code = kCannotCheck;
      return;
    }
    exit_code = runCost(*a);
  });
}

}  // namespace cake::cli
