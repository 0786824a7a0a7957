// Independent CTAs in lap induction (docs/z3.md "Independent CTAs", helper
// dgcta, session 19, issue 11): a modelled cluster whose CTAs share nothing
// but the cluster barrier (no remote arrival, no multicast, no access to a
// peer's memory; the cluster barrier outside the loop) is explored with
// each CTA's own trip count and each CTA shifted a period back on its own.
// Broken variants (each confirmed broken by the bounded check) are not
// proved, among them the cross-CTA forms the split must not take.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "encoder/simulator.h"
#include "encoder/trip_cluster.h"
#include "encoder/trip_proof.h"
#include "test_util.h"

using namespace cake;
using cake::testing::replace;

namespace {

// The 2-CTA mainloop with nothing shared inside the loop: each CTA loads
// its own A and B and releases its own slot (DeepGEMM's k-grouped GEMM
// without multicast, corpus/bugs/sync.tx-imbalance/
// deepgemm_kgrouped_multicast_straddle_fixed.cake's "not taken" case).
// (the multicast mainloop of test_util.h with B loaded whole by each CTA
// and each slot released in the own CTA only)
std::string apartText() {
  std::string t = cake::testing::kClusterMulticast;
  t = replace(t, "    smem_bh = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=4)\n", "");
  t = replace(t, "init_count=2)", "init_count=1)");
  t = replace(t, "smem_bh[2 * (k % 2) + rank].tma_load(B, coords=(64 * rank, k), iter=k, barrier=full, multicast=3)",
              "smem_b.tma_load(B, coords=(0, k), iter=k, barrier=full)");
  return replace(t, "lm.arrive(empty, iter=k, cta=0)\n            lm.arrive(empty, iter=k, cta=1)",
                 "lm.arrive(empty, iter=k)");
}

encoder::ModelCheckResult proveApart(const ir::Schedule& s, bool cta_shift = true, uint64_t work = 0) {
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = 64;
  encoder::TripProofOptions o;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  o.cta_shift = cta_shift;
  o.work = work;
  return encoder::proveEveryTripCount(s, s.target, {b}, o);
}

bool sharesOnlyTheClusterBarrier(const std::string& text) {
  auto m = cake::testing::compile(text);
  EXPECT_FALSE(m.schedules.empty());
  if (m.schedules.empty()) return false;
  const ir::Schedule& s = m.schedules[0];
  return encoder::trip::ctasShareOnlyTheClusterBarrier(cake::testing::build(s, cake::testing::bind(s, {{"K", 4}})));
}

// A one-slot hand-off in each CTA of a 2-CTA cluster (test_util.h's
// kOneSlotHandoff between two cluster barriers), nothing shared inside the
// loop. Even this small schedule is unknown with the CTAs together (at
// 1.5e9 units: one CTA may run any number of iterations ahead).
const std::string kApartHandoff = R"(@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def apart1(lm, X: LM.tma2d, K: LM.i32):
    pool   = lm.smem(16384)
    smem_x = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=1)
    x      = lm.regs(shape=(64, 128), dtype=lm.f32)
    load     = lm.role(warps=[0])
    wg       = lm.role(warps=[4, 5, 6, 7])
    ready    = lm.barrier(count=1, prod=[load], cons=[wg], init_count=1)
    consumed = lm.barrier(count=1, prod=[wg], cons=[load], init_count=1)
    rank = lm.cluster_rank()
    with load:
        lm.cluster_sync()
        for t in lm.range(0, K):
            lm.wait(consumed, iter=t - 1)
            smem_x.tma_load(X, coords=(t * 64 + rank, 0), iter=t, barrier=ready)
        lm.cluster_sync()
    with wg:
        lm.cluster_sync()
        for t in lm.range(0, K):
            lm.wait(ready, iter=t)
            lm.copy(x, smem_x[t])
            lm.fence_proxy()
            lm.arrive(consumed, iter=t)
        lm.cluster_sync()
)";

const char* kDeepGemm = "corpus/bugs/sync.tx-imbalance/deepgemm_kgrouped_multicast_straddle_fixed.cake";
constexpr uint64_t kDefaultWork = 3'000'000'000;  // cake check's default budget (3 s)

}  // namespace

// DeepGEMM's fixed k-grouped multicast: its guard's "not taken" case (each
// CTA its own B, its own slot) ran past the default budget with the CTAs
// shifted together (755,372 states at 6.5e9 units, not finished); apart,
// both cases fit.
TEST(TripCtaApart, DeepGemmFixedIsProvedAtTheDefaultBudget) {
  auto m = cake::testing::compile(cake::testing::corpusText(kDeepGemm));
  ASSERT_FALSE(m.schedules.empty());
  auto r = proveApart(m.schedules[0], true, kDefaultWork);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("for each outcome of the guards"), std::string::npos) << r.engine;
  std::cout << "  " << r.engine << "\n";

  const std::string bug =
      cake::testing::corpusText("corpus/bugs/sync.tx-imbalance/deepgemm_kgrouped_multicast_straddle.cake");
  auto b = cake::testing::compile(bug);
  ASSERT_FALSE(b.schedules.empty());
  EXPECT_TRUE(cake::testing::violatedAt(b.schedules[0], {{"K", 64}, {"group_blocks", 1}}));
  EXPECT_NE(proveApart(b.schedules[0], true, kDefaultWork).outcome, encoder::Outcome::Proved);
}

// Which clusters split: only CTAs that share nothing but the cluster barrier.
TEST(TripCtaApart, OnlyCtasThatShareNothingAreSplit) {
  const std::string kApart = apartText();
  EXPECT_TRUE(sharesOnlyTheClusterBarrier(kApart));
  // a remote arrival (the slot of the peer released)
  EXPECT_FALSE(sharesOnlyTheClusterBarrier(replace(kApart, "lm.arrive(empty, iter=k)", "lm.arrive(empty, iter=k, cta=1 - rank)")));
  // a multicast into the peer
  EXPECT_FALSE(sharesOnlyTheClusterBarrier(replace(kApart, "iter=k, barrier=full)\n        lm.cluster_sync()",
                                                   "iter=k, barrier=full, multicast=3)\n        lm.cluster_sync()")));
  // the multicast mainloop of test_util.h
  EXPECT_FALSE(sharesOnlyTheClusterBarrier(cake::testing::kClusterMulticast));
}

// The independent mainloop is proved with the CTAs apart; its broken
// variants are not: a slot released in the peer instead of the own CTA
// (the own producer overwrites what the own MMA may still read: only the
// other CTA's progress orders it), B multicast into the peer too (bytes
// and writes the peer's barrier does not expect), the producer's wait
// dropped (a race inside one CTA, met with the CTAs apart and reported
// with them together), the producer waiting for the lap before.
TEST(TripCtaApart, IndependentMainloopIsProvedAndItsBugsAreNot) {
  const std::string kApart = apartText();
  auto m = cake::testing::compile(kApart);
  ASSERT_FALSE(m.schedules.empty());
  auto r = proveApart(m.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("the CTAs shifted apart"), std::string::npos) << r.engine;
  std::cout << "  apart: " << r.engine << " (" << r.states << " states)\n";

  struct Bug { const char* what; std::string text; };
  const std::vector<Bug> bugs = {
      {"release in the peer", replace(kApart, "lm.arrive(empty, iter=k)", "lm.arrive(empty, iter=k, cta=1 - rank)")},
      {"multicast into the peer", replace(kApart, "iter=k, barrier=full)\n        lm.cluster_sync()",
                                          "iter=k, barrier=full, multicast=3)\n        lm.cluster_sync()")},
      {"release in the peer too", replace(kApart, "            lm.arrive(empty, iter=k)\n",
                                          "            lm.arrive(empty, iter=k)\n"
                                          "            lm.arrive(empty, iter=k, cta=1 - rank)\n")},
      {"no producer wait", replace(kApart, "            lm.wait(empty, iter=k - 2)\n", "")},
      {"producer a lap late", replace(kApart, "lm.wait(empty, iter=k - 2)", "lm.wait(empty, iter=k - 4)")},
  };
  for (const Bug& b : bugs) {
    auto bm = cake::testing::compile(b.text);
    ASSERT_FALSE(bm.schedules.empty()) << b.what;
    EXPECT_TRUE(cake::testing::brokenOnGrid(bm.schedules[0], {{"K", {1, 2, 3, 4}}})) << b.what;
    auto p = proveApart(bm.schedules[0]);
    EXPECT_NE(p.outcome, encoder::Outcome::Proved) << b.what << ": " << p.engine;
    std::cout << "  " << b.what << ": " << (p.outcome == encoder::Outcome::Violation ? "violation " : "unknown ")
              << p.detail.substr(0, 160) << "\n";
  }
}

// The CTAs apart against the bounded check: every mutant of the two-slot
// independent hand-off (a synchronization line dropped, neighbouring
// statements swapped, iterations changed, a release or a load turned into a
// cross-CTA one, an init_count changed) that the bounded check finds broken
// at some K in 1..4 is not proved; the base and the mutants that only
// synchronize more are proved. (The CTAs together prove none of them: one
// CTA may run any number of iterations ahead of the other, past every
// window: "Independent CTAs" in docs/z3.md.) A violation the exploration
// apart meets is reported from the CTAs together: the same verdict.
TEST(TripCtaApart, MutantsProvedApartAreCleanAndBrokenOnesAreNot) {
  std::string base = replace(kApartHandoff, "stages=1)", "stages=2)");
  base = replace(replace(base, "count=1, prod=[load]", "count=2, prod=[load]"), "count=1, prod=[wg]", "count=2, prod=[wg]");
  base = replace(base, "iter=t - 1)", "iter=t - 2)");
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"iter=t)", "iter=t + 1)"},        {"iter=t)", "iter=t - 1)"},
      {"iter=t - 2)", "iter=t - 1)"},    {"iter=t - 2)", "iter=t - 3)"},
      {"iter=t,", "iter=t + 1,"},        {"lm.arrive(consumed, iter=t)", "lm.arrive(consumed, iter=t, cta=1 - rank)"},
      {"lm.arrive(consumed, iter=t)", "lm.arrive(consumed, iter=t, count=2)"},
      {"barrier=ready)", "barrier=ready, multicast=3)"}, {"init_count=1)", "init_count=2)"}};
  const auto mutants =
      cake::testing::lineMutants(base, edits, {"lm.cluster_sync()", "lm.wait(", "lm.arrive(", "lm.fence_proxy()"});
  int compiled = 0, proved = 0, broken_count = 0;
  for (const auto& [what, text] : mutants) {
    ir::DiagnosticSink sink;
    auto mod = ir::compileModule(ir::makeSourceFile("mutant.cake", text), {}, sink);
    if (sink.hasErrors() || !mod || mod->schedules.empty()) continue;
    const ir::Schedule& s = mod->schedules[0];
    ++compiled;
    const bool broken = cake::testing::brokenOnGrid(s, {{"K", {1, 2, 3, 4}}});
    auto apart = proveApart(s, true, kDefaultWork);
    const bool is_proved = apart.outcome == encoder::Outcome::Proved;
    std::cout << "  " << what << ": " << (broken ? "broken" : "clean at K = 1..4") << ", "
              << (is_proved ? "proved" : apart.outcome == encoder::Outcome::Violation ? "violation" : "unknown")
              << std::endl;
    EXPECT_FALSE(broken && is_proved) << what << ": " << apart.engine;
    if (is_proved) EXPECT_NE(apart.engine.find("the CTAs shifted apart"), std::string::npos) << what << apart.engine;
    if (broken) EXPECT_NE(apart.outcome, encoder::Outcome::Proved) << what;
    proved += is_proved;
    broken_count += broken;
    if (what == "base") EXPECT_TRUE(is_proved && !broken) << apart.detail;
  }
  std::cout << "[ CTAs apart ] " << compiled << " mutants, " << broken_count << " broken (none proved), " << proved
            << " proved\n";
  EXPECT_GE(compiled, 20);
  EXPECT_GE(proved, 2);
}
