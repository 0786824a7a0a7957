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
#include "test_util.h"

namespace trip_last_commits_test {

using cake::testing::attacks::Attack;

// TripFa12's kernel (a loader, an MMA warp, an epilogue that waits for the
// tile's last block) with the Q slot released by the MMA's commit.
const std::string kQReleasedByACommit = R"CAKE(
@cake.schedule(target="sm_100a")
def q_released_by_a_commit(lm, Q: LM.tma3d, K: LM.tma3d, seqlen_k: LM.i32, T: LM.i32):
    lm.assume(seqlen_k > 0)
    lm.assume(T > 0)
    pool   = lm.smem(65536)
    smem_q = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_k = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    tmem_o = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    o = lm.regs(shape=(128, 128), dtype=lm.f32)
    r = lm.regs(shape=(128, 1), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    two     = lm.pipeline(stages=2)
    q_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=two)
    q_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=two)
    k_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=two)
    k_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=two)
    o_done  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    o_ready = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=1)

    n_blocks = lm.cdiv(seqlen_k, 128)

    with load:
        for t in lm.range(0, T):
            lm.wait(q_empty, iter=t - 2)
            smem_q.tma_load(Q, coords=(0, t * 128, 0), iter=t, barrier=q_full)
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(k_empty, iter=g - 2)
                smem_k.tma_load(K, coords=(0, j * 128, 0), iter=g, barrier=k_full)

    with mma:
        for t in lm.range(0, T):
            lm.wait(q_full, iter=t)
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(k_full, iter=g)
                lm.wait(o_ready, iter=g - 1)
                lm.mma(tmem_o, smem_q[t], smem_k[g], init=(j == 0))
                lm.mma_commit(barrier=k_empty, iter=g)
                lm.mma_commit(barrier=o_done, iter=g)
            if t + 2 < T:
                lm.mma_commit(barrier=q_empty, iter=t)

    with epi:
        for t in lm.range(0, T):
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.fill(r, 0.0)
                if g > 0:
                    lm.wait(o_done, iter=g - 1)
                    lm.arrive(o_ready, iter=g - 1)
            lm.wait(o_done, iter=t * n_blocks + n_blocks - 1)
            lm.tmem_load(o, tmem_o)
            lm.tmem_load_wait()
)CAKE";

const std::string kRelease = "            if t + 2 < T:\n                lm.mma_commit(barrier=q_empty, iter=t)\n";

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
  cake::testing::attacks::attack(tlc::kQReleasedByACommit, {{"seqlen_k", 257}, {"T", 3}}, tlc::qReleaseAttacks());
}

TEST(TripLastCommits, QReleasedByAnMmaCommitAtDepthOneIsProved) {
  auto mod = cake::testing::compile(cake::testing::replace(tlc::kQReleasedByACommit, "t + 2 < T", "t + 1 < T"));
  ASSERT_FALSE(mod.schedules.empty());
  const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
  EXPECT_EQ(r.outcome, cake::encoder::Outcome::Proved) << r.detail;
}

// A process that also waits for its MMA groups reads the absolute count of
// its commits (lm.mma_wait): still refused, before the grids per ring end.
TEST(TripLastCommits, QReleasedByAnMmaCommitWithAnMmaWaitIsRefused) {
  auto mod = cake::testing::compile(
      cake::testing::replace(tlc::kQReleasedByACommit, tlc::kRelease, tlc::kRelease + "            lm.mma_wait(pending=0)\n"));
  ASSERT_FALSE(mod.schedules.empty());
  const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
  EXPECT_NE(r.outcome, cake::encoder::Outcome::Proved);
  EXPECT_NE(r.detail.find("mma commits a different number of MMA groups after the K loop of the last tile and waits "
                          "for its MMA groups (lm.mma_wait)"),
            std::string::npos)
      << r.detail;
}
