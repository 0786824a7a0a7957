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
//
// Owed bytes (txOwedOnly). When every transaction count of a system is
// positive, every ExpectTx is a derived one followed, in its iteration's
// straight-line code, by a run of TMA loads whose bytes on its slot sum to
// its count (each meant for the expect's phase, so the static per-phase
// sums of expected and delivered bytes are equal for any values), and every TMA load lies in such a run of its own process,
// then a slot's count in every reachable state is the sum of the bytes of
// the loads it is owed (their run's expect has run, they have not landed):
// an expect adds its run's bytes, a landing subtracts its own, nothing
// else changes the count. So the count is >= 0 and is 0 exactly when no
// load is owed, which the pcs and the in-flight loads decide, whatever the
// positive byte values; the simulator tests the count only against 0
// (settle, arrival overflow). The runs, and the violations on each, are
// then the same for any positive counts, and the key writes every count
// as 1 (the reducer compares sums of counts, but it only chooses which
// runs of one system to search: its exploration proves that system, whose
// runs are the other's).
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

// Is every transaction count of `sys` owed bytes only (above)?
bool txOwedOnly(const System& sys);

}  // namespace cake::encoder::trip
