// Bad input to the `cake` binary (docs/cli.md "Bad input"; the long sweep is
// bench/bad_input.sh): a clear error and a non-zero exit, and with --format
// json|jsonl|sarif a standard output that is still valid JSON.
#include "tests/common/build_paths.h"
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "tests/cli/run_command.h"
#include "tests/common/ring_schedule.h"

namespace fs = std::filesystem;

namespace {

using cake_test::CmdResult;
using cake_test::cake;
using cake_test::shellQuote;
using cake_test::src;

// A scratch directory of this process, removed at the end of each test.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("cake_bad_input_" + std::to_string(getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
  std::string file(const std::string& name, const std::string& text) const {
    fs::path p = dir / name;
    std::ofstream(p, std::ios::binary) << text;
    return shellQuote(p.string());
  }
  std::string subdir(const std::string& name) const {
    fs::create_directories(dir / name);
    return shellQuote((dir / name).string());
  }
};

// stdout only (stderr dropped): must parse as one JSON document.
nlohmann::json jsonOf(const std::string& args, int want_status) {
  CmdResult r = cake(args, /*merge_stderr=*/false);
  EXPECT_EQ(r.status, want_status) << args << "\n" << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: cake " << args << "\n" << r.out;
  return j;
}

}  // namespace

// A directory opened as a stream reads nothing: it was reported as a file
// without a schedule (check) or formatted as an empty file with exit 0 (fmt).
TEST(CliBadInput, DirectoryIsAnIoError) {
  Scratch s;
  std::string d = s.subdir("dir.cake");
  for (const char* cmd : {"check ", "fmt ", "lower ", "cost --shape M=64,N=64,K=64 "}) {
    CmdResult r = cake(cmd + d);
    EXPECT_EQ(r.status, 2) << cmd << r.out;
    EXPECT_NE(r.out.find("is a directory, not a file [io.error]"), std::string::npos) << cmd << r.out;
  }
}

// CLI::Range lets NaN through (every comparison with it is false); the
// budget then went through an unsigned cast of undefined value, exit 0.
TEST(CliBadInput, NonFiniteSecondsAreUsageErrors) {
  Scratch s;
  std::string good = s.file("good.cake", cake_test::kRingSchedule);
  for (const char* opt : {"--proof-timeout", "--bounded-timeout", "--z3-work"})
    for (const char* v : {"nan", "inf", "-1"}) {
      CmdResult r = cake(std::string("check ") + opt + " " + v + " " + good);
      EXPECT_EQ(r.status, 2) << opt << " " << v << "\n" << r.out;
    }
  CmdResult r = cake("check --proof-timeout nan " + good);
  EXPECT_NE(r.out.find("not a finite number"), std::string::npos) << r.out;
  EXPECT_EQ(cake("lower --check-timeout nan " + good).status, 2);
  EXPECT_EQ(cake("run --timeout nan --shape M=64,N=64,K=64 " + good).status, 2);
}

// A usage error with --format json|jsonl|sarif: stdout is a document that
// says so (it was empty: a caller parsing stdout got nothing).
TEST(CliBadInput, UsageErrorUnderJsonFormatIsJson) {
  Scratch s;
  std::string good = s.file("good.cake", cake_test::kRingSchedule);
  for (const std::string& bad : {"--engine foo", "--frobnicate", "--target sm_75", "--timeout 0.001",
                                 "--proof-timeout nan"}) {
    nlohmann::json j = jsonOf("check --format json " + bad + " " + good, 2);
    EXPECT_EQ(j.value("result", ""), "usage_error") << bad << ": " << j.dump();
    EXPECT_EQ(j.value("exit_code", 0), 2) << bad;
    EXPECT_FALSE(j.value("error", "").empty()) << bad;
    j = jsonOf("check --format=jsonl " + bad + " " + good, 2);
    EXPECT_EQ(j.value("result", ""), "usage_error") << bad;
    j = jsonOf("check --format sarif " + bad + " " + good, 2);
    ASSERT_TRUE(j.contains("runs")) << j.dump();
    EXPECT_EQ(j["runs"][0]["invocations"][0]["executionSuccessful"], false) << j.dump();
  }
  // text: nothing on stdout, the message on stderr
  CmdResult r = cake("check --engine foo " + good, /*merge_stderr=*/false);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
}

// cake run / cake cost --format json on a file the front end rejects, a
// missing file or a bad --set printed nothing on stdout.
TEST(CliBadInput, RunAndCostJsonOnBadFilesIsJson) {
  Scratch s;
  std::string good = s.file("good.cake", cake_test::kRingSchedule);
  std::string bad = s.file("bad.cake", "@cake.schedule(target=\"sm_90a\")\ndef k(lm, K: LM.i32):\n    lm.frobnicate(1)\n");
  std::string missing = shellQuote((s.dir / "missing.cake").string());
  for (const std::string& cmd : {"run --format json --shape M=64,N=64,K=64 ", "cost --format json --shape M=64,N=64,K=64 "}) {
    nlohmann::json j = jsonOf(cmd + bad, 2);
    EXPECT_EQ(j.value("result", ""), "error") << j.dump();
    ASSERT_TRUE(j.contains("findings")) << j.dump();
    ASSERT_FALSE(j["findings"].empty()) << j.dump();
    EXPECT_EQ(j["findings"][0].value("rule", ""), "type.unknown-op") << j.dump();
    j = jsonOf(cmd + missing, 2);
    EXPECT_NE(j.value("detail", "").find("cannot open"), std::string::npos) << j.dump();
    j = jsonOf(cmd + good + " --set BM", 2);
    EXPECT_NE(j.value("detail", "").find("--set"), std::string::npos) << j.dump();
  }
}

// `cake check --shape` with a malformed shape or --set checked the file,
// put the error in a report line and exited 0.
TEST(CliBadInput, CheckWithABadShapeIsAUsageError) {
  Scratch s;
  std::string good = s.file("good.cake", cake_test::kRingSchedule);
  CmdResult r = cake("check --shape M=x " + good);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("bad --shape"), std::string::npos) << r.out;
  r = cake("check --shape M=64,N=64,K=64 " + good + " --set BM");
  EXPECT_EQ(r.status, 2) << r.out;
  r = cake("check --shape M=64,N=64,K=64 --workload nope " + good);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("unknown workload"), std::string::npos) << r.out;
  nlohmann::json j = jsonOf("check --format json --shape M=x " + good, 2);
  EXPECT_EQ(j.value("result", ""), "usage_error") << j.dump();
}

// Nothing to do is an error, not a pass: corpus merge of an unreadable
// input (was 1, "an incomplete merge"), mutate of an empty directory or of
// no known-good case (was exit 0 with 0 mutants), -j 0 (was taken as 1).
TEST(CliBadInput, GateCommandsWithNothingToDoFail) {
  Scratch s;
  std::string empty = s.subdir("empty");
  CmdResult r = cake("corpus merge " + shellQuote((s.dir / "none.jsonl").string()));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("cannot read"), std::string::npos) << r.out;
  EXPECT_EQ(cake("corpus merge " + empty).status, 2);
  r = cake("mutate " + empty);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("nothing to mutate"), std::string::npos) << r.out;
  std::string buggy = s.file("buggy.cake", std::string("# expect: sync.wrong-direction\n") + cake_test::kRingSchedule);
  EXPECT_EQ(cake("mutate " + buggy).status, 2);
  EXPECT_EQ(cake("corpus --no-progress -j 0 " + empty).status, 2);
  EXPECT_EQ(cake("mutate -j -3 " + empty).status, 2);
}

// Under a small --memory-limit a thread cannot get its stack: that was
// "cake: internal error: Resource temporarily unavailable".
TEST(CliBadInput, SmallMemoryLimitIsOutOfMemoryNotAnInternalError) {
  Scratch s;
  std::string good = s.file("good.cake", cake_test::kRingSchedule);
  CmdResult r = cake("--memory-limit 48 check " + good);
  EXPECT_EQ(r.out.find("internal error"), std::string::npos) << r.out;
  if (r.status != 0) EXPECT_NE(r.out.find("out of memory"), std::string::npos) << r.out;
}

// No GPU here (or a GPU): `cake run` never claims a measurement it did not
// make; without a device it says so, exits 2, and --format json is JSON.
// What is checked is the command's record, text and exit, so nvcc is
// /bin/true here (it exits 0 and writes nothing; without a device nothing
// is loaded): the real compile before the no_gpu result, of this kernel
// through the same runner::run, is RunnerRun.NoGpuIsAResult's. Two nvcc
// runs, about 7 CPU s, less (docs/ci.md, session 35).
TEST(CliBadInput, RunWithoutAGpuSaysSo) {
  if (std::system("nvidia-smi -L >/dev/null 2>&1") == 0) GTEST_SKIP() << "a GPU is present";
  ::setenv("CAKE_NVCC", "/bin/true", 1);
  std::string good = shellQuote(src("corpus/gemm/sm90_basic_one_consumer.cake").string());
  nlohmann::json j = jsonOf("run --format json --shape M=256,N=256,K=256 " + good, 2);
  EXPECT_EQ(j.value("result", ""), "no_gpu") << j.dump();
  CmdResult r = cake("run --shape M=256,N=256,K=256 " + good);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("no NVIDIA GPU"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("-1"), std::string::npos) << "an unmeasured figure printed as a number:\n" << r.out;
  ::unsetenv("CAKE_NVCC");
}

// The whole sweep (bench/bad_input.sh: 1 to 2 min on a shared 2-core machine).
TEST(CliBadInput, SlowBadInputScript) {
  std::string cmd = "bash " + shellQuote(src("bench/bad_input.sh").string()) + " " + shellQuote(CAKE_EXE) + " 10 2>&1";
  CmdResult r = cake_test::runCommand(cmd);
  EXPECT_EQ(r.status, 0) << r.out;
}
