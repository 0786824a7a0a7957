// Running a child process under a watchdog (no CUDA here: the GPU work
// happens in the child, so a hung kernel is killed with its process).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cake::runner {

struct ProcessResult {
  bool started = false;     // fork/exec succeeded
  bool timed_out = false;   // killed by the watchdog
  int exit_code = -1;       // valid when the child exited normally
  int term_signal = 0;      // signal that ended the child (0: exited)
  double wall_s = 0;
  std::string out, err;     // captured stdout / stderr
  std::string error;        // why it did not start
};

// Runs argv[0] (searched in PATH) with `argv` in its own process group.
// After `timeout_s` seconds the whole group is sent SIGKILL and the result
// says timed_out; the call returns only once the child has been reaped.
// `env` entries (NAME, VALUE) are set in the child.
ProcessResult runProcess(const std::vector<std::string>& argv, double timeout_s,
                         const std::vector<std::pair<std::string, std::string>>& env = {});

}  // namespace cake::runner
