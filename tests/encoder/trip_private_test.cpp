// Lap induction over tiles and K (docs/z3.md "Persistent kernels", step 5):
// a K iteration entered from the part before the K loop and from the
// iteration before must have one previous synchronous access where another
// *process* can meet it. Registers that only the process and its own wgmma
// touch (k-means' `dots`, written by the wgmma, read by `lm.reduce`) may
// differ between the two predecessors. A correct kernel of that shape is
// proved; broken variants (each confirmed broken by the bounded check) are
// not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "encoder/simulator.h"
#include "encoder/trip_proof.h"
#include "test_util.h"

using namespace cake;

namespace {

// A persistent running argmin (the shape of
// corpus/kmeans/sm90_assign_streamed_centroids.cake, one consumer, one
// ring): the K loop is entered from `lm.fill(lab, 0)` (first iteration)
// and from `lm.reduce(lab, dots, ...)` (the iteration before), which reads
// `dots`, the registers the consumer's own wgmma writes.
const char* kArgminPersistent = R"(@cake.schedule(target="sm_90a")
def argmin_persistent(lm, A: LM.tma2d, B: LM.tma2d, Lab: LM.gmem, M: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(K > 0)
    dots = lm.regs(shape=(64, 64), dtype=lm.f32)
    best = lm.regs(shape=(64, 1), dtype=lm.f32)
    lab  = lm.regs(shape=(64, 1), dtype=lm.i32)
    pool   = lm.smem(32768)
    smem_a = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    producer = lm.role(warps=[0, 1, 2, 3])
    consumer = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=pipe)
    k_tiles = lm.cdiv(K, 64)
    tiles   = lm.cdiv(M, 64)
    with producer:
        for t in lm.range(0, tiles):
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 2)
                smem_a.tma_load(A, coords=(t * 64, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(k * 64, 0), iter=it, barrier=full)
    with consumer:
        for t in lm.range(0, tiles):
            lm.fill(best, 3.0e38)
            lm.fill(lab, 0)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(dots, smem_a[it], smem_b[it], init=True)
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
                lm.reduce(lab, dots, op="argmin", axis=1, value=best, base=k * 64)
            lm.copy(Lab, lab, coords=(t * 64, 0))
)";

encoder::ModelCheckResult provePrivate(const ir::Schedule& s) {
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = 64;
  encoder::TripProofOptions o;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  return encoder::proveEveryTripCount(s, s.target, {b}, o);
}

// Does the bounded check meet a violation on some tiles x K iterations?
bool argminBrokenSomewhere(const ir::Schedule& s) {
  for (int64_t tiles : {1, 2, 3})
    for (int64_t k_tiles : {1, 2, 3, 5}) {
      encoder::ExploreOptions eo;
      eo.timeout_ms = cake::testing::kNoWallClockMs;
      eo.stop_at_first = true;
      auto sys = cake::testing::build(s, cake::testing::bind(s, {{"M", 64 * tiles}, {"K", 64 * k_tiles}}));
      if (encoder::explore(sys, eo).outcome == encoder::Outcome::Violation) return true;
    }
  return false;
}

}  // namespace

TEST(TripProofPrivate, LoopEnteredFromRegistersOfTheOwnWgmmaIsProved) {
  using cake::testing::replace;
  const std::string good = kArgminPersistent;
  auto mod = cake::testing::compile(good);
  ASSERT_FALSE(mod.schedules.empty());
  ASSERT_FALSE(argminBrokenSomewhere(mod.schedules[0]));
  auto r = provePrivate(mod.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction over tiles and K"), std::string::npos) << r.engine;

  const std::vector<std::pair<std::string, std::string>> bugs = {
      // the argmin reads dots before the wgmma retired: a race with the
      // consumer's own async op, at the iteration's last step
      {"                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=it)\n"
       "                lm.reduce(lab, dots, op=\"argmin\", axis=1, value=best, base=k * 64)\n",
       "                lm.reduce(lab, dots, op=\"argmin\", axis=1, value=best, base=k * 64)\n"
       "                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=it)\n"},
      // the stage released before the wgmma that reads it retired: the
      // next TMA load races it
      {"                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=it)\n",
       "                lm.arrive(empty, iter=it)\n                lm.mma_wait(pending=0)\n"},
      // a read of the ring before the K loop with no wait: a race with the
      // producer's load, through an access another process meets (the two
      // predecessors of the first K iteration differ there)
      {"            lm.fill(lab, 0)\n", "            lm.fill(lab, 0)\n            lm.copy(dots, smem_a[0])\n"},
  };
  for (const auto& [from, to] : bugs) {
    const std::string text = replace(good, from, to);
    ASSERT_NE(text, good) << to;
    auto bad = cake::testing::compile(text);
    ASSERT_FALSE(bad.schedules.empty()) << to;
    const ir::Schedule& s = bad.schedules[0];
    EXPECT_TRUE(argminBrokenSomewhere(s)) << to;
    auto rb = provePrivate(s);
    EXPECT_NE(rb.outcome, encoder::Outcome::Proved) << to << ": " << rb.engine;
  }
}
