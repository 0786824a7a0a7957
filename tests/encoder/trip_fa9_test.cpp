// The tile count's reading carried across windows (docs/z3.md "Cheaper\n// refusals of the last tiles' grids", helper fa9, session 40). A read of
// the tile count to depth 2 (`if t + 2 < tiles:`) builds the grid of tiles
// that are none of the last twice per window (E_A read as t + 2, then as
// t + 3 once the depth is known); a window that settled it now hands t + 3
// to the next. An eight-slot Q ring has a tile period of 8 and grows the
// window twice (16, 32, then 64 tiles), so the proof below runs through the
// carried reading; its broken forms, each found by `cake check`, are not
// proved.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "attack_pair.h"
#include "attack_util.h"
#include "persistent_kernels.h"
#include "test_util.h"

using namespace cake;

namespace trip_fa9_test {

// The one-slot Q hand-off of cake::testing::kQueryEmpty
// (persistent_kernels.h) with Q in eight stages behind mbarriers, handed
// back after every tile's K loop but the last two's (the loader of tile t
// waits for tile t - 8's release).
std::string eightSlotQRing() {
  return cake::testing::pairs::edited(cake::testing::kQueryEmpty, {
      {"def q_empty_handoff(", "def q_ring_release("},
      {"lm.smem(32768)", "lm.smem(81920)"},
      {"stages=1, swizzle", "stages=8, swizzle"},  // (smem_q's)
      {"offset=8192,", "offset=65536,"},
      {"    pipe    = lm.pipeline(stages=2)\n",
       "    pipe    = lm.pipeline(stages=2)\n    qpipe   = lm.pipeline(stages=8)\n"},
      {"    q_full  = lm.barrier(count=1, prod=[producer], cons=[consumer], init_count=1)\n",
       "    q_full  = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=qpipe)\n"},
      {"    q_empty = lm.named_barrier(roles=[producer, consumer])\n",
       "    q_empty = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=qpipe)\n"},
      {"            if t > 0:\n                lm.sync(q_empty)\n", "            lm.wait(q_empty, iter=t - 8)\n"},
      {"            if t + 1 < tiles:\n                lm.bar_arrive(q_empty)\n",
       "            if t + 2 < tiles:\n                lm.arrive(q_empty, iter=t)\n"},
  });
}
const std::string kEightSlotQRing = eightSlotQRing();

const std::string kRelease = "            if t + 2 < tiles:\n                lm.arrive(q_empty, iter=t)\n";

}  // namespace trip_fa9_test

namespace tfa9 = trip_fa9_test;

// Proved on main too (the grid built twice per window); here with the
// reading carried (fewer solver queries, one grid fewer per window after
// the first). Each broken form is found by `cake check` and not proved.
TEST(TripFa9, DepthTwoReadAcrossWindowsIsProvedAndItsBrokenFormsAreNot) {
  namespace at = cake::testing::attacks;
  const std::string& rel = tfa9::kRelease;
  at::attack(tfa9::kEightSlotQRing, {{"M", 9 * 64}, {"K", 128}},
             {
                 {{{rel, rel + "            elif t + 2 == tiles:\n                lm.wait(q_full, iter=t + 2)\n"}},
                  "the second-to-last tile waits for a Q tile that never comes",
                  {{"M", 2 * 64}, {"K", 64}}},
                 {{{rel, rel + "            elif t + 1 == tiles:\n                lm.wait(q_full, iter=t + 1)\n"}},
                  "the last tile waits for a Q tile that never comes",
                  {{"M", 64}, {"K", 64}}},
                 {{{"t + 2 < tiles", "t + 2 > tiles"}},
                  "only the last two tiles release their Q slot (the loader of tile 8 hangs)",
                  {{"M", 9 * 64}, {"K", 64}}},
                 {{{"lm.wait(q_empty, iter=t - 8)", "lm.wait(q_empty, iter=t - 9)"}},
                  "the loader waits for the release of the slot one lap behind (a lost phase)",
                  {{"M", 961}, {"K", 1}}},
             });
}
