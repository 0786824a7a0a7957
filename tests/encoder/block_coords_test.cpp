// Global coordinates that name the block index through one additive term
// (docs/z3.md "A block's own slice of a read-and-written global tensor",
// helper blk43, session 43): a tensor every access of which names
// `t = lm.block_idx(0)` in a dimension is proved beside a parameter guard
// (FBGEMM's get_pruning_lengths); broken twins whose boxes depend on the
// block (a box clipped at 0, another block's row, two different block
// terms) are found by `cake check` and not proved. Cost: about 2 s CPU.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "block_row.h"
#include "encoder/block_coords.h"
#include "test_util.h"

using namespace cake;

namespace block_coords_test {

using cake::testing::blockRow;

}  // namespace block_coords_test

// The block term: one added product of block indices, grid sizes and
// constants >= 0; none where two terms read the block index, where it is
// subtracted, or where it is not such a product.
TEST(BlockCoords, TheBlockTermIsOneAddedNonNegativeProduct) {
  auto mod = cake::testing::compile(cake::testing::blockRow("t", "t", true));
  ASSERT_FALSE(mod.schedules.empty());
  auto term = [](const ir::ExprPtr& e) { return encoder::blockTermOf(e); };
  const ir::ExprPtr b = ir::makeExpr(ir::ExprKind::BlockIdx, {});
  const ir::ExprPtr w = ir::makeExpr(ir::ExprKind::Instance, {});
  const ir::ExprPtr four_b = ir::makeExpr(ir::ExprKind::Mul, {ir::makeConst(4), b});
  const ir::ExprPtr rest = ir::makeExpr(ir::ExprKind::Mul, {ir::makeConst(32), w});
  const ir::ExprPtr sum = ir::makeExpr(ir::ExprKind::Add, {four_b, rest});
  EXPECT_EQ(term(sum), four_b.get());
  EXPECT_EQ(term(ir::makeExpr(ir::ExprKind::Sub, {b, ir::makeConst(1)})), b.get());  // clipped: the builder's check
  EXPECT_EQ(term(ir::makeExpr(ir::ExprKind::Sub, {ir::makeConst(5), b})), nullptr);
  EXPECT_EQ(term(ir::makeExpr(ir::ExprKind::Add, {four_b, b})), nullptr);
  EXPECT_EQ(term(ir::makeExpr(ir::ExprKind::Mul, {ir::makeConst(-4), b})), nullptr);
  EXPECT_EQ(term(ir::makeExpr(ir::ExprKind::Mul, {ir::makeExpr(ir::ExprKind::Add, {b, ir::makeConst(1)}),
                                                  ir::makeConst(4)})),
            nullptr);
  const ir::Expr* t = term(sum);
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(ir::sameExpr(*encoder::withoutBlockTerm(sum, *t),
                           *ir::makeExpr(ir::ExprKind::Add, {ir::makeConst(0), rest})));
}

// The minimal form of docs/known-limits.md (helper hunt43): *unknown*
// before ("lm.block_idx(0) outside the guards"), proved now; with the
// guard on the instance alone too.
TEST(BlockCoords, ABlocksOwnRowBesideAParameterGuardIsProved) {
  using block_coords_test::blockRow;
  cake::testing::attacks::expectCheckedAndProved(blockRow("t", "t", true), "the block's row, a parameter guard");
  cake::testing::attacks::expectCheckedAndProved(blockRow("4 * t + 1", "4 * t + 1", true), "row 4t + 1");
  cake::testing::attacks::expectCheckedAndProved(blockRow("t", "t", true, "w < 2"), "the block's row, no parameter");
}

// Broken twins (no barrier between the store and the load) whose boxes
// depend on the block: found by cake check at a block past 0, not proved.
TEST(BlockCoords, TwinsWhoseBoxesDependOnTheBlockAreFoundNotProved) {
  using block_coords_test::blockRow;
  using cake::testing::attacks::expectFoundNotProved;
  // every box at row t - 1: empty at block 0 (clipped), a race at every
  // later block; without a parameter it was *proved* ("the
  // synchronization does not depend on the parameters")
  expectFoundNotProved(blockRow("t - 1", "t - 1", false), "sync.race", "row t - 1 beside a parameter guard");
  expectFoundNotProved(blockRow("t - 1", "t - 1", false, "w < 2"), "sync.race", "row t - 1, no parameter");
  // block 1's row read by every block: a race in block 1 only
  expectFoundNotProved(blockRow("t", "1", false), "sync.race", "another block's row");
  // two block terms: the rows meet at block 1 only
  expectFoundNotProved(blockRow("4 * t + 4", "8 * t", false), "sync.race", "rows 4t + 4 and 8t");
}

// FBGEMM's get_pruning_lengths (PR #5831) with blockIdx.x as the table:
// the fixed form proved, the early return found (sync.deadlock), not proved.
TEST(BlockCoords, FbgemmPruningLengthsWithItsBlockIndexIsProved) {
  const std::string dir = "corpus/bugs/sync.deadlock/fbgemm_pruning_lengths_early_return_before_syncthreads";
  cake::testing::attacks::expectCheckedAndProved(cake::testing::corpusText(dir + "_fixed.cake"), "FBGEMM fixed");
  cake::testing::attacks::expectFoundNotProved(cake::testing::corpusText(dir + ".cake"), "sync.deadlock",
                                              "FBGEMM early return");
}
