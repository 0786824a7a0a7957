// Invariant inference for proofs for every parameter value (the fallback
// when Spacer gives up): candidate linear facts mined from explicit runs of
// the STS for small parameter values, filtered by Houdini (drop every
// candidate that some transition from the conjunction breaks, until the
// conjunction is inductive), then checked to exclude every bad state.
// Every step is a Z3 query with the parameters symbolic, so a "proved" is a
// proof (an inductive invariant that excludes the bads), whatever the
// samples were.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "encoder/z3_sts.h"

namespace cake::encoder::z3w {

struct HoudiniOptions {
  Limits limits;                          // timeout_ms caps the whole run
  std::vector<std::vector<int64_t>> sample_params;  // parameter values to sample with
  size_t max_states = 200000;             // per sample run
  // derived integer terms to relate (e.g. S * completed[s] + s), besides
  // the integer state variables and the parameters
  std::vector<z3::expr> terms;
  // variables whose values condition candidates (program counters, slots)
  std::vector<int> guards;
};

struct HoudiniResult {
  Answer answer = Answer::Error;   // Correct: proved; FailedToProve: no
                                   // inductive invariant found that excludes
                                   // the bads (reason says which bad)
  std::string reason;
  std::optional<z3::expr> invariant;  // the inductive conjunction found (also when it
                                      // does not exclude every bad: a hint for Spacer)
  size_t candidates = 0, kept = 0, states = 0;
  int rounds = 0;
  double seconds = 0;
};

HoudiniResult houdini(const Sts& sts, const HoudiniOptions& opts);

}  // namespace cake::encoder::z3w
