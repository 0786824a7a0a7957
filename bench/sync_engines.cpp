// The two synchronization engines side by side on corpus schedules: for every
// schedule, every parameter binding the bounded check uses
// (checks::coveringBindings) is decided by the explicit-state explorer and
// by the Z3 partial-order engine (encoder/z3_po.h). Each schedule gets two
// labels and every place where the labellers differ is printed.
//
//   cake_bench_sync_engines [DIR...=corpus] [--timeout-ms=T] [--budget-s=S] [--every=N] [--shard=I/N]
//                           [--jobs=J] [--verdict] [--schedule-budget-s=S] [--verbose]
//
// Two ways to label:
//  - rules (the default): both engines look for every rule on every
//    binding; a label is the set of rules found (bad) or none (benign); a
//    binding both decide with different rules, or different labels, is a
//    disagreement.
//  - --verdict: as `cake check --engine z3` decides a schedule. Z3 stops at
//    its first rule on a binding (PoOptions::stop_at_first), the explicit
//    engine looks for every rule; the bindings go smallest first and stop at
//    the first one both engines find broken (label bad), else every binding
//    passes in both (benign). On every binding both decide, the verdicts must
//    be equal and the rules Z3 reports must be among the explicit engine's:
//    anything else is a disagreement.
//
// --every=N takes every N-th file (sorted), --shard=I/N the I-th of N
// interleaved parts of those, --jobs=J labels J files at a time (threads
// taking the next file as they finish one, so one output for a whole run),
// --budget-s stops starting schedules after S seconds (those not reached
// are counted as such), --schedule-budget-s bounds one schedule's Z3 time
// (its remaining bindings are then undecided). Exit status 1 on a
// disagreement or an internal error.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "bench/bench_util.h"
#include "checks/model_check.h"
#include "encoder/simulator.h"
#include "encoder/z3_po.h"
#include "ir/frontend.h"

using namespace cake;

namespace {

using Clock = std::chrono::steady_clock;
using cake::bench::threadCpu;

std::string join(const std::set<std::string>& s) {
  std::string o;
  for (const auto& r : s) o += (o.empty() ? "" : ",") + r;
  return o.empty() ? "benign" : o;
}

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}


double maxOf(const std::vector<double>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

std::set<std::string> rulesOf(const encoder::ModelCheckResult& r) {
  std::set<std::string> out;
  for (const auto& v : r.violations) out.insert(v.rule);
  return out;
}

struct Options {
  unsigned timeout_ms = 20000;
  double budget = 0, schedule_budget = 0;
  int every = 1, shard = 0, shards = 1, jobs = 1;
  bool verbose = false, verdict = false;
};

enum class Label { Agree, Disagree, Undecided, Internal };

// One schedule's outcome: the line to print and what it counts as.
struct Outcome {
  Label label = Label::Agree;
  bool bad = false;           // Agree: both engines find it broken
  bool undecided_bad = false; // Undecided: both find violations on a binding both decide
  int systems = 0;
  std::vector<double> sim_t, po_t;
  std::string text;           // printed lines (each ends in '\n')
};

// Both engines on one system; appends to `o`'s times and verbose text.
struct Pair {
  encoder::ModelCheckResult x;
  encoder::PoResult z;
};

Pair decide(const ir::Schedule& s, const encoder::Binding& b, const encoder::System& sys, const Options& opts,
            unsigned z3_ms, Outcome& o) {
  Pair p;
  p.x = encoder::explore(sys, encoder::everyRule());
  encoder::PoOptions po;
  po.limits.timeout_ms = std::max(1u, z3_ms);
  po.stop_at_first = opts.verdict;
  double c0 = threadCpu();
  p.z = encoder::poCheck(sys, po);
  double cpu = threadCpu() - c0;
  ++o.systems;
  o.sim_t.push_back(p.x.seconds);
  o.po_t.push_back(p.z.result.seconds);
  if (opts.verbose)
    o.text += fmt::format("  {}: explicit {:.4f} s {} [{}], z3-po {:.3f} s ({:.3f} s CPU) {} [{}] ({} events, {} queries)\n",
                          encoder::bindingToString(s, b), p.x.seconds, outcomeName(p.x.outcome), join(rulesOf(p.x)),
                          p.z.result.seconds, cpu, outcomeName(p.z.result.outcome), join(rulesOf(p.z.result)),
                          p.z.events, p.z.queries) + p.z.profile;
  return p;
}

// The Z3 time one more binding of a schedule may take (0: none left).
unsigned z3Budget(const Options& opts, Clock::time_point start) {
  if (opts.schedule_budget <= 0) return opts.timeout_ms;
  double left_ms = 1000 * (opts.schedule_budget - since(start));
  if (left_ms < 1) return 0;
  return static_cast<unsigned>(std::min<double>(opts.timeout_ms, left_ms));
}

// Every distinct system of the schedule's covering bindings, smallest first,
// handed to `visit` until it returns false; false when the schedule budget
// ran out before the bindings did.
bool forEachSystem(const ir::Schedule& s, const Options& opts,
                   const std::function<bool(const encoder::Binding&, const encoder::System&, unsigned)>& visit) {
  auto start = Clock::now();
  std::set<size_t> seen;
  std::string err;
  for (const encoder::Binding& b : checks::coveringBindings(s)) {
    auto sys = encoder::buildSystem(s, b, s.target, &err);
    if (!sys || !seen.insert(std::hash<std::string>{}(encoder::systemToString(*sys))).second) continue;
    unsigned ms = z3Budget(opts, start);
    if (ms == 0) return false;
    if (!visit(b, *sys, ms)) return true;
  }
  return true;
}

// The two outcomes both ways of labelling share: an internal error (a Z3
// trace the simulator did not confirm) and a binding decided differently.
bool settled(Outcome& o, const std::string& name, bool ierr, const std::string& why, const std::string& differs) {
  if (ierr) {
    o.label = Label::Internal;
    o.text += fmt::format("INTERNAL {}: {}\n", name, why);
  } else if (!differs.empty()) {
    o.label = Label::Disagree;
    o.text += fmt::format("DISAGREE {}: {}\n", name, differs);
  }
  return ierr || !differs.empty();
}

// The default: every rule on every binding.
Outcome labelRules(const ir::Schedule& s, const std::string& name, const Options& opts) {
  Outcome o;
  std::set<std::string> sim_rules, po_rules;
  bool open = false, ierr = false, bad_in_both = false;
  std::string why, differs;  // differs: a binding both decide with different rules
  bool whole = forEachSystem(s, opts, [&](const encoder::Binding& b, const encoder::System& sys, unsigned ms) {
    Pair p = decide(s, b, sys, opts, ms, o);
    if (p.z.internal_error) { ierr = true; why = p.z.error; }
    if (p.x.outcome == encoder::Outcome::Unknown || p.z.result.outcome == encoder::Outcome::Unknown) {
      open = true;
      if (why.empty()) why = p.x.outcome == encoder::Outcome::Unknown ? p.x.detail : p.z.result.detail;
    }
    std::set<std::string> xr = rulesOf(p.x), zr = rulesOf(p.z.result);
    // every binding both engines decide must show the same rules
    if (p.x.outcome != encoder::Outcome::Unknown && p.z.result.outcome != encoder::Outcome::Unknown) {
      if (xr != zr && differs.empty())
        differs = encoder::bindingToString(s, b) + ": explicit " + join(xr) + ", z3-po " + join(zr);
      if (!xr.empty() && !zr.empty()) bad_in_both = true;
    }
    sim_rules.insert(xr.begin(), xr.end());
    po_rules.insert(zr.begin(), zr.end());
    return true;
  });
  if (!whole) {
    open = true;
    if (why.empty()) why = fmt::format("schedule budget of {} s used up", opts.schedule_budget);
  }
  if (settled(o, name, ierr, why, differs)) return o;
  if (open) {
    o.label = Label::Undecided;
    o.undecided_bad = bad_in_both;
    o.text += fmt::format("undecided {}{}: {}\n", name, bad_in_both ? " (bad in both where decided)" : "", why);
  } else if (sim_rules != po_rules) {
    o.label = Label::Disagree;
    o.text += fmt::format("DISAGREE {}: explicit {}, z3-po {}\n", name, join(sim_rules), join(po_rules));
  } else {
    o.bad = !sim_rules.empty();
    o.text += fmt::format("ok {}: {}\n", name, join(sim_rules));
  }
  return o;
}

// --verdict: as `cake check --engine z3` decides the schedule.
Outcome labelVerdict(const ir::Schedule& s, const std::string& name, const Options& opts) {
  Outcome o;
  std::string why, differs, bad_at;
  bool ierr = false, open = false;
  bool whole = forEachSystem(s, opts, [&](const encoder::Binding& b, const encoder::System& sys, unsigned ms) {
    Pair p = decide(s, b, sys, opts, ms, o);
    std::string bt = encoder::bindingToString(s, b);
    if (p.z.internal_error) { ierr = true; why = bt + ": " + p.z.error; return false; }
    bool xu = p.x.outcome == encoder::Outcome::Unknown, zu = p.z.result.outcome == encoder::Outcome::Unknown;
    if (xu || zu) {
      open = true;
      if (why.empty()) why = bt + ": " + (xu ? p.x.detail : p.z.result.detail);
      return true;  // a larger binding may still show both a violation
    }
    std::set<std::string> xr = rulesOf(p.x), zr = rulesOf(p.z.result);
    // Z3 stops at its first rule: what it reports must be among the
    // explicit engine's, and it must report something exactly when the
    // explicit engine does
    bool subset = std::includes(xr.begin(), xr.end(), zr.begin(), zr.end());
    if (xr.empty() != zr.empty() || !subset) {
      differs = bt + ": explicit " + join(xr) + ", z3-po " + join(zr);
      return false;
    }
    if (xr.empty()) return true;
    bad_at = bt + ": explicit " + join(xr) + ", z3-po " + join(zr);
    return false;  // broken in both: the label is settled
  });
  if (settled(o, name, ierr, why, differs)) return o;
  if (!bad_at.empty()) {
    o.bad = true;
    o.text += fmt::format("ok {}: bad at {}\n", name, bad_at);
  } else if (open || !whole) {
    o.label = Label::Undecided;
    if (why.empty()) why = fmt::format("schedule budget of {} s used up", opts.schedule_budget);
    o.text += fmt::format("undecided {}: {}\n", name, why);
  } else {
    o.text += fmt::format("ok {}: benign\n", name);
  }
  return o;
}

struct Totals {
  std::mutex mu;
  int schedules = 0, agree = 0, disagree = 0, undecided = 0, internal = 0, not_reached = 0, systems = 0;
  int undecided_bad = 0, bad = 0, benign = 0;
  std::vector<double> sim_t, po_t;

  void add(const Outcome& o) {
    std::lock_guard<std::mutex> lock(mu);
    ++schedules;
    systems += o.systems;
    sim_t.insert(sim_t.end(), o.sim_t.begin(), o.sim_t.end());
    po_t.insert(po_t.end(), o.po_t.begin(), o.po_t.end());
    switch (o.label) {
      case Label::Agree: ++agree; (o.bad ? bad : benign) += 1; break;
      case Label::Disagree: ++disagree; break;
      case Label::Undecided: ++undecided; undecided_bad += o.undecided_bad; break;
      case Label::Internal: ++internal; break;
    }
    std::fputs(o.text.c_str(), stdout);  // one schedule's lines together
    std::fflush(stdout);
  }
};

Options parse(int argc, char** argv, std::vector<std::string>& dirs) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--timeout-ms=", 0) == 0)
      o.timeout_ms = cake::bench::parseNumber<unsigned>(a.substr(13), "--timeout-ms");
    else if (a.rfind("--budget-s=", 0) == 0)
      o.budget = cake::bench::parseNumber<double>(a.substr(11), "--budget-s");
    else if (a.rfind("--schedule-budget-s=", 0) == 0)
      o.schedule_budget = cake::bench::parseNumber<double>(a.substr(20), "--schedule-budget-s");
    else if (a.rfind("--every=", 0) == 0)
      o.every = std::max(1, cake::bench::parseNumber<int>(a.substr(8), "--every"));
    else if (a.rfind("--jobs=", 0) == 0)
      o.jobs = std::max(1, cake::bench::parseNumber<int>(a.substr(7), "--jobs"));
    else if (a.rfind("--shard=", 0) == 0 && a.find('/') != std::string::npos) {
      o.shard = cake::bench::parseNumber<int>(a.substr(8, a.find('/') - 8), "--shard");
      o.shards = std::max(1, cake::bench::parseNumber<int>(a.substr(a.find('/') + 1), "--shard"));
    } else if (a == "--verbose") o.verbose = true;
    else if (a == "--verdict") o.verdict = true;
    else {
      cake::bench::rejectUnknownOption(a);
      dirs.push_back(a);
    }
  }
  if (dirs.empty()) dirs.push_back("corpus");
  return o;
}

}  // namespace

static int run(int argc, char** argv) {
  std::vector<std::string> dirs;
  const Options opts = parse(argc, argv, dirs);
  std::vector<std::string> all = cake::bench::cakeFilesUnder(dirs), files;
  for (size_t fi = 0; fi < all.size(); fi += opts.every)
    if (static_cast<int>(fi / opts.every) % opts.shards == opts.shard) files.push_back(all[fi]);
  auto t0 = Clock::now();
  Totals tot;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < files.size();) {
      std::string err;
      auto file = ir::readSourceFile(files[i], err);
      if (!file) continue;
      ir::DiagnosticSink sink;
      auto mod = ir::compileModule(file, {}, sink);
      if (!mod) continue;
      for (const auto& s : mod->schedules) {
        if (opts.budget > 0 && since(t0) > opts.budget) {
          std::lock_guard<std::mutex> lock(tot.mu);
          ++tot.not_reached;
          continue;
        }
        std::string name = files[i] + ":" + s.name;
        tot.add(opts.verdict ? labelVerdict(s, name, opts) : labelRules(s, name, opts));
      }
    }
  };
  std::vector<std::thread> pool;
  for (int j = 1; j < opts.jobs; ++j) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  std::printf("sync engines over %d schedules (%d systems): %d agree (%d bad, %d benign), %d disagree, %d undecided, "
              "%d internal errors; %d not reached within the budget\n",
              tot.schedules, tot.systems, tot.agree, tot.bad, tot.benign, tot.disagree, tot.undecided, tot.internal,
              tot.not_reached);
  std::printf("undecided but bad in both engines on a binding both decide: %d\n", tot.undecided_bad);
  std::printf("time per system: explicit median %.4f s max %.4f s; z3-po median %.3f s max %.3f s; total %.0f s\n",
              median(tot.sim_t), maxOf(tot.sim_t), median(tot.po_t), maxOf(tot.po_t), since(t0));
  return tot.disagree + tot.internal > 0 ? 1 : 0;
}

int main(int argc, char** argv) {
  return cake::bench::guardedMain(argv[0], [&] { return run(argc, argv); });
}
