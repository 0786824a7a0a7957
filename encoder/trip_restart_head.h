// A tile loop whose tile opens with register and global-memory code before
// its cut, and may be followed by such code (docs/z3.md "Session 52
// (helper nested52)"): every role runs `for t in lm.range(0, N): P(t) ; S ;
// B(t)` and then Q, where S is the tile body's first top-level statement
// that is an lm.sync and P and Q touch only registers and global memory the
// model does not compare (IREE's prefetch: the global load of the next
// tile's first operand before the barrier that guards its store to LDS,
// and the result's store after the loop). The restart form
// (trip_restart.h) has its cut first and nothing after the loop; this check
// reduces the headed form to it, and proveByRestart (trip_proof.cpp) asks it
// when neither restartForm nor rotatedRestartForm holds.
#pragma once

#include <string>

#include "encoder/trip_restart.h"
#include "ir/schedule.h"

namespace cake::encoder::trip {

// Whether every role's program is its tile loop followed by Q, nothing
// before the loop; P (the tile body before its first top-level lm.sync) and
// Q hold only copies, fills and unary / binary / reduction ops on registers,
// global tensors and literals, under guards that read nothing but
// lm.instance() and constants (trip::registersAndGlobalOnly), and touch no
// global tensor the CTA both reads and writes; and the text above meets
// restartForm. Why it is sound (docs/z3.md, the section named above): P's
// and Q's ops touch nothing another process touches and no barrier, so
// they commute with every op of every other process; at the release of
// S(t) every process has run P(t) and stands after S, as in the one-tile
// system after its release; the segment up to the release of S(t + 1)
// holds B(t) of every process and, of segment t + 1, only P(t + 1) (which
// commutes) and arrivals at S(t + 1) (which the plain form's segments hold
// too). Q follows the last tile in program order and reads register state
// that every tile leaves alike.
// On success the reduction's text is every role's program `for t in
// lm.range(0, N): S ; P(t) ; B(t)` (Q dropped), its form restartForm of it,
// and `tail` says some role runs Q.
RestartReduction headedRestartForm(const ir::Schedule& s);

}  // namespace cake::encoder::trip
