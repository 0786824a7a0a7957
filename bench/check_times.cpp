// Prints the `cake check` time of every corpus schedule (the whole check
// driver: structural checks, layout gates, model checker), then the median
// and the maximum.
//
//   cake_bench_check_times [CORPUS_DIR=corpus] [--repeat=N] [--engine=explicit|z3|both] [--timeout-s=S]
//                          [--proof-timeout-s=S] [--split]
//
// --split also checks each schedule with the later stages turned off, in
// four configurations, and prints the CPU each stage adds (the median of
// the N runs of each; differences of medians, so a small negative value is
// noise): front end excluded, structural checks alone; + layout gates;
// + the model checker's bounded check (proof_timeout 0: the engine on every
// binding); + the proof for every trip count (the full check).
//
// Each schedule is checked N times (default 3) and its median is reported,
// wall time and the checking thread's CPU time (on a shared machine the
// wall time follows the load; --timeout-s raises cake check's wall-clock
// budget, default 10 s, so that a loaded machine does not cut the check;
// --proof-timeout-s the proof's, default 3 s: a proof cut by the wall clock
// spends less CPU, so CPU figures at a high load need a larger one).
// Memory is kept as the `cake` command keeps it (bench_util.h), so each
// schedule's time leaves out only the process start and the first Z3
// context of a process (together about 0.07-0.09 s of CPU per `cake check`
// process on this machine; docs/benchmarks.md).
#include <algorithm>
#include <map>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "checks/check.h"
#include "checks/sync_engine.h"
#include "ir/frontend.h"

using namespace cake;

using cake::bench::threadCpu;

static int run(int argc, char** argv) {
  cake::bench::keepFreedMemoryAsTheCliDoes();
  std::string dir = "corpus";
  int repeat = 3;
  checks::SyncEngine engine = checks::SyncEngine::Explicit;
  unsigned timeout_ms = checks::CheckOptions{}.timeout_ms;
  bool split = false;
  unsigned proof_timeout_ms = checks::CheckOptions{}.proof_timeout_ms;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--repeat=", 0) == 0)
      repeat = std::max(1, cake::bench::parseNumber<int>(a.substr(9), "--repeat"));
    else if (a.rfind("--timeout-s=", 0) == 0)
      timeout_ms = 1000u * cake::bench::parseNumber<unsigned>(a.substr(12), "--timeout-s");
    else if (a.rfind("--proof-timeout-s=", 0) == 0)
      proof_timeout_ms = 1000u * cake::bench::parseNumber<unsigned>(a.substr(18), "--proof-timeout-s");
    else if (a == "--split")
      split = true;
    else if (a.rfind("--engine=", 0) == 0) {
      auto e = checks::parseSyncEngine(a.substr(9));
      if (!e) { std::fprintf(stderr, "--engine must be explicit, z3 or both\n"); return 2; }
      engine = *e;
    }
    else {
      cake::bench::rejectUnknownOption(a);
      dir = a;
    }
  }
  std::vector<std::string> files = cake::bench::cakeFilesUnder({dir});
  std::vector<double> times, cpus;
  std::string worst;
  std::map<std::string, int> sync_verdicts;  // the model checker's verdict, by kind
  std::vector<double> stage_cpu[3];          // --split: layout, bounded check, proof
  for (const auto& f : files) {
    std::string err;
    auto file = ir::readSourceFile(f, err);
    if (!file) continue;
    ir::DiagnosticSink sink;
    auto mod = ir::compileModule(file, {}, sink);
    if (!mod) {
      std::printf("%-70s  (front-end error)\n", f.c_str());
      continue;
    }
    for (const auto& s : mod->schedules) {
      checks::CheckOptions opts;
      opts.target = s.target;
      opts.sync_engine = engine;
      opts.timeout_ms = timeout_ms;
      opts.proof_timeout_ms = proof_timeout_ms;
      std::vector<double> runs, cpu_runs;
      checks::CheckResult res;
      for (int r = 0; r < repeat; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        double c0 = threadCpu();
        res = checks::checkSchedule(s, opts);
        cpu_runs.push_back(threadCpu() - c0);
        runs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(runs.begin(), runs.end());
      std::sort(cpu_runs.begin(), cpu_runs.end());
      double t = runs[runs.size() / 2];
      cpus.push_back(cpu_runs[cpu_runs.size() / 2]);
      std::string verdicts;
      for (const auto& v : res.verdicts)
        if (v.property == "sync") ++sync_verdicts[std::string(checks::verdictName(v.kind))];
      for (const auto& v : res.verdicts)
        verdicts += std::string(verdicts.empty() ? "" : " ") + v.property + "=" + std::string(checks::verdictName(v.kind));
      std::printf("%-70s %8.4f s (cpu %.4f s)  %zu error(s)  %s\n", (f + ":" + s.name).c_str(), t, cpus.back(),
                  static_cast<size_t>(res.hasErrors() ? 1 : 0) * res.findings.size(), verdicts.c_str());
      if (split) {
        // median CPU of the check with the stages after `stage` turned off
        auto cpuUpTo = [&](int stage) {
          checks::CheckOptions o = opts;
          o.layout = stage >= 1;
          o.model_check = stage >= 2;
          if (stage == 2) o.proof_timeout_ms = 0;
          std::vector<double> c;
          for (int r = 0; r < repeat; ++r) {
            double c0 = threadCpu();
            (void)checks::checkSchedule(s, o);
            c.push_back(threadCpu() - c0);
          }
          std::sort(c.begin(), c.end());
          return c[c.size() / 2];
        };
        double up[4] = {cpuUpTo(0), cpuUpTo(1), cpuUpTo(2), cpus.back()};
        for (int i = 0; i < 3; ++i) stage_cpu[i].push_back(up[i + 1] - up[i]);
        std::printf("    cpu by stage: structural %.4f s, layout %.4f s, bounded check %.4f s, proof %.4f s\n", up[0],
                    up[1] - up[0], up[2] - up[1], up[3] - up[2]);
      }
      if (times.empty() || t > *std::max_element(times.begin(), times.end())) worst = f + ":" + s.name;
      times.push_back(t);
    }
  }
  if (times.empty()) {
    std::printf("no schedules under %s\n", dir.c_str());
    return 1;
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  std::printf("check time over %zu schedules: median %.4f s, max %.4f s (%s)\n", sorted.size(),
              sorted[sorted.size() / 2], sorted.back(), worst.c_str());
  std::sort(cpus.begin(), cpus.end());
  std::printf("cpu time (this thread; the machine is shared, wall times vary with its load): median %.4f s, max %.4f s\n",
              cpus[cpus.size() / 2], cpus.back());
  const char* stage_names[3] = {"layout", "bounded check", "proof"};
  for (int i = 0; i < 3 && split; ++i) {
    std::vector<double> v = stage_cpu[i];
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    std::printf("cpu of the %s stage: median %.4f s, max %.4f s, sum %.4f s\n", stage_names[i], v[v.size() / 2],
                v.back(), sum);
  }
  std::printf("sync verdicts:");
  for (const auto& [kind, n] : sync_verdicts) std::printf(" %s %d", kind.c_str(), n);
  std::printf("\n");
  return 0;
}

int main(int argc, char** argv) {
  return cake::bench::guardedMain(argv[0], [&] { return run(argc, argv); });
}
