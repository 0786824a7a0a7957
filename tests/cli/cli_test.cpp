// End-to-end tests of the `cake` binary: exit codes, locations, JSON.
#include "tests/common/build_paths.h"
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <chrono>
#include <csignal>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/cli/run_command.h"
#include "tests/common/ring_schedule.h"

namespace fs = std::filesystem;

namespace {

using cake_test::CmdResult;
using cake_test::cake;
using cake_test::shellQuote;
using cake_test::src;

fs::path writeTemp(const std::string& name, const std::string& text) {
  fs::path p = fs::temp_directory_path() / ("cake_cli_test_" + name);
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

const char* kGood = cake_test::kRingSchedule;

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

// ---------------------------------------------------------------- issue 9

// `cake lower` passes only verified schedules to lowering, like `cake run`.
TEST(Cli, LowerRefusesAScheduleThatDoesNotVerify) {
  std::string bug = shellQuote(src("corpus/bugs/sync.deadlock/sm90_epilogue_barrier_wrong_roles.cake").string());
  CmdResult r = cake("lower -o /dev/null " + bug);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("error:"), std::string::npos) << r.out;           // the findings are shown
  EXPECT_NE(r.out.find("--allow-unverified"), std::string::npos) << r.out;
  r = cake("lower --allow-unverified -o /dev/null " + bug);
  EXPECT_EQ(r.status, 0) << r.out;
  r = cake("lower -o /dev/null " + shellQuote(src("corpus/gemm/sm90_ws_4stage.cake").string()));
  EXPECT_EQ(r.status, 0) << r.out;
}

// A size no GPU allows is a located error from the front end, at once,
// instead of minutes of work and std::bad_alloc.
TEST(Cli, HugeBarrierCountIsALocatedErrorAtOnce) {
  std::string text = kGood;
  const std::string from = "count=2, prod=[load], cons=[use]";
  size_t p = text.find(from);
  ASSERT_NE(p, std::string::npos);
  text.replace(p, from.size(), "count=2147483647, prod=[load], cons=[use]");
  fs::path f = writeTemp("huge_count.cake", text);
  CmdResult r = cake("check " + shellQuote(f.string()));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(":8:\\d+: error: count= must be in \\[1, 29056\\]"))) << r.out;
}

// Every default budget is documented where users look: --help and docs/cli.md.
TEST(Cli, DefaultBudgetsAreDocumented) {
  CmdResult help = cake("--help");
  EXPECT_NE(help.out.find("--memory-limit"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("4096"), std::string::npos) << help.out;
  std::ifstream in(src("docs/cli.md"));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  for (const char* d : {"--memory-limit", "4096 MiB", "30 s", "3 s", "200,000 instructions"})
    EXPECT_NE(doc.find(d), std::string::npos) << "docs/cli.md does not say " << d;
}

// No cases is not a pass.
TEST(Cli, CorpusOnAnEmptyDirectoryFails) {
  fs::path d = fs::temp_directory_path() / ("cake_cli_test_empty_corpus_" + std::to_string(getpid()));
  fs::create_directories(d);
  CmdResult r = cake("corpus --no-progress " + shellQuote(d.string()));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("no .cake cases"), std::string::npos) << r.out;
  fs::remove_all(d);
}

// Ctrl-C while a case is in the solver: the run ends (exit 130) and the case
// gets no record, so --resume checks it again (Z3 used to turn the signal
// into a canceled query, recorded as unknown and reused by --resume). The
// process also runs under its own memory cap (default 4096 MiB).
namespace {

// Waits until process `pid` has used `seconds` of CPU (user + sys, from
// /proc/PID/stat); false if it ends first or a minute of wall time passes.
bool waitForChildCpu(pid_t pid, double seconds) {
  const long ticks_per_second = sysconf(_SC_CLK_TCK);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (std::chrono::steady_clock::now() < give_up) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t after_name = stat.rfind(')');  // the command name may hold spaces
    if (after_name == std::string::npos) return false;
    std::istringstream fields(stat.substr(after_name + 2));
    std::string state, skip;
    fields >> state;  // field 3; utime and stime are fields 14 and 15
    if (state == "Z" || state == "X") return false;
    for (int f = 4; f <= 13; ++f) fields >> skip;
    long long utime = 0, stime = 0;
    fields >> utime >> stime;
    if (static_cast<double>(utime + stime) >= seconds * static_cast<double>(ticks_per_second)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace

TEST(Cli, CtrlCDuringACaseRecordsNothingForResume) {
  fs::path d = fs::temp_directory_path() / ("cake_cli_test_sigint_" + std::to_string(getpid()));
  fs::create_directories(d);
  // a layout obligation Z3 cannot settle quickly (a product of three sizes)
  std::ofstream(d / "slow.cake") << R"(# expect: pass
@cake.schedule(target="sm_90a")
def hard(lm, A: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 1)
    lm.assume(N > 1)
    lm.assume(M * N * K + M * M * N == 2147483629)
    pool = lm.smem(65536)
    a = pool.view(offset=(M * N * K) % 1024 * 64, shape=(64, 64), dtype=lm.bf16, stages=2)
    load = lm.role(warps=[0])
    use = lm.role(warps=[4, 5, 6, 7])
    full = lm.barrier(count=2, prod=[load], cons=[use], init_count=1)
    with load:
        for k in lm.range(0, K):
            a.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)
    with use:
        for k in lm.range(0, K):
            lm.wait(full, iter=k)
)";
  const std::string jsonl = (d / "run.jsonl").string();
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    execl(CAKE_EXE, CAKE_EXE, "corpus", "--no-progress", "--timeout", "120000", "--jsonl", jsonl.c_str(),
          d.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Well inside the solver: the child has run half a second of CPU (its
  // parse and set-up take milliseconds). Measured as CPU, not wall time, so
  // that a loaded machine cannot send the signal before the case starts;
  // it was a 4-s sleep, 4 CPU s of the child's work (docs/ci.md, session 46).
  EXPECT_TRUE(waitForChildCpu(pid, 0.5)) << "cake corpus ended or did not start";
  std::ifstream lim("/proc/" + std::to_string(pid) + "/limits");
  std::string limits((std::istreambuf_iterator<char>(lim)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(std::regex_search(limits, std::regex("Max address space\\s+4294967296\\s"))) << limits;
  kill(pid, SIGINT);
  int st = 0;
  waitpid(pid, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 130) << "status " << st;
  std::ifstream in(jsonl);
  std::string line;
  int cases = 0;
  while (std::getline(in, line))
    if (line.find("\"type\":\"case\"") != std::string::npos) ++cases;
  EXPECT_EQ(cases, 0) << "the interrupted case was recorded";
  fs::remove_all(d);
}

// Exit 0 says what it means (issue 9, point 5): "proved" for every allowed
// value, or "checked" for listed values; --require-proof turns checked-only
// into exit 2 with the reason.
TEST(Cli, ExitZeroSaysProvedOrCheckedAndRequireProofDemandsAProof) {
  std::string file = shellQuote(src("corpus/gemm/sm90_ws_4stage.cake").string());
  CmdResult r = cake("check --proof-timeout 0 " + file);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("result: checked, not proved"), std::string::npos) << r.out;

  r = cake("check --proof-timeout 0 --require-proof " + file);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--require-proof: checked, not proved: schedule 'gemm_sm90_ws_4stage': sync: checked: K in {"),
            std::string::npos)
      << r.out;

  r = cake("check --format json --proof-timeout 0 --require-proof " + file, false);
  EXPECT_EQ(r.status, 2) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["exit_code"], 2);
  EXPECT_EQ(j["files"][0]["result"], "checked");
  ASSERT_EQ(j["files"][0]["not_proved"].size(), 1u) << j;

  r = cake("check --require-proof --proof-timeout 60 --timeout 60 " + file);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("result: proved"), std::string::npos) << r.out;

  // A skipped stage is not a proof either.
  r = cake("check --require-proof --no-model-check " + file);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("sync: skipped (--no-model-check)"), std::string::npos) << r.out;
}

// A contradictory lm.assume is an error, never a warning followed by
// "proved" (issue 9, point 4).
TEST(Cli, ContradictoryAssumptionIsAnError) {
  std::string file = shellQuote(src("corpus/bugs/layout.assume-contradiction/sm90_assume_zero_eq_one.cake").string());
  CmdResult r = cake("check " + file);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("error: no parameter values satisfy every lm.assume"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("sync: proved"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sync: unknown"), std::string::npos) << r.out;
  r = cake("check --no-layout " + file);
  EXPECT_EQ(r.status, 2) << r.out;
}

// ------------------------------------------------------ cake tune / dispatch

TEST(CliTune, BadInputIsAUsageError) {
  auto r = cake("tune -o /tmp/cake_cli_tune --template " + shellQuote(src("search/examples/gemm_sm90_ws.cake").string()) +
                " --param BN=256..64");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--param BN=256..64: empty range"), std::string::npos) << r.out;
  r = cake("tune -o /tmp/cake_cli_tune");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("nothing to tune"), std::string::npos) << r.out;
  r = cake("tune --ablate /nonexistent/run");
  EXPECT_EQ(r.status, 2);
  r = cake("dispatch /nonexistent.json -o /tmp/cake_cli_dispatch");
  EXPECT_EQ(r.status, 2);
}

TEST(CliTune, AblateFromRecordedResults) {
  fs::path dir = fs::temp_directory_path() / "cake_cli_test_ablate";
  fs::create_directories(dir);
  std::ofstream(dir / "results.jsonl")
      << R"({"id":"a","verdict":"verified","rank":1,"prediction":{"ms":1.0,"bottleneck":"x"},"measurement":{"result":"ok","median_ms":1.01},"gpu_wall_s":2})"
      << "\n"
      << R"({"id":"b","verdict":"verified","rank":2,"prediction":{"ms":2.0,"bottleneck":"x"},"measurement":{"result":"ok","median_ms":1.0},"gpu_wall_s":2})"
      << "\n"
      << R"({"id":"c","verdict":"rejected","rule":"regs.budget","rank":0,"measurement":null})" << "\n";
  auto r = cake("tune --ablate " + shellQuote(dir.string()));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("| 2 | 2 | 1 | 1 | 1.0 | 2 | yes |"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// `cake cost evaluate --format json` prints one JSON document and nothing
// else (it used to print the text table first, which no parser accepts).
TEST(Cli, CostEvaluateJsonIsOneDocument) {
  std::string recs;
  for (const char* shape : {"S=1536,D=64,B=8,H=16", "S=4096,D=64,B=2,H=16"})
    recs += nlohmann::json{{"id", shape}, {"split", "holdout"}, {"file", "corpus/attention/sm90_fa3_fwd.cake"},
                           {"workload", "attention-fwd"}, {"shape", shape}, {"sets", nlohmann::json::object()},
                           {"record", {{"result", "ok"}, {"median_ms", 1.5}}},
                           {"ncu", {{"sm_pct", 20.0}, {"mem_pct", 10.0}}}}
                .dump() +
            "\n";
  fs::path p = writeTemp("evaluate.jsonl", recs);
  CmdResult r = cake_test::runCommand("cd " + shellQuote(CAKE_SOURCE_DIR) + " && " + shellQuote(CAKE_EXE) +
                                      " cost evaluate --format json " + shellQuote(p.string()) + " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["pairs"].size(), 2u);
  EXPECT_EQ(j["all"]["pairs"], 2);
  ASSERT_EQ(j["workloads"].size(), 1u);
  EXPECT_EQ(j["workloads"][0]["workload"], "attention-fwd");
  EXPECT_GT(j["pairs"][0]["predicted_ms"].get<double>(), 0.0);
  // 1.5 ms is several times these problems' predicted time: at the measured
  // time no unit is near its peak, as ncu's 20% / 10% say
  EXPECT_EQ(j["ncu"]["pairs"], 2);
  EXPECT_EQ(j["pairs"][0]["bucket_at_measured_time"], "latency");
  EXPECT_EQ(j["ncu"]["agree_at_measured_time"], 2);
}

// `cake run --split-k S --dry-run`: both kernels of the file verified and
// bound (either order in the file), the harness arguments printed; no GPU,
// nvcc or harness involved. A file with one schedule is refused.
TEST(Cli, RunSplitKDryRunPrintsTheBinding) {
  const std::string cake = "cd " + shellQuote(CAKE_SOURCE_DIR) + " && " + shellQuote(CAKE_EXE) + " run ";
  // (a pair whose verification is proved in well under a second; the corpus pair takes the 3 s proof budget)
  CmdResult r = cake_test::runCommand(cake + "bench/gpu/schedules/decode/sm90_decode_splitk_bn256_s4.cake --split-k 4 "
                                             "--shape 1x4096x4096 --dry-run --format json 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["result"], "dry_run");
  EXPECT_EQ(j["kernel"], "sm90_decode_splitk_bn256_s4+sm90_splitk_reduce_bn64");
  EXPECT_EQ(j["shape"]["S"], 4);
  EXPECT_EQ(j["verified"], true);
  EXPECT_NE(j["detail"].get<std::string>().find("--tensor W:4,1,4096"), std::string::npos) << r.out;
  CmdResult one = cake_test::runCommand(cake + "corpus/gemm/sm90_ws_4stage.cake --split-k 4 --shape 1x4096x4096 "
                                               "--dry-run 2>&1");
  EXPECT_EQ(one.status, 2) << one.out;
  EXPECT_NE(one.out.find("needs a file with two schedules"), std::string::npos) << one.out;
}
