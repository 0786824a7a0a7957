// An outer loop that restarts the ring per tile (docs/z3.md "An outer loop
// that restarts the ring", "The restart form, checked on the text"): the
// text conditions C1-C3, and C4 in its empty-`H` form, under which the runs
// of the N-tile system cut, at the release of the tile's first CTA-wide
// sync, into segments that are each a run of the one-tile system. This is
// the structural half of the restart argument; the data half (what a
// read's generation grows by per tile against what the data it meets
// grows by) is ReadMeets and restartReadBacks below. proveEveryTripCount
// (trip_proof.cpp proveByRestart) uses them all: docs/z3.md "The writer
// each read meets; read-backs once per tile; the restart argument wired".
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ir/schedule.h"

namespace cake::encoder {
struct System;
}
namespace cake::encoder::sim {
class Model;
struct State;
}  // namespace cake::encoder::sim

namespace cake::encoder::trip {

struct RestartForm {
  bool ok = false;
  std::string reason;        // why not, when !ok (for "proof: unknown (...)")
  int tile_var = -1;         // the tile loop's variable in every role
  const ir::Expr* count = nullptr;  // N: the tile loop's bound (the same in every role)
  int barrier = -1;          // the named barrier of the cut
};

// A schedule reduced onto the restart form: Marlin's slice loop rotated at
// its last lm.sync (trip_restart_rotate.h) or a tile loop with register and
// global code before its cut and after the loop (trip_restart_head.h). Both
// reductions give a text whose runs are not the schedule's; restartForm's
// text conditions (C1-C3), restartRegisters and restartReadBacks are asked
// of it, and the one-tile proof of the schedule as written stands for it
// (docs/z3.md, the sections those headers name).
struct RestartReduction {
  bool ok = false;
  std::string reason;  // why not, when !ok (for "proof: unknown (...)")
  // every role's program `for t in lm.range(0, N): S ; ...`, the cut S first
  // and nothing before or after the loop
  ir::Schedule text;
  RestartForm form;   // restartForm(text): the cut's barrier, N, the tile variable
  bool tail = false;  // some role runs code after its tile loop (the headed form's Q; then the
                      // zero-tile system runs code: proveByRestart proves it)
};

// A refusal of a restart check (RestartForm or RestartReduction) with its
// reason.
template <class Check>
Check refusedRestart(std::string why) {
  Check c;
  c.reason = std::move(why);
  return c;
}

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

// The tile count N (a parameter) in the schedule as written: the one-tile
// proof is of the schedule with N fixed to 1 (an lm.assume fact), so a
// segment of an N-tile run is a run of that system only where nothing but
// the tile loops' bounds reads N (C1 for the count, as C3 for the tile
// variable): no guard, inner bound, slot, slice, view offset or shape, and
// no code after the tile loop. A read in the global coordinates of a tensor
// the model does not compare is allowed (it places no box the model
// compares, as for the tile variable). "" when so, else why not (docs/z3.md
// "Session 53 (helper restart53)").
std::string restartCountReads(const ir::Schedule& s, int count);

// The facts half of the same: the lm.assume facts of the one-tile proof
// (docs/z3.md "Session 53 (helper restart53)"). A run of N >= 1 tiles with
// the other symbols at `o` is N one-tile runs with `o`, so the one-tile
// proof must cover every `o` that the schedule's facts allow with some
// N >= 1. Its facts: every fact that does not read N as it is; of a fact
// that reads N, its instance at N = 1 where `follows(instance)` (the
// prover: the facts and N >= 1 imply it, so it drops no such `o`), and
// nothing where not (dropping a fact only adds values to cover). So a lower
// bound N >= c with c <= 1, an upper bound N <= u with u >= 1, N <= M or
// 64 * N <= K keep their instance; N >= 2, N % 2 == 0 or K == 64 * N are
// dropped, and the one-tile proof covers every K.
struct OneTileFacts {
  std::vector<ir::Assume> assumes;  // without N == 1, which the caller adds
  ir::ExprPtr at_one;               // the conjunction of the instances kept (nullptr: none)
  std::vector<int> dropped;         // the lines of the facts dropped
};
OneTileFacts oneTileFacts(const ir::Schedule& s, int count, const std::function<bool(const ir::ExprPtr&)>& follows);

// The name of role `role` of s ("a role" where it names none).
std::string restartRoleName(const ir::Schedule& s, int role);

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
// Read-backs (docs/z3.md "Reads without the caps in the proof", "The
// writer each read meets; read-backs once per tile", "Marlin's slice loop
// proved: read-backs per instance"): a read of a view index by a process that
// wrote it since its last read of it means max(its epoch, its own write's
// generation) (system.cpp tag), and a process that writes an index and
// reads it in every tile reads it fresh in the first tile and back from the
// second on. The restart argument admits a role that writes a view it also
// reads only where, per instance (a process), every op touching the view
// lies in the tile body outside every loop, under guards that read nothing
// but lm.instance() and constants (fixed per instance and per tile, so
// decided per instance), names an index that is a constant once the
// instance is fixed, and does not accumulate into it; and per index the
// instance both writes and reads, it writes it once and reads it once per
// tile, in either order. Then its own write's generation at the read of
// tile t is t (write first) or t - 1 (read first), never above the read's
// returns (t), so every generation the read means, capped or not, is at
// most its returns, t = 0 + t * 1, and in tile 0 it means exactly its
// returns (no own write before its first read): the last-read rule's
// bound (ReadMeets) holds with e = 1.
// Returns "" when every read-back has that form, else why not.
std::string restartReadBacks(const ir::Schedule& s);

std::string restartRegisters(const ir::Schedule& s, const std::function<bool(const ir::ExprPtr&)>& atLeastOnce);

// The writer each read meets (docs/z3.md "The writer each read meets;
// read-backs once per tile", what is left 1 of "Reads without the caps in
// the proof"). Cut at the releases of the tile's first sync, a run of the
// N-tile system is N runs of the one-tile system; with the caps off a
// write's generation in tile t is gen_0 + t * c (c: its process's writes
// per tile of the index over bytes that overlap its own) and a read's
// gen_0 + t * e (e: its process's last generation of the index in a tile,
// plus one). Tile t is no stricter than tile 0 (staleData: gen(w) <
// gen(r)) where c >= e for every pair that meets. If the reader's *last*
// read of the index in the tile meets a write of a key (process, space,
// view, index, exact byte range), the clean one-tile proof gives
// c - 1 >= that write's generation >= that read's = e - 1. So the rule:
// the last read of each (process, view, index) meets every key that any
// read of it meets. In a run without a race the write a read meets on an
// atom is fixed by the order the barriers give, so any explored run of a
// trip count records its pairs; the lap exploration records them for
// every trip count (a shift by whole periods keeps every key, checked).
struct ReadMeets {
  using Reader = std::tuple<int, int, int64_t>;  // (process, view, index)
  // (process, space, view, index, lo, hi, runs, stride)
  using Writer = std::tuple<int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t>;
  std::map<Reader, std::set<Writer>> met;              // by any read
  std::set<std::pair<Reader, std::set<Writer>>> last;  // by each read that may be the last of its index
  uint64_t explorations = 0;                           // explorations that recorded
  std::map<int, std::string> names;                    // process -> its name
  std::string refused;  // the first reason the record cannot stand ("": none)
};

// Records the writers that process p's instruction at pc meets in state s
// (before it runs): per view read, the writes of other processes its atoms
// hold. `may_be_last`: whether this read may be p's last of the index in
// the tile (true where unsure: the rule is then stronger). A pair that is
// not stage-like on both sides (an iteration-named access compares index
// and generation, or laps that do not grow per tile) refuses the record.
void recordMeets(ReadMeets& rec, const sim::Model& m, const sim::State& s, int p, int pc, bool may_be_last);

// One run of a straight-line system (a trip count explored one by one),
// every read recorded, its last read of each index marked. Returns "" or
// why the run did not end (the exploration that proved the system then
// has the answer).
std::string recordMeetsOfOneRun(const System& sys, ReadMeets& rec);

// The last-read rule over a record: "" when it holds, else the first
// (reader, view, index) whose last read misses a writer key.
std::string lastReadRule(const ir::Schedule& s, const ReadMeets& rec);

}  // namespace cake::encoder::trip
