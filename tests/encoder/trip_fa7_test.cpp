// A ring index minus the tile index (docs/z3.md "A ring index minus the
// tile index", helper fa7, session 38; obstacle 2 of FA4's correction
// warpgroup). The correction warpgroup rescales O in TMEM in every K
// iteration but a tile's first and arrives on o_ready once per such
// iteration, so its count lags the ring index by one per tile: the MMA
// waits `lm.wait(o_ready, iter=g - t - 1)`. The persistent grid starts
// every tile at ring index 0, so that wait is left out at the grid's
// positions x <= t, which no run reaches past a tile's first iteration
// (tile t starts at x >= t), and the plain period search found no period
// in any window (unknown after seconds of window growth). The periods are
// now searched at the positions runs reach, and the shifts keep every
// process there. Broken forms, each found by the bounded check, are not
// proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "persistent_kernels.h"
#include "test_util.h"

using namespace cake;

namespace trip_fa7_test {

using cake::testing::kRingMinusTile;

const std::string kWait = "                    lm.wait(o_ready, iter=g - t - 1)\n";

std::vector<cake::testing::attacks::Attack> ringMinusTileAttacks() {
  auto wait = [](const char* iter) { return "                    lm.wait(o_ready, iter=" + std::string(iter) + ")\n"; };
  // tiles 0 and 1 wait as the base does, later ones at `iter`
  auto fromTile2 = [](const char* iter) {
    return "                    if t < 2:\n                        lm.wait(o_ready, iter=g - t - 1)\n"
           "                    else:\n                        lm.wait(o_ready, iter=" +
           std::string(iter) + ")\n";
  };
  return {
      {{{kWait, wait("g - t")}}, "the MMA waits for the rescale of its own block (never comes)", {{"seqlen_k", 129}, {"T", 1}}},
      {{{kWait, wait("g - t - 2")}}, "the MMA waits for the rescale one block early", {{"seqlen_k", 129}, {"T", 1}}},
      {{{kWait, wait("g - 2 * t - 1")}},
       "the MMA's count of rescales lags by two per tile (one lap early from tile 1 on)",
       {{"seqlen_k", 129}, {"T", 2}}},
      {{{kWait, fromTile2("g - t")}},
       "from tile 2 on, the MMA waits for the rescale of its own block (never comes)",
       {{"seqlen_k", 129}, {"T", 3}}},
      {{{kWait, fromTile2("g - t - 2")}},
       "from tile 2 on, the MMA waits for the rescale one block early",
       {{"seqlen_k", 129}, {"T", 3}}},
      {{{"                    lm.tmem_store_wait()\n", ""}},
       "the correction arrives on o_ready before its tcgen05.st completes",
       {{"seqlen_k", 129}, {"T", 1}}},
      {{{"lm.wait(o_done, iter=g - 1)", "lm.wait(o_done, iter=g - 2)"}},
       "the correction reads O before the previous block's PV MMA completes",
       {{"seqlen_k", 129}, {"T", 1}}},
  };
}

}  // namespace trip_fa7_test

namespace tf7 = trip_fa7_test;

TEST(TripFa7, RingIndexMinusTileIndexIsProvedAndItsBrokenFormsAreNot) {
  cake::testing::attacks::attack(tf7::kRingMinusTile, {{"seqlen_k", 257}, {"T", 3}}, tf7::ringMinusTileAttacks());
}
