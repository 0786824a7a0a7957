// The proof for every trip count (encoder/trip_proof.cpp), parameters read
// only in sizes: the systems for two values of such a parameter (a tile
// size `BM` in a pool size, a view shape, a TMA box) explore alike when
// they differ only in the numbers the simulator compares, never computes
// with (docs/z3.md "Parameters read only in sizes").
//
// The simulator reads a byte boundary (Access::lo / hi) only by comparing
// it with other boundaries of the same memory space (it cuts each space
// into atoms at the boundaries of all accesses; the proof's period check
// compares them for equality, its lap check for overlap), and a
// transaction byte count (Instr::bytes of ExpectTx / TmaLoad) only by
// adding it to or subtracting it from a slot's count and comparing sums of
// such counts with zero and with each other. So a map that keeps the order
// of every pair of boundaries of a space (over every system explored
// together) and multiplies every transaction count by one positive factor
// maps runs to runs and verdicts to verdicts. `sizeFreeKey` writes a group
// of systems with each boundary replaced by its rank among its space's
// boundaries and each transaction count divided by the counts' greatest
// common divisor: two groups with the same key are so related (a rank
// names the same position in both orders; counts divided by their gcd are
// the counts up to one positive factor), and every other field the
// simulator or the proof reads is written as it is.
#pragma once

#include <cstdint>
#include <vector>

#include "encoder/system.h"

namespace cake::encoder::trip {

// The key of `systems` taken together (one order per memory space across
// all of them, one factor for all their transaction counts), every field
// in a fixed order with its count before each list; empty when a
// transaction count is so large that sums of counts could leave the
// simulator's 32-bit slot fields (no key: explore as before).
std::vector<int64_t> sizeFreeKey(const std::vector<const System*>& systems);

}  // namespace cake::encoder::trip
