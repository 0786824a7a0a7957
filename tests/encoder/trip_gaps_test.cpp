// Lap induction (encoder/trip_proof.h) past its first limits (docs/z3.md
// "Proofs for every trip count"): thread-block clusters and views over the
// same bytes that move by different laps. Each extension is shown proving a
// correct schedule and not proving broken variants of it (each confirmed
// broken by the bounded explicit-state check).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "encoder/simulator.h"
#include "encoder/trip_proof.h"
#include "test_util.h"

using namespace cake;

namespace {

// The proof under the deterministic budgets of test_util.h.
encoder::ModelCheckResult proveGap(const ir::Schedule& s) {
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = 64;
  encoder::TripProofOptions o;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  return encoder::proveEveryTripCount(s, s.target, {b}, o);
}

// Does the bounded check meet a violation at some K in `ks`?
bool brokenAtSomeK(const ir::Schedule& s, const std::vector<int64_t>& ks) {
  for (int64_t k : ks) {
    encoder::ExploreOptions eo;
    eo.timeout_ms = cake::testing::kNoWallClockMs;
    eo.stop_at_first = true;
    if (encoder::explore(cake::testing::build(s, cake::testing::bind(s, {{"K", k}})), eo).outcome ==
        encoder::Outcome::Violation)
      return true;
  }
  return false;
}

// The text of a corpus file (path relative to the source tree).
std::string corpusText(const std::string& rel) {
  std::string err;
  auto file = ir::readSourceFile(std::string(CAKE_SOURCE_DIR) + "/" + rel, err);
  EXPECT_TRUE(file) << rel << ": " << err;
  return file ? file->text : std::string();
}

// The cluster mainloop of test_util.h (two CTAs, B multicast in halves,
// each slot released in both CTAs, lm.cluster_sync() first and last) with
// a one-slot ring, which keeps the proof's state space small.
std::string oneSlotCluster() {
  using cake::testing::replace;
  std::string t = cake::testing::kClusterMulticast;
  t = replace(t, "shape=(64, 64),  dtype=lm.bf16, stages=2)", "shape=(64, 64),  dtype=lm.bf16, stages=1)");
  t = replace(t, "shape=(128, 64), dtype=lm.bf16, stages=2)", "shape=(128, 64), dtype=lm.bf16, stages=1)");
  t = replace(t, "shape=(64, 64),  dtype=lm.bf16, stages=4)", "shape=(64, 64),  dtype=lm.bf16, stages=2)");
  t = replace(replace(t, "count=2, prod=[load]", "count=1, prod=[load]"), "count=2, prod=[math]", "count=1, prod=[math]");
  t = replace(t, "iter=k - 2", "iter=k - 1");
  return replace(t, "smem_bh[2 * (k % 2) + rank]", "smem_bh[rank]");
}

}  // namespace

// docs/z3.md "Clusters": every CTA of the cluster is a part of the system;
// the rank (lm.block_idx(0) % 2) is the CTA's coordinate whatever the
// cluster's block index.
TEST(TripProofGaps, ClusterMainloopIsProvedAndItsBugsAreNot) {
  const std::string cluster = oneSlotCluster();
  auto mod = cake::testing::compile(cluster);
  ASSERT_FALSE(mod.schedules.empty());
  auto r = proveGap(mod.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;

  using cake::testing::replace;
  const std::string loop_end = "            lm.arrive(empty, iter=k, cta=1)\n";
  struct Bug { const char* what; std::string text; };
  const std::vector<Bug> bugs = {
      // no cluster barrier before the first remote arrive / multicast
      {"sync.cluster-init",
       replace(replace(cluster, "    with load:\n        lm.cluster_sync()\n", "    with load:\n"),
               "    with math:\n        lm.cluster_sync()\n", "    with math:\n")},
      // no cluster barrier at the end: a CTA exits while its peer may still arrive
      {"sync.cluster-exit",
       replace(replace(cluster, loop_end + "        lm.cluster_sync()\n", loop_end),
               "multicast=3)\n        lm.cluster_sync()\n", "multicast=3)\n")},
      // the slot released in the own CTA only: the peer's producer
      // multicasts its next half while this CTA's wgmma may still read it
      {"release own CTA only",
       replace(replace(replace(cluster, loop_end, ""), "iter=k, cta=0)", "iter=k)"), "init_count=2", "init_count=1")},
      // the producer waits one lap late: a race from the second iteration on
      {"wait one lap late", replace(cluster, "iter=k - 1)", "iter=k - 2)")},
  };
  for (const Bug& b : bugs) {
    auto m = cake::testing::compile(b.text);
    ASSERT_FALSE(m.schedules.empty()) << b.what;
    EXPECT_TRUE(brokenAtSomeK(m.schedules[0], {1, 2, 3})) << b.what;
    auto p = proveGap(m.schedules[0]);
    EXPECT_NE(p.outcome, encoder::Outcome::Proved) << b.what << ": " << p.engine;
  }
}

// docs/z3.md step 4, "Views over the same bytes": the epilogue's staging
// view over the drained A ring moves by no lap per period and the ring by
// one, which matters only to a read that compares laps across views.
TEST(TripProofGaps, EpilogueViewOverTheDrainedRingIsProved) {
  const std::string text = corpusText("corpus/layout/good_overlap_epilogue_over_drained_ring.cake");
  auto good = cake::testing::compile(text);
  ASSERT_FALSE(good.schedules.empty());
  auto r = proveGap(good.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;

  struct Bug { const char* what; std::string text; };
  const std::vector<Bug> bugs = {
      // the epilogue over the live ring: no barrier orders it after the
      // other warpgroup's last wgmma (bad_overlap_epilogue_over_live_ring)
      {"live ring", cake::testing::replace(text, "        lm.sync(epi_sync)\n", "")},
      // nothing written through smem_c: the TMA store reads the ring's
      // bytes through it, comparing laps with the A ring's loads
      {"read by laps", cake::testing::replace(text, "        lm.copy(smem_c[lm.instance()], acc)\n", "")},
  };
  for (const Bug& b : bugs) {
    auto m = cake::testing::compile(b.text);
    ASSERT_FALSE(m.schedules.empty()) << b.what;
    EXPECT_TRUE(brokenAtSomeK(m.schedules[0], {64, 320})) << b.what;
    auto p = proveGap(m.schedules[0]);
    EXPECT_NE(p.outcome, encoder::Outcome::Proved) << b.what << ": " << p.engine;
  }
}

// docs/z3.md step 1, "Guards on parameters": `if M > N:` and `elif m_blk +
// 128 >= M:` read unbounded parameters (and the block index) only to choose
// a body; one proof per outcome of the two guards covers every value. The
// broken forms (a slot released before its wgmma retired, under one outcome
// only) are not proved.
TEST(TripProofGaps, GuardsOnUnboundedParametersAreProvedPerOutcome) {
  auto good = cake::testing::compile(corpusText("corpus/basics/guard_two_params_fixed.cake"));
  ASSERT_FALSE(good.schedules.empty());
  auto r = proveGap(good.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("for each outcome of the guards (4 cases)"), std::string::npos) << r.engine;

  for (const char* rel : {"corpus/bugs/sync.race/sm90_release_before_retire_when_m_gt_n.cake",
                          "corpus/bugs/sync.race/sm90_interior_tile_releases_early.cake"}) {
    auto bad = cake::testing::compile(corpusText(rel));
    ASSERT_FALSE(bad.schedules.empty()) << rel;
    const ir::Schedule& s = bad.schedules[0];
    bool broken = false;  // M > N, and a tile inside the matrix (m_blk + 128 < M)
    for (int64_t n : {1, 64})
      broken |= encoder::explore(cake::testing::build(s, cake::testing::bind(s, {{"M", 1024}, {"N", n}, {"K", 192}})))
                    .outcome == encoder::Outcome::Violation;
    EXPECT_TRUE(broken) << rel;
    auto p = proveGap(s);
    EXPECT_NE(p.outcome, encoder::Outcome::Proved) << rel << ": " << p.engine;
  }
}

// docs/z3.md "Persistent kernels", step 5: a K iteration entered from the
// part before the loop and from the iteration before must have one
// previous synchronous access where another agent can meet it; accesses of
// atoms no other process and no async op touches (the role's registers)
// may differ. sm100_col_sum_persistent enters its K loop from
// `lm.fill(acc)` and from `lm.binary(acc, ...)`: proved since. Broken
// variants (each confirmed by the bounded check) are not.
TEST(TripProofGaps, PersistentLoopEnteredFromPrivateAccessesIsProved) {
  using cake::testing::replace;
  const std::string good = corpusText("corpus/reduction/sm100_col_sum_persistent.cake");
  auto mod = cake::testing::compile(good);
  auto r = proveGap(mod.schedules.at(0));
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  auto brokenSomewhere = [](const ir::Schedule& s) {
    for (int64_t rows : {64, 192, 320})
      for (int64_t cols : {128, 256}) {
        encoder::ExploreOptions eo;
        eo.timeout_ms = cake::testing::kNoWallClockMs;
        eo.stop_at_first = true;
        if (encoder::explore(cake::testing::build(s, cake::testing::bind(s, {{"R", rows}, {"C", cols}})), eo)
                .outcome == encoder::Outcome::Violation)
          return true;
      }
    return false;
  };
  ASSERT_FALSE(brokenSomewhere(mod.schedules.at(0)));
  const std::vector<std::pair<std::string, std::string>> bugs = {
      // the slot released before it is read: the next TMA load races the copy
      {"                lm.copy(g, smem_g[it])\n                lm.fence_proxy()  # generic reads done before the "
       "slot goes back to TMA\n                lm.arrive(empty, iter=it)",
       "                lm.arrive(empty, iter=it)\n                lm.copy(g, smem_g[it])\n                "
       "lm.fence_proxy()  # generic reads done before the slot goes back to TMA"},
      // a read of the ring before the stripe's loop, with no wait: a race
      // (and a shared access that differs from the iteration's last one)
      {"            lm.fill(acc, 0.0)", "            lm.fill(acc, 0.0)\n            lm.copy(g, smem_g[0])"},
  };
  for (const auto& [from, to] : bugs) {
    auto bad = cake::testing::compile(replace(good, from, to));
    const ir::Schedule& s = bad.schedules.at(0);
    EXPECT_TRUE(brokenSomewhere(s)) << to;
    auto rb = proveGap(s);
    EXPECT_NE(rb.outcome, encoder::Outcome::Proved) << to << ": " << rb.engine;
  }
}
