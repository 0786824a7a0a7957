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

// The PV's P release moved before its MMA where `cond` holds (attack50).
std::vector<std::pair<std::string, std::string>> releasedBeforePv(const std::string& cond) {
  const std::string tail =
      "                if j + 1 < n_blocks:\n"
      "                    lm.mma(tmem_x, smem_vt[g], smem_vt[g], init=(j == 0))\n"
      "                lm.mma_commit(barrier=v_empty, iter=g)\n";
  const std::string release = "                lm.mma_commit(barrier=p_empty, iter=g)\n";
  return {{std::string(kPv) + tail + release, "                if " + cond + ":\n    " + release + kPv + tail +
                                                  "                if not (" + cond + "):\n    " + release}};
}

// `line` where `cond` holds, `other` elsewhere (attack50)
std::string when(const std::string& cond, const std::string& line, const std::string& other) {
  return "                if " + cond + ":\n    " + line + "                else:\n    " + other;
}

// Attacks on the shifted ring generations (helper attack50, session 50;
// docs/known-limits.md "Attacks on session 49's paths"): one off near the
// tile's end only in tile 5, only where the tile starts at an odd ring
// position, only at an odd ring index.
std::vector<cake::testing::attacks::Attack> attack50Attacks() {
  const std::string pfull_back = cake::testing::replace(kPFull, "iter=g)", "iter=g - 1)");
  const std::string pempty_early = cake::testing::replace(kPEmpty, "iter=g - 1)", "iter=g - 2)");
  return {
      {releasedBeforePv("j + 2 == n_blocks and t == 5"), "tile 5's P released before the PV MMA before its last",
       {{"seqlen_k", 129}, {"T", 6}}},
      {releasedBeforePv("j + 2 == n_blocks and (t * n_blocks) % 2 == 1"),
       "the P released before the PV MMA before the last of a tile at an odd ring start",
       {{"seqlen_k", 257}, {"T", 2}}},
      {{{kPFull, when("j + 1 == n_blocks and (t * n_blocks) % 2 == 1", pfull_back, kPFull)}},
       "the last PV of a tile at an odd ring start waits for the P before",
       {{"seqlen_k", 257}, {"T", 2}}},
      {{{kPEmpty, when("j + 1 == n_blocks and g % 2 == 1", pempty_early, kPEmpty)}},
       "the last P at an odd ring index written a lap early",
       {{"seqlen_k", 129}, {"T", 1}}},
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

TEST(TripRingGen, SlowAttack50ShiftedGenerationAttacks) {
  namespace trg = trip_ring_gen_test;
  cake::testing::attacks::attack(trg::ringGenKernel(), {{"seqlen_k", 3 * 128}, {"T", 3}}, trg::attack50Attacks());
}
