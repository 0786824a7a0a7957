// Warps without a role at the cluster barrier (helper cluster50, session
// 50). barrier.cluster waits for every non-exited thread of the cluster
// (PTX ISA, barrier.cluster; `exit` releases a barrier only the exiting
// threads held up). The lowering of a kernel that holds TMEM ends with
// `__syncthreads(); tcgen05.dealloc` after all role bodies, so there a warp
// without a role does not exit: it waits at that barrier and never arrives
// at barrier.cluster, and the first lm.cluster_sync() of the other warps
// never completes (a hang). Elsewhere such a warp exits at once and the
// cluster barrier does not wait for it. The model counted the warps of the
// roles only and passed the hang; it now reads the lowering's fact
// (ir::kernelEndsWithBlockBarrier).
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "ir/tmem.h"

namespace cluster_roleless50_test {

using cake::testing::attacks::expectFoundNotProved;
using cake::testing::attacks::expectNoSyncFinding;

const std::string kSglangFixed =
    "corpus/bugs/sync.cluster-exit/sglang_tgv_2cta_gemm_no_trailing_cluster_sync_fixed.cake";
const std::string kSm90Fixed = "corpus/bugs/sync.cluster-exit/sm90_multicast_no_final_cluster_sync_fixed.cake";

// The sglang 2-CTA TMEM GEMM as the corpus had it before: warps 2-3 of its
// 256 threads without a role (the real kernel runs the cluster barriers on
// every thread; the corpus file now gives them the role `rest`).
std::string sglangWithRolelessWarps() {
  std::string text = cake::testing::corpusText(kSglangFixed);
  text = cake::testing::replace(text, "    rest = lm.role(warps=[2, 3])", "    # (no role for warps 2, 3)");
  return text.substr(0, text.find("    with rest:"));
}

bool endsWithBlockBarrier(const std::string& text) {
  auto mod = cake::testing::compile(text);
  return cake::ir::kernelEndsWithBlockBarrier(mod.schedules.at(0));
}

TEST(ClusterRoleless50, TheFactFollowsTmem) {
  EXPECT_TRUE(endsWithBlockBarrier(sglangWithRolelessWarps()));
  EXPECT_FALSE(endsWithBlockBarrier(cake::testing::corpusText(kSm90Fixed)));
}

// The hang the reviewer found: role-less warps 2-3 wait at the closing
// __syncthreads(), the roles at the first cluster barrier.
TEST(ClusterRoleless50, RolelessWarpsOfATmemKernelHangTheClusterBarrier) {
  expectFoundNotProved(sglangWithRolelessWarps(), "sync.deadlock", "warps 2-3 of a TMEM kernel without a role");
}

// The same kernel with warps 2-3 running the cluster barriers: correct.
TEST(ClusterRoleless50, EveryWarpAtTheClusterBarrierIsNoDeadlock) {
  expectNoSyncFinding(cake::testing::corpusText(kSglangFixed), "warps 2-3 in role rest");
}

// Without TMEM the lowered kernel has no closing barrier: a warp without a
// role exits at once and the cluster barrier does not wait for it (sm_90a,
// warps 1-3 without a role).
TEST(ClusterRoleless50, RolelessWarpsWithoutTmemExitAndAreNoDeadlock) {
  expectNoSyncFinding(cake::testing::corpusText(kSm90Fixed), "warps 1-3 of an sm_90a kernel without a role");
}

}  // namespace cluster_roleless50_test
