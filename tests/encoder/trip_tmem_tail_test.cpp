// An MMA into TMEM left out near a tile's end (helper fifth48b, session 48,
// issue 11; docs/z3.md "An MMA into TMEM left out near a tile's end"): a
// copy of a tile's last K iteration may leave out an MMA with an access in
// TMEM where its other accesses are ring-position views or path-free
// fragments (trip::leavableWithCounters), and then the true runs of every
// tile length must carry no TMEM hazard (checkTailTmemRuns). The reduced
// reproducer: an sm_100 GEMM whose MMA warp also sums every K block but the
// last into a second accumulator (`if k + 1 < k_tiles:`), which the
// epilogue reads with the full one. Proved (before: unknown); broken twins
// are found by `cake check` and not proved.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "attack_util.h"
#include "commit_tail_gemm.h"
#include "test_util.h"

namespace trip_tmem_tail_test {

// `base` with each (from, to) replaced once.
std::string edited(std::string base, const std::vector<std::pair<std::string, std::string>>& edits) {
  for (const auto& [from, to] : edits) base = cake::testing::replace(base, from, to);
  return base;
}

// fifth48's GEMM whose MMA warp also sums every K block but the last into a
// second accumulator (`if k + 1 < k_tiles:`), which the epilogue reads
// after the full one; each slot released in its own K iteration.
std::string allButLast() {
  return edited(cake::testing::kCommitTailGemm,
                {{"def commit_tail(", "def tmem_tail("},
                 {"lm.assume(K > 0)", "lm.assume(K > 64)"},
                 {"    acc_q    = lm.regs(",
                  "    tmem_x   = lm.tmem(cols=128, width=128, shape=(128, 128), dtype=lm.f32)\n    acc_q    = lm.regs("},
                 {R"(                if k + 1 < k_tiles:
                    lm.mma_commit(barrier=empty, iter=it)
            lm.mma_commit(barrier=empty, iter=t * k_tiles + k_tiles - 1)
)",
                  R"(                if k + 1 < k_tiles:
                    lm.mma(tmem_x, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit(barrier=empty, iter=it)
)"},
                 {"            lm.tmem_load_wait()\n",
                  "            lm.tmem_load_wait()\n            lm.tmem_load(acc_q, tmem_x[0:32, :])\n"
                  "            lm.tmem_load_wait()\n"}});
}

// Both tail arguments in one grid (docs/z3.md "An MMA into TMEM left out
// near a tile's end; both tail arguments in one grid"): fifth48's GEMM (its
// last K iteration's slot released after the K loop, dg4's argument) whose
// MMA warp also peeks at the next slot's `full` phase while it is not the
// tile's last (`lm.wait(full, iter=it + 1)`, lcsf5's: an iter= wait), and
// reads a per-tile operand smem_b[0] (loaded on b_full, waited before the
// K loop), whose marker the left-out wait on `full` does not move
// (leftOutWaitsChangeNoRead by the read's own fill barriers). h-fifth48:
// unknown ("... neither argument covers alone").
std::string peekAndCommit() {
  return edited(
      cake::testing::kCommitTailGemm,
      {{"def commit_tail(", "def both_tail("},
       {R"(shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    tmem_acc)",
        R"(shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    tmem_acc)"},
       {"    acc_full  = lm.barrier(",
        "    b_full    = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)\n"
        "    b_empty   = lm.barrier(count=1, prod=[mma], cons=[load], init_count=1)\n    acc_full  = lm.barrier("},
       {R"(        for t in lm.range(0, n_tiles):
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 2)
                smem_a.tma_load(A, coords=(t * 128, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(0, k * 64), iter=it, barrier=full)
)",
        R"(        for t in lm.range(0, n_tiles):
            lm.wait(b_empty, iter=t - 1)
            smem_b.tma_load(B, coords=(t * 128, 0), iter=t, barrier=b_full)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 2)
                smem_a.tma_load(A, coords=(t * 128, k * 64), iter=it, barrier=full)
        lm.wait(b_empty, iter=n_tiles - 1)
)"},
       {"            lm.wait(acc_empty, iter=t - 1)\n",
        "            lm.wait(acc_empty, iter=t - 1)\n            lm.wait(b_full, iter=t)\n"},
       {"lm.mma(tmem_acc, smem_a[it], smem_b[it], init=(k == 0))", "lm.mma(tmem_acc, smem_a[it], smem_b[0], init=(k == 0))"},
       {"                    lm.mma_commit(barrier=empty, iter=it)\n",
        "                    lm.mma_commit(barrier=empty, iter=it)\n                    lm.wait(full, iter=it + 1)\n"},
       {"            lm.mma_commit(barrier=acc_full, iter=t)",
        "            lm.mma_commit(barrier=b_empty, iter=t)\n            lm.mma_commit(barrier=acc_full, iter=t)"}});
}

const char* kSecondMma =
    "                if k + 1 < k_tiles:\n"
    "                    lm.mma(tmem_x, smem_a[it], smem_b[it], init=(k == 0))\n";
const char* kRelease = "                lm.mma_commit(barrier=empty, iter=it)\n";

}  // namespace trip_tmem_tail_test

TEST(TripTmemTail, LeftOutTmemMmaIsProvedAndItsBrokenFormsAreNot) {
  namespace at = cake::testing::attacks;
  namespace ttt = trip_tmem_tail_test;
  const std::string second = ttt::kSecondMma, release = ttt::kRelease;
  at::attack(ttt::allButLast(), {{"K", 3 * 64}, {"n_tiles", 3}},
             {
                 // tiles of one K iteration allowed: the second accumulator
                 // is never written, and the epilogue reads it
                 {{{"lm.assume(K > 64)", "lm.assume(K > 0)"}},
                  "a tile of one K iteration reads a never-written accumulator",
                  {{"K", 64}, {"n_tiles", 1}}},
                 // the second accumulator skips the last two K blocks: a tile
                 // of two writes it never, and only the true tail shows it
                 // (the grid's iterations are all far from their end)
                 {{{"if k + 1 < k_tiles:", "if k + 2 < k_tiles:"}},
                  "two K iterations left out: a tile of two reads it unwritten",
                  {{"K", 128}, {"n_tiles", 1}}},
                 // the left-out MMA's smem slot released before it reads it
                 {{{second + release, release + second}},
                  "the slot released before the second MMA reads it",
                  {{"K", 128}, {"n_tiles", 2}}},
                 // the second sum restarted at the second block: it adds onto
                 // never-written columns first
                 {{{"tmem_x, smem_a[it], smem_b[it], init=(k == 0)", "tmem_x, smem_a[it], smem_b[it], init=(k == 1)"}},
                  "the second accumulator started one block late",
                  {{"K", 128}, {"n_tiles", 1}}},
             });
}

TEST(TripTmemTail, LeftOutWaitAndCommitInOneGridAreProvedAndBrokenFormsAreNot) {
  namespace at = cake::testing::attacks;
  namespace ttt = trip_tmem_tail_test;
  at::attack(ttt::peekAndCommit(), {{"K", 3 * 64}, {"n_tiles", 3}},
             {
                 // the peek two phases ahead: the slot's phase of it + 2
                 // may complete before the next iteration's wait on it + 1
                 {{{"lm.wait(full, iter=it + 1)", "lm.wait(full, iter=it + 2)"}},
                  "the peek waits two phases ahead",
                  {{"K", 192}, {"n_tiles", 1}}},
                 // the per-tile operand's wait only in K iterations that are
                 // not the tile's last: a tile of one iteration never waits
                 {{{"            lm.wait(b_full, iter=t)\n", ""},
                   {"                lm.wait(full, iter=it)\n",
                    "                lm.wait(full, iter=it)\n"
                    "                if k + 1 < k_tiles:\n"
                    "                    lm.wait(b_full, iter=t)\n"}},
                  "the per-tile operand waited only before a tile's last K iteration",
                  {{"K", 64}, {"n_tiles", 1}}},
                 // the K iteration's own wait left out where the peek ran
                 // (its phase consumed by the peek the iteration before,
                 // but a tile's first iteration has none)
                 {{{"                lm.wait(full, iter=it)\n",
                    "                if k == 0:\n"
                    "                    lm.wait(full, iter=it + 1)\n"}},
                  "a tile's first iteration waits the next slot, not its own",
                  {{"K", 128}, {"n_tiles", 1}}},
             });
}

// The narrowing's scope: a left-out wait on a read's own fill barrier still
// moves its marker. The peek on the per-tile operand's `b_full` (the same
// phase again, harmless) left out in a tile's last K iteration, while the
// K iterations read smem_b[0] with no b_full wait of their own: refused by
// leftOutWaitsChangeNoRead.
TEST(TripTmemTail, LeftOutWaitOnTheReadsOwnFillBarrierIsRefused) {
  namespace ttt = trip_tmem_tail_test;
  const std::string text =
      cake::testing::replace(ttt::peekAndCommit(), "lm.wait(full, iter=it + 1)", "lm.wait(b_full, iter=t)");
  auto mod = cake::testing::compile(text);
  ASSERT_FALSE(mod.schedules.empty());
  const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
  EXPECT_NE(r.outcome, cake::encoder::Outcome::Proved);
  EXPECT_NE(r.detail.find("mma leaves out a wait near its tile's end, and its read smem_b[0]"), std::string::npos)
      << r.detail;
}
