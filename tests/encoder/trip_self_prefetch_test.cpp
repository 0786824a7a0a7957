// A self-prefetching persistent ring (helper tri47, session 47, issue 11):
// Triton's default persistent TMA + wgmma pipeline on Hopper, one role that
// both issues the ring's TMA loads and consumes them. Per tile a prologue
// loads ring steps base and base + 1, and K step k refills step k + 2 under
// `if k + 2 < K:`. The tile's last two K iterations leave out the refill,
// whose write the same process reads; the persistent proof refused that
// ("... differs when a K iteration is its tile's last, beyond operations
// that carry no counter"). docs/z3.md "A self-prefetching persistent ring
// (helper tri47)". Its broken forms are found by the bounded check and
// never proved.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace {

const std::string kSelfPrefetch = R"(@cake.schedule(target="sm_90a")
def self_prefetch(lm, A: LM.tma2d, n_tiles: LM.i32, K: LM.i32):
    lm.assume(n_tiles > 0)
    lm.assume(K >= 2)
    pool = lm.smem(49152)
    xs   = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    acc  = lm.regs(shape=(64, 64), dtype=lm.f32)
    wg   = lm.role(warps=[0, 1, 2, 3])
    pipe = lm.pipeline(stages=3)
    full = lm.barrier(prod=[wg], cons=[wg], init_count=1, pipeline=pipe)
    with wg:
        for t in lm.range(0, n_tiles):
            base = t * K
            xs.tma_load(A, coords=(t * 64, 0), iter=base, barrier=full)
            xs.tma_load(A, coords=(t * 64, 64), iter=base + 1, barrier=full)
            for k in lm.range(0, K):
                it = base + k
                lm.wait(full, iter=it)
                lm.mma(acc, xs[it], xs[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=1)
                if k + 2 < K:
                    xs.tma_load(A, coords=(t * 64, (k + 2) * 64), iter=it + 2, barrier=full)
            lm.mma_wait(pending=0)
)";

// Triton's form: one-step tiles allowed, the prologue's step 1 under the
// pipeliner's predicate on the trip count (decided per case: K >= 2 is the
// form above, K == 1 a ring of one-step tiles).
const std::string kPrologueGuard =
    cake::testing::replace(cake::testing::replace(kSelfPrefetch, "lm.assume(K >= 2)", "lm.assume(K >= 1)"),
                           "            xs.tma_load(A, coords=(t * 64, 64), iter=base + 1, barrier=full)\n",
                           "            if K > 1:\n"
                           "                xs.tma_load(A, coords=(t * 64, 64), iter=base + 1, barrier=full)\n");

bool violatedAtTilesK(const std::string& text, int64_t n_tiles, int64_t K) {
  return cake::testing::violatedAt(cake::testing::compile(text).schedules.at(0), {{"n_tiles", n_tiles}, {"K", K}});
}

}  // namespace

// Fails on int 53876215 (proof unknown: "the K iteration at ring position 2
// of tile 0 of wg differs when a K iteration is its tile's last, beyond
// operations that carry no counter").
TEST(TripSelfPrefetch, PersistentSelfPrefetchTwoAheadIsProved) {
  for (int64_t n : {1, 2, 3})
    for (int64_t K : {2, 3, 5}) EXPECT_FALSE(violatedAtTilesK(kSelfPrefetch, n, K)) << n << " " << K;
  auto r = cake::testing::proveText(kSelfPrefetch, 4);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction over tiles and K"), std::string::npos) << r.engine;
}

// Fails on int 53876215 (proof unknown: "K > 1 reads K outside t * K and
// not as the tile's ring end ...").
TEST(TripSelfPrefetch, PrologueGuardOnTheTripCountIsProvedPerCase) {
  ASSERT_NE(kPrologueGuard.find("if K > 1:"), std::string::npos);
  for (int64_t n : {1, 2, 3})
    for (int64_t K : {1, 2, 3, 5}) EXPECT_FALSE(violatedAtTilesK(kPrologueGuard, n, K)) << n << " " << K;
  auto r = cake::testing::proveText(kPrologueGuard, 4);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("for each allowed outcome of the guards"), std::string::npos) << r.engine;
}

TEST(TripSelfPrefetch, BrokenSelfPrefetchesAreFoundNotProved) {
  using cake::testing::replace;
  const std::vector<std::pair<std::string, std::string>> twins = {
      // prefetch distance = stages: three steps loaded ahead, the refill of
      // step k + 3 overwrites slot k % 3 while MMA k (pending=1) reads it
      {"distance 3 over 3 stages",
       replace(replace(replace(replace(kSelfPrefetch, "            for k in lm.range(0, K):",
                                       "            xs.tma_load(A, coords=(t * 64, 128), iter=base + 2, barrier=full)\n"
                                       "            for k in lm.range(0, K):"),
                               "if k + 2 < K:", "if k + 3 < K:"),
                       "(k + 2) * 64), iter=it + 2", "(k + 3) * 64), iter=it + 3"),
               "lm.assume(K >= 2)", "lm.assume(K >= 3)")},
      // the refill guard one too far: the tile's last refill loads the next
      // tile's first step, which its prologue loads again
      {"k + 2 <= K", replace(kSelfPrefetch, "if k + 2 < K:", "if k + 2 <= K:")},
      // the prologue's step 1 unguarded with one-step tiles allowed
      {"K >= 1", replace(kSelfPrefetch, "lm.assume(K >= 2)", "lm.assume(K >= 1)")},
      // the prologue's guard a step short: one-step tiles load step 1 too
      {"if K > 0", replace(kPrologueGuard, "if K > 1:", "if K > 0:")},
      // the wait a lap early: its phase passes before the load lands
      {"wait it - 3", replace(kSelfPrefetch, "lm.wait(full, iter=it)", "lm.wait(full, iter=it - 3)")},
  };
  for (const auto& [name, text] : twins) {
    bool met = false;
    for (int64_t n : {1, 2})
      for (int64_t K : {1, 2, 3, 4}) met = met || violatedAtTilesK(text, n, K);
    EXPECT_TRUE(met) << name;
    auto r = cake::testing::proveText(text, 4);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << name << ": " << r.engine;
  }
}
