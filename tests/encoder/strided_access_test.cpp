// Strided accesses (encoder/system.h Access::runs / stride): a view
// sub-tile sliced in an inner dimension whose runs are evenly spaced is one
// access, and every engine decides its overlap exactly (encoder::bytesMeet),
// so warps that keep private column bands of one shared tile, writing and
// reading them back with no barrier, do not race (docs/semantics.md "Byte
// ranges"; before session 28 a read column slice was its bounding range).
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "checks/check.h"
#include "checks/model_check.h"
#include "encoder/sim_model.h"
#include "encoder/system.h"
#include "rules_of_both.h"
#include "test_util.h"

using namespace cake;

namespace strided_access_test {

std::set<int64_t> bytesOf(const encoder::Access& a) {
  std::set<int64_t> out;
  encoder::forEachRun(a, [&](int64_t lo, int64_t hi) {
    for (int64_t x = lo; x < hi; ++x) out.insert(x);
  });
  return out;
}

encoder::Access strided(int64_t lo, int64_t run, int64_t runs, int64_t stride) {
  encoder::Access a;
  a.lo = lo;
  a.runs = runs;
  a.stride = runs > 1 ? stride : 0;
  a.hi = lo + (runs - 1) * a.stride + run;
  return a;
}

const char* const kBandsFixed = "corpus/bugs/sync.race/warp_column_bands_overlap_one_column_fixed.cake";
const char* const kBandsBroken = "corpus/bugs/sync.race/warp_column_bands_overlap_one_column.cake";
const char* const kEpilogueBands = "corpus/gemm/sm80_epilogue_warp_column_bands.cake";

}  // namespace strided_access_test


// bytesMeet and touches against the byte sets, over random strided and
// contiguous accesses (equal strides: the arithmetic test; unequal: run by
// run).
TEST(StridedAccess, OverlapIsExactOnTheBytes) {
  std::mt19937 rng(28);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int met = 0, missed = 0;
  for (int i = 0; i < 20000; ++i) {
    const int64_t sa = pick(1, 4) * 8, sb = pick(0, 1) ? sa : pick(1, 4) * 8;
    const encoder::Access a = strided_access_test::strided(pick(0, 64), pick(1, static_cast<int>(sa)), pick(1, 6), sa);
    const encoder::Access b = strided_access_test::strided(pick(0, 64), pick(1, static_cast<int>(sb)), pick(1, 6), sb);
    const std::set<int64_t> ba = strided_access_test::bytesOf(a), bb = strided_access_test::bytesOf(b);
    bool common = false;
    for (int64_t x : ba) common = common || bb.count(x);
    ASSERT_EQ(encoder::bytesMeet(a, b), common) << i;
    ASSERT_EQ(encoder::bytesMeet(b, a), common) << i;
    (common ? met : missed) += 1;
    const int64_t lo = pick(0, 100), hi = lo + pick(1, 20);
    bool in = false;
    for (int64_t x = lo; x < hi; ++x) in = in || ba.count(x);
    ASSERT_EQ(encoder::touches(a, lo, hi), in) << i;
  }
  EXPECT_GT(met, 1000);
  EXPECT_GT(missed, 1000);
}

// The read of a column band is one strided access over exactly its bytes:
// 32 runs of 32 floats, one row (256 bytes) apart.
TEST(StridedAccess, ReadColumnBandIsOneStridedAccess) {
  auto mod = cake::testing::compile(cake::testing::corpusText(strided_access_test::kBandsFixed));
  auto sys = cake::testing::build(mod.schedules[0], cake::testing::bind(mod.schedules[0], {{"n", 1}}));
  ASSERT_EQ(sys.procs.size(), 2u);
  for (int p = 0; p < 2; ++p) {
    int reads = 0;
    for (const auto& in : sys.procs[p].program)
      for (const auto& a : in.accesses) {
        if (sys.spaces[a.space].kind != encoder::MemSpace::Kind::Smem || a.write) continue;
        ++reads;
        EXPECT_EQ(a.runs, 32);
        EXPECT_EQ(a.stride, 256);
        EXPECT_EQ(a.runBytes(), 128);
        EXPECT_EQ(a.lo, 128 * p);
        EXPECT_EQ(a.hi, 31 * 256 + 128 * p + 128);
      }
    EXPECT_EQ(reads, 1);
  }
  // the two warps' bands are one atom each (and the model's overlap is exact)
  encoder::sim::Model m(sys);
  EXPECT_EQ(m.tracked, 2);
}

// Two warps that each write and read back their own column band of one tile
// with no barrier: no race, no stale data (both engines); bands that share
// one column: a race.
TEST(StridedAccess, WarpPrivateColumnBandsDoNotRace) {
  {
    auto mod = cake::testing::compile(cake::testing::corpusText(strided_access_test::kBandsFixed));
    EXPECT_EQ(cake::testing::rulesOfBothEngines(mod.schedules[0]), std::set<std::string>{});
  }
  {
    auto mod = cake::testing::compile(cake::testing::corpusText(strided_access_test::kBandsBroken));
    EXPECT_TRUE(cake::testing::rulesOfBothEngines(mod.schedules[0]).count("sync.race"));
  }
}

// A staging tile that aliases the pipeline's slots (a GEMM epilogue): its
// atoms are merged only when adjacent, so the column bands read back are one
// access per run there (sim::splitStridedAccesses), still exact: no race,
// no stale data; a warp that reads back its neighbour's band races.
TEST(StridedAccess, AliasedStagingBandsAreSplitPerRun) {
  const std::string text = cake::testing::corpusText(strided_access_test::kEpilogueBands);
  {
    auto mod = cake::testing::compile(text);
    auto sys = cake::testing::build(mod.schedules[0], cake::testing::bind(mod.schedules[0], {{"K", 64}}));
    int runs = 0;
    for (const auto& in : sys.procs[0].program)
      for (const auto& a : in.accesses)
        if (!a.write && a.view >= 0 && mod.schedules[0].views[a.view].name == "stg") {
          EXPECT_EQ(a.runs, 1);
          EXPECT_EQ(a.hi - a.lo, 128);
          ++runs;
        }
    EXPECT_EQ(runs, 128);
    EXPECT_EQ(cake::testing::rulesOfBothEngines(mod.schedules[0]), std::set<std::string>{});
  }
  const std::string neighbour = cake::testing::replace(
      text, "lm.copy(C, stg[0][:, 32 * w:32 * w + 32]",
      "lm.copy(C, stg[0][:, 32 * ((w + 1) % 4):32 * ((w + 1) % 4) + 32]");
  ASSERT_NE(neighbour, text);
  auto mod = cake::testing::compile(neighbour);
  EXPECT_TRUE(cake::testing::rulesOfBothEngines(mod.schedules[0]).count("sync.race"));
}
