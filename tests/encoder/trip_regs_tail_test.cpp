// Register fragments no branch can leave behind (docs/z3.md "Register
// fragments no branch can leave behind", helper dgcol, session 34): a
// guard that reads the K loop's trip count (a tile's last K iteration)
// and decides register work only is proved where no MMA accumulates into
// registers and every fragment the branches treat differently is fresh in
// every K iteration or reset at every tile's start. Before, the persistent
// proof refused the guard (`... decides what a tile does to its register
// fragments`). Broken forms that differ where the argument reasons are
// found by the explicit engine and not proved; so are DeepGEMM's B-scale
// row written late, for the first tile only, read at a stage without data
// or before its wait (corpus/gemm/sm90_deepgemm_persistent_sfb_*.cake).
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "encoder/simulator.h"
#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "last_stage_scale.h"
#include "test_util.h"

using namespace cake;

namespace trip_regs_tail_test {

encoder::Outcome scaleAt(const ir::Schedule& x, int64_t tiles, int64_t k_tiles) {
  return cake::testing::exploreToFirst(x, cake::testing::bind(x, {{"M", 64 * tiles}, {"K", 64 * k_tiles}})).outcome;
}

}  // namespace trip_regs_tail_test

namespace trt = trip_regs_tail_test;

TEST(TripRegsTail, LastStageScaleIsProved) {
  auto mod = cake::testing::compile(cake::testing::lastStageScale());
  const ir::Schedule& s = mod.schedules.at(0);
  for (int64_t tiles : {1, 2, 3})
    for (int64_t k_tiles : {1, 2, 3})
      EXPECT_EQ(trt::scaleAt(s, tiles, k_tiles), encoder::Outcome::Pass) << tiles << " tiles of " << k_tiles;
  auto r = cake::testing::proveSchedule(s);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction over tiles and K"), std::string::npos) << r.engine;
  std::cout << "[ " << r.engine << " ]\n";
}

// Each differs from the proved kernel where the argument reasons (a
// fragment a branch leaves behind, an accumulating MMA, a reset that is not
// at the tile's start); each is a violation of the explicit engine at the
// shape given and is not proved.
TEST(TripRegsTail, BrokenFormsAreNotProved) {
  struct Broken {
    const char *from, *to, *what;
    int64_t tiles, k_tiles;  // where the explicit engine finds it
    const char *from2 = nullptr, *to2 = nullptr;  // a second edit
  };
  const Broken broken[] = {
      // the last iteration adds a fragment only the other iterations write
      // (a tile of one K iteration reads it unwritten: data.uninitialized)
      {"                    lm.binary(out, out, acc, op=\"add\")\n                else:\n                    lm.copy(tmp, acc)\n",
       "                    lm.binary(out, out, acc, op=\"add\")\n                    lm.copy(tmp, acc)\n"
       "                else:\n",
       "the last iteration reads a fragment only the others write", 1, 1},
      // the last iteration leaves its product unread: the next tile's first
      // MMA overwrites it (data.discarded-product)
      {"                    lm.copy(tmp, acc)\n                    lm.binary(out, out, tmp, op=\"add\")\n", "",
       "the last iteration's product is left unread", 2, 1},
      // an MMA that accumulates across tiles (init on the CTA's first ring
      // index only; without the scale, which restarts out's copy links):
      // data.stale-accumulator on the second tile
      {"init=True", "init=(it == 0)", "an accumulating MMA", 2, 1, "                    lm.binary(out, out, 0.5, op=\"mul\")\n",
       ""},
      // out reset at the tile's end instead of its start: the first tile
      // adds into unwritten elements (data.uninitialized)
      {"            lm.fill(out, 0.0)\n            for k", "            for k", "out reset after the K loop", 1, 1,
       "            lm.copy(C, out", "            lm.fill(out, 0.0)\n            lm.copy(C, out"},
  };
  const std::string proved = cake::testing::lastStageScale();
  for (const Broken& b : broken) {
    std::string text = cake::testing::replace(proved, b.from, b.to);
    if (b.from2) text = cake::testing::replace(text, b.from2, b.to2);
    ASSERT_NE(text, proved) << b.what;
    auto mod = cake::testing::compile(text);
    const ir::Schedule& x = mod.schedules.at(0);
    EXPECT_EQ(trt::scaleAt(x, b.tiles, b.k_tiles), encoder::Outcome::Violation) << b.what;
    auto r = cake::testing::proveSchedule(x);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.what << ": " << r.engine;
    std::cout << b.what << ": " << (r.outcome == encoder::Outcome::Violation ? "violation" : r.detail) << "\n";
  }
}

// DeepGEMM's per-tile B-scale row broken in the ways a widening of its
// column read would have to rule out, in both corpus forms (named by tile
// and by stage index): each is found by the bounded check at the shape
// given (one CTA) and is not proved.
TEST(TripRegsTail, DeepGemmScaleRowBrokenTwinsAreFoundAndNotProved) {
  const char* write = "            lm.copy(smem_sfb[t][:, 32 * wg:32 * wg + 32], sbv)\n";
  const char* read = "                        lm.copy(sb, smem_sfb[t][:, kb:kb + 1])\n";
  struct Twin {
    std::initializer_list<std::pair<const char*, const char*>> edits;
    const char* what;
    int64_t M, N, K;  // where the bounded check finds it
    bool by_stage_too = true;
  };
  const Twin twins[] = {
      // the row written in the K loop, after the stage's read of it
      {{{write, ""},
        {read, "                        lm.copy(sb, smem_sfb[t][:, kb:kb + 1])\n"
               "                        lm.copy(smem_sfb[t][:, 32 * wg:32 * wg + 32], sbv)\n"}},
       "the row written after the K loop's first read", 1, 1, 128},
      // the row written for the CTA's first tile only
      // the row written for the CTA's first tile only (the tile-indexed form
      // alone: named by slot 0, a row written once is a table read on every
      // tile, lap 0 for every read, docs/rules/data.stale-read.md "What")
      {{{write, "            if t == 0:\n                lm.copy(smem_sfb[t][:, 32 * wg:32 * wg + 32], sbv)\n"}},
       "the row written for the first tile only", 129, 1, 128, false},
      // K = 128 (lm.cdiv(K, 128) odd): the math warpgroups run the stage
      // without data, reading its slot and the scales of a column past K
      {{{"                    if kb < k_blocks:\n", "                    if kb < 2 * num_iters:\n"}},
       "the odd case reads the skipped stage", 1, 1, 128},
      // the A scale read before the wait for its TMA load
      {{{"                        lm.wait(full, iter=g)\n                        lm.copy(sa, smem_sfa[g][:, 64 * wg:64 * wg + 64])\n",
         "                        lm.copy(sa, smem_sfa[g][:, 64 * wg:64 * wg + 64])\n                        lm.wait(full, iter=g)\n"}},
       "the scale read before its wait", 1, 1, 128},
  };
  for (const char* file : {"sm90_deepgemm_persistent_sfb_tail_stages.cake", "sm90_deepgemm_persistent_sfb_stage_indexed.cake"}) {
    const bool by_stage = std::string(file).find("stage_indexed") != std::string::npos;
    for (const Twin& tw : twins) {
      if (by_stage && !tw.by_stage_too) continue;
      std::string text = cake::testing::corpusText(std::string("corpus/gemm/") + file);
      for (auto [from, to] : tw.edits) {
        std::string f = from, t = to;
        if (by_stage) {  // the stage-indexed form names slot 0 where the other names tile t
          for (std::string* x : {&f, &t})
            for (size_t at; (at = x->find("smem_sfb[t]")) != std::string::npos;) x->replace(at, 11, "smem_sfb[0]");
        }
        text = cake::testing::replace(text, f, t);
      }
      auto mod = cake::testing::compile(text);
      ASSERT_FALSE(mod.schedules.empty()) << file << ": " << tw.what;
      const ir::Schedule& x = mod.schedules.at(0);
      const auto found = cake::testing::exploreToFirst(x, cake::testing::bind(x, {{"M", tw.M}, {"N", tw.N}, {"K", tw.K}}));
      EXPECT_EQ(found.outcome, encoder::Outcome::Violation) << file << ": " << tw.what;
      auto r = cake::testing::proveSchedule(x, 128);
      EXPECT_NE(r.outcome, encoder::Outcome::Proved) << file << ": " << tw.what << ": " << r.engine;
      std::cout << file << ": " << tw.what << ": " << cake::testing::rules(found) << "; proof: "
                << (r.outcome == encoder::Outcome::Violation ? "violation" : r.detail) << "\n";
    }
  }
}
