// `cake corpus [DIR|FILE...]`, `cake corpus merge A.jsonl B.jsonl ...` and
// `cake mutate FILE... [-n N] [--seed S] [-o DIR]`: thin CLI11 wrappers over
// gate/corpus_gate.h and gate/mutate.h (docs/corpus-gate.md).
//
#include <CLI/CLI.hpp>

#include "gate/corpus_gate.h"
#include "gate/mutate.h"
#include "cli/commands.h"

namespace cake::cli {

void addCorpusCommand(CLI::App& app, int& exit_code) {
  struct Args {
    checks::gate::CorpusOptions run;
    checks::gate::MergeOptions merge;
    bool merge_flag = false;
    bool no_progress = false;
    std::string shard, jsonl, json, html, baseline, write_baseline, resume;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand(
      "corpus",
      "Run the corpus gate: every .cake case under DIR... (default corpus/) through the front end and the checks, "
      "compared with its inline expectations. Exit 0: the gate passes; 1: a false positive, false negative, "
      "invalid case or regression against --baseline; 2: usage or I/O error.");
  sub->add_option("paths", args->run.paths, "case files or directories (default: corpus)");
  sub->add_option("--mutants", args->run.mutants, "also generate, label (explicit-state simulator) and check N mutants");
  sub->add_option("--seed", args->run.seed, "seed for --mutants (default 1)");
  sub->add_option("--shard", args->shard, "run shard i of n (1-based, by content hash), e.g. 2/4");
  sub->add_option("--jsonl", args->jsonl, "write one JSON record per case (and a run header) to FILE");
  sub->add_option("--json", args->json, "write the report as JSON to FILE");
  sub->add_option("--html", args->html, "write the report as a self-contained HTML page to FILE");
  sub->add_option("--baseline", args->baseline, "compare with a baseline (corpus/baseline.json): a case that agreed "
                                                "there and does not now is a regression, and so is a known-good case "
                                                "proved there and not now (the wall-clock limit only warns)");
  sub->add_option("--write-baseline", args->write_baseline, "write the outcomes of this run as a baseline to FILE");
  sub->add_option("--resume", args->resume, "skip cases whose content hash has a record in this JSONL file "
                                            "(with --jsonl on the same file: append to it)");
  sub->add_option("-j,--jobs", args->run.jobs, "cases checked in parallel (default 1)")->check(CLI::Range(1, 4096));
  sub->add_option("--timeout", args->run.timeout_ms,
                  "wall-clock milliseconds for one obligation, a safety limit (the checks' budgets count work, the "
                  "same at any load: cake check --bounded-timeout, --proof-timeout); past it the case is unknown "
                  "(default 120000)");
  sub->add_option("--max-listed", args->run.max_listed, "cases listed per section of the text report (default 50)");
  sub->add_flag("--proofs", args->run.proofs,
                "also run cake check's proof on every known-good case and compare it with --baseline (a proof lost "
                "for a deterministic reason fails the gate; about twice the CPU time; --write-baseline implies it)");
  sub->add_flag("--all-proofs", args->run.all_proofs,
                "run the proof on every known-good case, also on those --baseline records as not proved (skipped "
                "otherwise: their proof can only improve)");
  sub->add_flag("-q,--quiet", args->run.quiet, "no text report on stdout");
  sub->add_flag("--no-progress", args->no_progress, "no progress line on stderr (it only shows on a terminal)");
  sub->add_flag("--merge", args->merge_flag, "treat the positional arguments as JSONL files and merge them "
                                             "(same as `cake corpus merge`)");

  CLI::App* merge = sub->add_subcommand(
      "merge", "Merge JSON Lines of separate runs (shards) into exactly the report one run would give.");
  merge->add_option("inputs", args->merge.inputs, "JSONL files")->required();
  merge->add_option("--json", args->json, "write the report as JSON to FILE");
  merge->add_option("--html", args->html, "write the report as HTML to FILE");
  merge->add_option("--jsonl", args->jsonl, "write the merged records as one JSONL file");
  merge->add_option("--baseline", args->baseline, "compare with a baseline");
  merge->add_option("--write-baseline", args->write_baseline, "write the outcomes as a baseline to FILE");
  merge->add_option("--max-listed", args->merge.max_listed, "cases listed per section of the text report");
  merge->add_flag("-q,--quiet", args->merge.quiet, "no text report on stdout");

  auto opt = [](const std::string& s) { return s.empty() ? std::nullopt : std::optional<std::string>(s); };
  sub->callback([args, merge, &exit_code, opt] {
    if (merge->parsed() || args->merge_flag) {
      checks::gate::MergeOptions m = args->merge;
      if (args->merge_flag) {
        m.inputs = args->run.paths;
        m.quiet = args->run.quiet;
        m.max_listed = args->run.max_listed;
      }
      m.json = opt(args->json);
      m.html = opt(args->html);
      m.jsonl = opt(args->jsonl);
      m.baseline = opt(args->baseline);
      m.write_baseline = opt(args->write_baseline);
      exit_code = checks::gate::runMergeCommand(m);
      return;
    }
    checks::gate::CorpusOptions o = args->run;
    o.shard = opt(args->shard);
    o.jsonl = opt(args->jsonl);
    o.json = opt(args->json);
    o.html = opt(args->html);
    o.baseline = opt(args->baseline);
    o.write_baseline = opt(args->write_baseline);
    o.resume = opt(args->resume);
    o.progress = !args->no_progress;
    exit_code = checks::gate::runCorpusCommand(o);
  });
}

void addMutateCommand(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<checks::mutate::MutateOptions>();
  auto out = std::make_shared<std::string>();
  auto no_label = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand(
      "mutate",
      "Generate mutants of known-good schedules (`# expect: pass`) with the bugs kernel engineers make, labelled "
      "by the explicit-state simulator (and a direct layout computation), never by the Z3 engine.");
  sub->add_option("inputs", opts->inputs, ".cake files or directories");
  sub->add_option("-n", opts->n, "number of mutants (operators take turns); 0: every site (default 20)");
  sub->add_option("--seed", opts->seed, "selection seed (default 1)");
  sub->add_option("-o,--out", *out, "write the mutants below DIR (<original>/<operator>-L<line>.cake); "
                                    "without it, list them");
  sub->add_option("-j,--jobs", opts->jobs, "mutants labelled in parallel (default 1)")->check(CLI::Range(1, 4096));
  sub->add_flag("--no-label", *no_label, "do not run the oracle (files get no label and no expectation)");
  sub->add_flag("--keep-undetermined", opts->keep_undetermined,
                "also write mutants the oracle could not label (they have no expectation)");
  sub->add_flag("--list-operators", opts->list_operators, "list the mutation operators and exit");
  sub->add_flag("--relabel", opts->relabel,
                "the inputs are mutant files: run the oracle again and rewrite the label and expectation of those "
                "whose expectation changed (after a change of the semantics)");
  sub->callback([opts, out, no_label, &exit_code] {
    checks::mutate::MutateOptions o = *opts;
    if (!out->empty()) o.out_dir = *out;
    o.label = !*no_label;
    exit_code = checks::mutate::runMutateCommand(o);
  });
}

}  // namespace cake::cli
