// Tile periods with the reads the copies rename (helper fa4_50, session 50,
// issue 11; docs/z3.md "Tile periods with the reads the copies rename"). A
// process whose part before the K loop reads the ring start (the MMA warp's
// tile-first S from `smem_k[t * n_blocks]`) gets a copy of that part per
// ring start, and every copy names that read by iteration with the
// generation of the copy at ring start Wg (namePreReadsAsTheRing). The grid
// itself names it by stage, with a generation capped at the loader's laps
// of the index per tile (min(t, 11) at 24 K iterations a tile), so the tile
// period search, which compared the grid's text, found the tile period 2
// (Q on two slots) only from tile 13 on and needed 32 tiles (FA4's tile
// warm-up). Where the exact search fails, the search now leaves those
// reads' index and generation out and requires, after the copies are
// built, that every copy renames them. Proved in 16 tiles; broken twins are
// found by `cake check` and not proved.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attack_util.h"
#include "s_ahead_kernel.h"
#include "test_util.h"

namespace trip_renamed_period_test {

// left49's kernel (s_ahead_kernel.h) with Q on two slots: the tile period 2.
std::string qTwoSlots() { return cake::testing::s_ahead::qOnTwoSlots(); }

const char* kFirstKWait = "            lm.wait(k_full, iter=base)\n";
const char* kQWait = "            lm.wait(q_full, iter=t)\n";

// `wait` (a line of the tile's part before the K loop) a lap behind from
// tile 5 on: wrong only in tiles below the old warm-up, above the new one.
std::string lapBehindFromTile5(const std::string& wait, const std::string& lap_behind) {
  return "            if t < 5:\n    " + wait + "            else:\n    " + lap_behind;
}

// Wrong only from tile 5 on: below the tile warm-up the exact search found
// (13), above the one found now (4).
std::vector<cake::testing::attacks::Attack> laterTileAttacks() {
  return {
      {{{kFirstKWait, lapBehindFromTile5(kFirstKWait, "            lm.wait(k_full, iter=base - 2)\n")}},
       "the tile's first S waits for its K block a lap behind from tile 5 on",
       {{"seqlen_k", 1}, {"n_tiles", 6}}},
      {{{kQWait, lapBehindFromTile5(kQWait, "            lm.wait(q_full, iter=t - 2)\n")}},
       "the MMA waits for its Q a lap behind from tile 5 on",
       {{"seqlen_k", 1}, {"n_tiles", 6}}},
  };
}

std::vector<cake::testing::attacks::Attack> stageAttacks() {
  return {
      {{{"smem_q[t], smem_k[base]", "smem_q[t], smem_k[base + 1]"}},
       "the tile's first S reads the next K slot",
       {{"seqlen_k", 1}, {"n_tiles", 1}}},
      {{{"smem_q[t], smem_k[base]", "smem_q[t + 1], smem_k[base]"}},
       "the tile's first S reads the other Q slot",
       {{"seqlen_k", 1}, {"n_tiles", 1}}},
  };
}

}  // namespace trip_renamed_period_test

namespace trp = trip_renamed_period_test;

// Proved in a window of 16 tiles (before: 32, tile warm-up 13; the ring
// window is 12 or 24 iterations: the narrow first window); broken
// twins not.
TEST(TripRenamedPeriod, RingStartReadsLeftOutOfTheTilePeriodAndBrokenFormsAreNotProved) {
  auto mod = cake::testing::compile(trp::qTwoSlots());
  ASSERT_FALSE(mod.schedules.empty());
  const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
  EXPECT_EQ(r.outcome, cake::encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("window 16 tiles x "), std::string::npos) << r.engine;
  cake::testing::attacks::attack(trp::qTwoSlots(), {{"seqlen_k", 257}, {"n_tiles", 3}}, trp::laterTileAttacks());
}

TEST(TripRenamedPeriod, SlowRingStartReadsOfAnotherStageAreNotProved) {
  cake::testing::attacks::attack(trp::qTwoSlots(), {{"seqlen_k", 257}, {"n_tiles", 3}}, trp::stageAttacks());
}
