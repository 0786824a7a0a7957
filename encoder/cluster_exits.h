// Whether a process's exit can complete a generation of the cluster
// barrier (docs/semantics.md "Clusters", helper two50, session 50).
#pragma once

#include "encoder/system.h"
#include "ir/schedule.h"

namespace cake::encoder {

// lm.cluster_sync() somewhere, and not the same number of them as
// top-level statements of every role (a role without a body runs none).
// Where every role runs the same n at its top level, each process passes n
// generations before it exits, so no generation is ever waited on after a
// process exits and counting the exits changes nothing; elsewhere (a role
// that leaves without the trailing barrier, one under a loop or an `if`)
// it may: barrier.cluster waits only for the non-exited threads (PTX ISA).
bool clusterExitsMatter(const ir::Schedule& s);

// The same for a built system (false without a cluster barrier).
bool clusterExitsMatter(const System& sys);

}  // namespace cake::encoder
