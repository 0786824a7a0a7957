// A check's verdict and the work it counts do not depend on the machine's
// load (docs/z3.md "Integer queries: Z3's strategy by resource units"). The
// load is made for the one process under test: `cake check` runs in a
// process group that is stopped (SIGSTOP) for 55 ms of every 60, so every
// wall-clock interval it measures, Z3's own timers included, is twelve times
// its CPU time, as on the shared 2-core machine at load 24 (gate51 and
// far51 saw the split-K fix below spend 15 times its work and meet the
// wall-clock limit there). The assertion is on what `CAKE_PROOF_STATS=1`
// counts (work units, states, queries, Z3's resource units) and on the
// verdicts, never on a time.
#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/cli/run_command.h"

extern char** environ;

namespace any_load_test {

using cake_test::shellQuote;
using cake_test::src;

// Runs `sh -c cmd` in a process group of its own, let run `on` of every
// `on + off` (the rest stopped), to its end; its exit status.
int runSlowed(const std::string& cmd, std::chrono::milliseconds on, std::chrono::milliseconds off) {
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  const char* argv[] = {"sh", "-c", cmd.c_str(), nullptr};
  pid_t pid = 0;
  const int err = posix_spawn(&pid, "/bin/sh", nullptr, &attr, const_cast<char**>(argv), environ);
  posix_spawnattr_destroy(&attr);
  if (err != 0) return -1;
  int status = 0;
  for (;;) {
    std::this_thread::sleep_for(on);
    if (waitpid(pid, &status, WNOHANG) == pid) break;
    kill(-pid, SIGSTOP);
    std::this_thread::sleep_for(off);
    kill(-pid, SIGCONT);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What a run counted and concluded: the stats lines without their clock
// fields (cpu_s=, wall_s=), and the verdict lines.
std::string countedAndConcluded(const std::string& out) {
  std::istringstream in(out);
  std::string line, kept;
  while (std::getline(in, line)) {
    const bool stats = line.rfind("bounded-stats:", 0) == 0 || line.rfind("proof-stats:", 0) == 0;
    if (!stats && line.find(": sync: ") == std::string::npos && line.find(": result: ") == std::string::npos) continue;
    std::istringstream words(line);
    std::string w, cleaned;
    while (words >> w)
      if (!stats || (w.rfind("cpu_s=", 0) != 0 && w.rfind("wall_s=", 0) != 0)) cleaned += w + " ";
    kept += cleaned + "\n";
  }
  return kept;
}

// TLX's split-K fix: its covering values are found by integer queries
// (encoder::intWitness) that Z3's default strategy for nonlinear integers
// answered with the SMT core for 2 s of wall clock and then with another
// engine. At idle they end within the 2 s; slowed, they did not, and the
// bounded check counted 2e9 work units (not 2e7) before its wall-clock
// limit. The wall-clock limit here is 600 s: far above what the check
// needs slowed (about 5 s), so only a change of path could meet it.
TEST(AnyLoad, TheSplitKFixCountsTheSameWorkSlowedTwelveTimes) {
  const std::string file =
      src("corpus/bugs/sync.arrival-underflow/fbtriton_tlx_splitk_empty_split_peeled_mma_wait_fixed.cake").string();
  const std::string out = ::testing::TempDir() + "cake_any_load_" + std::to_string(getpid());
  const std::string cmd = "CAKE_PROOF_STATS=1 " + shellQuote(CAKE_EXE) + " check --timeout 600 " + shellQuote(file) +
                          " > " + shellQuote(out + ".N") + " 2>&1";
  ASSERT_EQ(cake_test::runCommand(cmd).status, 0);
  const std::string plain = countedAndConcluded(readAll(out + ".N"));
  std::string slowed_cmd = cmd;
  slowed_cmd.replace(slowed_cmd.rfind(".N"), 2, ".S");
  ASSERT_EQ(runSlowed(slowed_cmd, std::chrono::milliseconds(5), std::chrono::milliseconds(55)), 0);
  const std::string slowed = countedAndConcluded(readAll(out + ".S"));
  std::remove((out + ".N").c_str());
  std::remove((out + ".S").c_str());
  EXPECT_NE(plain.find("bounded-stats:"), std::string::npos) << plain;
  EXPECT_NE(plain.find("result: proved"), std::string::npos) << plain;
  EXPECT_EQ(plain, slowed);
}

}  // namespace any_load_test
