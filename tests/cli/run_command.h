// Runs a shell command for the CLI tests: exit status and stdout.
#pragma once

#include <array>
#include <cstdio>
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

}  // namespace cake_test
