// buildSystem() with an evaluation hook, for the persistent-kernel proof
// (encoder/trip_proof.cpp): it builds a tile loop around a K loop with the
// K trip count and the tile's ring start chosen per tile, which no binding
// of the schedule's parameters expresses. Kept out of system.h: nothing
// else needs it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "encoder/system.h"

namespace cake::encoder {

// Asked first for every sub-expression the builder evaluates: a value
// replaces the sub-expression, nullopt evaluates it as usual.
using EvalHook = std::function<std::optional<int64_t>(const ir::Expr&, const ir::EvalEnv&)>;

// What a read means, where a proof needs it otherwise than the bounded
// check. cap_read_generations = false leaves out resolveReads' caps (a
// stage-like read's generation at most the highest lap another process
// writes over its bytes, an iteration-like read's at most the highest
// generation written of its index, and the per-byte-range pieces): every
// read then means what its own process counts (its returns to the index
// after a sync, max(epoch, own writes) on a read-back), at least its
// returns, and a read-back that covers the read means its own data
// (kOwnDataOnly: any other process's data there is stale). So every byte
// of a read means at least what any capped piece of it means, and since
// sim::staleData is monotone in a read's generation (stale iff the data is
// older: `lap(w) < lap(r)`, `gen(w) < gen(r)`; an iteration-like read
// against a stage-like write compares no read generation), a run clean
// with the caps off is clean with them (docs/z3.md "The empty tiles'
// copies read without the caps"; trip::capsOnlyLowerReads checks it on a
// pair of builds). For the restart argument
// (docs/z3.md "An outer loop that restarts the ring", condition (c): a
// one-tile proof must not pass only because the cap lowered what a read
// means, since a later tile's cap is higher).
struct BuildSemantics {
  bool cap_read_generations = true;
  // A proof's build (trip_cluster.cpp buildWithSizes): a global coordinate
  // whose block term every access of its tensor's dimension names
  // (block_coords.h) is placed with that term at 0 and without reading the
  // block index, where the rest is >= 0 (docs/z3.md "A block's own slice of
  // a read-and-written global tensor"). The bounded check's builds place it
  // where the binding's block puts it (its messages name real elements).
  bool translate_block_coords = false;
  // A proof's build too: the coordinates of a tensor whose accesses move
  // together with a loop value, and never share an element across loop
  // values (loop_coords.h), are placed with their loop term at 0 (docs/z3.md
  // "A global tensor's rows per loop iteration").
  bool translate_loop_coords = false;
  // A proof's build of true runs (trip_proof.cpp regsDecidedByTrueRuns):
  // each instruction records a digest of its process's register state just
  // before it (System::regs_digests), all the builder keeps to decide the
  // register hazards at later ops (docs/z3.md "Register hazards decided by
  // true runs").
  bool regs_digests = false;
};

struct ReplacedEmptyLoops;  // empty_loop_sizes.h

// An empty hook evaluates every expression as buildSystem does. `empty_loops`:
// a proof's build (trip_cluster.cpp buildForProof).
std::optional<System> buildSystemHooked(const ir::Schedule& s, const Binding& b, ir::Target target,
                                        const EvalHook& hook, std::string* error, const BuildSemantics& sem = {},
                                        ReplacedEmptyLoops* empty_loops = nullptr);

}  // namespace cake::encoder
