// cake-independent differential driver: N random small schedules through
// the explicit-state simulator and a Z3 engine (BMC, or with --engine=po the
// partial-order engine of encoder/z3_po.h); prints the agreement count.
//
//   differential [N=1000] [SEED=1] [--engine=bmc|po] [--verbose] [--timeout-ms=T]
//                [--max-trips=3] [--max-stages=3] [--max-consumers=2] [--budget-s=S] [--po-bit-vectors]
//                [--named-rate=P] (a named-barrier hand-off in a fraction P of the schedules)
//
// Exit status 1 on any disagreement or internal error; 2 on an unknown
// option or a number that does not parse (one error line).
#include <cstdio>
#include <iostream>
#include <string>

#include "bench/bench_util.h"
#include "encoder/testing/z3_differential.h"

using namespace cake::encoder;
using cake::bench::parseNumber;

static int run(int argc, char** argv) {
  int n = 1000;
  uint64_t seed = 1;
  bool verbose = false;
  double budget = 0;
  int pos = 0;
  Z3BmcOptions bo;
  RandomScheduleOptions ro;
  bo.limits.timeout_ms = 60000;
  std::string engine = "bmc";
  bool po_bit_vectors = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--verbose") verbose = true;
    else if (a == "--po-bit-vectors") po_bit_vectors = true;
    else if (a.rfind("--timeout-ms=", 0) == 0)
      bo.limits.timeout_ms = parseNumber<unsigned>(a.substr(13), "--timeout-ms");
    else if (a.rfind("--engine=", 0) == 0) engine = a.substr(9);
    else if (a.rfind("--budget-s=", 0) == 0)
      budget = parseNumber<double>(a.substr(11), "--budget-s");
    else if (a.rfind("--max-trips=", 0) == 0)
      ro.max_trips = parseNumber<int>(a.substr(12), "--max-trips");
    else if (a.rfind("--max-stages=", 0) == 0)
      ro.max_stages = parseNumber<int>(a.substr(13), "--max-stages");
    else if (a.rfind("--max-consumers=", 0) == 0)
      ro.max_consumers = parseNumber<int>(a.substr(16), "--max-consumers");
    else if (a.rfind("--named-rate=", 0) == 0)
      ro.named_rate = parseNumber<double>(a.substr(13), "--named-rate");
    else {
      cake::bench::rejectUnknownOption(a);
      if (pos == 0)
        n = parseNumber<int>(a, "N");
      else if (pos == 1)
        seed = parseNumber<uint64_t>(a, "SEED");
      else
        throw std::runtime_error("one argument too many: " + a);
      ++pos;
    }
  }
  if (engine != "bmc" && engine != "po") throw std::runtime_error("--engine must be bmc or po, not '" + engine + "'");
  PoOptions po;
  po.limits = bo.limits;
  po.bit_vectors = po_bit_vectors;
  DiffEngine run = engine == "po" ? poEngine(po) : bmcEngine(bo);
  DiffStats st = runDifferential(seed, n, ro, run, &std::cout, verbose, budget);
  std::printf("differential seed=%llu: %d schedules, %d agree, %d disagree, %d undecided, %d not built, "
              "%d internal errors; %d pass in both\n",
              static_cast<unsigned long long>(seed), st.runs, st.agree, st.disagree, st.undecided, st.not_built,
              st.internal_errors, st.passing);
  std::printf("rules found by both:");
  for (const auto& [r, k] : st.rules) std::printf(" %s=%d", r.c_str(), k);
  std::printf("\nz3-%s time per schedule: median %.3f s, max %.3f s; simulator max %.4f s; total %.1f s\n",
              engine.c_str(), st.bmc_median, st.bmc_max, st.sim_max, st.seconds);
  std::printf("%d passed, %d failed\n", st.agree, st.disagree + st.internal_errors);
  return st.disagree + st.internal_errors > 0 ? 1 : 0;
}

int main(int argc, char** argv) {
  return cake::bench::guardedMain(argv[0], [&] { return run(argc, argv); });
}
