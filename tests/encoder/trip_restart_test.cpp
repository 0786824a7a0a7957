// An outer loop whose every iteration restarts a cp.async ring at stage 0
// (Marlin's slices, vLLM PR #11493's fixed form: docs/z3.md "An outer loop
// that restarts the ring: the argument, not built"). Today such a kernel is
// checked, not proved: lap induction proves one slice for every K trip count,
// but not every slice count. These tests guard whatever proof comes next:
// each broken form below is clean in one slice (the one-slice proof says so)
// and broken from the second slice on, so a proof that covers every slice
// count by proving one slice alone would be unsound on all three; and two
// correct forms that a conservative rule may refuse must never be reported
// violated.
#include <gtest/gtest.h>

#include <string>

#include "encoder/proof_budget.h"
#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "restart_slices.h"
#include "test_util.h"

using namespace cake;
using cake::testing::compile;
using cake::testing::proveText;
using cake::testing::replace;

namespace {

// The slice count fixed to `n` (an lm.assume fact).
std::string withSlices(const std::string& text, int n) {
  return replace(text, "    lm.assume(K >= 64)\n",
                 "    lm.assume(K >= 64)\n    lm.assume(n == " + std::to_string(n) + ")\n");
}

bool violatedAt(const std::string& text, int64_t n, int64_t K) {
  return cake::testing::violatedAt(compile(text).schedules.at(0), {{"n", n}, {"K", K}});
}

}  // namespace

// The correct form: no violation for a few slice counts, and the proof does
// not report one (today: checked, not proved).
TEST(TripRestart, SlicesRestartingTheRingAreNotReportedViolated) {
  for (int64_t n : {1, 2, 3})
    for (int64_t K : {64, 65, 129, 193, 257}) EXPECT_FALSE(violatedAt(restart_slices::kSlices, n, K)) << n << " " << K;
  auto r = proveText(restart_slices::kSlices);
  EXPECT_NE(r.outcome, encoder::Outcome::Violation) << r.engine << r.detail;
}

// One slice is within today's proof (lap induction over K, period 3): the
// building block of the argument for every slice count.
TEST(TripRestart, OneSliceIsProvedForEveryKTripCount) {
  auto r = proveText(withSlices(restart_slices::kSlices, 1));
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction"), std::string::npos) << r.engine;
}

// Each broken form: clean in one slice (the bounded check, and the proof of
// one slice for every K), broken from the second; never proved for every
// slice count.
TEST(TripRestart, BugsFromTheSecondSliceAreNotProved) {
  for (const auto& b : restart_slices::brokenForms()) {
    SCOPED_TRACE(b.what);
    for (int64_t K : {64, 65, 129, 193}) EXPECT_FALSE(violatedAt(b.text, 1, K)) << K;
    EXPECT_TRUE(violatedAt(b.text, 2, b.K));
    auto one = proveText(withSlices(b.text, 1));
    EXPECT_EQ(one.outcome, encoder::Outcome::Proved) << one.detail;
    auto all = proveText(b.text);
    EXPECT_NE(all.outcome, encoder::Outcome::Proved) << all.engine;
  }
}

// Two correct forms a conservative rule for such loops may refuse (they are
// not violated; any answer but a violation is right): a group left pending
// at the end of the slice that holds no load (the loads are guarded), and a
// value carried from one slice to the next through shared memory, written
// before the slice's last barrier.
TEST(TripRestart, CorrectFormsOutsideTheQuiescentRuleAreNotViolated) {
  const std::string ok = restart_slices::kSlices;
  const std::string empty_pending =
      replace(ok, restart_slices::kSliceDrain, "            lm.cp_async_wait(pending=1)\n            lm.sync(bar)\n");
  const std::string carried =
      replace(replace(ok, restart_slices::kSliceStart,
                      std::string(restart_slices::kSliceStart) + "            lm.copy(r2, sc)\n"),
              restart_slices::kSliceDrain,
              std::string(restart_slices::kSliceDrain) +
                  "            if w == 0:\n                lm.copy(sc, r)\n            lm.sync(bar)\n");
  for (const auto* text : {&empty_pending, &carried}) {
    for (int64_t n : {1, 2, 3})
      for (int64_t K : {64, 65, 129}) EXPECT_FALSE(violatedAt(*text, n, K)) << n << " " << K << *text;
    auto r = proveText(*text);
    EXPECT_NE(r.outcome, encoder::Outcome::Violation) << r.engine << r.detail;
  }
}

namespace trip_restart_four_warps {

// One slice of four warps (Marlin's shape without its tail): each warp
// loads its band of a three-stage ring, all four read the whole stage after
// a barrier per K iteration. docs/z3.md "The one-slice cost, profiled":
// the four warps multiply the lap exploration's states; with an enabled
// lm.sync wait commuting with the barrier's arrivals in every reduction
// the proof fits `cake check`'s default budget (main 8dbdb77: 37,538
// states, 3.35e9 units, unknown at that budget).
const char* kFourWarpRing = R"(@cake.schedule(target="sm_80")
def four_warp_ring(lm, A: LM.gmem, C: LM.gmem, K: LM.i32):
    lm.assume(K >= 64)
    pool = lm.smem(16384)
    sa   = pool.view(offset=0, shape=(16, 64), dtype=lm.f16, stages=3)
    band = pool.view(offset=0, shape=(4, 64), dtype=lm.f16, stages=12)
    r    = lm.regs(shape=(16, 64), dtype=lm.f16)
    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[warps])
    k_tiles = lm.cdiv(K, 64)
    with warps:
        w = lm.instance()
        for i in lm.range(0, 2):
            if i < k_tiles:
                band.cp_async(A, coords=(4 * w, 64 * i), stage=4 * i + w)
            lm.cp_async_commit()
        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending=1)
            lm.sync(bar)
            if k + 2 < k_tiles:
                band.cp_async(A, coords=(4 * w, 64 * (k + 2)), stage=4 * ((k + 2) % 3) + w)
            lm.cp_async_commit()
            lm.copy(r, sa[k % 3])
        lm.cp_async_wait(pending=0)
        lm.copy(C, r, coords=(16 * w, 0))
)";

encoder::ModelCheckResult proveFourWarpsAtTheDefaultBudget(const std::string& text) {
  auto m = compile(text);
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(m.schedules.at(0).params.size()); ++p) b.params[p] = 64;
  encoder::TripProofOptions o;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  o.work = encoder::ProofBudget::unitsFor(3.0);  // `cake check`'s default budget
  return encoder::proveEveryTripCount(m.schedules.at(0), m.schedules.at(0).target, {b}, o);
}

}  // namespace trip_restart_four_warps

TEST(TripRestart, FourWarpRingIsProvedWithinTheDefaultBudget) {
  using namespace trip_restart_four_warps;
  for (int64_t K : {64, 65, 129, 193, 257})
    EXPECT_FALSE(cake::testing::violatedAt(compile(kFourWarpRing).schedules.at(0), {{"K", K}})) << K;
  auto r = proveFourWarpsAtTheDefaultBudget(kFourWarpRing);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_LT(r.states, 20000u) << r.engine;  // main 8dbdb77: 37,538
}

// Its broken forms (each violated at K = 64 on the explicit engine) are not
// proved: the barrier dropped (a warp refills a stage another still reads),
// and the wait one group short (a stage read before its loads land).
TEST(TripRestart, FourWarpRingBrokenFormsAreNotProved) {
  using namespace trip_restart_four_warps;
  const std::string ok = kFourWarpRing;
  const std::vector<std::string> broken = {
      replace(ok, "            lm.sync(bar)\n", ""),
      replace(ok, "lm.cp_async_wait(pending=1)", "lm.cp_async_wait(pending=2)"),
  };
  for (const std::string& text : broken) {
    EXPECT_TRUE(cake::testing::violatedAt(compile(text).schedules.at(0), {{"K", 64}})) << text;
    EXPECT_NE(proveFourWarpsAtTheDefaultBudget(text).outcome, encoder::Outcome::Proved) << text;
  }
}
