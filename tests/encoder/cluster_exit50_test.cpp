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
// neither arrives nor exits still deadlocks. When a warp exits is the
// lowering's fact (helper cluster50, ir::kernelEndsWithBlockBarrier): in a
// kernel that holds TMEM no warp exits before its whole CTA is done, so
// there the epilogue-only barrier is a hang (review50).
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "encoder/cluster_exits.h"

namespace cluster_exit50_test {

using cake::testing::attacks::expectFoundNotProved;
using cake::testing::attacks::expectNoSyncFinding;

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

// The trailing barrier in the epilogue only of a TMEM kernel (review50):
// the lowered kernel ends with __syncthreads(); tcgen05.dealloc, so the TMA
// and MMA warps wait there and never exit, and the epilogue waits at the
// cluster barrier for them: a hang (ir::kernelEndsWithBlockBarrier). Found
// in the corpus form (warps 2-3 in role `rest`), in two50's first form
// (warps 2-3 without a role) and in review50's (roles on warps 4, 5, 0-3).
std::string epilogueOnly() { return corpus("sglang_tgv_2cta_gemm_no_trailing_cluster_sync_fixed_epilogue_only.cake"); }
std::string epilogueOnlyRolelessWarps() {
  std::string text = cake::testing::replace(epilogueOnly(), "    rest = lm.role(warps=[2, 3])", "    # (no role for warps 2, 3)");
  return text.substr(0, text.find("    with rest:"));
}
TEST(ClusterExit50, SlowEpilogueOnlyTrailingBarrierOfATmemKernelDeadlocks) {
  expectFoundNotProved(epilogueOnly(), "sync.deadlock", "the trailing barrier in the epilogue roles only (TMEM)");
}
TEST(ClusterExit50, SlowReview50EpilogueOnlyReproducersDeadlock) {
  expectFoundNotProved(epilogueOnlyRolelessWarps(), "sync.deadlock", "two50's form: warps 2-3 without a role");
  std::string moved = cake::testing::replace(epilogueOnlyRolelessWarps(), "lm.role(warps=[0])", "lm.role(warps=[4])");
  moved = cake::testing::replace(moved, "lm.role(warps=[1])", "lm.role(warps=[5])");
  moved = cake::testing::replace(moved, "lm.role(warps=[4, 5, 6, 7])", "lm.role(warps=[0, 1, 2, 3])");
  expectFoundNotProved(moved, "sync.deadlock", "review50's form: every warp in a role");
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

// Without any trailing barrier (sglang's bug) CTA 1 leaves while the
// leader's MMA still arrives on it.
TEST(ClusterExit50, SlowAPeerThatLeavesEarlyIsStillClusterExit) {
  expectFoundNotProved(corpus("sglang_tgv_2cta_gemm_no_trailing_cluster_sync.cake"), "sync.cluster-exit",
                       "no trailing barrier");
}

}  // namespace cluster_exit50_test
