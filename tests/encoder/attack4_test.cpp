// Attacks on the bounded check's parameter values, round two (helper
// attack4, session 27; docs/known-limits.md "Attacks on the bounded check,
// round two"): broken schedules whose bug needs two or more knobs
// (parameters, block indices, grid sizes) at once, or a knob together with
// a lap of the ring past a flip of the loop variable, each exiting 0 on
// main (`checked`). `cake check` must report an error on the broken form
// and pass the fixed twin (exit 0, decided).
//  * a comparison inside an operand, a loop bound or a guard that reads
//    the loop variable (`init=(k == (M % 128 == 64) * (K % 128 == 64))`,
//    `lm.range(0, k_tiles + (M % 128 == 64 and K % 128 == 64))`, `if not
//    (M % 128 == 64 and N % 192 == 64 and k == 3):`): its outcome was
//    never combined with the others';
//  * a product of steps of one knob each (`(M % 128) // 64 * ((N % 128) //
//    64)`, `min(1, max(0, M - 1000)) * min(1, max(0, N - 2000))`): samples
//    move one knob at a time;
//  * a vector of outcomes that needs a lap past a flip of the loop variable
//    (`k == 4`), or a trip count's parameter that decides the vector too
//    (`K % 64 != 9`).
#include <gtest/gtest.h>

#include <string>

#include "attack_pair.h"

using namespace cake;
using namespace cake::testing::pairs;

namespace attack4_test {

// test_util.h's 2-slot mainloop (two consumer warpgroups, empty init_count
// 2, an epilogue through a two-slot staging view) over lm.cdiv(K, 64)
// iterations; M and N are read only where an attack puts them.
const std::string& a4Ring() {
  static const std::string text = [] {
    using cake::testing::replace;
    std::string t = replace(cake::testing::kMainloop, "K: LM.i32):\n",
                            "M: LM.i32, N: LM.i32, K: LM.i32):\n    lm.assume(M > 0)\n    lm.assume(N > 0)\n"
                            "    lm.assume(K > 0)\n");
    t = replace(t, "    with producer:\n", "    k_tiles = lm.cdiv(K, 64)\n    with producer:\n");
    t = replace(t, "lm.range(0, K)", "lm.range(0, k_tiles)");
    return replace(t, "lm.range(0, K)", "lm.range(0, k_tiles)");
  }();
  return text;
}

const std::string kA4ProdLoop = "        for k in lm.range(0, k_tiles):\n            lm.wait(empty";
const std::string kA4ConsLoop = "        for k in lm.range(0, k_tiles):\n            lm.wait(full";
const std::string kA4Arrive = "            lm.arrive(empty, iter=k)\n";
const std::string kA4Copy = "lm.copy(smem_c[lm.instance()], acc)";
const std::string kA4Store = "stage=lm.instance())";

// Both loops (fixed) or the consumers' alone (broken) over `bound`.
std::string a4Loops(const std::string& bound, bool both) {
  Edits e{{kA4ConsLoop, "        for k in lm.range(0, " + bound + "):\n            lm.wait(full"}};
  if (both) e.push_back({kA4ProdLoop, "        for k in lm.range(0, " + bound + "):\n            lm.wait(empty"});
  return edited(a4Ring(), e);
}
// The staging slot `slot` for the copy, and for the store too (fixed).
std::string a4Staging(const std::string& slot, bool both) {
  Edits e{{kA4Copy, "lm.copy(smem_c[" + slot + "], acc)"}};
  if (both) e.push_back({kA4Store, "stage=" + slot + ")"});
  return edited(a4Ring(), e);
}
// The consumers' release under `cond` (and, fixed, in the else branch too).
std::string a4Release(const std::string& cond, bool both) {
  std::string r = "            if " + cond + ":\n    " + kA4Arrive;
  if (both) r += "            else:\n    " + kA4Arrive;
  return edited(a4Ring(), {{kA4Arrive, r}});
}

}  // namespace attack4_test

using namespace attack4_test;

// The base itself is correct (proved).
TEST(Attack4, RingBasePasses) {
  const checks::CheckResult r = checkText(a4Ring());
  EXPECT_FALSE(r.hasErrors()) << describe(r);
  EXPECT_FALSE(r.undecided()) << describe(r);
}

// Comparisons inside a loop bound or an operand that need two parameters
// true together.
TEST(Attack4, ComparisonsInsideOperandsCombine) {
  const std::string both = "k_tiles + (M % 128 == 64 and K % 128 == 64)";
  expectPair("the consumers run one more iteration at M % 128 == 64 and K % 128 == 64", a4Loops(both, false),
             "sync.arrival-underflow", a4Loops(both, true));
  expectPair("the consumers run one iteration less at M % 128 == 64, N % 128 == 64, K > 300",
             a4Loops("k_tiles - (M % 128 == 64 and N % 128 == 64 and K > 300)", false), "sync.async-at-exit", "");
  expectPair("init=(k == (M % 128 == 64) * (K % 128 == 64))",
             edited(a4Ring(), {{"init=(k == 0)", "init=(k == (M % 128 == 64) * (K % 128 == 64))"}}), "data.uninitialized",
             "");
  const std::string slot = "(lm.instance() + (M % 128 == 64) * (N % 128 == 64)) % 2";
  expectPair("staging slot moved at M % 128 == 64 and N % 128 == 64", a4Staging(slot, false), "sync.race",
             a4Staging(slot, true));
}

// A guard that reads the loop variable and two knobs: its comparisons of
// the knobs alone are outcomes, and the vector runs past the flip at k.
TEST(Attack4, LoopGuardReadsTwoKnobs) {
  const std::string cond = "not (M % 128 == 64 and N % 192 == 64 and k == 3)";
  expectPair(cond, a4Release(cond, false), "sync.arrival-underflow", a4Release(cond, true));
  expectPair("block 2 of the last row skips the release at k == 2",
             a4Release("not (lm.block_idx(1) == lm.grid_dim(1) - 1 and lm.block_idx(0) == 2 and k == 2)", false),
             "sync.arrival-underflow", "");
  expectPair("block_idx(2) == 3 skips the release at k == 4", a4Release("lm.block_idx(2) != 3 or k != 4", false),
             "sync.arrival-underflow", "");
  // a flip far past the ring (the vector's lap must reach k = 100)
  expectPair("not (M % 128 == 64 and N % 128 == 64 and k == 100)",
             a4Release("not (M % 128 == 64 and N % 128 == 64 and k == 100)", false), "sync.arrival-underflow", "");
  // a comparison of the loop variable inside an operand flips like a guard
  const checks::CheckResult b = checkText(
      edited(a4Ring(), {{"lm.wait(empty, iter=k - 2)", "lm.wait(empty, iter=k - 2 - 2 * (k == 5) * (N > 4096))"}}));
  EXPECT_TRUE(b.hasErrors()) << "the producer's wait a lap early at k == 5 from N > 4096\n" << describe(b);
}

// Products of steps of one knob each.
TEST(Attack4, ProductOfSteps) {
  // (a product of steps in a loop bound: LoopBoundProductOfSteps)
  const std::string slot = "(lm.instance() + (M % 128) // 64 * ((N % 256) // 128)) % 2";
  expectPair(slot, a4Staging(slot, false), "sync.race", a4Staging(slot, true));
  expectPair("init=(k == min(1, max(0, M - 1000)) * min(1, max(0, N - 2000)))",
             edited(a4Ring(), {{"init=(k == 0)", "init=(k == min(1, max(0, M - 1000)) * min(1, max(0, N - 2000)))"}}),
             "data.uninitialized", "");
  for (const char* iter : {"lm.wait(full, iter=k + ((M // 64) % 3 // 2) * ((N // 64) % 5 // 4) * (k // 3))",
                           "lm.arrive(empty, iter=k - (lm.grid_dim(0) % 4 // 3) * (lm.block_idx(1) % 3 // 2) * (k == 4))"}) {
    const std::string from = std::string(iter).find("wait") != std::string::npos ? "lm.wait(full, iter=k)" : "lm.arrive(empty, iter=k)";
    const checks::CheckResult r = checkText(edited(a4Ring(), {{from, iter}}));
    EXPECT_TRUE(r.hasErrors()) << iter << ": the broken form exits 0\n" << describe(r);
  }
}

// A vector of outcomes that the trip count's own parameter decides (`K %
// 64 != 9`): moving K to the lap left the vector; Z3 now solves both.
TEST(Attack4, VectorDecidedByTheTripParameter) {
  expectPair("M % 64 == 5, N % 64 == 7, K % 64 == 9 skip the release at k == 4",
             a4Release("M % 64 != 5 or N % 64 != 7 or K % 64 != 9 or k != 4", false), "sync.arrival-underflow",
             a4Release("M % 64 != 5 or N % 64 != 7 or K % 64 != 9 or k != 4", true));
}

// The two forms round two left (helper attack5, session 29).
// A product of steps of one knob each in a loop bound: the consumers run
// one iteration more at M % 128 >= 64 and N % 128 >= 64 together.
TEST(Attack4, LoopBoundProductOfSteps) {
  const std::string bound = "k_tiles + (M % 128) // 64 * ((N % 128) // 64)";
  expectPair(bound, a4Loops(bound, false), "sync.arrival-underflow", a4Loops(bound, true));
}

// A comparison of the loop variable with a knob inside an operand (`k == M
// % 512 + 3`) times another knob's outcome (`N > 77`): the release moves a
// slot ahead at iteration M % 512 + 3 once N > 77, which shows only a lap
// past that flip with N > 77 together.
TEST(Attack4, OperandComparisonOfLoopAndKnob) {
  const std::string iter = "lm.arrive(empty, iter=k + (k == M % 512 + 3) * (N > 77))";
  const checks::CheckResult r = checkText(edited(a4Ring(), {{"lm.arrive(empty, iter=k)", iter}}));
  EXPECT_TRUE(r.hasErrors()) << iter << ": the broken form exits 0\n" << describe(r);
}

// Further forms of the two (helper attack5, session 29), each exiting 0 on
// main: in a loop bound, steps of a block index, a min of steps, three
// steps, and a step that no sample of its knob makes non-zero; an operand's
// flip past the ring (`k > M % 300 + 200`: the lap must reach iteration
// 201 with N > 77), and a wait a lap early at `k == M % 64 + 7` once N %
// 100 == 33.
TEST(Attack4, MoreLoopAndKnobForms) {
  for (const char* bound : {"k_tiles + (lm.block_idx(0) % 4 // 3) * ((N % 128) // 64)",
                            "k_tiles + min((M % 128) // 64, (N % 128) // 64)",
                            "k_tiles + (M % 128) // 64 * ((N % 128) // 64) * ((K % 256) // 192)",
                            // 0 at every sample of M, 1 at M = 857
                            "k_tiles + ((7 * M) % 1000) // 999 * ((N % 128) // 64)"}) {
    const checks::CheckResult r = checkText(a4Loops(bound, false));
    EXPECT_TRUE(r.hasErrors()) << bound << ": the broken form exits 0\n" << describe(r);
  }
  for (const auto& [from, to] : Edits{{"lm.arrive(empty, iter=k)", "lm.arrive(empty, iter=k + (k > M % 300 + 200) * (N > 77))"},
                                      {"lm.wait(full, iter=k)", "lm.wait(full, iter=k - 2 * (k == M % 64 + 7) * (N % 100 == 33))"}}) {
    const checks::CheckResult r = checkText(edited(a4Ring(), {{from, to}}));
    EXPECT_TRUE(r.hasErrors()) << to << ": the broken form exits 0\n" << describe(r);
  }
}
