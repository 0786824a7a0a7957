// A whole CTA of a TMEM kernel leaving before a cluster barrier its peer
// waits on (helper tidy51, session 51; docs/z3.md "The cluster barrier
// counts exits"). CTA 1 of a 2x1 cluster runs no trailing lm.cluster_sync()
// while every role of CTA 0 waits at one. barrier.cluster waits for the
// non-exited threads only (PTX ISA, barrier.cluster), and a kernel that
// holds TMEM ends with `__syncthreads(); tcgen05.dealloc`
// (ir::kernelEndsWithBlockBarrier): CTA 1's warps exit together once all
// its roles are done, and then CTA 0's generation completes by their exit
// (completedByExits). Correct where CTA 1 takes every remote arrival meant
// for it before it leaves; broken where an arrival comes after it left
// (sync.cluster-exit), where CTA 1 waits for an arrival CTA 0 sends only
// past the barrier (sync.deadlock), or where a warp of the CTA has no role
// (it waits at the closing __syncthreads() and never arrives:
// sync.deadlock). The proof refuses these schedules ("the proof does not
// count exits"), as docs/z3.md says; the bounded check decides.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "encoder/cluster_exits.h"
#include "encoder/system.h"
#include "ir/tmem.h"

namespace cluster_whole_exit51_test {

using cake::testing::attacks::expectFoundNotProved;
using cake::testing::attacks::expectNoSyncFinding;

const char* const kArrive = "            lm.arrive(peer, stage=0, cta=1)\n";
const char* const kSync = "            lm.cluster_sync()\n";
const char* const kTakeArrival = "            lm.wait(peer, stage=0)\n";
const char* const kLeave = "            pass\n";

// CTA 0's MMA warp sends one remote arrival on CTA 1's `peer` (`cta0`: the
// arrival and its trailing barrier, in some order); CTA 1's MMA warp runs
// `cta1` and leaves with its whole CTA. The epilogue (warps 0-3) reads the
// TMEM accumulator; the MMA role runs on warp `mma_warp` (4: every warp in a
// role; 5: warp 4 without one).
std::string wholeCtaExit(const std::string& cta0, const std::string& cta1, int mma_warp = 4) {
  return R"(@cake.schedule(target="sm_100a", cluster=(2, 1, 1))
def whole_cta_exit(lm, A: LM.tma2d, C: LM.gmem):
    pool = lm.smem(16384)
    a_s  = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    acc  = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    out  = lm.regs(shape=(128, 128), dtype=lm.f32)
    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[)" +
         std::to_string(mma_warp) + R"(])
    full = lm.barrier(count=1, prod=[mma], cons=[mma], init_count=1)
    done = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    peer = lm.barrier(count=1, prod=[mma], cons=[mma], init_count=1)
    rank = lm.cluster_rank()
    with mma:
        lm.cluster_sync()
        a_s.tma_load(A, coords=(128 * rank, 0), stage=0, barrier=full)
        lm.wait(full, stage=0)
        lm.mma(acc, a_s[0], a_s[0], init=True)
        lm.mma_commit(barrier=done, stage=0)
        if rank == 0:
)" + cta0 + "        else:\n" +
         cta1 + R"(    with epi:
        lm.cluster_sync()
        lm.wait(done, stage=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(128 * rank, 0))
        if rank == 0:
            lm.cluster_sync()
)";
}

std::string correct() { return wholeCtaExit(std::string(kArrive) + kSync, kTakeArrival); }

// The premise: the kernel holds TMEM (its CTAs exit whole) and its roles
// sync unequally (the exits complete a generation).
TEST(ClusterWholeExit51, TheCtaHoldsTmemAndItsExitCounts) {
  auto mod = cake::testing::compile(correct());
  const cake::ir::Schedule& s = mod.schedules.at(0);
  EXPECT_TRUE(cake::ir::kernelEndsWithBlockBarrier(s));
  EXPECT_TRUE(cake::encoder::clusterExitsMatter(s));
}

// CTA 1 takes CTA 0's arrival, then all of it leaves; CTA 0's trailing
// barrier completes by that exit. No finding; the proof refuses (it does
// not count exits) and never says the schedule is violated.
TEST(ClusterWholeExit51, AWholeCtaThatLeavesAfterItsArrivalsIsNoFinding) {
  expectNoSyncFinding(correct(), "CTA 1 takes its arrival and leaves whole");
  auto mod = cake::testing::compile(correct());
  const auto proof = cake::testing::attacks::proveDefault(mod.schedules.at(0));
  EXPECT_NE(proof.outcome, cake::encoder::Outcome::Violation) << proof.detail;
  if (proof.outcome != cake::encoder::Outcome::Proved)
    EXPECT_NE(proof.detail.find("the proof does not count exits"), std::string::npos) << proof.detail;
}

// CTA 1 leaves without taking the arrival: it may land after CTA 1 exited,
// before CTA 0's barrier or (sent past it) always.
TEST(ClusterWholeExit51, AnArrivalOnTheLeftCtaIsClusterExit) {
  expectFoundNotProved(wholeCtaExit(std::string(kArrive) + kSync, kLeave), "sync.cluster-exit",
                       "CTA 1 leaves without taking the arrival");
  expectFoundNotProved(wholeCtaExit(std::string(kSync) + kArrive, kLeave), "sync.cluster-exit",
                       "CTA 0 arrives past the barrier CTA 1's exit completed");
}

// CTA 1 waits for an arrival CTA 0 sends past its barrier, which waits for
// CTA 1 to leave.
TEST(ClusterWholeExit51, WaitingForAnArrivalSentPastTheBarrierDeadlocks) {
  expectFoundNotProved(wholeCtaExit(std::string(kSync) + kArrive, kTakeArrival), "sync.deadlock",
                       "CTA 1 waits for an arrival sent after CTA 0's barrier");
}

// Warp 4 without a role: it waits at the closing __syncthreads() of its
// CTA and never arrives, so CTA 0's first barrier never completes. Its
// count is derived from the schedule's roles (encoder::rolelessWarpsAtEnd).
TEST(ClusterWholeExit51, ARolelessWarpOfTheWaitingCtaDeadlocks) {
  const std::string text = wholeCtaExit(std::string(kArrive) + kSync, kTakeArrival, 5);
  auto mod = cake::testing::compile(text);
  const cake::ir::Schedule& s = mod.schedules.at(0);
  std::string err;
  const auto sys = cake::encoder::buildSystem(s, cake::testing::bind(s, {}), s.target, &err);
  ASSERT_TRUE(sys) << err;
  EXPECT_EQ(cake::encoder::rolelessWarpsAtEnd(*sys), std::vector<int>{4});
  expectFoundNotProved(text, "sync.deadlock", "warp 4 without a role");
}

}  // namespace cluster_whole_exit51_test
