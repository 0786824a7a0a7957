// The last tiles to a depth (docs/z3.md "The last tiles to a depth",
// helper fa8, session 39; obstacle 1 (b) of FA4's correction warpgroup).
// FA4's MMA hands the two-slot Q ring back after every tile but the last
// two (`if t + 2 < T:`): the tile count read to depth 2, which the
// last-tile argument (depth 1) refused. The last m tiles (m up to 3) now
// each get a copy of their part after the K loop, entered with the tile
// count fixed to t + d. Broken forms, each found by the bounded check, are
// not proved.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "attack_pair.h"
#include "attack_util.h"
#include "persistent_kernels.h"
#include "test_util.h"

using namespace cake;

namespace trip_fa8_test {

// The two-slot Q ring handed back after every tile's K loop but the last
// two's (persistent_kernels.h).
const std::string kQRing = cake::testing::queryRing();

const std::string kRelease = cake::testing::kQueryRingRelease;

}  // namespace trip_fa8_test

namespace tfa8 = trip_fa8_test;

// Proved on main only with the read at depth 1; each form below reads the
// tile count to depth 1, 2 or 3 and is clean (the bounded check agrees).
TEST(TripFa8, TileCountReadToDepthTwoOrThreeIsProved) {
  using cake::testing::replace;
  const std::string depth3 =
      "            if t + 3 < tiles:\n                lm.arrive(q_empty, iter=t)\n"
      "            elif t + 3 == tiles:\n                lm.arrive(q_empty, iter=t)\n";
  for (const std::string& text :
       {tfa8::kQRing, replace(tfa8::kQRing, "t + 2 < tiles", "t + 2 != tiles"),
        replace(tfa8::kQRing, "t + 2 < tiles", "t + 1 < tiles"), replace(tfa8::kQRing, tfa8::kRelease, depth3)}) {
    auto mod = cake::testing::compile(text);
    ASSERT_FALSE(mod.schedules.empty());
    const ir::Schedule& s = mod.schedules.at(0);
    auto r = cake::testing::attacks::proveDefault(s);
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << text << r.detail;
    auto [proved, rules, detail] = cake::testing::attacks::modelCheck(s);
    EXPECT_TRUE(rules.empty()) << text << detail;
  }
}

TEST(TripFa8, BrokenQRingReleasesToDepthTwoAreFoundAndNotProved) {
  namespace at = cake::testing::attacks;
  const std::string& rel = tfa8::kRelease;
  at::attack(tfa8::kQRing, {{"M", 3 * 64}, {"K", 128}},
             {
                 {{{"t + 2 < tiles", "t + 3 < tiles"}},
                  "the Q slot released by one tile fewer (the loader of the last tile hangs)",
                  {{"M", 3 * 64}, {"K", 64}}},
                 {{{"t + 2 < tiles", "t + 2 > tiles"}}, "the Q slot never released", {{"M", 3 * 64}, {"K", 64}}},
                 {{{rel, rel + "            elif t + 2 == tiles:\n                lm.wait(q_full, iter=t + 2)\n"}},
                  "the second-to-last tile waits for a Q tile that never comes",
                  {{"M", 2 * 64}, {"K", 64}}},
                 {{{rel, rel + "            elif t + 1 == tiles:\n                lm.wait(q_full, iter=t + 1)\n"}},
                  "the last tile waits for a Q tile that never comes",
                  {{"M", 64}, {"K", 64}}},
                 {{{rel, rel + "            elif t + 2 == tiles:\n                lm.arrive(q_empty, iter=t + 1)\n"}},
                  "the second-to-last tile releases the other Q slot",
                  {{"M", 3 * 64}, {"K", 64}}},
                 {{{"t + 2 < tiles", "t + 4 < tiles"}},
                  "the Q slot released by two tiles fewer (refused: deeper than 3)",
                  {{"M", 3 * 64}, {"K", 64}}},
             });
}

namespace trip_fa8_test {

// kQRing whose consumer also waits for its tile's first slot before the K
// loop (`t * k_tiles`: the part before the K loop moves with the ring and
// has a copy per ring start, docs/z3.md "A per-tile prologue that moves
// with the ring"), as FA4's MMA issues the tile's first S before its K loop.
const std::string kRingStartWait = "            lm.wait(full, iter=t * k_tiles)\n";
const std::string kQRingStart = cake::testing::replace(kQRing, "            lm.wait(q_full, iter=t)\n",
                                                       "            lm.wait(q_full, iter=t)\n" + kRingStartWait);

}  // namespace trip_fa8_test

// The ring start read before the K loop together with the tile count
// (depth 1 or 2): refused on main ("reads the tile count and the tile's
// ring start inside the tile loop"), now proved; the last tiles' parts per
// ring start are checked against their copies (lastTilesAtRingStart).
TEST(TripFa8, RingStartReadWithTheTileCountIsProvedAndItsBrokenFormsAreNot) {
  namespace at = cake::testing::attacks;
  using cake::testing::replace;
  {
    auto mod = cake::testing::compile(replace(tfa8::kQRingStart, "t + 2 < tiles", "t + 1 < tiles"));
    const auto r = at::proveDefault(mod.schedules.at(0));
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  }
  const std::string& rel = tfa8::kRelease;
  at::attack(
      tfa8::kQRingStart, {{"M", 3 * 64}, {"K", 128}},
      {
          {{{tfa8::kRingStartWait, "            lm.wait(full, iter=t * k_tiles + 1)\n"}},
           "the tile's start waits for its second slot (the last tile of one block hangs)",
           {{"M", 64}, {"K", 64}}},
          {{{rel,
             rel +
                 "            elif t + 2 == tiles:\n                lm.wait(full, iter=t * k_tiles + 2 * k_tiles)\n"}},
           "the second-to-last tile waits for the first slot of a tile past the last",
           {{"M", 2 * 64}, {"K", 64}}},
          {{{rel,
             rel + "            elif t + 1 == tiles:\n                lm.wait(full, iter=t * k_tiles + k_tiles)\n"}},
           "the last tile waits for the first slot of the next tile",
           {{"M", 64}, {"K", 64}}},
          {{{rel, rel + "            elif t + 2 == tiles:\n                lm.arrive(empty, iter=t * k_tiles + k_tiles "
                        "- 1)\n"}},
           "the second-to-last tile releases its last slot twice",
           {{"M", 2 * 64}, {"K", 128}}},
          // (the wait is left out at ring start 0, so the grid's part
          // did not move with the ring: it stood for every ring start
          // and the wait was left out of every explored run; proved
          // before, markRingStartReadersBeforeK)
          {{{tfa8::kRingStartWait, "            lm.wait(full, iter=t * k_tiles - 1)\n"}},
           "the tile's start waits for the tile before's last slot, which the loader may have refilled",
           {{"M", 3 * 64}, {"K", 64}}},
          {{{tfa8::kRingStartWait, "            lm.wait(full, iter=t * k_tiles - 1)\n"},
            {rel, "            lm.arrive(q_empty, iter=t)\n"}},
           "the same without a read of the tile count",
           {{"M", 3 * 64}, {"K", 64}}},
      });
}
