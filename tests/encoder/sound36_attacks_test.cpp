// Soundness review, session 36 (docs/rules/data.stale-read.md "A write its
// loop skips"): a stage-named table that another role writes in its own
// tile loop on the first tile only exited 0 (even *proved*): the write was
// paired with the read's loop only as one loop statement. Writes and reads
// now pair by the loop runs that execute them (the same trip counts), and a
// skipped write counts only where its data may change per iteration (the
// coordinates it loads read the loop's variable), so a table loaded lazily
// under `if t == 0:` from coordinates no tile changes stays clean. Each
// form at one and two tiles.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"

using namespace cake;
using namespace cake::testing;
using namespace cake::testing::attacks;

namespace sound36_attacks_test {

// The first violation's rule at these values ("" where none).
std::string s36RuleAt(const std::string& text, const std::vector<std::pair<std::string, int64_t>>& values) {
  auto mod = compile(text);
  if (mod.schedules.empty()) return "no schedule";
  const ir::Schedule& s = mod.schedules.at(0);
  auto r = exploreToFirst(s, bindAll(s, values));
  return r.violations.empty() ? "" : r.violations.front().rule;
}

// Found by `cake check` (data.stale-read among its rules) and not proved.
void s36ExpectFound(const std::string& text, const char* what) { expectFoundNotProved(text, "data.stale-read", what); }

// Nothing reported by `cake check`.
void s36ExpectClean(const std::string& text, const char* what) { expectNoSyncFinding(text, what); }

// A producer warp loads a table row per tile and a consumer warp reads it
// after a barrier (two barriers per tile: the next tile's write waits for
// the consumer's read).
const std::string kTwoRoles =
    corpusText("corpus/bugs/data.stale-read/sm90_table_row_other_role_first_tile_only_fixed.cake");
const std::string kTwoRolesWrite = "            lm.copy(v, T, coords=(t, 0))\n            lm.copy(row[0], v)\n";
// The producer's write on the first tile only, loading from `coords`.
std::string s36FirstTileOnly(const std::string& coords) {
  return replace(kTwoRoles, kTwoRolesWrite,
                 "            if t == 0:\n                lm.copy(v, T, coords=" + coords +
                     ")\n                lm.copy(row[0], v)\n");
}

// corpus/gemm/sm90_deepgemm_persistent_sfb_stage_indexed.cake with the
// B-scale row loaded by the TMA warps (a barrier with the math warpgroups
// before and after the write) instead of the math warpgroups.
std::string s36SfbByTmaWarps() {
  std::string t = corpusText("corpus/gemm/sm90_deepgemm_persistent_sfb_stage_indexed.cake");
  t = replace(t, "    math_bar = lm.named_barrier(roles=[math])\n",
              "    math_bar = lm.named_barrier(roles=[math])\n    sfb_bar  = lm.named_barrier(roles=[math, tma])\n");
  t = replace(t, "    sbv   = lm.regs(shape=(1, 32),   dtype=lm.f32)\n",
              "    sbt   = lm.regs(shape=(1, 64),   dtype=lm.f32)\n");
  t = replace(t,
              "            lm.copy(sbv, SFB, coords=(n_blk // 128, 32 * wg))    # threads >= 32 in the kernel\n"
              "            lm.copy(smem_sfb[0][:, 32 * wg:32 * wg + 32], sbv)\n"
              "            lm.sync(math_bar)\n",
              "            lm.sync(sfb_bar)\n            lm.sync(sfb_bar)\n");
  return replace(t,
                 "            n_blk = (tile // tiles_m) * 128\n"
                 "            for k in lm.range(0, num_iters):\n"
                 "                for s in lm.range(0, 2):\n"
                 "                    g = (t * num_iters + k) * 2 + s\n",
                 "            n_blk = (tile // tiles_m) * 128\n"
                 "            lm.sync(sfb_bar)\n"
                 "            lm.copy(sbt, SFB, coords=(n_blk // 128, 0))\n"
                 "            lm.copy(smem_sfb[0], sbt)\n"
                 "            lm.sync(sfb_bar)\n"
                 "            for k in lm.range(0, num_iters):\n"
                 "                for s in lm.range(0, 2):\n"
                 "                    g = (t * num_iters + k) * 2 + s\n");
}
const std::string kSfbTmaWrite =
    "            lm.copy(sbt, SFB, coords=(n_blk // 128, 0))\n            lm.copy(smem_sfb[0], sbt)\n";

// Two warps (one instance each) write their half of a per-tile row at the
// K loop's first iteration and both read the whole row every K iteration
// after a barrier. `pre`: tile 0's row is also loaded before the loop.
std::string s36KLoopTable(const std::string& guard, const std::string& coords, bool pre = false) {
  std::string t = R"(@cake.schedule(target="sm_90a")
def table_k_loop(lm, T: LM.gmem, O: LM.gmem, n: LM.i32, kt: LM.i32):
    lm.assume(n > 0)
    lm.assume(n <= 3)
    lm.assume(kt > 0)
    lm.assume(kt <= 3)
    pool  = lm.smem(256)
    row   = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=1)
    v     = lm.regs(shape=(1, 16), dtype=lm.f32)
    x     = lm.regs(shape=(1, 32), dtype=lm.f32)
    warps = lm.role(warps=[0, 1], group=1)
    bar   = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
PRE        for t in lm.range(0, n):
            for k in lm.range(0, kt):
                if GUARD:
                    lm.copy(v, T, coords=COORDS)
                    lm.copy(row[0][:, 16 * w:16 * w + 16], v)
                lm.sync(bar)
                lm.copy(x, row[0])
                lm.copy(O, x, coords=(t * kt + k, 32 * w))
                lm.sync(bar)
)";
  t = replace(t, "GUARD", guard);
  t = replace(t, "COORDS", coords);
  return replace(t, "PRE",
                 pre ? "        lm.copy(v, T, coords=(0, 16 * w))\n        lm.copy(row[0][:, 16 * w:16 * w + 16], v)\n"
                       "        lm.sync(bar)\n"
                     : "");
}

}  // namespace sound36_attacks_test

namespace s36 = sound36_attacks_test;

// The hole: the producer role writes the row on its first tile only, from
// coordinates its tile changes; the consumer role reads it every tile. Its
// loop is another statement than the reader's, so the write was not paired
// with the read and the read stayed capped at lap 0 (exit 0, proved). Both
// loops run n tiles: paired, the read at tile 1 finds tile 0's row.
TEST(Sound36, AnotherRoleSkippingItsTileWriteIsFound) {
  using s36::s36RuleAt;
  EXPECT_EQ(s36RuleAt(s36::kTwoRoles, {{"n", 1}}), "");
  EXPECT_EQ(s36RuleAt(s36::kTwoRoles, {{"n", 2}}), "");
  s36::s36ExpectClean(s36::kTwoRoles, "the row written every tile");
  // loops of one role with different bounds that run the same count (a
  // prologue's lm.range(0, 2), the main loop's lm.range(0, n_blocks) at
  // Kv = 65) do not pair: the prologue's slots are no skipped tile writes
  EXPECT_EQ(s36RuleAt(corpusText("corpus/bugs/sync.race/xformers_mem_eff_fwd_v_prologue_over_epilogue_fixed.cake"),
                      {{"Kv", 65}}),
            "");
  for (const std::string coords : {"(t, 0)", "(lm.block_idx(0) + t * lm.grid_dim(0), 0)"}) {
    const std::string broken = s36::s36FirstTileOnly(coords);
    EXPECT_EQ(s36RuleAt(broken, {{"n", 1}}), "") << coords;  // one tile: nothing skipped
    EXPECT_EQ(s36RuleAt(broken, {{"n", 2}}), "data.stale-read") << coords;
    s36::s36ExpectFound(broken, "the producer's row on the first tile only");
  }
}

// DeepGEMM's B-scale row loaded by the TMA warps (another role than the
// math warpgroups that read it) on the CTA's first tile only.
TEST(Sound36, DeepGemmScaleRowLoadedByAnotherRoleOnTheFirstTileOnlyIsFound) {
  using s36::s36RuleAt;
  const std::string fixed = s36::s36SfbByTmaWarps();
  const std::string broken = replace(fixed, s36::kSfbTmaWrite, "            if t == 0:\n    " +
                                                                   replace(s36::kSfbTmaWrite, "\n            ", "\n                "));
  const std::vector<std::pair<std::string, int64_t>> one = {{"M", 1}, {"N", 1}, {"K", 1}};
  const std::vector<std::pair<std::string, int64_t>> two = {{"M", 129}, {"N", 1}, {"K", 1}};
  EXPECT_EQ(s36RuleAt(fixed, one), "");
  EXPECT_EQ(s36RuleAt(fixed, two), "");
  s36::s36ExpectClean(fixed, "the row loaded by the TMA warps every tile");
  EXPECT_EQ(s36RuleAt(broken, one), "");
  EXPECT_EQ(s36RuleAt(broken, two), "data.stale-read");
  s36::s36ExpectFound(broken, "the row loaded by the TMA warps on the first tile only");
}

// The false alarm of session 35: a table loaded lazily under `if t == 0:`
// from coordinates no tile changes (the same row every tile) is clean, by
// the same role or another; from the tile's coordinates it is found.
TEST(Sound36, TableLoadedLazilyFromCoordinatesNoTileChangesIsClean) {
  using s36::s36RuleAt;
  const std::string lazy = s36::s36FirstTileOnly("(0, 0)");
  EXPECT_EQ(s36RuleAt(lazy, {{"n", 1}}), "");
  EXPECT_EQ(s36RuleAt(lazy, {{"n", 2}}), "");
  s36::s36ExpectClean(lazy, "the producer's table loaded on the first tile");
  const std::string sfb = corpusText("corpus/gemm/sm90_deepgemm_persistent_sfb_stage_indexed.cake");
  const std::string write = "            lm.copy(sbv, SFB, coords=(n_blk // 128, 32 * wg))    # threads >= 32 in the kernel\n"
                            "            lm.copy(smem_sfb[0][:, 32 * wg:32 * wg + 32], sbv)\n";
  const auto firstTile = [&](const std::string& coords) {
    return replace(sfb, write, "            if t == 0:\n                lm.copy(sbv, SFB, coords=" + coords +
                                   ")\n                lm.copy(smem_sfb[0][:, 32 * wg:32 * wg + 32], sbv)\n");
  };
  const std::vector<std::pair<std::string, int64_t>> two = {{"M", 129}, {"N", 1}, {"K", 1}};
  EXPECT_EQ(s36RuleAt(firstTile("(0, 32 * wg)"), two), "");
  s36::s36ExpectClean(firstTile("(0, 32 * wg)"), "the math warpgroups' table loaded on the first tile");
  EXPECT_EQ(s36RuleAt(firstTile("(n_blk // 128, 32 * wg)"), two), "data.stale-read");
}

// A per-tile row written at the K loop's first iteration, or before the K
// loop, and read every K iteration: clean at one and two tiles (each was a
// false data.stale-read at two tiles before: the read at tile 0 meant the
// lap tile 1 writes).
// Written on the first tile only, or at the K loop's last iteration (the
// reads before it find the previous tile's row), it is found.
TEST(Sound36, PerTileRowWrittenAtTheKLoopsFirstIterationIsClean) {
  using s36::s36KLoopTable;
  using s36::s36RuleAt;
  const std::string good = s36KLoopTable("k == 0", "(t, 16 * w)");
  for (int64_t n : {1, 2})
    for (int64_t kt : {1, 2}) EXPECT_EQ(s36RuleAt(good, {{"n", n}, {"kt", kt}}), "") << n << " " << kt;
  s36::s36ExpectClean(good, "the row written at k == 0");
  // written before the K loop (a false data.stale-read at two tiles before)
  const std::string before_k = replace(good,
                                       "            for k in lm.range(0, kt):\n                if k == 0:\n"
                                       "                    lm.copy(v, T, coords=(t, 16 * w))\n"
                                       "                    lm.copy(row[0][:, 16 * w:16 * w + 16], v)\n",
                                       "            lm.copy(v, T, coords=(t, 16 * w))\n"
                                       "            lm.copy(row[0][:, 16 * w:16 * w + 16], v)\n"
                                       "            for k in lm.range(0, kt):\n");
  EXPECT_EQ(s36RuleAt(before_k, {{"n", 2}, {"kt", 2}}), "");
  s36::s36ExpectClean(before_k, "the row written before the K loop");
  s36::s36ExpectClean(s36KLoopTable("t == 0 and k == 0", "(0, 16 * w)"), "a table loaded at the first (t, k)");
  const std::string first_tile = s36KLoopTable("t == 0 and k == 0", "(t, 16 * w)");
  EXPECT_EQ(s36RuleAt(first_tile, {{"n", 1}, {"kt", 2}}), "");
  EXPECT_EQ(s36RuleAt(first_tile, {{"n", 2}, {"kt", 1}}), "data.stale-read");
  s36::s36ExpectFound(first_tile, "the row written on the first tile only");
  const std::string last_k = s36KLoopTable("k == kt - 1", "(t, 16 * w)", true);
  EXPECT_EQ(s36RuleAt(last_k, {{"n", 1}, {"kt", 2}}), "");
  EXPECT_EQ(s36RuleAt(last_k, {{"n", 2}, {"kt", 2}}), "data.stale-read");
  s36::s36ExpectFound(last_k, "the row written at the K loop's last iteration");
}
