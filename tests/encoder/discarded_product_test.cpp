// data.discarded-product: an MMA product in registers overwritten before
// its instance read it (docs/rules/data.discarded-product.md). Decided when
// the system is built; every engine reports it when the op runs.
#include <gtest/gtest.h>

#include "encoder/simulator.h"
#include "encoder/z3_po.h"
#include "test_util.h"

using namespace cake;

namespace discarded_product_test {

struct Explored {
  ir::Module mod;
  encoder::System sys;
  encoder::ModelCheckResult result;
};

Explored exploreDiscarded(const std::string& text, int64_t k) {
  Explored r;
  r.mod = cake::testing::compile(text);
  if (r.mod.schedules.empty()) return r;
  r.sys = cake::testing::build(r.mod.schedules[0], cake::testing::bind(r.mod.schedules[0], {{"K", k}}));
  r.result = encoder::explore(r.sys, {});
  return r;
}

// Two tiles per instance; the K loop reduces into acc, which reaches C
// through a converted copy `out`.
const std::string& kDiscardTiles = cake::testing::kTwoTilesKLoop;

}  // namespace discarded_product_test

using discarded_product_test::exploreDiscarded;
using discarded_product_test::kDiscardTiles;

TEST(DiscardedProduct, AReducingKLoopIsClean) {
  for (int64_t k : {1, 2, 3}) {
    auto r = exploreDiscarded(kDiscardTiles, k);
    EXPECT_EQ(r.result.outcome, encoder::Outcome::Pass) << "K=" << k << "\n" << cake::testing::rules(r.result);
  }
}

TEST(DiscardedProduct, AClearInsideTheKLoopIsReported) {
  // tilelang #2627: init= true on every k, so each k's product overwrites
  // the previous one, which nothing read
  const std::string every_k = cake::testing::replace(kDiscardTiles, "init=(k == 0)", "init=True");
  auto one = exploreDiscarded(every_k, 1);
  EXPECT_FALSE(cake::testing::hasRule(one.result, "data.discarded-product")) << cake::testing::rules(one.result);
  auto r = exploreDiscarded(every_k, 2);
  const encoder::Violation* v = cake::testing::find(r.result, "data.discarded-product");
  ASSERT_NE(v, nullptr) << cake::testing::rules(r.result);
  EXPECT_EQ(cake::testing::primaryLine(r.sys, *v), cake::testing::lineOf(every_k, "lm.mma(acc"));
  EXPECT_EQ(v->buffer, "acc element (0, 0)");
  ASSERT_EQ(v->others.size(), 1u);  // the note points at the MMA whose product is lost
  EXPECT_EQ(r.sys.procs[v->others[0].proc].program[v->others[0].pc].stmt->op.range.line,
            cake::testing::lineOf(every_k, "lm.mma(acc"));
  // a fill inside the loop loses it the same way
  const std::string fill = cake::testing::replace(
      kDiscardTiles, "                lm.mma(acc, fa, fb, init=(k == 0))\n",
      "                lm.fill(acc, 0.0)\n                lm.mma(acc, fa, fb)\n");
  EXPECT_TRUE(cake::testing::hasRule(exploreDiscarded(fill, 2).result, "data.discarded-product"));
  // every engine reports it
  encoder::PoResult z = encoder::poCheck(r.sys, {});
  EXPECT_FALSE(z.internal_error) << z.error;
  EXPECT_TRUE(cake::testing::hasRule(z.result, "data.discarded-product")) << cake::testing::rules(z.result);
}

TEST(DiscardedProduct, ASkippedEpilogueIsReportedAcrossTiles) {
  // the persistent-kernel "epilogue skipped" bug: tile 0's product is
  // never read before tile 1's init= true MMA
  const std::string skipped = cake::testing::replace(
      cake::testing::replace(kDiscardTiles, "            lm.copy(out, acc)\n", "            if t == 1:\n                lm.copy(out, acc)\n"),
      "            lm.copy(C, out, coords=(128 * t, 0))\n",
      "            if t == 1:\n                lm.copy(C, out, coords=(128 * t, 0))\n");
  ASSERT_NE(skipped, kDiscardTiles);
  EXPECT_TRUE(cake::testing::hasRule(exploreDiscarded(skipped, 1).result, "data.discarded-product"));
  // an epilogue that reads only half of the tile loses the other half
  const std::string half = cake::testing::replace(
      cake::testing::replace(kDiscardTiles, "lm.copy(out, acc)", "lm.copy(out[:, 0:64], acc[:, 0:64])"),
      "lm.copy(C, out, coords=(128 * t, 0))", "lm.copy(C, out[:, 0:64], coords=(128 * t, 0))");
  auto h = exploreDiscarded(half, 1);
  const encoder::Violation* v = cake::testing::find(h.result, "data.discarded-product");
  ASSERT_NE(v, nullptr) << cake::testing::rules(h.result);
  EXPECT_EQ(v->buffer, "acc element (0, 64)");
}

// A product the instance never reads before it exits is lost too: the
// last tile's epilogue skipped (CUTLASS's FP8 accumulation without its
// residue promotion, docs/limits/fp8_promotion_residue_dropped_one_tile.cake).
// Reported at the instance's last operation, with the note at the MMA, by
// every engine; a proof's build (hooked) leaves it out.
TEST(DiscardedProduct, AProductLeftUnreadAtExitIsReported) {
  // (the store of `out` stays: the hazard goes on an instruction after the
  // product, and an instance whose last instruction is the MMA itself is
  // not judged yet, docs/rules/data.discarded-product.md "At exit")
  const std::string last_skipped = cake::testing::replace(
      kDiscardTiles, "            lm.copy(out, acc)\n", "            if t == 0:\n                lm.copy(out, acc)\n");
  ASSERT_NE(last_skipped, kDiscardTiles);
  auto r = exploreDiscarded(last_skipped, 2);
  const encoder::Violation* v = cake::testing::find(r.result, "data.discarded-product");
  ASSERT_NE(v, nullptr) << cake::testing::rules(r.result);
  EXPECT_NE(v->message.find("never used or stored before the instance exits"), std::string::npos) << v->message;
  EXPECT_EQ(v->buffer, "acc element (0, 0)");
  ASSERT_EQ(v->others.size(), 1u);
  EXPECT_EQ(r.sys.procs[v->others[0].proc].program[v->others[0].pc].stmt->op.range.line,
            cake::testing::lineOf(last_skipped, "lm.mma(acc"));
  encoder::PoResult z = encoder::poCheck(r.sys, {});
  EXPECT_FALSE(z.internal_error) << z.error;
  EXPECT_TRUE(cake::testing::hasRule(z.result, "data.discarded-product")) << cake::testing::rules(z.result);
  // the last tile read (the file as written) is clean at exit
  EXPECT_EQ(exploreDiscarded(kDiscardTiles, 2).result.outcome, encoder::Outcome::Pass);
  // so is a last product read in part (the rows a small-M tile keeps; its
  // padding rows are never stored)
  const std::string one_tile_half = cake::testing::replace(
      cake::testing::replace(cake::testing::replace(kDiscardTiles, "lm.range(0, 2)", "lm.range(0, 1)"),
                             "lm.copy(out, acc)", "lm.copy(out[0:16, :], acc[0:16, :])"),
      "lm.copy(C, out, coords=(128 * t, 0))", "lm.copy(C, out[0:16, :], coords=(128 * t, 0))");
  EXPECT_FALSE(cake::testing::hasRule(exploreDiscarded(one_tile_half, 2).result, "data.discarded-product"));
  // an instance whose epilogue a guard skips and that never moved a product
  // out is not judged (a block past M; review49): only a temporary emptied
  // and refilled is
  const std::string never_moved_out = cake::testing::replace(
      cake::testing::replace(kDiscardTiles, "lm.range(0, 2)", "lm.range(0, 1)"), "            lm.copy(out, acc)\n",
      "            if t == 1:\n                lm.copy(out, acc)\n");
  ASSERT_NE(never_moved_out, kDiscardTiles);
  EXPECT_FALSE(cake::testing::hasRule(exploreDiscarded(never_moved_out, 2).result, "data.discarded-product"));
}

// A temporary restarted by a fill of its own (`lm.fill(acc, 0.0)`, then MMAs
// that add to it) rather than by an init= MMA is judged at exit too
// (helper attack50: the FP8 promotion so spelt, its residue promotion left
// out, was proved); the last tile read is clean.
TEST(DiscardedProduct, ATemporaryRestartedByAFillIsJudgedAtExit) {
  const std::string fill_restart = cake::testing::replace(
      cake::testing::replace(kDiscardTiles, "            for k in lm.range(0, K):\n",
                             "            lm.fill(acc, 0.0)\n            for k in lm.range(0, K):\n"),
      "init=(k == 0)", "init=False");
  ASSERT_NE(fill_restart, kDiscardTiles);
  EXPECT_EQ(exploreDiscarded(fill_restart, 2).result.outcome, encoder::Outcome::Pass);
  const std::string last_skipped = cake::testing::replace(fill_restart, "            lm.copy(out, acc)\n",
                                                          "            if t == 0:\n                lm.copy(out, acc)\n");
  auto r = exploreDiscarded(last_skipped, 2);
  const encoder::Violation* v = cake::testing::find(r.result, "data.discarded-product");
  ASSERT_NE(v, nullptr) << cake::testing::rules(r.result);
  EXPECT_NE(v->message.find("never used or stored before the instance exits"), std::string::npos) << v->message;
}

TEST(DiscardedProduct, AReadBeforeTheOverwriteIsClean) {
  // each k's product read (copied out) before init= true clears it again
  const std::string read_first = cake::testing::replace(
      cake::testing::replace(kDiscardTiles, "init=(k == 0))\n", "init=True)\n                lm.copy(out, acc)\n"),
      "            lm.copy(out, acc)\n", "");
  ASSERT_NE(read_first, kDiscardTiles);
  for (int64_t k : {1, 3}) {
    auto r = exploreDiscarded(read_first, k);
    EXPECT_FALSE(cake::testing::hasRule(r.result, "data.discarded-product")) << "K=" << k << "\n"
                                                                            << cake::testing::rules(r.result);
  }
  // an in-place rescale reads what it overwrites
  const std::string rescale = cake::testing::replace(
      kDiscardTiles, "                lm.mma(acc, fa, fb, init=(k == 0))\n",
      "                lm.mma(acc, fa, fb, init=(k == 0))\n                lm.binary(acc, acc, acc, op=\"mul\")\n");
  EXPECT_EQ(exploreDiscarded(rescale, 2).result.outcome, encoder::Outcome::Pass);
}

// A schedule that never reads the fragment (the mainloop modelled, the
// epilogue left out) has no modelled consumer of the product: silent,
// even with the clear inside the K loop; adding one read anywhere turns
// the rule on.
TEST(DiscardedProduct, AFragmentNoOpReadsIsNotJudged) {
  const std::string no_epilogue = cake::testing::replace(
      cake::testing::replace(kDiscardTiles, "            lm.copy(out, acc)\n", ""), "            lm.copy(C, out, coords=(128 * t, 0))\n", "");
  ASSERT_NE(no_epilogue, kDiscardTiles);
  const std::string every_k = cake::testing::replace(no_epilogue, "init=(k == 0)", "init=True");
  EXPECT_FALSE(cake::testing::hasRule(exploreDiscarded(every_k, 2).result, "data.discarded-product"));
  const std::string read_once = cake::testing::replace(every_k, "        lm.fill(fb, 1.0)\n",
                                                       "        lm.fill(fb, 1.0)\n        lm.copy(out, acc)\n");
  ASSERT_NE(read_once, every_k);
  EXPECT_TRUE(cake::testing::hasRule(exploreDiscarded(read_once, 2).result, "data.discarded-product"));
}
