// Private per-instance loops collapsed to one iteration (docs/z3.md
// "Per-instance trip counts of private loops", helper inst41, session 41).
//
// A symbolic loop whose bound E reads lm.instance() in a role of several
// instances runs its own trip count per instance, which the lap induction
// (one trip count T for every process) refuses (docs/z3.md "A symbolic
// bound that reads the instance"). Where the loop is *private* - its body
// touches only its own process's register fragments and reads global
// tensors no op of the schedule writes - the number of its iterations past
// the first changes nothing any rule sees (the argument in docs/z3.md):
// every iteration does the same register accesses, which no other process
// meets, and a register's state after them is the state after one of
// them. Such a loop `for v in lm.range(c, E, s)` (c and s > 0 constants)
// is rewritten to
//
//     if E > c:
//         for v in lm.range(c, c + 1):
//             body
//
// (the first iteration alone, where there is one). The copy reads E only in
// a guard, which the proofs take per instance; its proof is one of the
// schedule. Nothing else is rewritten: a loop with a barrier, a shared or
// tensor-memory access, an asynchronous op, a global store, a read of a
// tensor the schedule writes, a nested loop, or a register slice that moves
// with the loop variable keeps its refusal.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "ir/schedule.h"

namespace cake::encoder::trip {

struct CollapsedLoops {
  std::shared_ptr<ir::Schedule> s;  // the copy
  std::string text;                 // the argument in words, with the loops' lines
};

// The copy with every private per-instance loop collapsed; nullopt when the
// schedule has none.
std::optional<CollapsedLoops> collapsePrivateInstanceLoops(const ir::Schedule& s);

// "" when the loop `loop` (a For statement) is private in the sense above,
// else why not (with the line). `rw`: the tensors the schedule reads and
// writes (encoder::readAndWrittenTensors).
std::string privateLoopBody(const ir::Schedule& s, const ir::Stmt& loop, const std::set<int>& rw);

}  // namespace cake::encoder::trip
