// The `cake` command: a thin dispatcher over the subcommands in cli/*_cmd.cpp.
#include <cstdlib>
#include <cstdio>
#include <exception>
#include <string>
#include <system_error>
#include <string_view>

#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/heap.h"
#include "cli/memory_cap.h"
#include "encoder/holds_cache.h"
#include "ir/diagnostic.h"
#include "ir/sarif.h"

namespace cake::cli {

namespace {
rlimit g_uncapped{RLIM_INFINITY, RLIM_INFINITY};
bool g_capped = false;
}  // namespace

// The process caps its own memory (the soft address-space limit), so a
// schedule that asks for more than any check can afford fails with
// std::bad_alloc -- reported, exit 2 -- instead of taking the machine. The
// hard limit is left alone so the cap can be lifted again (liftMemoryCap).
// Sanitizer builds reserve terabytes of shadow address space: no cap there.
bool capMemory(unsigned mib) {
#if defined(__SANITIZE_ADDRESS__)
  return false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return false;
#endif
#endif
  if (getrlimit(RLIMIT_AS, &g_uncapped) != 0) return false;
  if (mib == 0) return true;
  rlimit r = g_uncapped;
  rlim_t want = static_cast<rlim_t>(mib) << 20;
  if (r.rlim_max != RLIM_INFINITY && want > r.rlim_max) want = r.rlim_max;
  r.rlim_cur = want;
  g_capped = setrlimit(RLIMIT_AS, &r) == 0;
  return g_capped;
}

// cli/heap.h: freed memory stays in the heap, whose first 48 MiB are
// advised as transparent huge pages.
void keepFreedMemory() { keepFreedMemoryInTheHeap(); }

void liftMemoryCap() {
  if (g_capped) setrlimit(RLIMIT_AS, &g_uncapped);
  g_capped = false;
}

// The --format a command line asks for ("" when none): a usage error is
// reported in it too, so a caller that parses stdout as JSON gets JSON.
std::string requestedFormat(int argc, char** argv) {
  std::string format;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--format" && i + 1 < argc) format = argv[i + 1];
    else if (a.rfind("--format=", 0) == 0) format = std::string(a.substr(9));
  }
  return format;
}

// stdout for a usage error under --format json|jsonl|sarif (nothing otherwise).
void printUsageErrorDocument(const std::string& format, const std::string& message) {
  if (format == "json" || format == "jsonl") {
    nlohmann::json doc = {{"tool", "cake"}, {"version", CAKE_VERSION}, {"result", "usage_error"},
                          {"error", message}, {"exit_code", kCannotCheck}};
    fmt::print("{}\n", ir::dumpJson(doc, format == "json" ? 2 : -1));
  } else if (format == "sarif") {
    nlohmann::json log = ir::toSarif({}, CAKE_VERSION);
    log["runs"][0]["invocations"] = nlohmann::json::array(
        {{{"executionSuccessful", false},
          {"exitCode", kCannotCheck},
          {"toolExecutionNotifications", nlohmann::json::array({{{"level", "error"}, {"message", {{"text", message}}}}})}}});
    fmt::print("{}\n", ir::dumpJson(log, 2));
  }
}

int outOfMemory(unsigned memory_limit_mib) {
  liftMemoryCap();
  fmt::print(stderr, "cake: error: out of memory: the work needs more than --memory-limit ({} MiB) allows\n",
             memory_limit_mib);
  return kCannotCheck;
}

}  // namespace cake::cli

int main(int argc, char** argv) {
  cake::cli::keepFreedMemory();
  // CAKE_NO_QUERY_RECORD (set): every Z3 query runs, none is answered from
  // the holds cache or the history record (a differential check of the
  // records: docs/z3.md "Failing queries and optima kept per history").
  cake::encoder::keepHoldingQueries(std::getenv("CAKE_NO_QUERY_RECORD") == nullptr);
  CLI::App app{"cake: a verifier-first compiler harness for GPU kernel schedules (CAKE IR)", "cake"};
  app.set_version_flag("--version", std::string("cake ") + CAKE_VERSION);
  app.require_subcommand(1);
  // Options of the whole command may also follow the subcommand.
  app.fallthrough();
  unsigned memory_limit_mib = cake::cli::kDefaultMemoryLimitMiB;
  app.add_option("--memory-limit", memory_limit_mib,
                 "cap on this process's own memory (address space) in MiB, 0 for none (default 4096); work that "
                 "needs more ends with a reported out-of-memory error, exit 2")
      ->check(CLI::Range(0u, 1u << 24));
  // Applied before any subcommand runs: options are parsed first.
  app.parse_complete_callback([&] { cake::cli::capMemory(memory_limit_mib); });
  int exit_code = cake::cli::kOk;
  cake::cli::addCheckCommand(app, exit_code);
  cake::cli::addFmtCommand(app, exit_code);
  cake::cli::addExplainCommand(app, exit_code);
  cake::cli::addLowerRunCommands(app, exit_code);
  cake::cli::addCorpusCommand(app, exit_code);
  cake::cli::addMutateCommand(app, exit_code);
  cake::cli::addTuneCommand(app, exit_code);
  cake::cli::addDispatchCommand(app, exit_code);
  cake::cli::addCostCommand(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Usage errors are "could not check" (2), never CLI11's own codes.
    app.exit(e);
    cake::cli::printUsageErrorDocument(cake::cli::requestedFormat(argc, argv), e.what());
    return cake::cli::kCannotCheck;
  } catch (const std::bad_alloc&) {
    return cake::cli::outOfMemory(memory_limit_mib);
  } catch (const std::system_error& e) {
    // Under a small --memory-limit a thread's stack cannot be mapped:
    // std::thread throws EAGAIN (or ENOMEM), which is the cap, not a bug.
    if (e.code() == std::errc::resource_unavailable_try_again || e.code() == std::errc::not_enough_memory)
      return cake::cli::outOfMemory(memory_limit_mib);
    fmt::print(stderr, "cake: internal error: {}\n", e.what());
    return cake::cli::kCannotCheck;
  } catch (const std::exception& e) {
    fmt::print(stderr, "cake: internal error: {}\n", e.what());
    return cake::cli::kCannotCheck;
  }
  return exit_code;
}
