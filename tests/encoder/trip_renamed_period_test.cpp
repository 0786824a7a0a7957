// Tile periods with the reads the copies rename (helper fa4_50, session 50,
// issue 11; docs/z3.md "Tile periods with the reads the copies rename"). A
// process whose part before the K loop reads the ring start (the MMA warp's
// tile-first S from `smem_k[t * n_blocks]`) gets a copy of that part per
// ring start, and every copy names that read by iteration with the
// generation of the copy at ring start Wg (namePreReadsAsTheRing). The grid
// itself names it by stage, with a generation capped at the loader's laps
// of the index per tile (min(t, 11) at 24 K iterations a tile), so the tile
// period search, which compared the grid's text, found the tile period 2
// (Q on two slots) only from tile 13 on and needed 32 tiles (FA4's tile
// warm-up). Where the exact search fails, the search now leaves those
// reads' index and generation out and requires, after the copies are
// built, that every copy renames them. Proved in 16 tiles; broken twins are
// found by `cake check` and not proved.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attack_util.h"
#include "test_util.h"

namespace trip_renamed_period_test {

// The store-warp FMHA's loader and MMA warp (the tile's first S before the
// K loop, the next block's S in every K iteration but the last) with Q on
// two slots, and a consumer warpgroup that frees S.
const char* kQTwoSlots = R"(@cake.schedule(target="sm_100a")
def s_ahead(lm, Q: LM.tma3d, K: LM.tma3d, seqlen_k: LM.i32, n_tiles: LM.i32):
    lm.assume(seqlen_k > 0)
    lm.assume(n_tiles > 0)
    pool    = lm.smem(65536)
    smem_q  = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_k  = pool.view(offset=32768,  shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    tmem_s  = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    s     = lm.regs(shape=(128, 128), dtype=lm.f32)

    soft  = lm.role(warps=[0, 1, 2, 3])
    mma   = lm.role(warps=[4])
    load  = lm.role(warps=[5])

    kv      = lm.pipeline(stages=2)
    q_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv)
    q_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv)
    k_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv)
    k_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv)
    s_full  = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)
    s_free  = lm.barrier(count=1, prod=[soft], cons=[mma], init_count=1)

    n_blocks = lm.cdiv(seqlen_k, 128)

    with load:
        for t in lm.range(0, n_tiles):
            q0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            lm.wait(q_empty, iter=t - 2)
            smem_q.tma_load(Q, coords=(0, q0, 0), iter=t, barrier=q_full)
            for j in lm.range(0, n_blocks):
                it = t * n_blocks + j
                lm.wait(k_empty, iter=it - 2)
                smem_k.tma_load(K, coords=(0, j * 128, 0), iter=it, barrier=k_full)
        lm.wait(q_empty, iter=n_tiles - 2)
        lm.wait(q_empty, iter=n_tiles - 1)

    with mma:
        for t in lm.range(0, n_tiles):
            base = t * n_blocks
            lm.wait(q_full, iter=t)
            lm.wait(k_full, iter=base)
            lm.mma(tmem_s, smem_q[t], smem_k[base], init=True)
            lm.mma_commit(barrier=k_empty, iter=base)
            lm.mma_commit(barrier=s_full, iter=base)
            for j in lm.range(0, n_blocks):
                it = base + j
                lm.wait(s_free, iter=it)
                if j + 1 < n_blocks:
                    lm.wait(k_full, iter=it + 1)
                    lm.mma(tmem_s, smem_q[t], smem_k[it + 1], init=True)
                    lm.mma_commit(barrier=k_empty, iter=it + 1)
                    lm.mma_commit(barrier=s_full, iter=it + 1)
            lm.mma_commit(barrier=q_empty, iter=t)

    with soft:
        for t in lm.range(0, n_tiles):
            base = t * n_blocks
            for j in lm.range(0, n_blocks):
                it = base + j
                lm.wait(s_full, iter=it)
                lm.copy(s, tmem_s)
                lm.arrive(s_free, iter=it)
)";

const char* kFirstKWait = "            lm.wait(k_full, iter=base)\n";
const char* kQWait = "            lm.wait(q_full, iter=t)\n";

// `wait` (a line of the tile's part before the K loop) a lap behind from
// tile 5 on: wrong only in tiles below the old warm-up, above the new one.
std::string lapBehindFromTile5(const std::string& wait, const std::string& lap_behind) {
  return "            if t < 5:\n    " + wait + "            else:\n    " + lap_behind;
}

// Wrong only from tile 5 on: below the tile warm-up the exact search found
// (13), above the one found now (4).
std::vector<cake::testing::attacks::Attack> laterTileAttacks() {
  return {
      {{{kFirstKWait, lapBehindFromTile5(kFirstKWait, "            lm.wait(k_full, iter=base - 2)\n")}},
       "the tile's first S waits for its K block a lap behind from tile 5 on",
       {{"seqlen_k", 1}, {"n_tiles", 6}}},
      {{{kQWait, lapBehindFromTile5(kQWait, "            lm.wait(q_full, iter=t - 2)\n")}},
       "the MMA waits for its Q a lap behind from tile 5 on",
       {{"seqlen_k", 1}, {"n_tiles", 6}}},
  };
}

std::vector<cake::testing::attacks::Attack> stageAttacks() {
  return {
      {{{"smem_q[t], smem_k[base]", "smem_q[t], smem_k[base + 1]"}},
       "the tile's first S reads the next K slot",
       {{"seqlen_k", 1}, {"n_tiles", 1}}},
      {{{"smem_q[t], smem_k[base]", "smem_q[t + 1], smem_k[base]"}},
       "the tile's first S reads the other Q slot",
       {{"seqlen_k", 1}, {"n_tiles", 1}}},
  };
}

}  // namespace trip_renamed_period_test

namespace trp = trip_renamed_period_test;

// Proved in a window of 16 tiles (before: 32, tile warm-up 13); broken
// twins not.
TEST(TripRenamedPeriod, RingStartReadsLeftOutOfTheTilePeriodAndBrokenFormsAreNotProved) {
  auto mod = cake::testing::compile(trp::kQTwoSlots);
  ASSERT_FALSE(mod.schedules.empty());
  const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
  EXPECT_EQ(r.outcome, cake::encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("window 16 tiles x 24 iterations"), std::string::npos) << r.engine;
  cake::testing::attacks::attack(trp::kQTwoSlots, {{"seqlen_k", 257}, {"n_tiles", 3}}, trp::laterTileAttacks());
}

TEST(TripRenamedPeriod, SlowRingStartReadsOfAnotherStageAreNotProved) {
  cake::testing::attacks::attack(trp::kQTwoSlots, {{"seqlen_k", 257}, {"n_tiles", 3}}, trp::stageAttacks());
}
