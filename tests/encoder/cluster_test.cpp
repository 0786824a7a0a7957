// Thread-block clusters in the transition system (docs/semantics.md
// "Clusters"): every CTA of the cluster modelled, multicast loads landing in
// each CTA of the mask, remote arrivals, the cluster barrier, and the two
// cluster rules (sync.cluster-init, sync.cluster-exit).
#include <gtest/gtest.h>

#include "encoder/simulator.h"
#include "encoder/system.h"
#include "test_util.h"

using namespace cake;
using cake::testing::bind;
using cake::testing::build;
using cake::testing::compile;
using cake::testing::hasRule;
using cake::testing::replace;
using cake::testing::rules;
using encoder::InstrKind;

namespace {

const std::string& kCluster = cake::testing::kClusterMulticast;

encoder::ModelCheckResult exploreCluster(const std::string& text, int64_t k) {
  auto mod = compile(text);
  EXPECT_FALSE(mod.schedules.empty());
  auto sys = build(mod.schedules[0], bind(mod.schedules[0], {{"K", k}}));
  return encoder::explore(sys, {});
}

}  // namespace

TEST(Cluster, EveryCtaIsModelled) {
  auto mod = compile(kCluster);
  ASSERT_EQ(mod.schedules.size(), 1u);
  EXPECT_TRUE(mod.schedules[0].cluster_ops);
  auto sys = build(mod.schedules[0], bind(mod.schedules[0], {{"K", 1}}));
  EXPECT_EQ(sys.ctas, 2);
  ASSERT_EQ(sys.procs.size(), 4u);
  EXPECT_EQ(sys.procs[0].name, "load@cta0");
  EXPECT_EQ(sys.procs[2].name, "load@cta1");
  EXPECT_EQ(sys.procs[3].cta, 1);
  EXPECT_EQ(sys.slots.size(), 8u);  // 2 barriers x 2 slots x 2 CTAs
  EXPECT_EQ(sys.slots[sys.slotOf(0, 1, 1)].name, "full[1]@cta1");
  EXPECT_EQ(sys.slots[sys.slotOf(0, 1, 1)].cta, 1);
  ASSERT_GE(sys.cluster_named, 0);
  EXPECT_EQ(sys.named[sys.cluster_named].expected_warps, 10);  // (1 + 4) warps x 2 CTAs
}

TEST(Cluster, MulticastLandsInEveryCtaOfTheMask) {
  auto mod = compile(kCluster);
  auto sys = build(mod.schedules[0], bind(mod.schedules[0], {{"K", 1}}));
  for (int p : {0, 2}) {  // the two producers
    const encoder::Process& pr = sys.procs[p];
    std::vector<const encoder::Instr*> loads, expects;
    for (const auto& in : pr.program) {
      if (in.kind == InstrKind::TmaLoad) loads.push_back(&in);
      if (in.kind == InstrKind::ExpectTx) expects.push_back(&in);
    }
    ASSERT_EQ(loads.size(), 3u) << pr.name;  // A, and the B half to each CTA
    ASSERT_EQ(expects.size(), 1u);
    // derived: A (8 KiB) + the multicast half counted once per CTA of the mask
    EXPECT_EQ(expects[0]->bytes, 8192 + 2 * 8192);
    EXPECT_EQ(sys.slots[expects[0]->slot].cta, pr.cta);
    EXPECT_EQ(sys.slots[loads[1]->slot].cta, 0);
    EXPECT_EQ(sys.slots[loads[2]->slot].cta, 1);
    EXPECT_NE(loads[1]->accesses[0].space, loads[2]->accesses[0].space);
    // half `rank` of the slot: bytes [16384 + 8192 * rank, ...)
    EXPECT_EQ(loads[1]->accesses[0].lo, 16384 + 8192 * pr.cta);
    EXPECT_EQ(sys.remote(p, static_cast<int>(loads[1] - pr.program.data())), pr.cta != 0);
  }
}

TEST(Cluster, CorrectSchedulePasses) {
  for (int64_t k : {1, 2, 3}) {
    auto r = exploreCluster(kCluster, k);
    EXPECT_EQ(r.outcome, encoder::Outcome::Pass) << "K=" << k << ": " << rules(r);
  }
}

TEST(Cluster, NoClusterSyncBeforeRemoteAccess) {
  std::string t = replace(kCluster, "    with load:\n        lm.cluster_sync()\n", "    with load:\n");
  t = replace(t, "    with math:\n        lm.cluster_sync()\n", "    with math:\n");
  auto r = exploreCluster(t, 2);
  EXPECT_TRUE(hasRule(r, "sync.cluster-init")) << rules(r);
}

TEST(Cluster, NoClusterSyncBeforeExit) {
  std::string t = replace(kCluster, "multicast=3)\n        lm.cluster_sync()\n", "multicast=3)\n");
  t = replace(t, "cta=1)\n        lm.cluster_sync()\n", "cta=1)\n");
  auto r = exploreCluster(t, 2);
  EXPECT_TRUE(hasRule(r, "sync.cluster-exit")) << rules(r);
}

TEST(Cluster, ReleaseInOwnCtaOnlyRacesOnThePeer) {
  std::string t = replace(kCluster, "init_count=2)", "init_count=1)");
  t = replace(t, "            lm.arrive(empty, iter=k, cta=0)\n            lm.arrive(empty, iter=k, cta=1)\n",
              "            lm.arrive(empty, iter=k)\n");
  auto r = exploreCluster(t, 3);
  EXPECT_TRUE(hasRule(r, "sync.race")) << rules(r);
}

TEST(Cluster, RoleWithoutTheTrailingClusterBarrierLeavesIt) {
  // barrier.cluster waits for the non-exited threads only (docs/semantics.md
  // "Clusters", session 50): the math warps leave after their last remote
  // arrive, the loaders' trailing barrier completes once both have exited.
  // Before, the model counted every role here and reported sync.deadlock.
  std::string t = replace(kCluster, "cta=1)\n        lm.cluster_sync()\n", "cta=1)\n");
  for (int64_t k : {1, 2}) {
    auto r = exploreCluster(t, k);
    EXPECT_EQ(r.outcome, encoder::Outcome::Pass) << "K=" << k << ": " << rules(r);
  }
}

TEST(Cluster, ArriveOnARankOutsideTheClusterIsRefused) {
  std::string t = replace(kCluster, "cta=1)", "cta=rank + 1)");
  auto mod = compile(t);
  std::string err;
  auto sys = encoder::buildSystem(mod.schedules[0], bind(mod.schedules[0], {{"K", 1}}), ir::Target::SM90a, &err);
  EXPECT_FALSE(sys.has_value());
  EXPECT_NE(err.find("outside the cluster"), std::string::npos) << err;
}
