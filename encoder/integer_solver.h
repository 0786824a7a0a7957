// The solver of the integer queries (encoder::intWitness): Z3's own strategy
// for the query's logic, with every try that Z3 ends after a fixed time ended
// after a fixed number of resource units instead (docs/z3.md "Integer
// queries: Z3's strategy by resource units"). Internal to encoder/ (it
// includes <z3++.h>), as encoder/z3_solver.h.
#pragma once

#include <optional>

#include <z3++.h>

#include "encoder/z3_solver.h"

namespace cake::encoder::z3w {

// Z3's resource count of the context of `s` (it only grows; every solver
// of a context reads the same count). Defined in z3_solver.cpp, whose
// check() counts a query's units by it.
uint64_t rlimitCount(z3::solver& s);

// Z3 4.8's default solver answers a first check with the strategy of the
// problem's logic, and its strategies for integers (qfnia, qflia) try their
// engines in turn, each for a fixed wall-clock time: under load a query
// reached another engine and answered otherwise (another model, or unknown
// at its resource limit). This solver runs the same engines in the same
// order with the same parameters; a timed try ends after its share of
// resource units (kTryUnitsPerSecond), and the query's resource limit
// bounds all of them together. Of the two steps that Z3 caps by the whole
// process's Z3 memory (which other queries' contexts share), qfnia's
// cofactor-term-ite is left out and its bit-blaster runs without the cap
// (the resource units bound it). So the same facts give the same answer,
// model and resource units at any load and beside any other query.
class IntegerSolver {
 public:
  explicit IntegerSolver(z3::context& c);
  void add(const z3::expr& fact);
  // The facts' satisfiability, counted and limited as z3w::check counts a
  // query (lim.rlimit: all the tries together; lim.timeout_ms: the
  // watchdog). A later check (facts added since) first asks the SMT core
  // alone, as Z3's default solver does once it is incremental.
  QueryResult check(const Limits& lim);
  // After an Incorrect (sat) answer: a model of every fact.
  z3::model model() const;

  // A timed try's share of resource units per second of Z3's timeout
  // (measured on the integer queries of the corpus: docs/z3.md).
  static constexpr uint64_t kTryUnitsPerSecond = 1'000'000;

 private:
  enum class Logic { Lia, Nia, Other };
  z3::check_result solve(uint64_t budget, std::string& reason);
  z3::check_result strategy(uint64_t budget, std::string& reason);
  Logic logicOf(const z3::goal& g) const;
  uint64_t spent() const;

  z3::context& c_;
  z3::expr_vector facts_;
  z3::solver meter_;  // reads the context's resource count
  std::optional<z3::model> model_;
  int checks_ = 0;
  uint64_t start_ = 0;
};

}  // namespace cake::encoder::z3w
