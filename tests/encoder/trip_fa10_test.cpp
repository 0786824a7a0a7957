// Copies per ring start with the periods at the ring positions runs reach
// (docs/z3.md "Copies per ring start where runs reach", helper fa4x,
// session 41; FA4's correction warpgroup). A process whose part before the
// K loop reads the tile's ring start (`lm.wait(v_full, iter=t * n_blocks)`)
// gets a copy of that part per ring start; with a ring index minus the tile
// index in its K iterations (`lm.wait(o_ready, iter=g - t - 1)`) its periods
// hold only where runs reach, and with `if j == 0:` its first K iteration
// is a copy of its own. The three now compose: the copies' period checks
// where the shifts apply, their K iterations compared besides the fields
// the grid aligns through the ring position (a read generation of smem_p),
// and iteration 0 at a ring start taken by the first K iteration's copy.
// Broken forms, each found by the bounded check, are not proved.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attack_util.h"
#include "persistent_kernels.h"
#include "test_util.h"

using namespace cake;

namespace trip_fa10_test {

const std::string kMmaLoop = "    with mma:\n        for t in lm.range(0, T):\n";
const std::string kPreWait = "            lm.wait(v_full, iter=t * n_blocks)\n";

// The MMA waits for the tile's first V before its K loop too (the K
// iteration 0 waits for the same phase): a part before the K loop that
// reads the ring start, in the sloped process with a first K iteration of
// its own.
std::string preWaitKernel() {
  return cake::testing::replace(cake::testing::kRingMinusTile, kMmaLoop, kMmaLoop + kPreWait);
}

std::vector<cake::testing::attacks::Attack> preWaitAttacks() {
  // (the wait in the part before the K loop from tile 2 on, besides kPreWait)
  auto fromTile2 = [](const std::string& wait) {
    return kPreWait + "            if t > 1:\n                lm.wait(" + wait + ")\n";
  };
  return {
      {{{kPreWait, "            lm.wait(p_full, iter=t * n_blocks - 1)\n"}},
       "the tile start waits for the tile before's last P, a wait the grid leaves out (a lost phase)",
       {{"seqlen_k", 1}, {"T", 2}}},
      {{{kPreWait, "            if t < 2:\n    " + kPreWait + "            else:\n"
                   "                lm.wait(v_full, iter=t * n_blocks + 1)\n"}},
       "from tile 2 on, the tile start waits for the tile's second V",
       {{"seqlen_k", 1}, {"T", 3}}},
      {{{kPreWait, fromTile2("o_empty, iter=t - 2")}},
       "from tile 2 on, the tile start also waits for the O of two tiles before (a lost phase)",
       {{"seqlen_k", 1}, {"T", 3}}},
  };
}

}  // namespace trip_fa10_test

namespace tf10 = trip_fa10_test;

// Refused on main (`the part before the K loop moves with the ring period
// and the grid repeats only at the ring positions runs reach`).
TEST(TripFa10, RingStartCopiesWhereRunsReachAreProvedAndTheirBrokenFormsAreNot) {
  cake::testing::attacks::attack(tf10::preWaitKernel(), {{"seqlen_k", 257}, {"T", 3}}, tf10::preWaitAttacks());
}
