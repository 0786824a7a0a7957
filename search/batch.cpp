#include "search/batch.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

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

namespace {

// One batch folder as read from its manifest: the items still to measure.
struct LoadedBatch {
  std::string dir;
  workload::Shape shape;
  runner::Options ro;
  std::vector<nlohmann::json> todo;
  std::vector<std::string> so;   // per todo item: its compiled library
};

std::optional<LoadedBatch> loadBatch(const std::string& batch_dir, const RunBatchOptions& opts, std::string* error) {
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
  LoadedBatch b;
  b.dir = batch_dir;
  b.shape = *shape;
  const std::set<std::string> done = idsIn((fs::path(batch_dir) / "results.jsonl").string());
  for (const auto& item : m["items"])
    if (!done.count(item.at("id").get<std::string>())) b.todo.push_back(item);
  b.ro.harness = opts.harness;
  b.ro.runs = m.value("runs", 20);
  b.ro.run_timeout_s = m.value("timeout_s", 20.0);
  b.ro.seed = m.value("seed", uint64_t{1});
  b.ro.work_dir = (fs::path(batch_dir) / "so").string();
  return b;
}

}  // namespace

std::string compileKey(const std::string& cu_text, const std::string& target) {
  // Lowering's comments name the candidate's file (another folder per
  // shard): whole-line // comments are not part of the key, unless one ends
  // in a backslash (it would comment out the next line too).
  std::string code = target + "\n";
  std::istringstream in(cu_text);
  for (std::string line; std::getline(in, line);) {
    const size_t b = line.find_first_not_of(" \t");
    const bool comment = b != std::string::npos && line.compare(b, 2, "//") == 0 && line.back() != '\\';
    if (!comment) code += line + '\n';
  }
  return checks::gate::contentHash(code);
}

namespace {

// The library of a .cu in `dir`, named by its compile key, so equal kernels
// of several batches share one (nullopt: the .cu cannot be read).
std::optional<std::string> libraryPath(const std::string& cu, const std::string& target, const std::string& dir) {
  std::ifstream in(cu, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return (fs::path(dir) / (compileKey(ss.str(), target) + ".so")).string();
}

// Measures one batch's items (their libraries built), appending a line each.
std::optional<int> measureBatch(LoadedBatch& b, const std::map<std::string, runner::Result>& built,
                                std::string* error) {
  std::ofstream out(fs::path(b.dir) / "results.jsonl", std::ios::app);
  for (size_t i = 0; i < b.todo.size(); ++i) {
    const nlohmann::json& item = b.todo[i];
    runner::Result r = built.at(b.so[i]);
    workload::Shape item_shape = b.shape;
    if (item.contains("shape")) {   // one library at several shapes (a dispatcher's evaluation)
      std::string e;
      auto s = workload::parseShape(b.shape.kind, item["shape"].get<std::string>(), &e);
      if (!s) {
        *error = fmt::format("{}/manifest.json: item '{}': shape: {}", b.dir, item["id"].get<std::string>(), e);
        return std::nullopt;
      }
      item_shape = *s;
    }
    double wall = 0;
    if (r.compiled) {
      runner::Options one = b.ro;
      one.verified = item.value("verified", false);
      auto t0 = std::chrono::steady_clock::now();
      r = measure(b.dir, item, r.so_path, item_shape, one);
      wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    out << nlohmann::json{{"id", item["id"]}, {"gpu_wall_s", wall}, {"measurement", runner::toJson(r)}}.dump()
        << '\n';
    out.flush();
  }
  return static_cast<int>(b.todo.size());
}

}  // namespace

std::optional<int> runBatches(const std::vector<std::string>& batch_dirs, const RunBatchOptions& opts,
                              std::string* error) {
  std::vector<LoadedBatch> batches;
  for (const std::string& dir : batch_dirs) {
    auto b = loadBatch(dir, opts, error);
    if (!b) return std::nullopt;
    batches.push_back(std::move(*b));
  }
  // Every distinct library once (an unreadable .cu gets a path of its own
  // and fails to compile with nvcc's message).
  struct Job {
    std::string cu, so, target;
  };
  std::map<std::string, Job> jobs;
  for (LoadedBatch& b : batches) {
    const std::string dir = opts.so_cache.empty() ? b.ro.work_dir : opts.so_cache;
    std::error_code ec;
    fs::create_directories(dir, ec);
    for (const nlohmann::json& item : b.todo) {
      const std::string cu = (fs::path(b.dir) / item["cu"].get<std::string>()).string();
      const std::string target = item.value("target", std::string("sm_90a"));
      const std::string so = libraryPath(cu, target, dir).value_or((fs::path(dir) / fs::path(cu).stem()).string() + ".so");
      b.so.push_back(so);
      jobs.emplace(so, Job{cu, so, target});
    }
  }
  std::vector<const Job*> list;
  for (const auto& [so, job] : jobs) list.push_back(&job);
  std::map<std::string, runner::Result> built;
  std::mutex mu;
  checks::gate::parallelFor(list.size(), opts.jobs, [&](size_t u) {
    const Job& j = *list[u];
    runner::Result r;
    std::error_code ec;
    if (fs::exists(j.so, ec)) {   // built before (same text and target)
      r.compiled = true;
      r.result = "compiled";
      r.cu_path = j.cu;
      r.so_path = j.so;
    } else {
      // nvcc writes beside, the rename publishes: a cut-short compile leaves no library
      const std::string tmp = j.so + ".tmp.so";
      r = runner::compile(j.cu, ir::parseTarget(j.target).value_or(ir::Target::SM90a), tmp, batches.front().ro);
      if (r.compiled) fs::rename(tmp, j.so, ec);
      r.so_path = j.so;
      if (ec) r.compiled = false, r.result = "compile_error", r.detail = ec.message();
    }
    std::lock_guard<std::mutex> lock(mu);
    built[j.so] = r;
  });
  if (opts.compile_only) {
    int ok = 0;
    for (const auto& [so, r] : built) ok += r.compiled;
    return ok;
  }
  int measured = 0;
  for (LoadedBatch& b : batches) {
    auto n = measureBatch(b, built, error);
    if (!n) return std::nullopt;
    measured += *n;
  }
  return measured;
}

std::optional<int> runBatch(const std::string& batch_dir, const RunBatchOptions& opts, std::string* error) {
  return runBatches({batch_dir}, opts, error);
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
