// `cake dispatch`: one kernel library whose entry point picks a tuned kernel
// by shape.
//
// The shape domain is declared before tuning (a value set per dimension;
// the domain is their product). A seeded permutation of the domain gives the
// training shards (tuned, one run folder each) and, disjoint from them, the
// evaluation shards (never tuned on): the reported speed is the geometric
// mean over the evaluation shards only. The permutation uses its own
// generator (SplitMix64), so the shards are the same on every platform.
//
// The library is generated C++: every distinct winner lowered into its own
// namespace (lowering's namespace_name), a host-only selector header
// (nearest training shard in log2(M, N, K), ties to the lower index) and
// the runner's kernel ABI (cake_gemm_launch ...) as the entry point. It
// needs CUDA and nothing from cake at run time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/runner.h"
#include "search/spec.h"
#include "search/tune.h"

namespace cake::search {

struct ShapeDomain {
  std::vector<int64_t> M, N, K;
  size_t size() const { return M.size() * N.size() * K.size(); }
};

struct DispatchSpec {
  std::string tune_spec;         // the tune spec (template, choices); its shape is replaced per shard
  ShapeDomain domain;
  int train = 4, eval = 4;
  uint64_t seed = 1;
};
std::optional<DispatchSpec> loadDispatchSpec(const std::string& path, std::string* error);

struct Shards {
  std::vector<runner::Shape> train, eval;
};
// Deterministic and disjoint; nullopt + error when the domain is too small.
std::optional<Shards> makeShards(const DispatchSpec& spec, std::string* error);

// One kernel of the library and the training shards it won.
struct Winner {
  std::string id;                // candidate id
  std::string source_path;       // its .cake
  runner::Shape shard;           // the training shard it won
  double ms = 0;
};

// The selector header: `int cake_dispatch_select(long long M, long long N, long long K)`
// returning the index of the kernel for the nearest training shard.
std::string selectorHeader(const std::vector<Winner>& winners, std::vector<int>* kernel_of_shard,
                           std::vector<std::string>* kernels);
// The same choice, computed here (the test compares it with the compiled header).
int selectShard(const std::vector<runner::Shape>& shards, const runner::Shape& s);

// The whole library (.cu): the kernels, the selector, the ABI entry point.
// nullopt + error when a winner does not lower.
std::optional<std::string> dispatchLibrary(const std::vector<Winner>& winners, std::string* error);

// The geometric mean of cuBLAS time / dispatcher time over measured shards
// (> 1: faster than cuBLAS). nullopt when nothing is measured ok.
std::optional<double> geomeanSpeedup(const std::vector<nlohmann::json>& measurements);

}  // namespace cake::search

namespace cake::search {

// `cake dispatch SPEC -o DIR`, one step per call, resumable:
//   1. DIR/shards.json: the training and evaluation shards;
//   2. per training shard a tune run DIR/train-<i> (verdicts shared with
//      train-0, predictions per shape); its measurement batch, when one is
//      needed, in DIR/train-<i>/batch (run it on the device with
//      `cake tune --run-batch`, the next call ingests it);
//   3. once every shard has a measured winner: DIR/dispatch.cu (the library),
//      DIR/dispatch_select.h (its selector, host C++) and the evaluation batch
//      DIR/eval (the library at every unseen shard);
//   4. once DIR/eval/results.jsonl exists: the geometric mean speed-up over
//      cuBLAS on the unseen shards.
// Returns the summary text (also DIR/dispatch_report.md).
struct DispatchStep {
  std::string text;
  std::vector<std::string> pending_batches;   // batch folders waiting for the device
  bool library = false;                        // dispatch.cu written
  std::optional<double> eval_geomean;
};
std::optional<DispatchStep> dispatchStep(const DispatchSpec& ds, const std::string& dir, int jobs,
                                         const Estimator& estimator,
                                         std::string* error);

}  // namespace cake::search
