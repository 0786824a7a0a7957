// Loops bounded by the block index (docs/z3.md "Loops bounded by the block
// index: the index as a parameter", helper bidx, session 33): a causal
// kernel's KV loop runs to its query block (`lm.block_idx(1)`), which the
// proof covered for no value but those the bounded check ran. The proof now
// reads each lm.block_idx(d) / lm.grid_dim(d) of a schedule with such a loop
// as a parameter in the range CUDA gives it and proves the copy (lap
// induction over the block index), and two loops one after the other in a
// role (the causal steps, then the steps that flush the pipeline) are read
// as one loop whose iterations run either body. Broken forms that differ
// only where the arguments reason are found by the bounded check and not
// proved.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "attack_pair.h"
#include "block_rounds.h"
#include "encoder/simulator.h"
#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_block_param_test {

// The bounded check's outcome for one block of a grid.
encoder::Outcome blockParamAt(const ir::Schedule& s, int64_t block, int64_t grid) {
  encoder::Binding b;
  b.block_idx[0] = block;
  b.grid_dim[0] = grid;
  return cake::testing::exploreToFirst(s, b).outcome;
}

}  // namespace trip_block_param_test

namespace tbp = trip_block_param_test;

TEST(TripBlockParam, LoopBoundedByTheBlockIndexIsProved) {
  auto mod = cake::testing::compile(cake::testing::blockRounds());
  const ir::Schedule& s = mod.schedules.at(0);
  for (int64_t b = 0; b < 4; ++b) EXPECT_EQ(tbp::blockParamAt(s, b, 4), encoder::Outcome::Pass) << b;
  auto r = cake::testing::proveSchedule(s);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("the block index read as a parameter (0 <= lm.block_idx(0) < 2147483647)"),
            std::string::npos)
      << r.engine;
  EXPECT_NE(r.engine.find("two loops ("), std::string::npos) << r.engine;
  std::cout << "[ " << r.engine << " ]\n";
}

// Broken where the block index or the instance makes the block differ:
// each found by the bounded check at some block and not proved.
TEST(TripBlockParam, BrokenFormsAreNotProved) {
  struct Broken {
    std::string text;
    const char* what;
    int64_t block, grid;  // where the bounded check finds it
  };
  const Broken broken[] = {
      // the first barrier only where the block is not the grid's last
      {cake::testing::blockRounds("if b + 1 < lm.grid_dim(0):\n                lm.sync(block)"),
       "last block skips a barrier", 1, 2},
      // ... only in the last round of blocks from 1 on
      {cake::testing::blockRounds("if c < b or b == 0:\n                lm.sync(block)"),
       "last round of a later block skips it", 1, 2},
      // the flush writes the sibling's row while the sibling writes it
      {cake::testing::blockRounds("lm.sync(block)", "lm.copy(rows[2 - 2 * w + c % 2], v)"),
       "flush writes its sibling's row", 0, 1},
      // ... only in round 4: in blocks from 3 on (none the bounded check runs)
      {cake::testing::blockRounds("if c != 4:\n                lm.sync(block)"), "round 4 skips a barrier", 4, 5},
      // warp 1 runs one round fewer than its sibling's barriers need
      {cake::testing::replace(cake::testing::blockRounds(), "lm.range(0, b + 1 + w)", "lm.range(0, b + 1 - w)"),
       "the warps' rounds differ", 0, 1},
  };
  for (const auto& x : broken) {
    auto mod = cake::testing::compile(x.text);
    const ir::Schedule& s = mod.schedules.at(0);
    EXPECT_NE(tbp::blockParamAt(s, x.block, x.grid), encoder::Outcome::Pass) << x.what;
    auto r = cake::testing::proveSchedule(s);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << x.what << ": " << r.engine;
    std::cout << "[ " << x.what << ": " << (r.outcome == encoder::Outcome::Violation ? "violation" : "unknown") << ": "
              << r.detail << " ]\n";
  }
}

// The corpus kernel (JAX Pallas Mosaic GPU FA3, causal) and its twin
// without the loop that flushes the pipeline.
TEST(TripBlockParam, CausalFlashAttentionIsProvedAndItsTwinIsNot) {
  auto good = cake::testing::compile(cake::testing::corpusText("corpus/attention/sm90_pallas_mgpu_fa3_causal_flush.cake"));
  auto r = cake::testing::proveSchedule(good.schedules.at(0));
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  auto bad = cake::testing::compile(
      cake::testing::corpusText("corpus/bugs/sync.arrival-underflow/pallas_mgpu_fa3_causal_no_epilogue_kv_loop.cake"));
  const ir::Schedule& s = bad.schedules.at(0);
  EXPECT_NE(tbp::blockParamAt(s, 1, 2), encoder::Outcome::Pass);
  EXPECT_NE(cake::testing::proveSchedule(s).outcome, encoder::Outcome::Proved);
}

// The rounds, then `lm.grid_dim(0)` stores: the values the bounded check ran
// are block indices and grid sizes, which a checked verdict names (the
// proof, which reads them as parameters, has two symbolic loop bounds and
// refuses: the verdict stays checked; session 32's test, on a schedule this
// proof now proves).
TEST(CheckedValues, BlockIndicesAreNamed) {
  const std::string text = cake::testing::blockRounds() +
                           "        for g in lm.range(0, lm.grid_dim(0)):\n"
                           "            lm.copy(Y, v, coords=(g, 32 * w))\n";
  const checks::CheckResult r = cake::testing::pairs::checkText(text);
  EXPECT_FALSE(r.hasErrors()) << cake::testing::pairs::describe(r);
  bool named = false;
  for (const auto& v : r.verdicts)
    if (v.property == "sync")
      named = v.kind == checks::VerdictKind::Checked && v.detail.rfind("block_idx(0) in {0,", 0) == 0;
  EXPECT_TRUE(named) << cake::testing::pairs::describe(r);
}
