// Holes that helper sound42's attack on session 41's steps found
// (bench/attacks/sound42_mutants.py; docs/z3.md "Soundness review, session
// 42"): broken schedules that exited 0 *checked* with nothing named, now
// found by the bounded check's stride corners, and not proved:
//  * triton-lang/triton PR #2146's fix `t * max(K // 64, 1)` under a lemma
//    that lets K be unaligned where another parameter is large (`K % 64 ==
//    0 or K < 64 or M > 300`): the corner's witness K = 1000 was set on the
//    first checked binding (M = 129: the fact fails), then taken whole, with
//    the sample's grid size of 1000 (one tile: the stride never runs); with
//    `M > 100000` Z3's witness left M arbitrary. Now each checked binding
//    is a base, the witness's parameters are taken before its grid size,
//    and the witness's other i32 parameters are least;
//  * the stride `max(K // 64, 1) + (lm.grid_dim(0) == 5) * (K == 192)`,
//    which reads the grid size besides the K loop's symbols: only factors
//    reading exactly the trip count's symbols were paired. Now every factor
//    that reads them (and more), with the differences the checked bindings
//    gave counted only where the stride's loop ran twice.
// The PR's fix under its own lemma stays proved (RespelledStride).
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "test_util.h"

using namespace cake;

namespace sound42_test {

const std::string kTriton = "corpus/bugs/sync.race/triton_ws_persistent_inner_steps_floor_max_unaligned_k_fixed.cake";
const std::string kLemma = "lm.assume(K % 64 == 0 or K < 64)";
const std::string kStride = "    num_inner_loop_steps = max(K // 64, 1)\n";

std::string withLemma(const std::string& lemma) {
  return cake::testing::replace(cake::testing::corpusText(kTriton), kLemma, "lm.assume(" + lemma + ")");
}

}  // namespace sound42_test

namespace s42 = sound42_test;

// Cost: about 1 s (each form's proof is unknown at once: K is read outside
// the loop bounds; the bounded check finds it at its corner).
TEST(Sound42, AStrideCornerTakesTheParametersItsFactsNeed) {
  using cake::testing::attacks::expectFoundNotProved;
  expectFoundNotProved(s42::withLemma("K % 64 == 0 or K < 64 or M > 300"), "sync.race",
                       "unaligned K allowed where M > 300 (a sample's witness)");
  expectFoundNotProved(s42::withLemma("K % 64 == 0 or K < 64 or M > 100000"), "sync.race",
                       "unaligned K allowed where M > 100000 (Z3's witness)");
}

// Cost: about 1 s.
TEST(Sound42, AStrideThatReadsTheGridSizeBesidesTheTripCountIsPaired) {
  using cake::testing::attacks::expectFoundNotProved;
  const std::string grid5 = cake::testing::replace(
      cake::testing::corpusText(s42::kTriton), s42::kStride,
      "    num_inner_loop_steps = max(K // 64, 1) + (lm.grid_dim(0) == 5) * (K == 192)\n");
  expectFoundNotProved(grid5, "sync.arrival-underflow", "a stride one longer at grid size 5 and K = 192");
}
