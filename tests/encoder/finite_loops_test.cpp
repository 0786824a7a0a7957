// Two proof gaps met on real, correct kernels (helper fphunt5, session 32;
// docs/z3.md "Loops bounded by few values, explored whole" and "A fixed
// value that fixes the trip count"):
// * a role that runs several symbolic loops one after the other (vLLM's
//   paged attention partition: QK, exp, normalize and PV loops over at most
//   32 KV blocks; PyTorch's softmax over a row cached in shared memory) was
//   refused by lap induction ("runs two symbolic loops") although its loop
//   bounds read only a parameter with few allowed values: each value's
//   system is now explored whole;
// * a guard that reads the trip expression's parameter (vLLM's partition
//   merge: `if 32 * w < n_part:`) made the proof fix that parameter value
//   by value while the trip count stayed free, and a violation met at a
//   trip count the value does not give was reported as "engines disagree"
//   (an internal error, exit 2) on a correct kernel;
// * a loop bounded by the block index (Pallas FA3's causal KV steps) was
//   checked at several block indices, and the verdict said "sync: checked: "
//   with an empty list: the block indices are now named (the test,
//   CheckedValues.BlockIndicesAreNamed, is in trip_block_param_test.cpp
//   since session 33, which proves such loops).
// * (helper hunt47b, session 47) llama.cpp's flash_attn_combine_results
//   fills its shared (max, rowsum) table with a block-stride loop over
//   lm.cdiv(2 * P, 64) passes beside a merge loop over P, 2 <= P <= 64: a
//   correct kernel exited 2 *unknown* twice over: the bounded check asked
//   for a third pass no allowed P gives (the step of the lane count), and
//   the proof, refused for loops of different bounds, listed at most 32 of
//   the 63 values (docs/known-limits.md "A loop whose trip count the facts
//   bound, next to a second symbolic loop").
#include <gtest/gtest.h>

#include <string>

#include "attack_pair.h"

using namespace cake;
using namespace cake::testing::pairs;

namespace finite_loops_test {

bool finiteLoopsSyncProved(const checks::CheckResult& r) {
  for (const auto& v : r.verdicts)
    if (v.property == "sync") return v.kind == checks::VerdictKind::Proved;
  return false;
}

bool finiteLoopsHasInternalError(const checks::CheckResult& r) {
  for (const auto& v : r.verdicts)
    if (v.kind == checks::VerdictKind::Error) return true;
  return false;
}

// Chained block reductions over a row cached in shared memory (PyTorch's
// cunn_SoftMaxForwardSmem): three loops over n_vec rounds in one role.
const std::string kChainedReduce = R"(
@cake.schedule(target="sm_80")
def chained(lm, X: LM.gmem, Y: LM.gmem, n_vec: LM.i32):
    lm.assume(n_vec >= 1)
    lm.assume(n_vec <= 8)
    pool  = lm.smem(16400)
    cache = pool.view(offset=0,     shape=(1, 128), dtype=lm.f32, stages=32)
    red   = pool.view(offset=16384, shape=(1, 1),   dtype=lm.f32, stages=4)
    x    = lm.regs(shape=(1, 128), dtype=lm.f32)
    part = lm.regs(shape=(1, 1), dtype=lm.f32)
    oth  = lm.regs(shape=(1, 1), dtype=lm.f32)
    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        lm.fill(part, 0.0)
        for c in lm.range(0, n_vec):
            lm.copy(x, X, coords=(0, 512 * c + 128 * w))
            lm.copy(cache[4 * c + w], x)
            lm.reduce(oth, x, op="max", axis=1)
            lm.binary(part, part, oth, op="max")
        lm.sync(block)
        lm.copy(red[w], part)
        lm.sync(block)
        if w == 0:
            lm.copy(part, red[1])
            lm.copy(red[0], part)
        lm.sync(block)
        lm.copy(part, red[0])
        for c in lm.range(0, n_vec):
            lm.copy(x, cache[4 * c + w])
            lm.reduce(oth, x, op="sum", axis=1)
            lm.binary(part, part, oth, op="add")
        LEADING_SYNC
        lm.copy(red[w], part)
        lm.sync(block)
        lm.copy(part, red[0])
        for c in lm.range(0, n_vec):
            lm.copy(x, cache[4 * c + w])
            lm.binary(x, x, part, op="mul")
            lm.copy(Y, x, coords=(0, 512 * c + 128 * w))
)";

TEST(FiniteLoops, SequentialLoopsOverFewValuesAreProved) {
  const checks::CheckResult r = checkText(edited(kChainedReduce, {{"LEADING_SYNC", "lm.sync(block)"}}));
  EXPECT_FALSE(r.hasErrors()) << describe(r);
  EXPECT_TRUE(finiteLoopsSyncProved(r)) << describe(r);
}

// Without the second reduction's leading barrier warp 0 overwrites red[0]
// while the others may still read the first result from it.
TEST(FiniteLoops, ChainedReduceWithoutLeadingSyncIsReportedNotProved) {
  const checks::CheckResult r = checkText(edited(kChainedReduce, {{"LEADING_SYNC", "lm.fill(oth, 0.0)"}}));
  EXPECT_TRUE(r.hasErrors()) << describe(r);
  EXPECT_FALSE(finiteLoopsSyncProved(r)) << describe(r);
  bool race = false;
  for (const ir::Finding& f : r.findings) race = race || f.rule == "sync.race";
  EXPECT_TRUE(race) << describe(r);
}

// A table written by the warps whose chunk exists (`32 * w < n`) and read
// whole by every warp, over lm.cdiv(n, 32) chunks (vLLM's partition merge).
const std::string kGuardedChunks = R"(
@cake.schedule(target="sm_80")
def guarded_chunks(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
    lm.assume(n >= 1)
    lm.assume(n <= 64)
    pool = lm.smem(256)
    tab  = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=2)
    x    = lm.regs(shape=(1, 32), dtype=lm.f32)
    warps = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        if 32 * w < n:
            lm.copy(x, X, coords=(0, 32 * w))
            lm.copy(tab[w], x)
        BARRIER
        for c in lm.range(0, lm.cdiv(n, 32)):
            lm.copy(x, tab[c])
            lm.copy(Y, x, coords=(w, 32 * c))
)";

TEST(FiniteLoops, GuardOnTheTripParameterIsNoInternalError) {
  const checks::CheckResult r = checkText(edited(kGuardedChunks, {{"BARRIER", "lm.sync(block)"}}));
  EXPECT_FALSE(r.hasErrors()) << describe(r);
  EXPECT_FALSE(finiteLoopsHasInternalError(r)) << describe(r);
  EXPECT_FALSE(r.undecided()) << describe(r);
}

TEST(FiniteLoops, GuardedChunksWithoutBarrierAreReported) {
  expectPair("no barrier between the chunk stores and the reads",
             edited(kGuardedChunks, {{"BARRIER", "lm.fill(x, 0.0)"}}), "sync.race", "");
}

// flash_attn_combine_results<64> (llama.cpp PR #13852's fix): two warps
// store the 2 * P floats of the table in lm.cdiv(2 * P, 64) passes, then
// every warp reads all of them and merges P parts.
const std::string kBlockStrideFill = R"(
@cake.schedule(target="sm_80")
def combine(lm, Parts: LM.gmem, Meta: LM.gmem, Dst: LM.gmem, P: LM.i32):
    lm.assume(P >= 2)
    lm.assume(P <= 64)
    pool = lm.smem(512)
    meta = pool.view(offset=0, shape=(1, 128), dtype=lm.f32)
    part = lm.regs(shape=(1, 32), dtype=lm.f32)
    mall = lm.regs(shape=(1, 128), dtype=lm.f32)
    mx   = lm.regs(shape=(1, 1), dtype=lm.f32)
    v    = lm.regs(shape=(1, 32), dtype=lm.f32)
    acc  = lm.regs(shape=(1, 32), dtype=lm.f32)
    warps = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        for p in lm.range(0, PASSES):
            i0 = 64 * p + 32 * w
            n_w = min(32, max(0, 2 * P - i0))
            if n_w > 0:
                lm.copy(part[0:1, 0:n_w], Meta, coords=(0, i0))
                lm.copy(meta[0][0:1, i0:i0 + n_w], part[0:1, 0:n_w])
        lm.sync(block)
        lm.copy(mall[0:1, 0:2 * P], meta[0][0:1, 0:2 * P])
        lm.reduce(mx, mall[0:1, 0:2 * P], op="max", axis=1)
        lm.fill(acc, 0.0)
        for l in lm.range(0, P):
            lm.copy(v, Parts, coords=(0, 64 * l + 32 * w))
            lm.binary(v, v, mx[0:1, 0:1], op="mul")
            lm.binary(acc, acc, v, op="add")
        lm.copy(Dst, acc, coords=(0, 32 * w))
)";

TEST(FiniteLoops, BlockStrideFillBesideAMergeLoopIsProved) {
  const checks::CheckResult r = checkText(edited(kBlockStrideFill, {{"PASSES", "lm.cdiv(2 * P, 64)"}}));
  EXPECT_FALSE(r.hasErrors()) << describe(r);
  EXPECT_FALSE(r.undecided()) << describe(r);
  EXPECT_TRUE(finiteLoopsSyncProved(r)) << describe(r);
}

// The bounded check alone (no proof): the third pass no allowed P gives is
// no missing value, so the verdict is *checked*, not unknown.
TEST(FiniteLoops, BlockStrideFillIsCheckedWithoutTheProof) {
  auto mod = cake::testing::compile(edited(kBlockStrideFill, {{"PASSES", "lm.cdiv(2 * P, 64)"}}));
  ASSERT_FALSE(mod.schedules.empty());
  checks::CheckOptions opts;
  opts.target = mod.schedules.at(0).target;
  opts.timeout_ms = cake::testing::kNoWallClockMs;
  opts.rlimit = cake::testing::kQueryRlimit;
  opts.proof_timeout_ms = 0;
  const checks::CheckResult r = checks::checkSchedule(mod.schedules.at(0), opts);
  EXPECT_FALSE(r.hasErrors()) << describe(r);
  EXPECT_FALSE(r.undecided()) << describe(r);
}

// The kernel before the fix: one pass (`if (tid < 2*parallel_blocks)`), so
// the floats past the block's 64 threads are never stored (P >= 33).
TEST(FiniteLoops, BlockStrideFillOnePassShortIsReported) {
  expectPair("one pass of the fill", edited(kBlockStrideFill, {{"PASSES", "1"}}), "data.stale-read",
             edited(kBlockStrideFill, {{"PASSES", "2"}}));
}

}  // namespace finite_loops_test
