// The persistent proof's layout serves every tile length (docs/z3.md "The
// layout of every tile length", helper por36, session 36). The layout of
// the combined program (the model's predecessors, the reducer's branches,
// starts and its may-analysis of pending async groups) is built once and
// shared by the explorations of tiles of 1, 2, ... K iterations. It was
// built with the first length's entries into the K loop only: for a process
// with copies near a tile's end, tiles of one iteration enter the copy one
// from the end and never the grid's iterations, so those were unreached in
// the may-analysis and their group waits got empty footprints. The
// reduction then took a group wait as independent of another process's
// write to the bytes its retiring group reads, and pruned the runs that
// write them while the group is in flight (the quotient twin of
// TripQuotient.SkippedWaitInTheEvenCaseIsNotProved, once proved). Broken
// twins whose race needs a wgmma group in flight in a tile of at least two
// K iterations, with copies near the tile's end from a guard on the group
// wait's `pending` (no left-out wait): each a violation of the explicit
// engine and not proved.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "encoder/simulator.h"
#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"
#include "two_stage_ring.h"

using namespace cake;

namespace trip_layout_length_test {

const char* kLoads = R"(                    smem_a.tma_load(A, coords=(t * 64, (2 * k + s) * 64), iter=it, barrier=full)
                    smem_b.tma_load(B, coords=(0, (2 * k + s) * 64), iter=it, barrier=full)
)";

// two_stage_ring.h's ring whose consumer runs `body` in the grid's stages
// and `last` in a tile's last one (the guard on lm.cdiv(K, 64) that gives
// the consumer copies near a tile's end), each after its MMA and commit,
// then `then` in every stage.
std::string ring(const std::string& body, const std::string& last, const std::string& then = "") {
  return cake::testing::twoStageRing(kLoads, "            lm.fill(acc, 0.0)\n",
                                     "                    lm.mma(acc, smem_a[it], smem_b[it], init=False)\n"
                                     "                    lm.mma_commit()\n"
                                     "                    if 2 * k + s + 1 < k_blocks:\n" +
                                         body + "                    else:\n" + last + then,
                                     "            lm.copy(out, acc)\n");
}

// The consumer keeps `keep` wgmma groups in flight but in a tile's last
// stage and then releases the slot of iteration it - `lag`.
std::string keeping(int keep, int lag) {
  return ring("                        lm.mma_wait(pending=" + std::to_string(keep) + ")\n",
              "                        lm.mma_wait(pending=0)\n",
              "                    if it >= " + std::to_string(lag) + ":\n                        lm.arrive(empty, iter=it - " +
                  std::to_string(lag) + ")\n");
}

// A broken form: the explicit engine meets it at `tiles` tiles of K = `k`,
// and the proof does not prove it.
void expectMetAndNotProved(const std::string& text, const char* what, int64_t tiles, int64_t k) {
  auto mod = cake::testing::compile(text);
  const ir::Schedule& x = mod.schedules.at(0);
  EXPECT_EQ(cake::testing::ringAt(x, tiles, k), encoder::Outcome::Violation) << what;
  auto r = cake::testing::proveSchedule(x);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << what << ": " << r.engine;
  std::cout << what << ": " << (r.outcome == encoder::Outcome::Violation ? "violation" : r.detail) << "\n";
}

}  // namespace trip_layout_length_test

namespace tllt = trip_layout_length_test;

// Two groups in flight and the slot two iterations back released: clean,
// and proved.
TEST(TripLayoutLength, TwoGroupsInFlightAreProved) {
  auto mod = cake::testing::compile(tllt::keeping(2, 2));
  const ir::Schedule& s = mod.schedules.at(0);
  cake::testing::expectCleanAt(s, {1, 2}, {64, 256, 320});
  auto r = cake::testing::proveSchedule(s);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
}

// Slots released while their group is in flight. The first two are broken
// in the grid's stages only (a tile's last stage retires every group, and
// with one K pair a tile's earlier stage keeps only groups of the previous
// tile, retired at its end): their races need tiles of two and three K
// pairs, which run the grid's iterations the layout once left out. The
// third is met in tiles of one pair too.
TEST(TripLayoutLength, GroupsInFlightReleasedEarlyAreNotProved) {
  // two groups in flight, the slot of the older released
  tllt::expectMetAndNotProved(tllt::keeping(2, 1), "two groups in flight, the older's slot released", 2, 256);
  // three in flight, the slot two back released
  tllt::expectMetAndNotProved(tllt::keeping(3, 2), "three groups in flight, the slot two back released", 1, 320);
  // one in flight, its own slot released at once
  tllt::expectMetAndNotProved(tllt::ring("                        lm.mma_wait(pending=1)\n"
                                         "                        lm.arrive(empty, iter=it)\n",
                                         "                        lm.mma_wait(pending=0)\n"
                                         "                        lm.arrive(empty, iter=it)\n"),
                              "one group in flight, its own slot released", 3, 128);
}
