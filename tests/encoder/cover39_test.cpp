// Far thresholds that a binding's values place (helper cover39, session 39;
// docs/known-limits.md "Covering values past far thresholds"): broken
// schedules whose bug shows only at a trip count past every trip target, at
// an iteration that a parameter moves (main's covering values stopped at
// K <= 5). Each has the correct form as its twin (passes, decided).
//  * an operand part that steps with the loop variable and a parameter
//    (`(k + T) // 40`, T < 8: first at k = 33): exit 0 *checked* on main;
//  * an operand comparison whose difference at the loop's end is a
//    parameter (`k + W < K`, W >= 20: before the last W iterations);
//  * a slice bound that reads a parameter (`tab[0][:, k + T:k + T + 1]`)
//    reaching a column no one wrote.
//  (The last two exit 2 on main: the proof meets the violation at a trip
//  count the values did not run. Now found.)
// And a step past the 512 iterations the values run (`k // 1000`): the
// *checked* verdict names it.
// (The DeepGEMM, ThunderKittens LCSF and FA3 forms are corpus pairs in
// corpus/bugs; see the docs.)
#include <gtest/gtest.h>

#include <string>

#include "attack_pair.h"
#include "test_util.h"

using namespace cake;
using namespace cake::testing::pairs;

namespace {

// The 2-slot ring over K > 0 with a second parameter `name` read only
// where an edit puts it, kept inside `facts`.
std::string ringWith(const std::string& name, const std::string& facts) {
  const std::string ring =
      cake::testing::wsRingSchedule(2, {.name = "mainloop", .assume_k_positive = true, .epilogue = true});
  return edited(ring, {{"K: LM.i32):\n", "K: LM.i32, " + name + ": LM.i32):\n" + facts}});
}

const std::string& knobRing() {
  static const std::string text = ringWith("T", "    lm.assume(T >= 0)\n    lm.assume(T < 8)\n");
  return text;
}

// test_util.h's table of 64 columns written once (its first 63 columns
// only in the broken form), one column read per iteration at k + T.
std::string tableBand(int written) {
  const std::string w = std::to_string(written);
  return edited(cake::testing::kTableReadEveryIteration,
                {{"K: LM.i32):\n    lm.assume(K >= 1)\n",
                  "K: LM.i32, T: LM.i32):\n    lm.assume(K >= 1)\n    lm.assume(T >= 0)\n    lm.assume(T < 2)\n"
                  "    lm.assume(K <= 63)\n"},
                 {"    v     = lm.regs(shape=(1, 64), dtype=lm.i32)\n",
                  "    v     = lm.regs(shape=(1, 64), dtype=lm.i32)\n    x     = lm.regs(shape=(1, 1), dtype=lm.i32)\n"},
                 {"lm.copy(tab[0], v)", "lm.copy(tab[0][:, 0:" + w + "], v[:, 0:" + w + "])"},
                 {"lm.copy(v, tab[0])", "lm.copy(x, tab[0][:, k + T:k + T + 1])"},
                 {"lm.copy(Out, v, coords=(k, 64 * w))", "lm.copy(Out, x, coords=(k, w))"}});
}

}  // namespace

// The consumers' wait names an older lap from k + T = 40 on (T < 8: k >= 33).
TEST(Cover39, KnobStepFarIsFound) {
  expectPair("wait at k - (k + T) // 40",
             edited(knobRing(), {{"lm.wait(full, iter=k)", "lm.wait(full, iter=k - (k + T) // 40)"}}), "",
             knobRing());
}

// The consumers wait a phase early before the last W >= 20 iterations.
TEST(Cover39, FarFlipWithAParameterDistanceIsFound) {
  const std::string ring = ringWith("W", "    lm.assume(W >= 20)\n    lm.assume(W < 100)\n");
  expectPair("wait at k + W < K", edited(ring, {{"lm.wait(full, iter=k)", "lm.wait(full, iter=k - (k + W < K))"}}),
             "", ring);
}

// Column 63, never written, is read at k + T = 63 only (K = 63 or 62).
TEST(Cover39, SliceReachWithAParameterIsFound) {
  expectPair("read of tab[0][:, k + T:k + T + 1]", tableBand(63), "data.stale-read", tableBand(64));
}

// The bounded check alone on the knob ring with the consumers' wait at
// `iter`: no error, and the sync verdict names `what` as not reached.
// (The proof, unknown here, would cost about a second each.)
void expectNamedPastTheCap(const std::string& iter, const std::string& what) {
  auto mod = cake::testing::compile(edited(knobRing(), {{"lm.wait(full, iter=k)", "lm.wait(full, iter=" + iter + ")"}}));
  ASSERT_FALSE(mod.schedules.empty());
  checks::CheckOptions opts;
  opts.target = mod.schedules.at(0).target;
  opts.timeout_ms = cake::testing::kNoWallClockMs;
  opts.proof_timeout_ms = 0;
  const checks::CheckResult r = checks::checkSchedule(mod.schedules.at(0), opts);
  bool named = false;
  for (const auto& v : r.verdicts)
    if (v.property == "sync" && v.kind != checks::VerdictKind::Proved)
      named = named || v.detail.find("do not reach the step of `" + what + "`") != std::string::npos;
  EXPECT_FALSE(r.hasErrors()) << describe(r);
  EXPECT_TRUE(named) << iter << "\n" << describe(r);
}

// A step at k = 1000, past the values' cap: the verdict names it.
TEST(Cover39, StepPastTheCapIsNamed) { expectNamedPastTheCap("k - k // 1000", "k // 1000"); }

// Steps past the cap that went unnamed (helper sound40; each exited 0
// *checked* with nothing said): one a knob moves (`(k + T) // 600` steps at
// k = 600 - T, T < 8: the far values evaluated it up to 512 iterations and
// dropped it), and one past the powers of two the loop variable's parts
// were sampled at (`k // 2000000`; now their constants too). Cost: 0.1 s.
TEST(Cover39, StepsPastTheCapAreNamedWhereAKnobOrAFarConstantPutsThem) {
  expectNamedPastTheCap("k - (k + T) // 600", "(k + T) // 600");
  expectNamedPastTheCap("k - k // 2000000", "k // 2000000");
}

// A flip that moves half as fast as the trip count: `2 * k + W == k_tiles`
// flips (n + W) / 2 iterations before the end of n trips, so the trip count
// that reaches it (n >= W) is found by following it, about log2(W) rounds;
// with 4 rounds it was left unreached (named, exit 0; helper sound40).
// Cost: 0.3 s.
TEST(Cover39, FarFlipHalfAsFastAsTheTripCountIsFound) {
  const std::string ring = ringWith("W", "    lm.assume(W >= 20)\n    lm.assume(W < 100)\n");
  expectPair("wait at 2 * k + W == K",
             edited(ring, {{"lm.wait(full, iter=k)", "lm.wait(full, iter=k - (2 * k + W == K))"}}), "", ring);
}
