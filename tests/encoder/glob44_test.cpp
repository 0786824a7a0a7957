// A global tensor read and written at coordinates that move with a loop
// (docs/z3.md "A global tensor's rows per loop iteration", helper glob44,
// session 44; hunt44's minimal form in docs/known-limits.md): where the
// accesses of different loop values never share an element, a proof's build
// places them with the loop term at 0, and the in-place update is proved.
// Broken twins whose loop values meet (a row the next iteration reads, a box
// wider than the loop's step, a row clipped at 0, a row every iteration
// touches, a coordinate of two loop variables) or whose one iteration races
// are found by `cake check` and not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "encoder/loop_coords.h"
#include "test_util.h"

using namespace cake;

namespace glob44_test {

// Two warps each load their tile of X at READ, a barrier (SYNC), store a
// tile at WRITE; ROWS: the tile's rows.
const std::string kInPlace = R"(@cake.schedule(target="sm_80")
def k(lm, X: LM.gmem, n: LM.i32):
    lm.assume(n >= 1)
    r = lm.regs(shape=(ROWS, 32), dtype=lm.f32)
    warps = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        t = lm.block_idx(0)
        for p in lm.range(0, n):
            lm.copy(r, X, coords=READ)
            SYNC
            lm.copy(X, r, coords=WRITE)
)";

std::string inPlace(const std::string& read, const std::string& write, bool sync, int rows = 1) {
  using cake::testing::replace;
  std::string t = replace(kInPlace, "READ", read);
  t = replace(t, "WRITE", write);
  t = replace(t, "ROWS", std::to_string(rows));
  return replace(t, "SYNC", sync ? "lm.sync(block)" : "pass");
}

// How many coordinates a proof's build places without their loop term.
size_t foldedCoords(const std::string& text) {
  auto mod = cake::testing::compile(text);
  return mod.schedules.empty() ? 0 : encoder::loopOwnedCoords(mod.schedules.at(0), 62).size();
}

}  // namespace glob44_test

// The loop term: one variable times constants, beside constants and the
// instance; none for two loop variables, a parameter or a block index in
// the coordinate, or a non-linear use of the variable.
TEST(Glob44, TheLoopTermIsOneVariableTimesConstants) {
  using ir::ExprKind;
  const ir::ExprPtr p = ir::makeExpr(ExprKind::LoopVar, {});
  ir::Expr q_node;
  q_node.kind = ExprKind::LoopVar;
  q_node.index = 1;
  const ir::ExprPtr q = std::make_shared<const ir::Expr>(q_node);
  const ir::ExprPtr w = ir::makeExpr(ExprKind::Instance, {});
  const ir::ExprPtr n = ir::makeExpr(ExprKind::Param, {});
  const ir::ExprPtr p64 = ir::makeExpr(ExprKind::Mul, {ir::makeConst(64), p});
  const ir::ExprPtr rest = ir::makeExpr(ExprKind::Mul, {ir::makeConst(32), w});
  auto term = [](const ir::ExprPtr& e) { return encoder::loopTermOf(e); };
  EXPECT_EQ(term(ir::makeExpr(ExprKind::Add, {p64, rest})), p64.get());
  EXPECT_EQ(term(ir::makeExpr(ExprKind::Sub, {p, ir::makeConst(1)})), p.get());  // clipped: loopOwnedCoords' check
  EXPECT_EQ(term(rest), nullptr);                                                // no loop variable
  EXPECT_EQ(term(ir::makeExpr(ExprKind::Add, {p, q})), nullptr);
  EXPECT_EQ(term(ir::makeExpr(ExprKind::Add, {p, n})), nullptr);
  EXPECT_EQ(term(ir::makeExpr(ExprKind::Mul, {p, n})), nullptr);
  EXPECT_EQ(term(ir::makeExpr(ExprKind::Mod, {p, ir::makeConst(2)})), nullptr);
  EXPECT_EQ(term(ir::makeExpr(ExprKind::Add, {p, ir::makeExpr(ExprKind::BlockIdx, {})})), nullptr);
  EXPECT_EQ(term(ir::makeExpr(ExprKind::Mul, {p, ir::makeConst(0)})), nullptr);
}

// hunt44's minimal form (docs/known-limits.md): "no steady period within
// 192 unrolled iterations" before, proved now; and realistic variants: the
// halves of a 64-column chunk per iteration swapped between the warps (a
// store the other warp's next load would meet were the iterations not kept
// apart), the block's own row chunked by the loop (a block term and a loop
// term in one tensor), two-row tiles at rows 2p + 1.
TEST(Glob44, RowsThatMoveWithTheLoopAreProved) {
  using glob44_test::inPlace;
  const std::string minimal = inPlace("(p, 32 * w)", "(p, 32 * w)", true);
  EXPECT_EQ(glob44_test::foldedCoords(minimal), 2u);
  cake::testing::attacks::expectCheckedAndProved(minimal, "hunt44's minimal form");
  cake::testing::attacks::expectCheckedAndProved(inPlace("(0, 64 * p + 32 * w)", "(0, 64 * p + 32 * (1 - w))", true),
                            "the halves of a 64-column chunk swapped");
  cake::testing::attacks::expectCheckedAndProved(inPlace("(t, 64 * p + 32 * w)", "(t, 64 * p + 32 * w)", true),
                            "the block's row, chunked by the loop");
  cake::testing::attacks::expectCheckedAndProved(inPlace("(2 * p + 1, 32 * w)", "(2 * p + 1, 32 * w)", true, 2),
                            "two-row tiles two rows apart");
}

// A per-row reduction: each warp stores its partial beside the row, a
// barrier, warp 0 loads both partials and stores the row; no barrier at
// the end of the iteration (the next iteration's stores go to the next
// row). Without the barrier: found, not proved.
const std::string kRowReduction = R"(@cake.schedule(target="sm_80")
def k(lm, X: LM.gmem, n: LM.i32):
    lm.assume(n >= 1)
    r = lm.regs(shape=(1, 32), dtype=lm.f32)
    y = lm.regs(shape=(1, 64), dtype=lm.f32)
    warps = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        for p in lm.range(0, n):
            lm.copy(r, X, coords=(p, 32 * w))
            lm.copy(X, r, coords=(p, 64 + 32 * w))
            SYNC
            if w == 0:
                lm.copy(y, X, coords=(p, 64))
                lm.copy(X, y, coords=(p, 0))
)";

TEST(Glob44, APerRowReductionIsProvedItsTwinFound) {
  using cake::testing::replace;
  cake::testing::attacks::expectCheckedAndProved(replace(kRowReduction, "SYNC", "lm.sync(block)"), "a per-row reduction");
  cake::testing::attacks::expectFoundNotProved(replace(kRowReduction, "SYNC", "pass"), "sync.race",
                                              "a per-row reduction without its barrier");
}

// Broken twins: each races at some n >= 1; the bounded check finds it and
// nothing proves it.
TEST(Glob44, TwinsWhoseLoopValuesMeetAreFoundNotProved) {
  struct Twin {
    const char *read, *write;
    bool sync;
    int rows;
    size_t folded;  // coordinates a proof's build folds
    const char* what;
  };
  const Twin twins[] = {
      // iteration p stores row p + 1, which the other warp loads in
      // iteration p + 1 before that iteration's barrier
      {"(p, 32 * w)", "(p + 1, 32 - 32 * w)", true, 1, 0, "row p + 1 stored for the next iteration"},
      // every box at row p - 1: the first iteration's clipped; the warps
      // race in every later one (no barrier)
      {"(p - 1, 32 * w)", "(p - 1, 32 - 32 * w)", false, 1, 0, "row p - 1, no barrier"},
      // a row that depends on the instance: warp 1's row p + 1 is warp 0's
      // next row (hunt44's counterexample to the fold without disjointness)
      {"(p + w, 0)", "(p + w, 0)", true, 1, 0, "row p + w"},
      // two-row tiles with the step 1: rows p + 2 and p + 3, stored by the
      // other warp in iteration p, meet rows p + 1 and p + 2 that iteration
      // p + 1 loads (the tiles of one iteration do not meet)
      {"(p, 32 * w)", "(p + 2, 32 - 32 * w)", true, 2, 0, "a two-row box with step 1"},
      // row 0 loaded every iteration, row p stored: iteration 0's store
      // meets iteration 1's load
      {"(0, 32 * w)", "(p, 32 - 32 * w)", true, 1, 0, "row 0 loaded, row p stored"},
      // one iteration races (no barrier): kept by the fold
      {"(p, 32 * w)", "(p, 32 - 32 * w)", false, 1, 2, "the minimal form without its barrier, halves swapped"},
  };
  for (const Twin& t : twins) {
    const std::string text = glob44_test::inPlace(t.read, t.write, t.sync, t.rows);
    EXPECT_EQ(glob44_test::foldedCoords(text), t.folded) << t.what;
    cake::testing::attacks::expectFoundNotProved(text, "sync.race", t.what);
  }
}

// One loop variable, two tensors: X's accesses qualify, Y's (row p + 1
// stored for the next iteration) do not. The coordinate `p` is one node in
// both; the fold is keyed by the op's coordinate slot, so Y's row p is
// not folded while its row p + 1 is not: the race stays found.
TEST(Glob44, AnotherTensorAtTheSameLoopVariableIsNotFolded) {
  const std::string text = R"(@cake.schedule(target="sm_80")
def k(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
    lm.assume(n >= 1)
    r = lm.regs(shape=(1, 32), dtype=lm.f32)
    warps = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        for p in lm.range(0, n):
            lm.copy(r, X, coords=(p, 32 * w))
            lm.copy(r, Y, coords=(p, 32 * w))
            lm.sync(block)
            lm.copy(X, r, coords=(p, 32 * w))
            lm.copy(Y, r, coords=(p + 1, 32 - 32 * w))
)";
  EXPECT_EQ(glob44_test::foldedCoords(text), 2u);  // X's row p only
  cake::testing::attacks::expectFoundNotProved(text, "sync.race", "Y's row p + 1 beside X's row p");
}

// Two loop variables: a coordinate that adds them is never folded; a load
// at the outer variable's row and a store at the inner one's are folded
// (loop values, not loops, are what moves a box) and their race kept.
TEST(Glob44, TwinsWithTwoLoopVariablesAreFoundNotProved) {
  using cake::testing::attacks::expectFoundNotProved;
  using cake::testing::replace;
  std::string nested = replace(glob44_test::kInPlace, "        for p in lm.range(0, n):\n",
                               "        for p in lm.range(0, n):\n          for q in lm.range(0, 2):\n");
  nested = replace(nested, "            lm.copy(r, X", "              lm.copy(r, X");
  nested = replace(nested, "            SYNC", "              SYNC");
  nested = replace(nested, "            lm.copy(X, r", "              lm.copy(X, r");
  using glob44_test::foldedCoords;
  const std::string sum_nested = replace(replace(replace(nested, "READ", "(p + q, 32 * w)"), "WRITE",
                                                 "(p + q, 32 - 32 * w)"), "SYNC", "lm.sync(block)");
  const std::string sum_nested_rows = replace(sum_nested, "ROWS", "1");
  EXPECT_EQ(foldedCoords(sum_nested_rows), 0u);
  expectFoundNotProved(sum_nested_rows, "sync.race", "row p + q");
  const std::string apart = replace(replace(replace(replace(nested, "READ", "(p, 32 * w)"), "WRITE",
                                                    "(q, 32 - 32 * w)"), "SYNC", "lm.sync(block)"), "ROWS", "1");
  EXPECT_EQ(foldedCoords(apart), 2u);
  expectFoundNotProved(apart, "sync.race", "row p loaded, row q stored");
}
