#include "search/batch.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "gate/corpus_gate.h"
#include "ir/frontend.h"
#include "lowering/lower.h"
#include "runner/runner.h"
#include "workload/workload.h"
#include "search/tune.h"

namespace fs = std::filesystem;

namespace cake::search {

namespace {

nlohmann::json notRunnable(const std::string& result, const std::string& detail) {
  return {{"result", result}, {"detail", detail}};
}

// A candidate file's one schedule (nullopt + detail when it has not exactly one).
std::optional<ir::Module> loadOne(const std::string& path, std::string* detail) {
  ir::SourceFilePtr file = ir::readSourceFile(path, *detail);
  if (!file) return std::nullopt;
  ir::DiagnosticSink sink;
  auto mod = ir::compileModule(file, {}, sink);
  if (!mod || mod->schedules.size() != 1) {
    *detail = "the candidate does not compile to one schedule";
    return std::nullopt;
  }
  return mod;
}

// Binds a candidate to the workload's contract and lowers it for the
// runner (GEMM through cake_gemm_launch, the others through cake_launch).
// "" + result/detail when it cannot be measured (unsupported_shape,
// no_oracle, lower_error).
std::string lowerForRunner(const std::string& path, const workload::Shape& shape, std::string* target,
                           std::string* result, std::string* detail) {
  auto mod = loadOne(path, detail);
  if (!mod) return *result = "error", "";
  const ir::Schedule& s = mod->schedules.front();
  workload::BindResult br = workload::bind(s, shape);
  if (!br.binding) {
    *result = br.result;
    *detail = br.detail;
    return "";
  }
  lowering::LowerOptions lo;
  lo.problem = shape.kind == workload::Kind::Gemm ? lowering::Problem::Gemm : lowering::Problem::None;
  lowering::LowerResult lr = lowering::lowerToCuda(s, lo);
  if (!lr.ok) {
    *result = "lower_error";
    for (const auto& f : lr.findings) *detail += ir::renderText(f);
    return "";
  }
  *target = std::string(ir::targetName(lr.target));
  return lr.source;
}

// One measurement: a candidate is bound to the contract from its schedule;
// an item without one (a dispatcher library) is a GEMM kernel library.
runner::Result measure(const std::string& batch_dir, const nlohmann::json& item, const std::string& so,
                       const workload::Shape& shape, const runner::Options& opts) {
  if (!item.contains("cake")) {
    runner::Result r = runner::runLibrary(so, {shape.at("M"), shape.at("N"), shape.at("K")}, opts);
    r.dims = shape.dims;
    return r;
  }
  runner::Result r;
  r.dims = shape.dims;
  r.workload = std::string(workload::kindName(shape.kind));
  auto mod = loadOne((fs::path(batch_dir) / item["cake"].get<std::string>()).string(), &r.detail);
  if (!mod) return r;
  workload::BindResult br = workload::bind(mod->schedules.front(), shape);
  if (!br.binding) {
    r.result = br.result;
    r.detail = br.detail;
    return r;
  }
  return runner::runWorkloadLibrary(so, mod->schedules.front(), *br.binding, opts);
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
  fs::create_directories(fs::path(batch_dir) / "cake", ec);
  if (ec) {
    *error = fmt::format("{}: cannot create: {}", batch_dir, ec.message());
    return std::nullopt;
  }
  BatchStats stats;
  nlohmann::json items = nlohmann::json::array();
  for (size_t i : selected) {
    Record& r = records[i];
    std::string target, result, detail;
    std::string source = lowerForRunner(r.source_path, spec.workload.shape, &target, &result, &detail);
    if (source.empty()) {
      r.measurement = notRunnable(result, detail);
      ++stats.not_runnable;
      continue;
    }
    const std::string cu = "cu/" + safeName(r.id) + ".cu";
    const std::string cake = "cake/" + safeName(r.id) + ".cake";
    std::ofstream(fs::path(batch_dir) / cu, std::ios::trunc) << source;
    // the schedule travels too: the device binds it to the contract's tensors
    fs::copy_file(r.source_path, fs::path(batch_dir) / cake, fs::copy_options::overwrite_existing, ec);
    items.push_back({{"id", r.id}, {"cu", cu}, {"cake", cake}, {"target", target}, {"verified", r.verdict == "verified"}});
    ++stats.written;
  }
  nlohmann::json manifest = {{"version", 1},
                             {"workload", {{"kind", spec.workload.kind()}, {"shape", spec.workload.text()}}},
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
  auto kind = workload::parseKind(m["workload"].value("kind", std::string("gemm")));
  auto shape = kind ? workload::parseShape(*kind, m["workload"].value("shape", std::string()), &e) : std::nullopt;
  if (!kind) e = "unknown workload kind";
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
    workload::Shape item_shape = *shape;
    if (item.contains("shape")) {   // one library at several shapes (a dispatcher's evaluation)
      auto s = workload::parseShape(shape->kind, item["shape"].get<std::string>(), &e);
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
      r = measure(batch_dir, item, r.so_path, item_shape, one);
      wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
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
