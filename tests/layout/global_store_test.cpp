// Two CTAs of the grid storing one global element (checks/layout_gstore.cpp,
// docs/semantics.md "Global memory"): a write-write race (sync.race) that
// no barrier can order; each CTA storing its own tile is proved.
#include <gtest/gtest.h>

#include "layout_test_util.h"

namespace cake {
namespace {

using layout_test::GateRun;
using layout_test::lineOf;
using layout_test::readFile;
using layout_test::sourceDir;

// The pairs live beside this test while the check is off by default
// (checks/check.h CheckOptions::cross_cta_stores); gemm/ is the corpus.
std::string gstoreCorpus(const std::string& rel) {
  if (rel.rfind("gemm/", 0) == 0) return readFile(sourceDir() / "corpus" / rel);
  return readFile(sourceDir() / "tests" / "layout" / "gstore" / rel.substr(rel.rfind('/') + 1));
}

std::unique_ptr<GateRun> gstoreGates(const std::string& text, ir::Target t = ir::Target::Unspecified,
                                  const std::string& name = "test.cake") {
  return layout_test::runGates(text, t, name, true);
}

checks::VerdictKind gstoreVerdict(const GateRun& r) {
  const auto* v = r.verdict("sync.race");
  return v ? v->kind : checks::VerdictKind::Error;
}

// No finding, and the obligations proved.
void gstoreExpectProved(const GateRun& r) {
  EXPECT_FALSE(r.has("sync.race")) << r.describe();
  EXPECT_EQ(gstoreVerdict(r), checks::VerdictKind::Proved) << r.describe();
}

// One warpgroup stores a 128 x 128 tile of C at (ROW, COL).
std::string gstoreTile(const std::string& row, const std::string& col) {
  return R"(@cake.schedule(target="sm_80")
def tile_store(lm, C: LM.gmem):
    acc = lm.regs(shape=(128, 128), dtype=lm.f32)
    wg = lm.role(warps=[0, 1, 2, 3])
    with wg:
        lm.fill(acc, 0.0)
        lm.copy(C, acc, coords=()" +
         row + ", " + col + R"())
)";
}

TEST(GlobalStore, EachCtaItsOwnTileIsProved) {
  auto r = gstoreGates(gstoreTile("128 * lm.block_idx(0)", "128 * lm.block_idx(1)"));
  gstoreExpectProved(*r);
}

// A column step one short of the tile: neighbouring CTAs share a column.
TEST(GlobalStore, OneColumnOverlapBetweenCtasRaces) {
  auto r = gstoreGates(gstoreTile("128 * lm.block_idx(0)", "127 * lm.block_idx(1)"));
  auto fs = r->rule("sync.race");
  ASSERT_EQ(fs.size(), 1u) << r->describe();
  EXPECT_EQ(fs[0]->verdict, "counterexample");
  EXPECT_NE(fs[0]->message.find("two CTAs store element"), std::string::npos) << fs[0]->message;
  EXPECT_NE(fs[0]->data["cta_a"].get<std::string>(), fs[0]->data["cta_b"].get<std::string>());
  EXPECT_EQ(gstoreVerdict(*r), checks::VerdictKind::Counterexample);
}

// Indices below 0 name no element: boxes that share only those do not race
// (CTA 0 stores rows 0..127; every other CTA rows -128..-1, all clipped).
TEST(GlobalStore, BoxesMeetingOnlyBelowZeroDoNotRace) {
  auto r = gstoreGates(gstoreTile("-128 * (lm.block_idx(0) > 0)", "0"));
  gstoreExpectProved(*r);
}

// A schedule that reads no block index runs as one CTA per dimension: no
// cross-CTA obligation.
TEST(GlobalStore, NoBlockIndexNoObligation) {
  auto r = gstoreGates(gstoreTile("0", "0"));
  EXPECT_FALSE(r->has("sync.race")) << r->describe();
  EXPECT_EQ(r->verdict("sync.race"), nullptr) << r->describe();
}

TEST(GlobalStore, SplitKPlainStoreRacesAcrossSplits) {
  const std::string rel = "bugs/sync.race/helion_pallas_splitk_plain_store_overwrite.cake";
  const std::string text = gstoreCorpus(rel);
  auto r = gstoreGates(text, ir::Target::Unspecified, rel);
  auto fs = r->rule("sync.race");
  ASSERT_EQ(fs.size(), 1u) << r->describe();
  EXPECT_EQ(fs[0]->range.line, lineOf(text, "lm.copy(C, acc"));
  // the two CTAs differ in their split only
  const std::string a = fs[0]->data["cta_a"].get<std::string>(), b = fs[0]->data["cta_b"].get<std::string>();
  EXPECT_NE(a, b);
  EXPECT_EQ(a.substr(0, a.find("lm.block_idx(2)")), b.substr(0, b.find("lm.block_idx(2)"))) << a << " / " << b;
  ASSERT_TRUE(fs[0]->data.contains("counterexample"));
}

TEST(GlobalStore, SplitKWorkspaceSlabsAreProved) {
  const std::string rel = "bugs/sync.race/helion_pallas_splitk_plain_store_overwrite_fixed.cake";
  auto r = gstoreGates(gstoreCorpus(rel), ir::Target::Unspecified, rel);
  gstoreExpectProved(*r);
}

TEST(GlobalStore, NonBijectiveSwizzleRaces) {
  const std::string rel = "bugs/sync.race/hipep_wmma_swizzle_fallback_duplicate_tile.cake";
  auto r = gstoreGates(gstoreCorpus(rel), ir::Target::Unspecified, rel);
  EXPECT_TRUE(r->has("sync.race")) << r->describe();
}

TEST(GlobalStore, SwizzleWithPlainTailIsProved) {
  const std::string rel = "bugs/sync.race/hipep_wmma_swizzle_fallback_duplicate_tile_fixed.cake";
  auto r = gstoreGates(gstoreCorpus(rel), ir::Target::Unspecified, rel);
  gstoreExpectProved(*r);
}

// A persistent loop striding by a parameter the grid may exceed: two CTAs
// reach one tile; the TMA store is reported with both CTAs' loop values.
TEST(GlobalStore, PersistentStrideBelowGridRaces) {
  const std::string rel = "bugs/sync.race/sm90_persistent_stride_param_below_grid.cake";
  const std::string text = gstoreCorpus(rel);
  auto r = gstoreGates(text, ir::Target::Unspecified, rel);
  auto fs = r->rule("sync.race");
  ASSERT_EQ(fs.size(), 1u) << r->describe();
  EXPECT_EQ(fs[0]->range.line, lineOf(text, "smem_c.tma_store(C"));
  EXPECT_NE(fs[0]->message.find(" at t = "), std::string::npos) << fs[0]->message;
}

// Striding by the grid (tile b + t * G names CTA b): proved through the
// tile abstraction, the query without the products of t and G.
TEST(GlobalStore, PersistentGridStrideIsProved) {
  const std::string rel = "gemm/sm90_persistent_ws.cake";
  auto r = gstoreGates(gstoreCorpus(rel), ir::Target::Unspecified, rel);
  gstoreExpectProved(*r);
}

}  // namespace
}  // namespace cake
