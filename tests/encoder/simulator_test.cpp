// The explicit-state engine: one failing and one fixed schedule per rule,
// shortest traces, replay, budgets, reduction.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "encoder/simulator.h"
#include "test_util.h"

using namespace cake;
using cake::testing::bind;
using cake::testing::build;
using cake::testing::compile;
using cake::testing::find;
using cake::testing::hasRule;
using cake::testing::kMainloop;
using cake::testing::lineOf;
using cake::testing::primaryLine;
using cake::testing::replace;
using cake::testing::rules;

namespace {

struct Checked {
  ir::Module mod;
  encoder::System sys;
  encoder::ModelCheckResult result;
};

// Compiles, binds K (when the schedule has it) and explores.
Checked check(const std::string& text, int64_t k = 0, bool reduce = true) {
  Checked r;
  r.mod = compile(text);
  if (r.mod.schedules.empty()) return r;
  r.sys = build(r.mod.schedules[0], bind(r.mod.schedules[0], {{"K", k}}));
  encoder::ExploreOptions o;
  o.reduce = reduce;
  r.result = encoder::explore(r.sys, o);
  return r;
}


}  // namespace

TEST(Simulator, MainloopPasses) {
  for (int64_t k : {0, 1, 2, 3, 5}) {
    Checked r = check(kMainloop, k);
    EXPECT_EQ(r.result.outcome, encoder::Outcome::Pass) << "K=" << k << "\n" << rules(r.result);
  }
}

TEST(Simulator, ReductionKeepsVerdictAndShrinksStates) {
  Checked full = check(kMainloop, 5, false), reduced = check(kMainloop, 5, true);
  EXPECT_EQ(full.result.outcome, encoder::Outcome::Pass);
  EXPECT_EQ(reduced.result.outcome, encoder::Outcome::Pass);
  EXPECT_LT(reduced.result.states * 5, full.result.states);
}

TEST(Simulator, RaceReleaseBeforeRetire) {
  std::string bad = replace(kMainloop, "            lm.mma_wait(pending=0)\n            lm.arrive(empty, iter=k)\n",
                            "            lm.arrive(empty, iter=k)\n            lm.mma_wait(pending=0)\n");
  Checked r = check(bad, 3);
  const encoder::Violation* v = find(r.result, "sync.race");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(bad, "smem_a.tma_load"));  // the writer
  ASSERT_FALSE(v->others.empty());
  EXPECT_EQ(r.sys.procs[v->others[0].proc].program[v->others[0].pc].kind, encoder::InstrKind::Mma);
  // the trace replays to the race
  encoder::ReplayResult rr = encoder::replay(r.sys, v->trace);
  ASSERT_TRUE(rr.valid) << rr.error;
  EXPECT_EQ(rr.steps.size(), v->trace.size());
  EXPECT_EQ(rr.violations.back().rule, "sync.race");
}

TEST(Simulator, RaceWithOwnStore) {
  std::string bad = R"(@cake.schedule(target="sm_90a")
def f(lm, Y: LM.tma2d, K: LM.i32):
    pool = lm.smem(16384)
    y = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    x = lm.regs(shape=(64, 64), dtype=lm.f32)
    wg = lm.role(warps=[0, 1, 2, 3])
    with wg:
        lm.fill(x, 0.0)
        for t in lm.range(0, K):
            lm.tma_store_wait(pending=2)
            lm.copy(y[t], x)
            lm.fence_proxy()
            y.tma_store(Y, coords=(t, 0), iter=t)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
)";
  Checked r = check(bad, 3);
  const encoder::Violation* v = find(r.result, "sync.race");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(bad, "lm.copy(y[t], x)"));
  Checked fixed = check(replace(bad, "pending=2", "pending=1"), 3);
  EXPECT_EQ(fixed.result.outcome, encoder::Outcome::Pass) << rules(fixed.result);
}

TEST(Simulator, StalePhase) {
  std::string bad = replace(kMainloop, "lm.wait(full, iter=k)", "lm.wait(full, stage=k % 2, phase=k // 2 + 1)");
  Checked r = check(bad, 1);
  const encoder::Violation* v = find(r.result, "sync.stale-phase");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(v->phase, 1);
  EXPECT_EQ(v->completed, 0);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(bad, "lm.wait(full"));
}

TEST(Simulator, LostPhase) {
  // the producer skips the empty wait: it can complete full[0] twice
  // before a consumer gets to its wait for phase 0
  std::string bad = replace(kMainloop, "            lm.wait(empty, iter=k - 2)\n", "");
  Checked r = check(bad, 3);
  EXPECT_TRUE(hasRule(r.result, "sync.lost-phase") || hasRule(r.result, "sync.race")) << rules(r.result);
  const encoder::Violation* v = find(r.result, "sync.lost-phase");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_GE(v->completed, v->phase + 2);
}

TEST(Simulator, ArrivalOverflowAndUnderflowWhenRunsGoWrong) {
  // two releasers on init_count=1: runs race, and the count is named as the cause
  Checked over = check(replace(kMainloop, "init_count=2", "init_count=1"), 4);
  EXPECT_TRUE(hasRule(over.result, "sync.race") || hasRule(over.result, "sync.lost-phase")) << rules(over.result);
  const encoder::Violation* v = find(over.result, "sync.arrival-overflow");
  ASSERT_NE(v, nullptr) << rules(over.result);
  EXPECT_TRUE(v->trace.empty());
  EXPECT_EQ(primaryLine(over.sys, *v), lineOf(kMainloop, "lm.arrive(empty"));

  Checked under = check(replace(kMainloop, "init_count=2", "init_count=3"), 3);
  v = find(under.result, "sync.arrival-underflow");
  ASSERT_NE(v, nullptr) << rules(under.result);
  EXPECT_EQ(primaryLine(under.sys, *v), lineOf(kMainloop, "lm.wait(empty"));
  // the hang it causes is its witness (a trace that replays to it), not a bare deadlock
  EXPECT_FALSE(v->trace.empty());
  EXPECT_FALSE(hasRule(under.result, "sync.deadlock")) << rules(under.result);
  encoder::ReplayResult rr = encoder::replay(under.sys, v->trace);
  EXPECT_TRUE(rr.valid) << rr.error;
  EXPECT_TRUE(std::any_of(rr.violations.begin(), rr.violations.end(),
                          [](const encoder::Violation& x) { return x.rule == "sync.arrival-underflow"; }));
}

TEST(Simulator, PhaseAnnotationMismatchIsAWarning) {
  for (int64_t k : {1, 2, 3}) {
    Checked good = check(cake::testing::kOneSlotHandoff, k);
    EXPECT_EQ(good.result.outcome, encoder::Outcome::Pass) << rules(good.result);
    EXPECT_TRUE(good.result.warnings.empty());
  }
  // iter= one phase ahead: the same CUDA, every run fine
  std::string shifted = replace(cake::testing::kOneSlotHandoff, "lm.arrive(consumed, iter=t)", "lm.arrive(consumed, iter=t + 1)");
  Checked r = check(shifted, 3);
  EXPECT_EQ(r.result.outcome, encoder::Outcome::Pass) << rules(r.result);
  ASSERT_EQ(r.result.warnings.size(), 1u);
  const encoder::Violation& w = r.result.warnings[0];
  EXPECT_EQ(w.rule, "sync.phase-annotation-mismatch");
  EXPECT_EQ(primaryLine(r.sys, w), lineOf(shifted, "lm.arrive(consumed"));
  EXPECT_NE(w.message.find("means phase 1 of consumed[0], but it lands in phase 0"), std::string::npos) << w.message;
  EXPECT_NE(w.message.find("phase 0 of consumed[0] gets 0 arrivals"), std::string::npos) << w.message;
  // a final courtesy release nobody waits for
  std::string courtesy = replace(cake::testing::kOneSlotHandoff, "            lm.copy(Y, x, coords=(t * 64, 0))\n",
                                 "            lm.copy(Y, x, coords=(t * 64, 0))\n        lm.arrive(consumed, iter=K - 1)\n");
  r = check(courtesy, 2);
  EXPECT_EQ(r.result.outcome, encoder::Outcome::Pass) << rules(r.result);
  ASSERT_EQ(r.result.warnings.size(), 1u);
  EXPECT_NE(r.result.warnings[0].message.find("means phase 1 of consumed[0], but it lands in phase 2"),
            std::string::npos)
      << r.result.warnings[0].message;
  // the physical count short (the first release skipped): an error, with the hang as its trace
  std::string skipped = replace(cake::testing::kOneSlotHandoff, "            lm.arrive(consumed, iter=t)\n",
                                "            if t > 0:\n                lm.arrive(consumed, iter=t)\n");
  r = check(skipped, 2);
  const encoder::Violation* v = find(r.result, "sync.arrival-underflow");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_FALSE(v->trace.empty());
  EXPECT_TRUE(r.result.warnings.empty());
}

// The warning names an arrival only where every run lands it in one other
// phase (an annotation the user can fix). DeepGEMM's leader-issued
// multicast lands rank 0's arrival on rank 1's empty[s] in the phase it
// means or a phase early, as rank 0 runs ahead or not: no annotation names
// that phase, and the correct schedule had a warning whose advice could not
// be followed (docs/rules/sync.phase-annotation-mismatch.md). The corpus's
// three files with the warning keep it, at the values it was reported for.
TEST(Simulator, PhaseMismatchWarnsOnlyWhereEveryRunLandsInOnePhase) {
  auto warningsAt = [](const std::string& rel, const std::string& param, int64_t v) {
    auto m = compile(cake::testing::corpusText(rel));
    EXPECT_FALSE(m.schedules.empty()) << rel;
    if (m.schedules.empty()) return std::vector<encoder::Violation>{};
    const ir::Schedule& s = m.schedules[0];
    encoder::ExploreOptions eo;
    eo.timeout_ms = cake::testing::kNoWallClockMs;
    auto r = encoder::explore(build(s, bind(s, {{param, v}})), eo);
    EXPECT_EQ(r.outcome, encoder::Outcome::Pass) << rel << ": " << rules(r);
    return r.warnings;
  };
  EXPECT_TRUE(warningsAt("corpus/cluster/sm90_deepgemm_leader_multicast_a.cake", "K", 257).empty());
  for (const auto& [rel, param, v] : std::vector<std::tuple<std::string, std::string, int64_t>>{
           {"corpus/basics/single_slot_iter_shift.cake", "rows", 1},
           {"corpus/basics/single_slot_courtesy_release.cake", "rows", 1},
           {"corpus/gemm/sm90_pending1_double_drain.cake", "K", 65}}) {
    auto w = warningsAt(rel, param, v);
    ASSERT_EQ(w.size(), 1u) << rel;
    EXPECT_EQ(w[0].rule, "sync.phase-annotation-mismatch");
    EXPECT_NE(w[0].message.find(", but it lands in phase"), std::string::npos) << rel << ": " << w[0].message;
  }
}

TEST(Simulator, NegativePhaseWaitNeedsNoArrivals) {
  // IR.md "Slots and phases": the ring starts empty, so a wait on phase -1
  // (stage= with an explicit phase, the parity trick of a producer's first
  // lap, as TileLang's generated code writes it) passes at once and needs
  // no arrivals: not an underflow candidate, so no warning either.
  std::string explicitPhase =
      replace(replace(cake::testing::kOneSlotHandoff, "lm.wait(consumed, iter=t - 1)", "lm.wait(consumed, stage=0, phase=t - 1)"),
              "lm.arrive(consumed, iter=t)", "lm.arrive(consumed, stage=0, phase=t)");
  for (int64_t k : {1, 2, 3}) {
    Checked r = check(explicitPhase, k);
    EXPECT_EQ(r.result.outcome, encoder::Outcome::Pass) << rules(r.result);
    EXPECT_TRUE(r.result.warnings.empty()) << (r.result.warnings.empty() ? "" : r.result.warnings[0].message);
  }
  // a phase -1 wait on a slot that already completed a phase is still caught
  // (the hardware's parity wait blocks there): here the producer restarts its
  // phases at every trip of an outer loop
  std::string restarted = replace(explicitPhase, "        for t in lm.range(0, K):\n            lm.wait(consumed, stage=0, phase=t - 1)",
                                  "        for t in lm.range(0, K):\n            lm.wait(consumed, stage=0, phase=t % 1 - 1)");
  Checked bad = check(restarted, 2);
  EXPECT_NE(bad.result.outcome, encoder::Outcome::Pass) << rules(bad.result);
  EXPECT_TRUE(hasRule(bad.result, "sync.lost-phase")) << rules(bad.result);
}

TEST(Simulator, TxImbalance) {
  std::string many = replace(kMainloop, "            smem_a.tma_load",
                             "            lm.expect_tx(full, 65536, iter=k)\n            smem_a.tma_load");
  Checked r = check(many, 1);
  const encoder::Violation* v = find(r.result, "sync.tx-imbalance");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(many, "lm.expect_tx"));
  EXPECT_FALSE(hasRule(r.result, "sync.deadlock"));

  std::string few = replace(kMainloop, "            smem_a.tma_load",
                            "            lm.expect_tx(full, 16384, iter=k)\n            smem_a.tma_load");
  r = check(few, 1);
  EXPECT_TRUE(hasRule(r.result, "sync.tx-imbalance")) << rules(r.result);

  std::string right = replace(kMainloop, "            smem_a.tma_load",
                              "            lm.expect_tx(full, 24576, iter=k)\n            smem_a.tma_load");
  r = check(right, 3);
  EXPECT_EQ(r.result.outcome, encoder::Outcome::Pass) << rules(r.result);
}

TEST(Simulator, StaleRead) {
  // three stages loaded once by stage index, read as iterations 1..3:
  // iteration 3 means the second fill of slot 0, which never comes
  std::string bad = R"(@cake.schedule(target="sm_90a")
def f(lm, A: LM.tma2d):
    pool = lm.smem(24576)
    a = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=3)
    acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    full = lm.barrier(count=3, prod=[load], cons=[math], init_count=1)
    with load:
        for s in lm.range(0, 3):
            a.tma_load(A, coords=(0, s), stage=s, barrier=full)
    with math:
        for s in lm.range(0, 3):
            lm.wait(full, stage=s)
        for kk in lm.range(1, 4):
            lm.mma(acc, a[kk], a[kk], init=(kk == 1))
        lm.mma_commit()
        lm.mma_wait(pending=0)
)";
  Checked r = check(bad);
  const encoder::Violation* v = find(r.result, "data.stale-read");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(bad, "lm.mma(acc"));
  // a stage-named write and an iteration-named read compare by laps: the
  // message says laps (it said "generation 0 ... generation 0" before)
  EXPECT_NE(v->message.find("meaning lap 1 of the slot (index 3), but it holds the data of lap 0 of the slot (index 0)"),
            std::string::npos)
      << v->message;
  Checked fixed = check(replace(replace(bad, "lm.range(1, 4)", "lm.range(0, 3)"), "init=(kk == 1)", "init=(kk == 0)"));
  EXPECT_EQ(fixed.result.outcome, encoder::Outcome::Pass) << rules(fixed.result);
}

// Write-after-read across proxies: generic reads (lm.copy) of a TMA-filled
// slot, then a TMA refill of it, need the reader's lm.fence_proxy() between.
TEST(Simulator, MissingFenceGenericReadBeforeTmaRefill) {
  const std::string& good = cake::testing::kOneSlotHandoff;
  std::string bad = replace(good, "            lm.fence_proxy()\n", "");
  Checked r = check(bad, 2);
  const encoder::Violation* v = find(r.result, "proxy.missing-fence");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(bad, "smem_x.tma_load"));
  ASSERT_FALSE(v->others.empty());
  const encoder::Site& read = v->others[0];
  EXPECT_EQ(r.sys.procs[read.proc].program[read.pc].stmt->op.range.line, lineOf(bad, "lm.copy(x, smem_x[0])"));
  EXPECT_NE(v->message.find("generic-proxy read"), std::string::npos) << v->message;
  // one TMA load only: nothing is refilled
  EXPECT_EQ(check(bad, 1).result.outcome, encoder::Outcome::Pass);
  for (int64_t k : {1, 2, 3}) EXPECT_EQ(check(good, k).result.outcome, encoder::Outcome::Pass);
  // wgmma reads through the async proxy: the warp-specialized mainloop needs no fence
  EXPECT_EQ(check(kMainloop, 3).result.outcome, encoder::Outcome::Pass);
}

TEST(Simulator, MissingFenceOnZeroTripPath) {
  std::string bad = R"(@cake.schedule(target="sm_90a")
def f(lm, Y: LM.tma2d, K: LM.i32):
    pool = lm.smem(8192)
    y = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16)
    x = lm.regs(shape=(64, 64), dtype=lm.f32)
    wg = lm.role(warps=[0, 1, 2, 3])
    with wg:
        lm.fill(x, 0.0)
        lm.copy(y[0], x)
        for i in lm.range(0, K):
            lm.fence_proxy()
        y.tma_store(Y, coords=(0, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
)";
  EXPECT_EQ(check(bad, 1).result.outcome, encoder::Outcome::Pass);
  Checked r = check(bad, 0);
  const encoder::Violation* v = find(r.result, "proxy.missing-fence");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(bad, "y.tma_store"));
  ASSERT_FALSE(v->others.empty());
}

TEST(Simulator, AsyncAtExit) {
  std::string bad = replace(kMainloop, "        lm.tma_store_wait(pending=0)\n", "");
  Checked r = check(bad, 1);
  const encoder::Violation* v = find(r.result, "sync.async-at-exit");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(primaryLine(r.sys, *v), lineOf(bad, "smem_c.tma_store"));
  // uncommitted MMAs at exit (the paper's fragment, shortened)
  std::string fragment = R"(@cake.schedule()
def f(lm, Q: LM.tma3d):
    pool = lm.smem(32768)
    q = pool.view(offset=0, shape=(128, 128), dtype=lm.bf16)
    t = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    load = lm.role(warps=[0])
    mma = lm.role(warps=[1])
    full = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    with load:
        q.tma_load(Q, coords=(0, 0, 0), stage=0, barrier=full)
    with mma:
        lm.wait(full, stage=0)
        lm.mma(t, q[0], q[0], init=True)
)";
  Checked r2 = check(fragment);
  v = find(r2.result, "sync.async-at-exit");
  ASSERT_NE(v, nullptr) << rules(r2.result);
  EXPECT_EQ(primaryLine(r2.sys, *v), lineOf(fragment, "lm.mma("));
  // committed to a barrier that an epilogue waits: fixed
  std::string fixed = replace(fragment, "        lm.mma(t, q[0], q[0], init=True)\n",
                              "        lm.mma(t, q[0], q[0], init=True)\n        lm.mma_commit(barrier=done, stage=0)\n");
  fixed = replace(fixed, "    with load:", "    epi = lm.role(warps=[2])\n    done = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)\n    r = lm.regs(shape=(128, 128), dtype=lm.f32)\n    with epi:\n        lm.wait(done, stage=0)\n        lm.copy(r, t)\n    with load:");
  Checked r3 = check(fixed);
  EXPECT_EQ(r3.result.outcome, encoder::Outcome::Pass) << rules(r3.result);
}

TEST(Simulator, DeadlockCycleBetweenMbarrierAndBarSync) {
  std::string bad = R"(@cake.schedule(target="sm_90a")
def f(lm, Q: LM.tma2d):
    pool = lm.smem(16384)
    q = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16)
    r = lm.regs(shape=(128, 64), dtype=lm.f32)
    producer = lm.role(warps=[0])
    consumer = lm.role(warps=[4, 5, 6, 7])
    q_full = lm.barrier(count=1, prod=[producer], cons=[consumer], init_count=1)
    q_empty = lm.named_barrier(roles=[producer, consumer])
    with producer:
        lm.sync(q_empty)
        q.tma_load(Q, coords=(0, 0), stage=0, barrier=q_full)
    with consumer:
        lm.wait(q_full, stage=0)
        lm.copy(r, q[0])
        lm.bar_arrive(q_empty)
)";
  Checked r = check(bad);
  const encoder::Violation* v = find(r.result, "sync.deadlock");
  ASSERT_NE(v, nullptr) << rules(r.result);
  EXPECT_EQ(v->others.size(), 1u);
  EXPECT_EQ(r.result.violations.size(), 1u);
  // shortest trace: the producer's arrival on q_empty and nothing else
  EXPECT_EQ(v->trace.size(), 1u);
  encoder::ReplayResult rr = encoder::replay(r.sys, v->trace);
  ASSERT_TRUE(rr.valid);
  EXPECT_EQ(rr.violations.back().rule, "sync.deadlock");
}

TEST(Simulator, NamedBarrierRunAhead) {
  std::string bad = R"(@cake.schedule(target="sm_90a")
def f(lm, Y: LM.tma2d):
    pool = lm.smem(16384)
    y = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16)
    x = lm.regs(shape=(128, 64), dtype=lm.f32)
    compute = lm.role(warps=[0, 1, 2, 3])
    store = lm.role(warps=[4])
    h0 = lm.named_barrier(roles=[compute, store])
    h1 = lm.named_barrier(roles=[compute, store])
    with compute:
        lm.copy(y[0], x)
        lm.fence_proxy()
        lm.bar_arrive(h0)
        lm.copy(y[0], x)
        lm.fence_proxy()
        lm.bar_arrive(h1)
    with store:
        lm.sync(h0)
        y.tma_store(Y, coords=(0, 0), stage=0)
        lm.tma_store_commit()
        lm.sync(h1)
        y.tma_store(Y, coords=(0, 64), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
)";
  Checked r = check(bad);
  const encoder::Violation* v = find(r.result, "sync.race");
  ASSERT_NE(v, nullptr) << rules(r.result);
  int line = primaryLine(r.sys, *v);
  EXPECT_TRUE(line == 14 || line == 19) << line;
}

TEST(Simulator, ReplayRejectsDisabledSteps) {
  Checked r = check(kMainloop, 1);
  // a consumer cannot pass its wait before anything was loaded
  encoder::Trace t{{encoder::Step::Kind::Exec, 1, 0}};
  encoder::ReplayResult rr = encoder::replay(r.sys, t);
  EXPECT_FALSE(rr.valid);
  EXPECT_EQ(rr.failed_step, 0);
  // landing a load that was never issued
  t = {{encoder::Step::Kind::Exec, 0, 0}, {encoder::Step::Kind::Land, 0, 2}};
  rr = encoder::replay(r.sys, t);
  EXPECT_FALSE(rr.valid);
  EXPECT_EQ(rr.failed_step, 1);
  // a valid prefix: expect_tx, load A, land A
  t = {{encoder::Step::Kind::Exec, 0, 0}, {encoder::Step::Kind::Exec, 0, 1}, {encoder::Step::Kind::Land, 0, 1}};
  rr = encoder::replay(r.sys, t);
  ASSERT_TRUE(rr.valid) << rr.error;
  ASSERT_EQ(rr.steps.size(), 3u);
  EXPECT_EQ(rr.steps[2].slot, r.sys.slotOf(0, 0));
  EXPECT_EQ(rr.steps[2].completed, 0);  // B has not landed: phase 0 incomplete
}

TEST(Simulator, BudgetGivesUnknown) {
  Checked r = check(kMainloop, 3);
  encoder::ExploreOptions o;
  o.max_states = 10;
  o.reduce = false;
  auto res = encoder::explore(r.sys, o);
  EXPECT_EQ(res.outcome, encoder::Outcome::Unknown);
  EXPECT_NE(res.detail.find("budget"), std::string::npos);
}

// ---- partial TMEM regions, asynchronous TMEM loads / stores with their
// waits, and programmatic dependent launch (docs/semantics.md,
// docs/ir-extensions.md)

namespace {

// An MMA warp fills a 128-lane accumulator; four single-warp epilogue
// instances each load their own lane quarter asynchronously.
const std::string kQuarters = R"(@cake.schedule(target="sm_100a")
def quarters(lm, A: LM.tma2d, B: LM.tma2d, K: LM.i32):
    pool = lm.smem(32768)
    a    = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16)
    b    = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16)
    acc  = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    r    = lm.regs(shape=(32, 128), dtype=lm.f32)
    o    = lm.regs(shape=(32, 128), dtype=lm.f32)
    epi  = lm.role(warps=[0, 1, 2, 3], group=1)
    mma  = lm.role(warps=[4])
    full = lm.barrier(count=1, prod=[mma], cons=[mma], init_count=1)
    done = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    with mma:
        a.tma_load(A, coords=(0, 0), barrier=full)
        b.tma_load(B, coords=(0, 0), barrier=full)
        lm.wait(full)
        lm.mma(acc, a, b, init=1)
        lm.mma_commit(barrier=done)
    with epi:
        q = 32 * lm.instance()
        lm.wait(done)
        lm.tmem_load(r, acc[q:q + 32, :])
        lm.tmem_load_wait()
        lm.copy(o, r)
)";

TEST(TmemSlices, LaneQuartersAndColumnsAreAccesses) {
  Checked c = check(kQuarters, 2);
  ASSERT_FALSE(c.mod.schedules.empty());
  // epi[2]'s load reads exactly lane quarter 2, columns [0, 128)
  const encoder::Process& p = c.sys.procs[2];
  ASSERT_EQ(p.name, "epi[2]");
  const encoder::Instr* load = nullptr;
  for (const auto& in : p.program)
    if (in.kind == encoder::InstrKind::TmemLoad) load = &in;
  ASSERT_NE(load, nullptr);
  ASSERT_EQ(load->accesses.size(), 2u);  // TMEM quarter 2, and the fragment
  EXPECT_EQ(load->accesses[0].lo, 2 * encoder::kTmemQuarterStride);
  EXPECT_EQ(load->accesses[0].hi, 2 * encoder::kTmemQuarterStride + 128);
  EXPECT_TRUE(load->accesses[0].async);
  EXPECT_TRUE(load->accesses[1].write);
  // the MMA writes all four quarters
  for (const auto& in : c.sys.procs[4].program)
    if (in.kind == encoder::InstrKind::Mma) {
      int tmem = 0;
      for (const auto& a : in.accesses) tmem += c.sys.spaces[a.space].kind == encoder::MemSpace::Kind::Tmem;
      EXPECT_EQ(tmem, 4);
    }
  EXPECT_EQ(c.result.outcome, encoder::Outcome::Pass) << rules(c.result);
}

TEST(TmemAsync, ReadingRegistersBeforeTheWaitRaces) {
  const std::string bad = replace(kQuarters, "        lm.tmem_load_wait()\n        lm.copy(o, r)\n",
                                  "        lm.copy(o, r)\n        lm.tmem_load_wait()\n");
  Checked c = check(bad, 2);
  const auto* v = find(c.result, "sync.race");
  ASSERT_NE(v, nullptr) << rules(c.result);
  EXPECT_EQ(primaryLine(c.sys, *v), lineOf(bad, "lm.copy(o, r)"));
  EXPECT_NE(v->message.find("tcgen05.ld"), std::string::npos) << v->message;
}

TEST(TmemAsync, ALoadNeverWaitedIsAsyncAtExit) {
  const std::string bad = replace(kQuarters, "        lm.tmem_load_wait()\n        lm.copy(o, r)\n", "");
  Checked c = check(bad, 2);
  const auto* v = find(c.result, "sync.async-at-exit");
  ASSERT_NE(v, nullptr) << rules(c.result);
  EXPECT_NE(v->message.find("lm.tmem_load_wait()"), std::string::npos) << v->message;
}

TEST(TmemAsync, WaitRetiresOnlyItsOwnKind) {
  // a store wait does not complete a load
  const std::string bad = replace(kQuarters, "lm.tmem_load_wait()", "lm.tmem_store_wait()");
  Checked c = check(bad, 2);
  EXPECT_TRUE(hasRule(c.result, "sync.race")) << rules(c.result);
}

// Several tcgen05.ld in flight into disjoint column slices of one register
// fragment, then one tcgen05.wait::ld (CUTLASS's chunked TMEM reads,
// vllm-project/flash-attention PR #182's correction_epilog): no two of them
// write the same registers. A load into a slice another load in flight
// also writes, or a read of a slice before the wait, still races.
// kQuarters' MMA warp, one epilogue instance of four warps loading the
// whole accumulator in four column chunks
std::string regChunks() {
  std::string t = replace(kQuarters, "def quarters(lm, A: LM.tma2d, B: LM.tma2d, K: LM.i32):",
                          "def chunks(lm, A: LM.tma2d, B: LM.tma2d, Out: LM.gmem):");
  t = replace(t, "    r    = lm.regs(shape=(32, 128), dtype=lm.f32)\n    o    = lm.regs(shape=(32, 128), dtype=lm.f32)\n",
              "    r    = lm.regs(shape=(128, 128), dtype=lm.f32)\n");
  t = replace(t, "warps=[0, 1, 2, 3], group=1)", "warps=[0, 1, 2, 3])");
  return replace(t, R"(    with epi:
        q = 32 * lm.instance()
        lm.wait(done)
        lm.tmem_load(r, acc[q:q + 32, :])
        lm.tmem_load_wait()
        lm.copy(o, r)
)",
                 R"(    with epi:
        lm.wait(done)
        for c in lm.range(0, 4):
            lm.tmem_load(r[:, 32 * c:32 * c + 32], acc[:, 32 * c:32 * c + 32])
        lm.tmem_load_wait()
        lm.copy(Out, r, coords=(0, 0))
)");
}

TEST(TmemAsync, LoadsIntoDisjointRegisterColumnSlicesDoNotRace) {
  const std::string kRegChunks = regChunks();
  Checked ok = check(kRegChunks, 2);
  EXPECT_EQ(ok.result.outcome, encoder::Outcome::Pass) << rules(ok.result);
  // the fragment's column slice is its own byte range
  const encoder::Process& p = ok.sys.procs[0];
  std::vector<std::pair<int64_t, int64_t>> regs;
  for (const auto& in : p.program)
    if (in.kind == encoder::InstrKind::TmemLoad)
      for (const auto& acc : in.accesses)
        if (ok.sys.spaces[acc.space].kind == encoder::MemSpace::Kind::Regs) regs.push_back({acc.lo, acc.hi});
  ASSERT_EQ(regs.size(), 4u);
  for (size_t i = 0; i < regs.size(); ++i) EXPECT_EQ(regs[i], std::make_pair(int64_t(i) * 16384, int64_t(i + 1) * 16384));
  // two loads into overlapping slices in flight together
  Checked same = check(replace(kRegChunks, "r[:, 32 * c:32 * c + 32], acc", "r[:, 16 * c:16 * c + 32], acc"), 2);
  EXPECT_TRUE(hasRule(same.result, "sync.race")) << rules(same.result);
  // a read of one chunk before the wait
  Checked early = check(replace(kRegChunks, "        lm.tmem_load_wait()\n        lm.copy(Out, r, coords=(0, 0))\n",
                                "        lm.copy(Out, r[:, 96:128], coords=(0, 96))\n        lm.tmem_load_wait()\n"),
                        2);
  EXPECT_TRUE(hasRule(early.result, "sync.race")) << rules(early.result);
  // a row slice of the fragment still meets every column chunk
  Checked rows = check(replace(kRegChunks, "        lm.tmem_load_wait()\n        lm.copy(Out, r, coords=(0, 0))\n",
                               "        lm.copy(Out, r[0:32, :], coords=(0, 0))\n        lm.tmem_load_wait()\n"),
                       2);
  EXPECT_TRUE(hasRule(rows.result, "sync.race")) << rules(rows.result);
}

// The epilogue releases the accumulator back to the MMA warp, which then
// overwrites it: before tcgen05.wait::ld that is a race with the load.
const std::string kRelease = R"(@cake.schedule(target="sm_100a")
def release(lm, A: LM.tma2d, B: LM.tma2d, K: LM.i32):
    pool = lm.smem(32768)
    a    = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16)
    b    = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16)
    acc  = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    r    = lm.regs(shape=(32, 128), dtype=lm.f32)
    epi  = lm.role(warps=[0, 1, 2, 3], group=1)
    mma  = lm.role(warps=[4])
    full = lm.barrier(count=1, prod=[mma], cons=[mma], init_count=1)
    done = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    back = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=4)
    fin  = lm.barrier(count=1, prod=[mma], cons=[mma], init_count=1)
    with mma:
        a.tma_load(A, coords=(0, 0), barrier=full)
        b.tma_load(B, coords=(0, 0), barrier=full)
        lm.wait(full)
        lm.mma(acc, a, b, init=1)
        lm.mma_commit(barrier=done)
        lm.wait(back)
        lm.mma(acc, a, b, init=1)
        lm.mma_commit(barrier=fin)
        lm.wait(fin)
    with epi:
        q = 32 * lm.instance()
        lm.wait(done)
        lm.tmem_load(r, acc[q:q + 32, :])
        lm.tmem_load_wait()
        lm.arrive(back)
)";

TEST(TmemAsync, ReleasingBeforeTheWaitLetsTheNextMmaOverwrite) {
  Checked ok = check(kRelease, 2);
  EXPECT_EQ(ok.result.outcome, encoder::Outcome::Pass) << rules(ok.result);
  const std::string bad = replace(kRelease, "        lm.tmem_load_wait()\n        lm.arrive(back)\n",
                                  "        lm.arrive(back)\n        lm.tmem_load_wait()\n");
  Checked c = check(bad, 2);
  const auto* v = find(c.result, "sync.race");
  ASSERT_NE(v, nullptr) << rules(c.result);
  // the MMA writes what the un-waited tcgen05.ld still reads: the writer is at fault
  const int second_mma = lineOf(bad, "        lm.wait(back)\n") + 1;
  EXPECT_EQ(primaryLine(c.sys, *v), second_mma) << v->message;
  EXPECT_NE(v->message.find("lanes ["), std::string::npos) << v->message;
}

const std::string kTwoWriters = R"(@cake.schedule(target="sm_100a")
def writers(lm, X: LM.gmem):
    t  = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    lo = lm.regs(shape=(128, 64), dtype=lm.f32)
    hi = lm.regs(shape=(128, 64), dtype=lm.f32)
    left  = lm.role(warps=[0, 1, 2, 3])
    right = lm.role(warps=[4, 5, 6, 7])
    with left:
        lm.fill(lo, 1.0)
        lm.tmem_store(t[:, 0:64], lo)
        lm.tmem_store_wait()
    with right:
        lm.fill(hi, 2.0)
        lm.tmem_store(t[:, 64:128], hi)
        lm.tmem_store_wait()
)";

TEST(TmemSlices, DisjointColumnSlicesDoNotRace) {
  Checked c = check(kTwoWriters, 2);
  EXPECT_EQ(c.result.outcome, encoder::Outcome::Pass) << rules(c.result);
}

TEST(TmemSlices, OverlappingColumnSlicesRace) {
  Checked c = check(replace(kTwoWriters, "t[:, 64:128]", "t[:, 32:96]"), 2);
  EXPECT_TRUE(hasRule(c.result, "sync.race")) << rules(c.result);
  // lane slices of different quarters over the same columns do not overlap
  Checked d = check(replace(replace(kTwoWriters, "t[:, 0:64], lo", "t[0:64, 0:64], lo"), "t[:, 64:128], hi",
                            "t[64:128, 0:64], hi"),
                    2);
  EXPECT_EQ(d.result.outcome, encoder::Outcome::Pass) << rules(d.result);
}

TEST(TmemSlices, PartialOrderReductionAgrees) {
  for (const std::string& text : {kQuarters, replace(kTwoWriters, "t[:, 64:128]", "t[:, 32:96]")}) {
    Checked full = check(text, 2, /*reduce=*/false), reduced = check(text, 2, /*reduce=*/true);
    EXPECT_EQ(full.result.outcome, reduced.result.outcome);
    EXPECT_EQ(rules(full.result), rules(reduced.result));
  }
}

const std::string kPdl = R"(@cake.schedule(target="sm_90a")
def pdl(lm, A: LM.tma2d, W: LM.tma2d, K: LM.i32):
    lm.grid_dependency(A)
    pool = lm.smem(32768)
    a    = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2)
    w    = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2)
    acc  = lm.regs(shape=(64, 64), dtype=lm.f32)
    prod = lm.role(warps=[0])
    cons = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=2, prod=[prod], cons=[cons], init_count=1)
    empty = lm.barrier(count=2, prod=[cons], cons=[prod], init_count=1)
    with prod:
        w.tma_load(W, coords=(0, 0), iter=0, barrier=full)
        lm.grid_dep_wait()
        a.tma_load(A, coords=(0, 0), iter=0, barrier=full)
        for k in lm.range(1, K):
            lm.wait(empty, iter=k - 2)
            w.tma_load(W, coords=(0, k * 64), iter=k, barrier=full)
            a.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)
    with cons:
        for k in lm.range(0, K):
            lm.wait(full, iter=k)
            lm.mma(acc, a[k], w[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.launch_dependents()
)";

TEST(GridDependency, WeightsBeforeTheWaitAreFine) {
  Checked c = check(kPdl, 2);
  EXPECT_EQ(c.result.outcome, encoder::Outcome::Pass) << rules(c.result);
  for (const auto& p : c.sys.procs)
    for (const auto& in : p.program) EXPECT_EQ(in.grid_dep_early, -1);
}

TEST(GridDependency, ATensorOfThePrecedingGridBeforeTheWaitIsReported) {
  const std::string bad = replace(kPdl, "        lm.grid_dep_wait()\n        a.tma_load(A, coords=(0, 0), iter=0, barrier=full)\n",
                                  "        a.tma_load(A, coords=(0, 0), iter=0, barrier=full)\n        lm.grid_dep_wait()\n");
  Checked c = check(bad, 2);
  const auto* v = find(c.result, "sync.grid-dependency");
  ASSERT_NE(v, nullptr) << rules(c.result);
  EXPECT_EQ(primaryLine(c.sys, *v), lineOf(bad, "a.tma_load(A, coords=(0, 0)"));
  // without lm.grid_dependency(A) nothing is known about A
  Checked d = check(replace(bad, "    lm.grid_dependency(A)\n", ""), 2);
  EXPECT_FALSE(hasRule(d.result, "sync.grid-dependency")) << rules(d.result);
}

TEST(GridDependency, Z3EnginesSayTheyDoNotEncodeIt) {
  ir::Module m = compile(kPdl);
  ASSERT_FALSE(m.schedules.empty());
  encoder::System sys = build(m.schedules[0], bind(m.schedules[0], {{"K", 2}}));
  EXPECT_FALSE(encoder::notEncodedInZ3(sys));  // waited: nothing to encode
  ir::Module q = compile(kQuarters);
  encoder::System tq = build(q.schedules[0], bind(q.schedules[0], {{"K", 2}}));
  ASSERT_TRUE(encoder::notEncodedInZ3(tq));  // z3_flat (BMC) does not encode tcgen05.ld
  EXPECT_NE(encoder::notEncodedInZ3(tq)->find("TMEM"), std::string::npos);
  EXPECT_FALSE(encoder::notEncodedInZ3(tq, /*tmem_async=*/true));  // z3_po does
}


// griddepcontrol.wait makes the preceding grid's memory visible to the
// whole grid (PTX ISA, griddepcontrol): an instance that never waits itself
// but is ordered after another instance's wait (CUTLASS's sm90 kernels: only
// the producer warp calls wait_on_dependent_grids(); the consumers' epilogue
// reads a bias vector after the mainloop hand-off) reads safely. kPdl with
// the preceding grid writing a Bias vector that the consumers read last.
// There the producer's first loads (their derived expect_tx: slot 0's only
// arrival) come before its wait.
std::string pdlHandOff() {
  return replace(replace(replace(replace(kPdl, "W: LM.tma2d, K", "W: LM.tma2d, Bias: LM.gmem, K"), "lm.grid_dependency(A)",
                            "lm.grid_dependency(Bias)"),
                    "    acc  = lm.regs(shape=(64, 64), dtype=lm.f32)\n",
                    "    acc  = lm.regs(shape=(64, 64), dtype=lm.f32)\n    bias = lm.regs(shape=(64, 64), dtype=lm.f32)\n"),
            "        lm.launch_dependents()\n",
            "        lm.copy(bias, Bias, coords=(0, 0))\n        lm.binary(acc, acc, bias, op=\"add\")\n");
}
const std::string kWaitFirst = "        lm.grid_dep_wait()\n        w.tma_load(W, coords=(0, 0), iter=0, barrier=full)\n";
const std::string kLoadFirst = "        w.tma_load(W, coords=(0, 0), iter=0, barrier=full)\n        lm.grid_dep_wait()\n";

TEST(GridDependency, AReadOrderedAfterAnotherInstancesWaitIsFine) {
  const std::string kPdlHandOff = pdlHandOff();
  const std::string waits_first = replace(kPdlHandOff, kLoadFirst, kWaitFirst);
  for (int64_t k : {1, 2}) {
    Checked c = check(waits_first, k);
    EXPECT_EQ(c.result.outcome, encoder::Outcome::Pass) << k << ": " << rules(c.result);
    for (const auto& p : c.sys.procs)
      for (const auto& in : p.program) EXPECT_EQ(in.grid_dep_early, -1) << p.name;
  }
  // the read before the consumer's first wait is not ordered after anything
  Checked early = check(replace(waits_first, "    with cons:\n", "    with cons:\n        lm.copy(bias, Bias, coords=(0, 0))\n"), 2);
  EXPECT_TRUE(hasRule(early.result, "sync.grid-dependency")) << rules(early.result);
  // with K = 1 the consumer waits on slot 0 only, whose one arrival (the
  // derived expect_tx of W and A) comes before the producer's wait; but A's
  // load, which brings bytes that phase needs, is issued after it, so the
  // phase cannot complete before the wait returned: ordered
  Checked one = check(kPdlHandOff, 1);
  EXPECT_EQ(one.result.outcome, encoder::Outcome::Pass) << rules(one.result);
  // with every arrival and load of slot 0 before the wait, nothing orders it
  Checked unordered = check(replace(kPdlHandOff, "        lm.grid_dep_wait()\n        a.tma_load(A, coords=(0, 0), iter=0, barrier=full)\n",
                                    "        a.tma_load(A, coords=(0, 0), iter=0, barrier=full)\n        lm.grid_dep_wait()\n"),
                            1);
  EXPECT_TRUE(hasRule(unordered.result, "sync.grid-dependency")) << rules(unordered.result);
  // with K = 2 it also waits on slot 1, whose only arrival follows the wait
  Checked two = check(kPdlHandOff, 2);
  EXPECT_EQ(two.result.outcome, encoder::Outcome::Pass) << rules(two.result);
  // a named barrier generation needs the producer's arrival: when that
  // arrival follows its wait, the consumer's read after the barrier is ordered
  const std::string named = replace(replace(waits_first, "    empty = lm.barrier(", "    nb = lm.named_barrier(roles=[prod, cons])\n    empty = lm.barrier("),
                                    "    with cons:\n", "    with cons:\n        lm.sync(nb)\n        lm.copy(bias, Bias, coords=(0, 0))\n");
  Checked after = check(replace(named, "        lm.grid_dep_wait()\n", "        lm.grid_dep_wait()\n        lm.sync(nb)\n"), 2);
  EXPECT_EQ(after.result.outcome, encoder::Outcome::Pass) << rules(after.result);
  Checked before = check(replace(named, "        lm.grid_dep_wait()\n", "        lm.sync(nb)\n        lm.grid_dep_wait()\n"), 2);
  EXPECT_TRUE(hasRule(before.result, "sync.grid-dependency")) << rules(before.result);
}

}  // namespace
