// Which engine decides the synchronization of one System in `cake check`
// (--engine explicit|z3|both): the explicit-state explorer
// (encoder/simulator.h), the Z3 partial-order engine (encoder/z3_po.h), or
// both, which must then report the same rules (when the explicit search
// was cut by its budget, some of Z3's, and the result is Z3's). A disagreement (or a Z3 trace
// the simulator does not replay) is an internal error with both engines'
// traces, never a finding and never a pass.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "checks/check.h"
#include "encoder/engine.h"
#include "encoder/simulator.h"

namespace cake::checks {

std::optional<SyncEngine> parseSyncEngine(std::string_view name);
std::string_view syncEngineName(SyncEngine e);

struct SyncRun {
  encoder::ModelCheckResult result;
  std::string internal_error;  // non-empty: the engines disagree (both traces inside)
};

// `eo` is what the explicit engine would get alone (its time budget is also
// the Z3 engine's). `known`: the rules the schedule was already reported
// broken with (on smaller bindings); the Z3 engine alone then looks only for
// other rules (encoder::PoOptions::known), each of its queries within
// `z3_rlimit` Z3 resource units when that is not 0. The explicit engine and
// `both` decide the binding in full either way.
SyncRun runSyncEngine(const encoder::System& sys, SyncEngine engine, const encoder::ExploreOptions& eo,
                      const std::set<std::string>& known = {}, uint64_t z3_rlimit = 0);

}  // namespace cake::checks
