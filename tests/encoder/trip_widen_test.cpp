// A per-tile table read one slice per K iteration, widened to its slot for
// the persistent proof (encoder/trip_widen.h; docs/z3.md "A table read one
// slice per K iteration, widened to its slot", helper dg5, session 36):
// DeepGEMM's persistent 1D2D GEMM with its B-scale row named by tile
// (corpus/gemm/sm90_deepgemm_persistent_sfb_tail_stages.cake) is proved in
// both cases of its tail stages. Broken twins of its B-scale row, each
// found by the explicit engine at the shape given, are not proved; among
// them one the bounded check's covering values miss (a band of the row
// nobody writes, read only past K = 7680), which the widened read meets at
// every K. Where the argument does not hold the read is not widened.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "encoder/simulator.h"
#include "encoder/trip_proof.h"
#include "encoder/trip_widen.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_widen_test {

const char* const kDg5TileFile = "corpus/gemm/sm90_deepgemm_persistent_sfb_tail_stages.cake";
const char* const kDg5StageFile = "corpus/gemm/sm90_deepgemm_persistent_sfb_stage_indexed.cake";
const char* const kDg5Write = "            lm.copy(smem_sfb[t][:, 32 * wg:32 * wg + 32], sbv)\n";
const char* const kDg5Read = "                        lm.copy(sb, smem_sfb[t][:, kb:kb + 1])\n";

std::string dg5Edited(const char* file, std::initializer_list<std::pair<const char*, const char*>> edits) {
  std::string text = cake::testing::corpusText(file);
  for (auto [from, to] : edits) text = cake::testing::replace(text, from, to);
  return text;
}

// A broken twin of a corpus file: its edits, and where the explicit
// engine finds it.
struct Twin {
  std::initializer_list<std::pair<const char*, const char*>> edits;
  const char* what;
  int64_t M, N, K;
};

// Each twin is a violation of the explicit engine at its shape and is not
// proved.
template <size_t N>
void expectFoundAndNotProved(const char* file, const Twin (&twins)[N]) {
  for (const Twin& tw : twins) {
    const std::string text = dg5Edited(file, tw.edits);
    auto mod = cake::testing::compile(text);
    ASSERT_FALSE(mod.schedules.empty()) << tw.what;
    const ir::Schedule& x = mod.schedules.at(0);
    const auto found = cake::testing::exploreToFirst(x, cake::testing::bind(x, {{"M", tw.M}, {"N", tw.N}, {"K", tw.K}}));
    EXPECT_EQ(found.outcome, encoder::Outcome::Violation) << tw.what;
    auto r = cake::testing::proveSchedule(x, 128);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << tw.what << ": " << r.engine;
    std::cout << tw.what << ": " << cake::testing::rules(found) << "; proof: "
              << (r.outcome == encoder::Outcome::Violation ? "violation" : r.detail) << "\n";
  }
}

std::optional<encoder::trip::WidenedReads> dg5Widened(const std::string& text) {
  auto mod = cake::testing::compile(text);
  EXPECT_FALSE(mod.schedules.empty());
  if (mod.schedules.empty()) return std::nullopt;
  return encoder::trip::widenTableReads(mod.schedules.at(0), {});
}

}  // namespace trip_widen_test

using namespace trip_widen_test;

TEST(Dg5, TileIndexedScaleRowIsProvedInBothCases) {
  auto r = cake::testing::proveText(cake::testing::corpusText(kDg5TileFile), 128);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("for lm.cdiv(K, 128) == 2 * lm.cdiv(K, 256) - 1: lap induction"), std::string::npos) << r.engine;
  EXPECT_NE(r.engine.find("read as its whole slot of smem_sfb, before its guard"), std::string::npos) << r.engine;
}

TEST(Dg5, BrokenScaleRowTwinsAreFoundAndNotProved) {
  const Twin twins[] = {
      {{{kDg5Read, "                        lm.copy(sb, smem_sfb[t - 1][:, kb:kb + 1])\n"}},
       "the row of the tile before read", 1, 1, 128},
      {{{kDg5Read, "                        lm.copy(sb, smem_sfb[t + 1][:, kb:kb + 1])\n"}},
       "the row of the tile after read", 1, 1, 128},
      {{{kDg5Write, "            if t == 0:\n                lm.copy(smem_sfb[t][:, 32 * wg:32 * wg + 32], sbv)\n"}},
       "the row written on the first tile only", 129, 1, 128},
      {{{"            lm.copy(smem_sfb[t][:, 32 * wg:32 * wg + 32], sbv)\n            lm.sync(math_bar)\n",
         "            lm.copy(smem_sfb[t][:, 32 * wg:32 * wg + 32], sbv)\n"}},
       "the row read before the named barrier after its write", 1, 1, 128},
      // the TMA warp rewrites the row in its K loop, unordered with the
      // math warpgroups' reads (another role's write: the reader's
      // condition 3 does not stop the widening; the wide read meets it)
      {{{"    sbv   = lm.regs(shape=(1, 32),   dtype=lm.f32)\n",
         "    sbv   = lm.regs(shape=(1, 32),   dtype=lm.f32)\n    tv    = lm.regs(shape=(1, 64),   dtype=lm.f32)\n"},
        {"                    lm.wait(empty, iter=g - 2)\n",
         "                    lm.wait(empty, iter=g - 2)\n                    lm.fill(tv, 0.0)\n"
         "                    lm.copy(smem_sfb[t], tv)\n"}},
       "the TMA warp rewriting the row in its K loop", 1, 1, 128},
      // a band of the row nobody writes (columns 62, 63), read only where K
      // > 7936: the covering values (K <= 1025) do not read it
      {{{"    sbv   = lm.regs(shape=(1, 32),   dtype=lm.f32)\n", "    sbv   = lm.regs(shape=(1, 31),   dtype=lm.f32)\n"},
        {"            lm.copy(sbv, SFB, coords=(n_blk // 128, 32 * wg))", "            lm.copy(sbv, SFB, coords=(n_blk // 128, 31 * wg))"},
        {kDg5Write, "            lm.copy(smem_sfb[t][:, 31 * wg:31 * wg + 31], sbv)\n"}},
       "the row's last columns never written", 1, 1, 8064},
  };
  expectFoundAndNotProved(kDg5TileFile, twins);
}

TEST(Dg5, ReadsTheArgumentDoesNotCoverAreNotWidened) {
  // the tile-indexed row: widened, and moved before the tail-stage guard
  auto tile = dg5Widened(cake::testing::corpusText(kDg5TileFile));
  ASSERT_TRUE(tile.has_value());
  EXPECT_EQ(tile->text, "with the table read lm.copy(sb, smem_sfb[t][:, kb:kb + 1]) read as its whole slot of "
                        "smem_sfb, before its guard");
  // the stage-indexed row: one index on every tile (1: the reads of a
  // column return to it every tile, generation t), widened only once
  // named by its tile (session 37, Dg6 below)
  auto stage = dg5Widened(cake::testing::corpusText(kDg5StageFile));
  ASSERT_TRUE(stage.has_value());
  EXPECT_EQ(stage->text.rfind("with smem_sfb[0] read as smem_sfb[t] (", 0), 0u) << stage->text;
  // a column read at both stages of a K block (2: the ranges of one run meet)
  EXPECT_FALSE(dg5Widened(dg5Edited(kDg5TileFile, {{kDg5Read, "                        lm.copy(sb, smem_sfb[t][:, k:k + 1])\n"}}))
                   .has_value());
  // the reading role writes the row inside the K loop (3)
  EXPECT_FALSE(dg5Widened(dg5Edited(kDg5TileFile, {{kDg5Read, "                        lm.copy(sb, smem_sfb[t][:, kb:kb + 1])\n"
                                                  "                        lm.copy(smem_sfb[t][:, 0:32], sbv)\n"}}))
                   .has_value());
  // another read of the row by the reading role (3)
  EXPECT_FALSE(dg5Widened(dg5Edited(kDg5TileFile, {{"            lm.fill(final, 0.0)\n",
                                           "            lm.fill(final, 0.0)\n            lm.copy(sb, smem_sfb[t][:, 0:1])\n"}}))
                   .has_value());
}

// A one-stage table named by its tile (docs/z3.md "A one-stage table named
// by its tile", helper dg6, session 37): the stage-indexed form of the same
// kernel, `smem_sfb[0]` written once per tile and read one column per K
// step, read as `smem_sfb[t]` and then widened.
namespace trip_widen_test {

const char* const kDg6Write = "            lm.copy(smem_sfb[0][:, 32 * wg:32 * wg + 32], sbv)\n";
const char* const kDg6Read = "                        lm.copy(sb, smem_sfb[0][:, kb:kb + 1])\n";

std::optional<encoder::trip::WidenedReads> dg6Named(const std::string& text) {
  auto mod = cake::testing::compile(text);
  EXPECT_FALSE(mod.schedules.empty());
  if (mod.schedules.empty()) return std::nullopt;
  return encoder::trip::nameTablesByTile(mod.schedules.at(0), {});
}

}  // namespace trip_widen_test

TEST(Dg6, StageIndexedScaleRowIsProved) {
  auto r = cake::testing::proveText(cake::testing::corpusText(kDg5StageFile), 128);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("with smem_sfb[0] read as smem_sfb[t] (a one-stage table written once per t, each byte "
                          "read at most once per t), and with the table read"),
            std::string::npos)
      << r.engine;
}

TEST(Dg6, BrokenStageIndexedTwinsAreFoundAndNotProved) {
  const Twin twins[] = {
      {{{kDg6Read, "                        lm.copy(sb, smem_sfb[1][:, kb:kb + 1])\n"}},
       "the table read a stage off", 1, 1, 128},
      {{{kDg6Write, ""},
        {"            if wg == 0:\n                lm.tma_store_wait(pending=0)\n",
         "            lm.copy(smem_sfb[0][:, 32 * wg:32 * wg + 32], sbv)\n"
         "            if wg == 0:\n                lm.tma_store_wait(pending=0)\n"}},
       "the table written after the K loop's reads", 1, 1, 128},
      {{{kDg6Write, "            if t == 0:\n                lm.copy(smem_sfb[0][:, 32 * wg:32 * wg + 32], sbv)\n"}},
       "the row written on the first tile only", 129, 1, 128},
      {{{"            lm.copy(smem_sfb[0][:, 32 * wg:32 * wg + 32], sbv)\n            lm.sync(math_bar)\n",
         "            lm.copy(smem_sfb[0][:, 32 * wg:32 * wg + 32], sbv)\n"}},
       "the row read before the named barrier after its write", 1, 1, 128},
  };
  expectFoundAndNotProved(kDg5StageFile, twins);
}

TEST(Dg6, TablesTheArgumentDoesNotCoverAreNotRenamed) {
  auto stage = dg6Named(cake::testing::corpusText(kDg5StageFile));
  ASSERT_TRUE(stage.has_value());
  EXPECT_EQ(stage->text,
            "with smem_sfb[0] read as smem_sfb[t] (a one-stage table written once per t, each byte read at most once per t)");
  // named by tile already (not slot 0)
  EXPECT_FALSE(dg6Named(cake::testing::corpusText(kDg5TileFile)).has_value());
  auto edited = [](std::initializer_list<std::pair<const char*, const char*>> edits) {
    return dg6Named(dg5Edited(kDg5StageFile, edits)).has_value();
  };
  // a: the write skipped on some tiles, in the K loop, or of bytes that
  // move with the tile; a second write
  EXPECT_FALSE(edited({{kDg6Write, "            if t == 0:\n                lm.copy(smem_sfb[0][:, 32 * wg:32 * wg + 32], sbv)\n"}}));
  EXPECT_FALSE(edited({{kDg6Write, ""},
                       {kDg6Read, "                        lm.copy(smem_sfb[0][:, 32 * wg:32 * wg + 32], sbv)\n"
                                 "                        lm.copy(sb, smem_sfb[0][:, kb:kb + 1])\n"}}));
  EXPECT_FALSE(edited({{kDg6Write, "            lm.copy(smem_sfb[0][:, 32 * ((wg + t) % 2):32 * ((wg + t) % 2) + 32], sbv)\n"}}));
  EXPECT_FALSE(edited({{"            lm.sync(math_bar)\n            lm.fill(final, 0.0)\n",
                        "            lm.sync(math_bar)\n            lm.fill(final, 0.0)\n            lm.fill(smem_sfb[0], 1.0)\n"}}));
  // b: a column read at both stages of a K block
  EXPECT_FALSE(edited({{kDg6Read, "                        lm.copy(sb, smem_sfb[0][:, k:k + 1])\n"}}));
  // another view over the table's bytes
  EXPECT_FALSE(edited({{"    accum = lm.regs(", "    alias = pool.view(offset=99456,  shape=(1, 8),     dtype=lm.f32,  stages=1)\n    accum = lm.regs("}}));
}
