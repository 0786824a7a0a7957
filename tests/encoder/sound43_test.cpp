// Holes that helper sound43's attack on session 42's steps found
// (bench/attacks/sound43_mutants.py; docs/z3.md "Soundness review, session
// 43"): a persistent kernel's consumer wait skipped at K steps 6 and on of
// tile 2 only (`if k < 6 or t != 2:`), a guard that reads the tile loop's
// variable beside the K loop's, exited 0 *checked* with nothing named.
// cover42 placed the whole guard's flip only where it reads one loop
// variable; for this one the part `k < 6` was placed by its trip-count
// targets alone, with the tile count at the base's (one or two tiles), and
// `t != 2` by the tile count's alone, so no binding ran three tiles of seven
// K steps. Now such a part is also a flip goal of the whole guard with the
// tile loop's variable ranging over the tiles the binding runs
// (FlipGoal::others), and the bounded check finds the race.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "attack_util.h"
#include "checks/check.h"
#include "cover_kernels.h"
#include "persistent_kernels.h"
#include "test_util.h"

using namespace cake;

// Each broken form skips the wait where the K step and the tile together
// say so (exit 0 *checked* before: the covering values ran M in {1, ...,
// 449} and K in {1, ..., 641} but no binding of three tiles and seven K
// steps), now a race; the proof of each is unknown (the guard is not a
// function of the ring index), never proved. The twin whose loop part holds
// at every K step keeps every wait: clean and not unknown (proved by the
// proof). Cost: about 1.5 s user in all.
TEST(Sound43, AWholeGuardOnTwoLoopVariablesIsPlacedTogether) {
  for (const std::string cond : {"k < 6 or t != 2", "k != 7 or t != 2", "k < 6 or t < 3"}) {
    const cake::testing::cover::BoundedVerdict b = cake::testing::cover::boundedVerdict(cake::testing::queryEmptyWaitIf(cond));
    EXPECT_TRUE(b.rules.count("sync.race")) << cond;
  }
  cake::testing::attacks::expectFoundNotProved(cake::testing::queryEmptyWaitIf("k < 6 or t != 2"), "sync.race",
                                               "the wait skipped from K step 6 of tile 2");
  const cake::testing::cover::BoundedVerdict twin = cake::testing::cover::boundedVerdict(cake::testing::queryEmptyWaitIf("k >= 0 or t != 1"));
  EXPECT_TRUE(twin.rules.empty()) << "a loop part true at every K step";
  EXPECT_FALSE(twin.unknown);
}
