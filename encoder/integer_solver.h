// The solver of the integer queries (encoder::intWitness): Z3's strategy for
// integers with nothing in it that reads the clock. Internal to encoder/
// (it includes <z3++.h>), as encoder/z3_solver.h.
#pragma once

#include <z3++.h>

namespace cake::encoder::z3w {

// A solver for integer problems (linear or not) whose answers, models and
// resource units depend on the query alone, never on the wall clock. Z3's
// default solver answers a query with its logic's strategy, and Z3 4.8's
// strategies for integers try their engines in turn for fixed wall-clock
// times (qfnia: the SMT core for 2 s, then nlsat for 3 s, then the SMT core
// again; qflia: the SMT core with three seeds for 5, 5 and 15 s), so under
// load one query reached another engine and answered otherwise: another
// model, or unknown at its resource limit (docs/z3.md "Integer queries
// answer the same at any load"). This is qfnia's strategy with its timed
// tries and its caps on the whole process's memory taken out: its preamble,
// the bit-blasting attempt (nla2bv: exact where every symbol is bounded,
// else Z3 takes none of its unsat answers; at most 500 conflicts), then the
// SMT core until the query's resource limit.
z3::solver integerSolver(z3::context& c);

}  // namespace cake::encoder::z3w
