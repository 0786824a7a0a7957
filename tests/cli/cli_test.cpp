// End-to-end tests of the `cake` binary: exit codes, locations, JSON.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "tests/cli/run_command.h"

namespace fs = std::filesystem;

namespace {

using cake_test::CmdResult;

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

CmdResult cake(const std::string& args, bool merge_stderr = true) {
  return cake_test::runCommand(shellQuote(CAKE_EXE) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null"));
}

fs::path src(const std::string& rel) { return fs::path(CAKE_SOURCE_DIR) / rel; }

fs::path writeTemp(const std::string& name, const std::string& text) {
  fs::path p = fs::temp_directory_path() / ("cake_cli_test_" + name);
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

const char* kGood = R"(@cake.schedule(target="sm_90a")
def ring(lm, A: LM.tma2d, K: LM.i32):
    pool = lm.smem(65536)
    a = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    load = lm.role(warps=[0])
    use = lm.role(warps=[4, 5, 6, 7], group=4)
    acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    full = lm.barrier(count=2, prod=[load], cons=[use], init_count=1)
    empty = lm.barrier(count=2, prod=[use], cons=[load], init_count=1)
    with load:
        for k in lm.range(0, K):
            lm.wait(empty, iter=k - 2)
            a.tma_load(A, coords=(0, k), iter=k, barrier=full)
    with use:
        for k in lm.range(0, K):
            lm.wait(full, iter=k)
            lm.mma(acc, a[k], a[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
)";

}  // namespace

TEST(Cli, VersionAndHelpExitZero) {
  EXPECT_EQ(cake("--version").status, 0);
  EXPECT_NE(cake("--version").out.find("cake "), std::string::npos);
  EXPECT_EQ(cake("--help").status, 0);
  EXPECT_EQ(cake("check --help").status, 0);
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(cake("").status, 2);
  EXPECT_EQ(cake("frobnicate").status, 2);
  EXPECT_EQ(cake("check").status, 2);
  EXPECT_EQ(cake("check --format xml x.cake").status, 2);
  fs::path good = writeTemp("good_target.cake", kGood);
  CmdResult r = cake("check --target sm_42 " + shellQuote(good.string()));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("unknown target"), std::string::npos) << r.out;
}

TEST(Cli, MissingFileExitTwo) {
  CmdResult r = cake("check /nonexistent/dir/none.cake");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("/nonexistent/dir/none.cake"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cannot open"), std::string::npos) << r.out;
}

TEST(Cli, WrongDirectionIsLocatedError) {
  std::string bad = kGood;
  // The consumer waits on the ring it should only arrive on.
  bad.replace(bad.find("lm.wait(full, iter=k)"), 21, "lm.wait(empty, iter=k)");
  fs::path p = writeTemp("wrong_direction.cake", bad);
  CmdResult r = cake("check --no-model-check --no-layout " + shellQuote(p.string()));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find(p.string() + ":16:13: error:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[struct.wrong-direction]"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(":9:[0-9]+: note: 'empty' declared here"))) << r.out;  // the declaration
}

TEST(Cli, JsonOutputIsValidAndComplete) {
  std::string bad = kGood;
  bad.replace(bad.find("lm.wait(full, iter=k)"), 21, "lm.wait(empty, iter=k)");
  fs::path p = writeTemp("json.cake", bad);
  CmdResult r = cake("check --format json --no-model-check --no-layout " + shellQuote(p.string()), false);
  EXPECT_EQ(r.status, 1);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["exit_code"], 1);
  ASSERT_EQ(j["files"].size(), 1u);
  const auto& sched = j["files"][0]["schedules"][0];
  EXPECT_EQ(sched["name"], "ring");
  EXPECT_EQ(sched["target"], "sm_90a");
  bool found = false;
  for (const auto& f : sched["findings"])
    if (f["rule"] == "struct.wrong-direction") {
      found = true;
      EXPECT_EQ(f["location"]["line"], 16);
      EXPECT_EQ(f["severity"], "error");
      EXPECT_FALSE(f["notes"].empty());
    }
  EXPECT_TRUE(found) << r.out;
}

TEST(Cli, BinaryGarbageGivesLocatedErrorAndValidJson) {
  std::string garbage("\x00\xff\xfe@cake\x01\x02\n\x80\x81", 12);
  fs::path p = writeTemp("garbage.cake", garbage);
  CmdResult r = cake("check " + shellQuote(p.string()));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(std::regex_replace(p.string(), std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") + ":[0-9]+:[0-9]+: error:"))) << r.out;
  CmdResult j = cake("check --format json " + shellQuote(p.string()), false);
  EXPECT_EQ(j.status, 2);
  EXPECT_NO_THROW((void)nlohmann::json::parse(j.out)) << j.out;
}

TEST(Cli, MalformedInputsExitTwoWithLocation) {
  fs::path dir = src("tests/frontend/malformed");
  if (!fs::exists(dir)) GTEST_SKIP() << "no malformed inputs yet";
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".cake") continue;
    ++n;
    CmdResult r = cake("check " + shellQuote(e.path().string()));
    EXPECT_EQ(r.status, 2) << e.path() << "\n" << r.out;
    EXPECT_NE(r.out.find(e.path().string() + ":"), std::string::npos) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(":[0-9]+:[0-9]+: error:"))) << e.path() << "\n" << r.out;
  }
  EXPECT_GE(n, 40);
}

TEST(Cli, ExplainKnownAndUnknown) {
  CmdResult r = cake("explain struct.wrong-direction");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("docs/rules/struct.wrong-direction.md"), std::string::npos);
  EXPECT_EQ(cake("explain no.such-rule").status, 2);
  CmdResult list = cake("explain --list");
  EXPECT_EQ(list.status, 0);
  EXPECT_NE(list.out.find("struct.unused"), std::string::npos);
}

TEST(Cli, EveryRuleHasADocsPage) {
  CmdResult list = cake("explain --list");
  std::istringstream in(list.out);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    std::string id = line.substr(0, line.find(' '));
    if (id.empty()) continue;
    ++n;
    EXPECT_TRUE(fs::exists(src("docs/rules/" + id + ".md"))) << "missing docs/rules/" << id << ".md";
  }
  EXPECT_GT(n, 10);
}

TEST(Cli, FmtIsIdempotent) {
  fs::path p = writeTemp("fmt.cake", kGood);
  CmdResult once = cake("fmt " + shellQuote(p.string()), false);
  ASSERT_EQ(once.status, 0);
  fs::path q = writeTemp("fmt2.cake", once.out);
  CmdResult twice = cake("fmt " + shellQuote(q.string()), false);
  EXPECT_EQ(twice.status, 0);
  EXPECT_EQ(once.out, twice.out);
  EXPECT_EQ(cake("fmt --check " + shellQuote(q.string())).status, 0);
}

// The model checker's verdict for the standard mainloop: proved for every K
// (lap induction), and only "checked" for listed values when the proof is off.
TEST(Cli, MainloopSyncIsProvedForEveryTripCount) {
  auto syncVerdict = [](const std::string& out) {
    auto j = nlohmann::json::parse(out);
    for (const auto& v : j["files"][0]["schedules"][0]["verdicts"])
      if (v["property"] == "sync") return v;
    return nlohmann::json{};
  };
  std::string file = shellQuote(src("corpus/gemm/sm90_ws_4stage.cake").string());
  CmdResult r = cake("check --format json --proof-timeout 60 " + file, false);
  EXPECT_EQ(r.status, 0) << r.out;
  auto v = syncVerdict(r.out);
  EXPECT_EQ(v["verdict"], "proved") << r.out;
  EXPECT_NE(v["detail"].get<std::string>().find("lap induction"), std::string::npos) << v;

  r = cake("check --format json --proof-timeout 0 " + file, false);
  EXPECT_EQ(r.status, 0) << r.out;
  v = syncVerdict(r.out);
  EXPECT_EQ(v["verdict"], "checked") << r.out;
  EXPECT_NE(v["detail"].get<std::string>().find("K in {"), std::string::npos) << v;
}
