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

// CUB's guarded loads (`if idx < n`) instead of a valid length: a block of
// four warps sums a row, each tile's chunks through shared memory, the
// warps past the row's end filling 0. Every tile but the last takes the
// load branch in every warp.
const char* const kGuardedRowSum = R"(
@cake.schedule(target="sm_80")
def guarded_row_sum(lm, X: LM.gmem, Y: LM.gmem, R: LM.i32):
    lm.assume(R >= 1)
    pool = lm.smem(512)
    sh   = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)
    v    = lm.regs(shape=(1, 32), dtype=lm.f32)
    acc  = lm.regs(shape=(1, 32), dtype=lm.f32)
    blk = lm.role(warps=[0, 1, 2, 3], group=1)
    bar = lm.named_barrier(roles=[blk])
    with blk:
        w   = lm.instance()
        row = lm.block_idx(0)
        lm.fill(acc, 0)
        for t in lm.range(0, lm.cdiv(R, 128)):
            if 128 * t + 32 * w < R:
                lm.copy(v, X, coords=(row, 128 * t + 32 * w))
                lm.copy(sh[w + 4 * t], v)
            else:
                lm.fill(sh[w + 4 * t], 0)
            lm.sync(bar)
            if w == 0:
                for k in lm.range(0, 4):
                    lm.copy(v, sh[k + 4 * t])
                    lm.binary(acc, acc, v, op="add")
            lm.sync(bar)
        if w == 0:
            lm.copy(Y, acc, coords=(row, 0))
)";

bool brokenForSomeLength(const ir::Schedule& s) {
  return cake::testing::brokenOnGrid(s, {{"R", {1, 32, 100, 128, 129, 200, 256, 300}}});
}

TEST(RaggedTail53, GuardedLoadsOfARowAreProved) {
  auto mod = cake::testing::compile(kGuardedRowSum);
  ASSERT_FALSE(mod.schedules.empty());
  ASSERT_FALSE(brokenForSomeLength(mod.schedules[0]));
  const encoder::ModelCheckResult r = cake::testing::proveSchedule(mod.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  using cake::testing::expectBrokenNotProved;
  // warp 0 still reads tile t while the others store tile t + 1
  expectBrokenNotProved(replace(kGuardedRowSum,
                                "                    lm.binary(acc, acc, v, op=\"add\")\n            lm.sync(bar)\n",
                                "                    lm.binary(acc, acc, v, op=\"add\")\n"),
                        brokenForSomeLength, "no barrier after the reads");
  // the warps past the row's end skip the first barrier: the last tile hangs
  expectBrokenNotProved(replace(kGuardedRowSum,
                                "                lm.copy(sh[w + 4 * t], v)\n            else:\n"
                                "                lm.fill(sh[w + 4 * t], 0)\n            lm.sync(bar)\n",
                                "                lm.copy(sh[w + 4 * t], v)\n                lm.sync(bar)\n"
                                "            else:\n                lm.fill(sh[w + 4 * t], 0)\n"),
                        brokenForSomeLength, "the first barrier inside the load's guard");
}

}  // namespace ragged53_test
