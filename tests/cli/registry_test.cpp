// The rule registry (ir/rules.def) and what is generated from it: every
// rule has a page, docs/rules/README.md is `cake explain --index`, rule ids
// written as strings in the sources are registered, and `cake check
// --format sarif` is valid SARIF 2.1.0 (checked against the official
// schema, tests/cli/data/sarif-schema-2.1.0.json, and structurally here).
#include "tests/common/build_paths.h"
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <nlohmann/json.hpp>

#include "ir/diagnostic.h"
#include "ir/rule_ids.h"
#include "tests/cli/run_command.h"
#include "tests/common/corpus_files.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using cake_test::CmdResult;
CmdResult run(const std::string& cmd) { return cake_test::runCommand(cmd); }

CmdResult runCake(const std::string& args) { return cake_test::cake(args, false); }
using cake::test::readText;
using cake_test::src;

}  // namespace

TEST(Registry, EnumeratorsAndIdsAgree) {
  EXPECT_EQ(cake::ir::ruleInfo(cake::ir::Rule::SyncDeadlock).id, "sync.deadlock");
  EXPECT_EQ(cake::ir::ruleInfo(cake::ir::Rule::IoError).id, "io.error");
  size_t i = 0;
  for (const cake::ir::RuleInfo& r : cake::ir::allRules()) {
    EXPECT_EQ(static_cast<size_t>(r.rule), i++) << r.id;
    EXPECT_EQ(&cake::ir::rule(r.id), &r);
    EXPECT_TRUE(std::regex_match(std::string(r.id), std::regex(R"([a-z]+\.[a-z0-9]+(-[a-z0-9]+)*)"))) << r.id;
    EXPECT_FALSE(r.title.empty());
    EXPECT_FALSE(r.summary.empty());
  }
  // One failure policy: an id that is not registered is a bug in cake.
  EXPECT_EQ(cake::ir::findRule("sync.dedlock"), nullptr);
  EXPECT_THROW(cake::ir::rule("sync.dedlock"), std::logic_error);
  // One definition of sync.tx-imbalance (the gates report it too).
  EXPECT_EQ(cake::ir::rule("sync.tx-imbalance").category, cake::ir::Category::ProgramSafety);
}

TEST(Registry, EveryRuleHasAPage) {
  for (const cake::ir::RuleInfo& r : cake::ir::allRules())
    EXPECT_TRUE(fs::exists(src("docs/rules") / (std::string(r.id) + ".md"))) << "docs/rules/" << r.id << ".md";
  // and every page is a rule's
  for (const auto& e : fs::directory_iterator(src("docs/rules"))) {
    std::string stem = e.path().stem().string();
    if (e.path().extension() == ".md" && stem != "README") {
      EXPECT_NE(cake::ir::findRule(stem), nullptr) << e.path() << " documents no rule";
    }
  }
}

TEST(Registry, IndexIsGenerated) {
  CmdResult r = runCake("explain --index");
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(readText(src("docs/rules/README.md")), r.out)
      << "docs/rules/README.md is stale: run `cake explain --index > docs/rules/README.md`";
}

// A rule id written as a string in the sources ("sync.race") must be
// registered: reporting goes through ir::rule(), which throws on an unknown
// id, and this finds a misspelling before a run does.
TEST(Registry, RuleIdsInTheSourcesAreRegistered) {
  const std::regex literal(
      R"re("((syntax|type|struct|sync|data|proxy|layout|tma|mma|tmem|roles|regs|target|report|lower|io)\.[a-z0-9][a-z0-9-]*)")re");
  // strings of that shape that are not rule ids (PTX mnemonics, op names)
  const std::set<std::string> not_rules = {"mma.sync", "sync.arrive", "sync.wait"};
  int seen = 0;
  for (const char* dir : {"ir", "encoder", "checks", "gate", "lowering", "runner", "cli", "costmodel"}) {
    if (!fs::exists(src(dir))) continue;
    for (const auto& e : fs::recursive_directory_iterator(src(dir))) {
      const std::string ext = e.path().extension().string();
      if (ext != ".cpp" && ext != ".h") continue;
      const std::string text = readText(e.path());
      for (std::sregex_iterator it(text.begin(), text.end(), literal), end; it != end; ++it) {
        const std::string id = (*it)[1].str();
        if (not_rules.count(id)) continue;
        ++seen;
        EXPECT_NE(cake::ir::findRule(id), nullptr) << e.path() << ": \"" << id << "\" is not in ir/rules.def";
      }
    }
  }
  EXPECT_GT(seen, 100);
}

// --------------------------------------------------------------- SARIF

namespace {

json sarifOf(const std::string& files, int want_status) {
  CmdResult r = runCake("check --format sarif " + files);
  EXPECT_EQ(r.status, want_status) << r.out;
  return json::parse(r.out);
}

void expectValidAgainstSchema(const json& log, const std::string& name) {
  if (run("python3 -c 'import jsonschema' 2>/dev/null").status != 0)
    FAIL() << "python3 with jsonschema is needed to validate SARIF (.ci/setup installs python3-jsonschema)";
  fs::path file = fs::path(CAKE_BINARY_DIR) / ("sarif_" + name + ".json");
  std::ofstream(file, std::ios::binary) << log.dump(2);
  const std::string script =
      "import json, sys, jsonschema\n"
      "schema = json.load(open(sys.argv[1]))\n"
      "errors = list(jsonschema.Draft4Validator(schema).iter_errors(json.load(open(sys.argv[2]))))\n"
      "for e in errors[:10]: print(list(e.absolute_path), e.message)\n"
      "sys.exit(1 if errors else 0)\n";
  fs::path py = fs::path(CAKE_BINARY_DIR) / "validate_sarif.py";
  std::ofstream(py, std::ios::binary) << script;
  CmdResult v = run("python3 '" + py.string() + "' '" + src("tests/cli/data/sarif-schema-2.1.0.json").string() + "' '" +
                    file.string() + "' 2>&1");
  EXPECT_EQ(v.status, 0) << "not valid SARIF 2.1.0:\n" << v.out;
}

}  // namespace

TEST(Sarif, RaceWithNotesAndTraceIsValid) {
  const std::string bug = src("corpus/bugs/sync.race/sm90_wait_pending1_release_current.cake").string();
  json log = sarifOf("'" + bug + "'", 1);
  expectValidAgainstSchema(log, "race");
  ASSERT_EQ(log["version"], "2.1.0");
  const json& run0 = log["runs"][0];
  EXPECT_EQ(run0["tool"]["driver"]["name"], "cake");
  EXPECT_EQ(run0["tool"]["driver"]["rules"].size(), cake::ir::allRules().size());
  bool race = false;
  for (const json& r : run0["results"]) {
    ASSERT_TRUE(r.contains("ruleIndex")) << r.dump();
    EXPECT_EQ(run0["tool"]["driver"]["rules"][r["ruleIndex"].get<int>()]["id"], r["ruleId"]);
    ASSERT_EQ(r["locations"].size(), 1u);
    EXPECT_NE(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].get<std::string>().find(
                  "sm90_wait_pending1_release_current.cake"),
              std::string::npos);
    if (r["ruleId"] != "sync.race") continue;
    race = true;
    EXPECT_EQ(r["level"], "error");
    EXPECT_EQ(r["locations"][0]["physicalLocation"]["region"]["startLine"], 34);
    ASSERT_TRUE(r.contains("relatedLocations"));
    EXPECT_EQ(r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 41);
    ASSERT_TRUE(r.contains("codeFlows"));
    // every trace step once, in its role instance's thread flow, ordered
    std::set<int> order;
    for (const json& tf : r["codeFlows"][0]["threadFlows"])
      for (const json& loc : tf["locations"]) order.insert(loc["executionOrder"].get<int>());
    ASSERT_FALSE(order.empty());
    EXPECT_EQ(*order.begin(), 1);
    EXPECT_EQ(*order.rbegin(), static_cast<int>(order.size()));
    EXPECT_GE(r["codeFlows"][0]["threadFlows"].size(), 2u);
  }
  EXPECT_TRUE(race);
}

TEST(Sarif, FrontEndAndIoErrorsAreValid) {
  fs::path bad = fs::path(CAKE_BINARY_DIR) / "sarif syntax error.cake";
  std::ofstream(bad, std::ios::binary) << "@cake.schedule()\ndef f(lm:\n";
  json log = sarifOf("'" + bad.string() + "' '" + (fs::path(CAKE_BINARY_DIR) / "no-such-file.cake").string() + "'", 2);
  expectValidAgainstSchema(log, "frontend");
  std::set<std::string> rules;
  for (const json& r : log["runs"][0]["results"]) rules.insert(r["ruleId"].get<std::string>());
  EXPECT_TRUE(rules.count("syntax.error"));
  EXPECT_TRUE(rules.count("io.error"));
  // a space in the path is percent-encoded in the URI
  EXPECT_NE(log.dump().find("sarif%20syntax%20error.cake"), std::string::npos);
}

TEST(Sarif, CleanScheduleHasNoErrorResults) {
  json log = sarifOf("'" + src("corpus/gemm/sm90_ws_4stage.cake").string() + "'", 0);
  expectValidAgainstSchema(log, "clean");
  for (const json& r : log["runs"][0]["results"]) EXPECT_NE(r["level"], "error") << r.dump();
}
