// A per-round table read after every barrier of the round (session 46,
// docs/rules/data.stale-read.md "A slot read after every barrier of a
// round"): cuDF's shared-memory groupby (NVIDIA/cudf PR #17985) has thread
// 0 write the batch metadata once a batch and every warp read it after each
// of the batch's barriers. Written bare (`meta`, a one-stage view), the
// correct kernel was a false data.stale-read (each read after a barrier a
// new lap), and on the broken twin (no leading block.sync()) that false
// finding came before the race and hid it from the explicit engine. Kokkos'
// join whose write-back is lost has the same accesses of its slot but one
// warp's extra read for the join: it stays data.stale-read.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "attack_util.h"
#include "encoder/simulator.h"
#include "engine_agreement.h"
#include "test_util.h"
#include "tests/common/text_edit.h"

using namespace cake;

namespace batch_metadata_test {

// (a using-directive at file scope would make the unity build's other
// RandomSchedule ambiguous)
using encoder::ModelCheckResult;
using encoder::Outcome;
using encoder::System;

using Rules = std::set<std::string>;

// The rules the simulator finds (every rule, not the first) at n rounds.
Rules rulesOf(const std::string& text, int64_t n) {
  ir::Module mod = cake::testing::compile(text);
  EXPECT_FALSE(mod.schedules.empty());
  if (mod.schedules.empty()) return {"(no schedule)"};
  const System sys = cake::testing::build(mod.schedules[0], cake::testing::bind(mod.schedules[0], {{"n", n}}));
  const ModelCheckResult sim = cake::testing::exploreEveryRule(sys);
  EXPECT_NE(sim.outcome, Outcome::Unknown) << sim.detail;
  return cake::testing::ruleSet(sim);
}

// docs/known-limits.md's minimal form: two one-warp instances of one role;
// warp 0 writes the round's metadata after the round's first barrier, both
// read it after the second and the third.
const std::string kBatchMetadata = R"(
@cake.schedule(target="sm_80")
def k(lm, X: LM.gmem, Out: LM.gmem, n: LM.i32):
    lm.assume(n >= 1)
    pool = lm.smem(64)
    meta = pool.view(offset=0, shape=(1, 16), dtype=lm.i32)
    r    = lm.regs(shape=(1, 16), dtype=lm.i32)
    warps = lm.role(warps=[0, 1], group=1)
    bar   = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        for c in lm.range(0, n):
            lm.sync(bar)
            if w == 0:
                lm.copy(r, X, coords=(0, 16 * c))
                lm.copy(meta, r)
            lm.sync(bar)
            lm.copy(r, meta)
            lm.sync(bar)
            lm.copy(r, meta)
            lm.copy(Out, r, coords=(w, 16 * c))
)";

std::string edit(const std::string& text, const std::string& from, const std::string& to) {
  return cake::testing::replace(text, from, to);
}

const std::string kCudf = "corpus/bugs/sync.race/cudf_shmem_groupby_column_batch_loop_no_leading_sync_bare_meta";

}  // namespace batch_metadata_test

namespace bm = batch_metadata_test;

// Bare (`meta`) and as its slot (`meta[0]`), the second read of a round
// finds the round's write again: no finding at 1 to 3 rounds (both were
// "warps[1] reads meta[0] ... meaning lap 1 ..., but it holds the data of
// lap 0" at n = 2).
TEST(BatchMetadata, ReadAfterEveryBarrierIsNotStale) {
  std::string slot = bm::edit(bm::kBatchMetadata, "lm.copy(meta, r)", "lm.copy(meta[0], r)");
  slot = bm::edit(bm::edit(slot, "lm.copy(r, meta)\n", "lm.copy(r, meta[0])\n"), "lm.copy(r, meta)\n",
                  "lm.copy(r, meta[0])\n");
  for (int64_t n : {1, 2, 3}) {
    EXPECT_EQ(bm::rulesOf(bm::kBatchMetadata, n), bm::Rules{}) << "bare, n=" << n;
    EXPECT_EQ(bm::rulesOf(slot, n), bm::Rules{}) << "meta[0], n=" << n;
  }
}

// Broken twins: no leading barrier (warp 0 rewrites the metadata while warp
// 1 still reads the last round's: sync.race); warp 0 skips round 1's write
// (stale); and Kokkos' lost write-back's shape - warp 1 alone reads the
// metadata after the second barrier (a join in its turn, its update
// missing), then both after the third: warp 1's second read is no re-read
// of the role's, and still means the next lap (stale).
TEST(BatchMetadata, BrokenTwinsStayFound) {
  const std::string no_lead = bm::edit(bm::kBatchMetadata, "            lm.sync(bar)\n            if w == 0:",
                                       "            if w == 0:");
  EXPECT_TRUE(bm::rulesOf(no_lead, 2).count("sync.race"));
  const std::string skipped = bm::edit(bm::kBatchMetadata, "            if w == 0:", "            if w == 0 and c != 1:");
  EXPECT_TRUE(bm::rulesOf(skipped, 2).count("data.stale-read"));
  const std::string join = bm::edit(bm::kBatchMetadata, "            lm.sync(bar)\n            lm.copy(r, meta)\n            lm.sync(bar)",
                                    "            lm.sync(bar)\n            if w == 1:\n                lm.copy(r, meta)\n            lm.sync(bar)");
  EXPECT_EQ(bm::rulesOf(join, 2), bm::Rules{"data.stale-read"});
}

// The corpus pair as `cake check`'s model checker runs it: the fixed form
// proved with no finding; the broken form's finding is the race (it was
// data.stale-read alone, the false stale read of batch 0 found first).
TEST(BatchMetadata, CudfBareMetadataPair) {
  auto fixed = cake::testing::compile(cake::testing::corpusText(bm::kCudf + "_fixed.cake"));
  ASSERT_FALSE(fixed.schedules.empty());
  const auto ok = cake::testing::attacks::modelCheck(fixed.schedules.at(0));
  EXPECT_TRUE(ok.proved) << ok.detail;
  EXPECT_EQ(ok.rules, bm::Rules{}) << ok.detail;
  auto broken = cake::testing::compile(cake::testing::corpusText(bm::kCudf + ".cake"));
  ASSERT_FALSE(broken.schedules.empty());
  const auto bad = cake::testing::attacks::modelCheck(broken.schedules.at(0));
  EXPECT_FALSE(bad.proved);
  EXPECT_EQ(bad.rules, bm::Rules{"sync.race"}) << bad.detail;
}
