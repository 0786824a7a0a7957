// A Q tile released by an MMA commit in all but the last tiles (docs/z3.md
// "Sloped copies near a tile's end", the Q release; helper fa4_48, session
// 48; the sixth obstacle of FA4's correction warpgroup). FA4's MMA hands
// each tile's Q slot back with `if t + 2 < T: lm.mma_commit(barrier=q_empty,
// iter=t)`, so the last tiles' parts after the K loop commit fewer MMA groups
// than the other tiles'; the layout numbers each process's commits by
// position and refused that (`mma commits a different number of MMA groups
// after the K loop of the last tile`). Such a process's completions are now
// numbered in issue order (Model::ordinal_commits, as for a process that
// skips tiles), where it does not wait for its MMA groups (lm.mma_wait).
// Broken forms, each found by `cake check`, are not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "persistent_kernels.h"
#include "test_util.h"

namespace trip_last_commits_test {

using cake::testing::attacks::Attack;

// TripFa12's kernel (a loader, an MMA warp, an epilogue that waits for the
// tile's last block) with the Q slot released by the MMA's commit.
const std::string kRelease = "            if t + 2 < T:\n                lm.mma_commit(barrier=q_empty, iter=t)\n";
std::string qReleasedByACommit() {
  using cake::testing::replace;
  std::string k = replace(cake::testing::kTileEndKernel, "q_empty = lm.barrier(prod=[epi]", "q_empty = lm.barrier(prod=[mma]");
  k = replace(k, "            if t + 2 < T:\n                lm.arrive(q_empty, iter=t)\n", "");
  return replace(k, "                lm.mma_commit(barrier=o_done, iter=g)\n",
                 "                lm.mma_commit(barrier=o_done, iter=g)\n" + kRelease);
}

std::vector<Attack> qReleaseAttacks() {
  return {
      {{{"t + 2 < T", "t + 3 < T"}}, "Q released on one tile fewer (the loader of the last tile hangs)",
       {{"seqlen_k", 1}, {"T", 3}}},
      {{{kRelease, "            lm.mma_commit(barrier=q_empty, iter=t)\n"}},
       "Q released in every tile (the last releases arrive after every role has exited)",
       {{"seqlen_k", 1}, {"T", 1}}},
      {{{kRelease, ""}, {"            lm.wait(q_full, iter=t)\n", "            lm.wait(q_full, iter=t)\n" + kRelease}},
       "Q released before the tile's MMAs read it", {{"seqlen_k", 1}, {"T", 3}}},
      {{{"lm.mma_commit(barrier=q_empty, iter=t)", "lm.mma_commit(barrier=q_empty, iter=t + 1)"}},
       "Q released on the other slot", {{"seqlen_k", 1}, {"T", 3}}},
      {{{"                lm.wait(k_empty, iter=g - 2)\n",
         "                if j > 0:\n                    lm.wait(k_empty, iter=g - 2)\n"}},
       "the loader's first K load of a tile does not wait for its K slot", {{"seqlen_k", 129}, {"T", 2}}},
      {{{"lm.wait(q_empty, iter=t - 2)", "lm.wait(q_empty, iter=t - 3)"}},
       "the loader waits for the release a lap behind", {{"seqlen_k", 1}, {"T", 3}}},
  };
}

}  // namespace trip_last_commits_test

namespace tlc = trip_last_commits_test;

// Proved (unknown before); the release after every tile but the last one
// too.
TEST(TripLastCommits, QReleasedByAnMmaCommitIsProvedAndItsBrokenFormsAreNot) {
  cake::testing::attacks::attack(tlc::qReleasedByACommit(), {{"seqlen_k", 257}, {"T", 3}}, tlc::qReleaseAttacks());
}

TEST(TripLastCommits, QReleasedByAnMmaCommitAtDepthOneIsProved) {
  auto mod = cake::testing::compile(cake::testing::replace(tlc::qReleasedByACommit(), "t + 2 < T", "t + 1 < T"));
  ASSERT_FALSE(mod.schedules.empty());
  const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
  EXPECT_EQ(r.outcome, cake::encoder::Outcome::Proved) << r.detail;
}

// A process that also waits for its MMA groups reads the absolute count of
// its commits (lm.mma_wait): still refused, before the grids per ring end.
TEST(TripLastCommits, QReleasedByAnMmaCommitWithAnMmaWaitIsRefused) {
  auto mod = cake::testing::compile(
      cake::testing::replace(tlc::qReleasedByACommit(), tlc::kRelease, tlc::kRelease + "            lm.mma_wait(pending=0)\n"));
  ASSERT_FALSE(mod.schedules.empty());
  const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
  EXPECT_NE(r.outcome, cake::encoder::Outcome::Proved);
  EXPECT_NE(r.detail.find("mma commits a different number of MMA groups after the K loop of the last tile and waits "
                          "for its MMA groups (lm.mma_wait)"),
            std::string::npos)
      << r.detail;
}
