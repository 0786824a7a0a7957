// Finding and reading the source tree's files from a test (header only:
// tests/common has no test executable of its own).
#pragma once

#include "tests/common/build_paths.h"
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cake::test {

// The source tree: $CAKE_SOURCE_DIR, else the one the test was built from.
inline std::string sourceDir() {
  if (const char* e = std::getenv("CAKE_SOURCE_DIR")) return e;
  return CAKE_SOURCE_DIR;
}

inline std::string readText(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace cake::test
