// The two synchronization engines side by side on corpus schedules: for every
// schedule, every parameter binding the bounded check uses
// (checks::coveringBindings) is decided by the explicit-state explorer (all
// rules, not only those near the first violation) and by the Z3
// partial-order engine (encoder/z3_po.h). Each schedule gets two labels --
// the set of rules each engine finds over its bindings (bad) or none
// (benign) -- and every place where the labellers differ is printed: a
// binding both decide with different rules, or different labels.
//
//   cake_bench_sync_engines [DIR...=corpus] [--timeout-ms=T] [--budget-s=S] [--every=N] [--shard=I/N] [--verbose]
//
// --every=N takes every N-th file (sorted), --shard=I/N the I-th of N
// interleaved parts of those (bench/label_mutants.sh runs the parts side by
// side), --budget-s stops after S seconds (the schedules not reached are
// counted as such). Exit status 1 on a disagreement or an internal error.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "checks/model_check.h"
#include "encoder/simulator.h"
#include "encoder/z3_po.h"
#include "ir/frontend.h"

using namespace cake;

namespace {

std::string join(const std::set<std::string>& s) {
  std::string o;
  for (const auto& r : s) o += (o.empty() ? "" : ",") + r;
  return o.empty() ? "benign" : o;
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

static int run(int argc, char** argv) {
  std::vector<std::string> dirs;
  unsigned timeout_ms = 20000;
  double budget = 0;
  int every = 1, shard = 0, shards = 1;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--timeout-ms=", 0) == 0)
      timeout_ms = cake::bench::parseNumber<unsigned>(a.substr(13), "--timeout-ms");
    else if (a.rfind("--budget-s=", 0) == 0)
      budget = cake::bench::parseNumber<double>(a.substr(11), "--budget-s");
    else if (a.rfind("--every=", 0) == 0)
      every = std::max(1, cake::bench::parseNumber<int>(a.substr(8), "--every"));
    else if (a.rfind("--shard=", 0) == 0 && a.find('/') != std::string::npos) {
      shard = cake::bench::parseNumber<int>(a.substr(8, a.find('/') - 8), "--shard");
      shards = std::max(1, cake::bench::parseNumber<int>(a.substr(a.find('/') + 1), "--shard"));
    }
    else if (a == "--verbose") verbose = true;
    else {
      cake::bench::rejectUnknownOption(a);
      dirs.push_back(a);
    }
  }
  if (dirs.empty()) dirs.push_back("corpus");
  std::vector<std::string> files = cake::bench::cakeFilesUnder(dirs);
  auto t0 = std::chrono::steady_clock::now();
  int schedules = 0, agree = 0, disagree = 0, undecided = 0, internal = 0, not_reached = 0, systems = 0;
  int undecided_bad = 0;  // undecided, but both engines find violations on a binding both decide
  int bad = 0, benign = 0;
  std::vector<double> sim_t, po_t;
  for (size_t fi = 0; fi < files.size(); fi += every) {
    if (static_cast<int>(fi / every) % shards != shard) continue;
    const std::string& f = files[fi];
    std::string err;
    auto file = ir::readSourceFile(f, err);
    if (!file) continue;
    ir::DiagnosticSink sink;
    auto mod = ir::compileModule(file, {}, sink);
    if (!mod) continue;
    for (const auto& s : mod->schedules) {
      if (budget > 0 && since(t0) > budget) { ++not_reached; continue; }
      ++schedules;
      std::set<std::string> sim_rules, po_rules;
      std::set<size_t> seen;
      bool open = false, ierr = false, bad_in_both = false;
      std::string why, differs;  // differs: a binding both decide with different rules
      for (const encoder::Binding& b : checks::coveringBindings(s)) {
        auto sys = encoder::buildSystem(s, b, s.target, &err);
        if (!sys || !seen.insert(std::hash<std::string>{}(encoder::systemToString(*sys))).second) continue;
        ++systems;
        encoder::ModelCheckResult x = encoder::explore(*sys, encoder::everyRule());
        encoder::PoOptions po;
        po.limits.timeout_ms = timeout_ms;
        encoder::PoResult z = encoder::poCheck(*sys, po);
        sim_t.push_back(x.seconds);
        po_t.push_back(z.result.seconds);
        if (z.internal_error) { ierr = true; why = z.error; }
        if (x.outcome == encoder::Outcome::Unknown || z.result.outcome == encoder::Outcome::Unknown) {
          open = true;
          if (why.empty()) why = x.outcome == encoder::Outcome::Unknown ? x.detail : z.result.detail;
        }
        if (verbose)
          std::printf("  %s: explicit %.4f s %s, z3-po %.3f s %s (%d events, %d queries)\n",
                      encoder::bindingToString(s, b).c_str(), x.seconds, std::string(outcomeName(x.outcome)).c_str(),
                      z.result.seconds, std::string(outcomeName(z.result.outcome)).c_str(), z.events, z.queries);
        std::set<std::string> xr, zr;
        for (const auto& v : x.violations) xr.insert(v.rule);
        for (const auto& v : z.result.violations) zr.insert(v.rule);
        // every binding both engines decide must show the same rules
        if (x.outcome != encoder::Outcome::Unknown && z.result.outcome != encoder::Outcome::Unknown) {
          if (xr != zr && differs.empty())
            differs = encoder::bindingToString(s, b) + ": explicit " + join(xr) + ", z3-po " + join(zr);
          if (!xr.empty() && !zr.empty()) bad_in_both = true;
        }
        sim_rules.insert(xr.begin(), xr.end());
        po_rules.insert(zr.begin(), zr.end());
      }
      std::string name = f + ":" + s.name;
      if (ierr) {
        ++internal;
        std::printf("INTERNAL %s: %s\n", name.c_str(), why.c_str());
      } else if (!differs.empty()) {
        ++disagree;
        std::printf("DISAGREE %s: %s\n", name.c_str(), differs.c_str());
      } else if (open) {
        ++undecided;
        undecided_bad += bad_in_both;
        std::printf("undecided %s%s: %s\n", name.c_str(), bad_in_both ? " (bad in both where decided)" : "",
                    why.c_str());
      } else if (sim_rules != po_rules) {
        ++disagree;
        std::printf("DISAGREE %s: explicit %s, z3-po %s\n", name.c_str(), join(sim_rules).c_str(),
                    join(po_rules).c_str());
      } else {
        ++agree;
        (sim_rules.empty() ? benign : bad) += 1;
        if (verbose) std::printf("ok %s: %s\n", name.c_str(), join(sim_rules).c_str());
      }
      std::fflush(stdout);
    }
  }
  std::printf("sync engines over %d schedules (%d systems): %d agree (%d bad, %d benign), %d disagree, %d undecided, "
              "%d internal errors; %d not reached within the budget\n",
              schedules, systems, agree, bad, benign, disagree, undecided, internal, not_reached);
  std::printf("undecided but bad in both engines on a binding both decide: %d\n", undecided_bad);
  std::printf("time per system: explicit median %.4f s max %.4f s; z3-po median %.3f s max %.3f s; total %.0f s\n",
              median(sim_t), sim_t.empty() ? 0 : *std::max_element(sim_t.begin(), sim_t.end()), median(po_t),
              po_t.empty() ? 0 : *std::max_element(po_t.begin(), po_t.end()), since(t0));
  return disagree + internal > 0 ? 1 : 0;
}

int main(int argc, char** argv) {
  return cake::bench::guardedMain(argv[0], [&] { return run(argc, argv); });
}
