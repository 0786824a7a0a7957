// The cluster barrier waits for the non-exited threads only (helper two50,
// session 50, issue 11; docs/semantics.md "Clusters"). PTX ISA,
// barrier.cluster: "barrier.cluster.wait causes the executing thread to
// wait for all non-exited threads of the cluster to perform
// barrier.cluster.arrive". The model counted every warp of every role, so a
// role that leaves without the trailing lm.cluster_sync() while the others
// wait was a sync.deadlock: a false alarm on sglang's 2-CTA TGV GEMM with
// the trailing barrier in its epilogue only. Now a generation completes once
// every process that has not finished arrived; a peer CTA that leaves while
// remote arrivals are still coming is sync.cluster-exit, and a role that
// neither arrives nor exits still deadlocks.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "encoder/cluster_exits.h"

namespace cluster_exit50_test {

using cake::testing::attacks::expectFoundNotProved;
using cake::testing::attacks::expectNoSyncFinding;
using cake::testing::attacks::modelCheck;

const char* const kDir = "corpus/bugs/sync.cluster-exit/";

std::string corpus(const std::string& name) { return cake::testing::corpusText(std::string(kDir) + name); }

// Two roles per CTA of a 2x1 cluster: `a` syncs twice around its signal to
// `b`, `b` once before it waits for the signal.
std::string twoRoles(const std::string& a_body) {
  return R"(@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def exits(lm, X: LM.gmem):
    r    = lm.regs(shape=(4, 4), dtype=lm.f32)
    a    = lm.role(warps=[0])
    b    = lm.role(warps=[1])
    flag = lm.barrier(count=1, prod=[a], cons=[b], init_count=1)
    with a:
)" + a_body + R"(    with b:
        lm.cluster_sync()
        lm.wait(flag, stage=0)
        lm.fill(r, 0.0)
        lm.copy(X, r, coords=(0, 0))
)";
}

bool exitsMatter(const std::string& text) {
  auto mod = cake::testing::compile(text);
  return cake::encoder::clusterExitsMatter(mod.schedules.at(0));
}

TEST(ClusterExit50, ExitsMatterWhereRolesSyncUnequally) {
  EXPECT_FALSE(exitsMatter(corpus("sglang_tgv_2cta_gemm_no_trailing_cluster_sync_fixed.cake")));
  EXPECT_TRUE(exitsMatter(corpus("sglang_tgv_2cta_gemm_no_trailing_cluster_sync_fixed_epilogue_only.cake")));
  // (one lm.cluster_sync() at the top of every role: the exits change nothing)
  EXPECT_FALSE(exitsMatter(corpus("sglang_tgv_2cta_gemm_no_trailing_cluster_sync.cake")));
  EXPECT_TRUE(exitsMatter(twoRoles("        lm.cluster_sync()\n        lm.cluster_sync()\n        lm.arrive(flag, stage=0)\n")));
}

// The trailing barrier in the epilogue only: no false alarm.
TEST(ClusterExit50, SlowEpilogueOnlyTrailingBarrierIsNoDeadlock) {
  const std::string text = corpus("sglang_tgv_2cta_gemm_no_trailing_cluster_sync_fixed_epilogue_only.cake");
  expectNoSyncFinding(text, "the trailing barrier in the epilogue roles only");
}

// A role that signals and leaves while the other syncs once: correct.
TEST(ClusterExit50, ARoleThatExitsAfterItsSignalIsNoDeadlock) {
  expectNoSyncFinding(twoRoles("        lm.cluster_sync()\n        lm.arrive(flag, stage=0)\n        lm.cluster_sync()\n"),
                      "a signals, then syncs once more; b leaves after one sync");
}

// A missing arrival is still found: `a` waits at its second barrier for `b`,
// which neither arrives nor exits (it waits for a's signal).
TEST(ClusterExit50, ARoleThatNeitherArrivesNorExitsDeadlocks) {
  expectFoundNotProved(twoRoles("        lm.cluster_sync()\n        lm.cluster_sync()\n        lm.arrive(flag, stage=0)\n"),
                       "sync.deadlock", "a's second barrier waits for b, which waits for a");
}

// Without any trailing barrier (sglang's bug) and with it in CTA 0's
// epilogue only, CTA 1 leaves while the leader's MMA still arrives on it.
TEST(ClusterExit50, SlowAPeerThatLeavesEarlyIsStillClusterExit) {
  expectFoundNotProved(corpus("sglang_tgv_2cta_gemm_no_trailing_cluster_sync.cake"), "sync.cluster-exit",
                       "no trailing barrier");
  const std::string rank0 = cake::testing::replace(
      corpus("sglang_tgv_2cta_gemm_no_trailing_cluster_sync_fixed_epilogue_only.cake"),
      "        lm.copy(C, out, coords=(m0, n0))\n        lm.cluster_sync()",
      "        lm.copy(C, out, coords=(m0, n0))\n        if rank == 0:\n            lm.cluster_sync()");
  const auto answer = modelCheck(cake::testing::compile(rank0).schedules.at(0));
  EXPECT_TRUE(answer.rules.count("sync.cluster-exit")) << answer.detail;
  EXPECT_FALSE(answer.rules.count("sync.deadlock")) << "a false deadlock beside the bug: " << answer.detail;
  EXPECT_FALSE(answer.proved);
}

}  // namespace cluster_exit50_test
