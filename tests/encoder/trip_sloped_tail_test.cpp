// Sloped copies near a tile's end (docs/z3.md "Sloped copies near a tile's
// end", helper fa4_48, session 48; obstacle (i) of FA4's correction
// warpgroup). A persistent kernel whose K iterations repeat only at the ring
// positions runs reach (fa7's kRingMinusTile: the MMA waits `o_ready` at `g
// - t - 1`, left out by the grid at x <= t) with K iterations near a tile's
// end of their own (the MMA's last iteration drains its MMA groups,
// `mma_wait(pending=0)`) was refused (`K iterations near the tile's end
// differ and the grid repeats only at the ring positions runs reach`): the
// copies near the end checked their periods at every ring position of every
// tile. They now check them where the shifts apply (PGrid::periodsHoldOn),
// as the copies per ring start do. Broken forms, each found by `cake check`,
// are not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "persistent_kernels.h"
#include "test_util.h"

namespace trip_sloped_tail_test {

using cake::testing::attacks::Attack;

// kRingMinusTile with the MMA's last K iteration of each tile draining its
// MMA groups (a wait's `pending` changed near the end: copies near the end).
inline const std::string kMmaGroupsDone = "                lm.mma_commit(barrier=o_done, iter=g)\n";
std::string slopedTail() {
  return cake::testing::replace(cake::testing::kRingMinusTile, kMmaGroupsDone,
                                kMmaGroupsDone +
                                    "                if j + 1 < n_blocks:\n                    lm.mma_wait(pending=1)\n"
                                    "                else:\n                    lm.mma_wait(pending=0)\n");
}

inline const std::string kRescaleWait =
    "                else:\n                    lm.wait(o_ready, iter=g - t - 1)\n";

// The MMA's last K iteration (from tile `from` on) waits for the rescale at
// `iter` instead; "" leaves the wait out there.
std::string lastIterationWaits(const char* iter, int from = 0) {
  const std::string guard = from > 0 ? " or t < " + std::to_string(from) : "";
  std::string out = "                elif j + 1 < n_blocks" + guard + ":\n                    lm.wait(o_ready, iter=g - t - 1)\n";
  if (*iter) out += "                else:\n                    lm.wait(o_ready, iter=" + std::string(iter) + ")\n";
  return out;
}

// Broken in a tile's first K iteration that is also its last, and in the
// correction's last K iteration (the exploration meets it).
std::vector<Attack> slopedTailAttacks() {
  return {
      {{{"                if j == 0:\n                    lm.wait(o_empty, iter=t - 1)\n",
         "                if j == 0:\n                    if j + 1 < n_blocks:\n                        lm.wait(o_empty, "
         "iter=t - 1)\n"}},
       "a tile of one block does not wait for the correction to read the tile before's O",
       {{"seqlen_k", 1}, {"T", 2}}},
      {{{"                    lm.tmem_store_wait()\n",
         "                    if j + 1 < n_blocks:\n                        lm.tmem_store_wait()\n"}},
       "the correction's last K iteration arrives on o_ready before its tcgen05.st completes",
       {{"seqlen_k", 257}, {"T", 1}}},
  };
}

// The MMA's last K iteration waiting for the rescale otherwise (each
// refused by the copies near the end's matching or checkTileExprs).
std::vector<Attack> slowSlopedTailAttacks() {
  return {
      {{{kRescaleWait, lastIterationWaits("")}},
       "the MMA's last K iteration does not wait for the rescale (its PV MMA writes O while corr reads it)",
       {{"seqlen_k", 257}, {"T", 1}}},
      {{{kRescaleWait, lastIterationWaits("g - t")}},
       "the MMA's last K iteration waits for the rescale of its own block (never comes)",
       {{"seqlen_k", 257}, {"T", 1}}},
      {{{kRescaleWait, lastIterationWaits("g - t - 2")}},
       "the MMA's last K iteration waits for the rescale one block early",
       {{"seqlen_k", 385}, {"T", 1}}},
      {{{kRescaleWait, lastIterationWaits("g - t", 2)}},
       "from tile 2 on, the MMA's last K iteration waits for the rescale of its own block",
       {{"seqlen_k", 257}, {"T", 3}}},
      {{{kRescaleWait, lastIterationWaits("g - t - 2", 2)}},
       "from tile 2 on, the MMA's last K iteration waits for the rescale one block early",
       {{"seqlen_k", 385}, {"T", 3}}},
      {{{kRescaleWait, lastIterationWaits("g - 2 * t - 1")}},
       "the MMA's last K iteration counts the rescales two fewer per tile (one phase early from tile 1 on)",
       {{"seqlen_k", 385}, {"T", 2}}},
  };
}

}  // namespace trip_sloped_tail_test

namespace tst = trip_sloped_tail_test;

TEST(TripSlopedTail, SlopedCopiesNearTheEndAreProvedAndTheirBrokenFormsAreNot) {
  cake::testing::attacks::attack(tst::slopedTail(), {{"seqlen_k", 257}, {"T", 3}}, tst::slopedTailAttacks());
}

TEST(TripSlopedTail, SlowSlopedCopiesNearTheEndAttacks) {
  cake::testing::attacks::attack(tst::slopedTail(), {{"seqlen_k", 257}, {"T", 3}}, tst::slowSlopedTailAttacks());
}

// FA4's correction warpgroup (corpus/attention/sm100_fa4_persistent_correction_tmem.cake)
// is no longer refused for its sloped copies near the end; with session 50's
// three steps (docs/z3.md "FA4 proved: ...") it is proved, within the
// default work budget; since session 51 in the narrow ring window (docs/z3.md
// "The tile period of the renamed reads first"), about 3 s of CPU (label slow).
TEST(TripSlopedTail, SlowFa4IsProved) {
  auto mod = cake::testing::compile(
      cake::testing::corpusText("corpus/attention/sm100_fa4_persistent_correction_tmem.cake"));
  ASSERT_FALSE(mod.schedules.empty());
  const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
  EXPECT_EQ(r.outcome, cake::encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("window 16 tiles x 12 iterations"), std::string::npos) << r.engine;
}
