// `cake tune` (generate, gate, rank, measure, route; batches; ablation) and
// `cake dispatch` (a shape-dispatching kernel library from tuned winners).
// The work is in search/; this file maps flags to it.
#include <filesystem>

#include <fmt/format.h>

#include "cli/commands.h"
#include "runner/runner.h"
#include "search/ablate.h"
#include "search/batch.h"
#include "search/dispatch.h"
#include "search/estimator.h"
#include "search/route.h"
#include "search/tune.h"

namespace fs = std::filesystem;

namespace cake::cli {

namespace {

struct TuneArgs {
  std::string spec_file, template_file, schedule, shape, baseline, run_dir;
  std::vector<std::string> params, mutate, ablate, run_batch;
  std::string emit_batch, ingest, harness, so_cache;
  int top_k = -1, batch = -1, jobs = 2;
  bool all = false, ungated = false, no_measure = false, compile_only = false;
};

int usage(const std::string& m) {
  fmt::print(stderr, "cake tune: error: {}\n", m);
  return kCannotCheck;
}

// The spec from the file and/or the flags (flags override the file).
std::optional<search::TuneSpec> buildSpec(const TuneArgs& a, std::string* error) {
  search::TuneSpec s;
  if (!a.spec_file.empty()) {
    auto f = search::loadSpec(a.spec_file, error);
    if (!f) return std::nullopt;
    s = *f;
  }
  if (!a.template_file.empty()) s.template_path = a.template_file;
  if (!a.schedule.empty()) s.schedule = a.schedule;
  if (!a.params.empty()) s.choices.clear();
  for (const std::string& p : a.params) {
    auto c = search::parseChoice(p, error);
    if (!c) {
      *error = fmt::format("--param {}: {}", p, *error);
      return std::nullopt;
    }
    s.choices.push_back(*c);
  }
  for (const std::string& m : a.mutate) s.mutate.push_back(m);
  if (!a.baseline.empty()) s.baseline = a.baseline;
  if (!a.shape.empty()) {
    auto shape = workload::parseShape(s.workload.shape.kind, a.shape, error);
    if (!shape) return std::nullopt;
    s.workload.shape = *shape;
  }
  if (a.top_k >= 0) s.top_k = a.top_k;
  if (a.all) s.top_k = 0;
  if (a.batch > 0) s.batch = a.batch;
  if (s.template_path.empty() && s.mutate.empty()) {
    *error = "nothing to tune: give a spec file, or --template with --param, or --mutate";
    return std::nullopt;
  }
  if (!s.template_path.empty() && s.choices.empty()) {
    *error = "--template needs the choices: --param NAME=VALUES";
    return std::nullopt;
  }
  return s;
}

int runAblate(const TuneArgs& a) {
  std::vector<search::Ablation> runs;
  for (const std::string& dir : a.ablate) {
    std::string e;
    auto records = search::readRecords(search::resultsPath(dir), &e);
    if (!records) return usage(e);
    if (records->empty()) return usage(fmt::format("{}: no recorded results", dir));
    runs.push_back(search::ablate(dir, *records));
  }
  fmt::print("{}", search::ablationTable(runs));
  return kOk;
}

int runTune(const TuneArgs& a) {
  std::string e;
  if (!a.ablate.empty()) return runAblate(a);
  if (!a.run_batch.empty()) {
    search::RunBatchOptions ro;
    ro.jobs = a.jobs;
    ro.harness = a.harness;
    ro.so_cache = a.so_cache;
    ro.compile_only = a.compile_only;
    auto n = search::runBatches(a.run_batch, ro, &e);
    if (!n) return usage(e);
    if (a.compile_only)
      fmt::print("compiled {} kernel librar{}\n", *n, *n == 1 ? "y" : "ies");
    else
      for (const std::string& dir : a.run_batch) fmt::print("results in {}/results.jsonl\n", dir);
    if (!a.compile_only) fmt::print("measured {} candidate(s)\n", *n);
    return kOk;
  }
  if (a.run_dir.empty()) return usage("give the run folder: -o DIR");
  auto spec = buildSpec(a, &e);
  if (!spec) return usage(e);
  search::TuneOptions to;
  to.spec = *spec;
  to.run_dir = a.run_dir;
  to.jobs = a.jobs;
  std::string estimator_name;
  to.estimator = search::defaultEstimator(&estimator_name);
  auto records = search::gateAndRank(to, &e);
  if (!records) return usage(e);
  fmt::print("candidates: {}; ranked by: {}\n", records->size(), estimator_name);

  if (!a.ingest.empty()) {
    auto n = search::ingest(*records, a.ingest, &e);
    if (!n) return usage(e);
    fmt::print("ingested {} measurement(s) from {}\n", *n, a.ingest);
  }
  const auto selected = search::selectForMeasurement(*records, spec->top_k, spec->batch, a.ungated);
  if (!a.emit_batch.empty()) {
    auto stats = search::emitBatch(*records, selected, *spec, a.emit_batch, &e);
    if (!stats) return usage(e);
    fmt::print("batch {}: {} kernel(s) to measure ({} not runnable, recorded); on the device: "
               "cake tune --run-batch {} -j N; then: cake tune ... -o {} --ingest {}/results.jsonl\n",
               a.emit_batch, stats->written, stats->not_runnable, a.emit_batch, a.run_dir, a.emit_batch);
  } else if (!a.no_measure && !selected.empty()) {
    if (!runner::gpuAvailable()) {
      fmt::print("{} candidate(s) to measure, but there is no GPU here: write a batch with --emit-batch DIR\n",
                 selected.size());
    } else {
      const std::string dir = (fs::path(a.run_dir) / "batch").string();
      if (!search::emitBatch(*records, selected, *spec, dir, &e)) return usage(e);
      search::RunBatchOptions ro;
      ro.jobs = a.jobs;
      ro.harness = a.harness;
      if (!search::runBatch(dir, ro, &e) || !search::ingest(*records, dir + "/results.jsonl", &e)) return usage(e);
    }
  }
  auto report = search::route(*records, *spec, a.run_dir, &e);
  if (!report || !search::writeRecords(search::resultsPath(a.run_dir), *records, &e)) return usage(e);
  fmt::print("{}", report->text);
  return report->to_corpus.empty() ? kOk : kFindings;
}

struct DispatchArgs {
  std::string spec_file, out_dir;
  int jobs = 2;
};

int runDispatch(const DispatchArgs& a) {
  std::string e;
  auto ds = search::loadDispatchSpec(a.spec_file, &e);
  if (!ds) {
    fmt::print(stderr, "cake dispatch: error: {}\n", e);
    return kCannotCheck;
  }
  std::string estimator_name;
  auto step = search::dispatchStep(*ds, a.out_dir, a.jobs, search::defaultEstimator(&estimator_name), &e);
  if (!step) {
    fmt::print(stderr, "cake dispatch: error: {}\n", e);
    return kCannotCheck;
  }
  fmt::print("{}", step->text);
  return kOk;
}

}  // namespace

void addDispatchCommand(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<DispatchArgs>();
  CLI::App* c = app.add_subcommand("dispatch", "Build a shape-dispatching kernel library from tuned winners over a declared shape domain");
  c->add_option("spec", a->spec_file, "dispatch spec (JSON, docs/search.md)")->required();
  c->add_option("-o,--out", a->out_dir, "output folder (shards, per-shard tune runs, library, evaluation)")->required();
  c->add_option("-j,--jobs", a->jobs, "parallel checks")->check(CLI::Range(1, 256));
  c->callback([a, &exit_code] { exit_code = runDispatch(*a); });
}

void addTuneCommand(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<TuneArgs>();
  CLI::App* c = app.add_subcommand("tune", "Search a template's choices: generate, gate, rank, measure, route");
  c->add_option("spec", a->spec_file, "tune spec (JSON, docs/search.md)");
  c->add_option("-o,--out", a->run_dir, "run folder (results.jsonl, candidates/, findings/, report.md)");
  c->add_option("--template", a->template_file, "template .cake whose LM.i32 choices are tuned");
  c->add_option("--schedule", a->schedule, "schedule name when the template holds several");
  c->add_option("--param", a->params, "a choice: NAME=64,128 | NAME=2..7 | NAME=64..256:64 | NAME=32..256*2 (repeatable)");
  c->add_option("--mutate", a->mutate, "an accepted schedule whose mutants are candidates (repeatable)");
  c->add_option("--baseline", a->baseline, "a .cake measured beside the candidates (ratio in the report)");
  c->add_option("--shape", a->shape, "workload sizes, e.g. M=4096,N=4096,K=4096 (the spec's workload kind; default gemm)");
  c->add_option("--top-k", a->top_k, "verified candidates to measure, best predicted first (0: all)");
  c->add_flag("--all", a->all, "measure every verified candidate (an exhaustive sweep)");
  c->add_option("--batch", a->batch, "measurements per device call");
  c->add_option("-j,--jobs", a->jobs, "parallel checks and compiles")->check(CLI::Range(1, 256));
  c->add_option("--emit-batch", a->emit_batch, "write the next measurement batch into DIR (no GPU needed)");
  c->add_option("--run-batch", a->run_batch, "compile and measure the batches in these DIRs (on the GPU machine; each kernel compiles once)");
  c->add_option("--so-cache", a->so_cache, "with --run-batch: compiled libraries by content, shared between calls");
  c->add_flag("--compile-only", a->compile_only, "with --run-batch: compile into the cache only (measure later)");
  c->add_option("--ingest", a->ingest, "merge a batch's results.jsonl into the run");
  c->add_option("--harness", a->harness, "the runner's harness binary (default: $CAKE_HARNESS or built)");
  c->add_flag("--ungated", a->ungated, "also measure rejected/unknown candidates (the ablation's no-gate arm)");
  c->add_flag("--no-measure", a->no_measure, "generate, gate and rank only");
  c->add_option("--ablate", a->ablate, "print the ablation table from these run folders");
  c->callback([a, &exit_code] { exit_code = runTune(*a); });
}

}  // namespace cake::cli
