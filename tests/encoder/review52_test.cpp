// Holes found by the session-52 review (helper review52) in sound52's
// reading of an lm.assume fact that may overflow 64 bits: the proofs read
// it "undefined or true" (it narrows nothing where it is undefined, and the
// layout.assume-overflow warning says "the checks consider those values
// too"), but the bounded check still dropped every value where it did not
// evaluate: a violation the proof met there (its witness) was skipped, and
// the broken schedule below exited 0 *checked*.
//
// And in the gates' prover (BvProver, and the width argument sound52 built
// on it): a loop variable's domain was 32 bits, though a loop variable is
// an int64 like every schedule integer; `lm.range(K * 65536, K * 65536 + 1)`
// runs at k = 2^32 for K = 65536, where `stage=k // 2^32` is 1 on a
// one-slot barrier, and struct.slot-out-of-range was *proved* (with
// --no-model-check the file exited 0).
#include <gtest/gtest.h>

#include <string>

#include "checks/structural.h"
#include "model_check_run.h"

namespace review52_test {

// The consumer waits a second time, for a phase nobody completes, from K =
// 2^23 on; `K * 2^40 > 0` is true in Python's integers for every K > 0 but
// leaves 64 bits from K = 2^23 on. EXTRA guards the second wait.
std::string secondWaitUnderAnOverflowingAssume(const std::string& extra,
                                               const std::string& fact = "K * 1099511627776 > 0") {
  return R"(@cake.schedule(target="sm_90a")
def f(lm, K: LM.i32):
    lm.assume(K > 0)
    lm.assume()" + fact + R"()
    p = lm.role(warps=[0])
    c = lm.role(warps=[1])
    full = lm.barrier(count=1, prod=[p], cons=[c], init_count=1)
    with p:
        lm.arrive(full, stage=0)
    with c:
        lm.wait(full, stage=0)
        if )" + extra + R"(:
            lm.wait(full, stage=0)
)";
}

// A one-slot barrier whose stage is k // 2^32 over a loop from K * 65536:
// slot 1 from K = 65536 on. FACTS: the lm.assume lines.
std::string wideLoopSlot(const std::string& facts) {
  return R"(@cake.schedule(target="sm_90a")
def f(lm, K: LM.i32):
)" + facts + R"(
    p = lm.role(warps=[0])
    c = lm.role(warps=[1])
    full = lm.barrier(count=1, prod=[p], cons=[c], init_count=1)
    with p:
        for k in lm.range(K * 65536, K * 65536 + 1):
            lm.arrive(full, stage=k // 4294967296)
    with c:
        lm.wait(full, stage=0)
)";
}

cake::checks::VerdictKind slotVerdict(const std::string& text) {
  auto mod = cake::testing::compile(text);
  cake::ir::DiagnosticSink sink;
  std::vector<cake::checks::PropertyVerdict> vs;
  cake::checks::runStructuralChecks(mod.schedules.at(0), sink, {}, &vs);
  for (const auto& v : vs)
    if (v.property == "struct.slot-out-of-range") return v.kind;
  ADD_FAILURE() << "no struct.slot-out-of-range verdict";
  return cake::checks::VerdictKind::Error;
}

}  // namespace review52_test

TEST(Review52, ALoopVariablePast32BitsIsNoValueTheGatesLeaveOut) {
  using cake::checks::VerdictKind;
  // K = 65536 runs k = 2^32: slot 1 of one (before: proved)
  EXPECT_EQ(review52_test::slotVerdict(review52_test::wideLoopSlot("    lm.assume(K > 0)")), VerdictKind::Counterexample);
  // kept below 2^32 by the facts (K < 65536): proved
  EXPECT_EQ(review52_test::slotVerdict(review52_test::wideLoopSlot("    lm.assume(K > 0)\n    lm.assume(K < 65536)")),
            VerdictKind::Proved);
}

// The proof meets the hang at K >= 2^23 and names a witness; the bounded
// check runs it now (sound52 alone: skipped, exit 0 checked).
TEST(Review52, AViolationWhereAnAssumeOverflowsIsRunAndReported) {
  const cake::testing::CheckRun bad =
      cake::testing::runModelCheck(review52_test::secondWaitUnderAnOverflowingAssume("K >= 8388608"), 3000);
  EXPECT_FALSE(bad.passes()) << "UNSOUND: a hang at K >= 2^23, which lm.assume(K * 2^40 > 0) allows, exits 0: "
                             << bad.detail();
  EXPECT_TRUE(bad.found("sync.arrival-underflow") || bad.found("sync.deadlock")) << bad.detail();
}

// The same second wait behind a guard no allowed value takes: no finding.
TEST(Review52, AnOverflowingAssumeAloneRaisesNoFalseAlarm) {
  const cake::testing::CheckRun good =
      cake::testing::runModelCheck(review52_test::secondWaitUnderAnOverflowingAssume("K < 0"), 3000);
  EXPECT_TRUE(good.sink.findings().empty()) << good.detail();
  // K * 2^40 < 2^62 leaves 64 bits from K = 2^23 on too, but Python's
  // integers make it false there (K < 2^22): the second wait never runs.
  const cake::testing::CheckRun kept = cake::testing::runModelCheck(
      review52_test::secondWaitUnderAnOverflowingAssume("K >= 8388608", "K * 1099511627776 < 4611686018427387904"),
      3000);
  EXPECT_TRUE(kept.sink.findings().empty()) << kept.detail();
}
