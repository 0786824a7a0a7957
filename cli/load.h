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
  // Without a schedule: why (already printed on stderr), and the front
  // end's findings, for --format json (failureJson).
  std::string error;
  std::vector<ir::Finding> findings;
};

// Reads and compiles FILE and picks the schedule (the only one, or --schedule
// NAME; kAllSchedules: keeps every schedule of the module, `schedule` is the
// first); `exit_code` is 0 on success, else what the command should exit with.
inline constexpr const char* kAllSchedules = "*";
LoadedSchedule load(const std::string& path, const std::string& target, const std::string& name, int& exit_code);
void printFindings(const std::vector<ir::Finding>& fs);
// With --format json: prints {"result": RESULT, "detail": ..., "findings":
// [...], "exit_code": N} on stdout, so an error is valid JSON too (the
// message is on stderr as well). Returns exit_code.
int failureJson(const std::string& format, const std::string& result, const std::string& detail, int exit_code,
                const std::vector<ir::Finding>& findings = {});
// failureJson for a load() that found no schedule.
int loadFailed(const LoadedSchedule& ls, const std::string& format, int exit_code);

// "BM=64" -> {"BM", 64}; nullopt on anything else.
std::optional<std::pair<std::string, int64_t>> parseSetting(const std::string& text);
// Every --set; prints the error and returns nullopt on a bad one.
std::optional<std::map<std::string, int64_t>> parseSettings(const std::vector<std::string>& sets);

}  // namespace cake::cli
