// The tune spec: which template, which choices over which values, which
// workload, how many candidates to measure. Read from a small JSON file
// (docs/search.md) or built from `cake tune` flags; both go through the
// same value syntax (parseValues).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/runner.h"
#include "workload/workload.h"

namespace cake::search {

// One tunable choice: an `LM.i32` parameter of the template and the values
// it may take. Values outside the template's `lm.assume` constraints are
// excluded before anything else runs.
struct Choice {
  std::string name;
  std::vector<int64_t> values;
};

// The workload contract a candidate is measured on (workload/workload.h:
// gemm, kmeans-assign, attention-fwd, row-sum, row-max): its kind and
// sizes. The runner checks each against the contract's oracle and times
// the contract's baseline (cuBLAS for GEMM).
struct Workload {
  workload::Shape shape{workload::Kind::Gemm, {{"M", 4096}, {"N", 4096}, {"K", 4096}}};
  std::string kind() const { return std::string(workload::kindName(shape.kind)); }
  std::string text() const { return shape.text(); }   // "M=4096,N=4096,K=4096"
};
std::string shapeText(const runner::Shape& s);   // "M=4096,N=4096,K=4096"
workload::Shape gemmShape(const runner::Shape& s);

struct TuneSpec {
  std::string template_path;          // .cake file whose LM.i32 choices are tuned
  std::string schedule;               // schedule name when the file holds several
  std::vector<Choice> choices;        // the grid (empty with only mutation mode)
  std::vector<std::string> mutate;    // accepted schedules whose mutants are candidates
  Workload workload;
  std::string baseline;               // optional .cake measured beside the candidates
  int top_k = 8;                      // measured per run (<= 0: every verified candidate)
  int batch = 32;                     // measurements per device call (--emit-batch)
  double calibration_error = 0.25;    // |predicted - measured| / measured above this -> calibration set
  double timeout_s = 20;              // watchdog per measurement
  int runs = 20;                      // timed runs per measurement (median)
  uint64_t seed = 1;                  // input data seed (same inputs for every candidate)
};

// Value syntax shared by the spec file and `--param NAME=VALUES`:
//   "64,128,256"   a list
//   "2..7"         every integer from 2 to 7
//   "64..256:64"   64, 128, 192, 256 (step)
//   "32..256*2"    32, 64, 128, 256 (geometric)
// Sorted, without repeats. nullopt and `error` on anything else.
std::optional<std::vector<int64_t>> parseValues(std::string_view text, std::string* error);

// "BN=64..256:64" -> Choice.
std::optional<Choice> parseChoice(std::string_view text, std::string* error);

// Reads a spec from JSON. Relative paths are resolved against `base_dir`
// (the spec file's folder). nullopt and a located `error` on bad input.
std::optional<TuneSpec> specFromJson(const nlohmann::json& j, const std::string& base_dir, std::string* error);
std::optional<TuneSpec> loadSpec(const std::string& path, std::string* error);

}  // namespace cake::search
