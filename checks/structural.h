// Structural checks: facts about a schedule's shape — slot indices in
// range, barriers used in their declared direction, and declared-but-unused
// resources. Solver-free, except for stage= indices that depend on symbolic
// loop bounds, guards or parameters: those are proved with Z3 bit-vectors
// (encoder/bv_prover.h).
#pragma once

#include <span>
#include <vector>

#include "checks/check.h"
#include "ir/diagnostic.h"
#include "ir/schedule.h"

namespace cake::checks {

// `verdicts` (when given) receives a struct.slot-out-of-range verdict when a
// stage= index needed the prover: proved, counterexample, or unknown.
void runStructuralChecks(const ir::Schedule& s, ir::DiagnosticSink& sink, const CheckOptions& opts = {},
                         std::vector<PropertyVerdict>* verdicts = nullptr);
std::span<const ir::RuleInfo> structuralRules();

}  // namespace cake::checks
