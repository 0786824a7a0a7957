// A per-tile table read one slice per K iteration, widened to its slot for
// the persistent proof (docs/z3.md "A table read one slice per K iteration,
// widened to its slot", helper dg5, session 36): DeepGEMM's B-scale row
// `smem_sfb[t]`, written before the K loop and read at column `k * 2 + s`,
// a byte range that moves with the K loop's variable and not with the ring
// index, so lap induction has no text for it (checkTileExprs: "is not a
// function of the ring index").
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "encoder/z3_engine.h"
#include "ir/schedule.h"

namespace cake::encoder::trip {

// The copy of `s` in which every read that qualifies (below) is widened:
// an op `O` of a role (a copy, unary or binary op into registers) reads
// `V[X][slices]` inside loops l_j..l_n (l_j the outermost whose variable
// the slices read), and
//  1. X reads no variable of l_j..l_n, and takes a different value at every
//     iteration of the loops around l_j (the solver proves X(u) != X(u')
//     for u before u', lexicographically): each run of l_j reads its own
//     index of V;
//  2. exactly one dimension's slice reads the variables of l_j..l_n, every
//     dimension before it has extent 1 in the view, and the slice's range
//     at an iteration ends at or before its start at every later iteration
//     of the same run (solver, l_j..l_n with constant positive steps):
//     the bounding byte ranges of the run's reads are disjoint;
//  3. no other op of the role names V except to write it (copy, fill,
//     unary or binary destination, TMA or cp.async load), and none of
//     those lies inside l_j.
// Then every execution of O by a process reads bytes of its index that the
// process never read before and has not written since it first read them,
// so the builder gives it generation 0 (Builder::tag / countReturns: no
// return, no read-back; resolveReads only lowers a generation to a cap >= 0).
// The copy reads the whole slot instead, into a fresh fragment (`W`, placed
// where O was, and moved before every `if` of which it is then the first
// statement, inside l_n), and O reads that fragment in place of the slice.
// Every rule finds at least as much on the copy (docs/z3.md says why: more
// bytes meet more writes; a read's stale verdict only grows with its
// generation, which is >= 0 on the copy and 0 on the schedule; W's extra
// runs before an untaken `if` only add accesses), so a proof of the copy
// is one of the schedule. nullopt when no read qualifies.
struct WidenedReads {
  std::shared_ptr<ir::Schedule> s;
  std::string text;  // what was widened, for the engine line
};
std::optional<WidenedReads> widenTableReads(const ir::Schedule& s, const Limits& limits);

}  // namespace cake::encoder::trip
