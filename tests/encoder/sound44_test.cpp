// Holes that helper sound44's attack on session 43's steps found
// (bench/attacks/sound44_mutants.py; docs/z3.md "Soundness review, session
// 44"), all in the global coordinates that name the block index:
//  * a row every access names as `32 * t - 1` or `t * lm.block_idx(1) - 1`
//    (t = lm.block_idx(0)) is clipped at 0 in block 0 only, and two warps'
//    race there from block 1 on exited 0 *checked*: the covering values
//    placed the coordinate at 0, which it never is (clippedCoordGoals), and
//    ran block 0 alone. Now every binding also runs with the block indices
//    moved so that every box of such a dimension is whole (wholeBoxes);
//  * a rest read with the wrong role's instances (neverClipped after the
//    walk): `t + 7 * (w == 0) - 2 * w` was read at w = 0 alone (never
//    clipped), and three warps' boxes that meet only from block 2 on exited
//    0 *checked* at block 0. Now each access's rest is read in its own role;
//  * a coordinate node owned in one tensor's dimension (`t` in B's rows) was
//    placed without the block index in another tensor's too (C's rows,
//    where another access names row 1): the proof's system read no block
//    index and missed block 1's race (the bounded check found it; the proof
//    alone said proved). Now a coordinate is owned where it is named.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "block_row.h"
#include "test_util.h"

using namespace cake;

namespace sound44_test {

// Two warps store a row of B at `at` (warp w its columns 32w..32w+31) and
// warp 0 loads the whole row, with a barrier between or none: a race
// wherever the row is not below 0 and rows > 32 (warp 1 stores).
std::string row(const std::string& at, bool sync) { return cake::testing::blockRow(at, at, sync); }

// Three warps, each storing 3 rows of B at ROW and loading them back, a
// fourth role walked last (one instance).
const std::string kThree = R"(@cake.schedule(target="sm_80")
def k(lm, A: LM.gmem, B: LM.gmem, rows: LM.i32):
    x = lm.regs(shape=(3, 32), dtype=lm.i32)
    y = lm.regs(shape=(3, 32), dtype=lm.i32)
    z = lm.regs(shape=(1, 32), dtype=lm.i32)
    warps = lm.role(warps=[0, 1, 2], group=1)
    idle = lm.role(warps=[3])
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        t = lm.block_idx(0)
        if 32 * w < rows:
            lm.copy(x, A, coords=(t, 0))
            lm.copy(B, x, coords=(t + 7 * (w == 0) - 2 * w, 0))
        SYNC
        lm.copy(y, B, coords=(t + 7 * (w == 0) - 2 * w, 0))
        lm.sync(block)
    with idle:
        lm.copy(z, A, coords=(0, 0))
)";

// B's rows all `t` (owned), C's rows `t` (load) and 1 (store).
const std::string kTwoTensors = R"(@cake.schedule(target="sm_80")
def k(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, rows: LM.i32):
    x = lm.regs(shape=(1, 32), dtype=lm.i32)
    y = lm.regs(shape=(1, 32), dtype=lm.i32)
    warps = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        t = lm.block_idx(0)
        lm.copy(x, A, coords=(t, 0))
        lm.copy(B, x, coords=(t, 32 * w))
        if w == 1:
            lm.copy(C, x, coords=(1, 0))
        SYNC
        if w == 0:
            lm.copy(y, B, coords=(t, 0))
            lm.copy(y, C, coords=(t, 0))
        lm.sync(block)
)";

void expectClean(const std::string& text, const char* what) {
  auto mod = cake::testing::compile(text);
  ASSERT_FALSE(mod.schedules.empty()) << what;
  const auto a = cake::testing::attacks::modelCheck(mod.schedules.at(0));
  EXPECT_TRUE(a.rules.empty()) << what << ": " << cake::testing::attacks::join(a.rules) << ": " << a.detail;
}

}  // namespace sound44_test

namespace s44 = sound44_test;

// Exit 0 *checked* on main (block 0 alone); found now, not proved. The twin
// with the barrier is clean. Cost: about 1 s user.
TEST(Sound44, ARowClippedAtZeroIsAlsoRunWhole) {
  using cake::testing::attacks::expectFoundNotProved;
  expectFoundNotProved(s44::row("32 * t - 1", false), "sync.race", "row 32t - 1");
  expectFoundNotProved(s44::row("t * lm.block_idx(1) - 1", false), "sync.race", "row t * b1 - 1");
  s44::expectClean(s44::row("32 * t - 1", true), "row 32t - 1 with the barrier");
}

// Exit 0 *checked* on main (the rest read at w = 0 alone); found now.
TEST(Sound44, AnInstanceRestIsReadInItsOwnRole) {
  using cake::testing::replace;
  cake::testing::attacks::expectFoundNotProved(replace(s44::kThree, "SYNC", "pass"), "sync.race",
                                               "rows 7, -2, -4 past t");
  s44::expectClean(replace(s44::kThree, "SYNC", "lm.sync(block)"), "rows 7, -2, -4 past t with the barrier");
}

// Proved by the proof alone on main (cake check found it); now not proved.
TEST(Sound44, ACoordinateIsOwnedOnlyWhereItIsNamed) {
  using cake::testing::replace;
  cake::testing::attacks::expectFoundNotProved(replace(s44::kTwoTensors, "SYNC", "pass"), "sync.race",
                                               "C's row 1 against its row t");
  s44::expectClean(replace(s44::kTwoTensors, "SYNC", "lm.sync(block)"), "the two tensors with the barrier");
}
