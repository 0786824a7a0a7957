// The `cake` command: a thin dispatcher over the subcommands in cli/*_cmd.cpp.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"cake: a verifier-first compiler harness for GPU kernel schedules (CAKE IR)", "cake"};
  app.set_version_flag("--version", std::string("cake ") + CAKE_VERSION);
  app.require_subcommand(1);
  int exit_code = cake::cli::kOk;
  cake::cli::addCheckCommand(app, exit_code);
  cake::cli::addFmtCommand(app, exit_code);
  cake::cli::addExplainCommand(app, exit_code);
  cake::cli::addLowerRunCommands(app, exit_code);
  cake::cli::addCorpusCommand(app, exit_code);
  cake::cli::addMutateCommand(app, exit_code);
  cake::cli::addCostCommand(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Usage errors are "could not check" (2), never CLI11's own codes.
    app.exit(e);
    return cake::cli::kCannotCheck;
  } catch (const std::exception& e) {
    fmt::print(stderr, "cake: internal error: {}\n", e.what());
    return cake::cli::kCannotCheck;
  }
  return exit_code;
}
