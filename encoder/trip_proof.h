// The proof for every trip count: "lap induction" over a schedule whose
// loops run a symbolic number of times (docs/z3.md "Proofs for every trip
// count" gives the argument in full).
//
// The bounded check (checks/model_check.cpp) explores the flat system for a
// covering set of parameter values. This engine covers *every* value of the
// one expression that bounds the schedule's symbolic loops (e.g.
// `k_tiles = lm.cdiv(K, 64)`), T >= t0, in one finite exploration:
//
//  1. The schedule must read its parameters only through that expression E
//     (loops bounded by E + constant), or read parameters whose allowed
//     values the lm.assume facts limit to a few (tile sizes: BK in {32, 64}):
//     those are listed by the solver and the proof below runs once per
//     value, with the value fixed. Then the system for trip count T is,
//     per process, prefix . steady iterations B_lo ... B_(T+c-1) . exit_T,
//     where the steady iterations do not depend on T (checked: the systems
//     built for T = t0..W agree instruction by instruction up to where they
//     part, at iteration T + c; every read of E outside loop bounds is
//     proved to stay put or repeat with the period).
//  2. A period P is found such that B_(v+P) is B_v shifted: the same
//     instructions, every slot's phases moved by the same amount, every
//     view's indices and generations likewise (checked for v >= w0, and
//     proved beyond the window for every expression the body evaluates);
//     the exit paths exit_T and exit_(T-P) likewise (checked for T >= j0).
//  3. One explicit-state exploration runs the unrolled window with T left
//     open: at a loop head a process either enters the iteration (then T is
//     larger) or leaves the loop for suffix_T (then T is fixed). Its runs are
//     exactly the runs of the systems for all T >= t1. Every state in which
//     all processes are past the warm-up is moved back by one period
//     (program counters, completed-phase counts, named-barrier generations,
//     data tags, async work, T): shifted states behave alike, so the
//     exploration is finite. It must meet no violation of the simulator's
//     rules: that is what the bounded check decides too (the per-phase
//     counts as annotated are only candidates there, docs/semantics.md).
//     A state with the trip count open is also checked as it is for every
//     trip count beyond the exits it offers (all loop heads entered): a
//     deadlock there is one. Trip counts t0 <= T < t1 (where the body is
//     not yet the steady one) are explored one by one.
//
// The trip counts covered are T >= t0, t0 shown by interval reasoning or
// the solver, or, for a count that may be negative, every T when the reads
// of E outside the loop bounds give the same value for every T below the
// smallest loop start (no iteration runs there).
//
// Everything the engine cannot establish makes it answer Unknown with the
// reason; it never answers Proved on a guess.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "encoder/engine.h"
#include "encoder/system.h"
#include "encoder/system_hook.h"
#include "ir/schedule.h"

namespace cake::encoder {
namespace trip {
struct ReadMeets;  // encoder/trip_restart.h
}

// TripProofOptions::ordinal_commits_from_work's default (3 s of work, the
// default budget: the K split's copy costs 2.2e9 units since the shift by
// part of the tile period moves named barriers, docs/z3.md "A named barrier
// in a shift by part of the tile period").
inline constexpr uint64_t kOrdinalCommitsFromWork = 3'000'000'000;

struct TripProofOptions {
  // The budget (encoder/proof_budget.h): `work` units (deterministic: what
  // decides; 0 = no cap), and `timeout_ms` of wall clock, the safety limit.
  uint64_t work = 0;
  unsigned timeout_ms = 10000;
  unsigned memory_mb = 1024;
  // Z3's resource limit for each solver query (deterministic, unlike the
  // wall clock); 0 = none.
  uint64_t rlimit = 0;
  uint64_t max_states = 2000000;
  int max_period = 24;       // periods tried: 1..max_period iterations
  int first_window = 24;     // iterations unrolled at first; doubled while too few
  int max_window = 192;
  // Start the window at the least width the period search can use (4
  // iterations from the loop's start) and widen it while too small, up to
  // the width above; a window narrower than twice the largest stage count
  // is taken only where its systems show every view index's naming (stages
  // or iterations) settled for every larger trip count (docs/z3.md
  // "session 34, helper mstates"). Set for a tile loop whose inner loops are
  // unrolled value by value, whose every iteration runs many ring
  // iterations: 2 * stages + 8 of them would be tiles, not ring iterations.
  bool least_window = false;
  // The persistent proof tries the ring window of the stage bound (2 *
  // stages + 8 K iterations) first where it is narrower than first_window,
  // taking only its proof (docs/z3.md "A narrower first ring window for the
  // persistent proof"); false starts at the usual window (tests that measure
  // what another option saves at that window).
  bool narrow_ring_window = true;
  // The persistent proof's tile period search asks the grid with the reads
  // every copy renames left out even where the exact search finds a
  // period, and takes it where its tile shift starts earlier (docs/z3.md
  // "The tile period of the renamed reads first"); false asks it only where
  // the exact search finds none (tests that compare the two).
  bool renamed_period_first = true;
  bool reduce = true;        // persistent-set reduction (sim_por.h) with the cycle proviso
  // Loops no barrier paces (encoder/trip_pace.h, docs/z3.md "Loops no
  // barrier paces"): the loop steps of processes ahead of a free one behind
  // them are held back; false explores them (tests compare the two).
  bool pace_free_loops = true;
  // With the pacer on: a free step (what the others may still access cut at
  // the barriers they cannot pass without its process) explored alone, and
  // rule 1 with those cut footprints (docs/z3.md "The pacer's free step
  // alone"); off: the pacer of session 22 (tests compare the two).
  bool pace_alone = true;
  // Persistent kernels whose tiles do different things to TMEM by their
  // index: the window's tiles run one after another on the ring, refused on
  // any hazard mark (checkConsecutiveTileHazards); false leaves the
  // exploration alone to meet such a bug (tests of the exploration).
  bool consecutive_tile_run = true;
  // Persistent kernels: K trip counts below this are explored one by one
  // (every tile of that length), the rest in one exploration whose tiles
  // each run at least this many iterations (docs/z3.md "Short tiles one by
  // one"). 0: the ring's warm-up plus its period, plus 1; 1: one exploration.
  int64_t persistent_split = 0;
  // Persistent kernels: the explorations of one grid share its layout (the
  // model and the reducer's tables, docs/z3.md "One layout for every tile
  // length"); false builds it for each (tests compare the two).
  bool share_layout = true;
  // Persistent kernels: the reducer keeps the persistent sets of every
  // state key it met (docs/z3.md "Persistent sets kept for every key");
  // false keeps those of the last key only (tests compare the two).
  bool memo_sets = true;
  // Persistent kernels: two processes the exploration cannot tell apart
  // (the same combined program up to a permutation of the atoms each
  // accesses alone, docs/z3.md "Interchangeable processes") are explored
  // once per unordered pair of their states; false explores both orders
  // (tests compare the two).
  bool symmetry = true;
  // Lap induction (one symbolic loop): the same for the lap exploration
  // (docs/z3.md "Interchangeable processes in lap induction"): DeepGEMM's
  // two math warpgroups of one CTA; false explores both orders (tests
  // compare the two).
  bool lap_symmetry = true;
  // Persistent kernels: a tile shift by part of the tile period that
  // permutes processes (ping-pong's consumers, each running every other
  // tile: docs/z3.md "A shift by one tile that permutes the processes");
  // false shifts by whole tile periods only (tests compare the two).
  bool half_shift = true;
  // Persistent kernels with two tile loops merged (two kinds of tile):
  // successors whose kinds no single boundary of the first loop gives are
  // dropped (docs/z3.md "Kinds in tile order"); false offers either kind
  // for every tile (tests compare the two).
  bool kinds_in_order = true;
  // Persistent kernels, where that shift is found: shifts of the ring
  // positions back by dx < the ring period, tiles and processes kept, the
  // ring's slots and stages rotated (docs/z3.md "Ring shifts by part of the
  // ring period"), each where the checks allow it; false: none (tests
  // compare the two).
  bool half_shift_ring = true;
  // Persistent kernels of a modelled cluster whose processes all run every
  // tile (with half_shift): those ring shifts searched there too, every
  // named barrier (the cluster barrier) kept and each slot in its CTA
  // (docs/z3.md "Ring rotations in a cluster"); false: none there (tests
  // compare the two).
  bool cluster_ring = true;
  // Persistent kernels: the reducer's windows go on past a wait only where
  // its own phase can complete (the completed count ph + 1: any other pass
  // is sync.stale-phase, which ends the run), as they do in cluster proofs
  // (docs/z3.md "Windows that stop at a wait's own phase"); false: past every
  // wait whose parity can pass (tests compare the two).
  bool phase_windows = true;
  // Persistent kernels: among the persistent sets the reducer computes, the
  // seeds whose step is local (its footprint lies in atoms no other process
  // accesses: a consumer's epilogue into its own staging buffer) are tried
  // first, so that such a step runs alone before the others move (docs/z3.md
  // "Local steps first"); false: seeds in process order (tests compare the two).
  bool local_first = true;
  // Persistent kernels: a block end whose resolution narrows none of the
  // unknowns in the state (the tile count's lower bound already past the
  // next tile, the tile's end already fixed) leaves the unknowns out of its
  // step's footprint and its window's first stretch (docs/z3.md "Settled
  // resolutions"); false: every block end writes them (tests compare the two).
  bool settled_resolutions = true;
  // Persistent kernels: a process that skips tiles and has a part after the
  // K loop per ring end (`lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)`)
  // keeps a copy per ring end only up to its last instruction that differs
  // between the copies; the rest is one copy per tile, which no ring shift
  // moves (docs/z3.md "One tail for the parts after the K loop"); false: a
  // whole copy per ring end (tests compare the two).
  bool merge_post_tails = true;
  // Persistent kernels whose grid repeats only at ring positions a run
  // reaches (a ring index minus the tile index, `iter=g - t - 1`): the
  // periods searched at x >= w0 + t of tile t and the shifts kept there
  // (docs/z3.md "A ring index minus the tile index"); false: the plain
  // search only (main's answer, for measurements).
  bool sloped_periods = true;
  // Lap induction of a modelled cluster whose CTAs share nothing but the
  // cluster barrier (and that barrier moves by no generation per period):
  // each CTA keeps its own trip count and is shifted a period back on its
  // own (docs/z3.md "Independent CTAs"); false shifts all CTAs together
  // (tests compare the two).
  bool cta_shift = true;
  // Lap induction of one CTA: the cycle proviso checked on the explored
  // graph (as for clusters: a depth-first search's back edges expanded
  // fully) instead of "every successor of a reduced state is new", which
  // completes every state where runs of different orders meet again
  // (docs/z3.md "The lap exploration's proviso and heads below the trip
  // count's bound"); false: fresh successors only (tests compare the two).
  bool checked_proviso = true;
  // Lap induction: the reducer's windows take a process's exit paths, and a
  // step into an iteration touches the trip count, only at a head where the
  // process may still leave its loop (its iteration at least the trip
  // count's lower bound, or the fixed trip count's last head; the same
  // docs/z3.md section); false: at every head, as before (tests compare the two).
  bool exits_from_bound = true;
  // A process of a persistent kernel that skips tiles (the K split's copy,
  // docs/z3.md "A tile's K range split between processes") and commits MMA
  // groups that arrive on a barrier is explored (its completions numbered
  // in issue order: docs/z3.md "Commit ordinals in issue order") only where
  // the proof's work budget is capped at this many units or more (0:
  // always; a budget without a cap: only with 0). Such explorations cost
  // about 2.2e9 units (the K split corpus file; 5.4e9 before session 38),
  // so they run at the default 3e9: below it they are refused before the
  // exploration, in the time the refusal took before they were built.
  uint64_t ordinal_commits_from_work = kOrdinalCommitsFromWork;
  // Parameters read besides the trip expression (tile sizes as parameters)
  // are proved value by value when the lm.assume facts allow at most this
  // many assignments of them.
  size_t max_fixed_values = 32;
  // More such assignments, up to this many, when the parameters are
  // bounded: listed, each one's window built and checked, and explored only
  // when no earlier one's window equals it up to sizes (docs/z3.md
  // "Parameters read only in sizes"). At most max_fixed_values: off.
  size_t max_equivalent_values = 1024;
  // What a read means in every system the proof builds (encoder/system_hook.h):
  // the bounded check's (caps on) by default; caps off for the restart
  // argument's one-tile proof (docs/z3.md "The restart form, checked on the
  // text; reads without the caps", "Reads without the caps in the proof").
  BuildSemantics build;
  // The restart argument's record of the writers each read meets
  // (encoder/trip_restart.h ReadMeets): when set, every exploration of the
  // proof records into it (the lap exploration every read it takes, a trip
  // count explored one by one one run of it), and one that cannot record
  // (a persistent grid's) says so in it. Null: nothing recorded.
  trip::ReadMeets* meets = nullptr;
};

// `checked`: the bindings the bounded check used (their parameter values
// give the smallest trip count worth proving from; one of them supplies
// block_idx / grid_dim). Returns Proved (engine: the argument, in one
// line), Unknown with the reason, or Violation when the simulator's rules
// are broken on the way: one violation whose binding is checked.front()
// with the trip expression replaced by the trip count it was met at
// (Binding::replace; for one met while the trip count was still open, the
// least trip count it allows), without a trace. The caller confirms it on
// concrete parameter values (checks/model_check.cpp).
// The copy of a schedule whose processes split every persistent tile's K
// iterations at one point h (over [0, h) and [h, E_B)) in which each tile
// is two tiles of one K loop `lm.range(0, Q)` each (Q a parameter added
// last): docs/z3.md "A tile's K range split between processes". At a
// binding with E_B = 2 * Q (so h = Q) it runs the schedule's operations
// (what tests check); nullptr where the schedule has not that shape.
std::shared_ptr<const ir::Schedule> kSplitTilesCopy(const ir::Schedule& s);

ModelCheckResult proveEveryTripCount(const ir::Schedule& s, ir::Target target, const std::vector<Binding>& checked,
                                     const TripProofOptions& opts = {});

}  // namespace cake::encoder
