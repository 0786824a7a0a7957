// data.uninitialized on TMEM in the model checker's runs, and lm.assume
// lower bounds that admit an empty loop (docs/rules/data.uninitialized.md):
// CUTLASS #2674 (a grouped GEMM's K = 0 group) and flash-attention #2906
// (a block-sparse tile with no live key block) read TMEM that no MMA wrote.
#include <gtest/gtest.h>

#include "encoder/simulator.h"
#include "encoder/z3_po.h"
#include "test_util.h"

using namespace cake;
using cake::testing::bind;
using cake::testing::build;
using cake::testing::compile;
using cake::testing::find;
using cake::testing::hasRule;
using cake::testing::kTwoTilesKLoop;
using cake::testing::lineOf;
using cake::testing::primaryLine;
using cake::testing::replace;
using cake::testing::rules;

namespace {

struct UninitTmemRun {
  ir::Module mod;
  encoder::System sys;
  encoder::ModelCheckResult result;
};

UninitTmemRun uninitTmemExplore(const std::string& text, int64_t k) {
  UninitTmemRun r;
  r.mod = compile(text);
  if (r.mod.schedules.empty()) return r;
  r.sys = build(r.mod.schedules[0], bind(r.mod.schedules[0], {{"K", k}}));
  r.result = encoder::explore(r.sys, {});
  return r;
}

// The MMA warp multiplies one tile into TMEM only when K > 0 (a tile that
// skips its MMAs) and always commits acc_full; the epilogue loads TMEM.
const std::string kUninitTmemSkippedMma = R"(@cake.schedule(target="sm_100a")
def tmem_skipped_mma(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, K: LM.i32):
    pool     = lm.smem(32768)
    smem_a   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    smem_b   = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    acc_r    = lm.regs(shape=(128, 128), dtype=lm.f32)
    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    full     = lm.barrier(count=1, prod=[mma], cons=[mma], init_count=1)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    with mma:
        if K > 0:
            smem_a.tma_load(A, coords=(0, 0), barrier=full)
            smem_b.tma_load(B, coords=(0, 0), barrier=full)
            lm.wait(full)
            lm.mma(tmem_acc, smem_a, smem_b, init=True)
        lm.mma_commit(barrier=acc_full)
    with epi:
        lm.wait(acc_full)
        lm.tmem_load(acc_r, tmem_acc)
        lm.tmem_load_wait()
        lm.copy(C, acc_r, coords=(0, 0))
)";

// The same with a K loop of MMAs, init=(k == 0).
const std::string kUninitTmemKLoop =
    replace(replace(kUninitTmemSkippedMma, "        if K > 0:\n",
                    "        for k in lm.range(0, K):\n"),
            "init=True", "init=(k == 0)");

}  // namespace

TEST(UninitializedTmem, AReadOfTmemNoOpWritesForTheseSizesIsReported) {
  UninitTmemRun ok = uninitTmemExplore(kUninitTmemSkippedMma, 1);
  EXPECT_EQ(ok.result.outcome, encoder::Outcome::Pass) << rules(ok.result);
  UninitTmemRun r = uninitTmemExplore(kUninitTmemSkippedMma, 0);
  const encoder::Violation* v = find(r.result, "data.uninitialized");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(kUninitTmemSkippedMma, "lm.tmem_load(acc_r"));
  EXPECT_EQ(v->buffer, "tmem_acc element (0, 0)");
  EXPECT_NE(v->message.find("reads TMEM tmem_acc element (0, 0)"), std::string::npos) << v->message;
  // the same read through the z3-po engine
  encoder::PoResult z = encoder::poCheck(r.sys, {});
  EXPECT_FALSE(z.internal_error) << z.error;
  EXPECT_TRUE(hasRule(z.result, "data.uninitialized")) << rules(z.result);
  // a tcgen05.st defines the region: no data.uninitialized
  const std::string stored =
      replace(kUninitTmemSkippedMma, "        lm.wait(acc_full)\n",
              "        lm.fill(acc_r, 0.0)\n        lm.tmem_store(tmem_acc, acc_r)\n        lm.tmem_store_wait()\n"
              "        lm.wait(acc_full)\n");
  EXPECT_FALSE(hasRule(uninitTmemExplore(stored, 0).result, "data.uninitialized"));
}

// A loop empty because of a parameter counts as writing what its body
// writes (a degenerate size), unless an lm.assume bounds that parameter
// from below: then the schedule admits the size, and the loop writes
// nothing - for TMEM as for registers.
TEST(UninitializedTmem, AnAssumedLowerBoundAdmitsTheEmptyLoop) {
  EXPECT_EQ(uninitTmemExplore(kUninitTmemKLoop, 0).result.outcome, encoder::Outcome::Pass);
  EXPECT_EQ(uninitTmemExplore(kUninitTmemKLoop, 2).result.outcome, encoder::Outcome::Pass);
  const std::string admitted = replace(kUninitTmemKLoop, "    pool     = lm.smem", "    lm.assume(K >= 0)\n    pool     = lm.smem");
  UninitTmemRun r = uninitTmemExplore(admitted, 0);
  const encoder::Violation* v = find(r.result, "data.uninitialized");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(admitted, "lm.tmem_load(acc_r"));
  EXPECT_EQ(uninitTmemExplore(admitted, 1).result.outcome, encoder::Outcome::Pass) << rules(r.result);
  // registers: the K loop of kTwoTilesKLoop is the only writer of acc
  EXPECT_EQ(uninitTmemExplore(kTwoTilesKLoop, 0).result.outcome, encoder::Outcome::Pass);
  for (const char* bound : {"K >= 0", "0 <= K", "K == 0"}) {
    const std::string regs =
        replace(kTwoTilesKLoop, "    acc = lm.regs", std::string("    lm.assume(") + bound + ")\n    acc = lm.regs");
    UninitTmemRun g = uninitTmemExplore(regs, 0);
    const encoder::Violation* w = find(g.result, "data.uninitialized");
    ASSERT_NE(w, nullptr) << bound << "\n" << rules(g.result);
    EXPECT_EQ(primaryLine(g.sys, *w), lineOf(regs, "lm.copy(out, acc)"));
  }
  // an assumption that does not bound K from below admits nothing new
  const std::string other = replace(kTwoTilesKLoop, "    acc = lm.regs", "    lm.assume(K % 2 == 0)\n    acc = lm.regs");
  EXPECT_EQ(uninitTmemExplore(other, 0).result.outcome, encoder::Outcome::Pass);
}
