// Soundness review, session 37 (docs/rules/data.stale-read.md "Across roles,
// and only where the data changes"): three ways a skipped per-tile write
// hid from session 36's rule, each *proved* on main (exit 0):
//  * the written data changes per tile through a fragment several
//    statements write (a guard picks the load) or whose value its own
//    definition carries (a running offset, a reduce's running values),
//    though no expression reads the tile loop's variable;
//  * a write at the read's tile over other bytes (the first producer
//    warp's half of the row) cancelled the skip of the second warp's half.
// Each broken form clean at one tile and data.stale-read at two, found by
// `cake check` and not proved; each fixed form clean.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "ir/expr_canon.h"

using namespace cake;
using namespace cake::testing;
using namespace cake::testing::attacks;

namespace sound37_attacks_test {

const std::string& kDir = kStaleReadDir;
// The producer's store of the row on every tile, and on the first only.
const std::string kEveryTile = "            lm.copy(row[0], v)\n";
const std::string& kFirstTile = kRowStoredOnTheFirstTile;

}  // namespace sound37_attacks_test

namespace s37 = sound37_attacks_test;

// A running value carried in registers from tile to tile: by the
// fragment's own update, through a second fragment, or as a reduce's
// running values (value=).
TEST(Sound37, CarriedFragmentPublishedOnTheFirstTileOnlyIsFound) {
  const std::string broken = corpusText(s37::kDir + "sm90_running_offset_published_first_tile_only.cake");
  expectStaleFromTheSecondTile(broken, "a running offset published on the first tile only");
  expectNoSyncFinding(corpusText(s37::kDir + "sm90_running_offset_published_first_tile_only_fixed.cake"),
                      "the running offset published every tile");
  // carried through a second fragment: v = 2 * u, then u = v
  const std::string two = replace(replace(replace(broken, "    w    = lm.regs(", "    u    = lm.regs(shape=(1, 32), dtype=lm.f32)\n    w    = lm.regs("),
                                                  "        lm.copy(v, T, coords=(0, 0))\n", "        lm.copy(u, T, coords=(0, 0))\n"),
                                          "            lm.binary(v, v, 1.0, op=\"add\")\n" + s37::kFirstTile,
                                          "            lm.binary(v, u, 2.0, op=\"mul\")\n" + s37::kFirstTile + "            lm.copy(u, v)\n");
  expectStaleFromTheSecondTile(two, "a value carried through a second fragment");
  expectNoSyncFinding(replace(two, s37::kFirstTile, s37::kEveryTile), "the value carried through two, every tile");
  // a reduce's running minimum (value=), published on the first tile only
  const std::string best = replace(
      replace(replace(broken, "    w    = lm.regs(shape=(1, 32), dtype=lm.f32)\n",
                      "    w    = lm.regs(shape=(1, 32), dtype=lm.f32)\n    lab  = lm.regs(shape=(1, 1), dtype=lm.i32)\n"
                      "    best = lm.regs(shape=(1, 1), dtype=lm.f32)\n    b1   = lm.regs(shape=(1, 1), dtype=lm.f32)\n"),
              "        lm.copy(v, T, coords=(0, 0))\n",
              "        lm.copy(v, T, coords=(0, 0))\n        lm.fill(best, 1000000.0)\n        lm.fill(lab, 0)\n"),
      "            lm.binary(v, v, 1.0, op=\"add\")\n" + s37::kFirstTile,
      "            lm.reduce(lab, v, op=\"argmin\", axis=1, value=best)\n            if t == 0:\n"
      "                lm.copy(row[0][:, 0:1], best)\n");
  expectStaleFromTheSecondTile(replace(replace(best, "lm.copy(w, row[0])", "lm.copy(b1, row[0][:, 0:1])"),
                              "lm.copy(O, w, coords=(t, 0))", "lm.copy(O, b1, coords=(t, 0))"),
                      "a reduce's running values published on the first tile only");
}

// The data picked per tile by a guard between two loads of constant
// coordinates.
TEST(Sound37, RowPickedByAGuardStoredOnTheFirstTileOnlyIsFound) {
  expectStaleFromTheSecondTile(corpusText(s37::kDir + "sm90_table_row_by_tile_parity_first_tile_only.cake"),
                      "the parity's row stored on the first tile only");
  expectNoSyncFinding(corpusText(s37::kDir + "sm90_table_row_by_tile_parity_first_tile_only_fixed.cake"),
                      "the parity's row stored every tile");
  // one load under a guard that does not change the data: a lazy table (clean)
  const std::string lazy = corpusText("corpus/bugs/data.stale-read/sm90_table_row_other_role_first_tile_only.cake");
  expectNoSyncFinding(replace(lazy, "lm.copy(v, T, coords=(t, 0))", "lm.copy(v, T, coords=(0, 0))"),
                      "a table loaded on the first tile only");
}

// Two producer warps write one half of the row each; the second on the
// first tile only. The first warp's write at the read's tile covers its own
// half only.
TEST(Sound37, HalfOfTheRowWrittenOnTheFirstTileOnlyIsFound) {
  expectStaleFromTheSecondTile(corpusText(s37::kDir + "sm90_table_row_halves_second_warp_first_tile_only.cake"),
                      "the second warp's half written on the first tile only");
  expectNoSyncFinding(corpusText(s37::kDir + "sm90_table_row_halves_second_warp_first_tile_only_fixed.cake"),
                      "both halves written every tile");
}

// sound37b: the cross-role pairing compared loop bounds by spelling, so a
// writer's loop over `n + 0`, `1 * n` or `2 * n - n` tiles was not the
// reader's loop over `n`, and its skipped write went unseen (each was
// *proved*). Paired by value now: by canonical form, else by Z3 (the corpus
// pair's `lm.cdiv(K, 64)` against `(K + 63) // 64`).
TEST(Sound37, WriterLoopBoundSpelledApartIsPaired) {
  const std::string base = corpusText(s37::kDir + "sm90_table_row_other_role_first_tile_only.cake");
  for (const char* bound : {"n + 0", "1 * n", "2 * n - n"}) {
    const std::string producer = "    with prod:\n        for t in lm.range(0, ";
    expectStaleFromTheSecondTile(replace(base, producer + "n):", producer + bound + "):"), bound);
  }
  expectFoundNotProved(corpusText(s37::kDir + "sm90_table_row_tile_count_spelled_apart_first_tile_only.cake"),
                       "data.stale-read", "lm.cdiv(K, 64) tiles against (K + 63) // 64");
  expectNoSyncFinding(corpusText(s37::kDir + "sm90_table_row_tile_count_spelled_apart_first_tile_only_fixed.cake"),
                      "the row written every tile, tile counts spelled apart");
}

// The canonical form: equal forms are equal values; anything else is
// "not shown" (Z3 or nothing decides it).
TEST(Sound37, CanonicalFormEqualsOnlyEqualValues) {
  using ir::ExprKind;
  const auto n = std::make_shared<ir::Expr>(ir::Expr{.kind = ExprKind::Param, .index = 0});
  const auto m = std::make_shared<ir::Expr>(ir::Expr{.kind = ExprKind::Param, .index = 1});
  const auto t = std::make_shared<ir::Expr>(ir::Expr{.kind = ExprKind::LoopVar, .index = 3});
  const auto u = std::make_shared<ir::Expr>(ir::Expr{.kind = ExprKind::LoopVar, .index = 7});
  const auto op = [](ExprKind k, ir::ExprPtr a, ir::ExprPtr b) { return ir::makeExpr(k, {a, b}); };
  const auto c = [](int64_t v) { return ir::makeConst(v); };
  EXPECT_TRUE(ir::equalForAllValues(*n, *op(ExprKind::Add, n, c(0))));
  EXPECT_TRUE(ir::equalForAllValues(*op(ExprKind::Mul, c(2), n), *op(ExprKind::Add, n, n)));
  EXPECT_TRUE(ir::equalForAllValues(*op(ExprKind::Min, n, m), *op(ExprKind::Min, m, op(ExprKind::Mul, c(1), n))));
  EXPECT_TRUE(ir::equalForAllValues(*op(ExprKind::CDiv, n, c(64)), *op(ExprKind::CDiv, op(ExprKind::Sub, op(ExprKind::Add, n, c(1)), c(1)), c(64))));
  EXPECT_TRUE(ir::equalForAllValues(*op(ExprKind::FloorDiv, n, c(1)), *n));
  EXPECT_FALSE(ir::equalForAllValues(*n, *m));
  EXPECT_FALSE(ir::equalForAllValues(*n, *c(2)));
  EXPECT_FALSE(ir::equalForAllValues(*op(ExprKind::FloorDiv, n, c(2)), *n));
  EXPECT_FALSE(ir::equalForAllValues(*op(ExprKind::Sub, n, m), *op(ExprKind::Sub, m, n)));
  EXPECT_FALSE(ir::equalForAllValues(*op(ExprKind::Mul, op(ExprKind::Mul, n, c(INT64_MAX)), c(2)),
                                     *op(ExprKind::Mul, n, c(-2))));  // 2 * INT64_MAX leaves the range: gives up
  // a loop variable of the writer reads as the read's only where renamed
  EXPECT_FALSE(ir::equalForAllValues(*op(ExprKind::Sub, n, t), *op(ExprKind::Sub, n, u)));
  EXPECT_TRUE(ir::equalForAllValues(*op(ExprKind::Sub, n, t), *op(ExprKind::Sub, n, u), {{7, 3}}));
}
