// The accumulator hazards on TMEM (encoder/tmem_values.h): what the columns
// hold is followed across the MMA and epilogue roles along one run, so an
// sm_100a persistent kernel whose init= fires on the first tile only
// (data.stale-accumulator), an epilogue reading columns no MMA wrote on its
// path (data.uninitialized) and a product cleared before it was read
// (data.discarded-product) are reported by every engine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>

#include "encoder/simulator.h"
#include "encoder/z3_po.h"
#include "engine_agreement.h"
#include "test_util.h"

using namespace cake;
using namespace cake::testing;  // compile, build, bind, find, hasRule, lineOf, primaryLine, replace, rules

namespace {

// A persistent tcgen05 GEMM: T tiles of a K loop each; the MMA warp hands
// the accumulator to the epilogue (acc_full) and takes it back (acc_empty)
// after the epilogue's tcgen05.ld.
const std::string kTmemTiles = R"(@cake.schedule(target="sm_100a")
def tmem_tiles(lm, A: LM.tma2d, B: LM.tma2d, D: LM.gmem, T: LM.i32, K: LM.i32):
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    accum  = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    r      = lm.regs(shape=(128, 128), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    pipe      = lm.pipeline(stages=2)
    full      = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty     = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    acc_empty = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=1)

    with load:
        for t in lm.range(0, T):
            for k in lm.range(0, K):
                it = t * K + k
                lm.wait(empty, iter=it - 2)
                smem_a.tma_load(A, coords=(0, 64 * k), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(128 * t, 64 * k), iter=it, barrier=full)

    with mma:
        for t in lm.range(0, T):
            lm.wait(acc_empty, iter=t - 1)
            for k in lm.range(0, K):
                it = t * K + k
                lm.wait(full, iter=it)
                lm.mma(accum, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit(barrier=empty, iter=it)
            lm.mma_commit(barrier=acc_full, iter=t)

    with epi:
        for t in lm.range(0, T):
            lm.wait(acc_full, iter=t)
            lm.tmem_load(r, accum)
            lm.tmem_load_wait()
            lm.arrive(acc_empty, iter=t)
            lm.copy(D, r, coords=(0, 128 * t))
)";

struct TmemExplored {
  ir::Module mod;
  encoder::System sys;
  encoder::ModelCheckResult result;
};

TmemExplored tmemExploreBound(const std::string& text,
                              std::initializer_list<std::pair<std::string, int64_t>> values) {
  TmemExplored r;
  r.mod = compile(text);
  if (r.mod.schedules.empty()) return r;
  r.sys = build(r.mod.schedules[0], cake::testing::bind(r.mod.schedules[0], values));
  r.result = encoder::explore(r.sys, {});
  return r;
}

TmemExplored tmemExplore(const std::string& text, int64_t tiles, int64_t k) {
  return tmemExploreBound(text, {{"T", tiles}, {"K", k}});
}

int tmemLineOfNote(const TmemExplored& r, const encoder::Violation& v) {
  if (v.others.empty()) return -1;
  return r.sys.procs[v.others[0].proc].program[v.others[0].pc].stmt->op.range.line;
}

const std::string kTmemFirstTileOnly = replace(kTmemTiles, "init=(k == 0)", "init=(t * K + k == 0)");

}  // namespace

TEST(TmemValues, APerTileInitIsClean) {
  for (int64_t t : {1, 2, 3})
    for (int64_t k : {0, 1, 2}) {
      TmemExplored r = tmemExplore(kTmemTiles, t, k);
      EXPECT_EQ(r.result.outcome, encoder::Outcome::Pass) << "T=" << t << " K=" << k << "\n" << rules(r.result);
    }
}

TEST(TmemValues, AnMmaAddingToTheTileTheEpilogueReadIsStale) {
  ASSERT_NE(kTmemFirstTileOnly, kTmemTiles);
  // one tile: init= fires on it, nothing to see
  EXPECT_EQ(tmemExplore(kTmemFirstTileOnly, 1, 2).result.outcome, encoder::Outcome::Pass);
  TmemExplored r = tmemExplore(kTmemFirstTileOnly, 2, 2);
  const encoder::Violation* v = find(r.result, "data.stale-accumulator");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_FALSE(hasRule(r.result, "data.uninitialized")) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(kTmemFirstTileOnly, "lm.mma(accum"));
  EXPECT_EQ(v->buffer, "accum lanes [0, 32) columns [0, 128)");
  EXPECT_EQ(tmemLineOfNote(r, *v), lineOf(kTmemFirstTileOnly, "lm.tmem_load(r"));  // the read of tile 0
  EXPECT_NE(v->message.find("epi"), std::string::npos) << v->message;
  // the partial-order engine encodes tcgen05.ld (session 31) and reports
  // the hazard where the MMA runs
  encoder::PoResult z = encoder::poCheck(r.sys, {});
  EXPECT_FALSE(z.internal_error) << z.error;
  EXPECT_TRUE(hasRule(z.result, "data.stale-accumulator")) << z.result.detail << rules(z.result);
}

TEST(TmemValues, AStateReadDuringItsOwnLoopIsAScan) {
  // no K loop: the tile loop is the MMA's innermost loop, and a state read
  // every tile while the MMA accumulates on is a chunked scan
  const std::string scan = replace(
      replace(kTmemFirstTileOnly,
              "            for k in lm.range(0, K):\n                it = t * K + k\n                lm.wait(full, "
              "iter=it)\n                lm.mma(accum, smem_a[it], smem_b[it], init=(t * K + k == 0))\n                "
              "lm.mma_commit(barrier=empty, iter=it)\n",
              "            lm.wait(full, iter=t)\n            lm.mma(accum, smem_a[t], smem_b[t], init=(t == 0))\n"
              "            lm.mma_commit(barrier=empty, iter=t)\n"),
      "            for k in lm.range(0, K):\n                it = t * K + k\n                lm.wait(empty, iter=it - "
      "2)\n                smem_a.tma_load(A, coords=(0, 64 * k), iter=it, barrier=full)\n                "
      "smem_b.tma_load(B, coords=(128 * t, 64 * k), iter=it, barrier=full)\n",
      "            lm.wait(empty, iter=t - 2)\n            smem_a.tma_load(A, coords=(0, 0), iter=t, barrier=full)\n"
      "            smem_b.tma_load(B, coords=(128 * t, 0), iter=t, barrier=full)\n");
  ASSERT_EQ(scan.find("for k"), std::string::npos) << scan;
  for (int64_t t : {1, 3}) {
    TmemExplored r = tmemExplore(scan, t, 1);
    EXPECT_EQ(r.result.outcome, encoder::Outcome::Pass) << "T=" << t << "\n" << rules(r.result);
  }
}

TEST(TmemValues, ATileWhoseMmaIsSkippedReadsUndefinedColumns) {
  // tile 0 runs no MMA (a condition of the schedule, not a size): its
  // epilogue reads columns nothing wrote yet; the columns are written on
  // later tiles, so the static TMEM check (no write anywhere) is silent
  const std::string skipped =
      replace(kTmemTiles, "                lm.mma(accum, smem_a[it], smem_b[it], init=(k == 0))\n",
              "                if t > 0:\n                    lm.mma(accum, smem_a[it], smem_b[it], init=(k == 0))\n");
  ASSERT_NE(skipped, kTmemTiles);
  TmemExplored r = tmemExplore(skipped, 2, 1);
  const encoder::Violation* v = find(r.result, "data.uninitialized");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(skipped, "lm.tmem_load(r"));
  EXPECT_FALSE(hasRule(r.result, "data.stale-accumulator")) << rules(r.result);
}

TEST(TmemValues, AnEmptyKLoopCountsAsWritingTheAccumulator) {
  // K = 0: the K loop runs no iteration because of a size parameter, and
  // counts as writing what its body writes (docs/rules/data.uninitialized.md
  // "Decision"), as for registers
  TmemExplored r = tmemExplore(kTmemTiles, 2, 0);
  EXPECT_FALSE(hasRule(r.result, "data.uninitialized")) << rules(r.result);
}

TEST(TmemValues, AnAdmittedEmptyKLoopLeavesTheEpilogueReadingUndefinedColumns) {
  // lm.assume(K >= 0) states that K = 0 is a size the schedule handles
  // (a grouped GEMM's group, NVIDIA/cutlass #2674): the empty K loop writes
  // nothing, and no op of the system writes TMEM at all for K = 0 -- the
  // run must still judge the epilogue's read
  const std::string admitted = replace(kTmemTiles, "K: LM.i32):\n", "K: LM.i32):\n    lm.assume(K >= 0)\n");
  ASSERT_NE(admitted, kTmemTiles);
  TmemExplored r = tmemExplore(admitted, 1, 0);
  const encoder::Violation* v = find(r.result, "data.uninitialized");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(admitted, "lm.tmem_load(r"));
  EXPECT_EQ(tmemExplore(admitted, 2, 1).result.outcome, encoder::Outcome::Pass);
}

TEST(TmemValues, AProductClearedBeforeTheEpilogueReadIsDiscarded) {
  // init=True on every k-block: each MMA overwrites the previous k-block's
  // product, which nothing read
  const std::string cleared = replace(kTmemTiles, "init=(k == 0)", "init=True");
  EXPECT_EQ(tmemExplore(cleared, 2, 1).result.outcome, encoder::Outcome::Pass);  // one k-block: nothing lost
  TmemExplored r = tmemExplore(cleared, 1, 2);
  const encoder::Violation* v = find(r.result, "data.discarded-product");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(cleared, "lm.mma(accum"));
  EXPECT_EQ(tmemLineOfNote(r, *v), lineOf(cleared, "lm.mma(accum"));
}

namespace {

// The MMA warp takes the accumulator back (acc_empty) inside its K loop,
// after the first k-block's smem wait: the run of the K loop of tile t+1
// can begin before or after the epilogue's tcgen05.ld of tile t, since
// nothing orders the two. Correct synchronization either way.
std::string tmemAttackAcquireInKLoop(const std::string& text) {
  return replace(replace(text,
                         "            lm.wait(acc_empty, iter=t - 1)\n            for k in lm.range(0, K):\n"
                         "                it = t * K + k\n                lm.wait(full, iter=it)\n",
                         "            for k in lm.range(0, K):\n                it = t * K + k\n"
                         "                lm.wait(full, iter=it)\n                lm.wait(acc_empty, iter=t - 1)\n"),
                 "K: LM.i32):\n", "K: LM.i32):\n    lm.assume(K >= 1)\n");
}

}  // namespace

TEST(TmemAttack, AStaleAccumulationIsFoundWhicheverSideEntersItsLoopFirst) {
  // Before the fix the hazard was decided on the step of the read against
  // the step the MMA's loop run began, which are not ordered: the run that
  // takes the first enabled step let the MMA warp enter tile 1's K loop
  // before the epilogue read tile 0, counted the read as "during the loop
  // run" (a scan), and `cake check` proved the broken schedule (exit 0).
  const std::string broken = tmemAttackAcquireInKLoop(kTmemFirstTileOnly);
  ASSERT_NE(broken, kTmemFirstTileOnly);
  for (int64_t k : {1, 2}) {
    TmemExplored r = tmemExplore(broken, 2, k);
    const encoder::Violation* v = find(r.result, "data.stale-accumulator");
    ASSERT_NE(v, nullptr) << "K=" << k << "\n" << rules(r.result);
    EXPECT_EQ(primaryLine(r.sys, *v), lineOf(broken, "lm.mma(accum"));
    EXPECT_EQ(tmemLineOfNote(r, *v), lineOf(broken, "lm.tmem_load(r"));
  }
}

TEST(TmemAttack, APerTileInitWithTheAcquireInTheKLoopIsClean) {
  const std::string fixed = tmemAttackAcquireInKLoop(kTmemTiles);
  ASSERT_NE(fixed, kTmemTiles);
  for (int64_t t : {1, 2, 3})
    for (int64_t k : {1, 2}) {
      TmemExplored r = tmemExplore(fixed, t, k);
      EXPECT_EQ(r.result.outcome, encoder::Outcome::Pass) << "T=" << t << " K=" << k << "\n" << rules(r.result);
    }
}

namespace {

// Two MMA roles writing one TMEM accumulator (kTmemTiles with a second
// MMA warp): mma runs k-blocks [0, K) of each tile with init=(k == 0) and
// commits half_done; mma_hi waits half_done (mma's MMAs completed), adds
// k-blocks [K, 2K) and
// commits acc_full for the epilogue. The two roles' tcgen05.mma into the
// same columns are ordered by that barrier.
std::string tmemRolesKSplit() {
  std::string s = replace(kTmemTiles, "    mma  = lm.role(warps=[4])\n", "    mma  = lm.role(warps=[4])\n    mma_hi = lm.role(warps=[6])\n");
  s = replace(s, "cons=[mma], init_count=1, pipeline=pipe)", "cons=[mma, mma_hi], init_count=1, pipeline=pipe)");
  s = replace(s, "prod=[mma], cons=[load]", "prod=[mma, mma_hi], cons=[load]");
  s = replace(s, "acc_full  = lm.barrier(count=1, prod=[mma],", "acc_full  = lm.barrier(count=1, prod=[mma_hi],");
  s = replace(s, "cons=[mma], init_count=1)\n", "cons=[mma], init_count=1)\n"
              "    half_done = lm.barrier(count=1, prod=[mma], cons=[mma_hi], init_count=1)\n");
  s = replace(s, "for k in lm.range(0, K):\n                it = t * K + k", "for k in lm.range(0, 2 * K):\n                it = t * 2 * K + k");
  s = replace(s, "it = t * K + k", "it = t * 2 * K + k");
  s = replace(s, "lm.mma_commit(barrier=acc_full, iter=t)", "lm.mma_commit(barrier=half_done, iter=t)");
  return replace(s, "    with epi:\n", R"(    with mma_hi:
        for t in lm.range(0, T):
            lm.wait(half_done, iter=t)
            for k in lm.range(K, 2 * K):
                it = t * 2 * K + k
                lm.wait(full, iter=it)
                lm.mma(accum, smem_a[it], smem_b[it])
                lm.mma_commit(barrier=empty, iter=it)
            lm.mma_commit(barrier=acc_full, iter=t)

    with epi:
)");
}
const std::string kTmemRolesKSplit = tmemRolesKSplit();

const std::string kTmemRolesHiMma = "                lm.mma(accum, smem_a[it], smem_b[it])\n";

// Two MMA roles on disjoint columns, one 64-column N half each of every
// k-block (the ring's slots are released by both: empty counts two
// commits), both waiting acc_empty; acc_full counts `acc_full_arrivals`
// of their commits.
std::string tmemRolesNSplit(int acc_full_arrivals) {
  std::string s = replace(kTmemTiles, "    mma  = lm.role(warps=[4])\n",
                          "    mma  = lm.role(warps=[4])\n    mma1 = lm.role(warps=[6])\n");
  s = replace(s, "empty     = lm.barrier(prod=[mma], cons=[load], init_count=1",
              "empty     = lm.barrier(prod=[mma, mma1], cons=[load], init_count=2");
  s = replace(s, "full      = lm.barrier(prod=[load], cons=[mma],", "full      = lm.barrier(prod=[load], cons=[mma, mma1],");
  s = replace(s, "acc_full  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)",
              "acc_full  = lm.barrier(count=1, prod=[mma, mma1], cons=[epi], init_count=" +
                  std::to_string(acc_full_arrivals) + ")");
  s = replace(s, "acc_empty = lm.barrier(count=1, prod=[epi], cons=[mma],", "acc_empty = lm.barrier(count=1, prod=[epi], cons=[mma, mma1],");
  const std::string mma_body = s.substr(s.find("    with mma:\n"), s.find("    with epi:") - s.find("    with mma:\n"));
  std::string lo = replace(mma_body, "lm.mma(accum, smem_a[it], smem_b[it],",
                           "lm.mma(accum[0:128, 0:64], smem_a[it], smem_b[it][0:64, :],");
  std::string hi = replace(replace(mma_body, "lm.mma(accum, smem_a[it], smem_b[it],",
                                   "lm.mma(accum[0:128, 64:128], smem_a[it], smem_b[it][64:128, :],"),
                           "    with mma:", "    with mma1:");
  return replace(s, mma_body, lo + hi);
}

// `rule` found at T=tiles, K=1 on the line holding `at`, its note on the
// line holding `note`.
void tmemRolesHazard(const std::string& text, int64_t tiles, const std::string& rule, const std::string& at,
                     const std::string& note) {
  TmemExplored r = tmemExplore(text, tiles, 1);
  const encoder::Violation* v = find(r.result, rule);
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(text, at));
  EXPECT_EQ(tmemLineOfNote(r, *v), lineOf(text, note));
}

// No finding for 1..3 tiles of 1..2 k-blocks.
void tmemRolesClean(const std::string& text) {
  for (int64_t t : {1, 2, 3})
    for (int64_t k : {1, 2}) {
      TmemExplored r = tmemExplore(text, t, k);
      EXPECT_EQ(r.result.outcome, encoder::Outcome::Pass) << "T=" << t << " K=" << k << "\n" << rules(r.result);
    }
}

}  // namespace

TEST(TmemRoles, TwoRolesAccumulatingInTurnOrderedByABarrierAreClean) { tmemRolesClean(kTmemRolesKSplit); }

TEST(TmemRoles, TwoRolesOnDisjointColumnsReadAfterBothCommitsAreClean) { tmemRolesClean(tmemRolesNSplit(2)); }

TEST(TmemRoles, AnEpilogueReadingAfterOneRolesCommitRaces) {
  // acc_full completes on the first of the two commits: the epilogue's
  // tcgen05.ld reads the other role's columns while its MMA still writes
  const std::string one = tmemRolesNSplit(1);
  TmemExplored r = tmemExplore(one, 1, 1);
  const encoder::Violation* v = find(r.result, "sync.race");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(one, "lm.mma(accum[0:128, 64:128]")) << v->message;
  EXPECT_NE(v->message.find("tcgen05.ld"), std::string::npos) << v->message;
}

TEST(TmemRoles, UnorderedAccumulationOfTwoRolesIntoOneAccumulatorRaces) {
  // mma_hi waits its operands only: its tcgen05.mma and mma's add to the
  // same columns in either order
  const std::string unordered = replace(replace(kTmemRolesKSplit, "            lm.wait(half_done, iter=t)\n", ""),
                                        "            lm.mma_commit(barrier=half_done, iter=t)\n", "");
  TmemExplored r = tmemExplore(unordered, 1, 1);
  const encoder::Violation* v = find(r.result, "sync.race");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_NE(v->message.find("MMA"), std::string::npos) << v->message;
}

TEST(TmemRoles, ASecondRolesInitClobbersTheFirstRolesPartialSum) {
  const std::string clobber = replace(kTmemRolesKSplit, kTmemRolesHiMma,
                                      "                lm.mma(accum, smem_a[it], smem_b[it], init=(k == K))\n");
  tmemRolesHazard(clobber, 1, "data.discarded-product", "init=(k == K)",
                  "lm.mma(accum, smem_a[it], smem_b[it], init=(k == 0))");
}

TEST(TmemRoles, TheFirstRolesInitOnTheFirstTileOnlyIsStale) {
  // the last write the epilogue saw is mma_hi's: mma's accumulation on
  // tile 1 is stale although the write was another role's
  const std::string stale = replace(kTmemRolesKSplit, "init=(k == 0)", "init=(t * K + k == 0)");
  EXPECT_EQ(tmemExplore(stale, 1, 1).result.outcome, encoder::Outcome::Pass);
  tmemRolesHazard(stale, 2, "data.stale-accumulator", "init=(t * K + k == 0)", "lm.tmem_load(r");
}

TEST(TmemRoles, AnEmptyFirstHalfAtAPositiveSizeLeavesTheSecondRoleAccumulatingNothing) {
  // mma's half is [0, K // 2): empty at K = 1, a size the split does not
  // handle (K = 1 is not degenerate), so mma_hi's MMA adds to columns no
  // write reached. The empty loop counts as writing only when a parameter
  // its bounds read is zero or negative (K = 0).
  std::string half = replace(kTmemRolesKSplit, "            for k in lm.range(0, K):\n                it = t * 2 * K + k\n"
                                               "                lm.wait(full, iter=it)\n                lm.mma(accum",
                             "            for k in lm.range(0, K // 2):\n                it = t * 2 * K + k\n"
                             "                lm.wait(full, iter=it)\n                lm.mma(accum");
  half = replace(half, "for k in lm.range(K, 2 * K):", "for k in lm.range(K // 2, K):");
  half = replace(half, "for k in lm.range(0, 2 * K):", "for k in lm.range(0, K):");
  half = replace(replace(replace(half, "it = t * 2 * K + k", "it = t * K + k"), "it = t * 2 * K + k", "it = t * K + k"),
                 "it = t * 2 * K + k", "it = t * K + k");
  TmemExplored r = tmemExplore(half, 1, 1);
  const encoder::Violation* v = find(r.result, "data.uninitialized");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(half, kTmemRolesHiMma));
  EXPECT_EQ(tmemExplore(half, 1, 2).result.outcome, encoder::Outcome::Pass) << rules(tmemExplore(half, 1, 2).result);
  // K = 0 is a degenerate size: both halves empty, nothing reported
  EXPECT_FALSE(hasRule(tmemExplore(half, 1, 0).result, "data.uninitialized"));
}

namespace {

// One MMA warp, two sibling K loops over one variable name (a stream-K CTA:
// the tail of one tile, then the head of the next), the epilogue reading
// the accumulator out between them.
// kTmemTiles's declarations and epilogue (bound with T = 2: one read per
// loop) around these bodies.
const std::string kTmemSiblingLoops = kTmemTiles.substr(0, kTmemTiles.find("    with load:")) + R"(    with load:
        for k in lm.range(0, 2 * K):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(0, 64 * k), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(0, 64 * k), iter=k, barrier=full)

    with mma:
        for k in lm.range(0, K):
            lm.wait(full, iter=k)
            lm.mma(accum, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit(barrier=empty, iter=k)
        lm.mma_commit(barrier=acc_full, iter=0)
        lm.wait(acc_empty, iter=0)
        for k in lm.range(K, 2 * K):
            lm.wait(full, iter=k)
            lm.mma(accum, smem_a[k], smem_b[k], init=(k == K))
            lm.mma_commit(barrier=empty, iter=k)
        lm.mma_commit(barrier=acc_full, iter=1)

)" + kTmemTiles.substr(kTmemTiles.find("    with epi:"));

// The line of the last occurrence of `needle` (the second loop's MMA).
int tmemSiblingLastLineOf(const std::string& text, const std::string& needle) {
  const size_t at = text.rfind(needle);
  if (at == std::string::npos) return -1;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

}  // namespace

TEST(TmemSiblingLoops, EachForStatementIsItsOwnLoopRun) {
  // The scan exemption asks whether the read saw a value written during
  // the current run of the MMA's innermost loop. Two sibling loops over
  // one variable name are two runs (each `for` has its own loop variable),
  // so the second loop's first MMA without init= adds to the result the
  // epilogue read out after the first loop: stale, not a scan.
  for (int64_t k : {1, 2}) {
    TmemExplored ok = tmemExplore(kTmemSiblingLoops, 2, k);
    EXPECT_EQ(ok.result.outcome, encoder::Outcome::Pass) << "K=" << k << "\n" << rules(ok.result);
  }
  const std::string copied = replace(kTmemSiblingLoops, "init=(k == K)", "init=(k == 0)");
  for (int64_t k : {1, 2}) {
    TmemExplored r = tmemExplore(copied, 2, k);
    const encoder::Violation* v = find(r.result, "data.stale-accumulator");
    ASSERT_NE(v, nullptr) << "K=" << k << "\n" << rules(r.result);
    EXPECT_EQ(primaryLine(r.sys, *v), tmemSiblingLastLineOf(copied, "lm.mma(accum, smem_a[k]"));
    EXPECT_EQ(tmemLineOfNote(r, *v), lineOf(copied, "lm.tmem_load(r"));
  }
}

namespace {

// The explicit engine (every rule) and the partial-order Z3 engine on one
// binding: Z3-po decides the schedule (tcgen05.ld / st and their waits are
// encoded: each is a committed group of its own kind, retired by the next
// wait of that kind) and finds the same rules.
std::set<std::string> tmemEnginesAgree(const std::string& text, int64_t tiles, int64_t k) {
  TmemExplored r = tmemExplore(text, tiles, k);
  if (r.mod.schedules.empty()) return {};
  const encoder::ModelCheckResult sim = exploreEveryRule(r.sys);
  EXPECT_NE(sim.outcome, encoder::Outcome::Unknown) << sim.detail;
  encoder::PoOptions po;
  po.limits.timeout_ms = kNoWallClockMs;
  po.limits.rlimit = kQueryRlimit;
  encoder::PoResult z = encoder::poCheck(r.sys, po);
  EXPECT_FALSE(z.internal_error) << z.error;
  EXPECT_NE(z.result.outcome, encoder::Outcome::Unknown) << z.result.detail;
  EXPECT_EQ(ruleSet(sim), ruleSet(z.result)) << "T=" << tiles << " K=" << k << "\n" << rules(z.result);
  return ruleSet(sim);
}

}  // namespace

TEST(TmemZ3, ThePartialOrderEngineDecidesTcgen05LoadsAsTheExplicitOneDoes) {
  using Rules = std::set<std::string>;
  EXPECT_EQ(tmemEnginesAgree(kTmemTiles, 2, 1), Rules{});
  EXPECT_EQ(tmemEnginesAgree(kTmemFirstTileOnly, 2, 1), Rules{"data.stale-accumulator"});
  // the accumulator released before tcgen05.wait::ld: the next tile's MMA
  // overwrites columns the load still reads
  const std::string early = replace(kTmemTiles, "            lm.tmem_load_wait()\n            lm.arrive(acc_empty, iter=t)\n",
                                    "            lm.arrive(acc_empty, iter=t)\n            lm.tmem_load_wait()\n");
  EXPECT_EQ(tmemEnginesAgree(early, 2, 1), Rules{"sync.race"});
  // the registers read before the wait: the process's own load still writes them
  const std::string unwaited = replace(kTmemTiles, "            lm.tmem_load_wait()\n            lm.arrive(acc_empty, iter=t)\n            lm.copy(D, r, coords=(0, 128 * t))\n",
                                       "            lm.copy(D, r, coords=(0, 128 * t))\n            lm.tmem_load_wait()\n            lm.arrive(acc_empty, iter=t)\n");
  EXPECT_EQ(tmemEnginesAgree(unwaited, 1, 1), Rules{"sync.race"});
  // no wait at all: the load is in flight when every role has exited
  EXPECT_TRUE(tmemEnginesAgree(replace(kTmemTiles, "            lm.tmem_load_wait()\n", ""), 1, 1).count("sync.async-at-exit"));
  // a tcgen05.st back into the accumulator (a rescale), waited before the
  // release, and the same store released before its tcgen05.wait::st
  const std::string stored = replace(kTmemTiles, "            lm.tmem_load_wait()\n            lm.arrive(acc_empty, iter=t)\n",
                                     "            lm.tmem_load_wait()\n            lm.tmem_store(accum, r)\n"
                                     "            lm.tmem_store_wait()\n            lm.arrive(acc_empty, iter=t)\n");
  EXPECT_EQ(tmemEnginesAgree(stored, 2, 1), Rules{});
  const std::string store_early = replace(stored, "            lm.tmem_store_wait()\n            lm.arrive(acc_empty, iter=t)\n",
                                          "            lm.arrive(acc_empty, iter=t)\n            lm.tmem_store_wait()\n");
  EXPECT_EQ(tmemEnginesAgree(store_early, 2, 1), Rules{"sync.race"});
  // two MMA roles
  EXPECT_EQ(tmemEnginesAgree(kTmemRolesKSplit, 2, 1), Rules{});
  EXPECT_EQ(tmemEnginesAgree(tmemRolesNSplit(2), 2, 1), Rules{});
  EXPECT_TRUE(tmemEnginesAgree(tmemRolesNSplit(1), 1, 1).count("sync.race"));
}

namespace {

// A tile a role stores into TMEM (tcgen05.st) for an MMA that reads it as
// its A operand (the "ts" form), in a buffer whose first half another MMA
// of the same warp reuses afterwards (facebookexperimental/triton PR
// #1851's {dpT, dq, dsT} buffer, reduced): the MMA warp's MMAs run in issue
// order, so the reader must come first.
const std::string kTmemStoredTile = R"(@cake.schedule(target="sm_100a")
def tmem_stored_tile(lm, B: LM.tma2d, D: LM.gmem, T: LM.i32):
    pool   = lm.smem(49152)
    smem_b = pool.view(offset=0,     shape=(64, 128), dtype=lm.f16)
    smem_c = pool.view(offset=16384, shape=(128, 128), dtype=lm.f16)
    buf    = lm.tmem(cols=0,   width=64, shape=(128, 128), dtype=lm.f16)
    acc    = lm.tmem(cols=128, width=64, shape=(128, 64),  dtype=lm.f32)
    s_r    = lm.regs(shape=(128, 128), dtype=lm.f16)
    o_r    = lm.regs(shape=(128, 64),  dtype=lm.f32)

    st   = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    loaded = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    ready  = lm.barrier(count=1, prod=[st], cons=[mma], init_count=1)
    done   = lm.barrier(count=1, prod=[mma], cons=[st], init_count=1)

    with load:
        smem_b.tma_load(B, coords=(0, 0), stage=0, barrier=loaded)
        smem_c.tma_load(B, coords=(64, 0), stage=0, barrier=loaded)

    with mma:
        lm.wait(loaded, stage=0)
        for t in lm.range(0, T):
            lm.wait(ready, iter=t)
            lm.mma(acc, buf, smem_b[0], init=True)
            lm.mma(buf[:, 0:64], smem_c[0], smem_b[0], init=True)
            lm.mma_commit(barrier=done, iter=t)

    with st:
        for t in lm.range(0, T):
            lm.fill(s_r, 1.0)
            lm.tmem_store(buf, s_r)
            lm.tmem_store_wait()
            lm.arrive(ready, iter=t)
            lm.wait(done, iter=t)
            lm.tmem_load(o_r, acc)
            lm.tmem_load_wait()
            lm.copy(D, o_r, coords=(0, 128 * t))
            lm.tmem_load(o_r, buf[:, 0:64])
            lm.tmem_load_wait()
            lm.copy(D, o_r, coords=(0, 128 * t + 64))
)";

const std::string kTmemStoredTileReuseFirst =
    replace(kTmemStoredTile,
            "            lm.mma(acc, buf, smem_b[0], init=True)\n"
            "            lm.mma(buf[:, 0:64], smem_c[0], smem_b[0], init=True)\n",
            "            lm.mma(buf[:, 0:64], smem_c[0], smem_b[0], init=True)\n"
            "            lm.mma(acc, buf, smem_b[0], init=True)\n");

TmemExplored tmemStoredExplore(const std::string& text, int64_t tiles) { return tmemExploreBound(text, {{"T", tiles}}); }

}  // namespace

TEST(TmemStoredValue, ATmemAOperandReadBeforeTheBufferIsReusedIsClean) {
  for (int64_t t : {1, 2}) {
    TmemExplored r = tmemStoredExplore(kTmemStoredTile, t);
    EXPECT_EQ(r.result.outcome, encoder::Outcome::Pass) << "T=" << t << "\n" << rules(r.result);
  }
}

TEST(TmemStoredValue, AStoredTileOverwrittenBeforeItsReaderIsDiscarded) {
  ASSERT_NE(kTmemStoredTileReuseFirst, kTmemStoredTile);
  TmemExplored r = tmemStoredExplore(kTmemStoredTileReuseFirst, 1);
  const encoder::Violation* v = find(r.result, "data.discarded-product");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_FALSE(hasRule(r.result, "sync.race")) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(kTmemStoredTileReuseFirst, "lm.mma(buf[:, 0:64]"));
  // the note is the tcgen05.st of the other role whose value is lost
  EXPECT_EQ(tmemLineOfNote(r, *v), lineOf(kTmemStoredTileReuseFirst, "lm.tmem_store(buf"));
  EXPECT_NE(v->message.find("st wrote"), std::string::npos) << v->message;
  // the partial-order engine reports it too
  encoder::PoResult z = encoder::poCheck(r.sys, {});
  EXPECT_FALSE(z.internal_error) << z.error;
  EXPECT_TRUE(hasRule(z.result, "data.discarded-product")) << z.result.detail << rules(z.result);
}

TEST(TmemStoredValue, ATmemAOperandStillReadWhenTheStoreRewritesItRaces) {
  // the role does not wait for the MMAs before its next store: the
  // previous tile's MMA may still read the A operand (mlc-ai/TIRx-kernels
  // PR #19's state input)
  const std::string unacquired = replace(kTmemStoredTile,
                                         "            lm.wait(done, iter=t)\n            lm.tmem_load(o_r, acc)\n"
                                         "            lm.tmem_load_wait()\n            lm.copy(D, o_r, coords=(0, 128 * t))\n"
                                         "            lm.tmem_load(o_r, buf[:, 0:64])\n            lm.tmem_load_wait()\n"
                                         "            lm.copy(D, o_r, coords=(0, 128 * t + 64))\n",
                                         "");
  ASSERT_NE(unacquired, kTmemStoredTile);
  TmemExplored r = tmemStoredExplore(unacquired, 2);
  const encoder::Violation* v = find(r.result, "sync.race");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(unacquired, "lm.tmem_store(buf"));
  encoder::PoResult z = encoder::poCheck(r.sys, {});
  EXPECT_FALSE(z.internal_error) << z.error;
  EXPECT_TRUE(hasRule(z.result, "sync.race")) << z.result.detail << rules(z.result);
}
