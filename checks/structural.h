// Structural checks: cheap, solver-free facts about a schedule's shape —
// slot indices in range, barriers used in their declared direction, and
// declared-but-unused resources.
#pragma once

#include <span>

#include "ir/diagnostic.h"
#include "ir/schedule.h"

namespace cake::checks {

void runStructuralChecks(const ir::Schedule& s, ir::DiagnosticSink& sink);
std::span<const ir::RuleInfo> structuralRules();

}  // namespace cake::checks
