// data.uninitialized: register fragments read before their instance wrote
// them, and TMEM that no op writes for the checked sizes
// (docs/rules/data.uninitialized.md). Decided when the system is built;
// every engine reports it when the op runs.
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
using cake::testing::kMainloop;
using cake::testing::lineOf;
using cake::testing::primaryLine;
using cake::testing::replace;
using cake::testing::rules;

namespace {

struct UninitExplored {
  ir::Module mod;
  encoder::System sys;
  encoder::ModelCheckResult result;
};

UninitExplored exploreUninit(const std::string& text, int64_t k) {
  UninitExplored r;
  r.mod = compile(text);
  if (r.mod.schedules.empty()) return r;
  r.sys = build(r.mod.schedules[0], bind(r.mod.schedules[0], {{"K", k}}));
  r.result = encoder::explore(r.sys, {});
  return r;
}

// One warpgroup fills the accumulator in two column halves, the second in a
// loop that runs K times, then copies it out.
const std::string kHalves = R"(@cake.schedule(target="sm_90a")
def halves(lm, C: LM.gmem, K: LM.i32):
    acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    out = lm.regs(shape=(64, 64), dtype=lm.bf16)
    wg  = lm.role(warps=[0, 1, 2, 3])
    with wg:
        lm.fill(acc[:, 0:32], 0.0)
        for k in lm.range(0, K):
            lm.fill(acc[:, 32:64], 1.0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(0, 0))
)";


// The MMA warp multiplies one tile into TMEM only when K > 0 (a tile that
// skips its MMAs) and always commits acc_full; the epilogue copies TMEM
// out (a synchronous tcgen05.ld, which the z3-po engine encodes).
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
        lm.copy(acc_r, tmem_acc)
        lm.copy(C, acc_r, coords=(0, 0))
)";

// The same with a K loop of MMAs, init=(k == 0) (one tile buffer: checked
// at K <= 1).
const std::string kUninitTmemKLoop =
    replace(replace(kUninitTmemSkippedMma, "        if K > 0:\n",
                    "        for k in lm.range(0, K):\n"),
            "init=True", "init=(k == 0)");

}  // namespace

TEST(UninitializedRegs, SlicesCountElementByElement) {
  for (int64_t k : {1, 2}) {
    UninitExplored r = exploreUninit(kHalves, k);
    EXPECT_EQ(r.result.outcome, encoder::Outcome::Pass) << "K=" << k << "\n" << rules(r.result);
  }
  // the right half is never written
  const std::string none_text = replace(kHalves, "lm.fill(acc[:, 32:64], 1.0)", "lm.fill(out, 1.0)");
  UninitExplored none = exploreUninit(none_text, 1);
  const encoder::Violation* v = find(none.result, "data.uninitialized");
  ASSERT_NE(v, nullptr) << rules(none.result);
  EXPECT_EQ(primaryLine(none.sys, *v), lineOf(none_text, "lm.copy(out, acc)"));
  EXPECT_EQ(v->buffer, "acc element (0, 32)");
  EXPECT_EQ(none.result.violations.size(), 1u) << rules(none.result);
  // the left half alone, twice, still leaves the right half undefined
  const std::string left = replace(kHalves, "lm.fill(acc[:, 32:64], 1.0)", "lm.fill(acc[:, 0:32], 1.0)");
  EXPECT_TRUE(hasRule(exploreUninit(left, 2).result, "data.uninitialized"));
  // rows: the lower half of the rows written twice is not the upper half
  const std::string rows = replace(replace(kHalves, "acc[:, 0:32]", "acc[0:32, :]"), "acc[:, 32:64]", "acc[0:32, :]");
  UninitExplored lower = exploreUninit(rows, 2);
  const encoder::Violation* r = find(lower.result, "data.uninitialized");
  ASSERT_NE(r, nullptr) << rules(lower.result);
  EXPECT_EQ(r->buffer, "acc element (32, 0)");
}

TEST(UninitializedRegs, AnMmaWithoutInitAccumulatesIntoUndefinedRegisters) {
  for (int64_t k : {1, 2, 3}) {
    UninitExplored r = exploreUninit(kMainloop, k);
    EXPECT_EQ(r.result.outcome, encoder::Outcome::Pass) << "K=" << k << "\n" << rules(r.result);
  }
  const std::string late = replace(kMainloop, "init=(k == 0)", "init=(k == 1)");
  UninitExplored r = exploreUninit(late, 2);
  const encoder::Violation* v = find(r.result, "data.uninitialized");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(late, "lm.mma(acc"));
  EXPECT_NE(v->message.find("accumulates into acc element (0, 0)"), std::string::npos) << v->message;
  EXPECT_TRUE(v->others.empty());  // later MMAs add to acc: no "first written" note
  // the same read through the z3-po engine, replayed on the simulator
  encoder::PoResult z = encoder::poCheck(r.sys, {});
  EXPECT_FALSE(z.internal_error) << z.error;
  EXPECT_TRUE(hasRule(z.result, "data.uninitialized")) << rules(z.result);
}

// docs/semantics.md: a loop that runs no iteration (K = 0) counts as
// writing what its body writes, a degenerate problem size; the same
// schedule with K = 0 and the write missing from the body is reported.
TEST(UninitializedRegs, AnEmptyLoopCountsAsWritingWhatItsBodyWrites) {
  UninitExplored r = exploreUninit(kMainloop, 0);
  EXPECT_EQ(r.result.outcome, encoder::Outcome::Pass) << rules(r.result);
  EXPECT_EQ(exploreUninit(kHalves, 0).result.outcome, encoder::Outcome::Pass);
  const std::string other = replace(kHalves, "lm.fill(acc[:, 32:64], 1.0)", "lm.fill(out, 1.0)");
  EXPECT_TRUE(hasRule(exploreUninit(other, 0).result, "data.uninitialized"));
  // a loop empty whatever the sizes writes nothing: constant bounds, or an
  // outer loop's variable (the triangular loop's first row, i = 0)
  const std::string constant = replace(kHalves, "lm.range(0, K)", "lm.range(0, 0)");
  EXPECT_TRUE(hasRule(exploreUninit(constant, 4).result, "data.uninitialized"));
  const std::string triangular =
      replace(replace(kHalves, "        for k in lm.range(0, K):\n            lm.fill(acc[:, 32:64], 1.0)\n",
                      "        for i in lm.range(0, 2):\n            for k in lm.range(0, i):\n"
                      "                lm.fill(acc[:, 32:64], 1.0)\n            lm.copy(out, acc)\n"),
              "        lm.copy(out, acc)\n        lm.copy(C", "        lm.copy(C");
  UninitExplored t = exploreUninit(triangular, 4);
  const encoder::Violation* tri = find(t.result, "data.uninitialized");
  ASSERT_NE(tri, nullptr) << triangular;
  EXPECT_EQ(tri->buffer, "acc element (0, 32)");
  // an operand read's note points at the fragment's first write after it
  const std::string late = replace(kHalves, "        lm.copy(out, acc)\n", "");
  const std::string after = replace(late, "        lm.fill(acc[:, 0:32], 0.0)\n",
                                    "        lm.copy(out, acc)\n        lm.fill(acc[:, 0:32], 0.0)\n");
  UninitExplored p = exploreUninit(after, 1);
  const encoder::Violation* w = find(p.result, "data.uninitialized");
  ASSERT_NE(w, nullptr) << rules(p.result);
  EXPECT_EQ(w->buffer, "acc element (0, 0)");
  ASSERT_EQ(w->others.size(), 1u);
  EXPECT_EQ(p.sys.procs[w->others[0].proc].program[w->others[0].pc].stmt->op.range.line,
            lineOf(after, "lm.fill(acc[:, 0:32], 0.0)"));
}

TEST(UninitializedRegs, FragmentsArePrivateToEachInstance) {
  // instance 0 fills acc, instance 1 only reads it: another instance's
  // write does not count
  const std::string text = R"(@cake.schedule(target="sm_90a")
def private(lm, C: LM.gmem):
    acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    out = lm.regs(shape=(64, 64), dtype=lm.bf16)
    wgs = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=4)
    with wgs:
        if lm.instance() == 0:
            lm.fill(acc, 0.0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(64 * lm.instance(), 0))
)";
  UninitExplored r = exploreUninit(text, 0);
  const encoder::Violation* v = find(r.result, "data.uninitialized");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_NE(v->message.find("wgs[1]"), std::string::npos) << v->message;
}

// data.stale-accumulator: a tile loop whose MMA accumulates into the
// previous tile's stored result (docs/rules/data.stale-accumulator.md).
namespace {

// Two tiles per instance; acc reaches C through a converted copy `out`.
const std::string& kTiles = cake::testing::kTwoTilesKLoop;

}  // namespace

TEST(StaleAccumulator, AnMmaAddingToTheStoredTileIsReported) {
  for (int64_t k : {1, 2}) {
    UninitExplored r = exploreUninit(kTiles, k);
    EXPECT_EQ(r.result.outcome, encoder::Outcome::Pass) << "K=" << k << "\n" << rules(r.result);
  }
  // init= on the first tile only: tile 1 adds to tile 0's result, stored
  // through out
  const std::string first_only = replace(kTiles, "init=(k == 0)", "init=(t * K + k == 0)");
  UninitExplored r = exploreUninit(first_only, 2);
  const encoder::Violation* v = find(r.result, "data.stale-accumulator");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_FALSE(hasRule(r.result, "data.uninitialized"));
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(first_only, "lm.mma(acc"));
  EXPECT_EQ(v->buffer, "acc element (0, 0)");
  ASSERT_EQ(v->others.size(), 1u);  // the note points at the store
  EXPECT_EQ(r.sys.procs[v->others[0].proc].program[v->others[0].pc].stmt->op.range.line,
            lineOf(first_only, "lm.copy(C, out"));
  encoder::PoResult z = encoder::poCheck(r.sys, {});
  EXPECT_FALSE(z.internal_error) << z.error;
  EXPECT_TRUE(hasRule(z.result, "data.stale-accumulator")) << rules(z.result);
}

TEST(StaleAccumulator, AStateStoredInsideItsOwnLoopIsAScan) {
  // a chunked scan: h += x per chunk, and h stored every chunk (each store
  // is a prefix, and accumulating on is the point)
  const std::string scan = replace(replace(kTiles, "            for k in lm.range(0, K):\n                lm.mma(acc, fa, fb, init=(k == 0))\n",
                                           "            lm.mma(acc, fa, fb, init=(t == 0))\n"),
                                   "lm.range(0, 2)", "lm.range(0, K)");
  ASSERT_NE(scan, kTiles);
  for (int64_t k : {1, 3}) {
    UninitExplored r = exploreUninit(scan, k);
    EXPECT_FALSE(hasRule(r.result, "data.stale-accumulator")) << "K=" << k << "\n" << rules(r.result);
  }
  // the same scan with its state reduced over an inner loop and stored
  // after it: a finished tile accumulated into again
  const std::string inner = replace(kTiles, "init=(k == 0)", "init=(t + k == 0)");
  EXPECT_TRUE(hasRule(exploreUninit(inner, 2).result, "data.stale-accumulator"));
}

TEST(StaleAccumulator, AnyOverwriteBetweenStoreAndMmaClearsIt) {
  const std::string first_only = replace(kTiles, "init=(k == 0)", "init=(t * K + k == 0)");
  // a fill per tile, or a rescale in place (exp(-inf) = 0 may restart it)
  for (const char* reset : {"lm.fill(acc, 0.0)", "lm.binary(acc, acc, fa, op=\"mul\")"}) {
    const std::string text =
        replace(first_only, "            for k in lm.range(0, K):\n",
                std::string("            ") + reset + "\n            for k in lm.range(0, K):\n");
    UninitExplored r = exploreUninit(text, 2);
    EXPECT_FALSE(hasRule(r.result, "data.stale-accumulator")) << reset << "\n" << rules(r.result);
  }
  // out overwritten after the copy: storing it no longer stores acc
  const std::string later = replace(first_only, "            lm.copy(C, out",
                                    "            lm.fill(out, 0.0)\n            lm.copy(C, out");
  EXPECT_FALSE(hasRule(exploreUninit(later, 2).result, "data.stale-accumulator"));
  // a slice: the stored half is the one accumulated into again
  const std::string half = replace(replace(first_only, "lm.copy(out, acc)", "lm.copy(out[:, 0:64], acc[:, 64:128])"),
                                   "lm.copy(C, out, coords=(128 * t, 0))", "lm.copy(C, out[:, 0:64], coords=(128 * t, 0))");
  UninitExplored h = exploreUninit(half, 2);
  const encoder::Violation* v = find(h.result, "data.stale-accumulator");
  ASSERT_NE(v, nullptr) << rules(h.result);
  EXPECT_EQ(v->buffer, "acc element (0, 64)");
}

TEST(UninitializedTmem, AReadOfTmemNoOpWritesForTheseSizesIsReported) {
  UninitExplored ok = exploreUninit(kUninitTmemSkippedMma, 1);
  EXPECT_EQ(ok.result.outcome, encoder::Outcome::Pass) << rules(ok.result);
  UninitExplored r = exploreUninit(kUninitTmemSkippedMma, 0);
  const encoder::Violation* v = find(r.result, "data.uninitialized");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(kUninitTmemSkippedMma, "lm.copy(acc_r, tmem_acc)"));
  EXPECT_EQ(v->buffer, "tmem_acc lanes [0, 32) columns [0, 128)");
  EXPECT_NE(v->message.find("reads tmem_acc lanes [0, 32) columns [0, 128), which no op has written yet"),
            std::string::npos)
      << v->message;
  // the same read through the z3-po engine
  encoder::PoResult z = encoder::poCheck(r.sys, {});
  EXPECT_FALSE(z.internal_error) << z.error;
  EXPECT_TRUE(hasRule(z.result, "data.uninitialized")) << rules(z.result);
  // a copy into TMEM (tcgen05.st) defines the region: no data.uninitialized
  const std::string stored =
      replace(kUninitTmemSkippedMma, "        lm.wait(acc_full)\n",
              "        lm.fill(acc_r, 0.0)\n        lm.copy(tmem_acc, acc_r)\n"
              "        lm.wait(acc_full)\n");
  EXPECT_FALSE(hasRule(exploreUninit(stored, 0).result, "data.uninitialized"));
}

// A loop empty because of a parameter counts as writing what its body
// writes (a degenerate size), unless an lm.assume bounds that parameter
// from below: then the schedule admits the size, and the loop writes
// nothing - for TMEM as for registers.
TEST(UninitializedTmem, AnAssumedLowerBoundAdmitsTheEmptyLoop) {
  EXPECT_EQ(exploreUninit(kUninitTmemKLoop, 0).result.outcome, encoder::Outcome::Pass);
  EXPECT_EQ(exploreUninit(kUninitTmemKLoop, 1).result.outcome, encoder::Outcome::Pass);
  const std::string admitted = replace(kUninitTmemKLoop, "    pool     = lm.smem", "    lm.assume(K >= 0)\n    pool     = lm.smem");
  UninitExplored r = exploreUninit(admitted, 0);
  const encoder::Violation* v = find(r.result, "data.uninitialized");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(admitted, "lm.copy(acc_r, tmem_acc)"));
  EXPECT_EQ(exploreUninit(admitted, 1).result.outcome, encoder::Outcome::Pass) << rules(r.result);
  // registers: the K loop of kTiles is the only writer of acc
  EXPECT_EQ(exploreUninit(kTiles, 0).result.outcome, encoder::Outcome::Pass);
  for (const char* bound : {"K >= 0", "0 <= K", "K == 0"}) {
    const std::string regs =
        replace(kTiles, "    acc = lm.regs", std::string("    lm.assume(") + bound + ")\n    acc = lm.regs");
    UninitExplored g = exploreUninit(regs, 0);
    const encoder::Violation* w = find(g.result, "data.uninitialized");
    ASSERT_NE(w, nullptr) << bound << "\n" << rules(g.result);
    EXPECT_EQ(primaryLine(g.sys, *w), lineOf(regs, "lm.copy(out, acc)"));
  }
  // an assumption that does not bound K from below admits nothing new
  const std::string other = replace(kTiles, "    acc = lm.regs", "    lm.assume(K % 2 == 0)\n    acc = lm.regs");
  EXPECT_EQ(exploreUninit(other, 0).result.outcome, encoder::Outcome::Pass);
}
