// Loops no barrier paces (encoder/trip_pace.h, docs/z3.md "Loops no barrier
// paces: the processes behind go first"): after their last barrier the
// instances of such a loop drift apart without bound, and lap induction
// proved them only once the pacer held back the processes ahead of a free
// one. Correct schedules are proved (and not without the pacer); broken
// variants, each confirmed broken by the bounded explicit-state check, are
// not.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "encoder/sim_model.h"
#include "encoder/simulator.h"
#include "encoder/trip_pace.h"
#include "encoder/trip_proof.h"
#include "test_util.h"

using namespace cake;

namespace {

// The proof under the deterministic budgets of test_util.h and the work
// budget of `cake check`'s default 3 s (without the pacer the explorations
// run into it). `lap23`: the lap reduction's checked proviso and heads
// below the trip count's bound (docs/z3.md, session 23), which find the
// pacer's order by themselves in these schedules; off, the reduction as the
// pacer met it.
encoder::ModelCheckResult paceProve(const ir::Schedule& s, bool pace = true, bool lap23 = true, bool alone = true,
                                    int64_t work = 3'000'000'000) {
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = 64;
  encoder::TripProofOptions o;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  o.work = work;
  o.pace_free_loops = pace;
  o.pace_alone = alone;
  o.checked_proviso = o.exits_from_bound = lap23;
  return encoder::proveEveryTripCount(s, s.target, {b}, o);
}

// docs/known-limits.md's reproducer: kTableReadEveryIteration without the
// barrier at the end of its loop body (`warps` instances of the role).
std::string paceFreeLoop(int warps) {
  using cake::testing::replace;
  std::string t = replace(cake::testing::kTableReadEveryIteration, "            lm.sync(cta)\n", "");
  if (warps == 4) t = replace(t, "warps=[0, 1], group=1", "warps=[0, 1, 2, 3], group=1");
  return t;
}

// A producer and a consumer handing a two-slot ring over with mbarriers,
// beside a role that only reads a table written before the barrier: the
// pacer holds the ring's processes back behind the table reader (its next
// step is free) and the reader behind them (its whole remaining program is).
const std::string kPaceRingAndReader = R"(@cake.schedule(target="sm_80")
def ring_and_reader(lm, Out: LM.gmem, n: LM.i32):
    lm.assume(n >= 1)
    pool  = lm.smem(2048)
    tab   = pool.view(offset=0, shape=(1, 64), dtype=lm.i32, stages=1)
    buf   = pool.view(offset=256, shape=(1, 64), dtype=lm.i32, stages=2)
    v     = lm.regs(shape=(1, 64), dtype=lm.i32)
    prod  = lm.role(warps=[0])
    cons  = lm.role(warps=[1])
    rd    = lm.role(warps=[2])
    full  = lm.barrier(count=2, prod=[prod], cons=[cons], init_count=1)
    empty = lm.barrier(count=2, prod=[cons], cons=[prod], init_count=1)
    cta   = lm.named_barrier(roles=[prod, cons, rd])
    with prod:
        lm.fill(v, 1)
        lm.copy(tab[0], v)
        lm.sync(cta)
        for r in lm.range(0, n):
            lm.wait(empty, iter=r - 2)
            lm.copy(buf[r], v)
            lm.arrive(full, iter=r)
    with cons:
        lm.sync(cta)
        for r in lm.range(0, n):
            lm.wait(full, iter=r)
            lm.copy(v, buf[r])
            lm.arrive(empty, iter=r)
            lm.copy(Out, v, coords=(r, 0))
    with rd:
        lm.sync(cta)
        for r in lm.range(0, n):
            lm.copy(v, tab[0])
            lm.copy(Out, v, coords=(r, 64))
)";

const char* paceVerdict(const encoder::ModelCheckResult& r) {
  return r.outcome == encoder::Outcome::Proved ? "proved" : r.outcome == encoder::Outcome::Violation ? "violation" : "unknown";
}

struct PaceBug {
  std::string what, text;
  bool met = true;  // the proof's exploration meets the violation (else it refuses the schedule)
};

// Each bug is found by the bounded check at one of the bindings `at` gives
// for `ns`, and is not proved: the proof's exploration meets its violation
// where `met` (a reduction that left the violating runs out would end in a
// proof or the work budget); with `session22`, not proved by the pacer of
// session 22 either (TripProofOptions::pace_alone off).
void expectPaceBugsNotProved(const std::vector<PaceBug>& bugs, const std::vector<int64_t>& ns,
                             const std::function<encoder::Binding(const ir::Schedule&, int64_t)>& at, bool session22) {
  for (const PaceBug& b : bugs) {
    auto m = cake::testing::compile(b.text);
    ASSERT_FALSE(m.schedules.empty()) << b.what;
    const ir::Schedule& s = m.schedules[0];
    // (the first value that shows the bug decides: the rest are not explored)
    const bool broken =
        std::any_of(ns.begin(), ns.end(), [&](int64_t n) { return cake::testing::violatedAt(s, at(s, n)); });
    EXPECT_TRUE(broken) << b.what;
    // (a bug the exploration need not meet gets a sixth of the budget in the
    // short form: a smaller budget never proves more, and the Slow form runs
    // every twin at the full budget; one twin spends ~20 s of CI using it up)
    auto r = paceProve(s, true, true, true, b.met || session22 ? 3'000'000'000 : 500'000'000);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.what << ": " << r.engine;
    if (b.met) EXPECT_EQ(r.outcome, encoder::Outcome::Violation) << b.what << ": " << r.detail;
    std::string line = b.what + ": " + paceVerdict(r) + " (" + r.detail.substr(0, 120) + ")";
    if (session22) {
      auto before = paceProve(s, true, true, false);
      EXPECT_NE(before.outcome, encoder::Outcome::Proved) << b.what << " (session 22's pacer): " << before.engine;
      line += std::string("; session 22's pacer ") + paceVerdict(before);
    }
    std::cout << line << "\n";
  }
}

}  // namespace

TEST(TripPace, LoopsNoBarrierPacesAreProved) {
  const std::string sglang = "corpus/bugs/sync.race/sglang_moe_align_prefix_search_before_barrier_fixed.cake";
  struct Case {
    std::string what, text;
    bool unknown_without;  // not proved without the pacer (the reason it exists)
  };
  const std::vector<Case> cases = {{"free loop, 2 instances", paceFreeLoop(2), true},
                                   {"free loop, 4 instances", paceFreeLoop(4), true},
                                   {sglang, cake::testing::corpusText(sglang), true},
                                   {"ring beside a table reader", kPaceRingAndReader, true}};
  for (const Case& c : cases) {
    auto m = cake::testing::compile(c.text);
    ASSERT_FALSE(m.schedules.empty()) << c.what;
    const ir::Schedule& s = m.schedules[0];
    EXPECT_FALSE(cake::testing::violatedAt(s, {{"n", 3}, {"K", 3}, {"n_blocks", 257}})) << c.what;
    auto r = paceProve(s);
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << c.what << ": " << r.engine << r.detail;
    if (!c.unknown_without) continue;
    auto off = paceProve(s, false, false);
    EXPECT_NE(off.outcome, encoder::Outcome::Proved) << c.what << " without the pacer: " << off.engine;
    // the reduction alone, with the processes below the trip count's bound
    // independent of those above it and the checked proviso, now takes the
    // process behind first too (docs/z3.md "The lap exploration's proviso
    // and heads below the trip count's bound")
    auto alone = paceProve(s, false, true);
    EXPECT_EQ(alone.outcome, encoder::Outcome::Proved) << c.what << " by the reduction alone: " << alone.detail;
    std::cout << c.what << ": " << paceVerdict(r) << "; without the pacer " << paceVerdict(off) << " ("
              << off.detail.substr(0, 120) << "); by the reduction alone " << paceVerdict(alone) << "\n";
  }
}

TEST(TripPace, BrokenFreeLoopsAreNotProved) {
  using cake::testing::replace;
  const std::string loop = paceFreeLoop(4);
  const std::string own = replace(replace(loop, "pool  = lm.smem(1024)", "pool  = lm.smem(2048)"),
                                  "    v     = lm.regs(",
                                  "    own   = pool.view(offset=256, shape=(1, 64), dtype=lm.i32, stages=4)\n"
                                  "    v     = lm.regs(");
  const std::string store = "            lm.copy(Out, v, coords=(k, 64 * w))\n";
  const std::vector<PaceBug> bugs = {
      // the corpus twin: no barrier between the prefix stores and the loop's reads
      {"sglang twin",
       cake::testing::corpusText("corpus/bugs/sync.race/sglang_moe_align_prefix_search_before_barrier.cake")},
      // the same in the reproducer
      {"no barrier before the loop", replace(loop, "        lm.sync(cta)\n", "")},
      // one instance rewrites the table inside the loop while the others read it
      {"table written in the loop",
       replace(loop, store, store + "            if w == 0:\n                lm.copy(tab[0], v)\n")},
      // one instance rewrites it after its loop, while another may still read it
      {"table written after the loop", loop + "        if w == 0:\n            lm.copy(tab[0], v)\n"},
      // each instance writes its own slot and reads its neighbour's, unsynchronized
      {"neighbour's slot read in the loop",
       replace(own, store, "            lm.copy(own[w], v)\n            lm.copy(v, own[(w + 1) % 4])\n" + store)},
      // the ring's producer does not wait for its slot to be released
      {"ring without the empty wait", replace(kPaceRingAndReader, "            lm.wait(empty, iter=r - 2)\n", "")},
  };
  expectPaceBugsNotProved(
      bugs, {1, 2, 3, 5},
      [](const ir::Schedule& s, int64_t n) { return cake::testing::bind(s, {{"n", n}, {"K", n}, {"n_blocks", 128 * n}}); },
      false);
}

namespace {

// docs/z3.md "The pacer's free step alone" (session 34): Apex's LayerNorm
// backward partial gradients (the corpus file's first kernel), where each
// warp adds into its own rows in a loop no barrier paces and the block's
// lm.sync rounds after it read other warps' rows.
const char* kLayerNormFile = "corpus/normalization/sm80_layernorm_bwd_gamma_two_stage.cake";

std::string layerNormPartGrad() {
  const std::string text = cake::testing::corpusText(kLayerNormFile);
  return text.substr(0, text.find("\n\n@cake.schedule(target=\"sm_80\")\ndef layernorm_bwd_grad_gamma")) + "\n";
}

// `what` replaced by `with` once (the test fails where `what` is missing)
std::string layerNormTwin(const std::string& what, const std::string& with) {
  const std::string good = layerNormPartGrad();
  const size_t at = good.find(what);
  EXPECT_NE(at, std::string::npos) << what;
  if (at == std::string::npos) return good;
  return good.substr(0, at) + with + good.substr(at + what.size());
}

// docs/known-limits.md's reproducer followed by an lm.sync and a rewrite
// of the table by instance 0: correct (the rewrite waits for every
// reader's arrival), and what the session-22 pacer left (a reader's step
// conflicts with the rewrite, which it took for a step instance 0 may
// still take before the reader's next one).
std::string paceTableRewrittenAfterBarrier() {
  return paceFreeLoop(4) + "        lm.sync(cta)\n        if w == 0:\n            lm.copy(tab[0], v)\n";
}

}  // namespace

// Proved with the free step alone and the footprints cut at the barriers
// (the pacer of session 22 alone runs into the work budget: a warp whose
// rows another reads after the block's barriers was never free, and where
// the pacer held a warp back the others interleaved fully).
TEST(TripPace, ConflictsPastABarrierTheFreeWarpMustReachAreProved) {
  struct Case {
    std::string what, text;
  };
  const std::vector<Case> cases = {{"layernorm partial gradients", layerNormPartGrad()},
                                   {"table rewritten after a barrier", paceTableRewrittenAfterBarrier()}};
  for (const Case& c : cases) {
    auto m = cake::testing::compile(c.text);
    ASSERT_FALSE(m.schedules.empty()) << c.what;
    const ir::Schedule& s = m.schedules[0];
    for (int64_t n : {1, 2, 3})
      EXPECT_FALSE(cake::testing::violatedAt(s, {{"rows_per_part", 16 * n}, {"K", n}})) << c.what << " " << n;
    auto r = paceProve(s);
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << c.what << ": " << r.engine << r.detail;
    auto before = paceProve(s, true, true, false);
    EXPECT_NE(before.outcome, encoder::Outcome::Proved) << c.what << " (session 22's pacer): " << before.engine;
    std::cout << c.what << ": " << paceVerdict(r) << " (" << r.engine.substr(0, 160) << "); session 22's pacer "
              << paceVerdict(before) << " (" << before.detail.substr(0, 120) << ")\n";
  }
}

// Broken twins whose race or deadlock lies in the interleavings the free
// step alone and the cut footprints leave out or reorder: each is found by
// the bounded check and not proved with the new pacer (the exploration meets
// the violation). The long form (TripPace.SlowLayerNormBrokenTwinsBothPacers)
// also proves each with session 22's pacer, which runs six of them into the
// work budget: 18 of this test's 24 CPU s, kept out of CI's short form.
namespace {

std::vector<PaceBug> layerNormBrokenTwins() {
  const std::string sync = "        lm.sync(block)\n";
  const std::string fold = "        lm.copy(buf_g[y], acc)\n        lm.copy(buf_b[y], accb)\n" + sync;
  const std::string tree = sync + "        if y < 2:";
  const std::string loop_store = "                lm.copy(buf_g[y + 4 * k], acc)\n";
  const std::string loop_end = "                lm.copy(buf_b[y + 4 * k], accb)\n        lm.fill(acc, 0.0)";
  const std::vector<PaceBug> bugs = {
      // no barrier between the first stage and the tree: warps 0, 1 read rows 2, 3
      {"first lm.sync dropped", layerNormTwin(tree, "        if y < 2:")},
      // no barrier before warp 0 reads row 1, which warp 1 writes in the tree
      {"second lm.sync dropped", layerNormTwin(sync + "        if y == 0:", "        if y == 0:")},
      // warp 3 stores its fold into row 3 after the barrier, while warp 1 reads it
      {"row 3 stored after the barrier",
       layerNormTwin(fold, "        if y != 3:\n            lm.copy(buf_g[y], acc)\n        lm.copy(buf_b[y], accb)\n" + sync +
                               "        if y == 3:\n            lm.copy(buf_g[y], acc)\n")},
      // the fold, before the barrier, reads the neighbour's rows it still adds into
      {"fold reads the neighbour's rows",
       layerNormTwin("            lm.copy(oth, buf_g[y + 4 * k])", "            lm.copy(oth, buf_g[(y + 1) % 4 + 4 * k])")},
      // the loop adds into the neighbour's row (from the second segment on)
      {"loop adds into the neighbour's rows",
       layerNormTwin(loop_store, "                lm.copy(buf_g[(y + 1) % 4 + 4 * k], acc)\n")},
      // warp 1 writes warp 2's row in segment 2 only (since session 35 the
      // stage-like reads of that row after segment 2 mean their returns, not
      // the capped lap: the write is one its loop skips, docs/rules/
      // data.stale-read.md "A write its loop skips"; the windows then differ
      // per trip count and the proof runs out of its budget, unknown; the
      // bounded check finds the race)
      {"loop writes row 2 in segment 2",
       layerNormTwin(loop_store, loop_store + "                if seg == 2 and y == 1:\n"
                                              "                    lm.copy(buf_g[2], acc)\n"),
       false},
      // the barrier counts a fifth warp that never syncs on it
      {"barrier count too high",
       layerNormTwin("    block = lm.named_barrier(roles=[warps])\n",
                     "    aux   = lm.role(warps=[4])\n    block = lm.named_barrier(roles=[warps, aux])\n") +
           "    with aux:\n        lm.fill(oth, 0.0)\n"},
      // warps 2, 3 skip the second barrier: its generation never completes
      {"second lm.sync skipped by warps 2, 3",
       layerNormTwin(sync + "        if y == 0:", "        if y < 2:\n            lm.sync(block)\n        if y == 0:")},
      // warps 0, 1 sync on the block inside the loop, warps 2, 3 never do
      // the readers read the table again after the barrier, as instance 0 rewrites it
      {"table read again after the barrier",
       paceTableRewrittenAfterBarrier() + "        if w != 0:\n            lm.copy(v, tab[0])\n"},
      {"lm.sync in the loop by warps 0, 1 only",
       layerNormTwin(loop_end, "                lm.copy(buf_b[y + 4 * k], accb)\n            if y < 2:\n"
                               "                lm.sync(block)\n        lm.fill(acc, 0.0)"),
       false},  // (refused: block does not complete a whole number of generations per period)
  };
  return bugs;
}

void expectLayerNormTwinsNotProved(bool session22) {
  expectPaceBugsNotProved(
      layerNormBrokenTwins(), {1, 2, 3, 16},
      [](const ir::Schedule& s, int64_t n) { return cake::testing::bind(s, {{"rows_per_part", 16 * n}, {"K", n}}); },
      session22);
}

}  // namespace

TEST(TripPace, LayerNormBrokenTwinsAreNotProved) { expectLayerNormTwinsNotProved(false); }

TEST(TripPace, SlowLayerNormBrokenTwinsBothPacers) { expectLayerNormTwinsNotProved(true); }

// docs/z3.md "Guards that read the instance under a symbolic loop": the
// K loop's guards `128 * b < n`, `128 * b + 32 * w < n` (w the instance) and
// `b != 5` are decided per allowed vector of their outcomes (one per
// instance for the second), each case proved by lap induction over K (the
// cases whose loop runs nothing explored whole). Without the instance's
// outcomes the proof refused the schedule (n read besides the trip count).
TEST(TripGuardInstance, GuardsThatReadTheInstanceAreProvedPerOutcome) {
  const std::string fixed = "corpus/bugs/sync.deadlock/block_sync_skipped_by_one_block_k_loop_fixed.cake";
  auto good = cake::testing::compile(cake::testing::corpusText(fixed));
  ASSERT_FALSE(good.schedules.empty());
  auto r = paceProve(good.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.engine << r.detail;
  EXPECT_NE(r.engine.find("for each outcome of the guards (10 cases)"), std::string::npos) << r.engine;

  // the twin (block 5's last two warps skip the barrier) is not proved, and
  // the bounded check meets its deadlock at block 5 with work
  auto bad = cake::testing::compile(
      cake::testing::corpusText("corpus/bugs/sync.deadlock/block_sync_skipped_by_one_block_k_loop.cake"));
  ASSERT_FALSE(bad.schedules.empty());
  const ir::Schedule& s = bad.schedules[0];
  encoder::Binding b = cake::testing::bind(s, {{"n", 768}, {"K", 1}});
  b.block_idx[0] = 5;
  b.grid_dim[0] = 6;
  EXPECT_TRUE(cake::testing::violatedAt(s, b));
  auto p = paceProve(s);
  EXPECT_NE(p.outcome, encoder::Outcome::Proved) << p.engine;
  std::cout << "twin: " << paceVerdict(p) << " (" << p.detail.substr(0, 200) << ")\n";
}

// The cut footprints (Pacer::precomputeCuts) read the layout
// trip_pace.h describes, every exit path after its loop's end, which is
// the only one LapExplorer lays out (the tests above are proved only with
// the pacer on). A layout with an exit path inside the loop leaves the
// pacer off (Pacer::exitsAfterLoops) instead of cutting by it.
TEST(TripPace, AnExitPathInsideTheLoopLeavesThePacerOff) {
  auto mod = cake::testing::compile(cake::testing::kTableReadEveryIteration);
  ASSERT_FALSE(mod.schedules.empty());
  const ir::Schedule& s = mod.schedules[0];
  const encoder::System sys = cake::testing::build(s, cake::testing::bind(s, {{"K", 3}}));
  ASSERT_EQ(sys.procs.size(), 2u);
  const encoder::sim::Model m(sys);
  auto paced = [&](int exit_from_end) {
    std::vector<encoder::trip::Pacer::Loop> loops(2);
    for (int p = 0; p < 2; ++p) {
      const int n = m.programSize(p);
      loops[p].begin = 0;
      loops[p].end = n;
      loops[p].iter.assign(static_cast<size_t>(n), 0);
      loops[p].exit_starts = {n + exit_from_end};
    }
    return encoder::trip::Pacer(m, loops).active();
  };
  EXPECT_TRUE(paced(0));    // the exit path past the program: the layout
  EXPECT_FALSE(paced(-1));  // at the loop's last pc
}
