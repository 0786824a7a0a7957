// Strided accesses where the engines' atoms cannot follow them
// (encoder/sim_state.cpp).
#pragma once

#include "encoder/system.h"

namespace cake::encoder::sim {

// A strided access (Access::runs > 1) covers an interval of the Model's
// atoms when its space's atom classes are numbered by first byte; in a
// space where some access meets its classes out of order (atomClasses then
// merges only adjacent bytes: an epilogue staging tile aliasing a
// pipeline's slots, read by column band), its classes are not an interval.
// There, every strided access becomes one access per run, with the same
// fields (the same semantics; buildSystem calls this last).
void splitStridedAccesses(System& sys);

}  // namespace cake::encoder::sim
