// The integer queries' solver (encoder/integer_solver.h): Z3's strategy for
// the facts' logic with every timed try ended by resource units. Its
// answers and models on each branch (nonlinear, linear, other), the same
// answer, model and units for the same facts, a later check, and a budget
// too small for the query: unknown, never an answer. That the answers do
// not depend on the machine's load is tests/cli/any_load_test.cpp's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "encoder/integer_solver.h"

namespace cake::encoder::integer_solver_test {

struct Asked {
  z3w::Answer answer;
  std::string model;   // the model's text (empty unless sat)
  bool model_holds;    // every fact true in the model
  uint64_t units = 0;  // resource units counted on this thread
};

// Asks `facts(c)` of a fresh IntegerSolver under `rlimit` (0: none).
template <class Facts>
Asked ask(Facts facts, uint64_t rlimit) {
  z3::context c;
  z3w::IntegerSolver s(c);
  const std::vector<z3::expr> fs = facts(c);
  for (const z3::expr& f : fs) s.add(f);
  Limits lim;
  lim.rlimit = rlimit;
  const uint64_t u0 = z3w::threadQueryWork().rlimit;
  const z3w::QueryResult r = s.check(lim);
  Asked out{r.answer, "", false, z3w::threadQueryWork().rlimit - u0};
  if (r.answer == z3w::Answer::Incorrect) {
    const z3::model m = s.model();
    out.model = m.to_string();
    out.model_holds = true;
    for (const z3::expr& f : fs) out.model_holds = out.model_holds && m.eval(f, true).is_true();
  }
  return out;
}

std::vector<z3::expr> inRange(z3::context& c, std::initializer_list<const char*> names, int lo, int hi) {
  std::vector<z3::expr> out;
  for (const char* n : names) {
    const z3::expr x = c.int_const(n);
    out.push_back(x >= lo && x <= hi);
  }
  return out;
}

// 391 = 17 * 23: nonlinear (qfnia's branch)
std::vector<z3::expr> factorsOf391(z3::context& c) {
  std::vector<z3::expr> f = inRange(c, {"x", "y"}, 2, 391);
  f.push_back(c.int_const("x") * c.int_const("y") == 391);
  return f;
}
// no integer squares to 2
std::vector<z3::expr> squareIsTwo(z3::context& c) {
  std::vector<z3::expr> f = inRange(c, {"x"}, -100, 100);
  f.push_back(c.int_const("x") * c.int_const("x") == 2);
  return f;
}
// linear (qflia's branch), with a division by a constant
std::vector<z3::expr> linearSat(z3::context& c) {
  std::vector<z3::expr> f = inRange(c, {"x", "y"}, 0, 1000);
  const z3::expr x = c.int_const("x"), y = c.int_const("y");
  f.push_back(x + 3 * y == 97 && x / 8 == 4 && x != y);
  return f;
}
std::vector<z3::expr> linearUnsat(z3::context& c) {
  std::vector<z3::expr> f = inRange(c, {"x", "y"}, 0, 1000);
  const z3::expr x = c.int_const("x"), y = c.int_const("y");
  f.push_back(2 * x + 4 * y == 7);
  return f;
}
// a division by a symbol: neither qflia nor qfnia (Z3's default takes another
// branch, which has no time limit)
std::vector<z3::expr> divisionBySymbol(z3::context& c) {
  std::vector<z3::expr> f = inRange(c, {"x", "y"}, 1, 64);
  const z3::expr x = c.int_const("x"), y = c.int_const("y");
  f.push_back(x / y == 5 && x % y == 3);
  return f;
}

TEST(IntegerSolver, EachBranchAnswersWithAModelOfEveryFact) {
  for (auto facts : {factorsOf391, linearSat, divisionBySymbol}) {
    for (uint64_t rlimit : {uint64_t{2'000'000}, uint64_t{0}}) {  // (0: each try in a solver of its own)
      const Asked a = ask(facts, rlimit);
      EXPECT_EQ(a.answer, z3w::Answer::Incorrect) << rlimit;
      EXPECT_TRUE(a.model_holds) << a.model;
    }
  }
  for (auto facts : {squareIsTwo, linearUnsat})
    for (uint64_t rlimit : {uint64_t{2'000'000}, uint64_t{0}})
      EXPECT_EQ(ask(facts, rlimit).answer, z3w::Answer::Correct) << rlimit;
}

TEST(IntegerSolver, TheSameFactsGiveTheSameAnswerModelAndUnits) {
  for (auto facts : {factorsOf391, squareIsTwo, linearSat, divisionBySymbol}) {
    const Asked a = ask(facts, 2'000'000), b = ask(facts, 2'000'000);
    EXPECT_EQ(a.answer, b.answer);
    EXPECT_EQ(a.model, b.model);
    EXPECT_EQ(a.units, b.units);
    EXPECT_GT(a.units, 0u);
  }
}

TEST(IntegerSolver, AQueryPastItsBudgetIsUnknownNeverAnAnswer) {
  // 10 units: not enough for any of these queries
  for (auto facts : {factorsOf391, squareIsTwo, linearSat, linearUnsat, divisionBySymbol}) {
    const Asked a = ask(facts, 10);
    EXPECT_EQ(a.answer, z3w::Answer::FailedToProve);
  }
}

TEST(IntegerSolver, ALaterCheckAnswersWithTheAddedFact) {
  z3::context c;
  z3w::IntegerSolver s(c);
  for (const z3::expr& f : factorsOf391(c)) s.add(f);
  Limits lim;
  lim.rlimit = 2'000'000;
  ASSERT_EQ(s.check(lim).answer, z3w::Answer::Incorrect);
  const z3::expr x = c.int_const("x");
  s.add(x != 17 && x != 23);  // 17 and 23 are the only factors in range
  EXPECT_EQ(s.check(lim).answer, z3w::Answer::Correct);
  s.add(x == x);
  lim.rlimit = 10;
  EXPECT_EQ(s.check(lim).answer, z3w::Answer::FailedToProve);
}

}  // namespace cake::encoder::integer_solver_test
