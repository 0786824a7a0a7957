// cake-runner: a development tool for lowering/ and runner/ (`cake lower` and
// `cake run` are the user-facing entry points).
//
//   cake-runner --cake F.cake [--schedule NAME] [--set P=V ...] --emit out.cu   lower only
//                (--set specialises an i32 parameter that shapes depend on)
//   cake-runner --cake F.cake [--schedule NAME] --shape M=..,N=..,K=..  lower, build, run
//   cake-runner --so K.so --shape ...                                 run a kernel library
//   cake-runner --cake F.cake --workload W --shape ... [--set P=V] [--emit out.cu | --so K.so]
//                bind to a workload contract; lower (for it) only, or run a library built from it
//   cake-runner --cu K.cu [--target sm_90a] --shape ...               build and run a .cu
// --dry-run: print the record with the harness's problem arguments in "detail" instead of running it
// options: [--harness PATH] [--timeout S] [--runs N] [--no-baseline] [--no-time] [--seed S] [--work-dir D]
// Prints the runner's evidence record (one JSON line).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>

#include "ir/frontend.h"
#include "lowering/lower.h"
#include "runner/runner.h"

using namespace cake;

// The schedule named `name` of a .cake file (the first when no name
// matches), its findings on stderr; nullptr when it does not compile.
static const ir::Schedule* loadSchedule(const std::string& path, const std::string& name,
                                        std::optional<ir::Module>& mod) {
  std::string err;
  auto file = ir::readSourceFile(path, err);
  if (!file) {
    fprintf(stderr, "cake-runner: %s\n", err.c_str());
    return nullptr;
  }
  ir::DiagnosticSink sink;
  mod = ir::compileModule(file, {}, sink);
  for (const auto& f : sink.findings()) fprintf(stderr, "%s\n", ir::renderText(f).c_str());
  if (!mod || mod->schedules.empty()) return nullptr;
  const ir::Schedule* s = &mod->schedules[0];
  for (const auto& x : mod->schedules)
    if (x.name == name) s = &x;
  return s;
}

int main(int argc, char** argv) {
  std::string so, cu, cake_file, schedule_name, emit, shape_text = "M=4096,N=4096,K=4096", target = "sm_90a";
  std::string workload_name;
  runner::Options opts;
  lowering::LowerOptions lower_opts;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--so") so = next();
    else if (a == "--cu") cu = next();
    else if (a == "--cake") cake_file = next();
    else if (a == "--schedule") schedule_name = next();
    else if (a == "--emit") emit = next();
    else if (a == "--set") {
      const std::string kv = next();
      const auto eq = kv.find('=');
      if (eq == std::string::npos) {
        fprintf(stderr, "cake-runner: --set NAME=VALUE\n");
        return 2;
      }
      lower_opts.specialize[kv.substr(0, eq)] = strtoll(kv.c_str() + eq + 1, nullptr, 0);
      opts.sets[kv.substr(0, eq)] = strtoll(kv.c_str() + eq + 1, nullptr, 0);
    }
    else if (a == "--target") target = next();
    else if (a == "--workload") workload_name = next();
    else if (a == "--shape") shape_text = next();
    else if (a == "--harness") opts.harness = next();
    else if (a == "--timeout") opts.run_timeout_s = atof(next().c_str());
    else if (a == "--runs") opts.runs = atoi(next().c_str());
    else if (a == "--warmup") opts.warmup = atoi(next().c_str());
    else if (a == "--no-baseline") opts.baseline = false;
    else if (a == "--no-time") opts.time = false;
    else if (a == "--seed") opts.seed = strtoull(next().c_str(), nullptr, 0);
    else if (a == "--work-dir") opts.work_dir = next();
    else if (a == "--dry-run") opts.dry_run = true;
    else {
      fprintf(stderr, "usage: see runner/tools/cake_runner_main.cpp\n");
      return 2;
    }
  }
  std::string err;
  if (!workload_name.empty()) {
    auto kind = workload::parseKind(workload_name);
    auto wshape = kind ? workload::parseShape(*kind, shape_text, &err) : std::nullopt;
    if (!wshape) {
      fprintf(stderr, "cake-runner: bad workload or shape: %s\n", err.c_str());
      return 2;
    }
    std::optional<ir::Module> mod;
    const ir::Schedule* s = loadSchedule(cake_file, schedule_name, mod);
    if (!s) return 2;
    if (!emit.empty()) {
      lower_opts.problem = *kind == workload::Kind::Gemm ? lowering::Problem::Gemm : lowering::Problem::None;
      auto lr = lowering::lowerToCuda(*s, lower_opts);
      for (const auto& f : lr.findings) fprintf(stderr, "%s\n", ir::renderText(f).c_str());
      if (!lr.ok) return 1;
      std::ofstream(emit) << lr.source;
      return 0;
    }
    runner::Result r;
    workload::BindResult br = workload::bind(*s, *wshape, opts.sets);
    if (!br.binding) {
      r.result = br.result;
      r.detail = br.detail;
      r.workload = workload_name;
      r.dims = wshape->dims;
    } else if (!so.empty()) {
      r = runner::runWorkloadLibrary(so, *s, *br.binding, opts);
    } else {
      r = runner::runWorkload(*s, *wshape, opts);
    }
    if (r.kernel.empty()) r.kernel = s->name;
    printf("%s\n", runner::toJson(r).dump().c_str());
    return r.result == "ok" ? 0 : 1;
  }
  auto shape = runner::parseShape(shape_text, &err);
  if (!shape) {
    fprintf(stderr, "cake-runner: %s\n", err.c_str());
    return 2;
  }
  runner::Result r;
  if (!cake_file.empty()) {
    std::optional<ir::Module> mod;
    const ir::Schedule* s = loadSchedule(cake_file, schedule_name, mod);
    if (!s) return 2;
    if (!emit.empty()) {
      auto lr = lowering::lowerToCuda(*s, lower_opts);
      for (const auto& f : lr.findings) fprintf(stderr, "%s\n", ir::renderText(f).c_str());
      if (!lr.ok) return 1;
      std::ofstream(emit) << lr.source;
      fprintf(stderr, "cake-runner: %s -> %s (%s, %d threads, %d B smem, grid %s)\n", s->name.c_str(), emit.c_str(),
              std::string(ir::targetName(lr.target)).c_str(), lr.launch.threads, lr.launch.smem_bytes,
              lr.launch.grid.c_str());
      return 0;
    }
    r = runner::run(*s, *shape, opts);
  } else if (!so.empty()) {
    r = runner::runLibrary(so, *shape, opts);
  } else if (!cu.empty()) {
    ir::Target t = target == "sm_80" ? ir::Target::SM80
                   : target == "sm_100a" ? ir::Target::SM100a
                                         : ir::Target::SM90a;
    std::string base = cu.substr(0, cu.rfind('.'));
    r = runner::compile(cu, t, base + ".so", opts);
    if (r.compiled) r = runner::runLibrary(base + ".so", *shape, opts);
  } else {
    fprintf(stderr, "cake-runner: give --cake, --so or --cu\n");
    return 2;
  }
  printf("%s\n", runner::toJson(r).dump().c_str());
  return r.result == "ok" ? 0 : 1;
}
