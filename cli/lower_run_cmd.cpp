// `cake lower FILE -o out.cu` and `cake run FILE --shape M=..,N=..,K=..`.
#include <array>
#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "checks/check.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/memory_cap.h"
#include "ir/frontend.h"
#include "lowering/lower.h"
#include "runner/runner.h"
#include "workload/workload.h"

namespace cake::cli {

void printFindings(const std::vector<ir::Finding>& fs) {
  for (const ir::Finding& f : fs) fmt::print(stderr, "{}", ir::renderText(f));
}

LoadedSchedule load(const std::string& path, const std::string& target, const std::string& name, int& exit_code) {
  LoadedSchedule out;
  exit_code = kCannotCheck;
  auto fail = [&](std::string why) {
    fmt::print(stderr, "{}\n", why);
    out.error = std::move(why);
    out.schedule = nullptr;
    return std::move(out);
  };
  ir::FrontendOptions fe;
  if (!target.empty()) {
    auto t = ir::parseTarget(target);
    if (!t) return fail(fmt::format("cake: error: unknown target '{}' (expected sm_80, sm_90a or sm_100a)", target));
    fe.target_override = *t;
  }
  std::string error;
  ir::SourceFilePtr file = ir::readSourceFile(path, error);
  if (!file) return fail(fmt::format("{}: error: {} [io.error]", path, error));
  ir::DiagnosticSink sink;
  out.module = ir::compileModule(file, fe, sink);
  out.findings = sink.findings();
  printFindings(sink.findings());
  if (!out.module) {
    out.error = fmt::format("{}: the front end rejected the file (see the findings)", path);
    return out;
  }
  if (name == kAllSchedules) {
    for (ir::Schedule& s : out.module->schedules)
      if (s.target == ir::Target::Unspecified) s.target = fe.target_override;
    out.schedule = out.module->schedules.empty() ? nullptr : &out.module->schedules.front();
    exit_code = out.schedule ? kOk : kCannotCheck;
    if (!out.schedule) out.error = fmt::format("{}: no schedule in the file", path);
    return out;
  }
  for (const ir::Schedule& s : out.module->schedules)
    if (name.empty() || s.name == name) {
      if (out.schedule && name.empty())
        return fail(fmt::format("{}: error: the file holds several schedules; pick one with --schedule NAME", path));
      out.schedule = &s;
    }
  if (!out.schedule) return fail(fmt::format("{}: error: no schedule named '{}'", path, name));
  if (out.schedule->target == ir::Target::Unspecified && fe.target_override != ir::Target::Unspecified) {
    // The front end keeps the decorator's target; --target fills it in.
    const_cast<ir::Schedule*>(out.schedule)->target = fe.target_override;
  }
  exit_code = kOk;
  return out;
}

int failureJson(const std::string& format, const std::string& result, const std::string& detail, int exit_code,
                const std::vector<ir::Finding>& findings) {
  if (format != "json") return exit_code;
  nlohmann::json fs = nlohmann::json::array();
  for (const ir::Finding& f : findings) fs.push_back(ir::toJson(f));
  fmt::print("{}\n", ir::dumpJson({{"result", result}, {"detail", detail}, {"findings", fs}, {"exit_code", exit_code}}));
  return exit_code;
}

int loadFailed(const LoadedSchedule& ls, const std::string& format, int exit_code) {
  return failureJson(format, "error", ls.error, exit_code, ls.findings);
}

// Verified schedules are what pass to lowering and to the GPU: checks the
// schedule and prints its error findings when it does not verify. Returns
// kOk (verified), kFindings (errors) or kCannotCheck (an unknown verdict);
// `*refusal` is the reason to give when it did not verify.
static int verify(const ir::Schedule& s, std::string* refusal, unsigned timeout_ms = checks::CheckOptions{}.timeout_ms) {
  checks::CheckOptions copts;
  copts.target = s.target;
  copts.timeout_ms = timeout_ms;
  checks::CheckResult check = checks::checkSchedule(s, copts);
  if (!check.hasErrors() && !check.undecided()) return kOk;
  for (const ir::Finding& f : check.findings)
    if (f.severity == ir::Severity::Error) fmt::print(stderr, "{}", ir::renderText(f));
  *refusal = check.hasErrors() ? "the schedule does not verify (see the findings above)"
                               : "the verifier could not decide the schedule (unknown verdict)";
  return check.hasErrors() ? kFindings : kCannotCheck;
}

namespace {

struct LowerArgs {
  std::string file, output, target, schedule;
  std::vector<std::string> set;  // NAME=VALUE specialisations of scalar parameters
  bool no_comments = false;
  bool allow_unverified = false;
  double check_timeout_s = 10;  // --check-timeout: the verification budget
};

}  // namespace

std::optional<std::pair<std::string, int64_t>> parseSetting(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return std::nullopt;
  try {
    size_t used = 0;
    long long v = std::stoll(text.substr(eq + 1), &used);
    if (used != text.size() - eq - 1) return std::nullopt;
    return std::pair<std::string, int64_t>{text.substr(0, eq), v};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<std::map<std::string, int64_t>> parseSettings(const std::vector<std::string>& sets) {
  std::map<std::string, int64_t> out;
  for (const std::string& setting : sets) {
    auto kv = parseSetting(setting);
    if (!kv) {
      fmt::print(stderr, "cake: error: --set expects NAME=INTEGER, got '{}'\n", setting);
      return std::nullopt;
    }
    out[kv->first] = kv->second;
  }
  return out;
}

namespace {

int runLower(const LowerArgs& a) {
  int exit_code;
  LoadedSchedule ls = load(a.file, a.target, a.schedule, exit_code);
  if (!ls.schedule) return exit_code;
  lowering::LowerOptions opts;
  opts.comments = !a.no_comments;
  auto sets = parseSettings(a.set);
  if (!sets) return kCannotCheck;
  opts.specialize = *sets;
  std::string refusal;
  if (int verdict = verify(*ls.schedule, &refusal, static_cast<unsigned>(a.check_timeout_s * 1000)); verdict != kOk) {
    if (!a.allow_unverified) {
      fmt::print(stderr, "cake: lower refused: {}; --allow-unverified lowers it anyway\n", refusal);
      return verdict;
    }
    fmt::print(stderr, "warning: lowering a schedule that does not verify (--allow-unverified)\n");
  }
  lowering::LowerResult r = lowering::lowerToCuda(*ls.schedule, opts);
  printFindings(r.findings);
  if (!r.ok) return kCannotCheck;
  if (a.output.empty() || a.output == "-") {
    fmt::print("{}", r.source);
    return kOk;
  }
  std::ofstream o(a.output, std::ios::binary | std::ios::trunc);
  o << r.source;
  if (!o) {
    fmt::print(stderr, "{}: error: cannot write [io.error]\n", a.output);
    return kCannotCheck;
  }
  if (r.target == ir::Target::SM100a)
    fmt::print(stderr, "note: sm_100a code is compile-only here: no sm_100a device is available to run it\n");
  return kOk;
}

struct RunArgs {
  std::string file, shape, target, schedule, format = "text", workload = "gemm";
  std::vector<std::string> set;
  bool allow_unverified = false;
  double check_timeout_s = 10;  // --check-timeout: the verification budget
  double timeout_s = 120;
  int runs = 50;
  std::optional<uint64_t> seed;
  int64_t split_k = 0;   // --split-k S: the file's two schedules are a split-K GEMM pair
  bool dry_run = false;  // --dry-run: verify and bind only, print the harness arguments
};

// Compute capability of GPU 0 as "9.0", or "" when none is visible.
std::string deviceComputeCapability() {
  FILE* p = popen("nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1", "r");
  if (!p) return "";
  std::array<char, 64> buf{};
  std::string out;
  if (fgets(buf.data(), buf.size(), p)) out = buf.data();
  pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// An exact-target device: sm_90a and sm_100a code runs only on its own
// generation; sm_80 code (compiled with an sm_90 image too) runs on 8.x and 9.0.
std::optional<std::string> deviceMismatch(ir::Target t) {
  std::string cc = deviceComputeCapability();
  if (cc.empty()) return std::nullopt;  // the runner reports no_gpu itself
  bool ok = (t == ir::Target::SM90a && cc == "9.0") || (t == ir::Target::SM100a && cc == "10.0") ||
            (t == ir::Target::SM80 && (cc.rfind("8.", 0) == 0 || cc == "9.0"));
  if (ok) return std::nullopt;
  return fmt::format("the schedule targets {} but the device has compute capability {}", ir::targetName(t), cc);
}

int refuse(const std::string& why, const std::string& format) {
  fmt::print(stderr, "cake: run refused: {}\n", why);
  return failureJson(format, "refused", why, kCannotCheck);
}

void printRecord(const runner::Result& r, bool verified, const std::string& format) {
  nlohmann::json j = runner::toJson(r);
  if (format == "json") {
    fmt::print("{}\n", ir::dumpJson(j));
  } else {
    fmt::print("{:<17} {:<9} {:<9} {:<8} {:>10} {:>11} {:>9} {:>12} {:>7}\n", "result", "verified", "compiled",
               "correct", "rel_error", "median_ms", "TFLOP/s", "baseline_ms", "ratio");
    // A figure that was not measured (no GPU, no compile) is -1 in the
    // record: "-" here, never a number that reads like a measurement.
    auto num = [](double v, const char* spec) { return v < 0 ? std::string("-") : fmt::format(fmt::runtime(spec), v); };
    fmt::print("{:<17} {:<9} {:<9} {:<8} {:>10} {:>11} {:>9} {:>12} {:>7}\n", r.result, verified, r.compiled, r.correct,
               num(r.rel_error, "{:.3g}"), num(r.median_ms, "{:.4f}"), num(r.tflops, "{:.1f}"),
               num(r.baseline_ms, "{:.4f}"), num(r.ratio, "{:.3f}"));
    if (r.harness.is_object() && r.harness.contains("baseline"))
      fmt::print("baseline: {}\n", r.harness["baseline"].get<std::string>());
    if (!r.detail.empty()) fmt::print("{}\n", r.detail);
  }
}

int recordExit(const runner::Result& r) {
  if (r.result == "ok" || r.result == "dry_run") return kOk;
  return r.result == "wrong" || r.result == "hang" || r.result == "crash" ? kFindings : kCannotCheck;
}

runner::Options runOptions(const RunArgs& a, bool verified, const std::map<std::string, int64_t>& sets) {
  runner::Options ropts;
  ropts.verified = verified;
  ropts.run_timeout_s = a.timeout_s;
  ropts.runs = a.runs;
  ropts.seed = a.seed;
  ropts.sets = sets;
  ropts.dry_run = a.dry_run;
  return ropts;
}

// `cake run FILE --split-k S`: FILE holds the two kernels of a split-K GEMM
// (either order: the partial is the one that binds the partial contract);
// both must verify.
int runSplitK(const RunArgs& a) {
  int exit_code = kCannotCheck;
  LoadedSchedule ls = load(a.file, a.target, kAllSchedules, exit_code);
  if (!ls.schedule) return loadFailed(ls, a.format, exit_code);
  const auto& all = ls.module->schedules;
  if (all.size() != 2)
    return refuse(fmt::format("--split-k needs a file with two schedules (the partial and the reduce kernel); {} "
                              "holds {}", a.file, all.size()), a.format);
  if (a.workload != "gemm") return refuse("--split-k runs the gemm workload only", a.format);
  std::string error;
  auto gshape = runner::parseShape(a.shape, &error);
  if (!gshape) return refuse(fmt::format("bad --shape '{}': {}", a.shape, error), a.format);
  auto sets = parseSettings(a.set);
  if (!sets) return failureJson(a.format, "error", "bad --set (expected NAME=INTEGER)", kCannotCheck);
  const ir::Schedule* p = &all[0];
  const ir::Schedule* r = &all[1];
  runner::SplitKBindResult br = runner::bindSplitK(*p, *r, *gshape, a.split_k, *sets);
  if (br.result == "no_oracle") {
    runner::SplitKBindResult swapped = runner::bindSplitK(*r, *p, *gshape, a.split_k, *sets);
    if (swapped.result != "no_oracle") std::swap(p, r), br = swapped;
  }
  if (!br.binding) return refuse(fmt::format("{}: {}", br.result, br.detail), a.format);
  bool verified = true;
  for (const ir::Schedule* s : {p, r}) {
    std::string refusal;
    if (verify(*s, &refusal, static_cast<unsigned>(a.check_timeout_s * 1000)) == kOk) continue;
    if (!a.allow_unverified) return refuse(fmt::format("{}: {}", s->name, refusal), a.format);
    fmt::print(stderr, "warning: running a schedule that does not verify (--allow-unverified)\n");
    verified = false;
  }
  if (!a.dry_run)
    if (auto mismatch = deviceMismatch(p->target)) return refuse(*mismatch, a.format);
  liftMemoryCap();
  runner::Result res = runner::runSplitK(*p, *r, *gshape, a.split_k, runOptions(a, verified, *sets));
  printRecord(res, verified, a.format);
  return recordExit(res);
}

int runRun(const RunArgs& a) {
  if (a.split_k) return runSplitK(a);
  int exit_code;
  LoadedSchedule ls = load(a.file, a.target, a.schedule, exit_code);
  if (!ls.schedule) return loadFailed(ls, a.format, exit_code);
  std::string error;
  auto kind = workload::parseKind(a.workload);
  if (!kind) return refuse(fmt::format("unknown workload '{}' (expected {})", a.workload, workload::kindList()), a.format);
  auto shape = workload::parseShape(*kind, a.shape, &error);
  if (!shape) return refuse(fmt::format("bad --shape '{}': {}", a.shape, error), a.format);
  auto sets = parseSettings(a.set);
  if (!sets) return failureJson(a.format, "error", "bad --set (expected NAME=INTEGER)", kCannotCheck);

  std::string refusal;
  bool verified = verify(*ls.schedule, &refusal, static_cast<unsigned>(a.check_timeout_s * 1000)) == kOk;
  if (!verified) {
    if (!a.allow_unverified) return refuse(refusal, a.format);
    fmt::print(stderr, "warning: running a schedule that does not verify (--allow-unverified)\n");
  }
  if (ls.schedule->target == ir::Target::Unspecified) return refuse("no target: give target= or --target", a.format);
  if (auto mismatch = deviceMismatch(ls.schedule->target)) return refuse(*mismatch, a.format);

  liftMemoryCap();   // nvcc and the CUDA harness need more address space than the checks
  runner::Result r = runner::runWorkload(*ls.schedule, *shape, runOptions(a, verified, *sets));
  printRecord(r, verified, a.format);
  return recordExit(r);
}

}  // namespace

void addLowerRunCommands(CLI::App& app, int& exit_code) {
  auto la = std::make_shared<LowerArgs>();
  CLI::App* lower = app.add_subcommand("lower", "Lower a schedule to CUDA C++ with inline PTX");
  lower->add_option("file", la->file, "CAKE IR file")->required();
  lower->add_option("-o,--output", la->output, "output .cu file (default: stdout)");
  lower->add_option("--target", la->target, "sm_80 | sm_90a | sm_100a")->check(knownTarget());
  lower->add_option("--schedule", la->schedule, "schedule name when the file holds several");
  lower->add_flag("--no-comments", la->no_comments, "leave explanatory comments out");
  lower->add_option("--set", la->set, "give a scalar parameter a value, e.g. --set BM=64 (repeatable)");
  lower->add_flag("--allow-unverified", la->allow_unverified,
                  "lower even if the verifier rejects the schedule or cannot decide it (to observe a bug)");
  lower->add_option("--check-timeout", la->check_timeout_s,
                    "seconds for the verification before lowering (as cake check --timeout; default 10)")
      ->check(secondsIn(1.0, 3600.0));
  lower->callback([la, &exit_code] { exit_code = runLower(*la); });

  auto ra = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand("run", "Verify, lower, compile, run on the GPU, check against cuBLAS, and time");
  run->add_option("file", ra->file, "CAKE IR file")->required();
  run->add_option("--shape", ra->shape,
                  "problem size: gemm M=..,N=..,K=..; kmeans-assign N=..,K=..,D=..[,B=..]; attention-fwd "
                  "S=..,D=..[,B=..,H=..,causal=0|1]; row-sum / row-max M=..,N=..")
      ->required();
  run->add_option("--workload", ra->workload, "the problem contract: " + workload::kindList() + " (default gemm)");
  run->add_option("--set", ra->set, "give an i32 parameter the workload does not size a value, e.g. --set BM=64");
  run->add_option("--target", ra->target, "sm_80 | sm_90a | sm_100a")->check(knownTarget());
  run->add_option("--schedule", ra->schedule, "schedule name when the file holds several");
  run->add_option("--format", ra->format, "output format")->check(CLI::IsMember({"text", "json"}));
  run->add_option("--timeout", ra->timeout_s, "watchdog: seconds before a run counts as a hang")->check(secondsIn(1.0, 3600.0));
  run->add_option("--runs", ra->runs, "timed runs (median reported)")->check(CLI::Range(1, 100000));
  run->add_option("--seed", ra->seed, "random seed for the inputs (default: fresh)");
  run->add_flag("--allow-unverified", ra->allow_unverified,
                "run even if the verifier rejects the schedule (to observe a bug on the GPU)");
  run->add_option("--check-timeout", ra->check_timeout_s,
                  "seconds for the verification before the run (as cake check --timeout; default 10)")
      ->check(secondsIn(1.0, 3600.0));
  run->add_option("--split-k", ra->split_k,
                  "split-K GEMM over S K slices: FILE holds the partial kernel (A, B -> f32 workspace W[S, M, N]) "
                  "and the reduce kernel (W -> C); both run and are timed together, the oracle checks C")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  run->add_flag("--dry-run", ra->dry_run,
                "verify and bind only (no lowering, compile or GPU): print the record, whose detail is the harness "
                "arguments");
  run->callback([ra, &exit_code] { exit_code = runRun(*ra); });
}

}  // namespace cake::cli
