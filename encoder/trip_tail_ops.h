// Operations a tile's last K iterations may leave out although they carry
// counters (docs/z3.md "Stages without data at a tile's end", helper dg4,
// session 35): DeepGEMM's tail stages, where the last stage of a tile whose
// K blocks do not fill its stages arrives on `full` without bytes instead of
// loading, and the math warpgroups skip the MMA, its commit and the scale
// reads. encoder/trip_proof.cpp's tailIterationsAt asks these of every
// operation in which such an iteration differs from the grid's.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "encoder/system.h"

namespace cake::encoder::trip {

// One K iteration of the grid as built: process, tile, ring position and
// its program range [a, b).
struct KIteration {
  int proc = -1;
  int64_t tile = 0, pos = 0;
  int a = 0, b = 0;
};

// The views whose every access in `raw` names an index that no other ring
// position's K iteration, and nothing outside the K iterations, accesses,
// in every run of the schedule (ringPositionViews in trip_tail_ops.cpp says
// why the checks below give "every run"): each access of the view lies in a
// K iteration of `iters` (a process none of whose accesses of the view lies
// outside them), names an iteration (not stage-like), the index ranges of
// consecutive ring positions are strictly increasing, every access moves by
// one amount each ring period `Pg` from the warm-up `w0g` on (the window
// holds a period past it), and no access through another view (or none)
// meets the view's bytes. The builder then counts a generation, a read's
// returns and a re-read of such an access over its own K iteration alone.
std::set<int> ringPositionViews(const System& raw, const std::vector<KIteration>& iters, int64_t Wg, int64_t Pg,
                                int64_t w0g);

// Does no process commit an MMA group that arrives on an mbarrier? Then the
// numbers of the MMA commits are read by nothing (the simulator reads them
// for such a commit's completion only), and a K iteration may commit fewer.
bool mmaCommitNumbersUnread(const System& sys);

// Are the numbers of role `role`'s MMA commits read for their order alone?
// Where the role never waits for its MMA groups (no lm.mma_wait in its
// body, whatever a build evaluates) the simulator reads them in observe
// (max and <=) and at exit (what is left), never as a count: the one
// reader of the count is lm.mma_wait (sim knowCompleted, commits_before).
// Then numbers that grow along every run may skip values (docs/z3.md "MMA
// commits left out near a tile's end").
bool mmaCommitNumbersReadInOrder(const ir::Schedule& s, int role);

// May a tile's last K iteration leave out `in` (an operation of the grid's
// iteration there, built in `sys`) although it carries counters? Its mbarrier
// slot and phase, if any, are named by iter= (evaluated from the text, no
// counter), it is no mbarrier or named-barrier wait (a wait moves the read
// markers of every later read: Builder::wait), an MMA commit only where
// `commit_numbers_free` (its process's commit numbers are read by nothing,
// mmaCommitNumbersUnread, or in order alone, mmaCommitNumbersReadInOrder;
// the layout then checks that a copy commits no more groups than the
// grid's iteration), and each access is one of a register fragment of
// `free_regs` (pathFreeRegs), of a view of `ring_views`, or, for an MMA
// where `tmem_runs_checked`, of TMEM (the builder derives nothing from a
// TMEM access but the hazard marks of one run, markTmemHazards; the caller
// then checks the true runs of every tile length for them: docs/z3.md "An
// MMA into TMEM left out near a tile's end"), or, for an MMA where
// `reads_checked`, a read of any shared-memory view (what it leaves behind
// is its process's read epoch of the view index; the caller then checks
// that no later read means otherwise without it: docs/z3.md "Left-out MMA
// reads near a tile's end", leftOutReadsChangeNoRead).
struct LeftOutChecks {
  bool tmem_runs = false;  // the true runs' TMEM hazards (checkTailTmemRuns)
  bool reads = false;      // the later reads' meaning (leftOutReadsChangeNoRead)
};
bool leavableWithCounters(const Instr& in, const System& sys, const std::set<int>& free_regs,
                          const std::set<int>& ring_views, bool commit_numbers_free, LeftOutChecks checked);

// Is `a` (an access of `in`, built in `sys`) a read of a shared-memory view
// that leavableWithCounters takes only with LeftOutChecks::reads (an MMA's
// read of a view outside `ring_views`)?
bool leftOutReadToCheck(const Instr& in, const Access& a, const System& sys, const std::set<int>& ring_views);

// Is `in` an MMA with an access in TMEM? counterFree and leavesOnlyTextCounters
// never leave one out; leavableWithCounters only with its other accesses
// in ring-position views, path-free fragments or reads of views.
bool mmaOnTmem(const Instr& in, const System& sys);

// The first mbarrier slot of which a tile's last K iteration keeps some
// operations and leaves out others: `grid` is the grid's program, [a, b)
// its K iteration, kept[q - a] whether the copy keeps grid[q]. With
// `tx_only` only TMA loads and expect_tx count (the builder adds a batch's
// bytes to its first expect_tx, Builder::derivedExpect: a batch left out in
// part changes the bytes of one kept); else every operation on a slot (the
// left-out waits' argument, docs/z3.md "Left-out waits, explored without
// the reduction"). -1: none.
int slotLeftOutInPart(const std::vector<Instr>& grid, int a, int b, const std::vector<char>& kept, bool tx_only);

// May a tile's last K iteration add `in` (an operation the grid's iteration
// there does not run)? An mbarrier arrival with no access whose slot and
// phase iter= names (DeepGEMM's arrival on `full` without bytes).
bool addableArrival(const Instr& in);

}  // namespace cake::encoder::trip
