// Soundness review, session 33 (docs/z3.md "Soundness review, session
// 33"): loops that the proof's trip count leaves empty. An empty loop
// counts as writing the register or TMEM fragments of its body only at a
// zero or negative problem size (docs/semantics.md "data.uninitialized");
// the proof read every loop its trip count left empty so, and the case
// `E <= 0` of a persistent kernel built its systems at K = 0. A trip
// count of 0 from `lm.cdiv(K, 64) - 1` or `lm.cdiv(K - 64, 64)` is K =
// 1..64, positive sizes, where the loop writes nothing: such schedules
// read unwritten fragments there and were proved. Each attack below is
// broken at K = 1 (the explicit engine) and must not be proved; the bases
// (the K loop empty at K <= 0 only) stay proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"

using namespace cake::testing;
using namespace cake::testing::attacks;

namespace trip_empty_sizes_test {

// corpus/gemm/sm90_ws_4stage.cake without `lm.assume(K > 0)`: its K loop
// is empty at K <= 0 only, a degenerate size (proved: `every lm.cdiv(K,
// 64) >= 0`).
std::string oneLoopBase() {
  return replace(corpusText("corpus/gemm/sm90_ws_4stage.cake"), "    lm.assume(K > 0)\n", "");
}

// The CUTLASS grouped GEMM's fixed file without `lm.assume(K >= 0)` and
// without its K = 0 branch: its K loops are empty at K <= 0 only, where
// they count as writing the accumulator (proved per case of the K trip
// count).
std::string persistentBase() {
  std::string text = corpusText("corpus/bugs/data.uninitialized/cutlass_sm100_grouped_gemm_k0_acc_unwritten_fixed.cake");
  text = replace(text, "    lm.assume(K >= 0)\n", "");
  return replace(text,
                 "                if k_tiles == 0:\n"
                 "                    lm.fill(acc_q, 0)\n"
                 "                elif t % 2 == 0:\n",
                 "                if t % 2 == 0:\n");
}

}  // namespace trip_empty_sizes_test

namespace tes = trip_empty_sizes_test;

TEST(TripEmptySizes, LoopsEmptyAtPositiveSizesAreNotProved) {
  const std::vector<std::pair<std::string, int64_t>> at_one = {{"M", 128}, {"N", 128}, {"K", 1}};
  attack(tes::oneLoopBase(), {{"M", 128}, {"N", 128}, {"K", 0}},
         {
             {{{"k_tiles = lm.cdiv(K, 64)", "k_tiles = lm.cdiv(K, 64) - 1"}},
              "the K loop one short: empty at K = 1..64 (trip count 1)",
              at_one},
             {{{"k_tiles = lm.cdiv(K, 64)", "k_tiles = lm.cdiv(K - 64, 64)"}},
              "the K loop over lm.cdiv(K - 64, 64): empty at K = 1..64 (trip count 0)",
              at_one},
         });
}

TEST(TripEmptySizes, PersistentKLoopsEmptyAtPositiveSizesAreNotProved) {
  attack(tes::persistentBase(), {{"M", 128}, {"N", 128}, {"K", 0}},
         {
             {{{"k_tiles   = lm.cdiv(K, 64)", "k_tiles   = lm.cdiv(K - 64, 64)"}},
              "the K loops over lm.cdiv(K - 64, 64): the case lm.cdiv(K - 64, 64) <= 0 holds K = 1..64",
              {{"M", 128}, {"N", 128}, {"K", 1}}},
         });
}
