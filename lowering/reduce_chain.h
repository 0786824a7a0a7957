// reduce_chain: the dependent chain of a fragment reduction as this lowering
// writes it (emit_compute.cpp, the reduce emitter), for the cost model: the
// lane counts (lane_count.h) say how many instructions a reduction issues,
// this says how many of them wait on the one before.
//
// Per kept row a thread scans the elements it holds along the reduced axis:
// argmin / argmax in index order, one chain (a compare and the selects that
// depend on it per element: two dependent issues); a plain max / sum over
// at least 2 * kReducePartials elements in kReducePartials independent
// partial chains combined pairwise at the end (log2 of them deep), else one
// chain. Then the shuffle tree across the lanes that share the row (2 steps
// for an MMA-anchored fragment, 5 for a generic one), each a SHFL round trip
// and the combine (argmin's cake_argmin_step: compare, tie-break and two
// selects, three deep; a plain combine one).
#pragma once

#include "ir/schedule.h"

namespace cake::lowering {

// Independent partial results of a plain row reduction (max, sum): the
// emitter's chains per row, and the count the cost model reads here.
inline constexpr int kReducePartials = 4;

struct ReduceChain {
  double alu_steps = 0;   // dependent FP32 / integer-pipe issues per row, scan and shuffle combines
  double shuffles = 0;    // SHFL round trips on the chain
};

// Zero for an op that is not a reduction of a fragment (a view's reduction,
// another op).
ReduceChain reduceChain(const ir::Schedule& s, const ir::Op& op);

}  // namespace cake::lowering
