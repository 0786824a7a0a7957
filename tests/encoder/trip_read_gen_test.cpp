// A read generation past waits outside the K loop (docs/z3.md "A read
// generation past waits outside the K loop", helper fa4b, session 35,
// obstacle 3 of FA4's correction warpgroup). The MMA warp of a persistent
// kernel reads P from a one-stage smem view the softmax warpgroup writes
// with generic stores in every K iteration, and waits once per tile outside
// the K loop (for the epilogue's release of O). The read's generation counts
// the reader's returns to the view (a read after any wait), so in the
// persistent grid, whose every tile restarts the ring at 0, it grew by one
// tile of iterations per tile while the writes' did not: `smem_p and smem_p
// share bytes but move by 0 and 24 laps per period`. Every K iteration
// waits before its read, so the waits between K iterations change no
// return: the generation now follows the ring position, also where the tile
// count is read (the epilogue's release guarded by `t + 1 < T`). Broken
// forms, each found by the bounded check, are not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "read_gen_kernel.h"
#include "test_util.h"

using namespace cake;

namespace trip_read_gen_test {

const std::string& kReadGenKernel = cake::testing::read_gen::kReadGenKernel;

// The epilogue releases O only where a next tile will wait for it: the
// tile count read in the softmax's part after the K loop (last-tile grids).
const std::string kReadGenLastTile =
    cake::testing::replace(kReadGenKernel, "            lm.arrive(o_empty, iter=t)\n",
                           "            if t + 1 < T:\n                lm.arrive(o_empty, iter=t)\n");

const std::string kSoftPEmptyWait = "                lm.wait(p_empty, iter=g - 1)\n";
const std::string kMmaPFullWait = "                lm.wait(p_full, iter=g)\n";
const std::string kMmaPv = "                lm.mma(tmem_o, smem_p[0], smem_vt[g], init=(j == 0))\n";
const std::string kSoftPWrite =
    "                lm.copy(smem_p[0], s)\n                lm.fence_proxy()\n                lm.arrive(p_full, iter=g)\n";

// The kernel's broken forms around smem_p (each applies to both kernels).
std::vector<cake::testing::attacks::Attack> readGenAttacks() {
  return {
      {{{kSoftPEmptyWait, ""}},
       "the softmax overwrites P without waiting for the PV MMA's release",
       {{"seqlen_k", 129}, {"T", 1}}},
      {{{"lm.wait(p_empty, iter=g - 1)", "lm.wait(p_empty, iter=g - 2)"}},
       "the softmax waits for the release of P one lap early",
       {{"seqlen_k", 1}, {"T", 3}}},
      {{{kMmaPFullWait + kMmaPv, kMmaPv + kMmaPFullWait}},
       "the MMA reads P before waiting for it",
       {{"seqlen_k", 1}, {"T", 1}}},
      {{{"lm.wait(p_full, iter=g)", "lm.wait(p_full, iter=g - 1)"}},
       "the MMA waits for the previous block's P (reads the stale one)",
       {{"seqlen_k", 1}, {"T", 1}}},
      {{{kSoftPWrite, "                lm.arrive(p_full, iter=g)\n                lm.copy(smem_p[0], s)\n"
                      "                lm.fence_proxy()\n"}},
       "the softmax signals P before writing it",
       {{"seqlen_k", 1}, {"T", 1}}},
      {{{"                lm.wait(v_full, iter=g)\n" + kMmaPFullWait + kMmaPv,
         kMmaPv + "                lm.wait(v_full, iter=g)\n" + kMmaPFullWait}},
       "the MMA reads P and V before any wait of its K iteration",
       {{"seqlen_k", 1}, {"T", 1}}},
      {{{"lm.wait(p_full, iter=g)", "lm.wait(p_full, iter=g - t)"}},
       "the MMA waits for P at the block counter minus the tile (a lap behind from tile 1 on)",
       {{"seqlen_k", 1}, {"T", 2}}},
      {{{kMmaPFullWait, ""},
        {"            lm.wait(o_empty, iter=t - 1)\n",
         "            lm.wait(o_empty, iter=t - 1)\n            lm.wait(p_full, iter=t * n_blocks)\n"}},
       "the MMA waits for P once per tile, outside the K loop",
       {{"seqlen_k", 129}, {"T", 1}}},
  };
}

}  // namespace trip_read_gen_test

namespace trg = trip_read_gen_test;

TEST(TripReadGen, PReadPastAWaitOutsideTheKLoopIsProvedAndItsBrokenFormsAreNot) {
  cake::testing::attacks::attack(trg::kReadGenKernel, {{"seqlen_k", 257}, {"T", 3}}, trg::readGenAttacks());
}

TEST(TripReadGen, PReadWithTheTileCountReadIsProvedAndItsBrokenFormsAreNot) {
  auto attacks = trg::readGenAttacks();
  attacks.push_back({{{"if t + 1 < T:", "if t + 2 < T:"}},
                     "the epilogue releases O one tile too few (the MMA waits for it forever)",
                     {{"seqlen_k", 1}, {"T", 2}}});
  attacks.push_back({{{"if t + 1 < T:", "if t > 0:"}},
                     "the epilogue releases O from the second tile on (the first release missing)",
                     {{"seqlen_k", 1}, {"T", 2}}});
  cake::testing::attacks::attack(trg::kReadGenLastTile, {{"seqlen_k", 257}, {"T", 3}}, attacks);
}
