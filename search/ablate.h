// `cake tune --ablate RUN...`: the harness-value ablation, computed from
// recorded results only (no new measurements):
//   (a) with gates: GPU runs and GPU seconds spent on broken candidates that
//       reached the GPU (verified, yet wrong / hang / crash) and the hangs;
//   (b) without gates: the same figures for the rejected and unknown
//       candidates, when the run measured them (`--ungated`), watchdog
//       time included;
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

struct GateArm {
  int runs = 0, broken = 0, hangs = 0;
  double seconds = 0, broken_seconds = 0;
};

struct ModelArm {
  bool exhaustive = false;          // every verified candidate measured ok or not
  int verified = 0, measured = 0, good = 0;   // good: within 2% of the best
  int runs_model = 0;               // in predicted (rank) order
  int runs_enumeration = 0;         // in enumeration order
  double runs_random = 0;           // expected, random order: (n + 1) / (good + 1)
  bool top3_has_best = false;
  int best_rank = 0;
};

struct Ablation {
  std::string run;
  GateArm gated, ungated;
  ModelArm model;
};

Ablation ablate(const std::string& run_name, const std::vector<Record>& records, double within = 0.02);
// The table (markdown) for several runs, with the top-3 rate over the exhaustive ones.
std::string ablationTable(const std::vector<Ablation>& runs);

}  // namespace cake::search
