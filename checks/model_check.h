// The model checker: sync.*, data.* and proxy.* rules.
//
// runModelChecker() picks a covering set of parameter values (trip counts
// 0, 1, S-1, S, S+1, 2S, 2S+1 for every pipeline depth S and for every
// constant beyond the depths of a periodic guard on the loop's variable,
// `if t % 8 != 5`; and the values the guards single out), builds the
// transition system for each (encoder/system.h), explores it exhaustively
// (encoder/simulator.h) and
// turns violations into findings with a replayed trace. A proof engine set
// through encoder::setProofEngine() is asked afterwards for "proved".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "checks/check.h"
#include "encoder/system.h"
#include "ir/diagnostic.h"
#include "ir/schedule.h"

namespace cake::checks {

void runModelChecker(const ir::Schedule& s, const CheckOptions& opts, ir::DiagnosticSink& sink,
                     std::vector<PropertyVerdict>& verdicts);

// The model checker's rules: their part of ir/rules.def.
inline std::span<const ir::RuleInfo> syncRules() { return ir::rulesOf(ir::RuleOwner::ModelChecker); }

// The parameter values the bounded check uses, smallest first; each
// satisfies every lm.assume. Exposed for tests and for the Z3 engine's
// differential tester.
std::vector<encoder::Binding> coveringBindings(const ir::Schedule& s);

// What a system does, hashed (instructions, slots, phases, accesses): the
// bounded check skips a binding whose system has the fingerprint of one it
// explored; the proofs' audit (gate/proof_audit.h) likewise.
uint64_t systemFingerprint(const encoder::System& sys);

}  // namespace cake::checks
