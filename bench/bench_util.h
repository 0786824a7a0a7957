// Shared by the benchmark programs: the .cake files under some folders, and
// a main() wrapper that turns bad input (a missing folder, an unknown
// option, a number that does not parse) into one error line and exit 2
// instead of an uncaught exception.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/heap.h"

namespace cake::bench {

// Every *.cake under `dirs` (a .cake file stands for itself), sorted; a
// path that is neither is an error.
inline std::vector<std::string> cakeFilesUnder(const std::vector<std::string>& dirs) {
  std::vector<std::string> files;
  for (const auto& d : dirs) {
    if (std::filesystem::is_regular_file(d) && std::filesystem::path(d).extension() == ".cake") {
      files.push_back(d);
      continue;
    }
    if (!std::filesystem::is_directory(d)) throw std::runtime_error("not a folder or .cake file: " + d);
    for (const auto& e : std::filesystem::recursive_directory_iterator(d))
      if (e.is_regular_file() && e.path().extension() == ".cake") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// An argument that looks like an option but is none of the program's.
inline void rejectUnknownOption(const std::string& arg) {
  if (arg.rfind("-", 0) == 0) throw std::runtime_error("unknown option: " + arg);
}

// A whole-string number (an option's value or a positional count), else
// an error naming `what`: "--max-trips=x" must not read as 0.
template <class T>
T parseNumber(const std::string& text, const std::string& what) {
  T v{};
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end)
    throw std::runtime_error(what + " is not a number: '" + text + "'");
  return v;
}

// The heap settings of the `cake` command (cli/heap.h), so that a
// benchmark of what `cake check` costs pays for Z3's contexts as it does.
inline void keepFreedMemoryAsTheCliDoes() { cli::keepFreedMemoryInTheHeap(); }

// CPU seconds of the calling thread (Z3, the explorer and the builder run
// in it; wall time says little on a loaded machine).
inline double threadCpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

// Runs body(); an exception becomes "PROG: error: WHAT" on stderr and exit 2.
template <class Body>
int guardedMain(const char* prog, Body body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", prog, e.what());
    return 2;
  }
}

}  // namespace cake::bench
