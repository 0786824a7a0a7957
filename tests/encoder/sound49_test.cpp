// Session 49's soundness review (helper sound49, docs/z3.md "Soundness
// review, session 49"): broken schedules aimed at the paths session 48
// added. Two holes of the bounded check's covering values, each a broken
// schedule that exited 0 *checked* on main:
// * a slot operand that reads a parameter (`buf[N]`) names slot N % S, and
//   the operand's targets (0, 1, 2, S-1, S, S+1, 2S, 2S+1) give residues 0,
//   1, 2 and S - 1 only, and only where the operand reaches them with a
//   unit step: a write of `buf[N]` racing a read of `buf[4]` of an 8-stage
//   ring was never run at N = 4 (GoalCollector::residueGoals);
// * a slice bound that reads a parameter moves the access into another
//   view's bytes (`va[0][:, 0:S]` at byte 1808 reaches the view at 2048 from
//   S = 61 on): the covering values placed crossings of one view's slices
//   only and ran S in {1,2,3} (GoalCollector::sliceEdgesInThePool);
// * a guard on a parameter and the variable of a loop past 64 values, or
//   of one bounded by lm.instance() (`if t + k == 779:` in `for t in
//   lm.range(0, 100)`), was no goal: k ran at 1 alone
//   (GoalCollector::unlistedLoopGuard);
// * a parameter at its greatest allowed value: findPattern's chunks
//   counted `141 - hit` under `hit <= 140` run one chunk only at hit = 140,
//   which no covering value took (BindingSearch::extremeValues).
#include <gtest/gtest.h>

#include <string>

#include "checks/model_check.h"
#include "cover_kernels.h"
#include "find_pattern_form.h"
#include "test_util.h"

using cake::testing::replace;

namespace sound49_test {

// Two warps: warp 0 stages a slot of `buf` (`stages` deep) and both meet at
// a barrier; warp 1 then reads slot `read` while warp 0 writes slot `write`
// (WRITE: the statement, so a loop can stand there), N in [1, 4096].
std::string slotRace(int stages, const std::string& read, const std::string& write) {
  std::string text = R"(@cake.schedule(target="sm_80")
def slots(lm, Data: LM.gmem, Out: LM.gmem, N: LM.i32):
    lm.assume(N >= 1)
    lm.assume(N <= 4096)
    pool = lm.smem(POOL)
    buf  = pool.view(offset=0, shape=(1, 64), dtype=lm.f32, stages=STAGES)
    r    = lm.regs(shape=(1, 64), dtype=lm.f32)
    ws   = lm.role(warps=[0, 1], group=1)
    nb   = lm.named_barrier(roles=[ws])
    with ws:
        w = lm.instance()
        if w == 0:
            lm.copy(r, Data, coords=(0, 0))
            lm.copy(buf[READ], r)
        lm.sync(nb)
        if w == 1:
            lm.copy(r, buf[READ])
            lm.copy(Out, r, coords=(0, 0))
        if w == 0:
WRITE)";
  text = replace(text, "POOL", std::to_string(256 * stages));
  text = replace(text, "STAGES", std::to_string(stages));
  text = replace(text, "READ", read);
  text = replace(text, "READ", read);
  return replace(text, "WRITE", write);
}
std::string writeSlot(const std::string& slot) { return "            lm.copy(buf[" + slot + "], r)\n"; }

// Two views of one pool: warp 1 stages `vb` (at byte 2048) and reads it
// after the barrier; warp 0 writes the first S floats of `va` (at byte
// `va_at`, 256 floats) after it too (or, `synced`, after a second barrier).
// `facts`: the lm.assume lines beside S's range.
std::string sliceReach(const std::string& va_at, const std::string& params, const std::string& facts, bool synced) {
  return R"(@cake.schedule(target="sm_80")
def views(lm, Data: LM.gmem, Out: LM.gmem, )" + params + R"(S: LM.i32):
)" + facts + R"(    lm.assume(S >= 1)
    lm.assume(S <= 64)
    pool = lm.smem(4096)
    va   = pool.view(offset=)" + va_at + R"(, shape=(1, 256), dtype=lm.f32)
    vb   = pool.view(offset=2048, shape=(1, 256), dtype=lm.f32)
    r    = lm.regs(shape=(1, 256), dtype=lm.f32)
    ws   = lm.role(warps=[0, 1], group=1)
    nb   = lm.named_barrier(roles=[ws])
    with ws:
        w = lm.instance()
        if w == 1:
            lm.copy(r, Data, coords=(0, 0))
            lm.copy(vb[0], r)
        lm.sync(nb)
        if w == 1:
            lm.copy(r, vb[0])
            lm.copy(Out, r, coords=(0, 0))
)" + (synced ? "        lm.sync(nb)\n" : "") +
         R"(        if w == 0:
            lm.copy(r[:, 0:S], Data, coords=(1, 0))
            lm.copy(va[0][:, 0:S], r[:, 0:S])
)";
}

// The slot race's write under `if GUARD:` inside `for t in lm.range(RANGE):`.
std::string guardedInLoop(const std::string& range, const std::string& guard, const std::string& slot) {
  return replace(replace(slotRace(4, "0",
                                  "            for t in lm.range(" + range + "):\n                if " + guard +
                                      ":\n                    lm.copy(buf[" + slot + "], r)\n"),
                         "N: LM.i32", "k: LM.i32"),
                 "    lm.assume(N >= 1)\n    lm.assume(N <= 4096)\n", "    lm.assume(k >= 0)\n    lm.assume(k <= 4096)\n");
}

void expectRace(const std::string& text, const char* what) {
  const cake::testing::cover::BoundedVerdict v = cake::testing::cover::boundedVerdict(text);
  EXPECT_TRUE(v.rules.count("sync.race")) << "UNSOUND: " << what << " is not found:\n" << text;
}
void expectCleanAndChecked(const std::string& text, const char* what) {
  const cake::testing::cover::BoundedVerdict v = cake::testing::cover::boundedVerdict(text);
  EXPECT_TRUE(v.rules.empty() && !v.unknown) << what << ": a correct twin is no longer clean and checked:\n" << text;
}

}  // namespace sound49_test

namespace s49 = sound49_test;

// A write of slot `e` racing a read of slot r: met only where e % S == r.
// Main ran N in {1,7,8,9,16,17} for `buf[N]` (8 stages) and {1,2,3,6,7} for
// `buf[N + 2]` (4 stages) and exited 0 *checked* on every broken form.
TEST(Sound49, ASlotAtEveryResidueOfItsRingIsRun) {
  s49::expectRace(s49::slotRace(8, "4", s49::writeSlot("N")), "buf[N] against buf[4] of 8 stages (N = 4)");
  s49::expectRace(s49::slotRace(8, "4", s49::writeSlot("3 * N")), "buf[3 * N] against buf[4] of 8 stages (N = 4)");
  s49::expectRace(s49::slotRace(4, "2", s49::writeSlot("N + 2")), "buf[N + 2] against buf[2] of 4 stages (N = 4)");
  s49::expectRace(s49::slotRace(4, "0", s49::writeSlot("N + 12289")), "buf[N + 12289] against buf[0] (N = 3)");
  s49::expectRace(s49::slotRace(8, "5", "            for k in lm.range(0, 2):\n                lm.copy(buf[k + N + 1], r)\n"),
                  "buf[k + N + 1], k < 2, against buf[5] of 8 stages (N = 3, 4)");
  // (odd slots of an 8-stage ring never meet slot 4)
  s49::expectCleanAndChecked(s49::slotRace(8, "4", s49::writeSlot("2 * N + 1")), "buf[2 * N + 1] against buf[4]");
}

// A slice `0:S` of a view at byte 1808 reaches the view at 2048 from S = 61
// on (S <= 64; main: S in {1,2,3}); with the view placed by a parameter
// too, only at its greatest allowed offset (2032) and S >= 5 (main: off in
// {0,1056}, S in {1,2,3}). The correct twins (a barrier before the write)
// run the crossing and stay clean and checked.
TEST(Sound49, ASliceThatReachesAnotherViewIsRun) {
  s49::expectRace(s49::sliceReach("1808", "", "", false), "va[0][:, 0:S] at 1808 reaching vb at 2048 (S = 61)");
  const std::string off = "    lm.assume(off >= 0)\n    lm.assume(off <= 2032)\n    lm.assume(off % 16 == 0)\n";
  s49::expectRace(s49::sliceReach("off", "off: LM.i32, ", off, false),
                  "va placed at off <= 2032, its slice reaching vb at off = 2032, S >= 5");
  s49::expectCleanAndChecked(s49::sliceReach("1808", "", "", true), "the slice written after a second barrier");
}

// A guard on `k` and the variable of a loop main did not list (past 64
// values, or bounded by lm.instance()): main ran k = 1 alone and exited 0
// *checked*. Now its copies per value are goals (the first and last past
// 64 values, and the verdict names it: a correct twin there is unknown,
// never *checked*; one bounded by lm.instance() stays checked).
TEST(Sound49, AGuardOnAnUnlistedLoopsVariableIsPlaced) {
  s49::expectRace(s49::guardedInLoop("0, 100", "t + k == 779", "0"), "t + k == 779 over 100 values (k = 680..779)");
  s49::expectRace(s49::guardedInLoop("0, 200, 3", "t + k == 779", "0"), "t + k == 779 over 67 values");
  s49::expectRace(s49::guardedInLoop("0, (1 - lm.instance()) * 100", "t + k == 779", "0"),
                  "t + k == 779 over a loop bounded by lm.instance()");
  s49::expectRace(s49::guardedInLoop("0, lm.instance() + 3", "t * 100 + k == 779", "0"),
                  "t * 100 + k == 779 over a short loop bounded by lm.instance()");
  namespace cover = cake::testing::cover;
  const cover::BoundedVerdict product = cover::boundedVerdict(s49::guardedInLoop("0, 100", "t * k == 7007", "0"));
  EXPECT_TRUE(product.unknown || !product.rules.empty()) << "UNSOUND: t * k == 7007 over 100 values exits 0 checked";
  const cover::BoundedVerdict twin = cover::boundedVerdict(s49::guardedInLoop("0, 100", "t + k == 779", "1"));
  EXPECT_TRUE(twin.rules.empty() && twin.unknown) << "the correct twin over 100 values is not unknown";
  s49::expectCleanAndChecked(s49::guardedInLoop("0, lm.instance() + 3", "t * 100 + k == 779", "1"),
                             "the correct twin over a loop bounded by lm.instance()");
}

// findPattern's two loops (bounds48) with the barrier between them dropped
// race only where the match is on chunk 0. Counted down, `141 - hit` chunks
// under `hit <= 140` with the match on the last, that is hit = 140, the
// greatest allowed value: main ran hit in {0,1,55,...,64} and exited 0
// *checked*. Each parameter a goal reads now also runs at its greatest
// allowed value (and a trip count's least is scanned there too).
TEST(Sound49, AParameterAtItsGreatestAllowedValueIsRun) {
  const std::string cut = "            lm.copy(flag[0], fz)\n        lm.sync(wgroup)\n";
  std::string text = replace(cake::testing::forms::kFindPatternTwoLoops, cut, "            lm.copy(flag[0], fz)\n");
  text = replace(text, "    lm.assume(hit >= 0)\n", "    lm.assume(hit >= 0)\n    lm.assume(hit <= 140)\n");
  text = replace(replace(text, "lm.range(0, hit + 1)", "lm.range(0, 141 - hit)"), "if i == hit and", "if i == 140 - hit and");
  s49::expectRace(text, "the cut dropped, 141 - hit chunks, the match on the last (hit = 140)");
  auto mod = cake::testing::compile(text);
  ASSERT_FALSE(mod.schedules.empty());
  const cake::ir::Schedule& s = mod.schedules.at(0);
  int hit = -1;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p)
    if (s.params[p].name == "hit") hit = p;
  ASSERT_GE(hit, 0);
  bool greatest = false;
  for (const cake::encoder::Binding& b : cake::checks::coveringBindings(s))
    greatest = greatest || (b.params.count(hit) && b.params.at(hit) == 140);
  EXPECT_TRUE(greatest) << "no covering value has hit = 140";
}
