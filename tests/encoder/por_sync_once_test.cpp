// One arrival per window on an lm.sync barrier (encoder/sim_por.cpp,
// Reducer::windows; docs/z3.md "One arrival per window on an lm.sync
// barrier"). A window that reaches a loop head where its process may leave
// covers both the next iteration's lm.sync and the exit path's; summed, the
// other warps' windows passed the current generation's wait without the
// seed, and the reduction kept every warp of gsplat's fixed renderer (eight
// warps, two block barriers a chunk) in almost every set: 447,882 states and
// the whole 3e9-unit budget, against 2,666 states now.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "encoder/proof_budget.h"
#include "encoder/simulator.h"
#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace por_sync_once_test {

const char* kGsplatFixed = "corpus/bugs/sync.race/gsplat_render_empty_tile_image_zero_no_barrier_fixed.cake";

// A sixth of `cake check`'s default budget: the fix takes 59,276,592 units.
encoder::ModelCheckResult proveWithinHalfASecond(const std::string& text, int64_t n_splats = 1) {
  auto m = cake::testing::compile(text);
  const ir::Schedule& s = m.schedules.at(0);
  encoder::TripProofOptions o;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  o.work = encoder::ProofBudget::unitsFor(0.5);
  return encoder::proveEveryTripCount(s, s.target, {cake::testing::bind(s, {{"n_splats", n_splats}})}, o);
}

// Broken forms of the fix, each with the n_splats at which the bounded
// check meets it (one only from the second chunk on).
struct GsplatBrokenForm {
  std::string text;
  int64_t n_splats;
};
std::vector<GsplatBrokenForm> gsplatBrokenForms() {
  using cake::testing::replace;
  const std::string ok = cake::testing::corpusText(kGsplatFixed);
  return {
      // one warp writes the next warp's column of _image after its splat loop
      {replace(ok, "            lm.copy(img[0][96 * w:96 * w + 96], mine)\n        lm.copy(bg",
              "            lm.copy(img[0][96 * ((w + 1) % 8):96 * ((w + 1) % 8) + 96], mine)\n        lm.copy(bg"),
       1},
      // the barrier after the chunk's copies dropped: a warp reads rows still being written
      {replace(ok, "            lm.sync(block)                                           # copies complete\n", ""), 1},
      // the barrier at the chunk's start dropped: a warp overwrites rows others still read
      {replace(ok, "            lm.sync(block)                                           # previous chunk is done\n", ""), 961},
  };
}

}  // namespace por_sync_once_test

// gsplat's fixed renderer is proved for every chunk count within a sixth of
// the default budget (before: unknown after the whole 3e9 units).
TEST(PorSyncOnce, GsplatFixIsProvedWithinASmallBudget) {
  using namespace por_sync_once_test;
  const std::string text = cake::testing::corpusText(kGsplatFixed);
  for (int64_t n : {0, 1, 961, 1921})
    EXPECT_FALSE(cake::testing::violatedAt(cake::testing::compile(text).schedules.at(0), {{"n_splats", n}})) << n;
  const encoder::ModelCheckResult r = proveWithinHalfASecond(text);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
}

// Its broken forms are met by the bounded check and never proved (the
// proof is asked from the binding where the check meets them).
TEST(PorSyncOnce, GsplatBrokenFormsAreNotProved) {
  using namespace por_sync_once_test;
  for (const GsplatBrokenForm& b : gsplatBrokenForms()) {
    EXPECT_TRUE(cake::testing::violatedAt(cake::testing::compile(b.text).schedules.at(0), {{"n_splats", b.n_splats}}))
        << b.text;
    EXPECT_NE(proveWithinHalfASecond(b.text, b.n_splats).outcome, encoder::Outcome::Proved) << b.text;
  }
}
