// The last tiles' parts per ring end (docs/z3.md "The last tiles' parts per
// ring end", helper fa4z, session 43; obstacle 4 of FA4's correction
// warpgroup). A part after the K loop that reads the tile's ring end (FA4's
// correction: `lm.wait(o_done, iter=t * n_blocks + n_blocks - 1)`) together
// with a read of the tile count (FA4's Q ring released `if t + 2 < T:`) was
// refused (`... at the last tile's part after the K loop of epi moves with
// the ring period`); the last tiles' parts now get copies per ring end.
// Broken forms, each found by the bounded check, are not proved.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attack_util.h"
#include "persistent_kernels.h"
#include "test_util.h"

using namespace cake;

namespace trip_fa12_test {


const std::string kTileEndWait = "            lm.wait(o_done, iter=t * n_blocks + n_blocks - 1)\n";
const std::string kRelease = "            if t + 2 < T:\n                lm.arrive(q_empty, iter=t)\n";

std::vector<cake::testing::attacks::Attack> tileEndAttacks() {
  return {
      {{{kTileEndWait, "            lm.wait(o_done, iter=t * n_blocks + n_blocks)\n"}},
       "the tile's end waits for the next tile's first block (which needs this tile's O read: a hang)",
       {{"seqlen_k", 1}, {"T", 2}}},
      {{{kTileEndWait, "            lm.wait(o_done, iter=t * n_blocks + n_blocks - 2)\n"}},
       "the tile's end waits one block short of its ring end (O read while the last MMA writes it)",
       {{"seqlen_k", 1}, {"T", 1}}},
      {{{"t + 2 < T", "t + 3 < T"}},
       "the Q slot released on one tile fewer (the loader of the last tile hangs)",
       {{"seqlen_k", 1}, {"T", 3}}},
      {{{kTileEndWait, ""}},
       "no wait at the tile's end (O read while the last MMA writes it)",
       {{"seqlen_k", 1}, {"T", 1}}},
      {{{kRelease, kRelease + "            elif t + 1 == T:\n                lm.wait(o_done, iter=t * n_blocks + "
                              "n_blocks)\n"}},
       "the last tile also waits past its ring end (a hang in the last tile only)",
       {{"seqlen_k", 1}, {"T", 1}}},
      {{{kRelease, kRelease + "            elif t + 2 == T:\n                lm.wait(o_done, iter=t * n_blocks + "
                              "n_blocks - 2)\n"}},
       "the second-to-last tile waits again for a block before its ring end (a lost phase there only)",
       {{"seqlen_k", 1}, {"T", 3}}},
  };
}

}  // namespace trip_fa12_test

namespace tf12 = trip_fa12_test;

// Refused on main (`lm.wait(o_done, iter=t * n_blocks + n_blocks - 1) at the
// last tile's part after the K loop of epi moves with the ring period`).
TEST(TripFa12, TileEndWaitWithTheLastTilesIsProvedAndItsBrokenFormsAreNot) {
  cake::testing::attacks::attack(cake::testing::kTileEndKernel, {{"seqlen_k", 257}, {"T", 3}}, tf12::tileEndAttacks());
}

// The release read to depth 1 (`t + 1 < T`): clean and proved too.
TEST(TripFa12, TileEndWaitWithADepthOneReleaseIsProved) {
  auto mod = cake::testing::compile(cake::testing::replace(cake::testing::kTileEndKernel, "t + 2 < T", "t + 1 < T"));
  ASSERT_FALSE(mod.schedules.empty());
  const ir::Schedule& s = mod.schedules.at(0);
  const auto r = cake::testing::attacks::proveDefault(s);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  auto [proved, rules, detail] = cake::testing::attacks::modelCheck(s);
  EXPECT_TRUE(rules.empty()) << detail;
}

namespace trip_fa12_test {

// FA4's correction shape (persistent_kernels.h kRingMinusTile, the MMA's
// `iter=g - t - 1` waits: periods only where runs reach, docs/z3.md "A ring
// index minus the tile index") with the correction waiting for the tile's
// last PV MMA at the tile's ring end, as FA4 does, in place of a per-tile
// barrier: copies per ring end with the sloped periods.
std::string slopedTileEnd() {
  using cake::testing::replace;
  std::string k = replace(cake::testing::kRingMinusTile, "            lm.mma_commit(barrier=o_full, iter=t)\n", "");
  k = replace(k, "    o_full  = lm.barrier(count=1, prod=[mma], cons=[corr], init_count=1)\n", "");
  return replace(k, "            lm.wait(o_full, iter=t)\n", kTileEndWait);
}

}  // namespace trip_fa12_test

// Refused on main (`a part after the K loop reads the tile's ring end and
// the grid repeats only at the ring positions runs reach ...`).
TEST(TripFa12, SlopedTileEndWaitIsProvedAndItsBrokenFormsAreNot) {
  const std::string& w = tf12::kTileEndWait;
  cake::testing::attacks::attack(
      tf12::slopedTileEnd(), {{"seqlen_k", 257}, {"T", 3}},
      {
          {{{w, "            lm.wait(o_done, iter=t * n_blocks + n_blocks - 2)\n"}},
           "the correction waits one block short of its ring end (O read while the last PV MMA writes it)",
           {{"seqlen_k", 1}, {"T", 1}}},
          {{{w, "            if t > 1:\n                lm.wait(o_done, iter=t * n_blocks + n_blocks - 2)\n"
                "            else:\n    " + w}},
           "from tile 2 on, the correction waits one block short of its ring end",
           {{"seqlen_k", 1}, {"T", 3}}},
      });
}
