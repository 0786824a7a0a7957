// A ragged last tile (docs/z3.md "A ragged last tile peeled", helper
// hunt53, session 53): a block loop over a row, `for t in lm.range(0,
// lm.cdiv(R, 128))`, whose body reads the tile's valid length
// `min(R - 128 * t, 128)` in its guards. The schedule reads R besides the
// loop's trip count, which lap induction refused ("checked, not proved");
// the proof now peels the last iteration (every earlier one reads 128
// there). The correct schedule (PaddlePaddle's MatrixRowReverse with a
// barrier after the read) is proved; broken forms, each confirmed broken
// by the bounded check, are never proved, the ones whose bug lives only in
// a partial last tile included.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "prove_util.h"
#include "test_util.h"

namespace ragged53_test {

using namespace cake;
using cake::testing::corpusText;
using cake::testing::replace;

bool brokenForSomeRow(const ir::Schedule& s) {
  return cake::testing::brokenOnGrid(s, {{"R", {32, 64, 96, 128, 160, 224, 256, 288}}});
}

const char* const kFixed = "corpus/bugs/sync.race/paddle_cumsum_block_reverse_next_tile_no_barrier_fixed.cake";
const char* const kBroken = "corpus/bugs/sync.race/paddle_cumsum_block_reverse_next_tile_no_barrier.cake";

TEST(RaggedTail53, RowsOfAnyLengthAreProved) {
  const std::string good = corpusText(kFixed);
  auto mod = cake::testing::compile(good);
  ASSERT_FALSE(mod.schedules.empty());
  ASSERT_FALSE(brokenForSomeRow(mod.schedules[0]));
  const encoder::ModelCheckResult r = cake::testing::proveSchedule(mod.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  // rows that may be empty: the peeled iteration runs under its guard
  auto empty_rows = cake::testing::compile(replace(good, "lm.assume(R >= 32)", "lm.assume(R >= 0)"));
  ASSERT_FALSE(empty_rows.schedules.empty());
  ASSERT_FALSE(brokenForSomeRow(empty_rows.schedules[0]));
  const encoder::ModelCheckResult e = cake::testing::proveSchedule(empty_rows.schedules[0]);
  EXPECT_EQ(e.outcome, encoder::Outcome::Proved) << e.detail;
}

TEST(RaggedTail53, BrokenRowsAreNotProved) {
  using cake::testing::expectBrokenNotProved;
  expectBrokenNotProved(corpusText(kBroken), brokenForSomeRow, "no barrier before the next tile");
  const std::string good = corpusText(kFixed);
  // the warps past a partial last tile's end skip the trailing barrier:
  // a hang in the last tile only
  expectBrokenNotProved(replace(good,
                                "                lm.copy(Y, v, coords=(row, R - 128 * t - 32 * w - 32))\n"
                                "            lm.sync(bar)",
                                "                lm.copy(Y, v, coords=(row, R - 128 * t - 32 * w - 32))\n"
                                "                lm.sync(bar)"),
                        brokenForSomeRow, "trailing barrier inside the read's guard");
  // the zero fill of a partial tile lands on the mirrored chunk: a race in
  // the last tile only (every earlier tile takes the load branch)
  expectBrokenNotProved(replace(good, "lm.fill(sh[w + 4 * t], 0)", "lm.fill(sh[3 - w + 4 * t], 0)"),
                        brokenForSomeRow, "zero fill on the mirrored chunk");
}

}  // namespace ragged53_test
