// A prefetch guard on the trip count around a block that builds nothing for
// some processes (helper colband, session 29, issue 11):
// corpus/gemm/sm80_epilogue_warp_column_bands.cake runs
//
//     if k + 2 < k_tiles:
//         if w == 0:
//             smem_a.cp_async(..., iter=k + 2)
//
// in four one-warp instances. Warp 0's steady iterations end at T - 2 (its
// loads stop there), warps 1..3 build the same instructions for every trip
// count up to the loop's end (steady offset 0), yet they read the guard,
// whose value turns at T - 2: lap induction refused the read ("k + 2 <
// lm.cdiv(K, 32) reads lm.cdiv(K, 32) in a steady iteration in a way that
// does not stay put or repeat with the period of 3"). Now such a process's
// steady iterations end where the earliest process's do, and the read is a
// tail iteration's (encoder/trip_proof.cpp lowerSteadyOffset; docs/z3.md "A
// guard on the trip count that builds nothing for some processes").
#include <gtest/gtest.h>

#include <string>

#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_steady_guard_test {

const char* kColumnBandsFile = "corpus/gemm/sm80_epilogue_warp_column_bands.cake";

std::string steadyGuardText() { return cake::testing::corpusText(kColumnBandsFile); }

std::string steadyGuardEdit(std::string text, const std::string& from, const std::string& to) {
  // every occurrence: the prefetch's guard, stage and coordinates move together
  EXPECT_NE(text.find(from), std::string::npos) << from;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

bool steadyGuardViolatedAt(const std::string& text, int64_t K) {
  return cake::testing::violatedAt(cake::testing::compile(text).schedules.at(0), {{"K", K}});
}

}  // namespace trip_steady_guard_test

namespace tsg = trip_steady_guard_test;

TEST(TripSteadyGuard, ColumnBandsGemmIsProved) {
  const std::string text = tsg::steadyGuardText();
  for (int64_t K : {1, 33, 97, 193}) EXPECT_FALSE(tsg::steadyGuardViolatedAt(text, K)) << K;
  auto r = cake::testing::proveText(text, 64);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction"), std::string::npos) << r.engine;
}

TEST(TripSteadyGuard, GuardInsideTheWarpTestIsProvedAsBefore) {
  // the same loads with the warp test outside: warps 1..3 never read the
  // guard, and the proof never needed the lower offset
  const std::string text = tsg::steadyGuardEdit(tsg::steadyGuardText(),
                                                "            if k + 2 < k_tiles:\n                if w == 0:",
                                                "            if w == 0:\n                if k + 2 < k_tiles:");
  auto r = cake::testing::proveText(text, 64);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
}

TEST(TripSteadyGuard, BrokenPrefetchGuardsAreNotProved) {
  const std::string good = tsg::steadyGuardText();
  // one stage too far: three tiles in flight over a 3-stage ring, so warp
  // 0's load of k + 3 overwrites the slot the other warps' MMA of k reads
  std::string too_far = tsg::steadyGuardEdit(good, "lm.range(0, 2)", "lm.range(0, 3)");
  too_far = tsg::steadyGuardEdit(too_far, "pending=1", "pending=2");
  too_far = tsg::steadyGuardEdit(too_far, "k + 2", "k + 3");
  const struct {
    std::string text;
    int64_t K;  // a value the bounded check meets it at
  } broken[] = {
      {too_far, 97},
      // the wait one group short: the MMA reads a stage still in flight
      {tsg::steadyGuardEdit(good, "pending=1", "pending=2"), 1},
      // the guard one too tight for 3 stages: the last tile is never loaded
      {tsg::steadyGuardEdit(good, "if k + 2 < k_tiles:", "if k + 3 < k_tiles:"), 65},
  };
  for (const auto& b : broken) {
    EXPECT_TRUE(tsg::steadyGuardViolatedAt(b.text, b.K)) << b.text;
    auto r = cake::testing::proveText(b.text, 64);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.text;
  }
}
