// Soundness review, session 38 (docs/rules/data.stale-read.md "Data picked
// by an inner loop"): a fragment one statement writes from data that reads
// an inner loop's variable only, where the loop's bounds or a guard inside
// it read the tile loop's variable, holds per-tile data; the data trace took
// it to hold one value at every tile, and a store of it on the first tile
// only was read as a lazy table's: *proved* on main (exit 0).
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"

using namespace cake;
using namespace cake::testing;
using namespace cake::testing::attacks;

namespace sound38_attacks_test {

const std::string& kDir = kStaleReadDir;
// The corpus pair's inner loop, and its store on the first tile only.
const std::string kPicked =
    "            for j in lm.range(0, 4):\n                if j == t:\n                    lm.copy(v, T, coords=(j, 0))\n";
const std::string& kFirstTile = kRowStoredOnTheFirstTile;

}  // namespace sound38_attacks_test

namespace s38 = sound38_attacks_test;

// The row picked by a guard inside an inner loop (the corpus pair), by the
// inner loop's bounds (`lm.range(t, t + 1)`, `lm.range(0, t + 1)`), by a
// guard in a loop inside the inner loop (`for k in lm.range(j, j + 1): if k
// == t:`), and
// written straight into shared memory by such a loop; a guard that reads
// no tile (`if t == 0:` around or inside the inner loop, constant
// coordinates) leaves a lazy table, clean.
TEST(Sound38, RowPickedByAnInnerLoopStoredOnTheFirstTileOnlyIsFound) {
  const std::string broken = corpusText(s38::kDir + "sm90_table_row_picked_in_inner_loop_first_tile_only.cake");
  expectStaleFromTheSecondTile(broken, "the row picked by if j == t, stored on the first tile only");
  expectNoSyncFinding(corpusText(s38::kDir + "sm90_table_row_picked_in_inner_loop_first_tile_only_fixed.cake"),
                      "the picked row stored every tile");
  const std::string loop = "            for j in lm.range(0, 4):\n                if j == t:\n    ";
  expectStaleFromTheSecondTile(replace(broken, loop, "            for j in lm.range(t, t + 1):\n        "),
                        "the row loaded in lm.range(t, t + 1)");
  expectStaleFromTheSecondTile(replace(broken, loop, "            for j in lm.range(0, t + 1):\n        "),
                        "the row loaded last in lm.range(0, t + 1)");
  expectStaleFromTheSecondTile(replace(broken, loop,
                                "            for j in lm.range(0, 4):\n                for k in lm.range(j, j + 1):\n"
                                "                    if k == t:\n        "),
                        "the row picked by a guard in a loop inside the j loop");
  expectStaleFromTheSecondTile(replace(broken, s38::kPicked + s38::kFirstTile,
                                "            for j in lm.range(t, t + 1):\n                if t == 0:\n"
                                "                    lm.copy(row[0], T, coords=(j, 0))\n"),
                        "the row copied straight into shared memory in lm.range(t, t + 1)");
  // lazy tables: the guard picks all of the inner loop's iterations or none
  const std::string halves = "                    lm.copy(row[0][:, 16 * j:16 * j + 16], T, coords=(0, 16 * j))\n";
  expectNoSyncFinding(replace(broken, s38::kPicked + s38::kFirstTile,
                              "            if t == 0:\n                for j in lm.range(0, 2):\n" + halves),
                      "a lazy table loaded in halves under if t == 0");
  expectNoSyncFinding(replace(broken, s38::kPicked + s38::kFirstTile,
                              "            for j in lm.range(0, 2):\n                if t == 0:\n" + halves),
                      "a lazy table loaded in halves, the guard inside the loop");
}
