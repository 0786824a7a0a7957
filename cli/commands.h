// The `cake` subcommands. Each returns the process exit status:
// 0 = no error findings, 1 = error findings, 2 = could not check.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ir/schedule.h"

namespace cake::cli {

enum ExitCode { kOk = 0, kFindings = 1, kCannotCheck = 2 };

// A number of seconds in [lo, hi]. CLI::Range alone lets `nan` through
// (every comparison with NaN is false), which then reached an unsigned
// cast of undefined value; this also refuses NaN and infinities.
inline CLI::Validator secondsIn(double lo, double hi) {
  CLI::Validator finite(
      [](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v)) return "not a finite number: " + text;
        return {};
      },
      "FINITE");
  return finite & CLI::Range(lo, hi);
}

// --target: one of the targets ir/target.h knows, refused while the
// options are parsed (a usage error, in JSON too with --format json).
inline CLI::Validator knownTarget() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (ir::parseTarget(text)) return {};
        return "unknown target '" + text + "' (expected sm_80, sm_90a or sm_100a)";
      },
      "TARGET");
}

// A usage error under --format json|jsonl|sarif: the document on stdout that
// says so (nothing for text), so a caller that parses stdout gets valid
// JSON; the message goes to stderr too (cli/main.cpp).
void printUsageErrorDocument(const std::string& format, const std::string& message);

void addCheckCommand(CLI::App& app, int& exit_code);
void addFmtCommand(CLI::App& app, int& exit_code);
void addExplainCommand(CLI::App& app, int& exit_code);
void addLowerRunCommands(CLI::App& app, int& exit_code);
void addCorpusCommand(CLI::App& app, int& exit_code);
void addMutateCommand(CLI::App& app, int& exit_code);
void addTuneCommand(CLI::App& app, int& exit_code);
void addDispatchCommand(CLI::App& app, int& exit_code);
void addCostCommand(CLI::App& app, int& exit_code);

}  // namespace cake::cli
