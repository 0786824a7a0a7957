// The residues lm.assume facts fix, folded into the checks' expressions
// (ir/fact_fold.h): which `%` a fact reduces, and which it must leave.
#include <gtest/gtest.h>

#include "ir/fact_fold.h"
#include "test_util.h"

using namespace cake::ir;
using namespace cake::ir::test;

namespace fact_fold_test {

// A one-role schedule with `fact` as an lm.assume and `guard` around an
// arrive inside a K loop of a tile loop; the guard as the checks read it
// ("unchanged" when the fold leaves the schedule as written).
std::string foldedGuard(const std::string& fact, const std::string& guard) {
  const std::string text = R"(@cake.schedule(target="sm_90a")
def k(lm, n: LM.i32, kt: LM.i32):
    lm.assume(kt >= 1)
)" + (fact.empty() ? std::string() : "    lm.assume(" + fact + ")\n") +
                           R"(    w = lm.role(warps=[0])
    b = lm.barrier(prod=[w], cons=[w])
    with w:
        for t in lm.range(0, n):
            for k in lm.range(0, kt):
                if )" + guard + R"(:
                    lm.arrive(b, iter=t)
                    lm.wait(b, iter=t)
)";
  DiagnosticSink sink;
  std::optional<Module> m = compile(text, sink);
  if (!m) return "<error: " + describe(sink) + ">";
  const std::optional<Schedule> folded = foldModuloFacts(m->schedules[0]);
  if (!folded) return "unchanged";
  const Stmt& inner = folded->bodies[0].body[0].body[0].body[0];
  return exprToString(*inner.cond, *folded);
}

}  // namespace fact_fold_test

using fact_fold_test::foldedGuard;

TEST(FactFold, AResidueFactMakesTheRingStartGuardConstant) {
  // mKernel PR #18's wait: the slot-0 point of task t is k == 0 when every
  // task's length is a multiple of the ring depth.
  EXPECT_EQ(foldedGuard("kt % 3 == 0", "k == (3 - t * kt % 3) % 3"), "k == 0");
  // A fact modulo a multiple of the divisor fixes the residue too (6 k + 3 is
  // 0 modulo 3), and the least residue is used.
  EXPECT_EQ(foldedGuard("kt % 6 == 3", "k == (3 - t * kt % 3) % 3"), "k == 0");
  EXPECT_EQ(foldedGuard("kt % 3 == 0 and n >= 1", "k == (t * kt + k) % 3"), "k == k % 3");
}

TEST(FactFold, WhatTheFactDoesNotFixIsLeftAsWritten) {
  // 3 does not determine the residue modulo 6 (kt = 3 and kt = 6).
  EXPECT_EQ(foldedGuard("kt % 3 == 0", "k == (6 - t * kt % 6) % 6"), "unchanged");
  // A residue other than 0 keeps t in the guard.
  EXPECT_EQ(foldedGuard("kt % 3 == 1", "k == (3 - t * kt % 3) % 3"), "k == (3 - t % 3) % 3");
  // Floor division, min and a `%` by a parameter are not residues.
  EXPECT_EQ(foldedGuard("kt % 3 == 0", "k == t * kt // 3"), "unchanged");
  EXPECT_EQ(foldedGuard("kt % 3 == 0", "k == min(kt, 5) % 3"), "unchanged");
  EXPECT_EQ(foldedGuard("kt % 3 == 0", "k == t % kt"), "unchanged");
  // No fact, or a fact that is not a residue.
  EXPECT_EQ(foldedGuard("", "k == t * kt % 3"), "unchanged");
  EXPECT_EQ(foldedGuard("kt >= 3", "k == t * kt % 3"), "unchanged");
}
