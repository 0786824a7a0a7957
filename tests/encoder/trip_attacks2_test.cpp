// Attacks on the proof changes of session 25 (docs/z3.md "Generations per
// byte range", "Views over common bytes in the one-loop proof", "A residue
// of an expression of k", "Values Z3 gives up on: the proof first"):
//  * generation deltas learned per byte range (GenKey with space, lo, hi):
//    two byte ranges of one view move by different generations and a read
//    compares across them;
//  * views over common bytes moved by different laps in the one-loop
//    proof: an epilogue over the ring written too early, read back through
//    the ring, or overlapping it only in part;
//  * residue cases for `e % p` with e a polynomial in k: guards over
//    `(k + t) % 2`, `(2 * k + 1) % 4`, `(k - 3) % 4`, `(t - k) % 3`;
//  * `cake check --engine z3` where the bug shows only at values the
//    bounded Z3 check gives up on (left to the proof first).
// Each variant is broken at its witness (explicit engine), not proved, and
// not said proved by `cake check` (attack_util.h).
#include <gtest/gtest.h>

#include "attack_util.h"

using namespace cake;
using namespace cake::testing::attacks;

namespace {

const char* kRowReset = "corpus/reduction/sm80_row_reset_entries_read_whole.cake";
const char* kEpiFixed = "corpus/bugs/sync.race/cutlass_sm80_multistage_residual_cp_async_under_epilogue_fixed.cake";

const std::string kReset =
    "            if w == 0:\n"
    "                lm.fill(full, -65504.0)\n"
    "                lm.copy(row[0], full)\n"
    "            lm.sync(block)\n";
const std::string kEntry = "            lm.copy(row[0][:, w:w + 1], one)\n";
const std::string kReadAll = "            lm.copy(all, row[0])\n";

}  // namespace

// A row whose entries are rewritten by different warps at different paces
// (each entry its own byte range, each range its own delta per period):
// reads that span entries of different generations.
TEST(TripAttacks2, EntriesAtDifferentPaces) {
  const std::string base = cake::testing::corpusText(kRowReset);
  const std::string fill = "                lm.copy(row[0], full)\n";
  const std::string entry_sync = kEntry + "            lm.sync(block)\n";
  attack(base, {{"n", 3}},
         {
             {{{fill, "                if k % 2 == 0:\n    " + fill +
                          "                else:\n                    lm.copy(row[0][:, 0:16], full[:, 0:16])\n"}},
              "one row: warp 0 resets the whole row in even rounds, half of it in odd rounds",
              {{"n", 3}}},
             {{{entry_sync, "            if w != 3 or k % 3 != 2:\n    " + kEntry +
                                "            lm.sync(block)\n            if w == 3 and k % 3 == 2:\n"
                                "                lm.copy(row[0][:, 3:4], one)\n"}},
              "one row: warp 3 writes its entry after the barrier every third round",
              {{"n", 3}}},
         });
  // two rows (round k fills and rewrites row k % 2), both filled before the loop
  std::string two = cake::testing::replace(base, "shape=(1, 32), dtype=lm.f16)\n    full",
                                           "shape=(1, 32), dtype=lm.f16, stages=2)\n    full");
  two = cake::testing::replace(two, "        w = lm.instance()\n",
                               "        w = lm.instance()\n        if w == 0:\n            lm.fill(full, -65504.0)\n"
                               "            lm.copy(row[0], full)\n            lm.copy(row[1], full)\n"
                               "        lm.sync(block)\n");
  two = cake::testing::replace(two, "                lm.copy(row[0], full)\n", "                lm.copy(row[k], full)\n");
  two = cake::testing::replace(two, kEntry, "            lm.copy(row[k][:, w:w + 1], one)\n");
  two = cake::testing::replace(two, kReadAll, "            lm.copy(all, row[k])\n");
  const std::string kEntry2 = "            lm.copy(row[k][:, w:w + 1], one)\n";
  const std::string kReset2 =
      "            if w == 0:\n"
      "                lm.fill(full, -65504.0)\n"
      "                lm.copy(row[k], full)\n"
      "            lm.sync(block)\n";
  const std::string read2 = "            lm.copy(all, row[k])\n";
  attack(two, {{"n", 3}},
         {
             {{{read2, "            lm.copy(all, row[k + 1])\n"}},
              "the whole other row read (round k - 1's entries)",
              {{"n", 2}}},
             {{{read2, read2 + "            lm.copy(one, row[k + 1][:, (w + 1) % 4:(w + 1) % 4 + 1])\n"}},
              "a warp also reads its neighbour's entry of the previous round, meaning this round's",
              {{"n", 2}}},
             {{{"                lm.copy(row[k], full)\n", "                lm.copy(row[k][:, 0:16], full[:, 0:16])\n"},
               {kEntry2, "            if w != 2 or k % 2 == 0:\n    " + kEntry2}},
              "half the row reset each round, warp 2 rewrites its entry only in even rounds",
              {{"n", 4}}},
             {{{kReset2, ""}, {kEntry2, "            if w != 2 or k % 2 == 0:\n    " + kEntry2}},
              "no reset in the loop, warp 2 rewrites its entry only in even rounds (row 1's entry 2 stays the fill)",
              {{"n", 4}}},
             {{{kReset2, ""},
               {kEntry2, "            if k % 4 != w:\n    " + kEntry2},
               {read2, "            lm.copy(one, row[k][:, k % 4:k % 4 + 1])\n" + read2}},
              "no reset in the loop, warp w skips round w (mod 4), every warp reads entry k % 4 (the skipped one)",
              {{"n", 5}}},
         });
}

// CUTLASS's sm80 multistage mainloop with its epilogue staging view over
// the ring's bytes (smem_c moves by 0 laps a period, smem_a by 1).
TEST(TripAttacks2, EpilogueViewOverTheRing) {
  const std::string base = cake::testing::corpusText(kEpiFixed);
  const std::string drain =
      "        lm.cp_async_wait(pending=0)                                # the fix (CUTLASS 3.5): cp_async_wait<0>();\n"
      "        lm.sync(cta)                                               # __syncthreads();\n";
  const std::string loop_end =
      "            lm.cp_async_wait(pending=1)                            # cp_async_wait<Stages - 2>\n"
      "            lm.sync(cta)\n";
  const std::string epi_write = "        lm.copy(smem_c[0][wm:wm + 64, wn:wn + 64], out)\n";
  const std::string regs = "    row     = lm.regs(shape=(32, 64), dtype=lm.bf16)\n";
  const std::string rowa = regs + "    rowa    = lm.regs(shape=(32, 32), dtype=lm.bf16)\n";
  const int64_t K = 32 * 4;
  attack(base, {{"K", K}},
         {
             {{{loop_end, loop_end + "            if k + 1 == k_tiles:\n                lm.copy(out, acc)\n"
                                     "                lm.copy(smem_c[0][wm:wm + 64, wn:wn + 64], out)\n"}},
              "the epilogue's write in the last iteration, before the drain",
              {{"K", K}}},
             {{{regs, rowa},
               {"            lm.copy(C, row, coords=(m_blk + 32 * w, n_blk + 64 * h))\n",
                "            lm.copy(C, row, coords=(m_blk + 32 * w, n_blk + 64 * h))\n"
                "        lm.sync(cta)\n        lm.copy(rowa, smem_a[k_tiles - 1][32 * w:32 * w + 32, :])\n"}},
              "the ring's last stage read after the epilogue wrote over it",
              {{"K", K}}},
             {{{regs, rowa},
               {"        for h in lm.range(0, 2):",
                "        lm.copy(rowa, smem_a[k_tiles + 2][32 * ((w + 1) % 4):32 * ((w + 1) % 4) + 32, :])\n"
                "        for h in lm.range(0, 2):"}},
              "another warp's rows of the residue stage read through the ring after the epilogue",
              {{"K", K}}},
             {{{"smem_c  = pool.view(offset=0,", "smem_c  = pool.view(offset=16384,"}, {drain, "        lm.sync(cta)\n"}},
              "the staging view over the ring's last stage and smem_b only, no drain",
              {{"K", K}}},
             {{{"smem_c  = pool.view(offset=0,", "smem_c  = pool.view(offset=8192,"},
               {drain, "        lm.cp_async_wait(pending=1)\n        lm.sync(cta)\n"}},
              "the staging view overlapping the ring in part, the drain leaves a group in flight",
              {{"K", K}}},
             {{{loop_end, loop_end + "            if k % 8 == 5:\n                lm.cp_async_wait(pending=0)\n"
                                     "                lm.sync(cta)\n                lm.copy(out, acc)\n"
                                     "                lm.copy(smem_c[0][wm:wm + 64, wn:wn + 64], out)\n"
                                     "                lm.sync(cta)\n"}},
              "an epilogue drained and synced at k % 8 == 5 inside the loop, over stages still to be read",
              {{"K", 32 * 7}}},
             {{{loop_end, loop_end + "            lm.copy(smem_c[0][wm:wm + 64, wn:wn + 64], out)\n"}},
              "the staging view written every iteration (over stages in flight)",
              {{"K", K}}},
         });
}

// Persistent ring (kRingEnd) with guards over `e % p`, e a polynomial in k
// (rewritten per residue of the K loop's trip count).
TEST(TripAttacks2, ResidueOfAnExpressionOfK) {
  using cake::testing::kRingEnd;
  auto tk = [](int64_t tiles, int64_t k) {
    return std::vector<std::pair<std::string, int64_t>>{{"M", 64 * tiles}, {"K", 64 * k}};
  };
  const std::string rel = "                if k > 0:\n";
  const std::string wait = "                lm.wait(empty, iter=it - 4)\n";
  attack(kRingEnd, tk(3, 5),
         {
             {{{rel, "                if k > 0 and (k + t) % 2 == 0:\n"}},
              "releases skipped where k + t is odd",
              tk(2, 5)},
             {{{rel, "                if k > 0 and (2 * k + 1) % 4 != 3:\n"}}, "releases skipped at odd k", tk(1, 6)},
             {{{wait, "                if (k - 3) % 4 != 0:\n    " + wait}},
              "the producer skips its wait where k - 3 is a multiple of 4",
              tk(2, 5)},
             {{{wait, "                if (t - k) % 3 != 1:\n    " + wait}},
              "the producer skips its wait where t - k == 1 (mod 3)",
              tk(3, 3)},
             {{{wait, "                if (k + t * k_tiles) % 5 != 4:\n    " + wait}},
              "the producer skips its wait where the ring index is 4 mod 5 (a ring of 4)",
              tk(2, 3)},
             {{{wait, "                if (k + t * k_tiles) % 4 != 3 or t < 2:\n    " + wait}},
              "the producer skips its wait at ring slot 3 from tile 2 on",
              tk(4, 2)},
             {{{"lm.wait(full, iter=it)", "lm.wait(full, iter=it + 4 * ((k + 1) % 2))"}},
              "the consumer waits for the next lap's phase where k + 1 is odd",
              tk(1, 2)},
         });
}

// `cake check --engine z3`: bugs that show only at values the Z3 engine's
// queries run out on and the explicit engine's trials do not decide (on
// quack's fixed epilogue-load schedule: from K=385 on), which go to the
// proof first (docs/z3.md "Values Z3 gives up on: the proof first").
TEST(TripAttacks2, Z3EngineValuesItGivesUpOn) {
  const std::string base =
      cake::testing::corpusText("corpus/bugs/sync.deadlock/quack_sm100_epi_load_barrier_two_warps_fixed.cake");
  attack(base, {{"K", 128}},
         {
             {{{"lm.mma(tmem_acc, smem_a[k], smem_b[k]", "lm.mma(tmem_acc, smem_a[k + 2 * (k // 6)], smem_b[k]"}},
              "from k == 6 on the MMA reads its stage meaning a later lap",
              {{"K", 449}}},
         },
         checks::SyncEngine::Z3);
}
