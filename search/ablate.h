// `cake tune --ablate RUN...`: the harness-value ablation, computed from
// recorded results only (no new measurements):
//   (a) with gates: GPU runs and GPU seconds spent on broken candidates that
//       reached the GPU (verified, yet wrong / hang / crash) and the hangs;
//   (b) without gates: the same figures for every candidate, the rejected
//       and unknown ones too, when the run measured them (`--ungated`),
//       watchdog time included;
//   (c) with vs. without the cost model, on runs where every verified
//       candidate was measured (an exhaustive sweep): GPU runs needed to
//       reach a candidate within 2% of the measured best in predicted order,
//       in enumeration order and in expectation for a random order, and
//       whether the model's top 3 holds the measured best.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "search/record.h"

namespace cake::search {

// GPU runs of one arm. A run is a measurement that reached the GPU (the
// kernel compiled and the harness ran it); a candidate recorded without one
// (lower_error, unsupported_shape, no_oracle, compile_error) costs none.
struct GateArm {
  int runs = 0;
  int broken = 0, hangs = 0;        // wrong / hang / crash (hangs: killed by the watchdog)
  int failed = 0;                   // other failures on the GPU (launch_error, cuda_error, ...)
  int ok = 0;                       // ran and matched the oracle
  double seconds = 0;               // wall time of the runs, watchdog time included
  double broken_seconds = 0;        // ... of the broken and failed runs
};

struct ModelArm {
  bool exhaustive = false;          // every verified candidate measured ok or not
  int verified = 0, measured = 0, good = 0;   // good: within 2% of the best
  int runs_model = 0;               // in predicted (rank) order
  int runs_enumeration = 0;         // in enumeration order
  double runs_random = 0;           // expected, random order: (n + 1) / (good + 1)
  bool top3_has_best = false;
  bool top3_has_good = false;       // a candidate within 2% among the top 3 predicted
  int best_rank = 0;
};

struct Ablation {
  std::string run;
  // (a) the verified candidates; (b) every candidate, the gate's
  // rejections too (only when the run measured them, `--ungated`)
  GateArm gated, ungated;
  int rejected = 0, rejected_measured = 0;   // rejected/unknown candidates; of them measured
  ModelArm model;
};

Ablation ablate(const std::string& run_name, const std::vector<Record>& records, double within = 0.02);
// The table (markdown) for several runs, with the top-3 rate over the exhaustive ones.
std::string ablationTable(const std::vector<Ablation>& runs);

}  // namespace cake::search
