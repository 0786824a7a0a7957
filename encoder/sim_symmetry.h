// Interchangeable processes (docs/z3.md "Interchangeable processes"):
// two processes whose swap, with the atoms each accesses alone permuted,
// maps a model's transitions onto transitions. Shared by the explorers
// that merge a state with its image (the bounded check, lap induction,
// persistent kernels).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "encoder/sim_model.h"

namespace cake::encoder::sim {

// Two interchangeable processes (docs/z3.md "Interchangeable processes"):
// swapping p and q, with the atoms each accesses alone permuted, maps the
// explored system onto itself. How the state moves: the tracked atoms'
// fields (tracked index -> tracked index) and the data tags (write id ->
// write id).
struct SymPair {
  int p = -1, q = -1;
  std::vector<int32_t> tracked;
  std::vector<int32_t> write;
};


// The conditions on the model alone (docs/z3.md "Interchangeable
// processes", 1-3): p < q of one role and CTA, with as many warps, whose
// programs are equal instruction by instruction (every field the simulator
// or the reducer reads) except for the atoms of their accesses, with one
// involution `beta` of the atoms that maps every access of p onto q's at
// the same pc and every access of every other process onto itself. Each
// explorer adds its own tables (control flow, shifts, layout), which must
// be equal for p and q too.
std::optional<SymPair> pairInModel(const Model& m, int p, int q);

// s with processes sp.p and sp.q swapped: their pcs, sync generations,
// observed commits, unfenced marks, async work and written data tags;
// each tracked atom's fields move to its image.
// `canon` (optional): write id -> the id a data tag is kept as.
State swapPair(const Model& m, const State& s, const SymPair& sp, const std::vector<int32_t>* canon);

// Disjoint pairs, taken greedily in process order, that pass pairInModel
// and `tables_agree` (the explorer's own tables; empty: none).
std::vector<SymPair> interchangeablePairs(const Model& m, const std::function<bool(const SymPair&)>& tables_agree);

// Replaces s by the smaller of it and its image under each pair's swap,
// pair by pair (disjoint pairs: the swaps commute); returns the mask of
// the pairs swapped (bit i: pairs[i]).
uint32_t canonicalUnderPairs(const Model& m, const std::vector<SymPair>& pairs, State& s);

// The process that takes proc's place under the swaps of `mask`.
int imageOf(const std::vector<SymPair>& pairs, uint32_t mask, int proc);

}  // namespace cake::encoder::sim
