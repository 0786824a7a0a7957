// A tile of one K iteration runs its first K iteration as its last
// (obstacle 1 (d) of docs/z3.md "FA4's correction warpgroup: what stops the
// proof"; helper fa4d47, session 47, docs/z3.md "First K iterations that are
// also a tile's last"): a process whose first K iteration is a copy of its
// own (firstIterations) and whose last ones are copies of their own
// (tailIterations) gets a third kind of copy per ring start and distance to
// the tile's end, entered where the tile's end is its start plus that
// distance. The reduced reproducer (kRingEnd's consumer releasing each slot
// one iteration late, `if k > 0:`, and the tile's last in its last
// iteration, `if k + 1 == k_tiles:`) was unknown and is proved; broken forms
// that differ only in a tile of one iteration (at ring start 0 or past it)
// are found by the bounded check and not proved.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "attack_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_fa17_test {

const char* kLoopEnd =
    "                lm.mma_wait(pending=1)\n"
    "                if k > 0:\n"
    "                    lm.arrive(empty, iter=it - 1)\n"
    "            lm.mma_wait(pending=0)\n"
    "            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)\n";

const char* kFirstAndLast =
    "                if k + 1 < k_tiles:\n"
    "                    lm.mma_wait(pending=1)\n"
    "                else:\n"
    "                    lm.mma_wait(pending=0)\n"
    "                if k > 0:\n"
    "                    lm.arrive(empty, iter=it - 1)\n"
    "                if k + 1 == k_tiles:\n"
    "                    lm.arrive(empty, iter=it)\n";

// kRingEnd (tests/encoder/test_util.h) with the tile's last release in its
// last K iteration: the first K iteration has its own text (no release of
// the slot before) and so has the last (waits for every group, releases
// its own slot); a tile of one iteration runs both.
std::string firstAndLast() { return cake::testing::replace(cake::testing::kRingEnd, kLoopEnd, kFirstAndLast); }

}  // namespace trip_fa17_test

namespace tfa17 = trip_fa17_test;

TEST(TripFa17, FirstIterationThatIsAlsoTheLastIsProvedAndItsBrokenFormsAreNot) {
  namespace at = cake::testing::attacks;
  at::attack(tfa17::firstAndLast(), {{"M", 5 * 64}, {"K", 64}},
             {
                 // session 22's double release: a tile of one iteration past
                 // ring index 0 releases the slot before its own again
                 {{{"                if k > 0:\n", "                if k > 0 or (k + 1 == k_tiles and it > 0):\n"}},
                  "a tile of one iteration releases the slot before its own again",
                  {{"M", 5 * 64}, {"K", 64}}},
                 // a tile of one iteration never releases its slot
                 {{{"                if k + 1 == k_tiles:\n                    lm.arrive(empty, iter=it)\n",
                    "                if k + 1 == k_tiles:\n                    if k > 0:\n"
                    "                        lm.arrive(empty, iter=it)\n"}},
                  "a tile of one iteration does not release its slot",
                  {{"M", 5 * 64}, {"K", 64}}},
             });
}

// The long form (label slow): broken forms the copy's matching refuses
// (an operation of the tile of one iteration that neither its last copy
// nor a first iteration of its own has, a named barrier left out), and the same kernel with its last
// two K iterations of their own (`if k + 2 < k_tiles:`): a tile of two
// iterations runs its first as the one two from its end.
TEST(TripFa17, SlowFirstIterationsThatAreAlsoTheLastAttacks) {
  namespace at = cake::testing::attacks;
  at::attack(tfa17::firstAndLast(), {{"M", 5 * 64}, {"K", 64}},
             {
                 // a tile of one iteration past ring index 0 keeps its group
                 // in flight (the copy of acc and the release race with it)
                 {{{"                else:\n                    lm.mma_wait(pending=0)\n",
                    "                else:\n                    if k == 0 and it > 0:\n"
                    "                        lm.mma_wait(pending=1)\n"
                    "                    else:\n                        lm.mma_wait(pending=0)\n"}},
                  "a tile of one iteration past ring index 0 keeps its group in flight",
                  {{"M", 2 * 64}, {"K", 64}}},
                 // the first iteration of a tile of one iteration releases
                 // the slot before its own too, past ring index 0 only
                 {{{"                if k + 1 == k_tiles:\n                    lm.arrive(empty, iter=it)\n",
                    "                if k + 1 == k_tiles:\n                    lm.arrive(empty, iter=it)\n"
                    "                    if k == 0 and it > 0:\n"
                    "                        lm.arrive(empty, iter=it - 1)\n"}},
                  "the last iteration of a tile of one iteration releases the slot before too",
                  {{"M", 5 * 64}, {"K", 64}}},
             });
  // both roles meet on a named barrier in every K iteration; the consumer's
  // tile of one iteration past ring index 0 does not (left out of the tail
  // copy it stands for: refused, the named arrivals per period would move)
  std::string synced = cake::testing::replace(
      tfa17::firstAndLast(), "    k_tiles = lm.cdiv(K, 64)\n",
      "    bar   = lm.named_barrier(roles=[producer, consumer])\n    k_tiles = lm.cdiv(K, 64)\n");
  synced = cake::testing::replace(
      synced, "                smem_b.tma_load(B, coords=(0, k * 64), iter=it, barrier=full)\n",
      "                smem_b.tma_load(B, coords=(0, k * 64), iter=it, barrier=full)\n                lm.sync(bar)\n");
  synced = cake::testing::replace(synced, "                lm.wait(full, iter=it)\n",
                                  "                lm.wait(full, iter=it)\n                lm.sync(bar)\n");
  at::attack(synced, {{"M", 5 * 64}, {"K", 64}},
             {
                 {{{"                lm.wait(full, iter=it)\n                lm.sync(bar)\n",
                    "                lm.wait(full, iter=it)\n                if k > 0 or it == 0:\n"
                    "                    lm.sync(bar)\n"}},
                  "a tile's first iteration past ring index 0 skips the named barrier",
                  {{"M", 2 * 64}, {"K", 64}}},
             });
  const std::string two =
      cake::testing::replace(tfa17::firstAndLast(), "if k + 1 < k_tiles:", "if k + 2 < k_tiles:");
  at::attack(two, {{"M", 5 * 64}, {"K", 128}},
             {
                 // the first iteration of a tile of two iterations past ring
                 // index 0 releases the slot before its own again
                 {{{"                if k + 1 == k_tiles:\n",
                    "                if k + 2 == k_tiles:\n                    if it > 0:\n"
                    "                        if k == 0:\n"
                    "                            lm.arrive(empty, iter=it - 1)\n"
                    "                if k + 1 == k_tiles:\n"}},
                  "a tile of two iterations releases the slot before its own again",
                  {{"M", 5 * 64}, {"K", 128}}},
             });
}

// The same kernel with no first K iteration of its own besides the tile of
// one iteration (the grid's first iteration is its others' text; only the
// tile of one iteration differs from the last iteration's copy): a tile of
// one iteration never releases its slot. Found and not proved.
TEST(TripFa17, OneIterationTileThatDiffersFromTheLastCopyOnlyIsNotProved) {
  const std::string text = cake::testing::replace(
      cake::testing::kRingEnd, tfa17::kLoopEnd,
      "                lm.mma_wait(pending=0)\n"
      "                if k + 1 < k_tiles:\n"
      "                    lm.arrive(empty, iter=it)\n"
      "                else:\n"
      "                    if k > 0 or it == 0:\n"
      "                        lm.arrive(empty, iter=it)\n");
  const encoder::ModelCheckResult proof = cake::testing::attacks::expectFoundNotProved(
      text, "sync.arrival-underflow", "a tile of one iteration never releases its slot");
  std::cout << "proof: " << proof.detail << "\n";
}
