// Layout and hardware-contract gates, and the resource report.
//
// Per target (sm_80, sm_90a, sm_100a; an exact match), static checks of the
// declarations and op operands against the target's contracts: shared-memory
// views inside their pools, alignment and per-block limits; TMA box rules;
// MMA shapes, dtypes, operand locations, swizzle and issuing warpgroups;
// TMEM column ranges; warp roles and register budgets; features of another
// generation. Every quantity may depend on the schedule's LM.i32
// parameters: each check is a quantifier-free bit-vector formula proved by
// Z3 for every parameter value the schedule's lm.assume facts allow, or the
// finding carries concrete parameter values that break it.
//
// See docs/rules/<id>.md for each rule and docs/resource-report.md for the
// resource report (rule `report.resources`).
#pragma once

#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/check.h"
#include "ir/diagnostic.h"
#include "ir/schedule.h"

namespace cake::checks {

// Runs every layout / hardware gate on `s` and appends findings to `sink`.
// The target is opts.target, or the schedule's own when that is
// Unspecified; with neither, target-specific gates are skipped and one
// note-severity finding (`target.unspecified`) says so.
// `resources` receives the resource report (the same JSON as the
// `report.resources` finding's data); `verdicts` gets one entry per rule
// that had something to check (proved / counterexample / unknown).
void runLayoutGates(const ir::Schedule& s, const CheckOptions& opts, ir::DiagnosticSink& sink,
                    nlohmann::json& resources, std::vector<PropertyVerdict>& verdicts);

// The gates' rules (layout.*, tma.*, mma.*, tmem.*, roles.*, regs.*,
// target.*, report.*): their part of ir/rules.def.
inline std::span<const ir::RuleInfo> layoutRules() { return ir::rulesOf(ir::RuleOwner::Gates); }

}  // namespace cake::checks
