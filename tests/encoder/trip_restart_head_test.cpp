// A nested software pipeline over one LDS buffer with a dynamic inner trip
// count (IREE's ROCDLPrefetchSharedMemoryCopy inside an outer loop, helper
// hunt52's reproducer docs/limits/nested_prefetch_dynamic_inner_trip.cake,
// now corpus/bugs/sync.race/iree_prefetch_nested_loop_dynamic_k_prologue_no_barrier_fixed.cake):
// its tile opens with a global load into registers before the cut (the
// prologue barrier),
// its K loop writes and reads back the one buffer, and it stores the result
// after the outer loop. The restart argument's headed form
// (encoder/trip_restart_head.h) and its alternating read-backs
// (trip::restartReadBacks) prove it for every n_outer and n_k (docs/z3.md
// "Session 52 (helper nested52)"). Each broken form below is met by the
// bounded check and never proved; the text conditions refuse what they must.
#include <gtest/gtest.h>

#include <string>

#include "encoder/trip_proof.h"
#include "encoder/trip_restart.h"
#include "encoder/trip_restart_head.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;
using cake::testing::compile;
using cake::testing::proveText;
using cake::testing::replace;

namespace trip_restart_head_test {

const char* kNested = R"(@cake.schedule(target="sm_80")
def nested_prefetch_dynamic_inner_trip(lm, A: LM.gmem, C: LM.gmem, n_outer: LM.i32, n_k: LM.i32):
    lm.assume(n_k >= 3)
    pool = lm.smem(2048)
    sa   = pool.view(offset=0, shape=(32, 32), dtype=lm.f16)
    ra   = lm.regs(shape=(16, 32), dtype=lm.f16)
    x    = lm.regs(shape=(32, 32), dtype=lm.f16)

    waves = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[waves])

    with waves:
        w = lm.instance()
        for o in lm.range(0, n_outer):
            lm.copy(ra, A, coords=(16 * w, 0))
            lm.sync(block)
            lm.copy(sa[0][16 * w:16 * w + 16, :], ra)
            for k in lm.range(0, n_k - 1):
                lm.copy(ra, A, coords=(16 * w, 32 * (k + 1)))
                lm.sync(block)
                lm.copy(x, sa[0])
                lm.sync(block)
                lm.copy(sa[0][16 * w:16 * w + 16, :], ra)
            lm.sync(block)
            lm.copy(x, sa[0])
        lm.copy(C, x, coords=(0, 32 * w))
)";

bool violatedAtTrips(const std::string& text, int64_t n_outer, int64_t n_k) {
  return cake::testing::violatedAt(compile(text).schedules.at(0), {{"n_outer", n_outer}, {"n_k", n_k}});
}

// The bounded check meets it at (n_outer, n_k), and the proof for every
// trip count does not say proved.
void expectFoundNotProved(const std::string& text, int64_t n_outer, int64_t n_k, const std::string& what) {
  EXPECT_TRUE(violatedAtTrips(text, n_outer, n_k)) << what;
  const auto r = proveText(text);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << what << ": " << r.engine;
}

const std::string kPrologueSync = "            lm.copy(ra, A, coords=(16 * w, 0))\n            lm.sync(block)\n";
const std::string kPrologueNoSync = "            lm.copy(ra, A, coords=(16 * w, 0))\n";
const std::string kLoopSync = "                lm.copy(x, sa[0])\n                lm.sync(block)\n";
const std::string kEpilogue = "            lm.sync(block)\n            lm.copy(x, sa[0])\n        lm.copy(C";
const std::string kEpilogueNoSync = "            lm.copy(x, sa[0])\n        lm.copy(C";

}  // namespace trip_restart_head_test

using namespace trip_restart_head_test;

TEST(TripRestartHead, NestedPrefetchIsProvedForEveryTripCount) {
  for (int64_t n_outer : {0, 1, 2, 3})
    for (int64_t n_k : {3, 4, 5}) EXPECT_FALSE(violatedAtTrips(kNested, n_outer, n_k)) << n_outer << " " << n_k;
  const auto r = proveText(kNested);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
}

// Without the prologue barrier (iree-org/iree PR #22669's bug) the prologue's
// write of tile t + 1 races the last read of tile t: clean in one tile.
TEST(TripRestartHead, PrologueWithoutBarrierIsFoundAndNotProved) {
  const std::string text = replace(kNested, kPrologueSync, kPrologueNoSync);
  EXPECT_FALSE(violatedAtTrips(text, 1, 3));
  expectFoundNotProved(text, 2, 3, "no prologue barrier");
  // the guard that skips it in the last tile: broken from two tiles
  expectFoundNotProved(replace(kNested, kPrologueSync, kPrologueNoSync + "            if o < n_outer - 1:\n                lm.sync(block)\n"),
                       2, 3, "prologue barrier skipped in the last tile");
}

TEST(TripRestartHead, EpilogueWithoutBarrierIsFoundAndNotProved) {
  expectFoundNotProved(replace(kNested, kEpilogue, kEpilogueNoSync), 1, 3, "no epilogue barrier");
}

TEST(TripRestartHead, KLoopBarrierMissingOrOffByOneIsFoundAndNotProved) {
  expectFoundNotProved(replace(kNested, kLoopSync, "                lm.copy(x, sa[0])\n"), 1, 3,
                       "no barrier between compute and write");
  expectFoundNotProved(replace(kNested, kLoopSync, "                lm.copy(x, sa[0])\n                if k < n_k - 2:\n                    lm.sync(block)\n"),
                       1, 3, "the K loop's barrier skipped in its last iteration (off by one)");
  // one K iteration too many, the epilogue barrier dropped with it
  expectFoundNotProved(replace(replace(kNested, "for k in lm.range(0, n_k - 1):", "for k in lm.range(0, n_k):"), kEpilogue,
                               kEpilogueNoSync),
                       1, 3, "inner bound off by one");
}

// The headed form's text conditions: code before the cut that touches
// shared memory is no head (the broken form without the prologue barrier);
// code after the tile loop that touches shared memory is refused.
TEST(TripRestartHead, HeadAndTailMayTouchOnlyRegistersAndGlobalMemory) {
  EXPECT_TRUE(encoder::trip::headedRestartForm(compile(kNested).schedules.at(0)).ok);
  const auto no_sync = encoder::trip::headedRestartForm(compile(replace(kNested, kPrologueSync, kPrologueNoSync)).schedules.at(0));
  EXPECT_FALSE(no_sync.ok);
  const auto shared_tail = encoder::trip::headedRestartForm(
      compile(replace(kNested, "        lm.copy(C, x, coords=(0, 32 * w))\n", "        lm.copy(x, sa[0])\n")).schedules.at(0));
  EXPECT_FALSE(shared_tail.ok);
}

// The alternating read-backs (trip::restartReadBacks): write, read, write,
// read ... of one index with the same bytes every write, for every trip
// count of the K loop, is admitted; two reads per write, two writes per
// read, or writes of other bytes are refused.
TEST(TripRestartHead, ReadBacksMustAlternateOverTheSameBytes) {
  auto readBacks = [](const std::string& text) {
    const auto h = encoder::trip::headedRestartForm(compile(text).schedules.at(0));
    EXPECT_TRUE(h.ok) << h.reason;
    return encoder::trip::restartReadBacks(h.text);
  };
  EXPECT_EQ(readBacks(kNested), "");
  EXPECT_NE(readBacks(replace(kNested, kLoopSync, kLoopSync + "                lm.copy(x, sa[0])\n")), "");
  EXPECT_NE(readBacks(replace(kNested, "            for k in lm.range(0, n_k - 1):\n",
                              "            lm.copy(sa[0][16 * w:16 * w + 16, :], ra)\n            for k in lm.range(0, n_k - 1):\n")),
            "");
  EXPECT_NE(readBacks(replace(kNested, "                lm.copy(sa[0][16 * w:16 * w + 16, :], ra)\n",
                              "                lm.copy(sa[0][16 - 16 * w:32 - 16 * w, :], ra)\n")),
            "");
}

// Review (helper reviewnest52, session 52): findings that exist only from
// two tiles on must keep the proof from saying proved. The code after the
// tile loop reads the accumulator, so the rule judges it; tile t + 1's
// init=True MMA (or the head's fill) discards tile t's product.
namespace trip_restart_head_test {
const char* kDiscardedByNextTile = R"(@cake.schedule(target="sm_80")
def dp_init(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, n: LM.i32):
    pool = lm.smem(4096)
    sa   = pool.view(offset=0, shape=(64, 16), dtype=lm.f16)
    ra   = lm.regs(shape=(16, 16), dtype=lm.f16)
    fa   = lm.regs(shape=(64, 16), dtype=lm.f16)
    fb   = lm.regs(shape=(64, 16), dtype=lm.f16)
    acc  = lm.regs(shape=(64, 64), dtype=lm.f32)

    waves = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[waves])

    with waves:
        w = lm.instance()
        for t in lm.range(0, n):
            lm.copy(ra, A, coords=(16 * w, 16 * t))
            lm.copy(fb, B, coords=(0, 16 * t))
            lm.sync(block)
            lm.copy(sa[0][16 * w:16 * w + 16, :], ra)
            lm.sync(block)
            lm.copy(fa, sa[0])
            lm.sync(block)
            lm.mma(acc, fa, fb, init=True)
        lm.copy(C, acc, coords=(0, 64 * w))
)";
const char* kGuardOnTileCount = R"(@cake.schedule(target="sm_80")
def nguard(lm, A: LM.gmem, C: LM.gmem, n: LM.i32):
    pool = lm.smem(4096)
    sb   = pool.view(offset=0, shape=(32, 32), dtype=lm.f16)
    ra   = lm.regs(shape=(32, 32), dtype=lm.f16)
    x    = lm.regs(shape=(32, 32), dtype=lm.f16)

    prod = lm.role(warps=[0])
    cons = lm.role(warps=[1])
    block = lm.named_barrier(roles=[prod, cons])

    with prod:
        for t in lm.range(0, n):
            lm.sync(block)
            lm.copy(ra, A, coords=(0, 32 * t))
            lm.copy(sb[0], ra)
            lm.sync(block)
            if n > 1:
                lm.copy(sb[0], ra)
    with cons:
        for t in lm.range(0, n):
            lm.sync(block)
            lm.sync(block)
            lm.copy(x, sb[0])
            lm.copy(C, x, coords=(0, 32 * t))
)";
}  // namespace trip_restart_head_test

TEST(TripRestartHead, ProductDiscardedByTheNextTileIsNotProved) {
  const std::string init = kDiscardedByNextTile;
  const std::string fill = replace(replace(init, "init=True)", "init=False)"),
                                   "            lm.copy(fb, B, coords=(0, 16 * t))\n",
                                   "            lm.copy(fb, B, coords=(0, 16 * t))\n            lm.fill(acc, 0.0)\n");
  for (const std::string& text : {init, fill}) {
    EXPECT_TRUE(cake::testing::violatedAt(compile(text).schedules.at(0), {{"n", 2}}));
    const auto r = proveText(text);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
  }
}

// A guard on the tile count itself: the one-tile proof fixes N = 1.
TEST(TripRestartHead, GuardOnTheTileCountIsNotProved) {
  EXPECT_TRUE(cake::testing::violatedAt(compile(kGuardOnTileCount).schedules.at(0), {{"n", 2}}));
  const auto r = proveText(kGuardOnTileCount);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
}

// A fact that admits the empty tile loop (n_outer >= 0): the code after the
// loop then stores x, which no op wrote (data.uninitialized at n_outer = 0).
TEST(TripRestartHead, TailReadingRegistersOfAnAdmittedEmptyLoopIsNotProved) {
  const std::string text = replace(kNested, "    lm.assume(n_k >= 3)\n", "    lm.assume(n_k >= 3)\n    lm.assume(n_outer >= 0)\n");
  EXPECT_TRUE(violatedAtTrips(text, 0, 3));
  const auto r = proveText(text);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
}
