// Lap induction (encoder/trip_proof.h) past its first limits (docs/z3.md
// "Proofs for every trip count"): thread-block clusters, views over the
// same bytes that move by different laps, guards on parameters, the tile
// count read inside the tile loop, loops from lm.instance() with a step,
// predecessors that differ in private registers, a later start for the
// body check and tile loops with a step from the instance. Each extension
// is shown proving a correct schedule and not proving broken variants of it
// (each confirmed broken by the bounded explicit-state check).
#include "tests/common/build_paths.h"
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "encoder/simulator.h"
#include "encoder/trip_proof.h"
#include "encoder/trip_sizes.h"
#include "persistent_kernels.h"
#include "prove_util.h"
#include "test_util.h"
#include "tile_sync.h"

using namespace cake;

namespace {

// The proof under the deterministic budgets of test_util.h
// (`persistent_split`: TripProofOptions', 0 the default).
// (`reduce`: the partial-order reduction, TripProofOptions')
encoder::ModelCheckResult proveGap(const ir::Schedule& s, int64_t persistent_split = 0, bool reduce = true) {
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = 64;
  encoder::TripProofOptions o;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  o.persistent_split = persistent_split;
  o.reduce = reduce;
  return encoder::proveEveryTripCount(s, s.target, {b}, o);
}

using cake::testing::violatedAt;

// Does the bounded check meet a violation at some K in `ks`?
bool brokenAtSomeK(const ir::Schedule& s, const std::vector<int64_t>& ks) {
  return cake::testing::brokenOnGrid(s, {{"K", ks}});
}

using cake::testing::expectBrokenNotProved;  // (prove_util.h: the same options as proveGap's)

using cake::testing::corpusText;

// The cluster mainloop of test_util.h (two CTAs, B multicast in halves,
// each slot released in both CTAs, lm.cluster_sync() first and last) with
// a one-slot ring, which keeps the proof's state space small.
std::string oneSlotCluster() {
  using cake::testing::replace;
  std::string t = cake::testing::kClusterMulticast;
  t = replace(t, "shape=(64, 64),  dtype=lm.bf16, stages=2)", "shape=(64, 64),  dtype=lm.bf16, stages=1)");
  t = replace(t, "shape=(128, 64), dtype=lm.bf16, stages=2)", "shape=(128, 64), dtype=lm.bf16, stages=1)");
  t = replace(t, "shape=(64, 64),  dtype=lm.bf16, stages=4)", "shape=(64, 64),  dtype=lm.bf16, stages=2)");
  t = replace(replace(t, "count=2, prod=[load]", "count=1, prod=[load]"), "count=2, prod=[math]", "count=1, prod=[math]");
  t = replace(t, "iter=k - 2", "iter=k - 1");
  return replace(t, "smem_bh[2 * (k % 2) + rank]", "smem_bh[rank]");
}

}  // namespace

// docs/z3.md "Clusters": every CTA of the cluster is a part of the system;
// the rank (lm.block_idx(0) % 2) is the CTA's coordinate whatever the
// cluster's block index.
TEST(TripProofGaps, ClusterMainloopIsProvedAndItsBugsAreNot) {
  const std::string cluster = oneSlotCluster();
  auto mod = cake::testing::compile(cluster);
  ASSERT_FALSE(mod.schedules.empty());
  auto r = proveGap(mod.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;

  using cake::testing::replace;
  const std::string loop_end = "            lm.arrive(empty, iter=k, cta=1)\n";
  struct Bug { const char* what; std::string text; };
  const std::vector<Bug> bugs = {
      // no cluster barrier before the first remote arrive / multicast
      {"sync.cluster-init",
       replace(replace(cluster, "    with load:\n        lm.cluster_sync()\n", "    with load:\n"),
               "    with math:\n        lm.cluster_sync()\n", "    with math:\n")},
      // no cluster barrier at the end: a CTA exits while its peer may still arrive
      {"sync.cluster-exit",
       replace(replace(cluster, loop_end + "        lm.cluster_sync()\n", loop_end),
               "multicast=3)\n        lm.cluster_sync()\n", "multicast=3)\n")},
      // the slot released in the own CTA only: the peer's producer
      // multicasts its next half while this CTA's wgmma may still read it
      {"release own CTA only",
       replace(replace(replace(cluster, loop_end, ""), "iter=k, cta=0)", "iter=k)"), "init_count=2", "init_count=1")},
      // the producer waits one lap late: a race from the second iteration on
      {"wait one lap late", replace(cluster, "iter=k - 1)", "iter=k - 2)")},
  };
  for (const Bug& b : bugs)
    expectBrokenNotProved(b.text, [](const ir::Schedule& s) { return brokenAtSomeK(s, {1, 2, 3}); }, b.what);
}

// docs/z3.md "A reduction for cluster proofs": the partial-order reduction
// of a cluster's lap exploration (precise exit paths, the cluster barrier's
// completion, waits that go on only at their own phase, the cycle proviso
// checked on the graph) decides as the full interleaving does. Every
// mutant of the one-slot cluster mainloop (a synchronization line dropped,
// an iteration, a target CTA or a multicast mask changed) is proved with
// the reduction exactly when it is proved without it.
using Edits = std::vector<std::pair<std::string, std::string>>;
const Edits kClusterEdits = {
    {"iter=k)", "iter=k + 1)"}, {"iter=k)", "iter=k - 1)"}, {"iter=k - 1)", "iter=k)"},
    {"iter=k - 1)", "iter=k - 2)"}, {"iter=k,", "iter=k + 1,"}, {"cta=0)", "cta=1)"},
    {"cta=1)", "cta=0)"}, {"multicast=3", "multicast=1"}, {"multicast=3", "multicast=2"}};
// (`edits`: one mutant per line holding `from`, with `to` there; `what`:
// how the summary line names the base)
void clusterReductionDecidesAsTheFullInterleaving(const std::string& base, const Edits& edits = kClusterEdits,
                                                   const char* what_base = "cluster reduction",
                                                   int min_compared = 20) {
  const auto mutants = cake::testing::lineMutants(base, edits,
                                                  {"lm.cluster_sync()", "lm.wait(", "lm.arrive(", "lm.mma_wait(",
                                                   "lm.mma_commit()", "lm.tma_store_wait(", "lm.fence_proxy()"});
  int proved = 0, compared = 0, undecided = 0;
  for (const auto& [what, text] : mutants) {
    ir::DiagnosticSink sink;
    auto mod = ir::compileModule(ir::makeSourceFile("mutant.cake", text), {}, sink);
    if (sink.hasErrors() || !mod || mod->schedules.empty()) continue;
    const ir::Schedule& s = mod->schedules[0];
    auto reduced = proveGap(s);
    auto full = proveGap(s, 0, false);
    auto verdict = [](const encoder::ModelCheckResult& r) {
      return r.outcome == encoder::Outcome::Proved ? "proved" : r.outcome == encoder::Outcome::Violation ? "violation" : "unknown";
    };
    std::cout << "  " << what << ": reduced " << verdict(reduced) << ", full " << verdict(full) << "\n";
    // the unreduced exploration past its state cap decides nothing: not
    // compared (the persistent cluster kernel's correct mutants)
    if (full.outcome != encoder::Outcome::Proved && (full.engine + full.detail).find("state cap") != std::string::npos) {
      ++undecided;
      continue;
    }
    EXPECT_EQ(reduced.outcome == encoder::Outcome::Proved, full.outcome == encoder::Outcome::Proved)
        << what << "\nreduced: " << reduced.engine << reduced.detail << "\nfull: " << full.engine << full.detail;
    ++compared;
    proved += full.outcome == encoder::Outcome::Proved;
    if (what == "base") EXPECT_EQ(reduced.outcome, encoder::Outcome::Proved) << reduced.detail;
  }
  std::cout << "[ " << what_base << " ] " << compared << " mutants compared, " << proved << " proved by both, "
            << undecided << " past the unreduced exploration's state cap\n";
  EXPECT_GE(compared, min_compared);
}

TEST(TripProofGaps, ClusterReductionDecidesAsTheFullInterleaving) {
  clusterReductionDecidesAsTheFullInterleaving(oneSlotCluster());
}

// docs/z3.md "A reduction for persistent cluster proofs" (session 16,
// helper restart): the persistent explorer's reduction over a 2-CTA
// cluster (the CTA objects of done pcs, the cluster barrier's completion,
// waits that go on only at their own phase, an enabled cluster wait that
// commutes with arrivals) decides as the unreduced exploration does. The
// base is corpus/bugs/sync.race/sm90_cluster_persistent_iter_restart_fixed
// with one K iteration per tile (K <= 64: the unreduced exploration stays
// small); the mutants drop each synchronization line (the final
// lm.cluster_sync of a role: a CTA that exits while its peer still
// multicasts into it; a store wait or fence of the epilogue), restart the
// ring per tile (the broken sibling), and change iterations, target CTAs
// and multicast masks.
TEST(TripProofGaps, SlowPersistentClusterReductionDecidesAsTheFullExploration) {
  using cake::testing::replace;
  std::string base = corpusText("corpus/bugs/sync.race/sm90_cluster_persistent_iter_restart_fixed.cake");
  base = replace(base, "lm.assume(K <= 128)", "lm.assume(K <= 64)");
  const Edits edits = {{"it = t * k_tiles + k", "it = k"},     {"iter=it - 2)", "iter=it - 1)"},
                       {"iter=it - 2)", "iter=it - 3)"},       {"iter=it)", "iter=it + 1)"},
                       {"cta=0)", "cta=1)"},                   {"cta=1)", "cta=0)"},
                       {"multicast=3", "multicast=1"},         {"init_count=2", "init_count=1"},
                       {"            lm.tma_store_wait(pending=0)", "            lm.tma_store_wait(pending=1)"}};
  clusterReductionDecidesAsTheFullInterleaving(base, edits, "persistent cluster reduction", 15);
}

// docs/z3.md "Windows that stop at a wait's own phase" (session 20,
// helper ppfin): the persistent explorer's reduction of a one-CTA kernel,
// whose windows now go on past a wait only where its own phase can
// complete, decides as the unreduced exploration does. The base is
// corpus/gemm/sm90_pingpong.cake with a ring of two stages and at most two
// K iterations per tile (the unreduced exploration stays small: 25,311
// states); the mutants drop each synchronization line, swap neighbouring
// statements, and release, wait for or read the ring a position off.
TEST(TripProofGaps, SlowPersistentReductionDecidesAsTheFullExploration) {
  using cake::testing::replace;
  std::string base = corpusText("corpus/gemm/sm90_pingpong.cake");
  base = cake::testing::withFactOnK(base, "K <= 128");
  base = replace(base, "shape=(64, 64),  dtype=lm.bf16, stages=4", "shape=(64, 64),  dtype=lm.bf16, stages=2");
  base = replace(base, "shape=(128, 64), dtype=lm.bf16, stages=4", "shape=(128, 64), dtype=lm.bf16, stages=2");
  base = replace(base, "lm.pipeline(stages=4)", "lm.pipeline(stages=2)");
  base = replace(base, "iter=it - 4", "iter=it - 2");
  const Edits edits = {{"iter=it - 2)", "iter=it - 1)"},        {"iter=it - 2)", "iter=it - 3)"},
                       {"lm.wait(full, iter=it)", "lm.wait(full, iter=it + 1)"},
                       {"lm.arrive(empty, iter=it)", "lm.arrive(empty, iter=it + 1)"},
                       {"lm.arrive(empty, iter=it)", "lm.arrive(empty, iter=it - 1)"},
                       {"smem_a[it]", "smem_a[it + 1]"},
                       {"stage=1 - lm.instance())", "stage=lm.instance())"}};
  clusterReductionDecidesAsTheFullInterleaving(base, edits, "persistent one-CTA reduction", 15);
}

// The same with the two-slot ring of test_util.h (the full interleaving of
// the correct schedule: about 10^6 states).
TEST(TripProofGaps, SlowClusterReductionDecidesAsTheFullInterleavingTwoSlots) {
  clusterReductionDecidesAsTheFullInterleaving(cake::testing::kClusterMulticast);
}

// docs/z3.md step 4, "Views over the same bytes": the epilogue's staging
// view over the drained A ring moves by no lap per period and the ring by
// one, which matters only to a read that compares laps across views.
TEST(TripProofGaps, EpilogueViewOverTheDrainedRingIsProved) {
  const std::string text = corpusText("corpus/layout/good_overlap_epilogue_over_drained_ring.cake");
  auto good = cake::testing::compile(text);
  ASSERT_FALSE(good.schedules.empty());
  auto r = proveGap(good.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;

  struct Bug { const char* what; std::string text; };
  const std::vector<Bug> bugs = {
      // the epilogue over the live ring: no barrier orders it after the
      // other warpgroup's last wgmma (bad_overlap_epilogue_over_live_ring)
      {"live ring", cake::testing::replace(text, "        lm.sync(epi_sync)\n", "")},
      // nothing written through smem_c: the TMA store reads the ring's
      // bytes through it, comparing laps with the A ring's loads
      {"read by laps", cake::testing::replace(text, "        lm.copy(smem_c[lm.instance()], acc)\n", "")},
  };
  for (const Bug& b : bugs)
    expectBrokenNotProved(b.text, [](const ir::Schedule& s) { return brokenAtSomeK(s, {64, 320}); }, b.what);
}

// docs/z3.md step 1, "Guards on parameters": `if M > N:` and `elif m_blk +
// 128 >= M:` read unbounded parameters (and the block index) only to choose
// a body; one proof per outcome of the two guards covers every value. The
// broken forms (a slot released before its wgmma retired, under one outcome
// only) are not proved.
TEST(TripProofGaps, GuardsOnUnboundedParametersAreProvedPerOutcome) {
  auto good = cake::testing::compile(corpusText("corpus/basics/guard_two_params_fixed.cake"));
  ASSERT_FALSE(good.schedules.empty());
  auto r = proveGap(good.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("for each outcome of the guards (4 cases)"), std::string::npos) << r.engine;

  for (const char* rel : {"corpus/bugs/sync.race/sm90_release_before_retire_when_m_gt_n.cake",
                          "corpus/bugs/sync.race/sm90_interior_tile_releases_early.cake"}) {
    auto bad = cake::testing::compile(corpusText(rel));
    ASSERT_FALSE(bad.schedules.empty()) << rel;
    const ir::Schedule& s = bad.schedules[0];
    // M > N, and a tile inside the matrix (m_blk + 128 < M); N = 64 explored only where N = 1 shows nothing
    const bool broken = cake::testing::violatedAt(s, {{"M", 1024}, {"N", 1}, {"K", 192}}) ||
                        cake::testing::violatedAt(s, {{"M", 1024}, {"N", 64}, {"K", 192}});
    EXPECT_TRUE(broken) << rel;
    auto p = proveGap(s);
    EXPECT_NE(p.outcome, encoder::Outcome::Proved) << rel << ": " << p.engine;
  }
}

// docs/z3.md "Persistent kernels", step 5: a K iteration entered from the
// part before the loop and from the iteration before must have one
// previous synchronous access where another agent can meet it; accesses of
// atoms no other process and no async op touches (the role's registers)
// may differ. sm100_col_sum_persistent enters its K loop from
// `lm.fill(acc)` and from `lm.binary(acc, ...)`: proved since. Broken
// variants (each confirmed by the bounded check) are not.
TEST(TripProofGaps, PersistentLoopEnteredFromPrivateAccessesIsProved) {
  using cake::testing::replace;
  const std::string good = corpusText("corpus/reduction/sm100_col_sum_persistent.cake");
  auto mod = cake::testing::compile(good);
  auto r = proveGap(mod.schedules.at(0));
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  auto brokenSomewhere = [](const ir::Schedule& s) {
    return cake::testing::brokenOnGrid(s, {{"R", {64, 192, 320}}, {"C", {128, 256}}});
  };
  ASSERT_FALSE(brokenSomewhere(mod.schedules.at(0)));
  const std::vector<std::pair<std::string, std::string>> bugs = {
      // the slot released before it is read: the next TMA load races the copy
      {"                lm.copy(g, smem_g[it])\n                lm.fence_proxy()  # generic reads done before the "
       "slot goes back to TMA\n                lm.arrive(empty, iter=it)",
       "                lm.arrive(empty, iter=it)\n                lm.copy(g, smem_g[it])\n                "
       "lm.fence_proxy()  # generic reads done before the slot goes back to TMA"},
      // a read of the ring before the stripe's loop, with no wait: a race
      // (and a shared access that differs from the iteration's last one)
      {"            lm.fill(acc, 0.0)", "            lm.fill(acc, 0.0)\n            lm.copy(g, smem_g[0])"},
  };
  for (const auto& [from, to] : bugs) expectBrokenNotProved(replace(good, from, to), brokenSomewhere, to);
}

namespace {

// The explicit engine on `tiles` tiles of `k_tiles` K iterations.
encoder::Outcome tileCountRunAt(const ir::Schedule& s, int64_t tiles, int64_t k_tiles) {
  return cake::testing::exploreToFirst(s, cake::testing::bind(s, {{"M", 64 * tiles}, {"K", 64 * k_tiles}})).outcome;
}

// (the kernel, cake::testing::kQueryEmpty: test_util.h)

}  // namespace

// docs/z3.md "The tile count inside the tile loop": a read of the tile
// count after the K loop has one value on every tile but the last (proved),
// and the last tile's part after the K loop is explored as its own block,
// entered with the tile count fixed. Before, unknown ("reads ... outside
// its loop bound").
TEST(TripProofGaps, TileCountReadAfterTheKLoopIsProved) {
  using cake::testing::replace;
  const std::string guard = "            if t + 1 < tiles:\n";
  for (const std::string& same : {guard, std::string("            if t + 2 <= tiles:\n"),
                                   std::string("            if tiles != t + 1:\n")}) {
    auto mod = cake::testing::compile(replace(cake::testing::kQueryEmpty, guard, same));
    const ir::Schedule& s = mod.schedules.at(0);
    for (int64_t tiles : {1, 2, 3})
      for (int64_t k : {1, 3}) EXPECT_EQ(tileCountRunAt(s, tiles, k), encoder::Outcome::Pass) << same << tiles << "x" << k;
    auto r = proveGap(s);
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << same << r.detail;
    EXPECT_NE(r.engine.find("the last tile's part after the K loop its own"), std::string::npos) << r.engine;
  }
}

TEST(TripProofGaps, TileCountReadBugsAreNotProved) {
  using cake::testing::replace;
  const std::string guard = "            if t + 1 < tiles:\n                lm.bar_arrive(q_empty)\n";
  struct Bug {
    std::string text;
    const char* what;
    int64_t tiles, k_tiles;  // the bounded check's counterexample shape
    bool met;                // the proof's own exploration meets it (else: refused)
  };
  const std::vector<Bug> bugs = {
      // the second-to-last tile does not hand Q back: the producer hangs
      // before the last tile (refused: not one value on every tile but the last)
      {replace(cake::testing::kQueryEmpty, guard, "            if t + 2 < tiles:\n                lm.bar_arrive(q_empty)\n"),
       "the hand-off skipped one tile early", 2, 1, false},
      // never handed back (a condition with one value for every tile count):
      // the producer hangs before the second tile (refused: q_empty gets no
      // whole generation per tile period)
      {replace(cake::testing::kQueryEmpty, guard, "            if t + 1 > tiles:\n                lm.bar_arrive(q_empty)\n"),
       "the hand-off never runs", 2, 1, false},
      // the last tile waits for a Q phase nobody loads: a hang in the last
      // tile's own part after the K loop
      {replace(cake::testing::kQueryEmpty, guard, guard + "            else:\n                lm.wait(q_full, iter=t + 1)\n"),
       "the last tile waits for a tile that never comes", 1, 1, true},
  };
  for (const Bug& b : bugs) {
    auto mod = cake::testing::compile(b.text);
    const ir::Schedule& s = mod.schedules.at(0);
    EXPECT_EQ(tileCountRunAt(s, b.tiles, b.k_tiles), encoder::Outcome::Violation) << b.what;
    auto r = proveGap(s);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.what << ": " << r.engine;
    EXPECT_FALSE(r.detail.empty()) << b.what;
    if (b.met)
      EXPECT_NE(r.detail.find("the exploration over every tile count and K trip count meets"), std::string::npos)
          << b.what << ": " << r.detail;
  }
}

namespace {

// The bounded check at K = 64 * k_tiles.
encoder::Outcome slicedRunAt(const ir::Schedule& s, int64_t k_tiles) {
  return cake::testing::exploreToFirst(s, cake::testing::bind(s, {{"K", 64 * k_tiles}})).outcome;
}

}  // namespace

// docs/z3.md "Loops with a step": two consumer warpgroups split the K loop
// by parity (`lm.range(lm.instance(), k_tiles, 2)`), so each runs a number
// of iterations that depends on the parity of k_tiles. Proved once per
// residue of k_tiles modulo 2, in iterations of two K blocks. Before,
// unknown ("a start that is not a constant or a step other than 1").
TEST(TripProofGaps, LoopsFromTheInstanceWithAStepAreProvedPerResidue) {
  const std::string good = corpusText("corpus/splitk/sm90_sliced_k_two_wg.cake");
  auto mod = cake::testing::compile(good);
  const ir::Schedule& s = mod.schedules.at(0);
  for (int64_t k : {1, 2, 3, 6, 7}) EXPECT_EQ(slicedRunAt(s, k), encoder::Outcome::Pass) << k;
  auto r = proveGap(s);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("= 2 * T + r, r in 0..1"), std::string::npos) << r.engine;

  using cake::testing::replace;
  struct Bug {
    std::string text;
    const char* what;
    int64_t k_tiles;  // the bounded check's counterexample
  };
  const std::string loop = "for k in lm.range(lm.instance(), k_tiles, 2):";
  const std::vector<Bug> bugs = {
      {corpusText("corpus/splitk/sm90_sliced_k_bug_sync_before_write.cake"),
       "the reduction's bar.sync before the partial is written: a race", 1},
      // instance 1 starts at block 3: block 1 is never consumed nor released,
      // and the producer hangs on its slot from block 5 on
      {replace(good, loop, "for k in lm.range(3 * lm.instance(), k_tiles, 2):"), "block 1 never released", 7},
      // both instances take the even blocks: each even slot is released
      // twice, and the producer meets a phase it already lost
      {replace(good, loop, "for k in lm.range(0, k_tiles, 2):"), "the even blocks consumed twice", 5},
      // a three-slot ring: slot k % 3 alternates between the warpgroups, and
      // one waits a phase of a slot the other still owns
      {replace(replace(replace(replace(good, "pipe  = lm.pipeline(stages=4)", "pipe  = lm.pipeline(stages=3)"),
                               "iter=k - 4", "iter=k - 3"),
                       "dtype=lm.bf16, stages=4", "dtype=lm.bf16, stages=3"),
               "dtype=lm.bf16, stages=4", "dtype=lm.bf16, stages=3"),
       "an odd ring shared by parity", 4},
  };
  for (const Bug& b : bugs) {
    auto bm = cake::testing::compile(b.text);
    ASSERT_FALSE(bm.schedules.empty()) << b.what;
    const ir::Schedule& bs = bm.schedules.at(0);
    EXPECT_EQ(slicedRunAt(bs, b.k_tiles), encoder::Outcome::Violation) << b.what;
    auto br = proveGap(bs);
    EXPECT_NE(br.outcome, encoder::Outcome::Proved) << b.what << ": " << br.engine;
    EXPECT_FALSE(br.detail.empty()) << b.what;
  }
}

// docs/z3.md "A hole found while testing": a loop nested in the symbolic
// loop whose bound changes past the window (`t // 200`: no iteration before
// t = 200) hid a hang from t = 200 on, and lap induction said proved. The
// bounds of nested loops are now among the expressions that must move with
// the period beyond the window.
TEST(TripProofGaps, NestedLoopBoundThatChangesPastTheWindowIsNotProved) {
  using cake::testing::replace;
  const std::string at = "            lm.arrive(consumed, iter=t)\n";
  auto mod = cake::testing::compile(replace(
      cake::testing::kOneSlotHandoff, at,
      at + "            for c in lm.range(0, t // 200):\n                lm.wait(ready, iter=t + 1000)\n"));
  const ir::Schedule& s = mod.schedules.at(0);
  EXPECT_FALSE(brokenAtSomeK(s, {1, 5, 200}));
  EXPECT_TRUE(brokenAtSomeK(s, {201}));
  auto r = proveGap(s);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
  EXPECT_NE(r.detail.find("t // 200"), std::string::npos) << r.detail;
}

// docs/z3.md "Predecessors that differ only in a process's own registers":
// a K iteration entered from the part before the K loop and from the
// iteration before may differ in registers that only the process and its
// own wgmma touch (k-means' `dots`). A correct kernel of that shape is
// proved (it was not before); broken variants (each confirmed broken by the
// bounded check) are not.
namespace {

// A persistent running argmin (the shape of
// corpus/kmeans/sm90_assign_streamed_centroids.cake, one consumer, one
// ring): the K loop is entered from `lm.fill(lab, 0)` (first iteration)
// and from `lm.reduce(lab, dots, ...)` (the iteration before), which reads
// `dots`, the registers the consumer's own wgmma writes.
const char* kArgminPersistent = R"(@cake.schedule(target="sm_90a")
def argmin_persistent(lm, A: LM.tma2d, B: LM.tma2d, Lab: LM.gmem, M: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(K > 0)
    dots = lm.regs(shape=(64, 64), dtype=lm.f32)
    best = lm.regs(shape=(64, 1), dtype=lm.f32)
    lab  = lm.regs(shape=(64, 1), dtype=lm.i32)
    pool   = lm.smem(32768)
    smem_a = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    producer = lm.role(warps=[0, 1, 2, 3])
    consumer = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=pipe)
    k_tiles = lm.cdiv(K, 64)
    tiles   = lm.cdiv(M, 64)
    with producer:
        for t in lm.range(0, tiles):
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 2)
                smem_a.tma_load(A, coords=(t * 64, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(k * 64, 0), iter=it, barrier=full)
    with consumer:
        for t in lm.range(0, tiles):
            lm.fill(best, 3.0e38)
            lm.fill(lab, 0)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(dots, smem_a[it], smem_b[it], init=True)
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
                lm.reduce(lab, dots, op="argmin", axis=1, value=best, base=k * 64)
            lm.copy(Lab, lab, coords=(t * 64, 0))
)";

// Does the bounded check meet a violation on some tiles x K iterations?
bool argminBrokenSomewhere(const ir::Schedule& s) {
  for (int64_t tiles : {1, 2, 3})
    for (int64_t k_tiles : {1, 2, 3, 5})
      if (tileCountRunAt(s, tiles, k_tiles) == encoder::Outcome::Violation) return true;
  return false;
}

}  // namespace

TEST(TripProofGaps, PersistentLoopEnteredFromRegistersOfTheOwnWgmmaIsProved) {
  using cake::testing::replace;
  const std::string good = kArgminPersistent;
  auto mod = cake::testing::compile(good);
  ASSERT_FALSE(mod.schedules.empty());
  ASSERT_FALSE(argminBrokenSomewhere(mod.schedules[0]));
  auto r = proveGap(mod.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction over tiles and K"), std::string::npos) << r.engine;

  const std::vector<std::pair<std::string, std::string>> bugs = {
      // the argmin reads dots before the wgmma retired: a race with the
      // consumer's own async op, at the iteration's last step
      {"                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=it)\n"
       "                lm.reduce(lab, dots, op=\"argmin\", axis=1, value=best, base=k * 64)\n",
       "                lm.reduce(lab, dots, op=\"argmin\", axis=1, value=best, base=k * 64)\n"
       "                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=it)\n"},
      // the stage released before the wgmma that reads it retired: the
      // next TMA load races it
      {"                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=it)\n",
       "                lm.arrive(empty, iter=it)\n                lm.mma_wait(pending=0)\n"},
      // a read of the ring before the K loop with no wait: a race with the
      // producer's load, through an access another process meets (the two
      // predecessors of the first K iteration differ there)
      {"            lm.fill(lab, 0)\n", "            lm.fill(lab, 0)\n            lm.copy(dots, smem_a[0])\n"},
  };
  for (const auto& [from, to] : bugs) {
    const std::string text = replace(good, from, to);
    ASSERT_NE(text, good) << to;
    expectBrokenNotProved(text, argminBrokenSomewhere, to);
  }
}

// docs/z3.md "A later start for the body check": an expression of the loop
// body that moves by one amount every period only late in the window (a
// guard `if k >= 3:` that only odd iterations evaluate, with the warm-up at
// 2) is checked from the start of the window's last checked period. The
// benign mutant is proved; broken variants (each confirmed broken by the
// bounded check), one whose guard changes past the window, are not.
TEST(TripProofGaps, GuardThatSettlesLateInTheWindowIsProved) {
  using cake::testing::replace;
  // sm80_ws_named_barriers with the loader's odd branch guarded by
  // `if k >= 3:` (the same iterations as `k >= 2` there): a benign mutant
  const std::string good = corpusText("corpus/mutants/gemm/sm80_ws_named_barriers/guard-plus-1-L44.cake");
  auto mod = cake::testing::compile(good);
  ASSERT_FALSE(mod.schedules.empty());
  const std::vector<int64_t> ks = {32, 64, 96, 128, 160, 192, 288, 3296, 3328};  // 1-6, 9, 103, 104 iterations
  ASSERT_FALSE(brokenAtSomeK(mod.schedules[0], ks));
  auto r = proveGap(mod.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;

  const std::string odd_guard = "                if k >= 3:\n                    lm.sync(empty1)";
  const std::string even_guard = "                if k >= 2:\n                    lm.sync(empty0)";
  struct Bug { const char* what; std::string from, to; };
  const std::vector<Bug> bugs = {
      // the guard changes past the window: iteration 101 does not wait for
      // stage 1's release (a race from 102 K iterations on)
      {"past the window", odd_guard, "                if k % 100 >= 3:\n                    lm.sync(empty1)"},
      // the guard changes in the window: iteration 2 does not wait for
      // stage 0's release
      {"in the window", even_guard, "                if k >= 3:\n                    lm.sync(empty0)"},
      // the odd guard off from iteration 41 on (beyond the first window)
      {"off late", odd_guard, "                if k >= 3 and k < 41:\n                    lm.sync(empty1)"},
  };
  for (const Bug& b : bugs) {
    const std::string text = replace(good, b.from, b.to);
    ASSERT_NE(text, good) << b.what;
    expectBrokenNotProved(text, [&](const ir::Schedule& s) { return brokenAtSomeK(s, ks); }, b.what);
  }
}

// docs/z3.md "Parameters read only in sizes" (encoder/trip_sizes.h): a tile
// size with more allowed values than the proof takes one by one is proved
// when the windows of its values are equal up to sizes (one exploration per
// class); values whose systems order their byte boundaries differently, or
// whose transaction counts do not scale together, are explored apart, so a
// bug at some of them only is met.
namespace {

const char* kSizesFile = "corpus/layout/good_smem_limit_slack_bm_224.cake";

// Does the bounded check meet a violation at this BM, for some D?
bool brokenAtBM(const ir::Schedule& s, int64_t bm) {
  return cake::testing::brokenOnGrid(s, {{"D", {64, 640}}, {"BM", {bm}}});
}

// A race at BM > 200 only: a second view at byte 204800 that the copy role
// writes every iteration, which stage 7 of the ring reaches from BM = 202.
std::string overlapFromBM202(const std::string& text) {
  using cake::testing::replace;
  std::string t = replace(text, "pool   = lm.smem(8 * BM * 128)", "pool   = lm.smem(229376)");
  t = replace(t, "    x      = lm.regs(shape=(BM, 64), dtype=lm.f32)\n",
              "    x      = lm.regs(shape=(BM, 64), dtype=lm.f32)\n"
              "    smem_y = pool.view(offset=8 * 200 * 128, shape=(8, 64), dtype=lm.bf16, stages=1)\n"
              "    y      = lm.regs(shape=(8, 64), dtype=lm.f32)\n");
  return replace(t, "            lm.copy(Y, x, coords=(row0, j * 64))\n",
                 "            lm.copy(Y, x, coords=(row0, j * 64))\n            lm.fill(y, 0.0)\n"
                 "            lm.copy(smem_y[0], y)\n");
}

// An explicit expect_tx of min(BM, cap) * 128 bytes per stage (the load
// delivers BM * 128): too few bytes expected from BM = cap + 2.
std::string expectCapped(const std::string& text, int cap) {
  return cake::testing::replace(text, "            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)\n",
                                "            lm.expect_tx(full, min(BM, " + std::to_string(cap) +
                                    ") * 128, iter=j)\n"
                                    "            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)\n");
}

}  // namespace

// The corpus file: BM in {8, 10, ..., 224} (109 values, over
// max_fixed_values) sets the pool, the view's stage size and the TMA
// box's bytes only: every value's window is the first one's up to sizes.
TEST(TripSizes, ParameterReadOnlyInSizesIsProvedWithOneExploration) {
  const std::string text = corpusText(kSizesFile);
  auto m = cake::testing::compile(text);
  ASSERT_FALSE(m.schedules.empty());
  auto r = proveGap(m.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("1 of the 109 values' windows explored"), std::string::npos) << r.engine;

  // The same with the expected bytes written out, as min(BM, 224) * 128:
  // the counts scale together for every allowed value.
  auto capped = cake::testing::compile(expectCapped(text, 224));
  ASSERT_FALSE(capped.schedules.empty());
  auto c = proveGap(capped.schedules[0]);
  EXPECT_EQ(c.outcome, encoder::Outcome::Proved) << c.detail;
  EXPECT_NE(c.engine.find("1 of the 109 values' windows explored"), std::string::npos) << c.engine;

  // Without an upper bound BM has unboundedly many values: not listed.
  auto open = cake::testing::compile(cake::testing::replace(text, "    lm.assume(BM <= 224)\n", ""));
  ASSERT_FALSE(open.schedules.empty());
  auto o = proveGap(open.schedules[0]);
  EXPECT_NE(o.outcome, encoder::Outcome::Proved) << o.engine;
}

// Broken at some values only; each confirmed by the bounded check (broken
// at BM = 224, clean at BM = 64, the value the proof is given as checked).
// Both are met at BM = 202, the first value whose window differs.
TEST(TripSizes, ValuesThatChangeTheOrderOrTheCountsAreExploredApart) {
  const std::string text = corpusText(kSizesFile);
  struct Bug { const char* what; std::string text; };
  const std::vector<Bug> bugs = {
      {"a second view that stage 7 reaches from BM = 202", overlapFromBM202(text)},
      {"min(BM, 200) * 128 bytes expected", expectCapped(text, 200)},
  };
  for (const Bug& b : bugs)
    expectBrokenNotProved(
        b.text, [](const ir::Schedule& s) { return brokenAtBM(s, 224) && !brokenAtBM(s, 64); }, b.what);
}

// The key itself: two values of BM give one key for the same trip count;
// the overlap variant's BM = 198 and BM = 202 do not (the second view's
// boundaries fall inside stage 7 at 202), nor do the capped expect's
// BM = 200 and 202 (202 * 128 delivered against 200 * 128 expected: the
// counts do not scale together).
TEST(TripSizes, KeyKeepsOrderAndRatiosOnly) {
  auto key = [](const ir::Schedule& s, int64_t bm) {
    encoder::System sys = cake::testing::build(s, cake::testing::bind(s, {{"D", 640}, {"BM", bm}}));
    return encoder::trip::sizeFreeKey({&sys});
  };
  const std::string text = corpusText(kSizesFile);
  auto good = cake::testing::compile(text);
  ASSERT_FALSE(good.schedules.empty());
  EXPECT_FALSE(key(good.schedules[0], 8).empty());
  EXPECT_EQ(key(good.schedules[0], 8), key(good.schedules[0], 224));

  auto overlap = cake::testing::compile(overlapFromBM202(text));
  ASSERT_FALSE(overlap.schedules.empty());
  EXPECT_EQ(key(overlap.schedules[0], 8), key(overlap.schedules[0], 198));
  EXPECT_NE(key(overlap.schedules[0], 198), key(overlap.schedules[0], 202));

  auto capped = cake::testing::compile(expectCapped(text, 200));
  ASSERT_FALSE(capped.schedules.empty());
  EXPECT_EQ(key(capped.schedules[0], 8), key(capped.schedules[0], 200));
  EXPECT_NE(key(capped.schedules[0], 200), key(capped.schedules[0], 202));
}

// docs/z3.md "Owed transaction bytes" (encoder/trip_sizes.h txOwedOnly):
// the sm_90a mainloop with its N tile BN in {8, 16, ..., 128} delivers
// 16384 + 128 BN bytes per stage in two loads (A, B) under one derived
// expect_tx. The counts do not scale together (A : B changes with BN), so
// every value's window was explored (16 of 16), over the default budget;
// every count is owed bytes only, which the simulator reads through their
// signs alone, so the values share the explorations of their byte orders.
// Broken forms (each confirmed by the bounded check at one BN and clean at
// BN = 64) are not proved: an explicit expect_tx of min(BN, 64) bytes (not
// a derived expect: the counts are compared as before, BN = 72 explored
// apart) and the epilogue's staging view placed where stage 3 of the B
// ring reaches from BN = 104 (its byte order changes there).
namespace {

const char* kOwedFile = "corpus/layout/good_mma_no_instruction_bn_multiple_of_8.cake";

bool brokenAtBN(const ir::Schedule& s, int64_t bn) {
  return cake::testing::brokenOnGrid(s, {{"M", {128}}, {"N", {128}}, {"K", {64, 320, 576}}, {"BN", {bn}}});
}

}  // namespace

TEST(TripSizes, OwedTransactionBytesAreComparedBySignOnly) {
  using cake::testing::replace;
  const std::string text = corpusText(kOwedFile);
  auto good = cake::testing::compile(text);
  ASSERT_FALSE(good.schedules.empty());
  const ir::Schedule& s = good.schedules[0];
  auto sys = [&](int64_t bn) {
    return cake::testing::build(s, cake::testing::bind(s, {{"M", 128}, {"N", 128}, {"K", 640}, {"BN", bn}}));
  };
  const encoder::System s8 = sys(8), s64 = sys(64), s120 = sys(120);
  EXPECT_TRUE(encoder::trip::txOwedOnly(s8));
  EXPECT_FALSE(encoder::trip::sizeFreeKey({&s8}).empty());
  EXPECT_EQ(encoder::trip::sizeFreeKey({&s8}), encoder::trip::sizeFreeKey({&s120}));
  EXPECT_EQ(encoder::trip::sizeFreeKey({&s8}), encoder::trip::sizeFreeKey({&s64}));
  auto r = proveGap(s);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("2 of the 16 values' windows explored"), std::string::npos) << r.engine;

  const std::string capped =
      replace(text, "            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)\n",
              "            lm.expect_tx(full, 16384 + min(BN, 64) * 128, iter=k)\n"
              "            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)\n");
  const std::string over = replace(text, "smem_c = pool.view(offset=131072,", "smem_c = pool.view(offset=114688,");
  ASSERT_NE(capped, text);
  ASSERT_NE(over, text);
  auto c = cake::testing::compile(capped);
  ASSERT_FALSE(c.schedules.empty());
  EXPECT_FALSE(encoder::trip::txOwedOnly(cake::testing::build(
      c.schedules[0], cake::testing::bind(c.schedules[0], {{"M", 128}, {"N", 128}, {"K", 640}, {"BN", 8}}))));
  expectBrokenNotProved(
      capped, [](const ir::Schedule& x) { return brokenAtBN(x, 72) && !brokenAtBN(x, 64); }, "expect_tx of min(BN, 64)");
  expectBrokenNotProved(
      over, [](const ir::Schedule& x) { return brokenAtBN(x, 104) && !brokenAtBN(x, 64); },
      "staging view over stage 3 from BN = 104");
}

// docs/z3.md "Stage-named writes in the K loop" (alignStageWritesToTheRing):
// a persistent kernel whose loader writes B through a stage-named view
// (`smem_bs[it % 2]`) over the bytes the MMA reads through an
// iteration-named one (`smem_b[it]`, by laps). The grid restarts the ring
// at every tile, so the builder's generation of the stage-named write grew
// by the tile's writes per tile while the read's lap did not: "move by
// different laps per period", unknown. With the generation taken through
// the ring position the kernel is proved; broken forms (each confirmed by
// the bounded check on 1-6 tiles of 1-3 K iterations) are not: the write
// one stage off, the stage restarted per tile (`k % 2`), and the epilogue
// staged through the B ring's stage 0 (a write of the view outside the K
// loop: the rule leaves the view alone).
namespace {

const char* kStageNamedB =
    "@cake.schedule(target=\"sm_90a\")\n"
    "def persistent_stage_named_b(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):\n"
    "    lm.assume(M > 0)\n"
    "    lm.assume(N > 0)\n"
    "    lm.assume(K > 0)\n"
    "    pool    = lm.smem(65536)\n"
    "    smem_a  = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle=\"128B\")\n"
    "    smem_b  = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle=\"128B\")\n"
    "    smem_bs = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle=\"128B\")\n"
    "    smem_c  = pool.view(offset=49152, shape=(64, 128), dtype=lm.bf16, stages=1)\n"
    "    acc     = lm.regs(shape=(64, 128), dtype=lm.f32)\n"
    "\n"
    "    load = lm.role(warps=[0])\n"
    "    math = lm.role(warps=[4, 5, 6, 7])\n"
    "    pipe  = lm.pipeline(stages=2)\n"
    "    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)\n"
    "    empty = lm.barrier(prod=[math], cons=[load], init_count=1, pipeline=pipe)\n"
    "\n"
    "    k_tiles   = lm.cdiv(K, 64)\n"
    "    num_tiles = lm.cdiv(M, 64) * lm.cdiv(N, 128)\n"
    "    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))\n"
    "\n"
    "    with load:\n"
    "        for t in lm.range(0, my_tiles):\n"
    "            for k in lm.range(0, k_tiles):\n"
    "                it = t * k_tiles + k\n"
    "                lm.wait(empty, iter=it - 2)\n"
    "                smem_a.tma_load(A, coords=(0, k * 64), iter=it, barrier=full)\n"
    "                smem_bs[it % 2].tma_load(B, coords=(0, k * 64), iter=it, barrier=full)\n"
    "\n"
    "    with math:\n"
    "        for t in lm.range(0, my_tiles):\n"
    "            for k in lm.range(0, k_tiles):\n"
    "                it = t * k_tiles + k\n"
    "                lm.wait(full, iter=it)\n"
    "                lm.mma(acc, smem_a[it], smem_b[it], init=(k == 0))\n"
    "                lm.mma_commit()\n"
    "                lm.mma_wait(pending=0)\n"
    "                lm.arrive(empty, iter=it)\n"
    "            lm.tma_store_wait(pending=0)\n"
    "            lm.copy(smem_c[0], acc)\n"
    "            lm.fence_proxy()\n"
    "            smem_c.tma_store(C, coords=(0, 0), stage=0)\n"
    "            lm.tma_store_commit()\n"
    "        lm.tma_store_wait(pending=0)\n"
;

bool stageNamedBroken(const ir::Schedule& s) {
  return cake::testing::brokenOnGrid(s, {{"M", {64, 192, 384}}, {"N", {128}}, {"K", {64, 128, 192}}});
}

}  // namespace

TEST(TripProofGaps, StageNamedWritesInTheKLoopFollowTheRing) {
  using cake::testing::replace;
  const std::string text = kStageNamedB;
  auto good = cake::testing::compile(text);
  ASSERT_FALSE(good.schedules.empty());
  EXPECT_FALSE(stageNamedBroken(good.schedules[0]));
  auto r = proveGap(good.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction over tiles and K"), std::string::npos) << r.engine;

  struct Bug { const char* what; std::string text; };
  const std::vector<Bug> bugs = {
      {"one stage off", replace(text, "smem_bs[it % 2].tma_load", "smem_bs[(it + 1) % 2].tma_load")},
      {"the stage restarted per tile", replace(text, "smem_bs[it % 2].tma_load", "smem_bs[k % 2].tma_load")},
      {"the epilogue staged in the B ring",
       replace(replace(text, "lm.copy(smem_c[0], acc)", "lm.copy(smem_bs[0], acc)"),
               "smem_c.tma_store(C, coords=(0, 0), stage=0)", "smem_bs.tma_store(C, coords=(0, 0), stage=0)")},
  };
  for (const Bug& b : bugs) {
    ASSERT_NE(b.text, text) << b.what;
    expectBrokenNotProved(b.text, stageNamedBroken, b.what);
  }
}

// docs/z3.md "A prefix that the ring shift keeps": the k-means epilogue
// loads the centroid norms before its tile loop; the ring shift leaves a
// process without the K loop in that prefix where it is (its whole program
// is checked not to move with the ring), so a run in which the K loop of
// an open tile runs on while the epilogue has not started stays in the
// window. Before, the window doubled to 192 iterations and the proof ran
// out of its budget. Broken forms (each confirmed by the bounded check)
// are not proved: the prefix reads the TMEM accumulator (a race with the
// MMA) or a slot of the ring (refused: the prefix moves with the ring).
TEST(TripProofGaps, PrefixOfARoleWithoutTheKLoopStaysUnderTheRingShift) {
  using cake::testing::replace;
  const std::string text = corpusText("corpus/kmeans/sm100_assign_k128_tcgen05.cake");
  auto good = cake::testing::compile(text);
  ASSERT_FALSE(good.schedules.empty());
  auto brokenSomewhere = [](const ir::Schedule& s) {
    return cake::testing::brokenOnGrid(s, {{"N", {128, 384}}, {"D", {64, 320, 640}}});
  };
  EXPECT_FALSE(brokenSomewhere(good.schedules[0]));
  auto r = proveGap(good.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction over tiles and K"), std::string::npos) << r.engine;
  const std::string prefix = "        lm.copy(cn, CN, coords=(0, 0))\n";
  struct Bug { const char* what; std::string text; };
  const std::vector<Bug> bugs = {
      {"the prefix reads the accumulator", replace(text, prefix, prefix + "        lm.copy(dots, tmem_acc)\n")},
      {"the prefix reads the ring", replace(text, prefix, prefix + "        lm.copy(cn, smem_c[0][0:1, :])\n")},
  };
  for (const Bug& b : bugs) {
    ASSERT_NE(b.text, text) << b.what;
    expectBrokenNotProved(b.text, brokenSomewhere, b.what);
  }
}

// docs/z3.md "The parity of the trip count": the odd iterations' release
// guard `k + 2 < k_tiles + 1` (a mutant of sm80_ws_named_barriers) leaves
// the math role a tail of two iterations for an even trip count and none
// for an odd one: no steady offset, so the proof runs once per residue of
// k_tiles modulo 2, in blocks of two iterations, with the guard (a read of
// the trip count outside the loop bounds) checked at the offsets in the
// block where it is evaluated. Broken forms (each confirmed broken by the
// bounded check) are not proved: the odd release skipped from 3 iterations
// before the end (even trip counts from 4 hang) and the even release
// skipped from 3 before the end (odd trip counts from 3 hang).
TEST(TripProofGaps, TailByTheParityOfTheTripCountIsProvedPerResidue) {
  using cake::testing::replace;
  const std::string text = corpusText("corpus/mutants/gemm/sm80_ws_named_barriers/guard-plus-1-L62.cake");
  auto good = cake::testing::compile(text);
  ASSERT_FALSE(good.schedules.empty());
  auto r = proveGap(good.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("= 2 * T + r, r in 0..1"), std::string::npos) << r.engine;

  struct Bug { const char* what; std::string text; };
  const std::vector<Bug> bugs = {
      {"odd release skipped 3 before the end", replace(text, "if k + 2 < k_tiles + 1:", "if k + 4 < k_tiles + 1:")},
      {"even release skipped 3 before the end",
       replace(text, "                if k + 2 < k_tiles:\n", "                if k + 2 < k_tiles - 1:\n")},
  };
  for (const Bug& b : bugs) {
    ASSERT_NE(b.text, text) << b.what;
    expectBrokenNotProved(b.text, [](const ir::Schedule& s) { return brokenAtSomeK(s, {96, 128, 160}); }, b.what);
  }
}

namespace {

// The bounded check on 1, 2, 3 and 5 tiles (M in 64-row tiles, one N
// tile) of 1, 2 and 3 K iterations: does it meet a violation?
bool pingPongBroken(const ir::Schedule& s) {
  return cake::testing::brokenOnGrid(s, {{"M", {64, 128, 192, 320}}, {"N", {128}}, {"K", {64, 128, 192}}});
}

// The corpus kernel with a two-stage ring: the same synchronization, a
// smaller state space for the tests of its broken variants.
std::string twoStagePingPong() {
  using cake::testing::replace;
  std::string t = corpusText("corpus/gemm/sm90_pingpong.cake");
  t = replace(t, "shape=(64, 64),  dtype=lm.bf16, stages=4", "shape=(64, 64),  dtype=lm.bf16, stages=2");
  t = replace(t, "shape=(128, 64), dtype=lm.bf16, stages=4", "shape=(128, 64), dtype=lm.bf16, stages=2");
  t = replace(t, "lm.pipeline(stages=4)", "lm.pipeline(stages=2)");
  t = replace(t, "lm.wait(empty, iter=it - 4)", "lm.wait(empty, iter=it - 2)");
  return t;
}

}  // namespace

// docs/z3.md "Tile loops with a step": the ping-pong GEMM's consumer
// warpgroups run `lm.range(lm.instance(), my_tiles, 2)` around the K loop
// while the producer runs every tile. Before, unknown (the tile loop had to
// start at 0 with step 1).
TEST(TripProofGaps, TileLoopWithAStepFromTheInstanceIsProved) {
  using cake::testing::replace;
  const std::string good = twoStagePingPong();
  auto mod = cake::testing::compile(good);
  ASSERT_FALSE(mod.schedules.empty());
  ASSERT_FALSE(pingPongBroken(mod.schedules[0]));
  auto r = proveGap(mod.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("lap induction over tiles and K"), std::string::npos) << r.engine;
  struct Bug {
    std::string from, to, what;
  };
  const std::vector<Bug> bugs = {
      {"lm.wait(order, stage=lm.instance())", "lm.wait(order, stage=1 - lm.instance())",
       "each warpgroup waits on the order slot the other one waits on (wrong parity)"},
      {"lm.arrive(order, stage=1 - lm.instance())", "lm.arrive(order, stage=lm.instance())",
       "each warpgroup hands the turn to itself (wrong parity)"},
      {"                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=it)",
       "                lm.arrive(empty, iter=it)\n                lm.mma_wait(pending=0)",
       "the slot released before the wgmma that reads it retired"},
      {"            if t > 0:\n                lm.wait(order, stage=lm.instance())\n", "",
       "no order wait: a warpgroup enters its K loop before the other left the tile before"},
      {"lm.range(lm.instance(), my_tiles, 2)", "lm.range(lm.instance(), my_tiles, 3)",
       "tile step 3: every third tile is consumed by nobody"},
      {"lm.range(lm.instance(), my_tiles, 2)", "lm.range(lm.instance(), my_tiles)",
       "tile step 1 from the instance: both warpgroups consume tiles 1, 2, ..."},
      {"lm.range(lm.instance(), my_tiles, 2)", "lm.range(2 * lm.instance(), my_tiles, 2)",
       "warpgroup 1 starts at tile 2: the odd tiles are consumed by nobody"},
      {"            lm.arrive(order, stage=1 - lm.instance())\n", "",
       "the turn is never handed over"},
  };
  for (const Bug& b : bugs) expectBrokenNotProved(replace(good, b.from, b.to), pingPongBroken, b.what);
  // Without the order wait, with tiles of every length explored at once
  // (no short tiles one by one, which fix a tile's end when it is
  // entered): warpgroup 1 enters tile 1's K loop while tile 0's end is
  // still open, and the proof stops there (unknown, not a block).
  auto m = cake::testing::compile(replace(good, bugs[3].from, bugs[3].to));
  ASSERT_FALSE(m.schedules.empty());
  auto open = proveGap(m.schedules[0], 1);
  EXPECT_NE(open.outcome, encoder::Outcome::Proved) << open.engine;
  EXPECT_NE(open.detail.find("before any process has left tile 0's"), std::string::npos) << open.detail;
}

// The corpus kernel itself (four-stage ring). Its proof explores about a
// million states (docs/z3.md "Tile loops with a step").
TEST(TripProofGaps, SlowCorpusPingPongIsProved) {
  auto mod = cake::testing::compile(corpusText("corpus/gemm/sm90_pingpong.cake"));
  ASSERT_FALSE(mod.schedules.empty());
  auto r = proveGap(mod.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
}

// Every broken mutant of the ping-pong kernel (corpus/mutants, each labelled
// broken by the bounded check) and its two broken corpus twins: not proved,
// with no wall-clock budget (TripProof.SlowNoKnownBadScheduleIsProved gives
// each file 1.5 s, which the four-stage kernel's proof needs more than).
TEST(TripProofGaps, SlowPingPongMutantsAreNotProved) {
  namespace fs = std::filesystem;
  std::vector<std::string> files = {"corpus/bugs/sync.stale-phase/sm90_pingpong_no_order_barrier.cake",
                                    "corpus/bugs/sync.lost-phase/sm90_pingpong_order_double_arrive.cake"};
  for (const auto& e : fs::directory_iterator(fs::path(CAKE_SOURCE_DIR) / "corpus/mutants/gemm/sm90_pingpong"))
    if (e.path().extension() == ".cake")
      files.push_back(e.path().lexically_relative(CAKE_SOURCE_DIR).string());
  ASSERT_GT(files.size(), 10u);
  for (const std::string& f : files) {
    const std::string text = corpusText(f);
    ASSERT_EQ(text.find("# expect: pass"), std::string::npos) << f;
    auto m = cake::testing::compile(text);
    ASSERT_FALSE(m.schedules.empty()) << f;
    auto p = proveGap(m.schedules[0]);
    EXPECT_NE(p.outcome, encoder::Outcome::Proved) << f << ": " << p.engine;
    std::cout << f << ": " << p.detail.substr(0, 160) << "\n";
  }
}

namespace {

// The proof of a schedule text, which must say proved.
encoder::ModelCheckResult expectProved(const std::string& text, const std::string& what) {
  auto m = cake::testing::compile(text);
  EXPECT_FALSE(m.schedules.empty()) << what;
  if (m.schedules.empty()) return {};
  auto r = proveGap(m.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << what << ": " << r.detail;
  return r;
}

}  // namespace

// docs/z3.md "Three shapes the argument now takes (helper loops3, session
// 17, issue 11)". Each shape proves a corpus file that was unknown before
// and does not prove broken variants, each confirmed broken by the bounded
// check.

// 1. Private generations: an epilogue's own staging ring, stage
// `(t * 4 + j) % 3` (period 3 tiles), written and stored by one process.
// The builder's generation counts of those accesses (4 more per period for
// the writes, 0 for the TMA store's reads) kept every period from being
// found ("no steady period within 192 unrolled iterations"); no rule reads
// them (one process's own data is never stale).
TEST(TripProofGaps, PrivateGenerationsDoNotHideThePeriod) {
  using cake::testing::replace;
  const std::string fixed = "corpus/bugs/sync.race/cutlass_clc_epilogue_store_stage_restarts_fixed.cake";
  const std::string text = corpusText(fixed);
  EXPECT_FALSE(violatedAt(cake::testing::compile(text).schedules.at(0), {{"M", 320}}));
  auto r = expectProved(text, fixed);
  EXPECT_NE(r.engine.find("period 3"), std::string::npos) << r.engine;

  auto tiles = [](int64_t n) {
    return [n](const ir::Schedule& s) { return violatedAt(s, {{"M", 64 * n}}); };
  };
  // the corpus file's broken twin: the stage restarts at 0 every tile
  const std::string twin = corpusText("corpus/bugs/sync.race/cutlass_clc_epilogue_store_stage_restarts.cake");
  expectBrokenNotProved(twin, tiles(2), "stage restarts every tile");
  // a fourth store in flight over three stages: the first store's stage is
  // rewritten before it retired (a race in the first tile)
  std::string four = text;
  for (int i = 0; i < 4; ++i) four = replace(four, "lm.tma_store_wait(pending=2)", "lm.tma_store_wait(pending=3)");
  ASSERT_EQ(four.find("lm.tma_store_wait(pending=2)"), std::string::npos);
  expectBrokenNotProved(four, tiles(1), "pending=3 over three stages");
  // the last subtile's stage one step behind: it rewrites the stage the
  // previous subtile's store still reads
  const std::string behind =
      replace(text, "lm.copy(smem_c[(t * 4 + 3) % 3], acc[:, 192:256])", "lm.copy(smem_c[(t * 4 + 2) % 3], acc[:, 192:256])");
  ASSERT_NE(behind, text);
  expectBrokenNotProved(behind, tiles(1), "last subtile writes the stage of the one before");

  // A whole view or none: FlashKDA's math instances each touch their own
  // rows of `smem_s`, but instance 0's final TMA store reads instance 1's
  // rows too, so only instance 0's accesses are private. Zeroing them alone
  // gave the view two generation deltas per period (unknown); it is proved.
  const std::string kda = "corpus/bugs/proxy.missing-fence/flashkda_zero_init_state_empty_sequence";
  expectProved(corpusText(kda + "_fixed.cake"), kda);
  expectBrokenNotProved(
      corpusText(kda + ".cake"), [](const ir::Schedule& s) { return violatedAt(s, {{"seqlen", 0}}); },
      "the FlashKDA twin: no fence for an empty sequence");
}

// 2. Clamped loop bounds: DeepEP's prologue loads `min(2, n_chunks)` chunks
// before the loop over `n_chunks` ("the symbolic loops have different
// bounds"). From n_chunks = 2 on the bound is the constant 2; below, each
// trip count is explored as it is.
TEST(TripProofGaps, ClampedLoopBoundsAreProvedFromTheirConstant) {
  using cake::testing::replace;
  const std::string text = corpusText("corpus/bugs/sync.race/deepep_tma_copy_store_wait_pending1_fixed.cake");
  auto r = expectProved(text, "deepep");
  EXPECT_NE(r.engine.find("trip counts 1..1 one by one, below the clamped loop bounds' constants"), std::string::npos)
      << r.engine;
  const std::string prologue = "for i in lm.range(0, min(2, n_chunks)):";
  ASSERT_NE(text.find(prologue), std::string::npos);
  // the same bound written with an offset inside and outside the min: 1 for
  // n_chunks = 1, 2 from 2 on (the constant from n_chunks = 2)
  expectProved(replace(text, prologue, "for i in lm.range(0, min(3, n_chunks + 1) - 1):"), "min(3, n_chunks + 1) - 1");

  auto chunks = [](std::initializer_list<int64_t> ns) {
    return [ns](const ir::Schedule& s) {
      for (int64_t n : ns)
        if (violatedAt(s, {{"n_chunks", n}})) return true;
      return false;
    };
  };
  const std::string twin = corpusText("corpus/bugs/sync.race/deepep_tma_copy_store_wait_pending1.cake");
  expectBrokenNotProved(twin, chunks({3}), "the corpus twin: store_wait(pending=1) before the reload");
  // three chunks loaded first into a two-stage ring: wrong from n_chunks = 3
  // on, where the bound is its constant (clean at 1 and 2)
  const std::string three = replace(text, prologue, "for i in lm.range(0, min(3, n_chunks)):");
  EXPECT_FALSE(chunks({1, 2})(cake::testing::compile(three).schedules.at(0)));
  expectBrokenNotProved(three, chunks({3}), "three chunks loaded first");
  // min(4, n_chunks + 1) - 2 chunks loaded first: none for n_chunks = 1,
  // one for 2 (a hang), two from 3 on (clean): wrong only below the least
  // value at which the bound is its constant
  const std::string below = replace(text, prologue, "for i in lm.range(0, min(4, n_chunks + 1) - 2):");
  EXPECT_FALSE(chunks({3, 4, 7})(cake::testing::compile(below).schedules.at(0)));
  expectBrokenNotProved(below, chunks({1}), "too few chunks loaded first below the constant");

  // A loop whose min bound is the only symbolic bound keeps it as its trip
  // expression (a first version took it for a clamp of nothing: unknown).
  auto rl = expectProved(corpusText("corpus/copy/sm80_cp_async_double_buffer.cake"), "a lone min bound");
  EXPECT_NE(rl.engine.find("every min(8, lm.cdiv(rows, 64)"), std::string::npos) << rl.engine;

  // With no lm.assume on K, lm.cdiv(K, 64) may be 0 or less: the values
  // below 0 are covered by the system for 0 since the clamped prologue
  // min(2, k_tiles) runs no iteration there either.
  const std::string tilelang = "corpus/bugs/sync.race/tilelang_pipelined_gemm_mbar_ring_parity";
  auto r3 = expectProved(corpusText(tilelang + "_fixed.cake"), tilelang);
  EXPECT_NE(r3.engine.find("every value below 0 reads as 0 does"), std::string::npos) << r3.engine;
  expectBrokenNotProved(
      corpusText(tilelang + ".cake"), [](const ir::Schedule& s) { return violatedAt(s, {{"K", 65}}); },
      "the tilelang twin: the ring's phase from the iteration's parity");
}

// 3. Guards decided per allowed case: vLLM's MLA kernel takes the early
// path for a split with no KV tiles (`if kv_tiles == 0:` in the compute
// role, `if kv_tiles > 0:` in the load role, around the K loop). Of the
// four outcomes, the lm.assume facts allow two; each is proved on the
// schedule with its guards decided: a persistent kernel of kv_tiles >= 1
// K iterations per tile, and one loop over the tiles.
TEST(TripProofGaps, GuardsOnParametersAreDecidedPerAllowedCase) {
  using cake::testing::replace;
  const std::string text =
      corpusText("corpus/bugs/sync.arrival-overflow/vllm_cutlass_mla_epilogue_arrive_no_wait_fixed.cake");
  auto r = expectProved(text, "vllm");
  EXPECT_NE(r.engine.find("(2 of 4 cases)"), std::string::npos) << r.engine;

  auto at = [](std::initializer_list<std::pair<int64_t, int64_t>> shapes) {  // (kv_tiles, tiles)
    return [shapes](const ir::Schedule& s) {
      for (const auto& [kv, t] : shapes)
        if (violatedAt(s, {{"kv_tiles", kv}, {"tiles", t}})) return true;
      return false;
    };
  };
  const std::string twin =
      corpusText("corpus/bugs/sync.arrival-overflow/vllm_cutlass_mla_epilogue_arrive_no_wait.cake");
  expectBrokenNotProved(twin, at({{0, 2}}), "the corpus twin: bar_arrive on the early path");
  // without lm.assume(kv_tiles >= 0) a third outcome is allowed (neither
  // guard taken): the compute role waits for a Q tile nobody loads
  const std::string negative = replace(text, "    lm.assume(kv_tiles >= 0)\n", "");
  ASSERT_NE(negative, text);
  EXPECT_FALSE(at({{0, 2}, {1, 2}, {3, 3}})(cake::testing::compile(negative).schedules.at(0)));
  expectBrokenNotProved(negative, at({{-1, 1}}), "kv_tiles < 0 allowed");
  // the load role's ring index restarts every tile (the compute role's
  // runs on): wrong from the second tile, in the case kv_tiles > 0 only
  const std::string restart = replace(text, "                    it = t * kv_tiles + j\n", "                    it = j\n");
  ASSERT_NE(restart, text);
  EXPECT_FALSE(at({{0, 3}, {1, 1}, {4, 1}})(cake::testing::compile(restart).schedules.at(0)));
  expectBrokenNotProved(restart, at({{3, 2}}), "ring index restarts per tile in the load role");
}

// A hole found by the soundness test on this branch (present on main): the
// persistent grid reads `t * E_B` as 0 (each tile from ring index 0), and
// init= is evaluated without being recorded, so `init=(it == 0)` with `it =
// t * k_tiles + k` held at every tile's first K iteration in the grid and
// at the first tile's only in a run: the data.stale-accumulator bug of the
// corpus file was proved (the bounded check finds it: exit 1). An init=
// that reads the ring start is now not covered (checkRegsPathIndependent).
TEST(TripProofGaps, PersistentInitReadingTheRingIndexIsNotProved) {
  using cake::testing::replace;
  const std::string bug = "corpus/bugs/data.stale-accumulator/sm90_persistent_init_first_tile_only.cake";
  const std::string text = corpusText(bug);
  auto at = [](const ir::Schedule& s) { return violatedAt(s, {{"M", 257}, {"N", 1}, {"K", 1}}); };
  expectBrokenNotProved(text, at, "init=(it == 0)");
  auto m = cake::testing::compile(text);
  ASSERT_FALSE(m.schedules.empty());
  const std::string why = proveGap(m.schedules[0]).detail;
  EXPECT_NE(why.find("reads the tile's ring start or the tile count"), std::string::npos) << why;
  // the same bug over the loop variables only: met by the exploration
  const std::string first = replace(text, "init=(it == 0))", "init=(t == 0 and k == 0))");
  ASSERT_NE(first, text);
  expectBrokenNotProved(first, at, "init=(t == 0 and k == 0)");
  // the fix (corpus/gemm/sm90_persistent_ws.cake's): proved
  const std::string fixed = replace(text, "init=(it == 0))", "init=(k == 0))");
  EXPECT_FALSE(at(cake::testing::compile(fixed).schedules.at(0)));
  expectProved(fixed, "init=(k == 0)");
}

namespace {
// Is the bounded check broken at M = 129, N = 1 (two tiles) and some K in ks?
std::function<bool(const ir::Schedule&)> brokenAtM129N1(std::initializer_list<int64_t> ks) {
  return [ks = std::vector<int64_t>(ks)](const ir::Schedule& s) {
    for (int64_t k : ks)
      if (violatedAt(s, {{"M", 129}, {"N", 1}, {"K", k}})) return true;
    return false;
  };
}
}  // namespace

// A persistent kernel with no lm.assume(K > 0): its K loops may run no
// iteration. Once with lm.cdiv(K, 64) >= 1 (the persistent proof), once
// with it <= 0, where every loop bounded by it is shown by the solver to run
// none and the tile loop is the one symbolic loop.
TEST(TripProofGaps, KLoopThatMayRunNoIterationIsProvedPerCase) {
  using cake::testing::replace;
  const std::string base = "corpus/bugs/sync.race/triton_ws_consumer_release_before_tma_store";
  const std::string text = corpusText(base + "_fixed.cake");
  auto r = expectProved(text, base);
  EXPECT_NE(r.engine.find("<= 0, where the K loops run no iteration"), std::string::npos) << r.engine;
  expectBrokenNotProved(corpusText(base + ".cake"), brokenAtM129N1({1}), "the corpus twin: release before the TMA store");
  // the MMA role's K loop one iteration longer than the load role's: a hang
  // at every K, also K = 0, where that loop still runs one iteration (the
  // solver does not show it runs none for lm.cdiv(K, 64) <= 0)
  const std::string longer = replace(text, "            for k in lm.range(0, k_tiles):\n                it = t * k_tiles + k\n                lm.wait(full",
                                     "            for k in lm.range(0, k_tiles + 1):\n                it = t * k_tiles + k\n                lm.wait(full");
  ASSERT_NE(longer, text);
  expectBrokenNotProved(longer, brokenAtM129N1({0}), "the MMA role's K loop one longer");
}

// docs/z3.md "Guards the case's fact decides" (helper k0proof): CUTLASS's
// grouped GEMM fix for a group with K = 0 (NVIDIA/cutlass #2674) branches
// on `if k_tiles == 0:` in the epilogue, filling zeros instead of reading
// the TMEM accumulator nothing wrote. The guard reads only the K loop's trip
// count, so each case of the split fixes it: not taken with k_tiles >= 1
// (the persistent proof then sees the TMEM reads only), taken with
// k_tiles <= 0 (the fill only). Before, the case k_tiles >= 1 refused the
// guard ("decides what a tile does to its register fragments").
TEST(TripProofGaps, GuardOnTheKTripCountIsDecidedPerCase) {
  const std::string base = "corpus/bugs/data.uninitialized/cutlass_sm100_grouped_gemm_k0_acc_unwritten";
  const std::string text = corpusText(base + "_fixed.cake");
  auto r = expectProved(text, base);
  EXPECT_NE(r.engine.find(">= 1 (lm.cdiv(K, 64) == 0 not taken)"), std::string::npos) << r.engine;
  EXPECT_NE(r.engine.find("<= 0, where the K loops run no iteration (lm.cdiv(K, 64) == 0 taken)"),
            std::string::npos)
      << r.engine;
  // broken at K = 0 (the TMEM read where no MMA wrote it): the corpus twin,
  // the guard inverted, and the guard one k-tile off (the fill never taken
  // at K = 0)
  expectBrokenNotProved(corpusText(base + ".cake"), brokenAtM129N1({0}), "the corpus twin: TMEM read at K = 0");
  for (const char* guard : {"if k_tiles != 0:", "if k_tiles == 1:"}) {
    const std::string variant = cake::testing::replace(text, "if k_tiles == 0:", guard);
    ASSERT_NE(variant, text) << guard;
    expectBrokenNotProved(variant, brokenAtM129N1({0}), guard);
  }
}

// docs/z3.md "An operation of the first K iteration only" (helper shapes,
// session 18, issue 11). humming's leader waits for the epilogues of the
// tile before (`if rank == 0 and t > 0 and k == 0: lm.wait(epi_done, ...)`)
// in a tile's first K iteration only: the first iteration at ring start x >
// 0 is the grid's iteration x with that wait added, which the proof
// refused ("... with operations left out"). Now an mbarrier wait or
// arrival of the grid's iteration 0 of the tile, on a slot no K iteration
// k >= 1 uses, may be added.
TEST(TripProofGaps, FirstIterationOnlyWaitIsProved) {
  using cake::testing::replace;
  const std::string base = "corpus/bugs/sync.race/humming_multicast_peer_epilogue_reuse";
  const std::string text = corpusText(base + "_fixed.cake");
  auto r = expectProved(text, base);
  EXPECT_NE(r.engine.find("lap induction over tiles and K"), std::string::npos) << r.engine;
  auto at = [](std::initializer_list<std::pair<int64_t, int64_t>> shapes) {  // (M, K)
    return [shapes](const ir::Schedule& s) {
      for (const auto& [m, k] : shapes)
        if (violatedAt(s, {{"M", m}, {"K", k}})) return true;
      return false;
    };
  };
  EXPECT_FALSE(at({{65, 129}, {129, 65}, {1, 1}})(cake::testing::compile(text).schedules.at(0)));
  expectBrokenNotProved(corpusText(base + ".cake"), at({{65, 129}}),
                        "the corpus twin: the leader waits for its own epilogue only");
  // the wait in tile 0 too: nobody arrives on epi_done before it (a hang)
  const std::string every = replace(text, "if rank == 0 and t > 0 and k == 0:", "if rank == 0 and k == 0:");
  ASSERT_NE(every, text);
  expectBrokenNotProved(every, at({{1, 1}}), "the epilogue wait in the first tile too");
  // the wait after the multicast of A: the leader overwrites the staging
  // buffer of a peer whose epilogue still reads it
  const std::string late = replace(
      text,
      "                if rank == 0 and t > 0 and k == 0:\n                    lm.wait(epi_done, stage=0)\n"
      "                lm.wait(empty, iter=it - 2)\n                lm.expect_tx(full, 24576, iter=it)\n"
      "                if rank == 0:\n"
      "                    smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full, multicast=3)\n",
      "                lm.wait(empty, iter=it - 2)\n                lm.expect_tx(full, 24576, iter=it)\n"
      "                if rank == 0:\n"
      "                    smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full, multicast=3)\n"
      "                if rank == 0 and t > 0 and k == 0:\n                    lm.wait(epi_done, stage=0)\n");
  ASSERT_NE(late, text);
  expectBrokenNotProved(late, at({{65, 129}, {65, 1}}), "the epilogue wait after the multicast of A");
}

// docs/z3.md "A tile loop split at a monotone guard (helper fa4split,
// session 19)": the FA4-flex pair, whose K loop sits under `if t >=
// n_empty:` in the persistent tile loop and whose ring index is `(t -
// n_empty) * k_tiles + k`, is proved by splitting the tile loop at n_empty
// (main: unknown, "the symbolic loops have different bounds"). Each broken
// variant is confirmed broken by the bounded check and is not proved.
TEST(TripProofGaps, TileLoopSplitAtAMonotoneGuardIsProved) {
  using cake::testing::replace;
  auto at = [](std::initializer_list<std::tuple<int64_t, int64_t, int64_t>> shapes) {  // (M, K, first_work)
    return [shapes](const ir::Schedule& s) {
      for (const auto& [m, k, f] : shapes)
        if (violatedAt(s, {{"M", m}, {"K", k}, {"first_work", f}})) return true;
      return false;
    };
  };
  for (const std::string base : {"corpus/bugs/sync.race/fa4_flex_empty_tile_extra_arrive",
                                 "corpus/bugs/sync.stale-phase/fa4_flex_empty_tile_phase_flip"}) {
    const std::string text = corpusText(base + "_fixed.cake");
    auto r = expectProved(text, base);
    EXPECT_NE(r.engine.find("split at"), std::string::npos) << r.engine;
    EXPECT_NE(r.engine.find("the empty tiles' loop run once"), std::string::npos) << r.engine;
    EXPECT_FALSE(at({{257, 1, 1}, {385, 65, 2}, {129, 129, 0}, {385, 1, 5}})(
        cake::testing::compile(text).schedules.at(0)));
    expectBrokenNotProved(corpusText(base + ".cake"), at({{257, 1, 1}, {129, 1, 1}}), base + ": the corpus twin");
  }
  const std::string text = corpusText("corpus/bugs/sync.race/fa4_flex_empty_tile_extra_arrive_fixed.cake");
  const std::string corr_guard = "            if t >= n_empty:\n                lm.wait(o_full, stage=0)";
  // a guard that is not monotone in t: the correction skips tile 1, whose
  // O the MMA warp commits (the MMA warp then waits for o_empty forever)
  const std::string holes = replace(text, corr_guard,
                                    "            if t >= n_empty and t != 1:\n                lm.wait(o_full, stage=0)");
  ASSERT_NE(holes, text);
  expectBrokenNotProved(holes, at({{257, 1, 0}, {385, 1, 0}}), "a guard that is not monotone");
  // the bound moving inside the loop: n_empty + 2 * (t % 2) (tile 1 skipped)
  const std::string moving = replace(text, corr_guard,
                                     "            if t >= n_empty + 2 * (t % 2):\n                lm.wait(o_full, stage=0)");
  ASSERT_NE(moving, text);
  expectBrokenNotProved(moving, at({{257, 1, 0}, {385, 1, 0}}), "a guard whose bound changes with t");
  // the load role's ring index not counting the empty tiles out
  const std::string ring = replace(text, "it = (t - n_empty) * k_tiles + k", "it = t * k_tiles + k");
  ASSERT_NE(ring, text);
  expectBrokenNotProved(ring, at({{257, 1, 1}, {385, 65, 2}}), "the ring index of the load role");
  // the empty tile's TMA store still in flight when the next tile writes
  // smem_o (the wait only on tiles with work)
  const std::string store = replace(
      replace(text, "                lm.fill(o_frag, 0.0)\n            lm.tma_store_wait(pending=0)\n",
              "                lm.fill(o_frag, 0.0)\n"),
      "                lm.arrive(o_empty, stage=0)\n            else:",
      "                lm.arrive(o_empty, stage=0)\n                lm.tma_store_wait(pending=0)\n            else:");
  ASSERT_NE(store, text);
  expectBrokenNotProved(store, at({{257, 1, 2}, {385, 1, 3}}), "the empty tiles' store not waited for");
}

// docs/z3.md "Counters through the ring position": TileLang's warp-specialized
// persistent GEMM with the ring state carried across tiles names its slots by
// stage= and mixes phases: the waits evaluate theirs from the running
// iteration (phase=it // 3), the consumer's release and the loads' derived
// expect_tx count theirs (the process's earlier operations on the slot), and
// the MMA's stage-named reads of smem_a / smem_b count the reader's returns
// to the index. The grid restarts the ring in every tile, so the counted
// fields grew by 8 per tile (24 iterations, 3 slots) and no tile period
// existed (main: unknown, "no steady period"); through the ring position they
// are proved, also with the consumer's waits counted too. Broken forms, each
// confirmed by the bounded check, are not proved: the producer's parity one
// off in odd tiles (a deadlock from the 2nd tile: met by the exploration),
// the consumer's parity one off (a race in the first iteration), the MMA
// reading the stage one further per tile (a stale read from the 2nd tile)
// and the release skipped in every 4th tile (a hang from the 5th tile).
TEST(TripProofGaps, CountedPhasesAndReadGenerationsFollowTheRing) {
  using cake::testing::replace;
  const std::string text =
      corpusText("corpus/bugs/sync.race/tilelang_ws_persistent_serial_phase_restart_fixed.cake");
  auto brokenSomewhere = [](const ir::Schedule& s) {
    return cake::testing::brokenOnGrid(s, {{"M", {1, 65, 257, 449}}, {"K", {1, 65, 129}}});
  };
  const std::string full_wait = "lm.wait(full, stage=it % 3, phase=it // 3)";
  for (const std::string& good : {text, replace(text, full_wait, "lm.wait(full, stage=it % 3)")}) {
    auto m = cake::testing::compile(good);
    ASSERT_FALSE(m.schedules.empty());
    EXPECT_FALSE(violatedAt(m.schedules[0], {{"M", 257}, {"K", 129}}));
    auto r = proveGap(m.schedules[0]);
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
    EXPECT_NE(r.engine.find("lap induction over tiles and K"), std::string::npos) << r.engine;
  }
  const std::string release = "                lm.arrive(empty, stage=it % 3)\n";
  const std::string copy = "            lm.copy(smem_c[0], acc)\n";
  // met: the exploration itself meets the violation (the counters aligned, the periods found)
  struct Bug { const char* what; std::string text; bool met = false; };
  const std::vector<Bug> bugs = {
      {"the producer's parity one off in odd tiles",
       replace(text, "phase=it // 3 - 1)", "phase=it // 3 - 1 + t % 2)"), true},
      {"the consumer's parity one off", replace(text, full_wait, "lm.wait(full, stage=it % 3, phase=it // 3 - 1)"),
       true},
      {"the MMA reads the stage one further per tile",
       replace(text, "lm.mma(acc, smem_a[it % 3]", "lm.mma(acc, smem_a[(it + t) % 3]")},
      {"the release skipped in every 4th tile",
       replace(text, release, "                if t % 4 != 3:\n    " + release)},
      {"an extra release of slot 0 after the K loop",
       replace(text, copy, "            lm.arrive(empty, stage=0)\n" + copy)},
      {"the consumer's waits counted, one more after the K loop",
       replace(replace(text, full_wait, "lm.wait(full, stage=it % 3)"), copy,
               "            lm.wait(full, stage=0)\n" + copy)},
  };
  for (const Bug& b : bugs) {
    ASSERT_NE(b.text, text) << b.what;
    expectBrokenNotProved(b.text, brokenSomewhere, b.what);
    if (!b.met) continue;
    auto m = cake::testing::compile(b.text);
    ASSERT_FALSE(m.schedules.empty());
    const std::string detail = proveGap(m.schedules[0]).detail;
    EXPECT_NE(detail.find("the exploration over every tile count and K trip count meets"), std::string::npos)
        << b.what << ": " << detail;
  }
}

// A read-back keeps the generations in step (encoder/system.cpp `tag`): a
// read of an index its reader wrote since its last read means the lap of
// that write. Kokkos' inter-warp reduction named by stage (warp 4 joins
// into result[0] and reads it back once per call) is proved with period 1
// call; so is the persistent warp-specialized GEMM whose epilogue writes
// smem_c and reads it back (its TMA store) every tile, which session 20's
// rule (a read-back keeps the reader's generation) left without a steady
// period. The broken twin (the join before the barrier) is not proved.
TEST(TripProofGaps, ReadBackKeepsTheGenerationsInStep) {
  const std::string dir = "corpus/bugs/data.stale-read/kokkos_inter_warp_reduction_stage_named_";
  auto r = expectProved(corpusText(dir + "fixed.cake"), "kokkos stage-named");
  EXPECT_NE(r.engine.find("period 1"), std::string::npos) << r.engine;
  expectProved(corpusText("corpus/gemm/sm90_persistent_ws.cake"), "sm90_persistent_ws");
  expectBrokenNotProved(
      corpusText(dir + "join_before_sync.cake"),
      [](const ir::Schedule& s) { return violatedAt(s, {{"n_calls", 2}}); }, "the join before the barrier");
}

// docs/z3.md "Private generations" (read generations no rule reads): one
// instance writes a table once, then every instance reads it in a loop
// paced by a named barrier. The writer's own reads count their returns to
// the slot (one lap per iteration) while the other instance's are capped at
// the one lap written, so the view had two generation deltas per period and
// no steady period was found; a read of bytes no *other* process writes has
// a generation nothing compares (sim::staleWrite: its own data is never
// stale), and the second try with those set to 0 proves it. The table
// rewritten every iteration (one delta everywhere) is proved as before, and
// the broken variants are not.
TEST(TripProofGaps, TableWrittenOnceAndReadEveryIterationIsProved) {
  using cake::testing::replace;
  const std::string text = cake::testing::kTableReadEveryIteration;
  // the table as written, and rewritten by its writer in every iteration
  // between two barriers (one generation delta: proved before the change too)
  const std::string rewritten =
      replace(text, "            lm.copy(v, tab[0])\n",
              "            if w == 0:\n                lm.copy(tab[0], v)\n            lm.sync(cta)\n"
              "            lm.copy(v, tab[0])\n");
  for (const std::string* good : {&text, &rewritten}) {
    auto mod = cake::testing::compile(*good);
    ASSERT_FALSE(mod.schedules.empty());
    auto r = proveGap(mod.schedules[0]);
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail << "\n" << *good;
  }

  struct Bug { const char* what; std::string text; };
  const std::vector<Bug> bugs = {
      // the other instance reads the table before it is written
      {"no barrier after the table's write", replace(text, "        lm.sync(cta)\n        for k", "        for k")},
      // the writer rewrites it while the other instance may still read it
      {"rewritten before the pacing barrier",
       replace(text, "            lm.sync(cta)\n", "            if w == 0:\n                lm.copy(tab[0], v)\n"
                                                   "            lm.sync(cta)\n")},
  };
  for (const Bug& b : bugs) {
    ASSERT_NE(b.text, text) << b.what;
    expectBrokenNotProved(b.text, [](const ir::Schedule& s) { return brokenAtSomeK(s, {1, 2, 3}); }, b.what);
  }
}

// docs/z3.md "A named barrier synced before the K loop and in it": MMQ's
// stream-k tile loop (llama.cpp PR #13294) syncs the block barrier twice
// before its K loop and twice in every K iteration. A named barrier's
// generation is state the shifts move, named by no instruction, so the part
// before the K loop maps to itself under the ring shift. Before: unknown,
// "lm.sync(block) at the tile loop before the K loop of warps[0] moves with
// the ring period".
TEST(TripProofGaps, NamedBarrierBeforeAndInTheKLoopIsProved) {
  using cake::testing::replace;
  const std::string good =
      corpusText("corpus/bugs/sync.race/llamacpp_mmq_ids_dst_shared_stream_k_no_barrier_fixed.cake");
  auto brokenSomewhere = [](const ir::Schedule& s) {
    return cake::testing::brokenOnGrid(s, {{"n_tiles", {1, 2, 3}}, {"kb", {1, 2}}});
  };
  auto mod = cake::testing::compile(good);
  ASSERT_FALSE(mod.schedules.empty());
  ASSERT_FALSE(brokenSomewhere(mod.schedules[0]));
  auto r = proveGap(mod.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  // the corpus's broken form: no sync before the gather, none after it
  expectBrokenNotProved(corpusText("corpus/bugs/sync.race/llamacpp_mmq_ids_dst_shared_stream_k_no_barrier.cake"),
                        brokenSomewhere, "the broken form");
  const std::string before = "            lm.sync(block)                                                    # the fix "
                             "(PR #13294)\n            lm.copy(ids[w], idr)\n";
  const std::vector<std::pair<std::string, std::string>> bugs = {
      // no sync before the gather: the previous tile's write-back still reads
      {before, "            lm.copy(ids[w], idr)\n"},
      // that sync in even tiles only: the write-back of tile 1 races tile 2's gather
      {before, "            if t % 2 == 0:\n                lm.sync(block)\n            lm.copy(ids[w], idr)\n"},
      // no sync after the K loop's reads: the next iteration's loads race them
      {"                lm.mma(acc, a, b, init=(k == 0))\n                lm.sync(block)\n",
       "                lm.mma(acc, a, b, init=(k == 0))\n"},
  };
  for (const auto& [from, to] : bugs) expectBrokenNotProved(replace(good, from, to), brokenSomewhere, to);
  // docs/known-limits.md's reproducer (two one-warp instances), and it
  // without the sync before the table's write (the last tile's reads race it)
  const std::string small = cake::testing::kTileSyncTwoWarps;
  auto sm = cake::testing::compile(small);
  ASSERT_FALSE(sm.schedules.empty());
  ASSERT_FALSE(brokenSomewhere(sm.schedules[0]));
  auto rs = proveGap(sm.schedules[0]);
  EXPECT_EQ(rs.outcome, encoder::Outcome::Proved) << rs.detail;
  expectBrokenNotProved(replace(small, "            lm.sync(cta)\n            lm.copy(ids[w], v)\n",
                                "            lm.copy(ids[w], v)\n"),
                        brokenSomewhere, "tile_sync without the sync before the table's write");
}

// docs/z3.md "A peeled last K iteration": Helion's flash backward MMA warp
// runs lm.range(0, steps - 1) and then the step once more, written out, read
// at steps - 1. Before: unknown, "the symbolic loops have different bounds
// (n_tiles around steps ...)".
TEST(TripProofGaps, PeeledLastKIterationIsProved) {
  using cake::testing::replace;
  const std::string good =
      corpusText("corpus/bugs/sync.race/helion_flash_bwd_mma_tail_ds_full_no_toggle_fixed.cake");
  auto brokenSomewhere = [](const ir::Schedule& s) {
    return cake::testing::brokenOnGrid(s, {{"n_tiles", {1, 2, 3}}, {"steps", {1, 2, 3}}});
  };
  auto mod = cake::testing::compile(good);
  ASSERT_FALSE(mod.schedules.empty());
  ASSERT_FALSE(brokenSomewhere(mod.schedules[0]));
  auto r = proveGap(mod.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("last iteration peeled"), std::string::npos) << r.engine;
  // the corpus's broken form: the tail's wait does not toggle (phase=base)
  expectBrokenNotProved(corpusText("corpus/bugs/sync.race/helion_flash_bwd_mma_tail_ds_full_no_toggle.cake"),
                        brokenSomewhere, "the broken form");
  const std::vector<std::pair<std::string, std::string>> bugs = {
      // the tail waits for the step before's phase: not the body's copy, not unpeeled
      {"phase=base + steps - 1)", "phase=base + steps - 2)"},
      // the tail does not hand dS back: not the body's copy, not unpeeled (a hang)
      {"            lm.mma_commit(barrier=ds_empty, iter=it)\n            lm.mma_commit(barrier=dk_full, iter=t)\n",
       "            lm.mma_commit(barrier=dk_full, iter=t)\n"},
      // compute signals dS before writing it: unpeeled, met by the exploration
      {"                lm.copy(smem_ds[it], ds_r)\n                lm.fence_proxy()\n                lm.arrive(ds_full, iter=it)\n",
       "                lm.arrive(ds_full, iter=it)\n                lm.copy(smem_ds[it], ds_r)\n                lm.fence_proxy()\n"},
  };
  for (const auto& [from, to] : bugs) expectBrokenNotProved(replace(good, from, to), brokenSomewhere, to);
}

// cuDNN frontend's SM120 persistent FP8 prefill (PR #892): the load warp
// peels the first iteration of its K loop (the K and V loads of tile 0
// before `for j in lm.range(1, kv_tiles)`, whose body syncs on the consumed
// barriers first), while the compute warps run `lm.range(0, kv_tiles)`.
// docs/z3.md "A peeled first K iteration": the prologue is the body's
// iteration 0 with the syncs left out, so the loop runs from 0 with the
// syncs under `if j > 0:`. The broken forms, each met by the bounded check,
// must never be proved.
TEST(TripProofGaps, PeeledFirstKIterationIsProved) {
  using cake::testing::replace;
  const std::string good =
      corpusText("corpus/bugs/sync.race/cudnn_fe_sm120_persistent_kv_consumed_not_drained_fixed.cake");
  auto brokenSomewhere = [](const ir::Schedule& s) {
    return cake::testing::brokenOnGrid(s, {{"units", {1, 2, 3}}, {"kv_tiles", {1, 2, 3}}});
  };
  auto mod = cake::testing::compile(good);
  ASSERT_FALSE(mod.schedules.empty());
  ASSERT_FALSE(brokenSomewhere(mod.schedules[0]));
  auto r = proveGap(mod.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("first iteration peeled"), std::string::npos) << r.engine;
  // the corpus's broken form: the last tile's arrivals are not drained
  expectBrokenNotProved(corpusText("corpus/bugs/sync.race/cudnn_fe_sm120_persistent_kv_consumed_not_drained.cake"),
                        brokenSomewhere, "the broken form");
  const std::string k0 = "            sK.tma_load(K, coords=(base * 64, 0), iter=base, barrier=k_full)\n";
  const std::string v0 = "            sV.tma_load(V, coords=(base * 64, 0), iter=base, barrier=v_full)\n";
  const std::vector<std::pair<std::string, std::string>> bugs = {
      // the prologue loads K into V's buffer
      {k0, replace(k0, "sK.tma_load", "sV.tma_load")},
      // the prologue loads K for the wrong ring index (phase) and tile
      {k0, "            sK.tma_load(K, coords=((base + 1) * 64, 0), iter=base + 1, barrier=k_full)\n"},
      // the prologue misses V's load, which the body has (a hang)
      {v0, ""},
      // the prologue syncs on v_consumed before its K load: no iteration
      // of the body does that (a hang: the compute warps wait for V first)
      {k0, "            lm.sync(v_consumed)\n" + k0},
  };
  for (const auto& [from, to] : bugs) expectBrokenNotProved(replace(good, from, to), brokenSomewhere, to);
  // the K loop may be empty: the prologue's loads and the drain's syncs
  // with no tile to consume (kv_tiles == 0 allowed: a hang there)
  expectBrokenNotProved(
      replace(good, "    lm.assume(kv_tiles > 0)\n", "    lm.assume(kv_tiles >= 0)\n"),
      [](const ir::Schedule& s) { return cake::testing::violatedAt(s, {{"units", 1}, {"kv_tiles", 0}}); },
      "kv_tiles >= 0");
}

// The llama.cpp vector FlashAttention kernel's masked-tile skip (helpers
// favec, favec2, favec3): it walks n_tiles KV tiles and skips the first
// n_masked (`if k < n_masked:`), the skip running one named barrier sync
// against the other branch's four. The fixed form is proved (docs/z3.md
// "An empty tiles' loop that every process runs and ends on a barrier":
// the loop split at n_masked, the skipped tiles reduced at a cut; "A write
// no shift maps, kept in bytes whose readers do not move": the KQ loop's
// kqmax_shared row, which warp 0 fills before the loop). The broken forms
// below, each met by the bounded check, must never be proved.
TEST(TripProofGaps, MaskedTileSkipBrokenFormsAreNotProved) {
  using cake::testing::replace;
  const std::string good =
      corpusText("corpus/bugs/sync.race/llamacpp_fattn_vec_masked_tile_skip_no_barrier_fixed.cake");
  auto brokenSomewhere = [](const ir::Schedule& s) {
    for (int64_t tiles : {1, 2, 3})
      for (int64_t masked = 0; masked <= tiles; ++masked)
        if (cake::testing::violatedAt(s, {{"n_tiles", tiles}, {"n_masked", masked}})) return true;
    return false;
  };
  auto mod = cake::testing::compile(good);
  ASSERT_FALSE(mod.schedules.empty());
  ASSERT_FALSE(brokenSomewhere(mod.schedules[0]));
  {
    auto r = proveGap(mod.schedules[0]);
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
    EXPECT_NE(r.engine.find("ends it on a barrier"), std::string::npos) << r.engine;
  }
  const std::string fix = "                lm.sync(block)                                       # the fix: __syncthreads(); continue;\n";
  {
    // the skipped tile syncs twice, every warp alike: still correct
    auto m = cake::testing::compile(replace(good, fix, fix + fix));
    ASSERT_FALSE(m.schedules.empty());
    EXPECT_FALSE(brokenSomewhere(m.schedules[0]));
    auto r = proveGap(m.schedules[0]);
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  }
  const std::string kqmax_write =
      "                lm.copy(kqmax[0][:, w:w + 1], mx1)                   # kqmax_shared[j][threadIdx.y]\n"
      "                lm.sync(block)\n";
  const std::vector<std::pair<std::string, std::string>> bugs = {
      // the barrier before `continue` removed (the corpus's broken form)
      {fix, "                lm.copy(vkq, vkq)\n"},
      // the skipped tile reads the mask again after the barrier: the next
      // tile's store into maskh_shared races with it
      {fix, fix + "                lm.copy(mall, maskh[0])\n"},
      // the guard flipped and the skip's barrier dropped: the tiles past
      // n_masked skip without it
      {"            if k < n_masked:", "            if k >= n_masked:"},
      // the skip path arrives twice in warp 0 only: the warps fall out of
      // step on the barrier
      {fix, fix + "                if w == 0:\n                    lm.sync(block)\n"},
      // the skip's barrier only in the first skipped tile: the second one
      // races as the corpus's broken form does
      {fix, "                if k == 0:\n                    lm.sync(block)\n"},
      // the skip's barrier only from the second skipped tile on
      {fix, "                if k >= 1:\n                    lm.sync(block)\n"},
      // each warp's kqmax entry written after the barrier the others read
      // the row behind (the row warp 0 filled before the loop)
      {kqmax_write, "                lm.sync(block)\n"
                    "                lm.copy(kqmax[0][:, w:w + 1], mx1)                   # kqmax_shared[j][threadIdx.y]\n"},
  };
  expectBrokenNotProved(
      corpusText("corpus/bugs/sync.race/llamacpp_fattn_vec_masked_tile_skip_no_barrier.cake"), brokenSomewhere,
      "the corpus's broken form");
  for (size_t i = 0; i < bugs.size(); ++i) {
    ASSERT_NE(good.find(bugs[i].first), std::string::npos) << bugs[i].second;
    std::string text = replace(good, bugs[i].first, bugs[i].second);
    if (i == 2) text = replace(text, fix, "                lm.copy(vkq, vkq)\n");
    expectBrokenNotProved(text, brokenSomewhere, bugs[i].second);
  }
  // Periods that break at a later lap (past the bounded check's listed
  // values): the skip's barrier dropped at k == 5, and the KQ tile's
  // barrier after the kqmax entries dropped at k == 5 (the row read races
  // with the others' entry writes).
  const std::vector<std::tuple<std::string, std::string, int64_t, int64_t>> late = {
      {fix, "                if k < 5:\n                    lm.sync(block)\n                if k > 5:\n"
            "                    lm.sync(block)\n", 7, 6},
      {kqmax_write, "                lm.copy(kqmax[0][:, w:w + 1], mx1)                   # kqmax_shared[j][threadIdx.y]\n"
                    "                if k < 5:\n                    lm.sync(block)\n                if k > 5:\n"
                    "                    lm.sync(block)\n",
       7, 0},
  };
  for (const auto& [from, to, tiles_at, masked_at] : late) {
    ASSERT_NE(good.find(from), std::string::npos) << to;
    // (copies: a lambda may not capture a structured binding before clang 16)
    const int64_t tiles = tiles_at, masked = masked_at;
    expectBrokenNotProved(
        replace(good, from, to),
        [tiles, masked](const ir::Schedule& s) {
          return cake::testing::violatedAt(s, {{"n_tiles", tiles}, {"n_masked", masked}});
        },
        to);
  }
}

// docs/z3.md "A split point outside the loop's range": a split point X that
// may be negative or pass the tile count T is clamped (X <= 0: every guard
// true, X >= T: every guard false, else the split). FA4-flex's empty tiles
// with n_empty not capped at the CTA's tile count is proved so (main: "X <=
// T is not shown"). Not proved, each met by the bounded check: its corpus
// twin's extra arrival with the cap removed; n_empty that may go negative
// while the ring index counts from it (`t - n_empty` past the ring's start:
// X clamped the wrong way); and FA3's sliding window (its first loop
// synchronizes, so the proof stays unknown there) with the corpus twin's P V
// on every block, the producer's window one block later than the
// consumers', and the consumers' one block earlier.
TEST(TripProofGaps, SplitPointOutsideTheLoopRangeIsClamped) {
  using cake::testing::replace;
  const std::string capped = "n_empty   = min(my_tiles, lm.cdiv(max(first_work - lm.block_idx(0), 0), lm.grid_dim(0)))";
  const std::string uncapped = "n_empty   = lm.cdiv(max(first_work - lm.block_idx(0), 0), lm.grid_dim(0))";
  const std::string base = "corpus/bugs/sync.race/fa4_flex_empty_tile_extra_arrive";
  const std::string good = replace(corpusText(base + "_fixed.cake"), capped, uncapped);
  ASSERT_NE(good, corpusText(base + "_fixed.cake"));
  auto r = expectProved(good, "n_empty not capped at my_tiles");
  EXPECT_NE(r.engine.find("clamped to the loop's range"), std::string::npos) << r.engine;
  EXPECT_NE(r.engine.find("every guard false"), std::string::npos) << r.engine;
  auto at = [](std::initializer_list<std::tuple<int64_t, int64_t, int64_t>> shapes) {  // (M, K, first_work)
    return [shapes](const ir::Schedule& s) {
      for (const auto& [m, k, f] : shapes)
        if (violatedAt(s, {{"M", m}, {"K", k}, {"first_work", f}})) return true;
      return false;
    };
  };
  EXPECT_FALSE(at({{257, 1, 1}, {129, 1, 5}, {1, 1, 3}})(cake::testing::compile(good).schedules.at(0)));
  expectBrokenNotProved(replace(corpusText(base + ".cake"), capped, uncapped), at({{257, 1, 1}, {129, 1, 1}}),
                        "the extra arrival, n_empty not capped");
  const std::string below = replace(corpusText(base + "_fixed.cake"), capped, "n_empty   = first_work");
  expectBrokenNotProved(below, at({{129, 1, -1}, {257, 1, -2}}), "n_empty below 0 read by the ring index");

  const std::string fa3 = "corpus/bugs/data.stale-read/fa3_sliding_window_v_skipped_outside_window";
  auto window = [](const ir::Schedule& s) { return violatedAt(s, {{"seqlen_k", 1025}, {"window", 16}}); };
  const std::string fixed = corpusText(fa3 + "_fixed.cake");
  EXPECT_FALSE(window(cake::testing::compile(fixed).schedules.at(0)));
  expectBrokenNotProved(corpusText(fa3 + ".cake"), window, "FA3: P V on every block");
  const std::string load = "            if j >= first_in_window:\n                smem_vt.tma_load";
  const std::string late = replace(fixed, load, "            if j >= first_in_window + 1:\n                smem_vt.tma_load");
  ASSERT_NE(late, fixed);
  expectBrokenNotProved(late, window, "FA3: the producer's window one block later");
  const std::string pv = "            if j >= first_in_window:\n                lm.mma(";
  const std::string early = replace(fixed, pv, "            if j >= first_in_window - 1:\n                lm.mma(");
  ASSERT_NE(early, fixed);
  expectBrokenNotProved(early, window, "FA3: the consumers' window one block earlier");
}

// docs/z3.md "A kind boundary in the lap state" (helper fa3kb, session 41,
// issue 11): FA3's sliding window, whose key loop splits at a point the
// window moves and whose iterations on both sides sync with the other
// roles, is proved as one loop with the boundary in the lap state. Broken
// twins around the boundary: none proved, each met by the bounded check.
TEST(TripProofGaps, KindBoundaryInTheLapStateIsProved) {
  using cake::testing::replace;
  const std::string fa3 = "corpus/bugs/data.stale-read/fa3_sliding_window_v_skipped_outside_window";
  const std::string fixed = corpusText(fa3 + "_fixed.cake");
  auto r = expectProved(fixed, "FA3 sliding window");
  EXPECT_NE(r.engine.find("kind boundary in the state"), std::string::npos) << r.engine;
  auto window = [](const ir::Schedule& s) { return violatedAt(s, {{"seqlen_k", 1025}, {"window", 16}}); };
  EXPECT_FALSE(window(cake::testing::compile(fixed).schedules.at(0)));
  expectBrokenNotProved(corpusText(fa3 + ".cake"), window, "P V on every block");
  expectBrokenNotProved(corpusText("corpus/bugs/data.stale-read/fa3_sliding_window_v_loaded_one_block_late.cake"),
                        window, "the producer's window one block later");
  const std::string skip = "            else:\n                lm.arrive(v_full, iter=j)\n";
  const std::vector<std::pair<std::string, std::string>> twins = {
      {skip, ""},                                                                  // no arrival without data
      {skip, "            else:\n                lm.arrive(v_full, iter=j + 1)\n"},  // on the next block's slot
      {"            lm.arrive(v_empty, iter=j)\n",
       "                lm.arrive(v_empty, iter=j)\n"},  // V released only inside the window
      {"                lm.mma_wait(pending=0)\n            lm.arrive(v_empty",
       "                lm.mma_wait(pending=0)\n            else:\n                lm.mma(o_acc, p, smem_vt[j + 1], "
       "init=False)\n                lm.mma_commit()\n                lm.mma_wait(pending=0)\n            lm.arrive(v_empty"},
  };
  for (const auto& [from, to] : twins) {
    const std::string text = replace(fixed, from, to);
    ASSERT_NE(text, fixed) << to;
    expectBrokenNotProved(text, window, to.empty() ? "no arrival without data" : to);
  }
}
