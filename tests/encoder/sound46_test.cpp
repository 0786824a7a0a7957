// Helper sound46's attack on session 45's proof and check paths
// (bench/attacks/sound46_mutants.py; docs/z3.md "Soundness review, session
// 46"). Three holes in the bounded check's covering values, each exiting 0
// *checked* on a broken schedule before this session:
// * a guard read as monotone in its loop variable (GoalCollector::monotoneIn,
//   helper tlx45) through `not` of an integer, whose truth is x != 0: true
//   only in a window of tiles, two flips, the second never placed;
// * a K loop whose trip count reads the tile loop's variable (helper
//   hunt45a's inner trip goals) with target 0 shifted away by the base's
//   value at the variable's 0 (shiftTripTargets), and a target reached only
//   past the first two tiles dropped without a word (tiedValues);
// * a guard part's flip that the rest of the guard masks (`K > k0 or K >
//   1`), where what the part compares changes another role's loop.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "split_k_kernel.h"
#include "checks/check.h"
#include "checks/model_check.h"
#include "test_util.h"

using namespace cake;

namespace sound46_test {

// The model checker's sync verdict of `text` and the sync. rules found.
struct SyncAnswer {
  checks::VerdictKind kind = checks::VerdictKind::Unknown;
  std::set<std::string> rules;
  std::string detail;
};
SyncAnswer syncOf(const std::string& text) {
  ir::Module mod = cake::testing::compile(text);
  EXPECT_FALSE(mod.schedules.empty());
  SyncAnswer out;
  if (mod.schedules.empty()) return out;
  const ir::Schedule& s = mod.schedules.at(0);
  checks::CheckOptions opts;
  opts.target = s.target;
  opts.timeout_ms = cake::testing::kNoWallClockMs;
  opts.rlimit = cake::testing::kQueryRlimit;
  ir::DiagnosticSink sink;
  std::vector<checks::PropertyVerdict> verdicts;
  checks::runModelChecker(s, opts, sink, verdicts);
  for (const auto& v : verdicts)
    if (v.property == "sync") {
      out.kind = v.kind;
      out.detail = v.detail;
    }
  for (const ir::Finding& f : sink.findings())
    if (f.rule.rfind("sync.", 0) == 0) out.rules.insert(f.rule);
  return out;
}

// A one-slot ring over T tiles; the producer loads and the consumer takes
// a tile only where its guard (PROD, CONS) holds.
const std::string kGuardedTiles = R"(@cake.schedule(target="sm_90a")
def win(lm, A: LM.tma2d, T: LM.i32, P: LM.i32, W: LM.i32):
    lm.assume(T > 0)
    lm.assume(P >= 0)
    lm.assume(W >= WMIN)
    pool  = lm.smem(8192)
    a     = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=1)
    r     = lm.regs(shape=(64, 64), dtype=lm.bf16)
    prod  = lm.role(warps=[0])
    cons  = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=1, prod=[prod], cons=[cons], init_count=1)
    empty = lm.barrier(count=1, prod=[cons], cons=[prod], init_count=1)
    with prod:
        for t in lm.range(0, T):
            if PROD:
                lm.wait(empty, stage=0)
                a.tma_load(A, coords=(0, t * 64), stage=0, barrier=full)
    with cons:
        lm.arrive(empty, stage=0)
        for t in lm.range(0, T):
            if CONS:
                lm.wait(full, stage=0)
                lm.copy(r, a[0])
                lm.fence_proxy()
                lm.arrive(empty, stage=0)
)";

std::string guardedTiles(const std::string& wmin, const std::string& prod, const std::string& cons) {
  using cake::testing::replace;
  return replace(replace(replace(kGuardedTiles, "WMIN", wmin), "PROD", prod), "CONS", cons);
}

// A one-slot ring whose tile t runs K * ((t + 1) % PERIOD) K iterations,
// the consumer's first peeled out of its K loop (unguarded: it hangs on an
// empty tile, t = PERIOD - 1).
const std::string kPeeledPeriodic = R"(@cake.schedule(target="sm_90a")
def inner(lm, A: LM.tma2d, T: LM.i32, K: LM.i32):
    lm.assume(T > 0)
    lm.assume(K >= 1)
    pool  = lm.smem(8192)
    a     = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=1)
    acc   = lm.regs(shape=(64, 64), dtype=lm.f32)
    prod  = lm.role(warps=[0])
    cons  = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=1, prod=[prod], cons=[cons], init_count=1)
    empty = lm.barrier(count=1, prod=[cons], cons=[prod], init_count=1)
    with prod:
        for t in lm.range(0, T):
            for k in lm.range(0, K * ((t + 1) % PERIOD)):
                lm.wait(empty, stage=0)
                a.tma_load(A, coords=(0, k * 64), stage=0, barrier=full)
    with cons:
        lm.arrive(empty, stage=0)
        for t in lm.range(0, T):
            lm.wait(full, stage=0)
            lm.mma(acc, a[0], a[0], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, stage=0)
            for k in lm.range(1, K * ((t + 1) % PERIOD)):
                lm.wait(full, stage=0)
                lm.mma(acc, a[0], a[0], init=False)
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, stage=0)
)";

// The split-K kernel (split_k_kernel.h) with the consumer's first K step
// peeled out of its loop, under the tile guard GUARD.
const std::string kSplitKGuarded = cake::testing::replace(
    cake::testing::split_k::kSplitK, "CONSUMER",
    cake::testing::split_k::underGuard(cake::testing::split_k::kPeeled, "GUARD"));

}  // namespace sound46_test

namespace s46 = sound46_test;

// Both roles skip the tiles of a window P <= t < P + W (`not ((t - P) // W)`
// is 1 there), the producer's window one tile longer: the consumer waits
// for tile P + W, which is never loaded. Read as monotone (`not` flipping
// the direction of `(t - P) // W`), the guard's one flip was placed at the
// window's start and the hang, past W >= 1000 tiles, was never run: exit 0,
// *checked*. Now the guard has no direction (its flips are left uncovered,
// *unknown*).
TEST(Sound46, AGuardReadThroughNotOfAnIntegerHasNoDirection) {
  const std::string prod = "(not ((t - P) // (W + 1))) < 1", cons = "(not ((t - P) // W)) < 1";
  const s46::SyncAnswer far = s46::syncOf(s46::guardedTiles("1000", prod, cons));
  EXPECT_NE(far.kind, checks::VerdictKind::Checked) << far.detail;
  EXPECT_NE(far.kind, checks::VerdictKind::Proved) << far.detail;
  // (with W >= 2 the values are no surer: the guard is left uncovered)
  const s46::SyncAnswer near = s46::syncOf(s46::guardedTiles("2", prod, cons));
  EXPECT_TRUE(near.kind == checks::VerdictKind::Unknown || near.rules.count("sync.arrival-underflow")) << near.detail;
  // a comparison under `not` keeps its direction: `not t // W < P` (one
  // flip, at t = P * W), the same in both roles, is covered and clean
  const s46::SyncAnswer start = s46::syncOf(s46::guardedTiles("2", "not t // W < P", "not t // W < P"));
  EXPECT_EQ(start.kind, checks::VerdictKind::Checked) << start.detail;
  EXPECT_TRUE(start.rules.empty());
}

// A K loop empty only at tile 99 (`K * ((t + 1) % 100)`), the consumer's
// peeled first wait hanging there: its trip target 0 was shifted away (the
// base values the count at t = 0, K >= 1) and, once kept, reached by no
// binding at the first two tiles and dropped silently: exit 0, *checked*.
// Now the target, possible past tile 1 (an integer witness), is named
// unplaced and the verdict *unknown*; with a period of 3 the hang is found.
TEST(Sound46, AnInnerLoopEmptyOnlyAtAFarTileIsNotChecked) {
  using cake::testing::replace;
  auto periodic = [](const std::string& period) {
    return replace(replace(s46::kPeeledPeriodic, "PERIOD", period), "PERIOD", period);
  };
  const s46::SyncAnswer far = s46::syncOf(periodic("100"));
  EXPECT_EQ(far.kind, checks::VerdictKind::Unknown) << far.detail;
  EXPECT_NE(far.detail.find("the value 0 of"), std::string::npos) << far.detail;
  const s46::SyncAnswer near = s46::syncOf(periodic("3"));
  EXPECT_TRUE(near.rules.count("sync.arrival-underflow")) << near.detail;
}

// The tile guard `K > k0 or K > 1` lets in the empty split wherever K > 1
// (K = 2, S = 4: splits 2 and 3 are empty), and the peeled wait hangs. The
// part `K > k0` flips at the empty split, but the whole guard only where
// K <= 1, where it skips that split: its flips placed, no binding ran an
// empty split with the guard held true, exit 0 *checked*. The part's flip
// masked by `K > 1` is now placed too (GoalCollector::pushFlip) and the hang
// found; the fixed guard `K > k0` stays clean.
TEST(Sound46, AGuardPartsFlipMaskedByTheRestOfTheGuardIsPlaced) {
  using cake::testing::replace;
  const s46::SyncAnswer masked = s46::syncOf(replace(s46::kSplitKGuarded, "GUARD", "K > tile // nmn * kp or K > 1"));
  EXPECT_TRUE(masked.rules.count("sync.arrival-underflow")) << masked.detail;
  const s46::SyncAnswer fixed = s46::syncOf(replace(s46::kSplitKGuarded, "GUARD", "K > tile // nmn * kp"));
  EXPECT_TRUE(fixed.rules.empty()) << fixed.detail;
  EXPECT_EQ(fixed.kind, checks::VerdictKind::Checked) << fixed.detail;
}
