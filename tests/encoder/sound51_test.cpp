// Session 51's soundness review (helper sound51, docs/z3.md "Soundness
// review, session 51"): the holes bench/attacks/sound51_mutants.py found in
// the paths session 50 added, each with the schedule that showed it.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "attack_util.h"
#include "encoder/bv_prover.h"
#include "encoder/trip_tail_cut.h"
#include "tail_ring_kernel.h"

namespace sound51_test {

using cake::testing::attacks::expectCheckedAndProved;
using cake::testing::attacks::proveDefault;

// two50's reduced tail ring (tests/encoder/tail_ring_kernel.h): one
// loader, one consumer, m of n iterations loaded.
using cake::testing::tail_ring::kTailRing;

const std::string kConsumerEnd = "                lm.copy(Out, rows, coords=(4 * i, 0))\n";

// The consumer with `tail` after its guarded block, inside its loop.
std::string withConsumerTail(const std::string& tail) {
  return cake::testing::replace(kTailRing, kConsumerEnd, kConsumerEnd + tail);
}

// How many loops trip::cutDeadTails cuts in the first schedule of `text`.
int loopsCut(const std::string& text) {
  auto mod = cake::testing::compile(text);
  const cake::ir::Schedule& s = mod.schedules.at(0);
  cake::encoder::BvProver prover(s);
  const auto cut = cake::encoder::trip::cutDeadTails(
      s, [&](const cake::ir::ExprPtr& g, const std::vector<cake::ir::ExprPtr>& in) {
        return prover.prove(g, in).kind == cake::encoder::BvVerdict::Holds;
      });
  return cut ? cut->cut : 0;
}

// A condition that the builder cannot evaluate past the threshold (its sum
// leaves 64 bits from i = m + 1 on) guards a wait on a stage never loaded.
// The prover reads a premise as "defined and true", so taking the condition
// as a premise dropped exactly those iterations from the question: the
// consumer's loop was cut at m and the copy, which never evaluates the
// condition there, was *proved*, though the schedule's systems past m do
// not build (in Python's integers the wait is there and hangs). Now a
// condition is a premise only where it is shown defined.
std::string undefinedPast() {
  return withConsumerTail(
      "            if i - m + 9223372036854775807 >= 0:\n"
      "                if i > m:\n"
      "                    lm.wait(full, iter=i)\n");
}

TEST(Sound51, TailConditionUndefinedPastTheThresholdIsNoPremise) {
  EXPECT_EQ(loopsCut(undefinedPast()), 1);  // the loader's loop only
}

// (the proof itself, 3 s: on main it says proved)
TEST(Sound51, SlowTailConditionUndefinedPastTheThresholdIsNotProved) {
  EXPECT_NE(proveDefault(cake::testing::compile(undefinedPast()).schedules.at(0)).outcome,
            cake::encoder::Outcome::Proved)
      << "UNSOUND: a wait the tail holds, proved";
}

// The same through an inner loop's bound, undefined wherever the tail
// reaches it: its range is a premise only where it is shown defined.
TEST(Sound51, TailInnerLoopBoundUndefinedIsNoPremise) {
  const std::string undefined_bound = withConsumerTail(
      "            if i >= m:\n"
      "                for j in lm.range(0, (i - m + 2) * 4611686018427387904):\n"
      "                    if j >= 0:\n"
      "                        lm.wait(full, iter=i)\n");
  EXPECT_EQ(loopsCut(undefined_bound), 1);
}

// The twin whose condition is defined everywhere is still cut and proved.
std::string definedEverywhere() {
  return withConsumerTail(
      "            if i + 1000 >= 0:\n"
      "                if i < m:\n"
      "                    lm.fence_proxy()\n");
}

TEST(Sound51, TailConditionDefinedEverywhereIsStillCut) { EXPECT_EQ(loopsCut(definedEverywhere()), 2); }

TEST(Sound51, SlowTailConditionDefinedEverywhereIsStillProved) {
  expectCheckedAndProved(definedEverywhere(), "a defined condition in the tail");
}

}  // namespace sound51_test
