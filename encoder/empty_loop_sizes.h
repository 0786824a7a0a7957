// The problem sizes a proof's build stands for at a loop that the replaced
// expression (Binding::replace, the proof's trip count) leaves empty.
// docs/semantics.md "data.uninitialized": an empty loop counts as writing
// its body only where a parameter its bounds read is zero or negative. A
// proof's binding holds stand-in values for the replaced expression's
// parameters, so the builder cannot tell from them: a count of 0 from
// lm.cdiv(K, 64) is K <= 0 (degenerate), one of 0 from lm.cdiv(K, 64) - 1
// is K = 1..64 (positive sizes: the loop writes nothing). The proof's
// builds (trip_cluster.cpp buildForProof) say which, per value, after
// asking the lm.assume facts (trip_proof.cpp); docs/z3.md "Soundness
// review, session 33". Private to the encoder: system.cpp,
// trip_cluster.cpp and trip_proof.cpp.
#pragma once

#include <cstdint>
#include <functional>

#include "ir/schedule.h"

namespace cake::encoder {

enum class EmptyLoopSizes {
  Undecided,   // not known: the loop writes nothing, and the build says so
  Degenerate,  // every binding with the value has a parameter of it <= 0
  Positive,    // none has
};

// What one build of a proof stands for at the loops the replaced
// expression leaves empty, and what it met there: an argument of
// buildSystemHooked (system_hook.h), given by buildForProof; a build
// without one (every other) counts such a loop as writing nothing.
struct ReplacedEmptyLoops {
  EmptyLoopSizes sizes = EmptyLoopSizes::Undecided;
  bool undecided_met = false;  // the build left a loop empty with sizes Undecided
};

// The proof's question (trip_proof.cpp proveWithin): the sizes of the
// bindings the facts allow with the expression at the value. Given to its
// builds with their semantics (trip_cluster.h ScopedProofSemantics).
using EmptyLoopSizesAsk = std::function<EmptyLoopSizes(const ir::Schedule&, const ir::Expr&, int64_t)>;

}  // namespace cake::encoder
