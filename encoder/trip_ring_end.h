// The last tiles' parts after the K loop per ring end (docs/z3.md "The last
// tiles' parts per ring end", helper fa4z, session 43; obstacle 4 of FA4's
// correction warpgroup). A persistent kernel whose part after the K loop
// reads the tile's ring end (`lm.wait(o_done, iter=t * n + n - 1)`) gets a
// copy of that part per ring end (encoder/trip_proof.cpp postsByRingEnd);
// one that also reads the tile count (`if t + 2 < T:`) runs, in its last
// tiles, the last tiles' grids' parts (PGrid::last). trip_proof.cpp's
// lastPostsByRingEnd builds the last tiles' grids of tiles of every length
// and takes their parts after the K loop as the last tiles' copies per ring
// end; this file holds what it asks of each such part.
#pragma once

#include <functional>
#include <vector>

#include "encoder/system.h"

namespace cake::encoder::trip {

// How a part's text at one ring end compares with the same part at another
// (the same tile of grids that differ in their tiles' length only).
enum class PartDiff {
  Same,            // instruction by instruction (`same`)
  SlotsAndPhases,  // but for its operations' mbarrier slots, phases and iter= values
  More,            // otherwise; *differs: the offset of the first difference (or the shorter length)
};

// at[a0, a1) against ref[b0, b1).
PartDiff comparePartAtRingEnd(const std::vector<Instr>& at, int a0, int a1, const std::vector<Instr>& ref, int b0,
                              int b1, const std::function<bool(const Instr&, const Instr&)>& same,
                              int* differs = nullptr);

// Whether the text evaluates `in`'s mbarrier slot and phase (iter=, or
// stage= with phase=): then they are functions of the expressions the
// operation reads, which a ring end evaluates; a counted phase (the
// process's earlier operations on the slot) is history.
bool evaluatesSlotAndPhase(const Instr& in);

// at[a0, a1) against ref[b0, b1) as comparePartAtRingEnd, but where only
// operations whose slot and phase the text evaluates may differ in them (a
// counted phase that differs is More): a part after the K loop of a tile
// that starts at ring position x > 0 (its ring end x + Wg) against the same
// part at ring start 0 (lastTilesAtRingStart).
PartDiff compareEvaluatedAtRingEnd(const std::vector<Instr>& at, int a0, int a1, const std::vector<Instr>& ref, int b0,
                                   int b1, const std::function<bool(const Instr&, const Instr&)>& same,
                                   int* differs = nullptr);

}  // namespace cake::encoder::trip
