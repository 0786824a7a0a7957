// Left-out waits near a tile's end (docs/z3.md "Left-out waits, explored
// without the reduction", helper lcsf5, session 35, issue 11). A K
// iteration near its tile's end may leave out an mbarrier wait named by
// iter= (helper lcsf4's argument, session 32: no counted phase moves, a
// later read's return is decided by a wait every copy keeps). Session 35
// explored such grids without the persistent-set reduction, since with it
// lcsf4's merged rule proved a broken producer whose tile's last stage
// skips its empty wait while the consumer keeps a wgmma group in flight;
// the cause was the layout, built with the first tile length's entries
// only (docs/z3.md "The layout of every tile length", helper por36,
// session 36), and they are explored with the reduction again. Kernels of
// the shape (an early wait for the next slot in every iteration but the
// tile's last) are proved; hand-written broken twins (a skipped wait in the
// last iteration, a wait a slot off there, a release missing in the last
// iteration, a hang only the last iteration meets, a consumer's own wait
// dropped) are each met by the explicit engine and not proved. ThunderKittens'
// lcsf producer (the reduced form, trip_prefetch_tail_test.cpp's
// kPersistentPrologue) gets past the waits; since session 37 it is proved
// (TripPrefetchTail.PersistentPrologueIsProvedAndItsBrokenFormsAreNotProved).
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <iostream>
#include <string>

#include "encoder/simulator.h"
#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "persistent_kernels.h"
#include "test_util.h"

using namespace cake;

namespace trip_left_out_wait_test {

// kRingEnd (test_util.h) whose consumer keeps one wgmma group in flight in
// every K iteration but its tile's last, and releases the slot before.
std::string leftOutWaitLastIteration() { return cake::testing::ringEndLastIteration(); }

const char* kLeftOutWaitLoadB = "                smem_b.tma_load(B, coords=(0, k * 64), iter=it, barrier=full)\n";
const char* kLeftOutWaitRelease = "                if it > 0:\n                    lm.arrive(empty, iter=it - 1)\n";

// The producer, after its loads, waits for the next iteration's slot (`it -
// 3`) in every iteration but its tile's last: the last leaves that wait out.
std::string leftOutWaitProducerEarly() {
  return cake::testing::replace(leftOutWaitLastIteration(), kLeftOutWaitLoadB,
                                std::string(kLeftOutWaitLoadB) +
                                    "                if k + 1 < k_tiles:\n                    lm.wait(empty, iter=it - 3)\n");
}

// The consumer, at its iteration's end, waits for the next slot's data
// (`it + 1`) in every iteration but its tile's last.
std::string leftOutWaitConsumerNext() {
  return cake::testing::replace(leftOutWaitLastIteration(), kLeftOutWaitRelease,
                                std::string(kLeftOutWaitRelease) +
                                    "                if k + 1 < k_tiles:\n                    lm.wait(full, iter=it + 1)\n");
}

encoder::Outcome leftOutWaitAt(const ir::Schedule& x, int64_t tiles, int64_t k_tiles) {
  return cake::testing::exploreToFirst(x, cake::testing::bind(x, {{"M", 64 * tiles}, {"K", 64 * k_tiles}})).outcome;
}

// Clean on the explicit engine at tiles {1, 2, 5} x K iterations {1, 2, 7}
// and proved by lap induction, with the reduction.
void leftOutWaitExpectProved(const std::string& text) {
  auto mod = cake::testing::compile(text);
  const ir::Schedule& s = mod.schedules.at(0);
  for (int64_t tiles : {1, 2, 5})
    for (int64_t k : {1, 2, 7}) EXPECT_EQ(leftOutWaitAt(s, tiles, k), encoder::Outcome::Pass) << tiles << "x" << k;
  auto r = cake::testing::proveSchedule(s);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction over tiles and K"), std::string::npos) << r.engine;
  EXPECT_EQ(r.engine.find("unreduced"), std::string::npos) << r.engine;
  std::cout << "[ " << r.engine << " ]\n";
}

// `text` with `from` edited to `to` is met by the explicit engine at tiles
// x k_tiles and not proved.
struct LeftOutWaitBug {
  std::string from, to;
  const char* what;
  int64_t tiles, k_tiles;
};
void leftOutWaitExpectNotProved(const std::string& text, std::initializer_list<LeftOutWaitBug> bugs) {
  for (const LeftOutWaitBug& b : bugs) {
    auto mod = cake::testing::compile(cake::testing::replace(text, b.from, b.to));
    const ir::Schedule& x = mod.schedules.at(0);
    EXPECT_EQ(leftOutWaitAt(x, b.tiles, b.k_tiles), encoder::Outcome::Violation) << b.what;
    auto r = cake::testing::proveSchedule(x);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.what << ": " << r.engine;
    EXPECT_FALSE(r.detail.empty()) << b.what;
    std::cout << b.what << ": " << (r.outcome == encoder::Outcome::Violation ? "violation met" : r.detail) << "\n";
  }
}

}  // namespace trip_left_out_wait_test

namespace tlw = trip_left_out_wait_test;

TEST(TripLeftOutWait, EarlyWaitsNearTheTileEndAreProved) {
  tlw::leftOutWaitExpectProved(tlw::leftOutWaitProducerEarly());
  tlw::leftOutWaitExpectProved(tlw::leftOutWaitConsumerNext());
}

TEST(TripLeftOutWait, BrokenLastIterationsAreNotProved) {
  const std::string own = "                lm.wait(empty, iter=it - 4)\n";
  const std::string early_guard = "if k + 1 < k_tiles:\n                    lm.wait(empty, iter=it - 3)";
  tlw::leftOutWaitExpectNotProved(
      tlw::leftOutWaitProducerEarly(),
      {
          // the last iteration alone waits, for the slot after the next one: a hang
          {early_guard, "if k + 1 >= k_tiles:\n                    lm.wait(empty, iter=it + 1)",
           "the last iteration waits for the slot after the next one", 2, 2},
          // the early wait in place, the producer's own wait left out of the
          // last iteration: a one-iteration tile loads unwaited
          {own, "                if k + 1 < k_tiles:\n    " + own, "the own wait left out of the last iteration", 5, 1},
      });
  tlw::leftOutWaitExpectNotProved(
      tlw::leftOutWaitLastIteration(),
      {
          // the class lcsf4's rule proved with the reduction: the last
          // iteration loads into the slot whose wgmma group is still in flight
          {own, "                if k + 1 < k_tiles:\n    " + own, "the last iteration skips its wait", 1, 7},
          // ... met where the slot's group is of the tile before (two tiles of
          // three: tile 1's last loads the slot of tile 0's second iteration)
          {own, "                if k + 1 < k_tiles:\n    " + own, "the last iteration skips its wait, across tiles", 2,
           3},
          // the last two iterations skip it (copies at distances 1 and 2 leave it out)
          {own, "                if k + 2 < k_tiles:\n    " + own, "the last two iterations skip their wait", 1, 7},
          // the last iteration's wait a slot off (the phase of it - 5): it
          // loads while the group of it - 4 is in flight
          {own,
           "                if k + 1 < k_tiles:\n                    lm.wait(empty, iter=it - 4)\n                "
           "else:\n                    lm.wait(empty, iter=it - 5)\n",
           "the last iteration waits for the slot before its own", 1, 7},
          // the last iteration leaves out its release of the slot before: the
          // producer waits for it forever
          {tlw::kLeftOutWaitRelease, "                if it > 0 and k + 1 < k_tiles:\n                    lm.arrive(empty, iter=it - 1)\n",
           "the last iteration's release missing", 5, 1},
      });
  tlw::leftOutWaitExpectNotProved(
      tlw::leftOutWaitConsumerNext(),
      {
          // the consumer's own wait dropped: a tile's first iteration reads early
          {"                lm.wait(full, iter=it)\n", "", "the consumer's own wait dropped", 2, 2},
      });
  // the early wait two iterations from the end and the consumer's own wait
  // only in a tile's first iteration: the tile's last iteration reads before
  // its data lands
  const std::string next2 = cake::testing::replace(
      tlw::leftOutWaitConsumerNext(), "if k + 1 < k_tiles:\n                    lm.wait(full, iter=it + 1)",
      "if k + 2 < k_tiles:\n                    lm.wait(full, iter=it + 1)");
  tlw::leftOutWaitExpectNotProved(next2, {{"                lm.wait(full, iter=it)\n",
                                           "                if k == 0:\n                    lm.wait(full, iter=it)\n",
                                           "the last iteration reads before its data lands", 2, 2}});
}
