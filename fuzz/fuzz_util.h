// Shared by the libFuzzer targets of the check and lower pipelines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "ir/frontend.h"

namespace cake::fuzz {

[[noreturn]] inline void die(const char* what, const std::string& input, const std::string& detail) {
  std::fprintf(stderr, "%s\n--- input ---\n%s\n--- detail ---\n%s\n", what, input.c_str(), detail.c_str());
  std::abort();
}

// The input as a module when the front end accepts it (inputs over 8 KiB
// are skipped: the per-input budget is for the stages after the front end).
inline std::optional<ir::Module> compileInput(const uint8_t* data, size_t size, std::string& text) {
  if (size > 8 * 1024) return std::nullopt;
  text.assign(reinterpret_cast<const char*>(data), size);
  ir::DiagnosticSink sink;
  return ir::compileModule(ir::makeSourceFile("fuzz.cake", text), {}, sink);
}

}  // namespace cake::fuzz
