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
#include "read_gen_kernel.h"
#include "test_util.h"

namespace trip_ring_gen_test {

const char* kPFull = "                lm.wait(p_full, iter=g)\n";
const char* kPEmpty = "                lm.wait(p_empty, iter=g - 1)\n";
const char* kPv = "                lm.mma(tmem_o, smem_p[0], smem_vt[g], init=(j == 0))\n";

// kReadGenKernel (the MMA reads `smem_p[0]` in every K iteration, its
// generation aligned through the ring position) with the MMA waiting for the
// tile's first V before its K loop and summing every V block but the tile's
// last into a second accumulator, which the softmax reads with O (its epilogue).
std::string ringGenKernel() {
  using cake::testing::replace;
  std::string k = cake::testing::read_gen::kReadGenKernel;
  k = replace(k, "lm.assume(seqlen_k > 0)", "lm.assume(seqlen_k > 128)");
  k = replace(k, "    s = lm.regs(",
              "    tmem_x  = lm.tmem(cols=64, width=64, shape=(64, 64), dtype=lm.f32)\n"
              "    x = lm.regs(shape=(64, 64), dtype=lm.f32)\n    s = lm.regs(");
  k = replace(k, "            lm.wait(o_empty, iter=t - 1)\n",
              "            lm.wait(o_empty, iter=t - 1)\n            lm.wait(v_full, iter=t * n_blocks)\n");
  k = replace(k, kPv,
              std::string(kPv) + "                if j + 1 < n_blocks:\n"
                                 "                    lm.mma(tmem_x, smem_vt[g], smem_vt[g], init=(j == 0))\n");
  return replace(k, "            lm.tmem_load(o, tmem_o)\n",
                 "            lm.tmem_load(o, tmem_o)\n            lm.tmem_load(x, tmem_x)\n");
}

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
  cake::testing::attacks::attack(trg::ringGenKernel(), {{"seqlen_k", 3 * 128}, {"T", 3}}, trg::metAttacks());
}

TEST(TripRingGen, SlowTailGenerationsShiftedAttacks) {
  namespace trg = trip_ring_gen_test;
  cake::testing::attacks::attack(trg::ringGenKernel(), {{"seqlen_k", 3 * 128}, {"T", 3}}, trg::moreAttacks());
}
