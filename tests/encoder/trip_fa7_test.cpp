// A ring index minus the tile index (docs/z3.md "A ring index minus the
// tile index", helper fa7, session 38; obstacle 2 of FA4's correction
// warpgroup). The correction warpgroup rescales O in TMEM in every K
// iteration but a tile's first and arrives on o_ready once per such
// iteration, so its count lags the ring index by one per tile: the MMA
// waits `lm.wait(o_ready, iter=g - t - 1)`. The persistent grid starts
// every tile at ring index 0, so that wait is left out at the grid's
// positions x <= t, which no run reaches past a tile's first iteration
// (tile t starts at x >= t), and the plain period search found no period
// in any window (unknown after seconds of window growth). The periods are
// now searched at the positions runs reach, and the shifts keep every
// process there. Broken forms, each found by the bounded check, are not
// proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_fa7_test {

const std::string kRingMinusTile = R"CAKE(
@cake.schedule(target="sm_100a")
def p_ring_minus_tile(lm, Vt: LM.tma3d, O: LM.tma3d, seqlen_k: LM.i32, T: LM.i32):
    lm.assume(seqlen_k > 0)
    lm.assume(T > 0)
    pool    = lm.smem(99328)
    smem_vt = pool.view(offset=0,     shape=(64, 128),  dtype=lm.bf16, stages=2)
    smem_p  = pool.view(offset=32768, shape=(128, 128), dtype=lm.bf16, stages=1)
    smem_o  = pool.view(offset=65536, shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    smem_sc = pool.view(offset=98304, shape=(128, 1), dtype=lm.f32, stages=2)
    tmem_o  = lm.tmem(cols=0, width=64, shape=(128, 64), dtype=lm.f32)
    s = lm.regs(shape=(128, 128), dtype=lm.f32)
    o = lm.regs(shape=(128, 64), dtype=lm.f32)
    sc = lm.regs(shape=(128, 1), dtype=lm.f32)
    scale = lm.regs(shape=(128, 1), dtype=lm.f32)

    soft = lm.role(warps=[0, 1, 2, 3])
    corr = lm.role(warps=[4, 5, 6, 7])
    mma  = lm.role(warps=[8])
    load = lm.role(warps=[9])

    two     = lm.pipeline(stages=2)
    v_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=two)
    v_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=two)
    sc_full  = lm.barrier(prod=[soft], cons=[corr], init_count=1, pipeline=two)
    sc_empty = lm.barrier(prod=[corr], cons=[soft], init_count=1, pipeline=two)
    p_full  = lm.barrier(count=1, prod=[soft], cons=[mma], init_count=1)
    p_empty = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)
    o_done  = lm.barrier(count=1, prod=[mma], cons=[corr], init_count=1)
    o_ready = lm.barrier(count=1, prod=[corr], cons=[mma], init_count=1)
    o_full  = lm.barrier(count=1, prod=[mma], cons=[corr], init_count=1)
    o_empty = lm.barrier(count=1, prod=[corr], cons=[mma], init_count=1)

    n_blocks = lm.cdiv(seqlen_k, 128)

    with load:
        for t in lm.range(0, T):
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(v_empty, iter=g - 2)
                smem_vt.tma_load(Vt, coords=(0, 0, j * 128), iter=g, barrier=v_full)

    with mma:
        for t in lm.range(0, T):
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(v_full, iter=g)
                lm.wait(p_full, iter=g)
                if j == 0:
                    lm.wait(o_empty, iter=t - 1)
                else:
                    lm.wait(o_ready, iter=g - t - 1)
                lm.mma(tmem_o, smem_p[0], smem_vt[g], init=(j == 0))
                lm.mma_commit(barrier=v_empty, iter=g)
                lm.mma_commit(barrier=p_empty, iter=g)
                lm.mma_commit(barrier=o_done, iter=g)
            lm.mma_commit(barrier=o_full, iter=t)

    with soft:
        for t in lm.range(0, T):
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.fill(s, 1.0)
                lm.fill(sc, 1.0)
                lm.wait(sc_empty, iter=g - 2)
                lm.copy(smem_sc[g], sc)
                lm.arrive(sc_full, iter=g)
                lm.wait(p_empty, iter=g - 1)
                lm.copy(smem_p[0], s)
                lm.fence_proxy()
                lm.arrive(p_full, iter=g)

    with corr:
        for t in lm.range(0, T):
            q0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(sc_full, iter=g)
                lm.copy(scale, smem_sc[g])
                lm.arrive(sc_empty, iter=g)
                if j > 0:
                    lm.wait(o_done, iter=g - 1)
                    lm.tmem_load(o, tmem_o)
                    lm.tmem_load_wait()
                    lm.binary(o, o, scale, op="mul")
                    lm.tmem_store(tmem_o, o)
                    lm.tmem_store_wait()
                    lm.arrive(o_ready, iter=g - t - 1)
            lm.wait(o_full, iter=t)
            lm.tmem_load(o, tmem_o)
            lm.tmem_load_wait()
            lm.arrive(o_empty, iter=t)
            lm.tma_store_wait(pending=0)
            lm.copy(smem_o[0], o)
            lm.fence_proxy()
            smem_o.tma_store(O, coords=(0, q0, 0), stage=0)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
)CAKE";

const std::string kWait = "                    lm.wait(o_ready, iter=g - t - 1)\n";

std::vector<cake::testing::attacks::Attack> ringMinusTileAttacks() {
  auto wait = [](const char* iter) { return "                    lm.wait(o_ready, iter=" + std::string(iter) + ")\n"; };
  // tiles 0 and 1 wait as the base does, later ones at `iter`
  auto fromTile2 = [](const char* iter) {
    return "                    if t < 2:\n                        lm.wait(o_ready, iter=g - t - 1)\n"
           "                    else:\n                        lm.wait(o_ready, iter=" +
           std::string(iter) + ")\n";
  };
  return {
      {{{kWait, wait("g - t")}}, "the MMA waits for the rescale of its own block (never comes)", {{"seqlen_k", 129}, {"T", 1}}},
      {{{kWait, wait("g - t - 2")}}, "the MMA waits for the rescale one block early", {{"seqlen_k", 129}, {"T", 1}}},
      {{{kWait, wait("g - 2 * t - 1")}},
       "the MMA's count of rescales lags by two per tile (one lap early from tile 1 on)",
       {{"seqlen_k", 129}, {"T", 2}}},
      {{{kWait, fromTile2("g - t")}},
       "from tile 2 on, the MMA waits for the rescale of its own block (never comes)",
       {{"seqlen_k", 129}, {"T", 3}}},
      {{{kWait, fromTile2("g - t - 2")}},
       "from tile 2 on, the MMA waits for the rescale one block early",
       {{"seqlen_k", 129}, {"T", 3}}},
      {{{"                    lm.tmem_store_wait()\n", ""}},
       "the correction arrives on o_ready before its tcgen05.st completes",
       {{"seqlen_k", 129}, {"T", 1}}},
      {{{"lm.wait(o_done, iter=g - 1)", "lm.wait(o_done, iter=g - 2)"}},
       "the correction reads O before the previous block's PV MMA completes",
       {{"seqlen_k", 129}, {"T", 1}}},
  };
}

}  // namespace trip_fa7_test

namespace tf7 = trip_fa7_test;

TEST(TripFa7, RingIndexMinusTileIndexIsProvedAndItsBrokenFormsAreNot) {
  cake::testing::attacks::attack(tf7::kRingMinusTile, {{"seqlen_k", 257}, {"T", 3}}, tf7::ringMinusTileAttacks());
}
