// A loop's dead tail cut at a guard's threshold (docs/z3.md "A loop's dead
// tail cut at a guard's threshold", helper two50, session 50, issue 11).
// NVIDIA/Fuser PR #4524's fixed form with the round count and the row count
// as two parameters (`for i in lm.range(0, n_iters): if g + 2 * i <
// n_stages:`, lm.assume(n_stages <= 2 * n_iters)) was *checked*, not
// proved: the guard reads n_stages besides the trip count and the facts
// allow it unboundedly many values. From i = lm.cdiv(n_stages, 2) on no
// iteration builds an operation, so the copy with the loops to that bound
// builds the schedule's systems and has one trip expression. The broken
// twins differ where the cut reasons (an operation outside the guard, a
// guard one stage off, a threshold the facts do not keep within the loop)
// and are found, never proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "encoder/bv_prover.h"
#include "encoder/trip_tail_cut.h"
#include "tail_ring_kernel.h"

namespace tail_cut50_test {

using cake::testing::attacks::expectCheckedAndProved;
using cake::testing::attacks::expectFoundNotProved;
using cake::testing::attacks::modelCheck;
using cake::testing::attacks::proveDefault;

// The reduced form: one loader, one consumer, m of n iterations loaded.
using cake::testing::tail_ring::kTailRing;

const std::string kLoadGuard = "            if i < m:\n                lm.wait(empty";
const std::string kConsGuard = "            if i < m:\n                lm.wait(full";

std::string nvfuserTwoParams() {
  return cake::testing::corpusText(
      "corpus/bugs/sync.arrival-underflow/nvfuser_ws_two_wg_wait_parity_unpredicated_tail_two_params_fixed.cake");
}

// How many loops trip::cutDeadTails cuts in the first schedule of `text`,
// and its text.
std::pair<int, std::string> cutsIn(const std::string& text) {
  auto mod = cake::testing::compile(text);
  const cake::ir::Schedule& s = mod.schedules.at(0);
  cake::encoder::BvProver prover(s);
  const auto cut = cake::encoder::trip::cutDeadTails(
      s, [&](const cake::ir::ExprPtr& g, const std::vector<cake::ir::ExprPtr>& in) {
        return prover.prove(g, in).kind == cake::encoder::BvVerdict::Holds;
      });
  if (!cut) return {0, ""};
  return {cut->cut, cut->text};
}

TEST(TailCut50, ReducedRingLoopsCutAtTheGuard) {
  const auto [cut, text] = cutsIn(kTailRing);
  EXPECT_EQ(cut, 2);
  EXPECT_EQ(text, "lm.range(0, n) cut at m");
}

TEST(TailCut50, ReducedRingIsProved) { expectCheckedAndProved(kTailRing, "the reduced tail ring"); }

TEST(TailCut50, SlowNvfuserTwoParameterFormIsProved) {
  const auto [cut, text] = cutsIn(nvfuserTwoParams());
  EXPECT_EQ(cut, 2);
  EXPECT_EQ(text, "lm.range(0, n_iters) cut at lm.cdiv(n_stages, 2)");
  expectCheckedAndProved(nvfuserTwoParams(), "nvFuser PR #4524's two-parameter fixed form");
}

// An operation outside the guard lives in the tail: that loop is not cut.
TEST(TailCut50, OperationOutsideTheGuardIsNotCut) {
  const std::string arrive_out = cake::testing::replace(
      kTailRing, "                lm.arrive(empty, iter=i)\n                lm.copy(Out, rows, coords=(4 * i, 0))\n",
      "                lm.copy(Out, rows, coords=(4 * i, 0))\n            lm.arrive(empty, iter=i)\n");
  EXPECT_EQ(cutsIn(arrive_out).first, 1);
}

// Without lm.assume(m <= n) the threshold may lie past the loop's bound.
TEST(TailCut50, ThresholdOutsideTheLoopIsNotCut) {
  EXPECT_EQ(cutsIn(cake::testing::replace(kTailRing, "    lm.assume(m <= n)\n", "")).first, 0);
}

// The consumer waits one stage past the loads (`i <= m`): its threshold
// m + 1 may exceed n, so only the loader's loop is cut; the hang is found.
TEST(TailCut50, ConsumerOneStagePastIsFoundNotProved) {
  const std::string past = cake::testing::replace(kTailRing, kConsGuard, "            if i <= m:\n                lm.wait(full");
  EXPECT_EQ(cutsIn(past).first, 1);
  expectFoundNotProved(past, "sync.arrival-underflow", "the consumer waits on a stage never loaded");
}

// The loader stops a stage early: both loops are cut, at different
// thresholds, and the consumer's last wait hangs.
TEST(TailCut50, LoaderOneStageShortIsFoundNotProved) {
  const std::string short_load =
      cake::testing::replace(kTailRing, kLoadGuard, "            if i < m - 1:\n                lm.wait(empty");
  EXPECT_EQ(cutsIn(short_load).first, 2);
  expectFoundNotProved(short_load, "sync.arrival-underflow", "the loader skips the last stage");
}

// nvFuser's twins: the wait outside the predicate (the form before the PR)
// and a loader that loads one stage too many (it lands after every role
// exited).
TEST(TailCut50, SlowNvfuserBrokenTwinsAreFoundNotProved) {
  const std::string fixed = nvfuserTwoParams();
  expectFoundNotProved(cake::testing::corpusText("corpus/bugs/sync.arrival-underflow/"
                                                 "nvfuser_ws_two_wg_wait_parity_unpredicated_tail_two_params.cake"),
                       "sync.arrival-underflow", "the wait outside the predicate");
  const size_t compute = fixed.find("    with compute:");
  ASSERT_NE(compute, std::string::npos);
  const std::string load_le =
      cake::testing::replace(fixed.substr(0, compute), "if s < n_stages:", "if s <= n_stages:") + fixed.substr(compute);
  expectFoundNotProved(load_le, "sync.async-at-exit", "a load past the last stage");
}

}  // namespace tail_cut50_test
