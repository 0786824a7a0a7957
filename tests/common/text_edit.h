// Editing schedule text in tests: a known-good schedule with one change.
#pragma once

#include <string>

namespace cake::test {

// `s` with every occurrence of `from` replaced by `to` (left to right, the
// replacement itself never rescanned).
inline std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

}  // namespace cake::test
