// A ring streamed twice by one role (docs/z3.md "Two passes over one ring
// read as tiles of two kinds", helper softmax2, session 31): the two-pass
// softmax's TMA warp loads a row's blocks through a ring twice, its
// consumer reduces in pass 1 and writes in pass 2, the ring index running
// on across the passes (`iter=k`, then `iter=n + k`). Before, lap induction
// answered unknown ("load runs two symbolic loops"); now the passes are read
// as the tiles of a persistent kernel with a kind per tile and the schedule
// is proved. Broken forms, each found by the bounded check, are not proved.
#include <gtest/gtest.h>

#include <string>

#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_passes_test {

std::string twoPasses() { return cake::testing::corpusText("corpus/normalization/sm90_softmax_two_pass_ring.cake"); }

std::string passesEdit(const std::string& from, const std::string& to) {
  return cake::testing::replace(twoPasses(), from, to);
}

bool passesBrokenAtSomeV(const std::string& text) {
  const ir::Schedule s = cake::testing::compile(text).schedules.at(0);
  for (int64_t V : {1, 129, 257, 385, 513, 641, 769})
    if (cake::testing::violatedAt(s, {{"V", V}})) return true;
  return false;
}

// the consumer's pass 2 ring accesses (wait, read, release)
const std::string kConsumerPass2 =
    "            lm.wait(full, iter=n + k)\n            lm.copy(x, smem_x[n + k])\n            lm.fence_proxy()\n"
    "            lm.arrive(empty, iter=n + k)\n";
const std::string kConsumerPass1 =
    "            lm.wait(full, iter=k)\n            lm.copy(x, smem_x[k])\n            lm.fence_proxy()\n"
    "            lm.arrive(empty, iter=k)\n";
const std::string kProducerPass2 =
    "            lm.wait(empty, iter=n + k - 3)\n"
    "            smem_x.tma_load(X, coords=(r0, k * 128), iter=n + k, barrier=full)\n";

std::string consumerPass2Shifted(const std::string& by) {
  std::string shifted = kConsumerPass2;
  for (size_t at = 0; (at = shifted.find("n + k", at)) != std::string::npos; at += 5 + by.size())
    shifted.insert(at + 5, by);
  return passesEdit(kConsumerPass2, shifted);
}

// A ring of `depth` slots (the view's stages, the pipeline's, the pool's
// bytes and the producer's lag).
std::string ringOfDepth(int depth) {
  std::string text = twoPasses();
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"stages=3", "stages=" + std::to_string(depth)},
        {"lm.smem(49152)", "lm.smem(" + std::to_string(16384 * depth) + ")"},
        {"k - 3)", "k - " + std::to_string(depth) + ")"}})
    for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) text.replace(at, from.size(), to);
  return text;
}

}  // namespace trip_passes_test

namespace tpass = trip_passes_test;

TEST(TripPasses, TwoPassSoftmaxRingIsProved) {
  const std::string text = tpass::twoPasses();
  EXPECT_FALSE(tpass::passesBrokenAtSomeV(text));
  auto r = cake::testing::proveText(text, 129);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("two passes over lm.cdiv(V, 128) (load, wg) read as tiles of two kinds"), std::string::npos)
      << r.engine;
  EXPECT_NE(r.engine.find("lap induction over tiles and K"), std::string::npos) << r.engine;
}

TEST(TripPasses, RingsOfOtherDepthsAreProved) {
  for (int depth : {2, 4}) {
    const std::string text = tpass::ringOfDepth(depth);
    EXPECT_NE(text.find("stages=" + std::to_string(depth)), std::string::npos);
    EXPECT_FALSE(tpass::passesBrokenAtSomeV(text)) << depth;
    auto r = cake::testing::proveText(text, 129);
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << depth << ": " << r.detail;
  }
}

TEST(TripPasses, BrokenTwoPassRingsAreNotProved) {
  struct Broken {
    std::string what, text;
  };
  std::string swapped = tpass::passesEdit(tpass::kConsumerPass1, "@@1");
  swapped = cake::testing::replace(swapped, tpass::kConsumerPass2, tpass::kConsumerPass1);
  swapped = cake::testing::replace(swapped, "@@1", tpass::kConsumerPass2);
  const Broken broken[] = {
      // the corpus twin: the consumer restarts its pipeline state for pass 2
      {"the consumer restarts pass 2",
       cake::testing::corpusText("corpus/bugs/sync.lost-phase/sm90_softmax_two_pass_ring_restart.cake")},
      // the consumer's pass 2 one ring index short / long of the producer's
      {"consumer pass 2 at n + k - 1", tpass::consumerPass2Shifted(" - 1")},
      {"consumer pass 2 at n + k + 1", tpass::consumerPass2Shifted(" + 1")},
      // the producer's pass 2 one short / long (its wait moved along)
      {"producer pass 2 at n + k - 1",
       tpass::passesEdit(tpass::kProducerPass2, "            lm.wait(empty, iter=n + k - 4)\n"
                                            "            smem_x.tma_load(X, coords=(r0, k * 128), iter=n + k - 1, "
                                            "barrier=full)\n")},
      {"producer pass 2 at n + k + 1",
       tpass::passesEdit(tpass::kProducerPass2, "            lm.wait(empty, iter=n + k - 2)\n"
                                            "            smem_x.tma_load(X, coords=(r0, k * 128), iter=n + k + 1, "
                                            "barrier=full)\n")},
      // both roles restart at ring index 0 for pass 2 (the barriers' phases run on)
      {"both restart pass 2",
       cake::testing::replace(
           tpass::passesEdit(tpass::kProducerPass2, "            lm.wait(empty, iter=k - 3)\n"
                                                "            smem_x.tma_load(X, coords=(r0, k * 128), iter=k, "
                                                "barrier=full)\n"),
           tpass::kConsumerPass2, tpass::kConsumerPass1)},
      // the consumer takes the passes' ring indices in the other order
      {"consumer passes swapped", swapped},
      // the consumer's pass 2 waits for ring index n + k but reads slot k
      {"consumer pass 2 reads smem_x[k]", tpass::passesEdit("lm.copy(x, smem_x[n + k])", "lm.copy(x, smem_x[k])")},
      // a release between the passes (the part after pass 1 in the copy)
      {"a release between the passes",
       tpass::passesEdit("        lm.unary(l, l, op=\"recip\")\n",
                       "        lm.unary(l, l, op=\"recip\")\n        lm.arrive(empty, iter=n - 1)\n")},
      // a wait missing in pass 2
      {"consumer pass 2 without its wait", tpass::passesEdit("            lm.wait(full, iter=n + k)\n", "")},
      {"producer pass 2 without its wait", tpass::passesEdit("            lm.wait(empty, iter=n + k - 3)\n", "")},
  };
  for (const Broken& b : broken) {
    EXPECT_NE(b.text, tpass::twoPasses()) << b.what;
    EXPECT_TRUE(tpass::passesBrokenAtSomeV(b.text)) << b.what;
    auto r = cake::testing::proveText(b.text, 129);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.what << ": " << r.engine;
  }
}

// Bugs that both passes share pass the kinds' shape checks (the two kinds
// synchronize alike): the copy's exploration must meet them itself.
TEST(TripPasses, BugsOfBothPassesAreMetByTheExploration) {
  std::string early = tpass::twoPasses();
  for (const std::string idx : {"k", "n + k"})
    early = cake::testing::replace(
        early,
        "            lm.copy(x, smem_x[" + idx + "])\n            lm.fence_proxy()\n            lm.arrive(empty, iter=" +
            idx + ")\n",
        "            lm.arrive(empty, iter=" + idx + ")\n            lm.copy(x, smem_x[" + idx +
            "])\n            lm.fence_proxy()\n");
  const std::string lag4 = cake::testing::replace(tpass::passesEdit("iter=k - 3)", "iter=k - 4)"), "iter=n + k - 3)",
                                                  "iter=n + k - 4)");
  for (const std::string& text : {early, lag4}) {
    EXPECT_NE(text, tpass::twoPasses());
    EXPECT_TRUE(tpass::passesBrokenAtSomeV(text));
    auto r = cake::testing::proveText(text, 129);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
    EXPECT_NE(r.detail.find("read as tiles of two kinds"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("the exploration over every tile count and K trip count meets"), std::string::npos)
        << r.detail;
  }
}

// Where the construction stops: three passes (two kinds of tile only). The
// schedule is correct (clean on the bounded check) and stays unknown with
// the reason of the one-loop proof.
TEST(TripPasses, ThreePassesAreNotReadAsTiles) {
  const std::string pass3_producer =
      "        for k in lm.range(0, n):\n            lm.wait(empty, iter=2 * n + k - 3)\n"
      "            smem_x.tma_load(X, coords=(r0, k * 128), iter=2 * n + k, barrier=full)\n";
  std::string text = tpass::passesEdit("\n    with wg:", pass3_producer + "\n    with wg:");
  text += "        for k in lm.range(0, n):\n            lm.wait(full, iter=2 * n + k)\n"
          "            lm.copy(x, smem_x[2 * n + k])\n            lm.fence_proxy()\n"
          "            lm.arrive(empty, iter=2 * n + k)\n            lm.copy(Y, x, coords=(r0, k * 128))\n";
  EXPECT_FALSE(tpass::passesBrokenAtSomeV(text));
  auto r = cake::testing::proveText(text, 129);
  EXPECT_EQ(r.outcome, encoder::Outcome::Unknown) << r.engine;
  EXPECT_NE(r.detail.find("symbolic loops"), std::string::npos) << r.detail;
}
