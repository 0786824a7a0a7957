// A tile loop around loops bounded by few values (docs/z3.md "A tile loop
// around loops bounded by few values", helper twodim, session 33):
// FlashInfer's persistent merge kernel runs its tile loop over the CTA's
// work items around a loop over lm.cdiv(n_sets, 4) index sets with
// 0 <= n_sets <= 64, under `if n_sets == 0: ... else:`. The persistent
// proof refuses that shape (the K loop is no direct statement of the tile
// loop) and 65 values were past the value-by-value cap of 32, so it stayed
// "checked". Now the parameters of the inner bounds are listed (up to
// max_equivalent_values) and, per value, the inner loops are unrolled and
// the tile loop is proved by the one-loop argument. The kernel below has
// that shape: two warps exchange rows through a double buffer per inner
// iteration. Each broken twin differs where the argument reasons (the
// ring position a tile starts at, an inner bound that reads the tile, a
// slot parity not carried across tiles), is found by the bounded check and
// is not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_pair.h"
#include "prove_util.h"

using namespace cake;
using namespace cake::testing::pairs;

namespace trip_tile_values_test {

const std::string kTilesAroundFewValues = R"(
@cake.schedule(target="sm_80")
def tiles_few(lm, X: LM.gmem, Y: LM.gmem, total: LM.i32, n: LM.i32):
    lm.assume(total > 0)
    lm.assume(n >= 0)
    lm.assume(n <= 40)
    pool = lm.smem(1024)
    buf  = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)
    x    = lm.regs(shape=(1, 32), dtype=lm.f32)
    warps = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[warps])
    my_tiles = lm.cdiv(max(total - lm.block_idx(0), 0), lm.grid_dim(0))
    with warps:
        w = lm.instance()
        for t in lm.range(0, my_tiles):
            item = lm.block_idx(0) + t * lm.grid_dim(0)
            TILE_SYNC
            if n == 0:
                lm.fill(x, 0.0)
                lm.copy(Y, x, coords=(item, 32 * w))
            else:
                for k in lm.range(0, INNER):
                    lm.copy(x, X, coords=(item, 64 * k + 32 * w))
                    lm.copy(buf[2 * (k % 2) + w], x)
                    lm.sync(block)
                    lm.copy(x, buf[2 * (k % 2) + 1 - w])
                    lm.copy(Y, x, coords=(item, 64 * k + 32 * w))
)";

const std::string kTileValuesSync = "lm.sync(block)";
const std::string kTileValuesNoSync = "lm.fill(x, 0.0)";

std::string tileValuesKernel(const std::string& tile_sync, const std::string& inner) {
  return edited(kTilesAroundFewValues, {{"TILE_SYNC", tile_sync}, {"INNER", inner}});
}

// Proved (by whichever argument holds first).
void expectTileValuesProved(const std::string& what, const std::string& text) {
  const encoder::ModelCheckResult r = cake::testing::proveText(text, 3);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << what << ": " << r.detail;
}

// Found by the bounded check (sync.race, an error) and not proved.
void expectTileValuesBroken(const std::string& what, const std::string& text) {
  const checks::CheckResult c = checkText(text);
  EXPECT_TRUE(c.hasErrors()) << what << ": the broken form exits 0\n" << describe(c);
  bool race = false;
  for (const ir::Finding& f : c.findings) race = race || (f.rule == "sync.race" && f.severity == ir::Severity::Error);
  EXPECT_TRUE(race) << what << "\n" << describe(c);
  const encoder::ModelCheckResult r = cake::testing::proveText(text, 3);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << what << ": " << r.engine;
}

}  // namespace trip_tile_values_test

namespace ttv = trip_tile_values_test;

// With no sync at the tile's start, every tile of an even number of inner
// iterations (the slot parity continues across tiles): the persistent
// proof per outcome of `if n == 0:` refused it (`k % 2` is no function of
// the ring index; its residue case met a race in the over-approximation,
// whose tiles may have different lengths), and this argument proved it
// (before: unknown). Since session 51 (helper fp8_51) the residue case of an
// odd trip count is ruled out by the facts (2 * lm.cdiv(n, 8) is even), and
// the persistent proof per outcome of the guard proves it first; the
// argument by values stays covered by MergeStatesIsProvedFromTheLeastWindow below
// ("the loops bounded by n_sets unrolled value by value").
// With a CTA-wide sync at every tile's start (the parity restarts per
// tile) the persistent proof per outcome of the guard proves it first, as
// before this argument: it is asked last.
TEST(TripTileValues, TileLoopAroundLoopsBoundedByFewValuesIsProved) {
  ttv::expectTileValuesProved("tiles of an even length",
                              ttv::tileValuesKernel(ttv::kTileValuesNoSync, "2 * lm.cdiv(n, 8)"));
  ttv::expectTileValuesProved("a sync at every tile's start",
                              ttv::tileValuesKernel(ttv::kTileValuesSync, "lm.cdiv(n, 8)"));
}

// The sync skipped on a tile whose ring start t * lm.cdiv(n, 8) is odd: with
// an odd inner length, tile 1's first write lands on the slot the other
// warp still reads in tile 0's last iteration (total=3, n=1).
TEST(TripTileValues, SyncSkippedAtAnOddRingStartIsFoundAndNotProved) {
  ttv::expectTileValuesBroken("sync skipped at an odd ring start",
                              ttv::tileValuesKernel("if (t * lm.cdiv(n, 8)) % 2 == 0:\n                lm.sync(block)",
                                                    "lm.cdiv(n, 8)"));
}

// The inner bound reads the tile: odd tiles run one iteration more, and
// the tile after an odd one starts on the slot still being read.
TEST(TripTileValues, InnerBoundThatReadsTheTileIsFoundAndNotProved) {
  ttv::expectTileValuesBroken("inner bound reads the tile",
                              ttv::tileValuesKernel(ttv::kTileValuesNoSync, "2 * lm.cdiv(n, 8) + t % 2"));
}

// The slot parity restarts per tile (k % 2) and nothing orders the tiles:
// with an odd inner length the parity is not carried across the tile end.
TEST(TripTileValues, ParityNotCarriedAcrossTilesIsFoundAndNotProved) {
  ttv::expectTileValuesBroken("parity not carried across tiles",
                              ttv::tileValuesKernel(ttv::kTileValuesNoSync, "lm.cdiv(n, 8)"));
}

namespace trip_tile_values_test {

const char* const kMergeStates = "corpus/attention/sm90_flashinfer_persistent_merge_states.cake";

// Found by the bounded check (an error) and not proved.
void expectMergeStatesBroken(const std::string& what, const std::string& text) {
  const checks::CheckResult c = checkText(text);
  EXPECT_TRUE(c.hasErrors()) << what << ": the broken form exits 0\n" << describe(c);
  const encoder::ModelCheckResult r = cake::testing::proveText(text, 3);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << what << ": " << r.engine;
}

}  // namespace trip_tile_values_test

// FlashInfer's merge itself within the default budget (3e9 units): its
// tiles unrolled per n_sets from the least window (4 tiles, where
// 2 * stages + 8 = 24 with v_smem's 8 stages; docs/z3.md "session 34,
// helper mstates").
TEST(TripTileValues, MergeStatesIsProvedFromTheLeastWindow) {
  const encoder::ModelCheckResult r = cake::testing::proveText(cake::testing::corpusText(ttv::kMergeStates), 3);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("the loops bounded by n_sets unrolled value by value"), std::string::npos) << r.engine;
  EXPECT_NE(r.engine.find("window 4)"), std::string::npos) << r.engine;
}

// Its broken forms where the least window reasons: the wait before the
// ring read dropped (a slot read while its cp.async is in flight), and the
// barrier before the refill dropped (a slot released to the next cp.async
// while another warp still reads it).
TEST(TripTileValues, MergeStatesBrokenFormsAreFoundAndNotProved) {
  const std::string text = cake::testing::corpusText(ttv::kMergeStates);
  ttv::expectMergeStatesBroken("wait before the read dropped",
                               edited(text, {{"lm.cp_async_wait(pending=1)", "lm.fill(sv, 0.0)"}}));
  ttv::expectMergeStatesBroken(
      "barrier before the refill dropped",
      edited(text, {{"                    lm.sync(block)\n                    if 4 * (it + 2)",
                     "                    if 4 * (it + 2)"}}));
}
