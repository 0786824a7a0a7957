// Loops bounded by a multiple of the trip expression (docs/z3.md "Loops
// bounded by a multiple of the trip expression", helper twoloop, session
// 30): a producer that loads one ring slot per iteration for 2 * kh
// iterations and a consumer that takes two slots per iteration for kh.
// Before, lap induction answered unknown ("the symbolic loops have
// different bounds (2 * lm.cdiv(K, 128) and lm.cdiv(K, 128))"; written
// with `kt // 2`, the bound `2 * lm.cdiv(K, 128) // 2` was not simplified);
// now the producer's loop runs in blocks of two iterations over kh and
// the schedule is proved. Broken forms, each found by the bounded check,
// are not proved.
#include <gtest/gtest.h>

#include <string>

#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_multiple_test {

std::string twoSlots() { return cake::testing::corpusText("corpus/gemm/sm90_ws_two_slots_per_iteration.cake"); }

std::string edit(const std::string& from, const std::string& to) {
  return cake::testing::replace(twoSlots(), from, to);
}

bool violatedAtK(const std::string& text, int64_t K) {
  return cake::testing::violatedAt(cake::testing::compile(text).schedules.at(0),
                                   {{"M", 1}, {"N", 1}, {"K", K}});
}

bool brokenAtSomeK(const std::string& text) {
  for (int64_t K : {1, 129, 257, 385, 513, 769})
    if (violatedAtK(text, K)) return true;
  return false;
}

}  // namespace trip_multiple_test

namespace tmt = trip_multiple_test;

TEST(TripMultiple, ConsumerOfTwoSlotsPerIterationIsProved) {
  const std::string text = tmt::twoSlots();
  EXPECT_FALSE(tmt::brokenAtSomeK(text));
  auto r = cake::testing::proveText(text, 129);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("run in blocks over lm.cdiv(K, 128)"), std::string::npos) << r.engine;
  EXPECT_NE(r.engine.find("lap induction"), std::string::npos) << r.engine;
}

TEST(TripMultiple, BoundWrittenAsAQuotientIsProved) {
  // kt = 2 * lm.cdiv(K, 128) and the consumer to kt // 2: (2 * x) // 2 is x
  const std::string text = cake::testing::replace(
      tmt::edit("    kh    = lm.cdiv(K, 128)\n", "    kt    = 2 * lm.cdiv(K, 128)\n"),
      "        for k in lm.range(0, 2 * kh):", "        for k in lm.range(0, kt):");
  const std::string quotient = cake::testing::replace(text, "        for j in lm.range(0, kh):",
                                                      "        for j in lm.range(0, kt // 2):");
  ASSERT_NE(quotient, text);
  EXPECT_FALSE(tmt::brokenAtSomeK(quotient));
  auto r = cake::testing::proveText(quotient, 129);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("run in blocks"), std::string::npos) << r.engine;
}

TEST(TripMultiple, BrokenTwoSlotRingsAreNotProved) {
  struct Broken {
    std::string what, text;
  };
  const Broken broken[] = {
      // the corpus twin: slot 2j never released (the producer hangs a lap later)
      {"one slot of two released",
       cake::testing::corpusText(
           "corpus/bugs/sync.arrival-underflow/sm90_ws_two_slots_per_iteration_one_released.cake")},
      // both slots released before the MMAs retired
      {"released before the MMAs retired",
       tmt::edit("            lm.mma_wait(pending=0)\n            lm.arrive(empty, iter=2 * j)\n"
                 "            lm.arrive(empty, iter=2 * j + 1)\n",
                 "            lm.arrive(empty, iter=2 * j)\n            lm.arrive(empty, iter=2 * j + 1)\n"
                 "            lm.mma_wait(pending=0)\n")},
      // the producer runs one block more than the consumer takes
      {"the producer runs 2n + 1", tmt::edit("for k in lm.range(0, 2 * kh):", "for k in lm.range(0, 2 * kh + 1):")},
      // the consumer takes one slot per iteration (half the blocks)
      {"one slot per iteration",
       tmt::edit("            lm.wait(full, iter=2 * j + 1)\n            lm.mma(acc, smem_a[2 * j + 1], smem_b[2 * j + 1])\n",
                 "")},
      // the producer waits for the release of block k - 4, not k - 3: it refills
      // slot k % 3 while block k - 3 may still be read there
      {"the producer waits one block too few", tmt::edit("lm.wait(empty, iter=k - 3)", "lm.wait(empty, iter=k - 4)")},
  };
  for (const Broken& b : broken) {
    EXPECT_NE(b.text, tmt::twoSlots()) << b.what;
    EXPECT_TRUE(tmt::brokenAtSomeK(b.text)) << b.what;
    auto r = cake::testing::proveText(b.text, 129);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.what << ": " << r.engine;
  }
}
