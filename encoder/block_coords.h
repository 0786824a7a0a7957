#pragma once
// Global coordinates that name the block index through one additive term
// (docs/z3.md "A block's own slice of a read-and-written global tensor",
// helper blk43, session 43). FBGEMM's get_pruning_lengths stores each
// warp's counters at `coords=(t, 32 * w)` and reads the row at `(t, 0)`,
// t = lm.block_idx(0): every access of the tensor names `t` in dimension 0,
// so the block's boxes all move by t, and which of them overlap (all the
// model checker asks of global memory: races) does not depend on t as long
// as no box is clipped at 0.

#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "ir/schedule.h"

namespace cake::encoder {

// The additive terms of e (`+`, `-`, unary `-` flattened) with their signs
// (+1 added, -1 subtracted), appended to out.
void additiveTerms(const ir::Expr& e, int sign, std::vector<std::pair<const ir::Expr*, int>>& out);

// The term of `coord` that reads the block index: `coord` is a sum
// (`+`, `-`, unary `-`) of terms exactly one of which reads lm.block_idx or
// lm.grid_dim, added (not subtracted), and that one is a product of
// lm.block_idx(d), lm.grid_dim(d) and constants >= 0 (so its value is >= 0
// in every launch). nullopt for any other coordinate.
const ir::Expr* blockTermOf(const ir::ExprPtr& coord);

// `coord` with its block term (blockTermOf) replaced by 0.
ir::ExprPtr withoutBlockTerm(const ir::ExprPtr& coord, const ir::Expr& term);

// A coordinate where it is named: (tensor parameter, rank, dimension, the
// node of an op's coords[d]). One node can be the coordinate of several
// dimensions or tensors (`t = lm.block_idx(0)`, the name substituted:
// `coords=(t, t)`), owned in one and not in another.
using CoordSite = std::tuple<int, size_t, size_t, const ir::Expr*>;

// For the global tensors the CTA reads and writes (readAndWrittenTensors):
// every coordinate of a dimension in which every access of the tensor (of
// that rank) has a block term, all of them one expression (ir::sameExpr),
// mapped to its block term's node. Two accesses of such a dimension are at
// t + g1 and t + g2 with g1, g2 read without the block index: their
// distance does not depend on it.
std::map<CoordSite, const ir::Expr*> blockOwnedCoords(const ir::Schedule& s);

}  // namespace cake::encoder
