// Shared by the subcommands that take one schedule (lower, run, cost).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/frontend.h"

namespace cake::cli {

struct LoadedSchedule {
  std::optional<ir::Module> module;
  const ir::Schedule* schedule = nullptr;
};

// Reads and compiles FILE and picks the schedule (the only one, or --schedule
// NAME; kAllSchedules: keeps every schedule of the module, `schedule` is the
// first); `exit_code` is 0 on success, else what the command should exit with.
inline constexpr const char* kAllSchedules = "*";
LoadedSchedule load(const std::string& path, const std::string& target, const std::string& name, int& exit_code);
void printFindings(const std::vector<ir::Finding>& fs);

// "BM=64" -> {"BM", 64}; nullopt on anything else.
std::optional<std::pair<std::string, int64_t>> parseSetting(const std::string& text);
// Every --set; prints the error and returns nullopt on a bad one.
std::optional<std::map<std::string, int64_t>> parseSettings(const std::vector<std::string>& sets);

}  // namespace cake::cli
