// `cake check [--target T] [--format text|json|jsonl|sarif] FILE...`
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <unistd.h>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/sync_engine.h"
#include "cli/commands.h"
#include "cli/cost.h"
#include "cli/load.h"
#include "ir/frontend.h"
#include "ir/graph.h"
#include "ir/rule_ids.h"
#include "ir/sarif.h"
#include "workload/workload.h"

namespace cake::cli {

namespace {

struct CheckArgs {
  std::vector<std::string> files;
  std::string target;
  std::string format = "text";
  std::string engine = "explicit";   // checks/sync_engine.h
  unsigned timeout_s = 30;
  unsigned memory_mb = 4096;
  double proof_timeout_s = 3;
  double bounded_timeout_s = checks::CheckOptions{}.bounded_timeout_ms / 1000.0;
  double z3_work_s = checks::CheckOptions{}.z3_work_ms / 1000.0;
  double after_finding_work_s = checks::CheckOptions{}.after_finding_work_ms / 1000.0;
  bool no_model_check = false;
  bool no_layout = false;
  bool cross_cta_stores = false;
  bool color = false;
  bool full_trace = false;      // text: every trace step, not only the relevant ones
  std::string trace_svg;        // --trace-svg FILE
  std::string graph_dot;        // --graph-dot FILE
  // the report section's cost estimate (--shape given)
  std::string workload = "gemm", shape;
  std::vector<std::string> set;
  bool require_proof = false;
};

struct ScheduleReport {
  std::string name;
  ir::Target target;
  checks::CheckResult result;
  std::optional<costmodel::Estimate> cost;
  std::string cost_error;
};

struct FileReport {
  std::string file;
  std::vector<ir::Finding> frontend;  // syntax / type findings, or the read error
  std::vector<ScheduleReport> schedules;
  int exit_code = kOk;
  // What exit 0 means: "proved" (every property for every value the
  // lm.assume facts allow) or "checked" (some only for listed values, or
  // skipped: `not_proved` says which); "counterexample" / "unknown" otherwise.
  std::string result;
  std::vector<std::string> not_proved;  // "schedule 'g': sync: checked: K in {1,2}"
  std::optional<ir::Module> module;     // kept for --graph-dot only
};

int exitCodeFor(const FileReport& r) {
  auto isError = [](const ir::Finding& f) { return f.severity == ir::Severity::Error; };
  if (std::any_of(r.frontend.begin(), r.frontend.end(), isError)) return kCannotCheck;
  bool errors = false, undecided = false;
  for (const ScheduleReport& s : r.schedules) {
    errors |= s.result.hasErrors();
    undecided |= s.result.undecided();
  }
  if (errors) return kFindings;      // a decided violation outranks an unknown elsewhere
  if (undecided) return kCannotCheck;
  return kOk;
}

// Fills r.result and r.not_proved; with --require-proof a file that is
// only checked cannot pass (exit 2).
void settleResult(FileReport& r, const CheckArgs& args) {
  for (const ScheduleReport& s : r.schedules) {
    std::string where = fmt::format("schedule '{}': ", s.name);
    for (const checks::PropertyVerdict& p : s.result.verdicts)
      if (p.kind == checks::VerdictKind::Checked)
        r.not_proved.push_back(fmt::format("{}{}: checked: {}", where, p.property, p.detail));
    if (args.no_model_check) r.not_proved.push_back(where + "sync: skipped (--no-model-check)");
    if (args.no_layout) r.not_proved.push_back(where + "layout gates: skipped (--no-layout)");
  }
  if (r.exit_code == kFindings) r.result = "counterexample";
  else if (r.exit_code != kOk) r.result = "unknown";
  else r.result = r.not_proved.empty() ? "proved" : "checked";
  if (args.require_proof && r.result == "checked") r.exit_code = kCannotCheck;
}

ir::Finding ioError(const std::string& file, const std::string& message) {
  ir::SourceRange at;
  at.file = ir::makeSourceFile(file, "");
  return ir::makeFinding(ir::Rule::IoError, at, message);
}

FileReport checkFile(const std::string& path, const CheckArgs& args, ir::Target target_override) {
  FileReport report;
  report.file = path;
  std::string error;
  ir::SourceFilePtr file = ir::readSourceFile(path, error);
  if (!file) {
    report.frontend.push_back(ioError(path, error));
    report.exit_code = kCannotCheck;
    return report;
  }
  ir::DiagnosticSink sink;
  ir::FrontendOptions fe;
  fe.target_override = target_override;
  std::optional<ir::Module> module = ir::compileModule(file, fe, sink);
  report.frontend = sink.findings();
  if (module) {
    for (const ir::Schedule& s : module->schedules) {
      checks::CheckOptions opts;
      opts.target = s.target != ir::Target::Unspecified ? s.target : target_override;
      opts.timeout_ms = args.timeout_s * 1000;
      opts.memory_mb = args.memory_mb;
      opts.proof_timeout_ms = static_cast<unsigned>(args.proof_timeout_s * 1000);
      opts.bounded_timeout_ms = static_cast<unsigned>(args.bounded_timeout_s * 1000);
      opts.z3_work_ms = static_cast<unsigned>(args.z3_work_s * 1000);
      opts.after_finding_work_ms = static_cast<unsigned>(args.after_finding_work_s * 1000);
      opts.model_check = !args.no_model_check;
      opts.sync_engine = *checks::parseSyncEngine(args.engine);
      opts.layout = !args.no_layout;
      opts.cross_cta_stores = args.cross_cta_stores;
      report.schedules.push_back({s.name, opts.target, checks::checkSchedule(s, opts), std::nullopt, ""});
      if (!args.shape.empty()) {
        auto& sr = report.schedules.back();
        auto sets = parseSettings(args.set);
        if (sets) sr.cost = costOf(s, args.workload, args.shape, *sets, &sr.cost_error);
        else sr.cost_error = "bad --set";
      }
    }
  }
  if (module && !args.graph_dot.empty()) report.module = std::move(module);
  report.exit_code = exitCodeFor(report);
  settleResult(report, args);
  return report;
}

nlohmann::json verdictsJson(const checks::CheckResult& r) {
  nlohmann::json v = nlohmann::json::array();
  for (const checks::PropertyVerdict& p : r.verdicts) {
    nlohmann::json j = {{"property", p.property}, {"verdict", checks::verdictName(p.kind)}, {"detail", p.detail}};
    // what the covering values did not reach (a *checked* verdict claims none of it)
    if (!p.unreached.empty()) j["unreached"] = p.unreached;
    v.push_back(std::move(j));
  }
  return v;
}

nlohmann::json fileJson(const FileReport& r) {
  nlohmann::json j;
  j["file"] = r.file;
  j["exit_code"] = r.exit_code;
  j["result"] = r.result;
  j["not_proved"] = r.not_proved;
  j["findings"] = nlohmann::json::array();
  for (const ir::Finding& f : r.frontend) j["findings"].push_back(ir::toJson(f));
  j["schedules"] = nlohmann::json::array();
  for (const ScheduleReport& s : r.schedules) {
    nlohmann::json js;
    js["name"] = s.name;
    js["target"] = s.target == ir::Target::Unspecified ? nlohmann::json(nullptr) : nlohmann::json(ir::targetName(s.target));
    js["findings"] = nlohmann::json::array();
    for (const ir::Finding& f : s.result.findings) js["findings"].push_back(ir::toJson(f));
    js["verdicts"] = verdictsJson(s.result);
    js["resources"] = s.result.resources;
    if (s.cost) js["report"] = {{"cost", costmodel::toJson(*s.cost)}};
    else if (!s.cost_error.empty()) js["report"] = {{"cost", {{"ok", false}, {"error", s.cost_error}}}};
    j["schedules"].push_back(std::move(js));
  }
  return j;
}

void countSeverities(const std::vector<ir::Finding>& fs, int& errors, int& warnings) {
  for (const ir::Finding& f : fs) {
    errors += f.severity == ir::Severity::Error;
    warnings += f.severity == ir::Severity::Warning;
  }
}

void printText(const FileReport& r, const CheckArgs& args) {
  const bool color = args.color, require_proof = args.require_proof;
  for (const ir::Finding& f : r.frontend) fmt::print("{}", ir::renderText(f, color));
  for (const ScheduleReport& s : r.schedules) {
    int errors = 0, warnings = 0;
    countSeverities(s.result.findings, errors, warnings);
    for (const ir::Finding& f : s.result.findings) fmt::print("{}", ir::renderText(f, color, args.full_trace));
    std::string target = s.target == ir::Target::Unspecified ? "no target" : std::string(ir::targetName(s.target));
    fmt::print("{}: schedule '{}' ({}): {} error{}, {} warning{}\n", r.file, s.name, target, errors,
               errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
    // Proved gates fold into one line (JSON keeps each verdict); every other
    // verdict gets its own line, since it says what was not proved.
    std::vector<std::string> proved;
    for (const checks::PropertyVerdict& p : s.result.verdicts) {
      if (p.kind == checks::VerdictKind::Proved && p.property != "sync") {
        proved.push_back(p.property);
        continue;
      }
      fmt::print("{}: schedule '{}': {}: {}{}{}\n", r.file, s.name, p.property, checks::verdictName(p.kind),
                 p.detail.empty() ? "" : ": ", p.detail);
    }
    if (!proved.empty())
      fmt::print("{}: schedule '{}': proved for all parameter values: {}\n", r.file, s.name, fmt::join(proved, ", "));
    if (s.cost) fmt::print("{}: schedule '{}': report: {}", r.file, s.name, costText(*s.cost));
    else if (!s.cost_error.empty()) fmt::print("{}: schedule '{}': report: cost: {}\n", r.file, s.name, s.cost_error);
  }
  // What a pass means: the last line an agent reads.
  if (r.result == "proved")
    fmt::print("{}: result: proved (every property holds for every parameter value the lm.assume facts allow)\n",
               r.file);
  else if (r.result == "checked" && require_proof)
    fmt::print("{}: result: error: --require-proof: checked, not proved: {}\n", r.file, fmt::join(r.not_proved, "; "));
  else if (r.result == "checked")
    fmt::print("{}: result: checked, not proved (some properties hold for the listed values only, see above)\n",
               r.file);
}

bool writeFile(const std::string& path, const std::string& text, const char* what) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (out.flush()) return true;
  fmt::print(stderr, "cake: error: cannot write {} to '{}'\n", what, path);
  return false;
}

// --trace-svg: the first finding with a trace (files, schedules and
// findings in order); without one, a picture that says so.
std::string firstTraceSvg(const std::vector<FileReport>& reports) {
  for (const FileReport& r : reports)
    for (const ScheduleReport& s : r.schedules)
      for (const ir::Finding& f : s.result.findings)
        if (!f.trace.empty() || !f.blocked.empty()) return ir::traceSvg(f);
  ir::Finding none;
  none.rule = "none";
  none.message = "no finding with a counterexample trace";
  return ir::traceSvg(none);
}

// --graph-dot: the handoff graph of every schedule checked.
std::string handoffDot(const std::vector<FileReport>& reports) {
  ir::HandoffGraph g;
  for (const FileReport& r : reports)
    for (size_t k = 0; r.module && k < r.schedules.size() && k < r.module->schedules.size(); ++k)
      ir::addToHandoffGraph(g, r.module->schedules[k], r.schedules[k].result.findings);
  return ir::handoffGraphDot(g);
}

int runCheck(const CheckArgs& args) {
  ir::Target target_override = ir::Target::Unspecified;
  if (!args.target.empty()) {
    auto t = ir::parseTarget(args.target);
    if (!t) {
      fmt::print(stderr, "cake: error: unknown target '{}' (expected sm_80, sm_90a or sm_100a)\n", args.target);
      return kCannotCheck;
    }
    target_override = *t;
  }
  if (!args.shape.empty()) {
    // A malformed --shape / --workload / --set is a usage error (exit 2)
    // before any checking, not a note in the report after an exit 0.
    std::string error;
    auto kind = workload::parseKind(args.workload);
    if (!kind) error = fmt::format("unknown workload '{}' (expected {})", args.workload, workload::kindList());
    else if (std::string why; !workload::parseShape(*kind, args.shape, &why))
      error = fmt::format("bad --shape '{}': {}", args.shape, why);
    else if (!parseSettings(args.set)) error = "bad --set (expected NAME=INTEGER)";
    if (!error.empty()) {
      fmt::print(stderr, "cake: error: {}\n", error);
      printUsageErrorDocument(args.format, error);
      return kCannotCheck;
    }
  }
  int exit_code = kOk;
  nlohmann::json files = nlohmann::json::array();
  std::vector<ir::Finding> all;  // --format sarif: one log for every file
  std::vector<FileReport> kept;  // --trace-svg, --graph-dot
  for (const std::string& path : args.files) {
    FileReport r = checkFile(path, args, target_override);
    exit_code = std::max(exit_code, r.exit_code);
    if (!args.trace_svg.empty() || !args.graph_dot.empty()) kept.push_back(r);
    if (args.format == "text") {
      printText(r, args);
    } else if (args.format == "jsonl") {
      fmt::print("{}\n", ir::dumpJson(fileJson(r)));
    } else if (args.format == "sarif") {
      all.insert(all.end(), r.frontend.begin(), r.frontend.end());
      for (const ScheduleReport& s : r.schedules) all.insert(all.end(), s.result.findings.begin(), s.result.findings.end());
    } else {
      files.push_back(fileJson(r));
    }
  }
  if (args.format == "json") {
    nlohmann::json doc = {{"tool", "cake"}, {"version", CAKE_VERSION}, {"files", files}, {"exit_code", exit_code}};
    fmt::print("{}\n", ir::dumpJson(doc, 2));
  } else if (args.format == "sarif") {
    fmt::print("{}\n", ir::dumpJson(ir::toSarif(all, CAKE_VERSION), 2));
  }
  std::fflush(stdout);
  // a picture that cannot be written is a failure to do what was asked
  if (!args.trace_svg.empty() && !writeFile(args.trace_svg, firstTraceSvg(kept), "the trace picture"))
    exit_code = std::max<int>(exit_code, kCannotCheck);
  if (!args.graph_dot.empty() && !writeFile(args.graph_dot, handoffDot(kept), "the handoff graph"))
    exit_code = std::max<int>(exit_code, kCannotCheck);
  return exit_code;
}

}  // namespace

void addCheckCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand("check", "Check schedules: front end, structural checks, layout gates, model checker");
  cmd->add_option("files", args->files, "CAKE IR files")->required();
  cmd->add_option("--target", args->target, "sm_80 | sm_90a | sm_100a (must match the decorator when both are given)")->check(knownTarget());
  cmd->add_option("--format", args->format, "output format")->check(CLI::IsMember({"text", "json", "jsonl", "sarif"}));
  cmd->add_option("--timeout", args->timeout_s,
                  "wall-clock seconds for one whole obligation (the model checker's values, explorations and proof "
                  "together; each gate's solver queries together), a safety limit: past it the verdict is unknown "
                  "(default 30)")
      ->check(CLI::Range(1u, 3600u));
  cmd->add_option("--bounded-timeout", args->bounded_timeout_s,
                  "the budget of the model checker's bounded check (the parameter values and their explorations), "
                  "in seconds of this machine's CPU counted as deterministic work, like --proof-timeout (the same "
                  "verdict at any load; docs/z3.md \"The bounded check's budget\"), within --timeout (0: no cap on "
                  "work; default 10)")
      ->check(secondsIn(0.0, 3600.0));
  cmd->add_option("--proof-timeout", args->proof_timeout_s,
                  "the budget of the proof for every trip count after the bounded check, in seconds of this "
                  "machine's CPU counted as deterministic work (the same verdict at any load; docs/z3.md \"The "
                  "proof's budget\"), within --timeout (0: bounded check only; default 3)")
      ->check(secondsIn(0.0, 3600.0));
  cmd->add_option("--engine", args->engine, "the engine that decides synchronization: explicit (default), z3 "
                                           "(partial-order encoding) or both (must agree; a disagreement exits 2)")
      ->check(CLI::IsMember({"explicit", "z3", "both"}));
  cmd->add_option("--z3-work", args->z3_work_s,
                  "with --engine z3: the work of the Z3 engine's queries before a finding, in seconds of this "
                  "machine's CPU counted as deterministic work (Z3's resource limit); a parameter value past it is "
                  "decided by the explicit engine and the verdict names it (docs/z3.md \"The Z3 engine's work "
                  "cap\"; 0: no cap; default 0.5)")
      ->check(secondsIn(0.0, 3600.0));
  cmd->add_option("--after-finding-work", args->after_finding_work_s,
                  "with --engine explicit: the work of the search for other rules on the later parameter values "
                  "once a rule is reported, in seconds of this machine's CPU counted as deterministic work; when "
                  "it runs out, a sync verdict 'unknown' names the values not searched (the finding and the exit "
                  "code stay; docs/z3.md \"The explicit engine after the first finding\"; 0: no cap, the later "
                  "values within --bounded-timeout; default 0.5)")
      ->check(secondsIn(0.0, 3600.0));
  cmd->add_flag("--require-proof", args->require_proof,
                "exit 2 (with the reason) when a property is only checked for listed values, not proved for every "
                "allowed value");
  cmd->add_option("--memory", args->memory_mb, "solver memory cap in MiB")->check(CLI::Range(64u, 1u << 20));
  cmd->add_flag("--no-model-check", args->no_model_check, "skip the model checker (sync.*, data.*, proxy.*)");
  cmd->add_flag("--no-layout", args->no_layout, "skip the layout and hardware gates");
  cmd->add_flag("--cross-cta-stores", args->cross_cta_stores,
                "also check that no two CTAs store one global element (sync.race; off by default)");
  cmd->add_flag("--color", args->color, "colour the text output");
  cmd->add_option("--trace-svg", args->trace_svg,
                  "write the first counterexample trace as an SVG swimlane picture to this file (docs/traces.md)");
  cmd->add_option("--graph-dot", args->graph_dot,
                  "write the handoff graph of the schedules (roles, barriers, deadlock cycles) as Graphviz DOT to "
                  "this file (docs/traces.md)");
  cmd->add_flag("--full-trace", args->full_trace,
                "text: print every step of a counterexample trace, not only the relevant ones (docs/traces.md)");
  cmd->add_option("--shape", args->shape, "add the cost model's report for this problem size (as for cake cost)");
  cmd->add_option("--workload", args->workload, "the problem contract of --shape (default gemm)");
  cmd->add_option("--set", args->set, "i32 parameter values for --shape, e.g. --set BM=64");
  cmd->callback([args, &exit_code] { exit_code = runCheck(*args); });
}

}  // namespace cake::cli
