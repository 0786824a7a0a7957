// Ring generations compared by the far grids' shift (helper ring49,
// session 49, issue 11; docs/z3.md "Ring generations compared by the far
// grids' shift"). A process whose part before the K loop moves with the
// ring (`lm.wait(v_full, iter=t * n_blocks)`: copies per ring start) and
// whose tile's last K iteration is a copy of its own (a second accumulator
// summing every V block but the last) reads a one-slot view that another
// process rewrites every K iteration (`smem_p[0]`): its read generation is
// aligned through the ring position, and the tail grids whose tiles start
// at x and at 0 give it values that differ by tile 0's history before x,
// as the far grids' do. tailsByRingStart compared them exactly (unknown);
// now it lets them differ by what the far grids differ by. Proved; broken
// twins are found by `cake check` and not proved.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attack_util.h"
#include "test_util.h"

namespace trip_ring_gen_test {

const std::string kKernel = R"CAKE(@cake.schedule(target="sm_100a")
def ring_gen_tail(lm, Vt: LM.tma3d, O: LM.tma3d, seqlen_k: LM.i32, T: LM.i32):
    lm.assume(seqlen_k > 128)
    lm.assume(T > 0)
    pool    = lm.smem(81920)
    smem_vt = pool.view(offset=0,     shape=(64, 128),  dtype=lm.bf16, stages=2)
    smem_p  = pool.view(offset=32768, shape=(128, 128), dtype=lm.bf16, stages=1)
    smem_o  = pool.view(offset=65536, shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    tmem_o  = lm.tmem(cols=0, width=64, shape=(128, 64), dtype=lm.f32)
    tmem_x  = lm.tmem(cols=64, width=64, shape=(64, 64), dtype=lm.f32)
    s = lm.regs(shape=(128, 128), dtype=lm.f32)
    o = lm.regs(shape=(128, 64), dtype=lm.f32)
    x = lm.regs(shape=(64, 64), dtype=lm.f32)

    soft = lm.role(warps=[0, 1, 2, 3])
    epi  = lm.role(warps=[4, 5, 6, 7])
    mma  = lm.role(warps=[8])
    load = lm.role(warps=[9])

    two     = lm.pipeline(stages=2)
    v_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=two)
    v_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=two)
    p_full  = lm.barrier(count=1, prod=[soft], cons=[mma], init_count=1)
    p_empty = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)
    o_full  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    o_empty = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=1)

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
            lm.wait(v_full, iter=t * n_blocks)
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(v_full, iter=g)
                lm.wait(p_full, iter=g)
                lm.mma(tmem_o, smem_p[0], smem_vt[g], init=(j == 0))
                if j + 1 < n_blocks:
                    lm.mma(tmem_x, smem_vt[g], smem_vt[g], init=(j == 0))
                lm.mma_commit(barrier=v_empty, iter=g)
                lm.mma_commit(barrier=p_empty, iter=g)
            lm.mma_commit(barrier=o_full, iter=t)

    with soft:
        for t in lm.range(0, T):
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.fill(s, 1.0)
                lm.wait(p_empty, iter=g - 1)
                lm.copy(smem_p[0], s)
                lm.fence_proxy()
                lm.arrive(p_full, iter=g)

    with epi:
        for t in lm.range(0, T):
            q0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            lm.wait(o_full, iter=t)
            lm.tmem_load(o, tmem_o)
            lm.tmem_load(x, tmem_x)
            lm.tmem_load_wait()
            lm.arrive(o_empty, iter=t)
            lm.tma_store_wait(pending=0)
            lm.copy(smem_o[0], o)
            lm.fence_proxy()
            smem_o.tma_store(O, coords=(0, q0, 0), stage=0)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
)CAKE";

const char* kPFull = "                lm.wait(p_full, iter=g)\n";
const char* kPEmpty = "                lm.wait(p_empty, iter=g - 1)\n";
const char* kPv = "                lm.mma(tmem_o, smem_p[0], smem_vt[g], init=(j == 0))\n";
const char* kPRelease = "                lm.mma_commit(barrier=p_empty, iter=g)\n            lm.mma_commit(barrier=o_full";

// `line` (a K-loop line of 16 columns) run only in K iterations that are
// not their tile's last
std::string allButLast(const std::string& line) { return "                if j + 1 < n_blocks:\n    " + line; }

// A broken form met by the exploration itself, the tail grids' generations
// compared by the shift on the way.
std::vector<cake::testing::attacks::Attack> metAttacks() {
  return {
      // the softmax's last K iteration rewrites P while the PV MMA before
      // still reads it
      {{{kPEmpty, allButLast(kPEmpty)}},
       "the softmax's last P written before the PV MMA before releases it",
       {{"seqlen_k", 129}, {"T", 1}}},
  };
}

// More broken forms (slow): one met by the exploration, the others refused
// before it (the copies near the end's matching, leftOutWaitsChangeNoRead).
std::vector<cake::testing::attacks::Attack> moreAttacks() {
  return {
      // the tile start waits for the tile before's last P again (a wait
      // outside the K loop on the aligned read's marker)
      {{{"            lm.wait(v_full, iter=t * n_blocks)\n",
         "            lm.wait(v_full, iter=t * n_blocks)\n"
         "            lm.wait(p_full, iter=t * n_blocks - 1)\n"}},
       "the tile start waits for the tile before's last P again",
       {{"seqlen_k", 129}, {"T", 2}}},
      // the MMA's last K iteration reads P without waiting for it
      {{{kPFull, allButLast(kPFull)}}, "the tile's last PV MMA does not wait for its P", {{"seqlen_k", 129}, {"T", 1}}},
      // the tile's last P released before the PV MMA reads it
      {{{kPv, "                if j + 1 == n_blocks:\n"
              "                    lm.mma_commit(barrier=p_empty, iter=g)\n" +
                  std::string(kPv)},
        {kPRelease, "                if j + 1 < n_blocks:\n"
                    "                    lm.mma_commit(barrier=p_empty, iter=g)\n"
                    "            lm.mma_commit(barrier=o_full"}},
       "the tile's last P released before the PV MMA reads it",
       {{"seqlen_k", 129}, {"T", 2}}},
      // the softmax's last K iteration publishes an old P
      {{{"                lm.copy(smem_p[0], s)\n", allButLast("                lm.copy(smem_p[0], s)\n")}},
       "the softmax's last K iteration does not write its P",
       {{"seqlen_k", 257}, {"T", 2}}},
  };
}

}  // namespace trip_ring_gen_test

// main: unknown (`the K iteration at ring index 2 of tile 0 of mma differs
// when its tile starts at ring position 2 and its K iterations are 1 from
// the tile's end`).
TEST(TripRingGen, TailGenerationsShiftedAsTheFarGridsAreProvedAndBrokenFormsAreNot) {
  namespace trg = trip_ring_gen_test;
  cake::testing::attacks::attack(trg::kKernel, {{"seqlen_k", 3 * 128}, {"T", 3}}, trg::metAttacks());
}

TEST(TripRingGen, SlowTailGenerationsShiftedAttacks) {
  namespace trg = trip_ring_gen_test;
  cake::testing::attacks::attack(trg::kKernel, {{"seqlen_k", 3 * 128}, {"T", 3}}, trg::moreAttacks());
}
