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
#include "test_util.h"

using namespace cake;

namespace trip_read_gen_test {

const std::string kReadGenKernel = R"CAKE(
@cake.schedule(target="sm_100a")
def p_read_gen(lm, Vt: LM.tma3d, O: LM.tma3d, seqlen_k: LM.i32, T: LM.i32):
    lm.assume(seqlen_k > 0)
    lm.assume(T > 0)
    pool    = lm.smem(98304)
    smem_vt = pool.view(offset=0,     shape=(64, 128),  dtype=lm.bf16, stages=2)
    smem_p  = pool.view(offset=32768, shape=(128, 128), dtype=lm.bf16, stages=1)
    smem_o  = pool.view(offset=65536, shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    tmem_o  = lm.tmem(cols=0, width=64, shape=(128, 64), dtype=lm.f32)
    s = lm.regs(shape=(128, 128), dtype=lm.f32)
    o = lm.regs(shape=(128, 64), dtype=lm.f32)

    soft = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    two     = lm.pipeline(stages=2)
    v_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=two)
    v_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=two)
    p_full  = lm.barrier(count=1, prod=[soft], cons=[mma], init_count=1)
    p_empty = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)
    o_full  = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)
    o_empty = lm.barrier(count=1, prod=[soft], cons=[mma], init_count=1)

    n_blocks = lm.cdiv(seqlen_k, 128)

    with load:
        for t in lm.range(0, T):
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(v_empty, iter=g - 2)
                smem_vt.tma_load(Vt, coords=(0, 0, j * 128), iter=g, barrier=v_full)

    with mma:
        for t in lm.range(0, T):
            lm.wait(o_empty, iter=t - 1)
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(v_full, iter=g)
                lm.wait(p_full, iter=g)
                lm.mma(tmem_o, smem_p[0], smem_vt[g], init=(j == 0))
                lm.mma_commit(barrier=v_empty, iter=g)
                lm.mma_commit(barrier=p_empty, iter=g)
            lm.mma_commit(barrier=o_full, iter=t)

    with soft:
        for t in lm.range(0, T):
            q0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.fill(s, 1.0)
                lm.wait(p_empty, iter=g - 1)
                lm.copy(smem_p[0], s)
                lm.fence_proxy()
                lm.arrive(p_full, iter=g)
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
