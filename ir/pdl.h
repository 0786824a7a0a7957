// Whether a schedule is launched with programmatic dependent launch. Defined
// in schedule.cpp; one predicate for the lowering's launcher and the split-K
// binding (runner/), which must agree on it.
#pragma once

#include "ir/schedule.h"

namespace cake::ir {

// Launched with cudaLaunchAttributeProgrammaticStreamSerialization: the
// schedule names a grid dependency or runs lm.grid_dep_wait() or
// lm.launch_dependents(), so it may start while the previous grid in its
// stream still runs.
bool launchesWithPdl(const Schedule& s);

}  // namespace cake::ir
