// What TMEM holds along a run: the accumulator hazards of tensor memory
// (data.uninitialized, data.stale-accumulator, data.discarded-product),
// decided when the system is built, like the register ones
// (encoder/system.cpp "Register fragments"), and reported by every engine
// when the instruction runs (Instr::regs_hazard). Internal to encoder/.
#pragma once

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "encoder/system.h"

namespace cake::encoder {

// What the builder knows and the system does not say.
struct TmemBuildFacts {
  // (process, pc) of the MMAs into TMEM whose init= is false or absent:
  // they add to what the columns hold
  std::set<std::pair<int, int>> accumulating;
  // TMEM columns [c0, c1) of `space` written by an op in the body of a loop
  // that ran no iteration because of a problem-size parameter: they count
  // as written (data.uninitialized's empty-loop decision, as for registers)
  struct Skipped {
    int space;
    int64_t c0, c1;
  };
  std::vector<Skipped> skipped;
};

// Follows one run of the system (the explicit-state engine's step function,
// always the first enabled step) and marks the instructions that meet a
// TMEM hazard on it. TMEM is shared by the roles, so what a column holds
// when an op reaches it depends on the order of the roles' accesses; in a
// run without a synchronization violation every two conflicting accesses
// are ordered by barriers (else sync.race), so that order, and with it each
// hazard, is the same on every run. The run stops at the first sync.*
// violation: what follows is not ordered, and that violation is reported.
// A TMEM hazard is an Instr::RegsHazard whose regs_space is the TMEM space
// and whose element is the first address (kTmemQuarterStride * quarter +
// column) of the columns it names; stored_at is the pc of the note's
// instruction in the program of the process that reads (stale) or wrote
// (discarded) those columns, which the engines find (sim_state.cpp
// tmemNoteProc). A discarded hazard with `stored` set lost a value a
// tcgen05.st or a copy staged there (not an MMA product): its note is a
// write of that kind.
void markTmemHazards(System& sys, const TmemBuildFacts& facts);

}  // namespace cake::encoder
