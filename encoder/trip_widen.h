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
//
// Where none qualifies as written, the same asked of the copy in which each
// one-stage table is named by its tile (docs/z3.md "A one-stage table named
// by its tile"): a view V of one stage, whose bytes no other view meets,
// named (bare or `V[0]`) by exactly two ops of one role:
//  a. one write (copy, fill, unary or binary into V) that is a statement of
//     the body of a loop L itself (no `if`, no loop between), L in no loop,
//     from 0 by 1, its slices reading no loop variable: each process that
//     runs L writes the same bytes once per iteration, so its write at
//     iteration t has generation t (Builder::tag counts its earlier writes
//     of index 0 over those bytes);
//  b. one read (copy, unary or binary into registers) inside L that reads
//     each byte at most once per iteration of L (condition 2 over the loops
//     inside L, or none): a read at iteration t means a generation <= t
//     (each byte's count grows by at most one per iteration: one return, or
//     a read-back to its own write's generation <= t; caps, re-reads and
//     splitByWrittenLaps only lower it).
// The copy names both `V[t]` (t: L's variable). A read the schedule finds
// stale (data generation < read generation <= t_read, the data written at
// t_write, so t_write < t_read) is stale in the copy (another index, or
// another lap where one side names stages); bytes, views and all other
// fields are unchanged, so every other rule finds the same. The text
// names both steps.
struct WidenedReads {
  std::shared_ptr<ir::Schedule> s;
  std::string text;  // what was widened, for the engine line
};
std::optional<WidenedReads> widenTableReads(const ir::Schedule& s, const Limits& limits);

// The copy with every one-stage table that qualifies (a, b above) named by
// its tile; nullopt when none does. (widenTableReads asks it; apart for
// the tests.)
std::optional<WidenedReads> nameTablesByTile(const ir::Schedule& s, const Limits& limits);

// No other view of the pool meets view `view`'s bytes (every view's offset
// and shape constants): every access of those bytes, read or write, is
// through the view itself (each smem access names its view, each pool of
// each CTA is a space of its own).
bool bytesItsOwn(const ir::Schedule& s, int view);

}  // namespace cake::encoder::trip
