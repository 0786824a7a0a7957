// A no-return read in a kernel with last tiles of their own (helper
// fa4_50, session 50, issue 11; docs/z3.md "A no-return read in a kernel
// with last tiles of their own"). left49's no-return case (a left-out MMA
// read of a view the tile's part before the K loop reads, `smem_q[t]`)
// refused every process with a last tile of its own; FA4's MMA warp has one
// (`if t + 2 < T: lm.mma_commit(barrier=q_empty, iter=t)`), and stopped at
// the probe. A last tile runs the grid's text up to its K loop's end, the
// same copies per ring start and near the end, and only its parts after the
// K loop differ, which the argument already asks. Proved; broken twins are
// found by `cake check` and not proved.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attack_util.h"
#include "s_ahead_kernel.h"
#include "test_util.h"

namespace trip_last_no_return_test {

// left49's kernel with Q on two slots (s_ahead_kernel.h), Q released by the
// MMA's commit in every tile but the last two (the loader waits for no release
// after its tile loop).
std::string qReleasedButLast() {
  using cake::testing::replace;
  std::string k = cake::testing::s_ahead::qOnTwoSlots();
  k = replace(k, "        lm.wait(q_empty, iter=n_tiles - 2)\n        lm.wait(q_empty, iter=n_tiles - 1)\n", "");
  return replace(k, "            lm.mma_commit(barrier=q_empty, iter=t)\n",
                 "            if t + 2 < n_tiles:\n                lm.mma_commit(barrier=q_empty, iter=t)\n");
}

std::vector<cake::testing::attacks::Attack> lastTileAttacks() {
  return {
      {{{"if t + 2 < n_tiles:", "if t + 3 < n_tiles:"}},
       "Q released on one tile fewer (the loader of the last tile hangs)",
       {{"seqlen_k", 1}, {"n_tiles", 3}}},
      {{{"lm.wait(q_empty, iter=t - 2)", "lm.wait(q_empty, iter=t - 3)"}},
       "the loader waits for Q's release a lap behind",
       {{"seqlen_k", 1}, {"n_tiles", 3}}},
      {{{"smem_q[t], smem_k[it + 1]", "smem_q[t + 1], smem_k[it + 1]"}},
       "the one-ahead S reads the other Q slot",
       {{"seqlen_k", 129}, {"n_tiles", 1}}},
  };
}

}  // namespace trip_last_no_return_test

namespace tlnr = trip_last_no_return_test;

// Proved (before: unknown at the probe); broken twins not.
TEST(TripLastNoReturn, LeftOutQReadWithLastTilesIsProvedAndItsBrokenFormsAreNot) {
  cake::testing::attacks::attack(tlnr::qReleasedButLast(), {{"seqlen_k", 257}, {"n_tiles", 3}}, tlnr::lastTileAttacks());
}
