// The last tiles' parts after the K loop per ring end: what is asked of one
// part (trip_ring_end.h; the argument in docs/z3.md "The last tiles' parts
// per ring end").
#include "encoder/trip_ring_end.h"

#include <algorithm>

namespace cake::encoder::trip {

PartDiff comparePartAtRingEnd(const std::vector<Instr>& at, int a0, int a1, const std::vector<Instr>& ref, int b0,
                              int b1, const std::function<bool(const Instr&, const Instr&)>& same, int* differs) {
  PartDiff out = PartDiff::Same;
  const int n = std::min(a1 - a0, b1 - b0);
  for (int i = 0; i < n; ++i) {
    const Instr& r = ref[b0 + i];
    if (same(at[a0 + i], r)) continue;
    // (the fields a ring end evaluates; the iter= value only messages read)
    Instr x = at[a0 + i];
    x.slot = r.slot;
    x.phase = r.phase;
    x.iteration = r.iteration;
    if (!same(x, r)) {
      if (differs) *differs = i;
      return PartDiff::More;
    }
    out = PartDiff::SlotsAndPhases;
  }
  if (a1 - a0 != b1 - b0) {
    if (differs) *differs = n;
    return PartDiff::More;
  }
  return out;
}

bool evaluatesSlotAndPhase(const Instr& in) {
  return in.slot >= 0 && in.stmt &&
         (in.stmt->op.sel.mode == ir::SlotSel::Mode::Iter || in.stmt->op.sel.phase != nullptr);
}

PartDiff compareEvaluatedAtRingEnd(const std::vector<Instr>& at, int a0, int a1, const std::vector<Instr>& ref, int b0,
                                   int b1, const std::function<bool(const Instr&, const Instr&)>& same,
                                   int* differs) {
  const int n = std::min(a1 - a0, b1 - b0);
  for (int i = 0; i < n; ++i) {
    const Instr &x = at[a0 + i], &r = ref[b0 + i];
    if (same(x, r)) continue;
    if (!evaluatesSlotAndPhase(x) || !evaluatesSlotAndPhase(r)) {
      if (differs) *differs = i;
      return PartDiff::More;
    }
  }
  // (what is left: those slots, phases and iter= values, asked as before)
  return comparePartAtRingEnd(at, a0, a1, ref, b0, b1, same, differs);
}

}  // namespace cake::encoder::trip
