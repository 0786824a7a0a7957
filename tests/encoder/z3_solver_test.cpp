// The Z3 wrapper's strict result kinds, and the Spacer / BMC engines on
// small symbolic systems.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "encoder/z3_solver.h"
#include "encoder/z3_sts.h"

using namespace cake::encoder;

TEST(Z3Wrapper, KindsAndReasons) {
  z3::context c;
  z3::expr x = c.int_const("x");
  {
    z3::solver s(c);
    s.add(x > 0 && x < 0);
    EXPECT_EQ(z3w::check(s, {}).answer, z3w::Answer::Correct);
  }
  {
    z3::solver s(c);
    s.add(x > 3);
    auto r = z3w::check(s, {});
    EXPECT_EQ(r.answer, z3w::Answer::Incorrect);
    EXPECT_TRUE(s.get_model().eval(x > 3, true).is_true());
  }
  {
    // Nonlinear integer arithmetic with a 1 ms budget: unknown, never a pass.
    z3::solver s(c);
    z3::expr a = c.int_const("a"), b = c.int_const("b"), d = c.int_const("d");
    s.add(a > 1 && b > 1 && d > 1 && a * a * a + b * b * b == d * d * d + 7 * a * b * d + 1234567);
    Limits lim;
    lim.timeout_ms = 1;
    auto r = z3w::check(s, lim);
    if (r.answer == z3w::Answer::FailedToProve) {
      EXPECT_NE(r.reason.find("timeout"), std::string::npos) << r.reason;
    } else {
      EXPECT_NE(r.answer, z3w::Answer::Correct);  // a lucky model is fine, a pass is not
    }
  }
}

// An optimization query through the wrapper: the same kinds and reasons,
// its optimum's model, and no work counted for a proof's budget.
TEST(Z3Wrapper, OptimizeKindsAndReasons) {
  z3::context c;
  z3::expr x = c.int_const("x");
  const z3w::QueryWork before = z3w::threadQueryWork();
  {
    z3::optimize o(c);
    o.add(x > 0 && x < 0);
    EXPECT_EQ(z3w::check(o, {}).answer, z3w::Answer::Correct);
  }
  {
    z3::optimize o(c);
    o.add(x >= 3 && x <= 10);
    o.maximize(x);
    ASSERT_EQ(z3w::check(o, {}).answer, z3w::Answer::Incorrect);
    EXPECT_EQ(o.get_model().eval(x, true).get_numeral_int(), 10);
  }
  {
    // Nonlinear integers with one resource unit: unknown, never a pass (Z3's
    // optimizer gives no reason for its unknown; the wrapper says "unknown").
    z3::optimize o(c);
    z3::expr a = c.int_const("a"), b = c.int_const("b"), d = c.int_const("d");
    o.add(a > 1 && b > 1 && d > 1 && a * a * a + b * b * b == d * d * d + 7 * a * b * d + 1234567);
    o.minimize(a);
    Limits lim;
    lim.rlimit = 1;
    auto r = z3w::check(o, lim);
    EXPECT_NE(r.answer, z3w::Answer::Correct);
    if (r.answer == z3w::Answer::FailedToProve) EXPECT_FALSE(r.reason.empty());
  }
  EXPECT_EQ(z3w::threadQueryWork().queries, before.queries);
  EXPECT_EQ(z3w::threadQueryWork().rlimit, before.rlimit);
}

// The shared watchdog thread (z3w::Watchdog): budgets of queries on
// several threads at once are all enforced, and a context whose query has
// returned is not interrupted afterwards (its next, unbudgeted query runs).
TEST(Z3Wrapper, WatchdogServesConcurrentQueries) {
  auto hard = [](z3::context& c, z3::solver& s) {
    z3::expr a = c.int_const("a"), b = c.int_const("b"), d = c.int_const("d");
    s.add(a > 1 && b > 1 && d > 1 && a * a * a + b * b * b == d * d * d + 7 * a * b * d + 1234567);
  };
  std::vector<z3w::Answer> answers(3, z3w::Answer::Error);
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([&, i] {
      z3::context c;
      z3::solver s(c);
      hard(c, s);
      Limits lim;
      lim.timeout_ms = 20 + 30 * i;
      answers[i] = z3w::check(s, lim).answer;
      // long past the budget and the 20 ms re-interrupts: an easy query on
      // the same context must be answered, not canceled
      std::this_thread::sleep_for(std::chrono::milliseconds(60));
      z3::solver t(c);
      z3::expr x = c.int_const("x");
      t.add(x > 3 && x < 5);
      if (z3w::check(t, {}).answer != z3w::Answer::Incorrect) answers[i] = z3w::Answer::Error;
    });
  for (auto& t : threads) t.join();
  for (z3w::Answer a : answers) {
    EXPECT_NE(a, z3w::Answer::Correct);  // unknown (or a lucky model), never a pass
    EXPECT_NE(a, z3w::Answer::Error);
  }
}

// x counts to T, y trails x by at most one step: y <= x <= T, for every T.
static void counter(z3w::Sts& m, bool buggy) {
  z3::context& c = m.ctx();
  z3::expr T = m.param("T");
  m.assume(T >= 0);
  int x = m.addInt("x", 0), y = m.addInt("y", 0);
  int b = m.addBool("b", false);
  m.addTransition({"inc", -1, m.var(x) < T && !m.var(b), {{x, m.var(x) + 1}, {b, c.bool_val(true)}}, {}});
  m.addTransition({"incy", -1, m.var(b), {{y, m.var(y) + (buggy ? 2 : 1)}, {b, c.bool_val(false)}}, {}});
  m.addBad({"bad", -1, m.var(x) > T || m.var(y) > m.var(x), {}, -1});
}

TEST(Z3Spacer, ProvesForEveryParameterAndFindsBugs) {
  {
    z3::context c;
    z3w::Sts m(c);
    counter(m, false);
    z3w::ProofOptions po;
    po.limits.timeout_ms = 20000;
    auto r = z3w::chc(m, po);
    EXPECT_EQ(r.answer, z3w::Answer::Correct) << r.reason;
  }
  {
    z3::context c;
    z3w::Sts m(c);
    counter(m, true);
    z3w::ProofOptions po;
    po.limits.timeout_ms = 20000;
    auto r = z3w::chc(m, po);
    EXPECT_EQ(r.answer, z3w::Answer::Incorrect) << r.reason;
    // BMC with a concrete T finds the shortest run to the bad state
    z3w::BmcOptions bo;
    bo.max_depth = 10;
    bo.param_values = {3};
    auto b = z3w::bmc(m, bo);
    ASSERT_EQ(b.answer, z3w::Answer::Incorrect) << b.reason;
    ASSERT_EQ(b.findings.size(), 1u);
    EXPECT_EQ(b.findings[0].depth, 2);  // inc, incy(+2)
  }
}
