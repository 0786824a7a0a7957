#include "runner/runner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "ir/pdl.h"
#include "lowering/lower.h"
#include "runner/process.h"

#ifndef CAKE_HARNESS_SOURCE_DIR
#define CAKE_HARNESS_SOURCE_DIR ""
#endif
#ifndef CAKE_CUDA_BIN_DIR
#define CAKE_CUDA_BIN_DIR ""
#endif

namespace fs = std::filesystem;

namespace cake::runner {

namespace {

std::string tail(const std::string& s, size_t n = 4000) {
  return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}

bool isExecutable(const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; }

std::string makeWorkDir(const Options& opts) {
  if (!opts.work_dir.empty()) {
    std::error_code ec;
    fs::create_directories(opts.work_dir, ec);
    return opts.work_dir;
  }
  const char* tmp = getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/cake-run-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) return "/tmp";
  return buf.data();
}

std::string sanitize(std::string_view name) {
  std::string s;
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
  return s.empty() ? "kernel" : s;
}

// Library search path for the harness: CUPTI lives in different places in
// different CUDA images.
std::vector<std::pair<std::string, std::string>> harnessEnv(const std::string& nvcc) {
  std::string paths;
  auto add = [&](const std::string& p) {
    if (!p.empty() && fs::exists(p)) paths += (paths.empty() ? "" : ":") + p;
  };
  if (const char* e = getenv("CAKE_CUPTI_DIR")) add(e);
  fs::path bin = fs::path(nvcc).parent_path();
  if (!bin.empty()) {
    add((bin.parent_path() / "extras/CUPTI/lib64").string());
    add((bin.parent_path() / "lib64").string());
    add((bin.parent_path() / "lib").string());
  }
  add("/usr/local/cuda/extras/CUPTI/lib64");
  add("/usr/local/cuda/lib64");
  add("/usr/local/cuda/lib");
  if (const char* e = getenv("LD_LIBRARY_PATH")) paths += (paths.empty() ? "" : ":") + std::string(e);
  return {{"LD_LIBRARY_PATH", paths}};
}

}  // namespace

std::optional<Shape> parseShape(std::string_view text, std::string* error) {
  // the GEMM contract's parser (one grammar for `cake run` with and without --workload)
  auto w = workload::parseShape(workload::Kind::Gemm, text, error);
  if (!w) return std::nullopt;
  return Shape{w->at("M"), w->at("N"), w->at("K")};
}

nlohmann::json toJson(const Result& r) {
  nlohmann::json j;
  j["result"] = r.result;
  j["verified"] = r.verified ? nlohmann::json(*r.verified) : nlohmann::json(nullptr);
  j["compiled"] = r.compiled;
  j["correct"] = r.correct;
  auto num = [](double v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
  j["rel_error"] = num(r.rel_error);
  j["median_ms"] = num(r.median_ms);
  j["tflops"] = num(r.tflops);
  j["baseline_ms"] = num(r.baseline_ms);
  j["ratio"] = num(r.ratio);
  j["kernel"] = r.kernel;
  j["target"] = r.target;
  j["workload"] = r.workload;
  if (r.dims.empty()) j["shape"] = {{"M", r.shape.M}, {"N", r.shape.N}, {"K", r.shape.K}};
  else j["shape"] = r.dims;
  if (!r.detail.empty()) j["detail"] = r.detail;
  if (!r.harness.is_null()) j["harness"] = r.harness;
  return j;
}

std::vector<std::string> archFlags(ir::Target t) {
  switch (t) {
    case ir::Target::SM80:
      return {"-gencode=arch=compute_80,code=sm_80", "-gencode=arch=compute_80,code=sm_90"};
    case ir::Target::SM100a:
      return {"-gencode=arch=compute_100a,code=sm_100a"};
    case ir::Target::SM90a:
    case ir::Target::Unspecified:
    default:
      return {"-gencode=arch=compute_90a,code=sm_90a"};
  }
}

std::string nvccPath(const Options& opts) {
  if (!opts.nvcc.empty()) return opts.nvcc;
  if (const char* e = getenv("CAKE_NVCC"); e && *e) return e;
  std::string built = std::string(CAKE_CUDA_BIN_DIR);
  if (!built.empty() && isExecutable(built + "/nvcc")) return built + "/nvcc";
  if (isExecutable("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  return "nvcc";
}

bool gpuAvailable() {
  if (const char* e = getenv("CAKE_NO_GPU"); e && *e && std::string(e) != "0") return false;
  return access("/dev/nvidia0", F_OK) == 0 || access("/dev/nvidiactl", F_OK) == 0;
}

std::string harnessPath(const Options& opts, std::string* error) {
  if (!opts.harness.empty()) return opts.harness;
  if (const char* e = getenv("CAKE_HARNESS"); e && *e) return e;
  const std::string src_dir = CAKE_HARNESS_SOURCE_DIR;
  if (src_dir.empty() || !fs::exists(src_dir + "/cake_harness.cu")) {
    if (error) *error = "no harness: set CAKE_HARNESS or build cake from its source tree";
    return "";
  }
  const char* home = getenv("HOME");
  fs::path cache = fs::path(getenv("XDG_CACHE_HOME") ? getenv("XDG_CACHE_HOME")
                                                     : std::string(home ? home : "/tmp") + "/.cache") /
                   "cake";
  std::error_code ec;
  fs::create_directories(cache, ec);
  fs::path bin = cache / "cake_harness";
  const auto src_time = std::max({fs::last_write_time(src_dir + "/cake_harness.cu", ec),
                                  fs::last_write_time(std::string(CAKE_ABI_DIR) + "/cake_abi.h", ec),
                                  fs::last_write_time(src_dir + "/workloads.cuh", ec),
                                  fs::last_write_time(src_dir + "/run_timing.h", ec)});
  if (fs::exists(bin) && fs::last_write_time(bin, ec) >= src_time) return bin.string();
  std::vector<std::string> cmd = {nvccPath(opts), "-std=c++17", "-O2", "-cudart", "shared",
                                  "-gencode=arch=compute_80,code=sm_80", "-gencode=arch=compute_90,code=sm_90",
                                  "-I" + src_dir, "-I" CAKE_ABI_DIR, src_dir + "/cake_harness.cu", "-o", bin.string() + ".tmp",
                                  "-lcublas", "-lcupti", "-ldl"};
  fs::path nv = fs::path(cmd[0]).parent_path().parent_path();
  for (const char* sub : {"extras/CUPTI/lib64", "lib64", "lib"})
    if (fs::exists(nv / sub)) cmd.push_back("-L" + (nv / sub).string());
  ProcessResult p = runProcess(cmd, opts.compile_timeout_s);
  if (!p.started || p.exit_code != 0) {
    if (error) *error = "building the harness failed: " + (p.error.empty() ? tail(p.err) : p.error);
    return "";
  }
  fs::rename(bin.string() + ".tmp", bin, ec);
  return bin.string();
}

Result compile(const std::string& cu_path, ir::Target target, const std::string& so_path, const Options& opts) {
  Result r;
  r.cu_path = cu_path;
  r.so_path = so_path;
  std::vector<std::string> cmd = {nvccPath(opts), "-std=c++17", "-O3", "-shared", "-Xcompiler", "-fPIC",
                                  "-cudart", "shared", "-lineinfo"};
  for (const auto& f : archFlags(target)) cmd.push_back(f);
  cmd.push_back("-I" CAKE_ABI_DIR);  // the kernel ABI header (abi/cake_abi.h)
  for (const auto& f : opts.nvcc_flags) cmd.push_back(f);
  cmd.push_back(cu_path);
  cmd.push_back("-o");
  cmd.push_back(so_path);
  ProcessResult p = runProcess(cmd, opts.compile_timeout_s);
  if (!p.started) {
    r.result = "compile_error";
    r.detail = p.error;
    return r;
  }
  if (p.timed_out || p.exit_code != 0) {
    r.result = "compile_error";
    r.detail = p.timed_out ? "nvcc timed out" : tail(p.err + p.out);
    return r;
  }
  r.compiled = true;
  r.result = "compiled";
  // ptxas warnings (e.g. setmaxnreg ignored, wgmma serialized) are worth keeping
  if (!p.err.empty()) r.detail = tail(p.err, 2000);
  return r;
}

namespace {

// Runs the harness on a kernel library with the problem arguments `problem`
// under the watchdog and reads its JSON line into a Result.
Result runHarness(const std::string& so_path, const std::vector<std::string>& problem, const Options& opts) {
  Result r;
  r.so_path = so_path;
  r.compiled = true;
  r.verified = opts.verified;
  if (opts.dry_run) {
    r.result = "dry_run";
    for (const std::string& a : problem) r.detail += (r.detail.empty() ? "" : " ") + a;
    return r;
  }
  if (!gpuAvailable()) {
    r.result = "no_gpu";
    r.detail = "no NVIDIA GPU on this machine";
    return r;
  }
  std::string err;
  std::string harness = harnessPath(opts, &err);
  if (harness.empty()) {
    r.result = "error";
    r.detail = err;
    return r;
  }
  std::vector<std::string> cmd = {harness, "--kernel", fs::absolute(so_path).string()};
  cmd.insert(cmd.end(), problem.begin(), problem.end());
  for (const std::string& a : {std::string("--runs"), std::to_string(opts.runs), std::string("--warmup"),
                               std::to_string(opts.warmup)})
    cmd.push_back(a);
  if (opts.seed) {
    cmd.push_back("--seed");
    cmd.push_back(std::to_string(*opts.seed));
  }
  if (!opts.time) cmd.push_back("--no-time");
  if (!opts.baseline) cmd.push_back("--no-baseline");
  ProcessResult p = runProcess(cmd, opts.run_timeout_s, harnessEnv(nvccPath(opts)));
  if (!p.started) {
    r.result = "error";
    r.detail = p.error;
    return r;
  }
  if (p.timed_out) {
    r.result = "hang";
    r.detail = "killed by the watchdog after " + std::to_string(opts.run_timeout_s) + " s";
    return r;
  }
  // the harness's JSON line is the last line of stdout that starts with '{'
  std::istringstream lines(p.out);
  std::string line, last;
  while (std::getline(lines, line))
    if (!line.empty() && line[0] == '{') last = line;
  if (!last.empty()) {
    try {
      r.harness = nlohmann::json::parse(last);
    } catch (...) {
    }
  }
  const auto& h = r.harness;
  auto getd = [&](const char* k) { return h.contains(k) && h[k].is_number() ? h[k].get<double>() : -1.0; };
  if (h.is_object()) {
    r.result = h.value("result", std::string("error"));
    r.correct = h.value("correct", false);
    r.compiled = h.contains("compiled") && h["compiled"].is_boolean() ? h["compiled"].get<bool>() : true;
    r.kernel = h.value("kernel", std::string());
    r.target = h.value("target", std::string());
    r.rel_error = getd("rel_error");
    r.median_ms = getd("median_ms");
    r.tflops = getd("tflops");
    r.baseline_ms = getd("baseline_ms");
    r.ratio = getd("ratio");
    if (h.contains("error")) r.detail = h["error"].get<std::string>();
  } else if (p.term_signal) {
    r.result = "crash";
    r.detail = "harness killed by signal " + std::to_string(p.term_signal) + ": " + tail(p.err);
  } else {
    r.result = "error";
    r.detail = "harness exited with " + std::to_string(p.exit_code) + " and no result: " + tail(p.err + p.out);
  }
  return r;
}

// The schedule's parameters in order as harness arguments: `tensor_flag
// NAME:d0,d1,..` per tensor (the contract tensor, dims as the schedule sees
// them), `i32_flag V` per bound i32 parameter.
void paramArgs(const ir::Schedule& schedule, const workload::Binding& b, const std::string& tensor_flag,
               const std::string& i32_flag, std::vector<std::string>& args) {
  for (size_t p = 0; p < schedule.params.size(); ++p) {
    if (!b.tensor_name[p].empty()) {
      std::string t = b.tensor_name[p] + ":";
      for (size_t d = 0; d < b.tensor_dims[p].size(); ++d) t += (d ? "," : "") + std::to_string(b.tensor_dims[p][d]);
      args.push_back(tensor_flag);
      args.push_back(t);
    } else if (auto it = b.i32.find(static_cast<int>(p)); it != b.i32.end()) {
      args.push_back(i32_flag);
      args.push_back(std::to_string(it->second));
    }
  }
}

}  // namespace

Result runLibrary(const std::string& so_path, const Shape& shape, const Options& opts) {
  Result r = runHarness(so_path,
                        {"--m", std::to_string(shape.M), "--n", std::to_string(shape.N), "--k", std::to_string(shape.K)},
                        opts);
  r.shape = shape;
  return r;
}

Result runWorkloadLibrary(const std::string& so_path, const ir::Schedule& schedule, const workload::Binding& b,
                          const Options& opts) {
  const workload::Shape& sh = b.shape;
  if (sh.kind == workload::Kind::Gemm) {
    Result r = runLibrary(so_path, Shape{sh.at("M"), sh.at("N"), sh.at("K")}, opts);
    r.dims = sh.dims;
    return r;
  }
  std::vector<std::string> args = {"--workload", std::string(workload::kindName(sh.kind))};
  for (const auto& [k, v] : sh.dims) {
    args.push_back("--dim");
    args.push_back(k + "=" + std::to_string(v));
  }
  paramArgs(schedule, b, "--tensor", "--i32", args);
  args.push_back("--launches");
  args.push_back(std::to_string(b.launches));
  Result r = runHarness(so_path, args, opts);
  r.workload = std::string(workload::kindName(sh.kind));
  r.dims = sh.dims;
  return r;
}

Result runSource(const std::string& cuda_source, std::string_view name, ir::Target target, const Shape& shape,
                 const Options& opts) {
  const std::string dir = makeWorkDir(opts);
  const std::string base = dir + "/" + sanitize(name);
  {
    std::ofstream f(base + ".cu");
    f << cuda_source;
  }
  Result c = compile(base + ".cu", target, base + ".so", opts);
  if (!c.compiled) {
    c.shape = shape;
    c.verified = opts.verified;
    return c;
  }
  Result r = runLibrary(base + ".so", shape, opts);
  r.cu_path = base + ".cu";
  if (!c.detail.empty() && r.detail.empty()) r.detail = c.detail;
  return r;
}

namespace {

// A schedule lowered (with the settings of opts.sets) and compiled into
// DIR/NAME.so; `failure` is lower_error / compile_error (with `detail`) or empty.
struct Built {
  std::string base, failure, detail;
  ir::Target target = ir::Target::Unspecified;
};
Built lowerAndCompile(const ir::Schedule& schedule, lowering::Problem problem, const std::string& dir,
                      const Options& opts) {
  Built b;
  b.base = dir + "/" + sanitize(schedule.name);
  lowering::LowerOptions lo;
  lo.specialize = opts.sets;
  lo.problem = problem;
  lowering::LowerResult lr = lowering::lowerToCuda(schedule, lo);
  b.target = lr.target;
  if (!lr.ok) {
    b.failure = "lower_error";
    for (const auto& f : lr.findings) b.detail += ir::renderText(f) + "\n";
    return b;
  }
  {
    std::ofstream f(b.base + ".cu");
    f << lr.source;
  }
  Result c = compile(b.base + ".cu", lr.target, b.base + ".so", opts);
  if (!c.compiled) b.failure = c.result, b.detail = c.detail;
  return b;
}

}  // namespace

// A result decided before anything runs on the GPU.
static Result notRun(std::string result, const ir::Schedule& schedule, ir::Target target, const Shape& shape,
                     const Options& opts, std::string detail) {
  Result r;
  r.result = std::move(result);
  r.shape = shape;
  r.verified = opts.verified;
  r.kernel = schedule.name;
  r.target = std::string(ir::targetName(target));
  r.detail = std::move(detail);
  return r;
}

Result run(const ir::Schedule& schedule, const Shape& shape, const Options& opts) {
  // A size the schedule does not compute is decided here, before any GPU
  // work: a run at it would be "wrong" through no fault of the kernel. The
  // GEMM contract's binding decides it (its assumptions, the coverage of A,
  // B and C); a schedule the contract cannot bind is left to the lowering.
  if (auto ws = workload::parseShape(workload::Kind::Gemm, fmt::format("M={},N={},K={}", shape.M, shape.N, shape.K))) {
    workload::BindResult br = workload::bind(schedule, *ws, opts.sets);
    if (br.result == "unsupported_shape")
      return notRun("unsupported_shape", schedule, schedule.target, shape, opts, br.detail);
  }
  lowering::LowerOptions lo;
  lo.problem = lowering::Problem::Gemm;  // the harness's oracle is cuBLAS GEMM
  lowering::LowerResult lr = lowering::lowerToCuda(schedule, lo);
  if (!lr.ok) {
    std::string findings;
    for (const auto& f : lr.findings) findings += ir::renderText(f) + "\n";
    bool binding = false;
    for (const auto& f : lr.findings) binding = binding || f.rule == "lower.binding" || f.rule == "lower.grid";
    // the kernel itself may well lower (`cake lower`); there is no oracle to run it against
    lowering::LowerOptions any;
    any.problem = lowering::Problem::None;
    if (binding && lowering::lowerToCuda(schedule, any).ok)
      return notRun("no_oracle", schedule, lr.target, shape, opts,
                    "no oracle for this problem: `cake run` runs GEMM-shaped schedules (tensors A [M,K], B [N,K], "
                    "C [M,N] in bf16; i32 parameters M, N, K) against cuBLAS; `cake lower` emits this kernel with the "
                    "generic launcher cake_launch.\n" + findings);
    return notRun("lower_error", schedule, lr.target, shape, opts, findings);
  }
  Result r = runSource(lr.source, schedule.name, lr.target, shape, opts);
  if (r.kernel.empty()) r.kernel = schedule.name;
  if (r.target.empty()) r.target = std::string(ir::targetName(lr.target));
  return r;
}

Result runWorkload(const ir::Schedule& schedule, const workload::Shape& shape, const Options& opts) {
  auto refused = [&](const std::string& result, const std::string& detail) {
    Result r;
    r.result = result;
    r.detail = detail;
    r.workload = std::string(workload::kindName(shape.kind));
    r.dims = shape.dims;
    r.verified = opts.verified;
    r.kernel = schedule.name;
    r.target = std::string(ir::targetName(schedule.target));
    return r;
  };
  // the contract decides whether the schedule computes this size (its
  // assumptions, the coverage walk), as in run()
  workload::BindResult br = workload::bind(schedule, shape, opts.sets);
  if (!br.binding) return refused(br.result, br.detail);
  if (opts.dry_run) {  // the binding alone: the harness arguments, nothing lowered or compiled
    Result r = runWorkloadLibrary(sanitize(schedule.name) + ".so", schedule, *br.binding, opts);
    r.kernel = schedule.name;
    return r;
  }
  const Built built = lowerAndCompile(schedule, shape.kind == workload::Kind::Gemm ? lowering::Problem::Gemm
                                                                                  : lowering::Problem::None,
                                      makeWorkDir(opts), opts);
  if (!built.failure.empty()) {
    Result r = refused(built.failure, built.detail);
    r.cu_path = built.base + ".cu";
    return r;
  }
  Result r = runWorkloadLibrary(built.base + ".so", schedule, *br.binding, opts);
  r.cu_path = built.base + ".cu";
  r.workload = std::string(workload::kindName(shape.kind));
  r.dims = shape.dims;
  if (r.kernel.empty()) r.kernel = schedule.name;
  if (r.target.empty()) r.target = std::string(ir::targetName(built.target));
  if (!br.detail.empty()) r.detail += (r.detail.empty() ? "" : "\n") + br.detail;
  return r;
}

namespace {

workload::Shape splitShape(workload::Kind kind, const Shape& s, int64_t splits) {
  workload::Shape w;
  w.kind = kind;
  w.dims = {{"M", s.M}, {"N", s.N}, {"S", splits}};
  if (kind == workload::Kind::SplitKPartial) w.dims["K"] = s.K;
  return w;
}

// The reduce kernel runs right behind the partial kernel in one stream. If it
// is launched with programmatic dependent launch it may start while the
// partial kernel still writes W; the model checker orders its accesses of W
// after lm.grid_dep_wait() only if W is named in lm.grid_dependency (the
// checker cannot know which tensor the preceding grid writes; the binding
// does). "" when the pair is ordered, else why not.
std::string pdlOrderGap(const ir::Schedule& reduce, const workload::Binding& b) {
  if (!ir::launchesWithPdl(reduce)) return "";
  for (const ir::GridDependency& d : reduce.grid_deps)
    if (d.param >= 0 && static_cast<size_t>(d.param) < b.tensor_name.size() && b.tensor_name[d.param] == "W")
      return "";
  return fmt::format("split-K reduce kernel '{}' is launched with programmatic dependent launch (it uses "
                     "lm.grid_dep_wait, lm.launch_dependents or lm.grid_dependency) but does not name the workspace "
                     "W in lm.grid_dependency: its reads of W are not ordered after the partial kernel's writes "
                     "(add lm.grid_dependency(W) and lm.grid_dep_wait() before its first access of W)",
                     reduce.name);
}

}  // namespace

SplitKBindResult bindSplitK(const ir::Schedule& partial, const ir::Schedule& reduce, const Shape& shape,
                            int64_t splits, const std::map<std::string, int64_t>& sets) {
  SplitKBindResult out;
  auto refuse = [&](std::string result, std::string detail) {
    out.result = std::move(result);
    out.detail = std::move(detail);
    return out;
  };
  if (splits < 1 || splits > shape.K)
    return refuse("unsupported_shape", fmt::format("the split count {} is not in [1, K = {}]", splits, shape.K));
  workload::BindResult p = workload::bind(partial, splitShape(workload::Kind::SplitKPartial, shape, splits), sets);
  if (!p.binding)
    return refuse(p.result, fmt::format("split-K partial kernel '{}' (tensors A, B, W[S, M, N] f32): {}", partial.name,
                                        p.detail));
  workload::BindResult r = workload::bind(reduce, splitShape(workload::Kind::SplitKReduce, shape, splits), sets);
  if (!r.binding)
    return refuse(r.result,
                  fmt::format("split-K reduce kernel '{}' (tensors W[S, M, N] f32, C): {}", reduce.name, r.detail));
  if (std::string why = pdlOrderGap(reduce, *r.binding); !why.empty()) return refuse("unordered_workspace", why);
  for (const std::string& d : {p.detail, r.detail})
    if (!d.empty()) out.detail += (out.detail.empty() ? "" : "\n") + d;
  out.binding = SplitKBinding{*p.binding, *r.binding, splits};
  return out;
}

std::vector<std::string> splitKHarnessArgs(const ir::Schedule& partial, const ir::Schedule& reduce,
                                           const SplitKBinding& b) {
  const workload::Shape& sh = b.partial.shape;
  std::vector<std::string> args = {"--split", std::to_string(b.splits), "--m", std::to_string(sh.at("M")),
                                   "--n", std::to_string(sh.at("N")), "--k", std::to_string(sh.at("K"))};
  paramArgs(partial, b.partial, "--tensor", "--i32", args);
  paramArgs(reduce, b.reduce, "--rtensor", "--ri32", args);
  return args;
}

Result runSplitKLibraries(const std::string& partial_so, const std::string& reduce_so, const ir::Schedule& partial,
                          const ir::Schedule& reduce, const SplitKBinding& b, const Options& opts) {
  std::vector<std::string> args = {"--reduce", fs::absolute(reduce_so).string()};
  for (std::string& a : splitKHarnessArgs(partial, reduce, b)) args.push_back(std::move(a));
  Result r = runHarness(partial_so, args, opts);
  const workload::Shape& sh = b.partial.shape;
  r.shape = Shape{sh.at("M"), sh.at("N"), sh.at("K")};
  r.dims = sh.dims;
  if (r.kernel.empty()) r.kernel = partial.name + "+" + reduce.name;
  if (r.target.empty()) r.target = std::string(ir::targetName(partial.target));
  return r;
}

Result runSplitK(const ir::Schedule& partial, const ir::Schedule& reduce, const Shape& shape, int64_t splits,
                 const Options& opts) {
  SplitKBindResult br = bindSplitK(partial, reduce, shape, splits, opts.sets);
  if (!br.binding) {
    Result r = notRun(br.result, partial, partial.target, shape, opts, br.detail);
    r.kernel = partial.name + "+" + reduce.name;
    return r;
  }
  if (opts.dry_run) {  // the binding alone: nothing is lowered, compiled or run
    Result r = notRun("dry_run", partial, partial.target, shape, opts, "");
    r.kernel = partial.name + "+" + reduce.name;
    r.dims = br.binding->partial.shape.dims;
    for (const std::string& a : splitKHarnessArgs(partial, reduce, *br.binding))
      r.detail += (r.detail.empty() ? "" : " ") + a;
    return r;
  }
  const std::string dir = makeWorkDir(opts);
  std::string so[2];
  const ir::Schedule* both[2] = {&partial, &reduce};
  for (int i = 0; i < 2; ++i) {
    // the generic launcher: neither kernel is the GEMM contract's A, B, C alone
    const Built built = lowerAndCompile(*both[i], lowering::Problem::None, dir, opts);
    if (!built.failure.empty()) {
      Result r = notRun(built.failure, *both[i], built.target, shape, opts, built.detail);
      r.cu_path = built.base + ".cu";
      return r;
    }
    so[i] = built.base + ".so";
  }
  Result r = runSplitKLibraries(so[0], so[1], partial, reduce, *br.binding, opts);
  if (!br.detail.empty()) r.detail += (r.detail.empty() ? "" : "\n") + br.detail;
  return r;
}

}  // namespace cake::runner
