// Also (helper fphunt2, the same session): a split-K loop over the range
// [k0, k1), k1 = min(k0 + kpc, k_tiles), whose trip count reads two
// parameters. The covering values moved one parameter at a time and so
// checked the trip count 1 only ("checked: K in {1}, kpc in {1}"); a broken
// ring was "checked" clean. Its trip-count targets are now solved for with
// both parameters free (checks/model_check.cpp tiedBinding).
//
// A prefetch loop whose whole body is guarded (`if k + S < K:`), as in a
// software-pipelined producer: a prologue loads stages 0..S-1, the K loop
// loads k + S only while k + S < K, so its last S iterations run no
// operation. Before, lap induction refused every such loop ("iteration 20
// of prod's symbolic loop has no operation (a loop head would be
// ambiguous)", encoder/trip_proof.cpp shapeOf); now a loop's trailing
// empty iterations end it at its last operation and the steady offset is
// found from the systems (docs/z3.md "A prefetch loop whose last
// iterations are empty"). Its broken forms are still found by the bounded
// check and never proved; an empty iteration followed by one that runs is
// still refused.
#include "tests/common/build_paths.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "checks/model_check.h"
#include "encoder/trip_proof.h"
#include "ir/source.h"
#include "prove_util.h"
#include "split_k_range.h"
#include "test_util.h"

using namespace cake;

namespace trip_prefetch_tail_test {

// The ring's declarations (shared with the persistent forms below).
const char* kRingDecls = R"(    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    cons = lm.role(warps=[0, 1, 2, 3])
    prod = lm.role(warps=[4])
    inp = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[prod], cons=[cons], init_count=1, pipeline=inp)
    empty = lm.barrier(prod=[cons], cons=[prod], init_count=1, pipeline=inp)
)";

const std::string kPrefetchTail = R"(@cake.schedule(target="sm_90a")
def prefetch_tail(lm, A: LM.tma2d, K: LM.i32):
    lm.assume(K >= 4)
)" + std::string(kRingDecls) + R"(    with prod:
        for li in lm.range(0, 4):
            lm.wait(empty, iter=li - 4)
            smem_a.tma_load(A, coords=(0, 64 * li), iter=li, barrier=full)
        for it in lm.range(0, K):
            if it + 4 < K:
                lm.wait(empty, iter=it)
                smem_a.tma_load(A, coords=(0, 64 * (it + 4)), iter=it + 4, barrier=full)
    with cons:
        for it in lm.range(0, K):
            lm.wait(full, iter=it)
            lm.mma(acc, smem_a[it], smem_a[it], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=it)
)";

std::string edit(const std::string& from, const std::string& to) {
  return cake::testing::replace(kPrefetchTail, from, to);
}

bool violatedAtK(const std::string& text, int64_t K) {
  return cake::testing::violatedAt(cake::testing::compile(text).schedules.at(0), {{"K", K}});
}

}  // namespace trip_prefetch_tail_test

namespace tpt = trip_prefetch_tail_test;

TEST(TripPrefetchTail, GuardedPrefetchLoopIsProved) {
  EXPECT_FALSE(tpt::violatedAtK(tpt::kPrefetchTail, 9));
  auto r = cake::testing::proveText(tpt::kPrefetchTail, 4);  // K = 4: the least trip count the assumption allows
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction"), std::string::npos) << r.engine;
}

TEST(TripPrefetchTail, BrokenPrefetchLoopsAreNotProved) {
  const std::string broken[] = {
      // the refill waits one slot too early: it overwrites a stage still read
      tpt::edit("lm.wait(empty, iter=it)", "lm.wait(empty, iter=it - 1)"),
      // one load too many: the last one is never waited for
      tpt::edit("if it + 4 < K:", "if it + 3 < K:"),
      // one load too few: the consumer waits forever for the last stage
      tpt::edit("if it + 4 < K:", "if it + 5 < K:"),
      // the consumer releases the stage before its MMA retired
      tpt::edit("            lm.mma_wait(pending=0)\n            lm.arrive(empty, iter=it)",
           "            lm.arrive(empty, iter=it)\n            lm.mma_wait(pending=0)"),
  };
  for (const std::string& text : broken) {
    EXPECT_TRUE(tpt::violatedAtK(text, 8) || tpt::violatedAtK(text, 4)) << text;
    auto r = cake::testing::proveText(text, 4);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << text;
  }
}

TEST(TripPrefetchTail, EmptyIterationsBeforeLoadsAreStillRefused) {
  // the loads stop at tile 16 for every K: broken for K >= 21 (the consumer
  // waits for tile 16 forever); the empty iterations 12.. are not a tail of
  // the window's loop for every trip count, and the proof must not say proved
  const std::string text = tpt::edit("if it + 4 < K:", "if it + 4 < K and it < 12:");
  EXPECT_TRUE(tpt::violatedAtK(text, 24));
  auto r = cake::testing::proveText(text, 4);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.detail;
}

namespace trip_prefetch_tail_test {

// kSplitKRange: tests/encoder/split_k_range.h (also trip_from_zero_test.cpp's).

}  // namespace trip_prefetch_tail_test

TEST(TripPrefetchTail, SplitKRangeCoveringValuesReachTwoLaps) {
  auto mod = cake::testing::compile(cake::testing::kSplitKRange);
  ASSERT_EQ(mod.schedules.size(), 1u);
  std::set<int64_t> trips;
  for (const auto& b : checks::coveringBindings(mod.schedules[0])) {
    const int64_t k_tiles = (b.params.at(3) + 63) / 64, kpc = b.params.at(4);
    const int64_t k0 = b.block_idx[1] * kpc;
    trips.insert(std::max<int64_t>(std::min(k0 + kpc, k_tiles) - k0, 0));
  }
  EXPECT_TRUE(trips.count(1));
  EXPECT_TRUE(trips.count(5)) << "a lap past the 4-stage ring";
  EXPECT_TRUE(trips.count(9)) << "two laps past it";
  // the refill one slot early is met by the bounded check
  const std::string broken =
      cake::testing::replace(cake::testing::kSplitKRange, "iter=k - k0 - 4)", "iter=k - k0 - 5)");
  EXPECT_TRUE(cake::testing::violatedAt(cake::testing::compile(broken).schedules.at(0), {{"K", 64 * 9}, {"kpc", 9}}));
}

// The persistent proof and a tile's part before its K loop that reads the
// tile's ring start (helper tkpro, session 29; docs/z3.md "A per-tile
// prologue that moves with the ring"): the part gets a copy per ring start,
// built from the grid whose tiles start there (encoder/trip_proof.cpp
// presByRingStart). Before, every such part was refused ("t * K - 1 reads
// the tile's ring start outside the K loop").
namespace trip_prefetch_tail_test {

// A 4-slot ring between a TMA producer and an MMA consumer, both inside a
// task loop over n_tasks with the ring global (`t * K + it`): the schedule's
// head (`name`, its assumptions) and the consumer; the producer in between.
std::string persistentRing(const std::string& name, const std::string& assumes, const std::string& prod) {
  return "@cake.schedule(target=\"sm_90a\")\ndef " + name +
         "(lm, A: LM.tma2d, K: LM.i32, n_tasks: LM.i32):\n" + assumes + "    lm.assume(n_tasks >= 1)\n" + kRingDecls + R"(    with prod:
        for t in lm.range(0, n_tasks):
)" + prod + R"(    with cons:
        for t in lm.range(0, n_tasks):
            for it in lm.range(0, K):
                lm.wait(full, iter=t * K + it)
                lm.mma(acc, smem_a[t * K + it], smem_a[t * K + it], init=True)
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=t * K + it)
)";
}

// A producer that, at every tile's start, waits until the consumer released
// the slot of the tile before's last K iteration (a ring position that moves
// with the ring: `t * K - 1`), then runs a plain K loop.
const std::string kTileStartWait = persistentRing("tile_start_wait", "    lm.assume(K >= 1)\n", R"(            lm.wait(empty, iter=t * K - 1)
            for it in lm.range(0, K):
                lm.wait(empty, iter=t * K + it - 4)
                smem_a.tma_load(A, coords=(0, 64 * it), iter=t * K + it, barrier=full)
)");

// The prefetch-tail producer of kPrefetchTail inside a task loop, as
// ThunderKittens' lcsf runs it: a prologue per tile loading ring positions
// t * K + 0..3, then the K loop's refills while it + 4 < K.
const std::string kPersistentPrologue =
    persistentRing("prefetch_tail_persistent", "    lm.assume(K >= 4)\n    lm.assume(K % 4 == 0)\n",
                   R"(            for li in lm.range(0, 4):
                lm.wait(empty, iter=t * K + li - 4)
                smem_a.tma_load(A, coords=(0, 64 * li), iter=t * K + li, barrier=full)
            for it in lm.range(0, K):
                if it + 4 < K:
                    lm.wait(empty, iter=t * K + it)
                    smem_a.tma_load(A, coords=(0, 64 * (it + 4)), iter=t * K + it + 4, barrier=full)
)");

bool violatedAtKTasks(const std::string& text, int64_t K, int64_t n_tasks) {
  return cake::testing::violatedAt(cake::testing::compile(text).schedules.at(0), {{"K", K}, {"n_tasks", n_tasks}});
}

// `base` with each edit (from, to) is met by the bounded check at some K x
// n_tasks and not proved.
using Edits = std::vector<std::pair<std::string, std::string>>;
void expectEditsMetAndNotProved(const std::string& base, const Edits& edits, std::initializer_list<int64_t> Ks,
                                std::initializer_list<int64_t> tasks) {
  for (const auto& [from, to] : edits) {
    const std::string text = cake::testing::replace(base, from, to);
    bool met = false;
    for (int64_t K : Ks)
      for (int64_t n : tasks) met = met || violatedAtKTasks(text, K, n);
    EXPECT_TRUE(met) << text;
    auto r = cake::testing::proveText(text, 4);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << text;
  }
}

std::string lcsfFile(const std::string& rel) {
  std::string err;
  auto file = ir::readSourceFile(std::string(CAKE_SOURCE_DIR) + "/corpus/" + rel, err);
  EXPECT_TRUE(file) << err;
  return file ? std::string(file->text) : std::string();
}

}  // namespace trip_prefetch_tail_test

TEST(TripPrefetchTail, PersistentTileStartWaitIsProved) {
  for (int64_t K : {1, 3, 5})
    for (int64_t n : {1, 2, 3}) EXPECT_FALSE(tpt::violatedAtKTasks(tpt::kTileStartWait, K, n)) << K << " " << n;
  auto r = cake::testing::proveText(tpt::kTileStartWait, 4);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction over tiles and K"), std::string::npos) << r.engine;
}

TEST(TripPrefetchTail, BrokenPersistentTileStartWaitsAreNotProved) {
  tpt::expectEditsMetAndNotProved(
      tpt::kTileStartWait,
      {
          // the tile start waits for a slot of its own tile: nobody released it yet (a hang)
          {"lm.wait(empty, iter=t * K - 1)", "lm.wait(empty, iter=t * K + 3)"},
          // the tile start waits for its own tile's last slot (a hang)
          {"lm.wait(empty, iter=t * K - 1)", "lm.wait(empty, iter=(t + 1) * K - 1)"},
          // the refill waits for the release of the slot before the one it
          // loads into: it overwrites a stage still read (a wait for `it - 3`
          // would be correct: the consumer releases in order)
          {"lm.wait(empty, iter=t * K + it - 4)", "lm.wait(empty, iter=t * K + it - 5)"},
      },
      {1, 2, 5}, {1, 2, 3});
}

// The prologue itself has its copies per ring start, and the K loop's
// guard `it + 4 < K` its copies of the tile's last four K iterations
// (docs/z3.md "The last K iterations, by their distance to the tile's
// end"); those iterations leave out the refill's wait (session 35) and its
// TMA load, whose write's generation decides nothing where each view index
// is written once a run (session 36, docs/z3.md "Left-out TMA writes: each
// view index written once a run"). Since session 37 both kinds of copy are
// laid out together (docs/z3.md "Copies per ring start and near the tile's
// end together"; the copies near the end are empty here: the whole K
// iteration is the refill), and the proof explores tile lengths that are
// multiples of 4 only (docs/z3.md "Tile lengths the facts allow"). Clean in
// the bounded check and proved; its broken forms are met by the bounded
// check and not proved.
TEST(TripPrefetchTail, PersistentPrologueIsProvedAndItsBrokenFormsAreNotProved) {
  for (int64_t K : {4, 8})
    for (int64_t n : {1, 2, 3}) EXPECT_FALSE(tpt::violatedAtKTasks(tpt::kPersistentPrologue, K, n)) << K << " " << n;
  auto r = cake::testing::proveText(tpt::kPersistentPrologue, 4);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction over tiles and K"), std::string::npos) << r.engine;
  EXPECT_NE(r.engine.find("tile lengths multiples of 4 (the assumptions)"), std::string::npos) << r.engine;
  tpt::expectEditsMetAndNotProved(
      tpt::kPersistentPrologue,
      {
          // the refill guard one short: it loads the next tile's first slot, which its prologue loads too
          {"if it + 4 < K:", "if it + 3 < K:"},
          // the refill guard one too many: the tile's last slot is never loaded
          {"if it + 4 < K:", "if it + 5 < K:"},
          // the refill waits for the slot before: it loads into the slot the consumer still reads
          {"lm.wait(empty, iter=t * K + it)", "lm.wait(empty, iter=t * K + it - 1)"},
          // the prologue loads a slot too early: into a stage the tile before still reads
          {"lm.wait(empty, iter=t * K + li - 4)", "lm.wait(empty, iter=t * K + li - 5)"},
          // the prologue's wait on the wrong phase (a lap early)
          {"lm.wait(empty, iter=t * K + li - 4)", "lm.wait(empty, iter=t * K + li - 8)"},
          // the refill's wait dropped
          {"                    lm.wait(empty, iter=t * K + it)\n", ""},
      },
      {4, 8}, {1, 2, 3});
}

// A left-out refill's write is taken only where the producer writes each
// view index once a run (docs/z3.md "Left-out TMA writes: each view index
// written once a run"): its generation then decides no staleness in a run.
// Where an index is written twice the generation the copies take from the
// grid could hide a stale read; such forms are refused by that check (and
// met by the bounded check). A five-deep prefetch over the four-stage ring
// passes the check where the facts keep K >= 5 and is refused with K >= 4,
// where a tile of four iterations loads the next tile's first slot in its
// prologue.
TEST(TripPrefetchTail, LeftOutRefillWritesAreTakenOnlyWhereEachIndexIsWrittenOnce) {
  // the refill guard one short: tile t's last refill loads t * K + K, which
  // tile t + 1's prologue loads again
  const std::string short_guard = cake::testing::replace(tpt::kPersistentPrologue, "if it + 4 < K:", "if it + 3 < K:");
  EXPECT_TRUE(tpt::violatedAtKTasks(short_guard, 4, 3));
  auto r = cake::testing::proveText(short_guard, 4);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.detail.find("prod leaves out a write of smem_a near its tile's end"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("its K iteration writes smem_a at ring offset 4, not between"), std::string::npos)
      << r.detail;
  // five loads ahead
  const std::string deep = tpt::persistentRing("prefetch_five", "    lm.assume(K >= 5)\n", R"(            for li in lm.range(0, 5):
                lm.wait(empty, iter=t * K + li - 4)
                smem_a.tma_load(A, coords=(0, 64 * li), iter=t * K + li, barrier=full)
            for it in lm.range(0, K):
                if it + 5 < K:
                    lm.wait(empty, iter=t * K + it + 1)
                    smem_a.tma_load(A, coords=(0, 64 * (it + 5)), iter=t * K + it + 5, barrier=full)
)");
  for (int64_t K : {5, 6, 9})
    for (int64_t n : {1, 2, 3}) EXPECT_FALSE(tpt::violatedAtKTasks(deep, K, n)) << K << " " << n;
  auto rd = cake::testing::proveText(deep, 5);  // (a checked binding the facts allow: K = 5)
  // (since session 37 the prologue's copies and the tail's together: docs/z3.md
  // "Copies per ring start and near the tile's end together")
  EXPECT_EQ(rd.outcome, encoder::Outcome::Proved) << rd.detail;
  // its broken forms, each met by the bounded check and not proved
  tpt::expectEditsMetAndNotProved(
      deep,
      {
          // the refill waits for the slot before the one it loads into: the consumer still reads it
          {"lm.wait(empty, iter=t * K + it + 1)", "lm.wait(empty, iter=t * K + it)"},
          // the prologue's fifth load waits a slot early
          {"lm.wait(empty, iter=t * K + li - 4)", "lm.wait(empty, iter=t * K + li - 5)"},
          // the refill guard one too many: the tile's last slot is never loaded (a hang)
          {"if it + 5 < K:", "if it + 6 < K:"},
          // the refill guard one short: the next tile's first slot is loaded twice
          {"if it + 5 < K:", "if it + 4 < K:"},
      },
      {5, 6, 9}, {1, 2, 3});
  const std::string deep4 = cake::testing::replace(deep, "lm.assume(K >= 5)", "lm.assume(K >= 4)");
  EXPECT_TRUE(tpt::violatedAtKTasks(deep4, 4, 3));
  auto r4 = cake::testing::proveText(deep4, 4);
  EXPECT_NE(r4.outcome, encoder::Outcome::Proved) << r4.detail;
  EXPECT_NE(r4.detail.find("its part before the K loop writes smem_a outside its tile's first 4 ring indices"),
            std::string::npos)
      << r4.detail;
  // A second writer of the view (the consumer writes half of each stage it
  // has read, before it releases it; clean): a read's generation is then
  // capped by both writers', refused by the argument's first condition.
  std::string two = cake::testing::replace(tpt::kPersistentPrologue, "    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)\n",
                                           "    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)\n"
                                           "    z      = lm.regs(shape=(64, 64), dtype=lm.bf16)\n");
  two = cake::testing::replace(two, "                lm.mma_wait(pending=0)\n",
                               "                lm.mma_wait(pending=0)\n                lm.fill(z, 0.0)\n"
                               "                lm.copy(smem_a[t * K + it][0:64, :], z)\n                lm.fence_proxy()\n");
  for (int64_t n : {1, 3}) EXPECT_FALSE(tpt::violatedAtKTasks(two, 4, n)) << n;
  auto r2 = cake::testing::proveText(two, 4);
  EXPECT_NE(r2.outcome, encoder::Outcome::Proved) << r2.detail;
  EXPECT_NE(r2.detail.find("and cons writes smem_a too"), std::string::npos) << r2.detail;
}

// ThunderKittens' lcsf (corpus/gemm/sm90_tk_lcsf_finish_alias.cake): proved
// since session 37 (docs/z3.md "Copies per ring start and near the tile's
// end together", "Tile lengths the facts allow"); its broken forms (the
// corpus twin without the finish_finished wait, the wait on the wrong task,
// stage 3 loaded before it, and `K % 4 == 0` weakened or dropped: a tile
// whose length is no multiple of 4 starts the next one at a ring position
// whose stages 0-2 include stage 3, the finish block's) are met by the
// bounded check and not proved.
namespace trip_prefetch_tail_test {

// Each broken form's proof explores 4 to 9 CPU s before it meets the race.
// The short form leaves two to the long form (label `slow`), each with a
// kept neighbour that breaks the same argument the same way: `K % 4`
// dropped (kept: weakened to `K % 2`, the tile lengths the assumptions
// allow again not multiples of 4) and the wait moved after stage 3's loads
// (kept: the corpus twin, the wait dropped, where the same load overwrites
// the finish block). About 13 of the six proofs' 31 CPU s (docs/ci.md, session 53 citests53).
void lcsfFinishAliasIsProvedAndItsBrokenFormsAreNotProved(bool all) {
  const std::string good = lcsfFile("gemm/sm90_tk_lcsf_finish_alias.cake");
  ASSERT_FALSE(good.empty());
  EXPECT_FALSE(violatedAtKTasks(good, 4, 2));
  auto r = cake::testing::proveText(good, 4);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("tile lengths multiples of 4 (the assumptions)"), std::string::npos) << r.engine;
  // the tile lengths: K % 4 weakened to K % 2, or dropped (each met at K = 6:
  // the tile after a six-iteration one loads stage 3 before its wait)
  Edits tile_lengths = {{"lm.assume(K % 4 == 0)", "lm.assume(K % 2 == 0)"}};
  if (all) tile_lengths.push_back({"    lm.assume(K % 4 == 0)\n", ""});
  expectEditsMetAndNotProved(good, tile_lengths, {6}, {2});
  const std::string wait = "            lm.wait(finish_finished, iter=t - 1)\n";
  const std::string load_b3 =
      "            smem_b.tma_load(B, coords=(0, 192), iter=t * K + 3, barrier=inputs_arrived)\n";
  // the corpus twin: the wait dropped
  const std::string twin = lcsfFile("bugs/sync.race/tk_lcsf_next_task_load_over_finish_block.cake");
  expectEditsMetAndNotProved(twin, {{"", ""}}, {4, 8}, {2, 3});
  expectEditsMetAndNotProved(good,
                             {
                                 // a task early
                                 {"lm.wait(finish_finished, iter=t - 1)", "lm.wait(finish_finished, iter=t - 2)"},
                             },
                             {4, 8}, {2, 3});
  // after stage 3's loads
  if (all) expectEditsMetAndNotProved(cake::testing::replace(good, wait, ""), {{load_b3, load_b3 + wait}}, {4, 8}, {2, 3});
}

}  // namespace trip_prefetch_tail_test

TEST(TripPrefetchTail, LcsfFinishAliasIsProvedAndItsBrokenFormsAreNotProved) {
  tpt::lcsfFinishAliasIsProvedAndItsBrokenFormsAreNotProved(false);
}
TEST(TripPrefetchTail, SlowLcsfFinishAliasIsProvedAndItsBrokenFormsAreNotProved) {
  tpt::lcsfFinishAliasIsProvedAndItsBrokenFormsAreNotProved(true);
}

// The assumptions' least K trip count (docs/z3.md "The assumptions' least K
// trip count"): a consumer that, after its K loop, waits for the tile's
// last two outputs (`iter=t * K + K - 2`, `t * K + K - 1`: the ring end)
// before it writes a finish block over both output stages, as
// ThunderKittens' lcsf does. A tile of one K iteration names the phase
// below 0 in tile 0 (the builder leaves that wait out), so the part's copy
// for ring end 1 differed beyond slots and phases and the proof stopped
// there ("... with tiles of 1 iterations"); with `lm.assume(K >= 2)` no run
// has such a tile: the proof explores tiles of at least 2 iterations and
// builds no copy for a ring end no explored run reaches.
namespace trip_prefetch_tail_test {

const std::string kFinishAfterRing = R"(@cake.schedule(target="sm_90a")
def finish_after_ring(lm, A: LM.tma2d, O: LM.tma2d, F: LM.tma3d, K: LM.i32, n_tasks: LM.i32):
    lm.assume(K >= 2)
    lm.assume(n_tasks >= 1)
    pool     = lm.smem(49152)
    smem_a   = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_out = pool.view(offset=32768, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_fin = pool.view(offset=32768, shape=(64, 64), dtype=lm.f32,  stages=1)
    acc   = lm.regs(shape=(64, 64), dtype=lm.f32)
    out   = lm.regs(shape=(64, 64), dtype=lm.bf16)
    state = lm.regs(shape=(64, 64), dtype=lm.f32)
    cons = lm.role(warps=[0, 1, 2, 3])
    prod = lm.role(warps=[4, 5, 6, 7])
    inp  = lm.pipeline(stages=4)
    outp = lm.pipeline(stages=2)
    full      = lm.barrier(prod=[prod], cons=[cons], init_count=1, pipeline=inp)
    empty     = lm.barrier(prod=[cons], cons=[prod], init_count=1, pipeline=inp)
    out_full  = lm.barrier(prod=[cons], cons=[prod], init_count=1, pipeline=outp)
    out_empty = lm.barrier(prod=[prod], cons=[cons], init_count=1, pipeline=outp)
    with prod:
        for t in lm.range(0, n_tasks):
            for it in lm.range(0, K):
                g = t * K + it
                lm.wait(empty, iter=g - 4)
                smem_a.tma_load(A, coords=(0, 64 * it), iter=g, barrier=full)
                lm.wait(out_full, iter=g)
                smem_out.tma_store(O, coords=(64 * t, 64 * it), iter=g)
                lm.tma_store_commit()
                lm.tma_store_wait(pending=0)
                lm.arrive(out_empty, iter=g)
    with cons:
        for t in lm.range(0, n_tasks):
            lm.fill(state, 0.0)
            for it in lm.range(0, K):
                g = t * K + it
                lm.wait(out_empty, iter=g - 2)
                lm.wait(full, iter=g)
                lm.mma(acc, smem_a[g], smem_a[g], init=True)
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=g)
                lm.binary(state, state, acc, op="add")
                lm.copy(out, acc)
                lm.copy(smem_out[g], out)
                lm.fence_proxy()
                lm.arrive(out_full, iter=g)
            lm.wait(out_empty, iter=t * K + K - 2)
            lm.wait(out_empty, iter=t * K + K - 1)
            lm.copy(smem_fin[0], state)
            lm.fence_proxy()
            smem_fin.tma_store(F, coords=(t, 0, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
)";

}  // namespace trip_prefetch_tail_test

TEST(TripPrefetchTail, RingEndsBelowTheAssumedLeastKAreNotExplored) {
  for (int64_t K : {2, 3, 5})
    for (int64_t n : {1, 2, 3}) EXPECT_FALSE(tpt::violatedAtKTasks(tpt::kFinishAfterRing, K, n)) << K << " " << n;
  auto r = cake::testing::proveText(tpt::kFinishAfterRing, 4);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("every K >= 2 K iterations"), std::string::npos) << r.engine;
  EXPECT_NE(r.engine.find("tiles of 2.."), std::string::npos) << r.engine;
  // Without the bound (K >= 1: also correct, a tile of one iteration waits
  // for t - 1 and t) the copy for ring end 1 differs: not proved, as before.
  const std::string any_k = cake::testing::replace(tpt::kFinishAfterRing, "lm.assume(K >= 2)", "lm.assume(K >= 1)");
  EXPECT_FALSE(tpt::violatedAtKTasks(any_k, 1, 2));
  auto r1 = cake::testing::proveText(any_k, 4);
  EXPECT_NE(r1.outcome, encoder::Outcome::Proved) << r1.detail;
  EXPECT_NE(r1.detail.find("with tiles of 1 iterations"), std::string::npos) << r1.detail;
  const std::string waits =
      "            lm.wait(out_empty, iter=t * K + K - 2)\n            lm.wait(out_empty, iter=t * K + K - 1)\n";
  const std::string fin = "            lm.copy(smem_fin[0], state)\n";
  tpt::expectEditsMetAndNotProved(tpt::kFinishAfterRing,
                                  {
                                      // the tile's last output's store may still read the stage the finish overwrites
                                      {"            lm.wait(out_empty, iter=t * K + K - 1)\n", ""},
                                      // the finish block written before the waits
                                      {waits + fin, fin + waits},
                                  },
                                  {2, 3}, {1, 2});
  // The least K one too low, where a K that low is broken: the reduced lcsf
  // producer's prologue loads four slots per tile whatever K is, so a tile of
  // three iterations loads the next tile's first slot, which that tile's
  // prologue loads again (met at K = 3).
  tpt::expectEditsMetAndNotProved(tpt::kPersistentPrologue,
                                  {{"    lm.assume(K >= 4)\n    lm.assume(K % 4 == 0)\n", "    lm.assume(K >= 3)\n"}},
                                  {3}, {1, 2});
  // ... and the lcsf file (its finish block over stage 3, the slot of
  // t * K + 3 only when K % 4 == 0)
  const std::string lcsf = tpt::lcsfFile("gemm/sm90_tk_lcsf_finish_alias.cake");
  ASSERT_FALSE(lcsf.empty());
  tpt::expectEditsMetAndNotProved(lcsf, {{"    lm.assume(K >= 4)\n    lm.assume(K % 4 == 0)\n", "    lm.assume(K >= 3)\n"}},
                                  {3, 5}, {1, 2});
}
