#include "search/batch.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "checks/corpus_gate.h"
#include "ir/frontend.h"
#include "lowering/lower.h"
#include "runner/runner.h"
#include "search/tune.h"

namespace fs = std::filesystem;

namespace cake::search {

namespace {

nlohmann::json notRunnable(const std::string& result, const std::string& detail) {
  return {{"result", result}, {"detail", detail}};
}

// Lowers a candidate file for the runner's problem (GEMM). "" + detail when it cannot.
std::string lowerForRunner(const std::string& path, std::string* target, std::string* detail) {
  std::string err;
  ir::SourceFilePtr file = ir::readSourceFile(path, err);
  if (!file) {
    *detail = err;
    return "";
  }
  ir::DiagnosticSink sink;
  auto mod = ir::compileModule(file, {}, sink);
  if (!mod || mod->schedules.size() != 1) {
    *detail = "the candidate does not compile to one schedule";
    return "";
  }
  lowering::LowerOptions lo;
  lo.problem = lowering::Problem::Gemm;
  lowering::LowerResult lr = lowering::lowerToCuda(mod->schedules.front(), lo);
  if (!lr.ok) {
    for (const auto& f : lr.findings) *detail += ir::renderText(f);
    return "";
  }
  *target = std::string(ir::targetName(lr.target));
  return lr.source;
}

std::set<std::string> idsIn(const std::string& results) {
  std::set<std::string> ids;
  std::ifstream in(results);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("id")) ids.insert(j["id"].get<std::string>());
  }
  return ids;
}

}  // namespace

std::optional<BatchStats> emitBatch(std::vector<Record>& records, const std::vector<size_t>& selected,
                                    const TuneSpec& spec, const std::string& batch_dir, std::string* error) {
  std::error_code ec;
  fs::create_directories(fs::path(batch_dir) / "cu", ec);
  if (ec) {
    *error = fmt::format("{}: cannot create: {}", batch_dir, ec.message());
    return std::nullopt;
  }
  BatchStats stats;
  nlohmann::json items = nlohmann::json::array();
  for (size_t i : selected) {
    Record& r = records[i];
    std::string target, detail;
    std::string source = lowerForRunner(r.source_path, &target, &detail);
    if (source.empty()) {
      r.measurement = notRunnable("no_oracle", detail);
      ++stats.not_runnable;
      continue;
    }
    const std::string cu = "cu/" + safeName(r.id) + ".cu";
    std::ofstream(fs::path(batch_dir) / cu, std::ios::trunc) << source;
    items.push_back({{"id", r.id}, {"cu", cu}, {"target", target}, {"verified", r.verdict == "verified"}});
    ++stats.written;
  }
  nlohmann::json manifest = {{"version", 1},
                             {"workload", {{"kind", spec.workload.kind}, {"shape", shapeText(spec.workload.shape)}}},
                             {"runs", spec.runs},
                             {"timeout_s", spec.timeout_s},
                             {"seed", spec.seed},
                             {"items", items}};
  std::ofstream(fs::path(batch_dir) / "manifest.json", std::ios::trunc) << manifest.dump(2) << '\n';
  // a fresh batch starts with no results
  fs::remove(fs::path(batch_dir) / "results.jsonl", ec);
  return stats;
}

std::optional<int> runBatch(const std::string& batch_dir, const RunBatchOptions& opts, std::string* error) {
  std::ifstream in(fs::path(batch_dir) / "manifest.json");
  nlohmann::json m = nlohmann::json::parse(in, nullptr, false);
  if (!in || m.is_discarded() || !m.contains("items")) {
    *error = fmt::format("{}/manifest.json: missing or not a batch manifest", batch_dir);
    return std::nullopt;
  }
  std::string e;
  auto shape = runner::parseShape(m["workload"].value("shape", std::string()), &e);
  if (!shape) {
    *error = fmt::format("{}/manifest.json: workload.shape: {}", batch_dir, e);
    return std::nullopt;
  }
  const std::string results = (fs::path(batch_dir) / "results.jsonl").string();
  const std::set<std::string> done = idsIn(results);
  std::vector<nlohmann::json> todo;
  for (const auto& item : m["items"])
    if (!done.count(item.at("id").get<std::string>())) todo.push_back(item);

  runner::Options ro;
  ro.harness = opts.harness;
  ro.runs = m.value("runs", 20);
  ro.run_timeout_s = m.value("timeout_s", 20.0);
  ro.seed = m.value("seed", uint64_t{1});
  ro.work_dir = (fs::path(batch_dir) / "so").string();
  fs::create_directories(ro.work_dir);
  // Compile in parallel (CPU work; each .cu once, several items may share
  // one, e.g. a dispatcher at several shapes), then measure one at a time
  // (GPU timing).
  std::map<std::string, size_t> first_of;
  std::vector<size_t> unique;
  for (size_t i = 0; i < todo.size(); ++i)
    if (first_of.emplace(todo[i]["cu"].get<std::string>(), i).second) unique.push_back(i);
  std::map<std::string, runner::Result> built;
  std::mutex mu;
  checks::gate::parallelFor(unique.size(), opts.jobs, [&](size_t u) {
    const nlohmann::json& item = todo[unique[u]];
    const std::string cu = (fs::path(batch_dir) / item["cu"].get<std::string>()).string();
    const std::string so = (fs::path(ro.work_dir) / fs::path(cu).stem()).string() + ".so";
    auto target = ir::parseTarget(item.value("target", std::string("sm_90a")));
    runner::Result r = runner::compile(cu, target.value_or(ir::Target::SM90a), so, ro);
    std::lock_guard<std::mutex> lock(mu);
    built[item["cu"].get<std::string>()] = r;
  });
  std::ofstream out(results, std::ios::app);
  for (const nlohmann::json& item : todo) {
    runner::Result r = built[item["cu"].get<std::string>()];
    runner::Shape item_shape = *shape;
    if (item.contains("shape")) {
      auto s = runner::parseShape(item["shape"].get<std::string>(), &e);
      if (!s) {
        *error = fmt::format("{}/manifest.json: item '{}': shape: {}", batch_dir, item["id"].get<std::string>(), e);
        return std::nullopt;
      }
      item_shape = *s;
    }
    double wall = 0;
    if (r.compiled) {
      runner::Options one = ro;
      one.verified = item.value("verified", false);
      auto t0 = std::chrono::steady_clock::now();
      r = runner::runLibrary(r.so_path, item_shape, one);
      wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    r.shape = item_shape;
    out << nlohmann::json{{"id", item["id"]}, {"gpu_wall_s", wall}, {"measurement", runner::toJson(r)}}.dump()
        << '\n';
    out.flush();
  }
  return static_cast<int>(todo.size());
}

std::optional<int> ingest(std::vector<Record>& records, const std::string& results_path, std::string* error) {
  std::ifstream in(results_path);
  if (!in) {
    *error = fmt::format("{}: cannot read", results_path);
    return std::nullopt;
  }
  std::map<std::string, size_t> by_id;
  for (size_t i = 0; i < records.size(); ++i) by_id[records[i].id] = i;
  int merged = 0;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("id") || !j["id"].is_string() || !j.contains("measurement") ||
        !j["measurement"].is_object()) {
      *error = fmt::format("{}:{}: not a batch result line", results_path, n);
      return std::nullopt;
    }
    auto it = by_id.find(j["id"].get<std::string>());
    if (it == by_id.end()) {
      *error = fmt::format("{}:{}: candidate '{}' is not in this run", results_path, n, j["id"].get<std::string>());
      return std::nullopt;
    }
    Record& r = records[it->second];
    r.measurement = j["measurement"];
    r.gpu_wall_s = j.value("gpu_wall_s", 0.0);
    ++merged;
  }
  return merged;
}

}  // namespace cake::search
