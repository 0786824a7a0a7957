// Holes found by the session-48 review (helper review48) in the bounded
// check's covering values; each broken schedule below exited 0 on main:
//  * a view whose *shape* reads a parameter grows into its neighbour, and
//    only view offsets counted: *proved* ("the synchronization does not
//    depend on the parameters");
//  * two views placed by a parameter meet only where a guard on another
//    parameter also holds, in a schedule without a symbolic loop: the
//    overlap was run from the base binding alone, *checked*;
//  * a guard that mixes a constant loop's variable with a parameter (`if t +
//    k != 779:`) was no goal, so `k` never ran where it flips: *checked*.
#include <gtest/gtest.h>

#include <string>

#include "model_check_run.h"

namespace review48_test {

using Outcome = cake::testing::CheckRun;
Outcome checkText(const std::string& text) { return cake::testing::runModelCheck(text, 3000); }

// Two warps refilling one TMA box each: `mid` at 102400 bytes, `mine` at
// MINE_OFFSET with MINE_ROWS rows; warp b's accesses under GUARD.
std::string slices(const std::string& params, const std::string& facts, const std::string& mine_offset,
                   const std::string& mine_rows, const std::string& guard) {
  const std::string pad = guard.empty() ? "" : "    ";
  const std::string head = guard.empty() ? "" : "            if " + guard + ":\n";
  return R"(@cake.schedule(target="sm_90a")
def slices(lm, Src: LM.tma2d, Dst: LM.tma2d, )" + params + R"():
)" + facts + R"(
    pool = lm.smem(205824)
    mid  = pool.view(offset=102400, shape=(4, 128), dtype=lm.bf16)
    mine = pool.view(offset=)" + mine_offset + ", shape=(" + mine_rows + R"(, 128), dtype=lm.bf16)
    a = lm.role(warps=[0])
    b = lm.role(warps=[1])
    ba = lm.barrier(count=1, prod=[a], cons=[a], init_count=1)
    bb = lm.barrier(count=1, prod=[b], cons=[b], init_count=1)
    with a:
        for t in lm.range(0, 2):
            mid.tma_load(Src, coords=(t * 4, 0), stage=0, barrier=ba)
            lm.wait(ba, stage=0)
            mid.tma_store(Dst, coords=(t * 4, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
    with b:
        for t in lm.range(0, 2):
)" + head + pad + R"(            mine.tma_load(Src, coords=(t * 4, 128), stage=0, barrier=bb)
)" + pad + R"(            lm.wait(bb, stage=0)
)" + pad + R"(            mine.tma_store(Dst, coords=(t * 4, 128), stage=0)
)" + pad + R"(            lm.tma_store_commit()
)" + pad + R"(            lm.tma_store_wait(pending=0)
)";
}

// Warp 1 writes a flag its warpgroup reads after a named barrier that
// every warp skips where GUARD fails: a race at those k only.
std::string flagGuard(const std::string& guard) { return cake::testing::flagGuardForm(guard, "100000"); }

}  // namespace review48_test

namespace rv48 = review48_test;

// `mine` of r rows from byte 0 reaches `mid` at 102400 from r = 401 rows
// on: run there, found (main: proved). Kept short of it by the facts, proved.
TEST(Review48, AViewWhoseShapeReadsAParameterRacesWhereItGrowsIntoItsNeighbour) {
  const std::string facts = "    lm.assume(r >= 1)\n    lm.assume(r <= 512)";
  rv48::Outcome bad = rv48::checkText(rv48::slices("r: LM.i32", facts, "0", "r", ""));
  EXPECT_TRUE(bad.found("sync.race"));
  const std::string apart = "    lm.assume(r >= 1)\n    lm.assume(r <= 400)";
  rv48::Outcome good = rv48::checkText(rv48::slices("r: LM.i32", apart, "0", "r", ""));
  EXPECT_TRUE(good.sink.findings().empty());
  ASSERT_EQ(good.verdicts.size(), 1u);
  EXPECT_EQ(good.verdicts[0].kind, cake::checks::VerdictKind::Proved) << good.verdicts[0].detail;
}

// The slices meet at off = 102400, where warp b runs only at g = 777; no
// symbolic loop combines the two: never exit 0 (main: checked).
TEST(Review48, ViewsThatMeetOnlyUnderAGuardOnAnotherParameterDoNotPass) {
  const std::string facts =
      "    lm.assume(g >= 0)\n    lm.assume(g <= 1000)\n    lm.assume(off >= 0)\n"
      "    lm.assume(off <= 204800)\n    lm.assume(off % 1024 == 0)";
  rv48::Outcome r = rv48::checkText(rv48::slices("g: LM.i32, off: LM.i32", facts, "off", "4", "g == 777"));
  EXPECT_FALSE(r.passes()) << (r.verdicts.empty() ? "" : r.verdicts[0].detail);
}

// Guards mixing the constant loop's t with k flip at k = 776..779 (or the
// residues the products give): each is found (main: checked, k in {1}).
TEST(Review48, AGuardMixingAConstantLoopWithAParameterIsAGoal) {
  for (const std::string guard : {"t + k != 779", "t * k != 777", "t * 2 != k", "(t * k) % 1009 != 777"}) {
    rv48::Outcome r = rv48::checkText(rv48::flagGuard(guard));
    EXPECT_TRUE(r.found("sync.race")) << guard << ": " << (r.verdicts.empty() ? "" : r.verdicts[0].detail);
  }
  // The barrier kept at every k: proved.
  rv48::Outcome good = rv48::checkText(rv48::flagGuard("t + k >= 0"));
  EXPECT_TRUE(good.sink.findings().empty());
}
