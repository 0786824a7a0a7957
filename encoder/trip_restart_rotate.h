// A slice loop whose cut is its last top-level lm.sync (Marlin's shape,
// docs/z3.md "The cut after H: a slice loop rotated onto the restart form"):
// every role runs `pre ; for s in lm.range(0, N): H(s) ; S ; T(s)`, where S
// is an unguarded lm.sync of a barrier of every role and T(s) touches only
// registers and global memory. The grouped form (trip_restart.h) has its cut
// first (`for t: S ; T(t)`, nothing before or after the loop); this check
// reduces Marlin's shape to it by a rotation whose argument is stated below
// and in the docs, and calls restartForm on the rotated text. Like
// restartForm, it is a structural check; proveByRestart (trip_proof.cpp)
// asks it when restartForm fails (docs/z3.md "Marlin's slice loop proved").
#pragma once

#include <set>
#include <string>

#include "encoder/trip_restart.h"
#include "ir/schedule.h"

namespace cake::encoder::trip {

// Whether the schedule has Marlin's shape and meets the restart form's
// text conditions once rotated:
//  * every role's program is `pre ; for s in lm.range(0, N): body`, nothing
//    after the loop; S is the last top-level statement of the body that is
//    an lm.sync (so it is unguarded and outside every inner loop), H the
//    statements before it, T those after it;
//  * T holds only copies, fills and unary / binary / reduction ops whose
//    every operand is a register fragment, a global tensor or a literal,
//    under guards that read nothing but lm.instance() and constants (no
//    loop, no barrier, no async op, no shared or tensor memory), and no
//    global tensor of T whose accesses the model compares (one the CTA
//    both reads and writes) is touched by H or pre in any role (T(s) and
//    H(s + 1) are unordered);
//  * the rotated text `for s: S ; H(s) ; T(s)` meets restartForm (C1: S's
//    barrier names every role, the same N everywhere; C2: quiescence, the
//    last cp.async of the body drained before the cut; C3: s read only in
//    global coordinates);
//  * pre is empty in every role, or in every role ends with an unguarded
//    lm.sync of the cut's barrier and holds no other named-barrier op, and
//    meets C2 on its own (its cp.async drained before that sync).
// Why the rotation is sound: docs/z3.md (the section named above). In
// short: each process runs the same non-sync operations in the same order
// in both texts (H(0) T(0) H(1) T(1) ...); the cuts of the schedule's runs
// (the releases of S) split them into segments pre H(0) | T(s) H(s+1) |
// T(N-1), and a middle segment differs from the first only by T's
// operations, which order nothing and conflict with nothing the model
// compares (registers are a process's own, global memory is not modelled),
// and by the state at its start (registers, data tags, and the barriers'
// generations, which grow by a K-dependent count per slice; the simulator
// reads a generation only against a waiting process's own, so the offset
// changes nothing: TripRestartRotate.GenerationOffsetAtTheCutChangesNothing).
// Why pre may hold no other barrier op: a one-slice run that ends cleanly
// has every participant sync each barrier equally often (each lm.sync
// generation takes one arrival of every participant), which equates pre +
// H per process, not H alone; with pre's count fixed at one, every slice's
// S is one generation in every process (TripRestartRotate's pairing form).
// On success the reduction's text is the rotated one: every role's
// program `for s in lm.range(0, N): S ; H(s) ; T(s)` (pre dropped; it is
// checked on its own), its form restartForm of it, `tail` false.
RestartReduction rotatedRestartForm(const ir::Schedule& s);

// T's condition alone for one role's statements: "" when every statement
// touches only registers and global memory under instance-only guards,
// else why not (with the line).
std::string registersAndGlobalOnly(const ir::Schedule& s, const ir::Block& tail);

// The global tensors a block's ops name (operands of kind Param).
std::set<int> globalTensors(const ir::Block& b);

}  // namespace cake::encoder::trip
