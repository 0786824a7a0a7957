// runner: compile a lowered kernel with nvcc, run it in the harness under a
// watchdog, and collect the evidence record (correctness against cuBLAS,
// CUPTI timings). Everything CUDA happens in child processes: a kernel that
// hangs is killed with its process and reported as result "hang".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/schedule.h"
#include "workload/workload.h"

namespace cake::runner {

struct Shape {
  int64_t M = 0, N = 0, K = 0;
};
// "M=4096,N=4096,K=4096" (any order, ',' or ' ' separated; also "4096x4096x4096").
std::optional<Shape> parseShape(std::string_view text, std::string* error = nullptr);

struct Options {
  std::string nvcc;          // empty: $CAKE_NVCC, else the toolkit found at build time, else "nvcc"
  std::string harness;       // cake_harness binary; empty: $CAKE_HARNESS, else built from source (cached)
  std::string work_dir;      // where .cu/.so/logs go; empty: a fresh directory under $TMPDIR
  double compile_timeout_s = 300;
  double run_timeout_s = 120; // the watchdog: a run that takes longer is a "hang"
  int runs = 50, warmup = 5;
  bool time = true, baseline = true;
  std::optional<uint64_t> seed;      // empty: fresh random inputs
  std::optional<bool> verified;      // what `cake check` said; copied into the record
  std::vector<std::string> nvcc_flags;  // extra flags
  std::map<std::string, int64_t> sets;  // values of i32 parameters the workload does not size (--set)
  bool dry_run = false;  // runLibrary / runWorkloadLibrary: result "dry_run", detail = the harness arguments
};

struct Result {
  // ok | wrong | hang | crash | lower_error | no_oracle | compile_error |
  // load_error | launch_error | cuda_error | unsupported_shape | no_gpu | error
  // (no_oracle: the schedule lowers but is not a GEMM, the only problem the
  // harness can check; `cake run` exits 2 with the detail)
  std::string result = "error";
  std::optional<bool> verified;
  bool compiled = false;
  bool correct = false;
  double rel_error = -1, median_ms = -1, tflops = -1, baseline_ms = -1, ratio = -1;
  std::string kernel, target;
  Shape shape;
  std::string workload = "gemm";
  std::map<std::string, int64_t> dims;  // the workload's sizes; empty: shape (M, N, K)
  std::string detail;            // error message / log tail
  std::string so_path, cu_path;  // artifacts
  nlohmann::json harness;        // the harness's own JSON line, if any
};

nlohmann::json toJson(const Result& r);

// nvcc -gencode flags for a target: sm_90a -> compute_90a/sm_90a,
// sm_80 -> compute_80 as sm_80 and sm_90 machine code (so it also runs on
// Hopper), sm_100a -> compute_100a/sm_100a.
std::vector<std::string> archFlags(ir::Target t);

// Is there a GPU to run on (a /dev/nvidia0 and a working harness start)?
bool gpuAvailable();

// Compiles `cu_path` into a shared library `so_path` that exports the cake
// kernel ABI (abi/cake_abi.h). Sets compiled / result / detail.
Result compile(const std::string& cu_path, ir::Target target, const std::string& so_path,
               const Options& opts);

// Runs a compiled kernel library in the harness under the watchdog.
Result runLibrary(const std::string& so_path, const Shape& shape, const Options& opts);

// Writes `cuda_source` into the work dir, compiles and runs it.
Result runSource(const std::string& cuda_source, std::string_view name, ir::Target target,
                 const Shape& shape, const Options& opts);

// Lowers the schedule (lowering::lowerToCuda) and runs it: `cake run`.
Result run(const ir::Schedule& schedule, const Shape& shape, const Options& opts);

// `cake run --workload W --shape ...`: binds the schedule to the workload's
// contract (workload::bind: "unsupported_shape" / "no_oracle" before any GPU
// work), lowers it (GEMM through cake_gemm_launch, the others through the
// generic cake_launch), compiles, and runs the harness with the contract's
// oracle and baseline. One evidence record schema for every workload.
Result runWorkload(const ir::Schedule& schedule, const workload::Shape& shape, const Options& opts);

// Runs a built kernel library for a bound workload (the harness arguments
// from the binding).
Result runWorkloadLibrary(const std::string& so_path, const ir::Schedule& schedule, const workload::Binding& b,
                          const Options& opts);

// Split-K GEMM in two kernels (`cake run --split-k S`): the partial schedule
// (tensors A, B and the f32 workspace W[S, M, N]; the SplitKPartial contract)
// writes the product of K slice z into W[z]; the reduce schedule (W, C;
// SplitKReduce) sums W over S into C. Both are bound to the shape (their
// assumptions, grids and the coverage of every tensor, W included: a partial
// kernel that leaves a slice of W unwritten is unsupported_shape), launched
// one after the other in every run and timed together; the GEMM oracle checks C.
struct SplitKBinding {
  workload::Binding partial, reduce;
  int64_t splits = 0;
};
struct SplitKBindResult {
  // ok | unsupported_shape | no_oracle | unordered_workspace (a reduce kernel launched with
  // programmatic dependent launch that does not name W in lm.grid_dependency)
  std::string result = "ok";
  std::string detail;
  std::optional<SplitKBinding> binding;
};
SplitKBindResult bindSplitK(const ir::Schedule& partial, const ir::Schedule& reduce, const Shape& shape,
                            int64_t splits, const std::map<std::string, int64_t>& sets = {});
// The harness arguments of a bound split-K pair after `--kernel PARTIAL.so
// --reduce REDUCE.so`: --split, --m/--n/--k, each kernel's parameters in order.
std::vector<std::string> splitKHarnessArgs(const ir::Schedule& partial, const ir::Schedule& reduce,
                                           const SplitKBinding& b);
// Runs two built libraries (opts.dry_run: result "dry_run", detail = the arguments).
Result runSplitKLibraries(const std::string& partial_so, const std::string& reduce_so, const ir::Schedule& partial,
                          const ir::Schedule& reduce, const SplitKBinding& b, const Options& opts);
// Binds, lowers both (generic cake_launch), compiles and runs them
// (opts.dry_run: the binding only, detail = the splitKHarnessArgs).
Result runSplitK(const ir::Schedule& partial, const ir::Schedule& reduce, const Shape& shape, int64_t splits,
                 const Options& opts);

// Path of the harness binary to use, building it if needed ("" + error on failure).
std::string harnessPath(const Options& opts, std::string* error);
std::string nvccPath(const Options& opts);

}  // namespace cake::runner
