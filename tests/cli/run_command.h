// Runs a shell command for the CLI tests: exit status and stdout.
#pragma once

#include "tests/common/build_paths.h"
#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include <sys/wait.h>

namespace cake_test {

struct CmdResult {
  int status = -1;
  std::string out;  // stdout (and stderr where the command merges it)
};

inline CmdResult runCommand(const std::string& cmd) {
  CmdResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

// A word for the shell, quoted.
inline std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// `cake ARGS` (the binary under test): stdout, with stderr merged into it or dropped.
inline CmdResult cake(const std::string& args, bool merge_stderr = true) {
  return runCommand(shellQuote(CAKE_EXE) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null"));
}

// A file of the source tree, by its path relative to the root.
inline std::filesystem::path src(const std::string& rel) { return std::filesystem::path(CAKE_SOURCE_DIR) / rel; }

}  // namespace cake_test
