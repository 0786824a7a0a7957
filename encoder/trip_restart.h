// An outer loop that restarts the ring per tile (docs/z3.md "An outer loop
// that restarts the ring", "The restart form, checked on the text"): the
// text conditions C1-C3, and C4 in its empty-`H` form, under which the runs
// of the N-tile system cut, at the release of the tile's first CTA-wide
// sync, into segments that are each a run of the one-tile system. This is
// the structural half of the restart argument; the data half (what a
// read's generation grows by per tile against what the data it meets
// grows by) is not built, and the proof does not use this check yet.
#pragma once

#include <functional>
#include <string>

#include "ir/schedule.h"

namespace cake::encoder::trip {

struct RestartForm {
  bool ok = false;
  std::string reason;        // why not, when !ok (for "proof: unknown (...)")
  int tile_var = -1;         // the tile loop's variable in every role
  const ir::Expr* count = nullptr;  // N: the tile loop's bound (the same in every role)
  int barrier = -1;          // the named barrier of the cut
};

// Whether every role's program is `for t in lm.range(0, N): lm.sync(bar) ;
// T(t)` with nothing before or after the loop, and
//  * C1 (the cut): the same N in every role (it reads no loop variable and
//    no lm.instance()), every role has exactly this one body, `bar` names
//    every role, and the sync is the tile body's first statement;
//  * C2 (quiescence): the schedule declares no mbarrier, no grid
//    dependency, and no op but cp.async with its commit and wait, lm.sync,
//    proxy fences, compute ops and (on sm_80) synchronous MMAs: no TMA,
//    mbarrier, arrive-only named barrier, MMA group, tcgen05, cluster or
//    griddepcontrol op; and the tile body's last top-level statement that
//    holds a cp.async or a commit is followed by a top-level
//    lm.cp_async_wait(pending=0);
//  * C3 (text): the tile variable is read only in the coordinates of an op
//    whose other operand is a global tensor (nowhere in a guard, a bound, a
//    stage or iteration, a view index or slice, pending=, init=, ...).
// The schedule's cluster must not be modelled (no cluster ops).
RestartForm restartForm(const ir::Schedule& s);

// The register part of the restart argument (docs/z3.md "Registers at the
// cut"). The register rules are decided while the system is built, over
// the whole unrolled program: data.uninitialized on what the process wrote
// so far (it only grows, so a later tile reports no more than the first),
// data.stale-accumulator on what it stored out of registers and has not
// overwritten since (state that a tile hands the next). A loop with
// problem-size bounds that runs no iteration counts as writing the
// fragments its body writes (system.cpp markSkippedRegsWrites): then a read
// of them in the first tile is no finding, while a later tile reads what
// the previous one left (an accumulator summed onto the stored result:
// data.stale-accumulator from the second tile only). Without such a loop
// every register read of the first tile finds a write of its own tile,
// and from that write on the register state of every tile is the first
// tile's. So: every loop in a tile body whose body writes a register
// fragment must run at least once for every allowed parameter value (the
// tile loop itself excepted: nothing follows it).
// `atLeastOnce(goal)`: whether `goal` (an integer expression, true when
// non-zero) holds for every allowed assignment (BvProver). Returns "" when
// it holds, else why not.
// Read-backs (docs/z3.md "Reads without the caps in the proof"): a read of
// a view index by a process that wrote it since its last read of it means
// max(its returns, its own write's generation) (system.cpp tag), and a
// process that writes an index before reading it in every tile reads it
// fresh in the first tile and back from the second on. Neither the affine
// growth per tile nor "clean uncapped implies clean capped" is argued for
// such reads, so the restart argument refuses a schedule where a role
// writes a view (an op's dst) that it also reads (a src). Returns "" when
// no role does, else which.
std::string restartReadBacks(const ir::Schedule& s);

std::string restartRegisters(const ir::Schedule& s, const std::function<bool(const ir::ExprPtr&)>& atLeastOnce);

}  // namespace cake::encoder::trip
