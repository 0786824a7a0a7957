// Views over common bytes in the one-loop proof (docs/z3.md "Views over
// common bytes in the one-loop proof"): an epilogue staging view over the
// bytes of a ring (CUTLASS's shared storage union), which the period moves
// by 0 laps while the ring's view moves by 1. Before, lap induction refused
// the pair whenever a read of the ring could compare the two ("smem_c and
// smem_a share bytes but move by 0 and 1 laps per period, and a read of
// smem_a compares them"); now it records the pair and the lap exploration
// stops, unknown, at any read of the ring that finds another process's data
// written through the staging view (encoder/trip_proof.cpp unmetAlias, shared
// with the persistent proof). The fixed CUTLASS sm80 multistage mainloop is
// proved; its broken forms are found by the bounded check and not proved.
#include <gtest/gtest.h>

#include <string>

#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace {

const char* kFixed = "corpus/bugs/sync.race/cutlass_sm80_multistage_residual_cp_async_under_epilogue_fixed.cake";
const char* kBug = "corpus/bugs/sync.race/cutlass_sm80_multistage_residual_cp_async_under_epilogue.cake";

using cake::testing::proveText;

// The fixed file with a read of rows of the A stage `index` (through
// smem_a, by the next warp's rows) after the epilogue's write and barrier.
std::string readAfterEpilogue(const std::string& fixed, const std::string& index) {
  std::string text = cake::testing::replace(
      fixed, "    row     = lm.regs(shape=(32, 64), dtype=lm.bf16)\n",
      "    row     = lm.regs(shape=(32, 64), dtype=lm.bf16)\n"
      "    rowa    = lm.regs(shape=(32, 32), dtype=lm.bf16)\n");
  return cake::testing::replace(text, "        for h in lm.range(0, 2):",
                                "        lm.copy(rowa, smem_a[" + index +
                                    "][32 * ((w + 1) % 4):32 * ((w + 1) % 4) + 32, :])\n"
                                    "        for h in lm.range(0, 2):");
}

// The bounded explicit-state check at K (k_tiles = cdiv(K, 32)).
bool violatedAtK(const std::string& text, int64_t K) {
  return cake::testing::violatedAt(cake::testing::compile(text).schedules.at(0), {{"K", K}});
}

const char* kDrain =
    "        lm.cp_async_wait(pending=0)                                # the fix (CUTLASS 3.5): cp_async_wait<0>();\n"
    "        lm.sync(cta)                                               # __syncthreads();\n";

}  // namespace

TEST(TripViewAlias, EpilogueOverTheStagesAfterTheDrainIsProved) {
  const std::string fixed = cake::testing::corpusText(kFixed);
  ASSERT_NE(fixed.find(kDrain), std::string::npos);
  EXPECT_FALSE(violatedAtK(fixed, 32 * 4));
  auto r = proveText(fixed);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction"), std::string::npos) << r.engine;
}

TEST(TripViewAlias, EpilogueOverTheStagesWithoutTheDrainIsNotProved) {
  const std::string fixed = cake::testing::corpusText(kFixed);
  struct Bug {
    std::string text;
    const char* what;
  };
  const std::string epi_write =
      "        lm.copy(out, acc)\n"
      "        lm.copy(smem_c[0][wm:wm + 64, wn:wn + 64], out)\n";
  const std::vector<Bug> bugs = {
      // the corpus's broken twin: neither the wait nor the barrier
      {cake::testing::corpusText(kBug), "the corpus's broken file"},
      // the barrier alone left out: another warp's last ldmatrix reads of
      // the stage still run when this warp writes the union
      {cake::testing::replace(fixed, kDrain,
                              "        lm.cp_async_wait(pending=0)\n"),
       "no barrier after the drain"},
      // the wait after the epilogue's write: the residue copies land over it
      {cake::testing::replace(fixed, std::string(kDrain) + epi_write,
                              "        lm.sync(cta)\n" + epi_write + "        lm.cp_async_wait(pending=0)\n"),
       "the drain after the epilogue's write"},
      // the barrier before the drain: the other warps' residue copies land after it
      {cake::testing::replace(fixed, kDrain,
                              "        lm.sync(cta)\n"
                              "        lm.cp_async_wait(pending=0)\n"),
       "the barrier before the drain"},
  };
  for (const Bug& b : bugs) {
    ASSERT_NE(b.text, fixed) << b.what;
    EXPECT_TRUE(violatedAtK(b.text, 32 * 4)) << b.what;
    auto r = proveText(b.text);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.what << ": " << r.engine;
  }
}

// A read of the stages through smem_a after the epilogue wrote them
// through smem_c (another warp's part of the union): the data it finds is
// the epilogue's, stale for smem_a (data.stale-read). Such a read is what
// the pair (smem_c, smem_a) stands for: a trip count explored one by one
// meets it first here; in the lap exploration it would stop it, unknown
// (unmetAlias). Not proved either way.
TEST(TripViewAlias, ReadOfTheStagesAfterTheEpilogueIsNotProved) {
  const std::string fixed = cake::testing::corpusText(kFixed);
  const std::string text = readAfterEpilogue(fixed, "0");
  ASSERT_NE(text, fixed);
  auto m = cake::testing::compile(text);
  EXPECT_TRUE(cake::testing::violatedAt(m.schedules.at(0), {{"K", 33}}));
  auto r = proveText(text);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
  EXPECT_NE(r.detail.find("data.stale-read"), std::string::npos) << r.detail;
}

// The same read of the last k-tile's stage, smem_a[k_tiles - 1]: it finds
// the epilogue's data (lap 0) and means lap (k_tiles - 1) // 3, stale from
// k_tiles = 4 on, past the trip counts explored one by one (1..3). The lap
// exploration meets it: as the stale read on an exit path it explores
// unshifted, or (a read of smem_a finding smem_c's data) unknown at
// unmetAlias; never proved.
TEST(TripViewAlias, ReadOfTheLastStageAfterTheEpilogueIsNotProved) {
  const std::string fixed = cake::testing::corpusText(kFixed);
  const std::string text = readAfterEpilogue(fixed, "k_tiles - 1");
  ASSERT_NE(text, fixed);
  auto m = cake::testing::compile(text);
  EXPECT_FALSE(cake::testing::violatedAt(m.schedules.at(0), {{"K", 96}}));  // k_tiles = 3: lap 0
  EXPECT_TRUE(cake::testing::violatedAt(m.schedules.at(0), {{"K", 97}}));   // k_tiles = 4: lap 1
  auto r = proveText(text);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
  EXPECT_TRUE(r.detail.find("the exploration over every trip count meets data.stale-read") != std::string::npos ||
              r.detail.find("the shifts move the two views by different laps") != std::string::npos)
      << r.detail;
}
