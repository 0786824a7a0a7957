// Stages without data at a tile's end (docs/z3.md "Stages without data at a
// tile's end", helper dg4, session 35): DeepGEMM's tail stages on the
// two-stage ring (two_stage_ring.h's deepGemmTailStages) in both cases of
// lm.cdiv(K, 64) against 2 * lm.cdiv(K, 128). Where the K blocks are odd the
// tile's last stage has no data: the producer arrives on `full` without
// bytes instead of loading, the consumer skips the MMA, its commit and its
// wait. A tail iteration may now leave out operations whose counters count
// their own K iteration alone (iter= slots, views indexed by the ring
// position, MMA commit numbers nobody reads) and add an iter= arrival;
// before, the proof refused the case ("... differs when a K iteration is its
// tile's last, beyond operations that carry no counter"). Broken forms that
// differ in the tail stage are found by the explicit engine and not proved.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "encoder/simulator.h"
#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"
#include "two_stage_ring.h"

using namespace cake;

namespace trip_tail_counters_test {

// DeepGEMM's tail stages with both cases allowed (K > 0 only).
std::string bothCases() {
  return cake::testing::replace(cake::testing::deepGemmTailStages(), "    lm.assume(K % 128 == 0)\n", "");
}

std::string edited(const std::string& from, const std::string& to) {
  return cake::testing::replace(bothCases(), from, to);
}

// The consumer's stage without data, as written.
constexpr const char* kConsumerElse = R"(                    else:
                        lm.arrive(empty, iter=it)
)";

// The consumer waits on `full` in each branch of the guard, as DeepGEMM's
// math warpgroups do (a wait of the other branch's statement in the tail).
std::string waitInBothBranches() {
  std::string text = cake::testing::replace(bothCases(), "                    lm.wait(full, iter=it)\n                    if 2 * k + s < k_blocks:\n",
                                            "                    if 2 * k + s < k_blocks:\n                        lm.wait(full, iter=it)\n");
  return cake::testing::replace(text, kConsumerElse,
                                "                    else:\n                        lm.wait(full, iter=it)\n"
                                "                        lm.arrive(empty, iter=it)\n");
}

// Clean on the explicit engine at tiles {1, 2, 3} x K {64, ..., 320} and
// proved in both cases, the odd one by lap induction; the proof's text.
std::string expectCleanAndProvedInBothCases(const std::string& text) {
  auto mod = cake::testing::compile(text);
  const ir::Schedule& s = mod.schedules.at(0);
  cake::testing::expectCleanAt(s, {1, 2, 3}, {64, 128, 192, 256, 320});
  auto r = cake::testing::proveSchedule(s);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("(2 of 2 cases allowed)"), std::string::npos) << r.engine;
  EXPECT_NE(r.engine.find("for lm.cdiv(K, 64) == 2 * lm.cdiv(K, 128) - 1: lap induction over tiles and K"),
            std::string::npos)
      << r.engine;
  return r.engine;
}

}  // namespace trip_tail_counters_test

namespace ttc = trip_tail_counters_test;

TEST(TripTailCounters, StagesWithoutDataAreProvedInBothCases) {
  std::cout << "[ " << ttc::expectCleanAndProvedInBothCases(ttc::bothCases()) << " ]\n";
}

TEST(TripTailCounters, AWaitInEachBranchIsProved) {
  ttc::expectCleanAndProvedInBothCases(ttc::waitInBothBranches());
  // broken: the other branch's wait one lap stale (wrong parity), or on the
  // other barrier (the tail stage never waits for its data)
  for (const char* to : {"                        lm.wait(full, iter=it - 4)\n                        lm.arrive(empty, iter=it)\n",
                         "                        lm.wait(empty, iter=it - 4)\n                        lm.arrive(empty, iter=it)\n"}) {
    const std::string text = cake::testing::replace(
        ttc::waitInBothBranches(),
        "                        lm.wait(full, iter=it)\n                        lm.arrive(empty, iter=it)\n", to);
    auto bm = cake::testing::compile(text);
    const ir::Schedule& x = bm.schedules.at(0);
    EXPECT_EQ(cake::testing::ringAt(x, 3, 64), encoder::Outcome::Violation) << to;
    auto rb = cake::testing::proveSchedule(x);
    EXPECT_NE(rb.outcome, encoder::Outcome::Proved) << to << rb.engine;
    std::cout << to << ": " << (rb.outcome == encoder::Outcome::Violation ? "violation" : rb.detail) << "\n";
  }
}

TEST(TripTailCounters, BrokenTailStagesAreFoundAndNotProved) {
  struct Broken {
    const char *from, *to, *what;
    int64_t tiles, K;  // where the explicit engine finds it
  };
  const char* wait = "                    lm.wait(empty, iter=it - 4)\n                    if 2 * k + s < k_blocks:\n";
  const Broken broken[] = {
      // the producer's stage without data skips its empty wait
      {wait, "                    if 2 * k + s < k_blocks:\n                        lm.wait(empty, iter=it - 4)\n",
       "the producer's tail stage skips its wait", 3, 64},
      // the producer's stage without data arrives before its empty wait
      {"                    else:\n                        lm.arrive(full, iter=it)\n", "",
       "(the arrival moved, below)", 0, 0},
      // the consumer never releases the stage without data
      {ttc::kConsumerElse, "                    else:\n                        lm.fill(acc, 0.0)\n",
       "the consumer's tail stage never released", 3, 64},
      // the consumer releases the stage without data twice
      {ttc::kConsumerElse,
       "                    else:\n                        lm.arrive(empty, iter=it)\n"
       "                        lm.arrive(empty, iter=it + 1)\n",
       "the consumer's tail stage releases the next stage too", 4, 64},
      // the consumer releases the stage without data before its full wait
      {"                    lm.wait(full, iter=it)\n                    if 2 * k + s < k_blocks:\n",
       "                    if 2 * k + s < k_blocks:\n                        lm.wait(full, iter=it)\n",
       "the consumer's tail stage skips its full wait", 3, 64},
      // the consumer's tail stage waits for the previous lap's phase (wrong parity)
      {ttc::kConsumerElse,
       "                    else:\n                        lm.wait(full, iter=it - 4)\n"
       "                        lm.arrive(empty, iter=it)\n",
       "the consumer's tail stage waits for the previous lap too", 3, 64},
      // the consumer runs the MMA on the stage without data (nothing loaded)
      {ttc::kConsumerElse,
       "                    else:\n                        lm.mma(acc, smem_a[it], smem_b[it], init=True)\n"
       "                        lm.mma_commit()\n                        lm.mma_wait(pending=0)\n"
       "                        lm.arrive(empty, iter=it)\n"
       "                        lm.binary(out, out, acc, op=\"add\")\n",
       "the consumer's tail stage runs the MMA without data", 1, 64},
      // the consumer's tail stage reads the slot one round stale
      {ttc::kConsumerElse,
       "                    else:\n                        lm.mma(acc, smem_a[it - 4], smem_b[it - 4], init=True)\n"
       "                        lm.mma_commit()\n                        lm.mma_wait(pending=0)\n"
       "                        lm.arrive(empty, iter=it)\n"
       "                        lm.binary(out, out, acc, op=\"add\")\n",
       "the consumer's tail stage reads its slot one round stale", 1, 64},
  };
  for (const Broken& b : broken) {
    std::string text = ttc::edited(b.from, b.to);
    if (b.tiles == 0) {
      // the producer's arrival without bytes issued before its empty wait
      text = cake::testing::replace(
          text, wait,
          "                    if 2 * k + s >= k_blocks:\n                        lm.arrive(full, iter=it)\n" +
              std::string(wait));
      for (int64_t tiles : {3}) {
        auto mod = cake::testing::compile(text);
        const ir::Schedule& x = mod.schedules.at(0);
        EXPECT_EQ(cake::testing::ringAt(x, tiles, 64), encoder::Outcome::Violation) << "the arrival before the wait";
        auto r = cake::testing::proveSchedule(x);
        EXPECT_NE(r.outcome, encoder::Outcome::Proved) << "the arrival before the wait: " << r.engine;
        std::cout << "the producer's tail arrival before its wait: "
                  << (r.outcome == encoder::Outcome::Violation ? "violation" : r.detail) << "\n";
      }
      continue;
    }
    auto mod = cake::testing::compile(text);
    const ir::Schedule& x = mod.schedules.at(0);
    EXPECT_EQ(cake::testing::ringAt(x, b.tiles, b.K), encoder::Outcome::Violation) << b.what;
    auto r = cake::testing::proveSchedule(x);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.what << ": " << r.engine;
    std::cout << b.what << ": " << (r.outcome == encoder::Outcome::Violation ? "violation" : r.detail) << "\n";
  }
}

// The argument's own refusals, whatever else is wrong with the schedule: a
// tail stage that leaves out a wait (the builder counts every mbarrier wait
// into the markers of later reads: Builder::wait), or that leaves out a
// TMA load into a view a stage index names (its generation counts the
// process's earlier writes of the index), is refused before any run is
// explored.
TEST(TripTailCounters, CountersBeyondTheIterationAreRefused) {
  const char* refused = "its tile's last, beyond operations that carry no counter";
  const std::string no_wait =
      ttc::edited("                    lm.wait(full, iter=it)\n                    if 2 * k + s < k_blocks:\n",
                  "                    if 2 * k + s < k_blocks:\n                        lm.wait(full, iter=it)\n");
  auto r = cake::testing::proveText(no_wait);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
  // (the left-out wait is lcsf5's argument's, the left-out loads this one's:
  // since helper fifth48b a grid takes both, with lcsf5's checks over every
  // left-out operation, and the left-out loads' writes of smem_a, at more
  // than one offset of the K iterations, are refused by lcsf6's
  // leftOutWritesOncePerRun; docs/z3.md "Both tail arguments in one grid")
  EXPECT_NE(r.detail.find("producer leaves out a write of smem_a near its tile's end"), std::string::npos)
      << r.detail;
  // a side buffer named by the stage s (no lap of its own), loaded on the
  // stage's `full` by iter=
  std::string staged =
      ttc::edited("                        smem_b.tma_load(B, coords=(0, (2 * k + s) * 64), iter=it, barrier=full)\n",
                  "                        smem_b.tma_load(B, coords=(0, (2 * k + s) * 64), iter=it, barrier=full)\n"
                  "                        smem_c[s].tma_load(B, coords=(0, 0), iter=it, barrier=full)\n");
  staged = cake::testing::replace(staged, "lm.smem(98304)", "lm.smem(114688)");
  // (the odd case alone: the even case's exploration meets a race of the
  // two stages' loads into smem_c first)
  staged = cake::testing::replace(staged, "    lm.assume(K > 0)\n",
                                  "    lm.assume(K > 0)\n    lm.assume(lm.cdiv(K, 64) == 2 * lm.cdiv(K, 128) - 1)\n");
  staged = cake::testing::replace(
      staged, "    acc    = lm.regs(",
      "    smem_c = pool.view(offset=98304, shape=(64, 64), dtype=lm.bf16, stages=2)\n    acc    = lm.regs(");
  auto rs = cake::testing::proveText(staged);
  EXPECT_NE(rs.outcome, encoder::Outcome::Proved) << rs.engine;
  EXPECT_NE(rs.detail.find(refused), std::string::npos) << rs.detail;
}
