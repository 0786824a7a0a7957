// Schedules without a symbolic loop that read the block index only through
// guards (docs/z3.md "The block index through guards: one system per class
// of outcomes", helper cucoll, session 20, issue 11): proved once per
// allowed vector of the guards' outcomes (per instance where a guard reads
// lm.instance()), each vector's system explored whole. Every broken variant
// is confirmed broken by the bounded explicit-state check at some block
// index and is not proved. Also (TripFirstIterationWrites, the open question
// of session 19 in docs/z3.md "Counters through the ring position"): a
// persistent kernel whose first K iteration leaves out a stage-named write
// is not proved, clean or broken.
#include <gtest/gtest.h>

#include <string>

#include "encoder/simulator.h"
#include "encoder/trip_guards.h"
#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace {

encoder::ModelCheckResult proveBlockClasses(const std::string& text) { return cake::testing::proveText(text); }

// The bounded check at n and block b of a grid of `grid` blocks.
bool blockViolatedAt(const std::string& text, int64_t n, int64_t b, int64_t grid) {
  auto m = cake::testing::compile(text);
  const ir::Schedule& s = m.schedules.at(0);
  encoder::Binding bd = cake::testing::bind(s, {{"n", n}});
  bd.block_idx[0] = b;
  bd.grid_dim[0] = grid;
  return cake::testing::violatedAt(s, bd);
}

const char* kCuco = "corpus/bugs/sync.deadlock/cucollections_find_block_sync_in_bounds_branch_fixed.cake";
const char* kCucoBug = "corpus/bugs/sync.deadlock/cucollections_find_block_sync_in_bounds_branch.cake";
const std::string kSync = "            lm.sync(bsync)                                  # the fix: every thread reaches it\n";

}  // namespace

// The guard atoms both the proof per class and the bounded check's guard
// outcomes split on (trip::guardAtoms): cuCollections' fixed find kernel
// tests `128 * b < n` once and `idx < n` twice (structurally equal: one
// atom, two uses, in program order); only the second reads lm.instance().
TEST(TripBlockClass, GuardAtomsAreStructurallyDistinctWithEveryUseInProgramOrder) {
  auto m = cake::testing::compile(cake::testing::corpusText(kCuco));
  const ir::Schedule& s = m.schedules.at(0);
  const encoder::trip::GuardAtoms g = encoder::trip::guardAtoms(s);
  ASSERT_EQ(g.atoms.size(), 2u);
  EXPECT_FALSE(g.atoms[0].reads_instance);
  EXPECT_TRUE(g.atoms[1].reads_instance);
  ASSERT_EQ(g.uses.size(), 3u);
  const size_t order[] = {0, 1, 1};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(g.uses[i].atom, order[i]) << i;
    EXPECT_TRUE(ir::sameExpr(*g.uses[i].cond, *g.atoms[order[i]].cond)) << i;
    EXPECT_EQ(g.uses[i].role, 0) << i;
  }
}

// cuCollections' fixed find kernel: `128 * b < n` and `128 * b + 32 * w < n`
// (one outcome per warp) are the only reads of the block index; of the 32
// outcome vectors the prover keeps 5 (the block past n, or the first
// 1..4 warps in bounds), each explored. The corpus twin is not proved.
TEST(TripBlockClass, CuCollectionsFindIsProvedPerOutcomeVector) {
  using cake::testing::replace;
  const std::string text = cake::testing::corpusText(kCuco);
  auto r = proveBlockClasses(text);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("for each of the 5 allowed outcome vectors of 5 guard outcomes"), std::string::npos)
      << r.engine;
  for (int64_t b = 0; b < 4; ++b) EXPECT_FALSE(blockViolatedAt(text, 352, b, 4)) << b;

  const std::string twin = cake::testing::corpusText(kCucoBug);
  EXPECT_TRUE(blockViolatedAt(twin, 96, 0, 1));
  EXPECT_NE(proveBlockClasses(twin).outcome, encoder::Outcome::Proved);

  // Block 5 alone: its last two warps skip the barrier (a deadlock there only).
  const std::string one_block =
      replace(text, kSync, "            if b != 5 or w < 2:\n                lm.sync(bsync)\n");
  ASSERT_NE(one_block, text);
  EXPECT_FALSE(blockViolatedAt(one_block, 1024, 0, 8));
  EXPECT_FALSE(blockViolatedAt(one_block, 1024, 4, 8));
  EXPECT_TRUE(blockViolatedAt(one_block, 1024, 5, 8));
  auto p = proveBlockClasses(one_block);
  EXPECT_NE(p.outcome, encoder::Outcome::Proved) << p.engine;
  // the class that meets the deadlock, with a binding of it (block 5)
  EXPECT_NE(p.detail.find("meets sync.deadlock, e.g. at"), std::string::npos) << p.detail;
  EXPECT_NE(p.detail.find("lm.block_idx(0) = 5"), std::string::npos) << p.detail;

  // The last block of the grid: warp 3 skips the barrier (lm.grid_dim in a guard).
  const std::string last_block =
      replace(text, kSync, "            if b + 1 < lm.grid_dim(0) or w != 3:\n                lm.sync(bsync)\n");
  ASSERT_NE(last_block, text);
  EXPECT_FALSE(blockViolatedAt(last_block, 1024, 0, 8));
  EXPECT_TRUE(blockViolatedAt(last_block, 1024, 7, 8));
  EXPECT_NE(proveBlockClasses(last_block).outcome, encoder::Outcome::Proved);

  // Odd blocks stage two warps' keys in one slot (a race on outbuf), the
  // store in a guard that is uniform per block.
  const std::string odd_blocks = replace(text, "                lm.copy(outbuf[w], found)                   # output_buffer[thread_idx] = ...\n",
                                         "                if b % 2 == 1:\n                    lm.copy(outbuf[w // 2], found)\n"
                                         "                else:\n                    lm.copy(outbuf[w], found)\n");
  ASSERT_NE(odd_blocks, text);
  EXPECT_FALSE(blockViolatedAt(odd_blocks, 1024, 0, 8));
  EXPECT_TRUE(blockViolatedAt(odd_blocks, 1024, 3, 8));
  EXPECT_NE(proveBlockClasses(odd_blocks).outcome, encoder::Outcome::Proved);

  // The guards on the block index are proved; a clean guard of the same
  // shape as the broken one above (every warp of block 5 skips the barrier
  // together: no deadlock) is proved too.
  const std::string whole_block = replace(text, kSync, "            if b != 5:\n                lm.sync(bsync)\n");
  ASSERT_NE(whole_block, text);
  EXPECT_FALSE(blockViolatedAt(whole_block, 1024, 5, 8));
  auto w = proveBlockClasses(whole_block);
  EXPECT_EQ(w.outcome, encoder::Outcome::Proved) << w.detail;
}

// A parameter with more allowed values than are proved one by one (the 32
// of max_fixed_values), read by no loop bound and only by guards
// (docs/z3.md "Parameters with many values read only by guards", session
// 23): TileOPs' NSA mean pooling after tilelang PR #2700 tests `16 * w <
// n_tok` per warp with 1 <= n_tok <= 64. Before, the proof listed n_tok's
// 64 values, gave up (unknown, "more than 32 values"); now one system per
// allowed outcome vector of the per-warp guards (4 of 16), each explored.
// The corpus twin (no barrier between the clear and the fill) and a form
// whose fix barrier only the warps with tokens reach (broken unless every
// warp has tokens) are broken at some n_tok and not proved.
TEST(TripBlockClass, ParameterWithManyValuesReadOnlyByGuardsIsProvedPerClass) {
  using cake::testing::replace;
  const char* kFixed = "corpus/bugs/sync.race/tileops_nsa_mean_pooling_clear_then_fill_no_barrier_fixed.cake";
  const char* kBroken = "corpus/bugs/sync.race/tileops_nsa_mean_pooling_clear_then_fill_no_barrier.cake";
  auto violated_at = [](const std::string& text, int64_t n_tok) {
    auto m = cake::testing::compile(text);
    const ir::Schedule& s = m.schedules.at(0);
    return cake::testing::violatedAt(s, {{"n_tok", n_tok}});
  };
  const std::string text = cake::testing::corpusText(kFixed);
  for (const int64_t n : {1, 16, 17, 40, 64}) EXPECT_FALSE(violated_at(text, n)) << n;
  auto r = proveBlockClasses(text);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("n_tok (more allowed values than are proved one by one) read only by guards"),
            std::string::npos)
      << r.engine;
  EXPECT_NE(r.engine.find("for each of the 4 allowed outcome vectors of 4 guard outcomes"), std::string::npos)
      << r.engine;

  const std::string twin = cake::testing::corpusText(kBroken);
  EXPECT_FALSE(violated_at(twin, 16));
  EXPECT_TRUE(violated_at(twin, 17));
  EXPECT_NE(proveBlockClasses(twin).outcome, encoder::Outcome::Proved);

  // The fix barrier reached only by the warps with tokens: broken for
  // every n_tok <= 48 (the warps without tokens skip it), clean at 64.
  const std::string some_warps =
      replace(text, "        lm.sync(block)                                                 # the fix (PR #2700)\n",
              "        if 16 * w < n_tok:\n            lm.sync(block)\n");
  ASSERT_NE(some_warps, text);
  EXPECT_TRUE(violated_at(some_warps, 17));
  EXPECT_FALSE(violated_at(some_warps, 64));
  auto p = proveBlockClasses(some_warps);
  EXPECT_NE(p.outcome, encoder::Outcome::Proved) << p.engine;
  // the first class explored that breaks: some warps skip the barrier (a
  // race with the clear, then a deadlock)
  EXPECT_NE(p.detail.find("meets sync."), std::string::npos) << p.detail;
}

// Arrivals that depend on the block index: the warps exchange their staged
// keys (warp w writes back warp w + 1's) through an mbarrier every warp
// arrives on and waits for. One warp of the blocks b % 3 == 2 arrives twice
// (the phase completes before the others' stores: a race), or not at all (a
// deadlock); a slot index that reads the block index is refused (no guard).
TEST(TripBlockClass, BlockDependentArrivalsAreNotProved) {
  using cake::testing::replace;
  const std::string text0 = cake::testing::corpusText(kCuco);
  std::string text = replace(text0, "    bsync = lm.named_barrier(roles=[block])\n",
                             "    bsync = lm.barrier(count=1, prod=[block], cons=[block], init_count=4)\n");
  text = replace(text, "    lm.assume(n % 32 == 0)\n", "    lm.assume(n % 128 == 0)\n");
  text = replace(text, kSync, "            lm.arrive(bsync, stage=0)\n            lm.wait(bsync, stage=0)\n");
  text = replace(text, "                lm.copy(res, outbuf[w])\n", "                lm.copy(res, outbuf[(w + 1) % 4])\n");
  ASSERT_NE(text, text0);
  for (int64_t b = 0; b < 4; ++b) EXPECT_FALSE(blockViolatedAt(text, 1024, b, 8)) << b;
  auto good = proveBlockClasses(text);
  EXPECT_EQ(good.outcome, encoder::Outcome::Proved) << good.detail;

  const std::string twice =
      replace(text, "            lm.arrive(bsync, stage=0)\n",
              "            lm.arrive(bsync, stage=0)\n            if b % 3 == 2 and w == 0:\n"
              "                lm.arrive(bsync, stage=0)\n");
  ASSERT_NE(twice, text);
  EXPECT_FALSE(blockViolatedAt(twice, 1024, 1, 8));
  EXPECT_TRUE(blockViolatedAt(twice, 1024, 2, 8));
  EXPECT_NE(proveBlockClasses(twice).outcome, encoder::Outcome::Proved);

  const std::string never = replace(text, "            lm.arrive(bsync, stage=0)\n",
                                    "            if b % 3 != 2 or w != 0:\n                lm.arrive(bsync, stage=0)\n");
  ASSERT_NE(never, text);
  EXPECT_FALSE(blockViolatedAt(never, 1024, 1, 8));
  EXPECT_TRUE(blockViolatedAt(never, 1024, 5, 8));
  EXPECT_NE(proveBlockClasses(never).outcome, encoder::Outcome::Proved);

  // the block index in a slot index (outside any guard): refused
  const std::string slot = replace(replace(text, "                lm.copy(outbuf[w], found)                   # output_buffer[thread_idx] = ...\n",
                                           "                lm.copy(outbuf[(w + b) % 4], found)\n"),
                                   "                lm.copy(res, outbuf[(w + 1) % 4])\n",
                                   "                lm.copy(res, outbuf[(w + b + 1) % 4])\n");
  ASSERT_NE(slot, text);
  auto c = proveBlockClasses(slot);
  EXPECT_NE(c.outcome, encoder::Outcome::Proved);
  EXPECT_NE(c.detail.find("outside the guards"), std::string::npos) << c.detail;
}

// The persistent kernel of the two TripFirstIterationWrites tests (the clean form; the broken one is derived).
const std::string kFirstIterationScratch = R"(@cake.schedule(target="sm_90a")
def persistent_stage_named_b(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool    = lm.smem(65536)
    smem_a  = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b  = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_bs = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_c  = pool.view(offset=49152, shape=(64, 128), dtype=lm.bf16, stages=1)
    pool2   = lm.smem(16384)
    smem_s  = pool2.view(offset=0, shape=(16, 128), dtype=lm.f32, stages=2)
    part    = lm.regs(shape=(16, 128), dtype=lm.f32)
    acc     = lm.regs(shape=(64, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[load], init_count=1, pipeline=pipe)

    k_tiles   = lm.cdiv(K, 64)
    num_tiles = lm.cdiv(M, 64) * lm.cdiv(N, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with load:
        for t in lm.range(0, my_tiles):
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 2)
                smem_a.tma_load(A, coords=(0, k * 64), iter=it, barrier=full)
                smem_bs[it % 2].tma_load(B, coords=(0, k * 64), iter=it, barrier=full)

    with math:
        for t in lm.range(0, my_tiles):
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                if k > 0:
                    lm.fill(part, 0.0)
                    lm.copy(smem_s[it % 2], part)
                lm.arrive(empty, iter=it)
            lm.tma_store_wait(pending=0)
            lm.copy(smem_c[0], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(0, 0), stage=0)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
)";

// docs/z3.md "A first K iteration that leaves out a stage-named write" (the
// open question of session 19): the persistent kernel of trip_gaps_test's
// stage-named B with the math role staging a partial sum through a
// stage-named scratch view in every K iteration but a tile's first. The
// generation of that write counts the role's earlier writes of the index, one
// fewer per tile start in a run, while the ring alignment would give tile 0's:
// the copies per ring start are refused (the bounded check finds the kernel
// clean; it stays unknown, never proved). Without the first-iteration guard
// it is proved.
TEST(TripFirstIterationWrites, FirstKIterationLeavingOutAStageNamedWriteIsNotProved) {
  using cake::testing::replace;
  const std::string& text = kFirstIterationScratch;
  for (int64_t m : {64, 192, 384})
    for (int64_t k : {64, 128, 192}) {
      auto mod = cake::testing::compile(text);
      EXPECT_FALSE(cake::testing::violatedAt(mod.schedules.at(0), {{"M", m}, {"N", 128}, {"K", k}})) << m << " " << k;
    }
  auto r = proveBlockClasses(text);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
  EXPECT_NE(r.detail.find("leaves out a stage-named write"), std::string::npos) << r.detail;
  const std::string every = replace(text, "                if k > 0:\n                    lm.fill(part, 0.0)\n                    lm.copy(smem_s[it % 2], part)\n",
                                    "                lm.fill(part, 0.0)\n                lm.copy(smem_s[it % 2], part)\n");
  ASSERT_NE(every, text);
  auto e = proveBlockClasses(every);
  EXPECT_EQ(e.outcome, encoder::Outcome::Proved) << e.detail;
}

// The broken form (helper cucoll): the loader stages a value through the
// stage-named scratch view in every K iteration but a tile's first (one write
// in its prefix makes up for tile 0's), and the math role reads it through
// an iteration-named view over the same bytes in the same iterations. In a
// run a later tile's start leaves out one more write of its index, so the
// writes after it hold one lap less than the reads mean: data.stale-read
// (the bounded check, 4 tiles of 3 K iterations). The ring alignment gave
// those writes tile 0's generation, the lap the reads mean; before the
// refusal this form was not proved either, but only because no steady period
// was found (in 16 tiles of 384 K iterations, 82 s): now it is refused at once.
TEST(TripFirstIterationWrites, FirstKIterationLeavingOutAStageNamedWriteIsNotProvedWhenBroken) {
  using cake::testing::replace;
  std::string text = replace(kFirstIterationScratch, "    smem_s  = pool2.view(offset=0, shape=(16, 128), dtype=lm.f32, stages=2)\n",
                             "    smem_s  = pool2.view(offset=0, shape=(16, 128), dtype=lm.f32, stages=2)\n"
                             "    smem_si = pool2.view(offset=0, shape=(16, 128), dtype=lm.f32, stages=2)\n");
  text = replace(text, "    part    = lm.regs(shape=(16, 128), dtype=lm.f32)\n",
                 "    part    = lm.regs(shape=(16, 128), dtype=lm.f32)\n    part2   = lm.regs(shape=(16, 128), dtype=lm.f32)\n");
  // the loader writes the scratch in its prefix and in every K iteration but a tile's first
  text = replace(text, "    with load:\n", "    with load:\n        lm.fill(part, 0.0)\n        lm.copy(smem_s[0], part)\n");
  text = replace(text, "                lm.wait(empty, iter=it - 2)\n",
                 "                lm.wait(empty, iter=it - 2)\n                if k > 0:\n                    lm.fill(part, 0.0)\n"
                 "                    lm.copy(smem_s[it % 2], part)\n");
  text = replace(text, "smem_bs[it % 2].tma_load(B", "smem_b.tma_load(B");
  // the math role reads it through the iteration-named view and no longer writes it
  text = replace(text, "                lm.wait(full, iter=it)\n",
                 "                lm.wait(full, iter=it)\n                if k > 0:\n                    lm.copy(part2, smem_si[it])\n");
  text = replace(text, "                if k > 0:\n                    lm.fill(part, 0.0)\n                    lm.copy(smem_s[it % 2], part)\n"
                 "                lm.arrive(empty", "                lm.arrive(empty");
  auto mod = cake::testing::compile(text);
  EXPECT_TRUE(cake::testing::violatedAt(mod.schedules.at(0), {{"M", 65}, {"N", 129}, {"K", 129}}));
  EXPECT_FALSE(cake::testing::violatedAt(mod.schedules.at(0), {{"M", 64}, {"N", 128}, {"K", 129}}));
  auto r = proveBlockClasses(text);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
  EXPECT_NE(r.detail.find("leaves out a stage-named write"), std::string::npos) << r.detail;
}
