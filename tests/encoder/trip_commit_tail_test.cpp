// MMA commits left out near a tile's end (helper fifth48, session 48,
// issue 11; docs/z3.md "MMA commits left out near a tile's end"): a copy of
// a tile's last K iteration may leave out an MMA commit that arrives on an
// mbarrier where its slot and phase are named by iter= (no counted phase)
// and its process never waits for its MMA groups (no lm.mma_wait: its
// commit numbers are read for their order alone, so the layout's numbers
// may skip the left-out groups'). The reduced reproducer: an sm_100 GEMM
// whose MMA warp releases each ring slot by a commit on `empty` except in
// a tile's last K iteration, whose slot it releases after the K loop by a
// commit just before the accumulator's (`acc_full`). Proved (main:
// unknown); broken twins are found by `cake check` and not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "commit_tail_gemm.h"
#include "test_util.h"

namespace trip_commit_tail_test {

const char* kCommitTail = cake::testing::kCommitTailGemm;

const char* kTileEndRelease =
    "            lm.mma_commit(barrier=empty, iter=t * k_tiles + k_tiles - 1)\n"
    "            lm.mma_commit(barrier=acc_full, iter=t)\n";

}  // namespace trip_commit_tail_test

TEST(TripCommitTail, LeftOutCommitIsProvedAndItsBrokenFormsAreNot) {
  namespace at = cake::testing::attacks;
  namespace tct = trip_commit_tail_test;
  const std::string release = tct::kTileEndRelease;
  at::attack(tct::kCommitTail, {{"K", 3 * 64}, {"n_tiles", 3}},
             {
                 // the last K iteration's slot never released: its commit
                 // left out and none after the loop
                 {{{release, "            lm.mma_commit(barrier=acc_full, iter=t)\n"}},
                  "the last K iteration's slot is never released",
                  {{"K", 64}, {"n_tiles", 3}}},
                 // released by a plain arrival before the group that reads
                 // the slot completes: the producer's next load overwrites it
                 {{{release, "            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)\n"
                             "            lm.mma_commit(barrier=acc_full, iter=t)\n"}},
                  "the last slot released before its MMA group retires",
                  {{"K", 64}, {"n_tiles", 3}}},
                 // released one slot off after the loop
                 {{{"k_tiles + k_tiles - 1)\n", "k_tiles + k_tiles - 2)\n"}},
                  "the last slot's release one slot off",
                  {{"K", 64}, {"n_tiles", 4}}},
                 // the last K iteration releases the slot before its own
                 {{{"                    lm.mma_commit(barrier=empty, iter=it)\n",
                    "                    lm.mma_commit(barrier=empty, iter=it)\n"
                    "                else:\n"
                    "                    lm.mma_commit(barrier=empty, iter=it - 1)\n"}},
                  "the last K iteration commits on the slot before its own",
                  {{"K", 64}, {"n_tiles", 3}}},
                 // the release committed after the accumulator's: no wait
                 // observes its completion (FIFO) before the block exits
                 {{{release, "            lm.mma_commit(barrier=acc_full, iter=t)\n"
                             "            lm.mma_commit(barrier=empty, iter=t * k_tiles + k_tiles - 1)\n"}},
                  "the last slot's commit after the accumulator's",
                  {{"K", 64}, {"n_tiles", 1}}},
             });
}

// The rule's scope: a process that waits for its MMA groups reads its
// commit numbers as a count (lm.mma_wait, sim knowCompleted), so its copies
// near the end may not leave a commit out (the numbers would skip the
// left-out group's and the count would be wrong). The reproducer with an
// lm.mma_wait in the MMA role after its K loop (a feature of sm_90a only,
// target.feature; the proof reads the role's text as it is) is refused.
TEST(TripCommitTail, ProcessThatWaitsForItsGroupsKeepsItsCommits) {
  namespace tct = trip_commit_tail_test;
  const std::string release = tct::kTileEndRelease;
  auto mod = cake::testing::compile(
      cake::testing::replace(tct::kCommitTail, release, release + "            lm.mma_wait(pending=1)\n"));
  ASSERT_FALSE(mod.schedules.empty());
  const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
  EXPECT_NE(r.outcome, cake::encoder::Outcome::Proved);
  EXPECT_NE(r.detail.find("of mma differs when a K iteration is its tile's last, beyond operations that carry no "
                          "counter"),
            std::string::npos)
      << r.detail;
}
