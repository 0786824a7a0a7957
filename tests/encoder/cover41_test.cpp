// The bounded check's reach past session 40 (helper cover41, session 41;
// docs/known-limits.md "Two knobs together, pairs of guard outcomes, a
// loop's last box"): broken schedules that exited 0 *checked* on main
// because no covering value reached their bug (each named in the verdict's
// `unreached`), each with a fixed twin that must stay clean:
//  * a far event that no one knob places (`(k * T * U) // 6400`, T and U
//    at most 10): two knobs are moved together (BindingSearch::knobPairs);
//  * a table short on block 3 only where also `P <= 1` (a nested guard):
//    every pair of two guards' outcomes meets the far trip counts
//    (BindingSearch::vectorBases);
//  * a global box that meets a moving one only at a later iteration of
//    its loop (`d` with d >= 128 against `32 * k`; `d + 260` against `64 *
//    k + d`): placed at the loop's last iteration (GoalCollector::lastPlaces).
#include <gtest/gtest.h>

#include <string>

#include "attack_pair.h"
#include "attack_util.h"
#include "test_util.h"

using namespace cake;
using namespace cake::testing::pairs;

namespace cover41_test {

// The 2-slot ring with two knobs T, U in [0, 10] that change nothing else.
const std::string& twoKnobRing() {
  static const std::string text =
      edited(cake::testing::wsRingSchedule(2, {.name = "mainloop", .assume_k_positive = true, .epilogue = true}),
             {{"K: LM.i32):\n", "K: LM.i32, T: LM.i32, U: LM.i32):\n    lm.assume(T >= 0)\n    lm.assume(T <= 10)\n"
                                "    lm.assume(U >= 0)\n    lm.assume(U <= 10)\n"}});
  return text;
}

// Two warps read one column of a 64-column table per K step; warp 0 writes
// the table, its last column not on block 3 where `inner` holds in the
// broken form. Guards on P and Q before it change nothing the table needs.
std::string nestedVectors(const std::string& inner, bool broken) {
  return R"(@cake.schedule(target="sm_80")
def nested_vectors(lm, Out: LM.gmem, K: LM.i32, P: LM.i32, Q: LM.i32):
    lm.assume(K >= 1)
    lm.assume(K <= 64)
    lm.assume(P >= 0)
    lm.assume(Q >= 0)
    pool  = lm.smem(1024)
    tab   = pool.view(offset=0, shape=(1, 64), dtype=lm.i32, stages=1)
    v     = lm.regs(shape=(1, 64), dtype=lm.i32)
    x     = lm.regs(shape=(1, 1), dtype=lm.i32)
    warps = lm.role(warps=[0, 1], group=1)
    cta   = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        if P > 1:
            lm.sync(cta)
        if Q > 1:
            lm.sync(cta)
        if P > Q:
            lm.sync(cta)
        if w == 0:
            lm.fill(v, 1)
            if lm.block_idx(0) != 3:
                lm.copy(tab[0], v)
            else:
                if )" + inner + R"(:
                    )" + (broken ? "lm.copy(tab[0][:, 0:63], v[:, 0:63])" : "lm.copy(tab[0], v)") + R"(
                else:
                    lm.copy(tab[0], v)
        lm.sync(cta)
        for k in lm.range(0, K):
            lm.copy(x, tab[0][:, k:k + 1])
            lm.copy(Out, x, coords=(k, w))
)";
}

// A writer stores one element of T at column `col` (row `row`: 0 in the
// broken form, 1 in the fixed one) while a reader loads a 32-column box of
// row 0 at `read` on each of K iterations, with no barrier between them.
std::string laterBoxes(const std::string& least_d, const std::string& col, const std::string& read, int row) {
  return R"(@cake.schedule(target="sm_90a")
def later_boxes(lm, T: LM.gmem, d: LM.i32, K: LM.i32):
    lm.assume(d >= )" + least_d + R"()
    lm.assume(d < 256)
    zero = lm.regs(shape=(1, 1), dtype=lm.f32)
    prob = lm.regs(shape=(1, 32), dtype=lm.f32)
    writer = lm.role(warps=[0])
    reader = lm.role(warps=[1])
    with writer:
        lm.fill(zero, 0.0)
        lm.copy(T, zero, coords=()" + std::to_string(row) + ", " + col + R"())
    with reader:
        for k in lm.range(0, K):
            lm.copy(prob, T, coords=(0, )" + read + R"())
)";
}

}  // namespace cover41_test

namespace c41 = cover41_test;

// `(k * T * U) // 6400` steps only where T * U > 12 (at k = 6400 / (T * U)):
// at the base (T = U = 1) past the cap, and no one knob moved from there
// brings it within. The fixed twin reads the same part where it changes
// nothing (`init=`), and is proved. Cost: 1.2 s.
TEST(Cover41, EventTwoKnobsPlaceTogether) {
  expectPair("wait at k - (k * T * U) // 6400",
             edited(c41::twoKnobRing(), {{"lm.wait(full, iter=k)", "lm.wait(full, iter=k - (k * T * U) // 6400)"}}),
             "data.stale-read",
             edited(c41::twoKnobRing(), {{"init=(k == 0)", "init=(k + (k * T * U) // 6400 == 0)"}}));
}

// Block 3 writes the table short only where also `P <= 1` (or `Q > 1`, or
// `P <= Q`): a pair of outcomes of two guards that no far base gave
// together (main ran K = 64 on block 3 only with P = 2, Q = 1). The fixed
// twins are proved. Cost: 0.8 s.
TEST(Cover41, PairsOfGuardOutcomesMeetTheFarTrips) {
  for (const char* inner : {"P <= 1", "Q > 1", "P <= Q"})
    expectPair(std::string("block 3's band one column short where ") + inner, c41::nestedVectors(inner, true),
               "data.stale-read", c41::nestedVectors(inner, false));
}

// The reader's box at `32 * k` meets the store at `d` (d >= 128) only from
// k = 4 on, and the one at `64 * k + d` meets `d + 260` only at k = 4
// (whatever d): both are placed at the loop's last iteration (K = 5). The
// fixed twins store to row 1; the iterations between the first and the
// last stay listed as unreached. Cost: 1.0 s.
TEST(Cover41, MovingBoxesMeetAtALoopsLastIteration) {
  using cake::testing::attacks::expectFoundNotProved;
  using cake::testing::attacks::expectNoSyncFinding;
  expectFoundNotProved(c41::laterBoxes("128", "d", "32 * k", 0), "sync.race", "d >= 128 against 32 * k");
  expectNoSyncFinding(c41::laterBoxes("128", "d", "32 * k", 1), "d >= 128 on row 1");
  expectFoundNotProved(c41::laterBoxes("0", "d + 260", "64 * k + d", 0), "sync.race", "d + 260 against 64 * k + d");
  expectNoSyncFinding(c41::laterBoxes("0", "d + 260", "64 * k + d", 1), "d + 260 on row 1");
}
