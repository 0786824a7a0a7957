// The `cake` subcommands. Each returns the process exit status:
// 0 = no error findings, 1 = error findings, 2 = could not check.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace cake::cli {

enum ExitCode { kOk = 0, kFindings = 1, kCannotCheck = 2 };

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
