// `cake fmt FILE` and `cake explain ID`.
#include <cctype>
#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "checks/check.h"
#include "cli/commands.h"
#include "ir/frontend.h"
#include "lowering/lower.h"

namespace cake::cli {

namespace {

struct FmtArgs {
  std::vector<std::string> files;
  bool in_place = false;
  bool check = false;
};

int runFmt(const FmtArgs& args) {
  int exit_code = kOk;
  for (const std::string& path : args.files) {
    std::string error;
    ir::SourceFilePtr file = ir::readSourceFile(path, error);
    if (!file) {
      fmt::print(stderr, "{}: error: {} [io.error]\n", path, error);
      exit_code = kCannotCheck;
      continue;
    }
    ir::DiagnosticSink sink;
    std::optional<std::string> out = ir::formatSource(file, sink);
    for (const ir::Finding& f : sink.findings()) fmt::print(stderr, "{}", ir::renderText(f));
    if (!out) {
      exit_code = kCannotCheck;
      continue;
    }
    if (args.check) {
      if (*out != file->text) {
        fmt::print("{}: not formatted\n", path);
        exit_code = std::max<int>(exit_code, kFindings);
      }
    } else if (args.in_place) {
      if (*out != file->text) {
        std::ofstream o(path, std::ios::binary | std::ios::trunc);
        o << *out;
        if (!o) {
          fmt::print(stderr, "{}: error: cannot write [io.error]\n", path);
          exit_code = kCannotCheck;
        }
      }
    } else {
      fmt::print("{}", *out);
    }
  }
  return exit_code;
}


int runExplain(const std::string& id) {
  const ir::RuleInfo* r = ir::findRule(id);
  if (!r) {
    fmt::print(stderr, "cake: error: unknown rule id '{}'; `cake explain --list` lists them\n", id);
    return kCannotCheck;
  }
  fmt::print("{} ({}, {})\n  {}\n\n{}\n\nSee docs/rules/{}.md for a failing and a fixed example.\n", r->id,
             ir::severityName(r->severity), ir::categoryName(r->category), r->title, r->summary, r->id);
  return kOk;
}

int listRules() {
  for (const ir::RuleInfo& r : ir::allRules())
    fmt::print("{:<28} {:<8} {:<21} {}\n", r.id, ir::severityName(r.severity), ir::categoryName(r.category), r.title);
  return kOk;
}

// docs/rules/README.md: the index of the rule pages, from the registry
// (tests/cli checks that the file is this output).
int printIndex() {
  fmt::print("# Rules\n\n"
             "Every rule cake reports, one page each with a failing and a fixed example.\n"
             "Generated from the registry `ir/rules.def` by `cake explain --index`;\n"
             "`cake explain ID` prints a rule's summary.\n");
  std::string_view owner;
  for (const ir::RuleInfo& r : ir::allRules()) {
    if (ir::ruleOwnerName(r.owner) != owner) {
      owner = ir::ruleOwnerName(r.owner);
      fmt::print("\n## {}{}\n\n| rule | severity | category | what it means |\n|---|---|---|---|\n",
                 char(std::toupper(owner[0])), owner.substr(1));
    }
    fmt::print("| [`{}`]({}.md) | {} | {} | {} |\n", r.id, r.id, ir::severityName(r.severity),
               ir::categoryName(r.category), r.title);
  }
  return kOk;
}

}  // namespace

void addFmtCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<FmtArgs>();
  CLI::App* cmd = app.add_subcommand("fmt", "Print a file in canonical form (comments kept)");
  cmd->add_option("files", args->files, "CAKE IR files")->required();
  cmd->add_flag("-i,--in-place", args->in_place, "rewrite the files");
  cmd->add_flag("--check", args->check, "exit 1 if a file is not in canonical form");
  cmd->callback([args, &exit_code] { exit_code = runFmt(*args); });
}

void addExplainCommand(CLI::App& app, int& exit_code) {
  auto id = std::make_shared<std::string>();
  auto list = std::make_shared<bool>(false);
  auto index = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("explain", "Explain a rule id (e.g. sync.deadlock)");
  cmd->add_option("id", *id, "rule id");
  cmd->add_flag("--list", *list, "list every rule id");
  cmd->add_flag("--index", *index, "print the Markdown index of the rule pages (docs/rules/README.md)");
  cmd->callback([id, list, index, &exit_code] {
    if (*list) exit_code = listRules();
    else if (*index) exit_code = printIndex();
    else if (id->empty()) {
      fmt::print(stderr, "cake: error: explain needs a rule id or --list\n");
      exit_code = kCannotCheck;
    } else exit_code = runExplain(*id);
  });
}

}  // namespace cake::cli
