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

// A persistent sm_100 kernel: the loader fills a two-slot Q ring and a
// two-slot K ring, the MMA warp accumulates each tile's blocks into TMEM
// (committing o_done per block), and an epilogue warpgroup paces the MMA
// per block (o_ready), waits for its tile's last block at the tile's ring
// end, reads O and hands the tile's Q slot back to the loader on every
// tile but the last two.
const std::string kTileEndKernel = R"CAKE(
@cake.schedule(target="sm_100a")
def ring_end_last_tiles(lm, Q: LM.tma3d, K: LM.tma3d, seqlen_k: LM.i32, T: LM.i32):
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
    q_empty = lm.barrier(prod=[epi], cons=[load], init_count=1, pipeline=two)
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

    with epi:
        for t in lm.range(0, T):
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.fill(r, 0.0)
                if g > 0:
                    lm.wait(o_done, iter=g - 1)
                    lm.arrive(o_ready, iter=g - 1)
            lm.wait(o_done, iter=t * n_blocks + n_blocks - 1)
            if t + 2 < T:
                lm.arrive(q_empty, iter=t)
            lm.tmem_load(o, tmem_o)
            lm.tmem_load_wait()
)CAKE";

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
  cake::testing::attacks::attack(tf12::kTileEndKernel, {{"seqlen_k", 257}, {"T", 3}}, tf12::tileEndAttacks());
}

// The release read to depth 1 (`t + 1 < T`): clean and proved too.
TEST(TripFa12, TileEndWaitWithADepthOneReleaseIsProved) {
  auto mod = cake::testing::compile(cake::testing::replace(tf12::kTileEndKernel, "t + 2 < T", "t + 1 < T"));
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
