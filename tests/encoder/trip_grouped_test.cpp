// The CUTLASS grouped GEMM's per-tile ring restart (NVIDIA/cutlass PR #386's
// fix, corpus/bugs/sync.race/cutlass_grouped_gemm_next_tile_prologue_over_epilogue_fixed.cake;
// docs/known-limits.md "The CUTLASS grouped GEMM's per-tile ring restart").
// Every tile of the persistent loop syncs all warps, loads ring stage `w` in
// a prologue, runs the K loop over a two-slot ring named by `k % 2` (the
// prefetch guarded by `k + 1 < k_tiles`), drains it and stages the
// accumulator through shared memory that overlaps the ring. Today that
// kernel is checked, not proved. These tests guard whatever proof comes
// next: the correct forms must never be reported violated, and each broken
// form below (a prologue that writes a stage the previous tile still reads
// in its epilogue or its mainloop, a missing drain, a wrong stage index) is
// met by the bounded check and must never be proved. Most of them are clean
// in one tile and broken from the second, so a proof that covered every tile
// count by one tile alone would be unsound on them.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "encoder/bv_prover.h"
#include "encoder/proof_budget.h"
#include "encoder/system_hook.h"
#include "encoder/trip_proof.h"
#include "encoder/trip_restart.h"
#include "first_rule.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;
using cake::testing::compile;
using cake::testing::proveText;
using cake::testing::replace;

namespace trip_grouped_test {

// The corpus file's schedule.
const char* kGrouped = R"(@cake.schedule(target="sm_80")
def grouped(lm, A: LM.gmem, B: LM.gmem, D: LM.gmem, n_tiles: LM.i32, K: LM.i32):
    lm.assume(K >= 32)
    pool   = lm.smem(16384)
    smem_a = pool.view(offset=0,    shape=(64, 32), dtype=lm.f16, stages=2)
    a_band = pool.view(offset=0,    shape=(16, 32), dtype=lm.f16, stages=8)
    smem_b = pool.view(offset=8192, shape=(64, 32), dtype=lm.f16, stages=2)
    b_band = pool.view(offset=8192, shape=(16, 32), dtype=lm.f16, stages=8)
    epi    = pool.view(offset=0,    shape=(64, 64), dtype=lm.f32, stages=1)
    acc    = lm.regs(shape=(64, 16), dtype=lm.f32)
    out    = lm.regs(shape=(16, 64), dtype=lm.f32)
    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[warps])
    k_tiles = lm.cdiv(K, 32)
    with warps:
        w = lm.instance()
        for t in lm.range(0, n_tiles):
            m0 = 64 * (lm.block_idx(0) + t * lm.grid_dim(0))
            lm.sync(bar)
            a_band.cp_async(A, coords=(m0 + 16 * w, 0), stage=w)
            b_band.cp_async(B, coords=(16 * w, 0), stage=w)
            lm.cp_async_commit()
            for k in lm.range(0, k_tiles):
                lm.cp_async_wait(pending=0)
                lm.sync(bar)
                if k + 1 < k_tiles:
                    a_band.cp_async(A, coords=(m0 + 16 * w, 32 * (k + 1)), stage=4 * ((k + 1) % 2) + w)
                    b_band.cp_async(B, coords=(16 * w, 32 * (k + 1)), stage=4 * ((k + 1) % 2) + w)
                lm.cp_async_commit()
                lm.mma(acc, smem_a[k % 2], smem_b[k % 2][16 * w:16 * w + 16, :], init=(k == 0))
            lm.cp_async_wait(pending=0)
            lm.sync(bar)
            lm.copy(epi[0][:, 16 * w:16 * w + 16], acc)
            lm.sync(bar)
            lm.copy(out, epi[0][16 * w:16 * w + 16, :])
            lm.copy(D, out, coords=(m0 + 16 * w, 0))
)";

const char* kTileSync =
    "            lm.sync(bar)\n"
    "            a_band.cp_async(A, coords=(m0 + 16 * w, 0), stage=w)\n";
const char* kPrologue = "            a_band.cp_async(A, coords=(m0 + 16 * w, 0), stage=w)\n";
const char* kEpilogue =
    "            lm.cp_async_wait(pending=0)\n"
    "            lm.sync(bar)\n"
    "            lm.copy(epi[0][:, 16 * w:16 * w + 16], acc)\n"
    "            lm.sync(bar)\n"
    "            lm.copy(out, epi[0][16 * w:16 * w + 16, :])\n"
    "            lm.copy(D, out, coords=(m0 + 16 * w, 0))\n";
const char* kGuard = "                if k + 1 < k_tiles:\n";
const char* kPrefetchA =
    "a_band.cp_async(A, coords=(m0 + 16 * w, 32 * (k + 1)), stage=4 * ((k + 1) % 2) + w)\n";

// The accumulator written to global memory straight from the registers (no
// staging through shared memory, so the ring's bytes are read only by the
// mainloop); the ring drained before the next tile's sync.
std::string withoutStaging() {
  return replace(kGrouped, kEpilogue,
                 "            lm.cp_async_wait(pending=0)\n"
                 "            lm.copy(D, acc, coords=(m0, 16 * w))\n");
}

struct RestartFormAnswer {
  bool ok;
  std::string reason;
};

struct Bad {
  const char* what;
  std::string text;
  int64_t n_tiles, K;  // where the bounded check meets it
  const char* rule;
  bool clean_in_one_tile;  // broken only from the second tile
};

std::vector<Bad> brokenForms() {
  const std::string ok = kGrouped;
  const std::string direct = withoutStaging();
  return {
      // the corpus's broken partner (PR #386's bug): no sync at the top of
      // the tile, so a warp's next-tile prologue overwrites staging rows
      // another warp still reads in its epilogue
      {"the prologue over the previous tile's epilogue", replace(ok, kTileSync, kPrologue), 2, 32, "sync.race", true},
      // no staging, and neither the sync after the K loop nor the tile's:
      // the prologue refills slot 0 while another warp's last MMA of the
      // previous tile (k_tiles odd) still reads it
      {"the prologue over the previous tile's mainloop",
       replace(replace(ok, kTileSync, kPrologue), kEpilogue,
               "            lm.cp_async_wait(pending=0)\n            lm.copy(D, acc, coords=(m0, 16 * w))\n"),
       2, 32, "sync.race", true},
      // the prefetch unguarded (the last iteration loads a stage nobody
      // reads) and the drain after the K loop left out: the epilogue's
      // staging writes land under the load still in flight
      {"no drain before the epilogue",
       replace(replace(ok, kGuard, "                if k + 1 < k_tiles + 1:\n"),
               "            lm.cp_async_wait(pending=0)\n            lm.sync(bar)\n            lm.copy(epi",
               "            lm.sync(bar)\n            lm.copy(epi"),
       1, 32, "sync.race", false},
      // the same without staging, drained only at exit: the next tile's
      // prologue writes the stage the last iteration's load still fills
      // (k_tiles even)
      {"no drain before the next tile",
       replace(replace(replace(direct, kGuard, "                if k + 1 < k_tiles + 1:\n"),
                       "            lm.cp_async_wait(pending=0)\n            lm.copy(D, acc",
                       "            lm.copy(D, acc"),
               "            lm.copy(D, acc, coords=(m0, 16 * w))\n",
               "            lm.copy(D, acc, coords=(m0, 16 * w))\n        lm.cp_async_wait(pending=0)\n"),
       2, 33, "sync.race", true},
      // the prologue's stage one slot off in odd tiles: tile 1's first MMA
      // reads slot 0, which holds the previous tile's (staged) data
      {"the prologue's stage wrong from the second tile",
       replace(ok, "stage=w)\n            b_band", "stage=4 * (t % 2) + w)\n            b_band"), 2, 32,
       "data.stale-read", true},
      // the prefetch into the slot the MMA of the same iteration reads
      {"the prefetch's stage wrong",
       replace(ok, std::string("                    ") + kPrefetchA,
               "                    a_band.cp_async(A, coords=(m0 + 16 * w, 32 * (k + 1)), stage=4 * (k % 2) + w)\n"),
       1, 33, "sync.race", false},
  };
}

// The first violation the bounded check meets at these values ("" if none).
std::string firstRuleOf(const std::string& text, std::initializer_list<std::pair<std::string, int64_t>> values) {
  return cake::testing::firstRuleAt(text, values);
}

std::string firstRule(const std::string& text, int64_t n_tiles, int64_t K) {
  return firstRuleOf(text, {{"n_tiles", n_tiles}, {"K", K}});
}

// The corpus form and the form without staging: no violation for a few tile
// counts and K trip counts of either parity, and the proof reports none
// (today: checked, not proved; docs/known-limits.md).
TEST(TripGrouped, PerTileRingRestartIsNotReportedViolated) {
  for (const std::string& text : {std::string(kGrouped), withoutStaging()}) {
    for (int64_t n : {1, 2, 3})
      for (int64_t K : {32, 33, 65, 97}) EXPECT_EQ(firstRule(text, n, K), "") << n << " " << K << "\n" << text;
    auto r = proveText(text);
    EXPECT_NE(r.outcome, encoder::Outcome::Violation) << r.engine << r.detail;
  }
}

// Each broken form: met by the bounded check (the rule named), clean in one
// tile where it is broken only from the second, and never proved.
TEST(TripGrouped, BrokenPerTileRestartsAreNotProved) {
  for (const Bad& b : brokenForms()) {
    SCOPED_TRACE(b.what);
    EXPECT_EQ(firstRule(b.text, b.n_tiles, b.K), b.rule);
    if (b.clean_in_one_tile)
      for (int64_t K : {32, 33, 65, 97}) EXPECT_EQ(firstRule(b.text, 1, K), "") << K;
    auto r = proveText(b.text);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
  }
}

// One tile (`lm.assume(n_tiles == 1)`): the base a per-tile restart
// argument would build on (docs/z3.md "An outer loop that restarts the
// ring"). It is proved for every K trip count within `cake check`'s default
// budget (session 27: 384,669,686 units, 13,238 states; 3,882,656,126 before
// session 26's reduction changes), so the per-tile restart, once argued,
// would not be held back by the cost of its one tile. The forms broken
// within one tile (a missing drain, a prefetch into the slot being read)
// are not proved with one tile either.
encoder::ModelCheckResult proveOneTileAtTheDefaultBudget(const std::string& text) {
  const std::string one = replace(text, "    lm.assume(K >= 32)\n", "    lm.assume(K >= 32)\n    lm.assume(n_tiles == 1)\n");
  auto m = compile(one);
  const ir::Schedule& s = m.schedules.at(0);
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = s.params[p].name == "n_tiles" ? 1 : 64;
  encoder::TripProofOptions o;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  o.work = encoder::ProofBudget::unitsFor(3.0);  // `cake check`'s default budget
  return encoder::proveEveryTripCount(s, s.target, {b}, o);
}

TEST(TripGrouped, OneTileIsProvedWithinTheDefaultBudget) {
  for (const std::string& text : {std::string(kGrouped), withoutStaging()}) {
    auto r = proveOneTileAtTheDefaultBudget(text);
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail << "\n" << text;
    EXPECT_LT(r.states, 20000u) << r.engine;  // session 27: 13,238 (corpus form)
  }
  for (const Bad& b : brokenForms()) {
    if (b.clean_in_one_tile) continue;
    SCOPED_TRACE(b.what);
    EXPECT_NE(proveOneTileAtTheDefaultBudget(b.text).outcome, encoder::Outcome::Proved);
  }
}

// The restart form's text conditions (encoder/trip_restart.h; docs/z3.md
// "The restart form, checked on the text"): the two correct forms meet
// them; of the broken forms clean in one tile, each fails one (1, 2: no
// sync at the cut; 4: a load in flight at the cut, drained after the tile
// loop; 5: the tile read in a stage). The two broken within one tile
// (3: no drain before the epilogue, 6: the prefetch into the slot being
// read) are met by the one-tile proof (OneTileIsProvedWithinTheDefaultBudget
// above), which any proof on this form must require; 6 has the form.
RestartFormAnswer restartFormOf(const std::string& text) {
  const ir::Module m = compile(text);
  if (m.schedules.empty()) return {false, "no schedule"};
  const auto f = encoder::trip::restartForm(m.schedules[0]);
  return {f.ok, f.reason};
}

TEST(TripGrouped, RestartFormChecksTheTextConditions) {
  for (const std::string& text : {std::string(kGrouped), withoutStaging()}) {
    const auto f = restartFormOf(text);
    EXPECT_TRUE(f.ok) << f.reason << "\n" << text;
  }
  const std::vector<Bad> bad = brokenForms();
  ASSERT_EQ(bad.size(), 6u);
  for (size_t i = 0; i < bad.size(); ++i) {
    SCOPED_TRACE(bad[i].what);
    const auto f = restartFormOf(bad[i].text);
    if (bad[i].clean_in_one_tile) EXPECT_FALSE(f.ok);
    if (i == 5) EXPECT_TRUE(f.ok) << f.reason;  // left to the one-tile proof
  }
  EXPECT_NE(restartFormOf(bad[0].text).reason.find("does not start with lm.sync"), std::string::npos);
  EXPECT_NE(restartFormOf(bad[3].text).reason.find("more than its tile loop"), std::string::npos);
  EXPECT_NE(restartFormOf(bad[4].text).reason.find("tile variable"), std::string::npos);
}

// New broken forms aimed at the conditions, each clean in one tile, met by
// the bounded check from the second, refused by the text conditions and
// never proved:
//  * the cut's sync guarded by the tile (`if t < 1:`): tile 1 runs without
//    it, PR #386's bug from the second tile on (C1, C3: t in a guard);
//  * a phase carried across the tiles: a producer warp hands a buffer to a
//    consumer through an mbarrier whose wait names phase 0 in every tile
//    (right: phase t), so from the second tile the wait passes on the
//    completed phase and the consumer reads before the producer writes (C2:
//    no mbarrier; an mbarrier's completed phases are state the cut does not
//    reset).
const char* kPhaseCarried = R"(@cake.schedule(target="sm_80")
def phase_carried(lm, A: LM.gmem, D: LM.gmem, n_tiles: LM.i32):
    pool = lm.smem(4096)
    buf  = pool.view(offset=0, shape=(16, 32), dtype=lm.f32, stages=1)
    rp   = lm.regs(shape=(16, 32), dtype=lm.f32)
    rc   = lm.regs(shape=(16, 32), dtype=lm.f32)
    prod = lm.role(warps=[0])
    cons = lm.role(warps=[1])
    full = lm.barrier(prod=[prod], cons=[cons], init_count=1)
    bar  = lm.named_barrier(roles=[prod, cons])
    with prod:
        for t in lm.range(0, n_tiles):
            lm.sync(bar)
            lm.copy(rp, A, coords=(16 * t, 0))
            lm.copy(buf[0], rp)
            lm.arrive(full, stage=0)
    with cons:
        for t in lm.range(0, n_tiles):
            lm.sync(bar)
            lm.wait(full, stage=0, phase=0)
            lm.copy(rc, buf[0])
            lm.copy(D, rc, coords=(16 * t, 0))
)";

TEST(TripGrouped, BrokenFormsAimedAtTheRestartConditionsAreRefused) {
  const std::string guarded =
      replace(kGrouped, kTileSync, std::string("            if t < 1:\n                lm.sync(bar)\n") + kPrologue);
  struct Case {
    const char* what;
    std::string text;
    int64_t K;
  };
  for (const Case& c : {Case{"the cut's sync guarded by the tile", guarded, 32},
                        Case{"a phase carried across the tiles", kPhaseCarried, 0}}) {
    SCOPED_TRACE(c.what);
    const ir::Module m = compile(c.text);
    ASSERT_FALSE(m.schedules.empty());
    const ir::Schedule& s = m.schedules[0];
    auto at = [&](int64_t n) {
      return cake::testing::exploreToFirst(s, cake::testing::bind(s, {{"n_tiles", n}, {"K", c.K}})).outcome;
    };
    EXPECT_NE(at(1), encoder::Outcome::Violation);
    EXPECT_EQ(at(2), encoder::Outcome::Violation);
    EXPECT_FALSE(encoder::trip::restartForm(s).ok);
    auto r = proveText(c.text);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
  }
  const std::string right = replace(kPhaseCarried, "phase=0)", "phase=t)");
  EXPECT_FALSE(restartFormOf(right).ok);  // correct, and still refused: the phase reads t
}

// The first violation the explicit engine meets on the system built with or
// without resolveReads' caps ("" if none).
std::string ruleWithCaps(const ir::Schedule& s, std::initializer_list<std::pair<std::string, int64_t>> values,
                         bool caps) {
  std::string err;
  const encoder::EvalHook none = [](const ir::Expr&, const ir::EvalEnv&) -> std::optional<int64_t> {
    return std::nullopt;
  };
  auto sys = encoder::buildSystemHooked(s, cake::testing::bind(s, values), ir::Target::Unspecified, none, &err,
                                        {.cap_read_generations = caps});
  EXPECT_TRUE(sys.has_value()) << err;
  if (!sys) return "no system";
  encoder::ExploreOptions eo;
  eo.timeout_ms = cake::testing::kNoWallClockMs;
  eo.stop_at_first = true;
  const auto r = encoder::explore(*sys, eo);
  return r.violations.empty() ? "" : r.violations.front().rule;
}

// Reads without resolveReads' caps (encoder/system_hook.h BuildSemantics,
// condition (c) of the restart argument): a table written once before the
// loop and read after a sync in every iteration means lap k uncapped, so
// it is data.stale-read from the second iteration; the caps (what the
// bounded check uses) make it clean.
TEST(TripGrouped, ReadsWithoutTheCapsMeanWhatTheyCount) {
  const ir::Module m = compile(cake::testing::kTableReadEveryIteration);
  ASSERT_FALSE(m.schedules.empty());
  const ir::Schedule& s = m.schedules[0];
  auto rule = [&](int64_t K, bool caps) { return ruleWithCaps(s, {{"K", K}}, caps); };
  EXPECT_EQ(rule(1, false), "");
  EXPECT_EQ(rule(2, false), "data.stale-read");
  EXPECT_EQ(rule(2, true), "");
  EXPECT_EQ(rule(3, true), "");
}

// The proof's builds without the caps (TripProofOptions::build, the
// restart argument's condition (c): docs/z3.md "Reads without the caps in
// the proof"). The table written once and read every iteration is proved
// with the caps (what the bounded check means) and not without them (its
// second iteration's read means lap 1 of a slot written once); the grouped
// GEMM's one tile is proved either way, within the default budget.
encoder::ModelCheckResult proveTextWithCaps(const std::string& text, bool caps, int64_t value) {
  auto m = compile(text);
  const ir::Schedule& s = m.schedules.at(0);
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = s.params[p].name == "n_tiles" ? 1 : value;
  encoder::TripProofOptions o;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  o.work = encoder::ProofBudget::unitsFor(3.0);
  o.build.cap_read_generations = caps;
  return encoder::proveEveryTripCount(s, s.target, {b}, o);
}

TEST(TripGrouped, TheProofBuildsWithoutTheCapsWhenAsked) {
  const std::string table = cake::testing::kTableReadEveryIteration;
  EXPECT_EQ(proveTextWithCaps(table, true, 4).outcome, encoder::Outcome::Proved);
  const auto uncapped = proveTextWithCaps(table, false, 4);
  EXPECT_NE(uncapped.outcome, encoder::Outcome::Proved) << uncapped.engine;
  // and a proof with the caps afterwards on the same thread has them again
  EXPECT_EQ(proveTextWithCaps(table, true, 4).outcome, encoder::Outcome::Proved);
  for (const std::string& text : {std::string(kGrouped), withoutStaging()}) {
    const std::string one =
        replace(text, "    lm.assume(K >= 32)\n", "    lm.assume(K >= 32)\n    lm.assume(n_tiles == 1)\n");
    const auto r = proveTextWithCaps(one, false, 64);
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail << "\n" << one;
  }
}

// A register carried across the cut (docs/z3.md "Registers at the cut"):
// the accumulator is zeroed in a loop of J iterations (J a problem size,
// 0 or 1) and every MMA accumulates. With J = 0 the builder counts the
// empty loop as writing acc (no data.uninitialized in the first tile), so
// one tile is clean and proved; the second tile adds its products to the
// first tile's stored result (data.stale-accumulator at n_tiles = 2). The
// text conditions hold, so the register condition must refuse it.
std::string carriedAccumulator() {
  std::string text = replace(withoutStaging(), "n_tiles: LM.i32, K: LM.i32", "n_tiles: LM.i32, J: LM.i32, K: LM.i32");
  text = replace(text, "    lm.assume(K >= 32)\n", "    lm.assume(K >= 32)\n    lm.assume(J >= 0)\n    lm.assume(J <= 1)\n");
  text = replace(text, std::string(kTileSync),
                 std::string("            lm.sync(bar)\n            for j in lm.range(0, J):\n"
                             "                lm.fill(acc, 0)\n") +
                     kPrologue);
  return replace(text, "init=(k == 0))", "init=False)");
}

std::string restartRegistersOf(const std::string& text) {
  const ir::Module m = compile(text);
  if (m.schedules.empty()) return "no schedule";
  const ir::Schedule& s = m.schedules[0];
  encoder::BvProver prover(s);
  return encoder::trip::restartRegisters(
      s, [&](const ir::ExprPtr& g) { return prover.prove(g).kind == encoder::BvVerdict::Holds; });
}

TEST(TripGrouped, RegisterCarriedAcrossTheCutIsRefused) {
  const std::string carried = carriedAccumulator();
  const ir::Module m = compile(carried);
  ASSERT_FALSE(m.schedules.empty());
  const ir::Schedule& s = m.schedules[0];
  auto rule = [&](int64_t n, int64_t J, int64_t K) {
    const auto r = cake::testing::exploreToFirst(s, cake::testing::bind(s, {{"n_tiles", n}, {"J", J}, {"K", K}}));
    return r.violations.empty() ? std::string() : r.violations.front().rule;
  };
  // lm.assume(J >= 0) admits J = 0: the zeroing loop then writes nothing
  // and the first tile's MMAs (init=False) add to an unwritten accumulator
  // (data.uninitialized, "Decision"); with J = 1 every tile starts at zero
  for (int64_t K : {32, 33, 65}) {
    EXPECT_EQ(rule(1, 0, K), "data.uninitialized") << K;
    EXPECT_EQ(rule(1, 1, K), "") << K;
  }
  EXPECT_EQ(rule(2, 0, 33), "data.uninitialized");
  EXPECT_EQ(rule(2, 1, 33), "");
  EXPECT_TRUE(encoder::trip::restartForm(s).ok) << encoder::trip::restartForm(s).reason;
  EXPECT_NE(restartRegistersOf(carried).find("may run no iteration"), std::string::npos) << restartRegistersOf(carried);
  // with J >= 1 the zeroing loop always runs: the register condition holds
  EXPECT_EQ(restartRegistersOf(replace(carried, "lm.assume(J >= 0)", "lm.assume(J >= 1)")), "");
  for (const std::string& text : {std::string(kGrouped), withoutStaging()}) EXPECT_EQ(restartRegistersOf(text), "");
  auto r = proveText(carried);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
}

// Read-backs across the cut (trip::restartReadBacks, docs/z3.md "The
// writer each read meets; read-backs once per tile"): admitted only where
// the role writes the index once per tile and reads it back once after
// that write, every such op a statement of the tile itself with a constant
// index. The corpus form's epilogue has that form (epi[0] written, then
// read back: its meaning grows by one per tile, as its writers' do); the
// form without staging has no read-back. A broken form that reads the
// rows before this tile's staging writes them (the first tile reads bytes
// the prologue wrote through a_band, another view's data) is refused, and
// met by the bounded check in one tile.
TEST(TripGrouped, ReadBacksOutsideTheOncePerTileFormAreRefused) {
  auto readBacks = [](const std::string& text) {
    const ir::Module m = compile(text);
    return m.schedules.empty() ? std::string("no schedule") : encoder::trip::restartReadBacks(m.schedules[0]);
  };
  EXPECT_EQ(readBacks(kGrouped), "");
  EXPECT_EQ(readBacks(withoutStaging()), "");
  const std::string early = replace(kGrouped,
                                    "            lm.copy(epi[0][:, 16 * w:16 * w + 16], acc)\n"
                                    "            lm.sync(bar)\n"
                                    "            lm.copy(out, epi[0][16 * w:16 * w + 16, :])\n",
                                    "            lm.copy(out, epi[0][16 * w:16 * w + 16, :])\n"
                                    "            lm.sync(bar)\n"
                                    "            lm.copy(epi[0][:, 16 * w:16 * w + 16], acc)\n");
  // read before written in the tile: admitted since helper marlin5 (its own
  // write's generation at the read, t - 1, stays below its returns, t:
  // docs/z3.md "Marlin's slice loop proved"); its first tile reads epi[0]
  // unwritten, which the one-tile proof meets
  EXPECT_EQ(readBacks(early), "");
  EXPECT_EQ(firstRule(early, 1, 32), "data.stale-read");
  auto r = proveText(early);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
  // the read-back twice per tile, or in a branch of the tile
  const std::string twice = replace(kGrouped, "            lm.copy(D, out, coords=(m0 + 16 * w, 0))\n",
                                    "            lm.copy(out, epi[0][16 * w:16 * w + 16, :])\n"
                                    "            lm.copy(D, out, coords=(m0 + 16 * w, 0))\n");
  EXPECT_NE(readBacks(twice).find("back 2 times"), std::string::npos) << readBacks(twice);
  const std::string guarded = replace(kGrouped, "            lm.copy(out, epi[0][16 * w:16 * w + 16, :])\n",
                                      "            if K > 32:\n"
                                      "                lm.copy(out, epi[0][16 * w:16 * w + 16, :])\n");
  EXPECT_NE(readBacks(guarded).find("in a loop or a branch"), std::string::npos) << readBacks(guarded);
}

// A read that outgrows the writer it meets (docs/z3.md "Reads without the
// caps in the proof; registers at the cut", what is left 1). The reader
// reads buf[0] twice per tile, a sync between; its first read meets warp
// 1's write (one per tile), its second warp 0's second write (two per
// tile). In the first tile the reads mean laps 0 and 1 and find 0 and 1,
// with the caps or without; from the second tile the first read meant lap
// 2 * t and found warp 1's lap t: data.stale-read at n_tiles = 2 until
// session 44, fresh since (each read means the write the barriers hand it,
// and those are all of the read's own tile). It has
// the restart form, no read-back and no register condition to fail, so
// only a condition on the writers each read meets (c_w >= e_r per pair
// that meets) can refuse it.
const char* kOutgrownWriter = R"(@cake.schedule(target="sm_80")
def outgrow(lm, A: LM.gmem, D: LM.gmem, n_tiles: LM.i32):
    pool = lm.smem(4096)
    buf  = pool.view(offset=0, shape=(16, 32), dtype=lm.f32, stages=1)
    v    = lm.regs(shape=(16, 32), dtype=lm.f32)
    w1   = lm.role(warps=[0])
    w2   = lm.role(warps=[1])
    rd   = lm.role(warps=[2])
    bar  = lm.named_barrier(roles=[w1, w2, rd])
    with w1:
        for t in lm.range(0, n_tiles):
            lm.sync(bar)
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(v, A, coords=(16 * t, 0))
            lm.copy(buf[0], v)
            lm.copy(buf[0], v)
            lm.sync(bar)
    with w2:
        for t in lm.range(0, n_tiles):
            lm.sync(bar)
            lm.copy(v, A, coords=(16 * t, 32))
            lm.copy(buf[0], v)
            lm.sync(bar)
            lm.sync(bar)
            lm.sync(bar)
    with rd:
        for t in lm.range(0, n_tiles):
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(v, buf[0])
            lm.copy(D, v, coords=(16 * t, 0))
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(v, buf[0])
            lm.copy(D, v, coords=(16 * t, 32))
)";

TEST(TripGrouped, ReadThatOutgrowsItsWriterIsMetFromTheSecondTile) {
  const ir::Module m = compile(kOutgrownWriter);
  ASSERT_FALSE(m.schedules.empty());
  const ir::Schedule& s = m.schedules[0];
  auto rule = [&](int64_t n, bool caps) { return ruleWithCaps(s, {{"n_tiles", n}}, caps); };
  EXPECT_EQ(rule(1, true), "");
  EXPECT_EQ(rule(1, false), "");
  // Since session 44 (helper stale44, docs/rules/data.stale-read.md "A write
  // handed over in barrier order") each read means the write the barriers
  // hand it: the first read of tile t finds warp 1's write of tile t, the
  // second warp 0's last write of tile t, so the reads are fresh from the
  // second tile on too (the lap counts above were per writer, not per
  // hand-over). The proof still refuses it (below): it is not proved.
  EXPECT_EQ(rule(2, true), "");
  EXPECT_TRUE(encoder::trip::restartForm(s).ok) << encoder::trip::restartForm(s).reason;
  EXPECT_EQ(encoder::trip::restartReadBacks(s), "");
  EXPECT_EQ(restartRegistersOf(kOutgrownWriter), "");
  auto r = proveText(kOutgrownWriter);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
}

// A read-back that outgrows its writer, met only from the third tile. Warp
// 0 writes buf[0] twice, warp 1 then rewrites its first 8 rows once, and
// warp 0 reads buf[0] back. In the first tile the read is fresh (warp 0
// had not read the index when it wrote it: no own generation yet) and
// means lap 0; from the second on it is a read-back and means its own
// latest write's lap, 2 * t + 1, while warp 1's rows hold lap t. With the
// caps the bounded check lowers that to the highest lap warp 1 writes in
// the whole run (n_tiles - 1), so the read of tile 1 is clean at
// n_tiles = 2 and data.stale-read at n_tiles = 3 (until session 50: since
// hunt50's per-range laps the read means the lap its bytes were written at,
// fresh in every tile, and the proof proves it). The restart form and the
// register condition hold; trip::restartReadBacks refuses it.
const char* kReadBackOutgrows = R"(@cake.schedule(target="sm_80")
def readback_outgrows(lm, A: LM.gmem, D: LM.gmem, n_tiles: LM.i32):
    pool = lm.smem(4096)
    buf  = pool.view(offset=0, shape=(16, 32), dtype=lm.f32, stages=1)
    v    = lm.regs(shape=(16, 32), dtype=lm.f32)
    u    = lm.regs(shape=(8, 32), dtype=lm.f32)
    r    = lm.role(warps=[0])
    wr   = lm.role(warps=[1])
    bar  = lm.named_barrier(roles=[r, wr])
    with r:
        for t in lm.range(0, n_tiles):
            lm.sync(bar)
            lm.copy(v, A, coords=(16 * t, 0))
            lm.copy(buf[0], v)
            lm.copy(buf[0], v)
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(v, buf[0])
            lm.copy(D, v, coords=(16 * t, 0))
    with wr:
        for t in lm.range(0, n_tiles):
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(u, A, coords=(16 * t, 32))
            lm.copy(buf[0][0:8, :], u)
            lm.sync(bar)
)";

TEST(TripGrouped, ReadBackThatOutgrowsItsWriterIsFreshInEveryTile) {
  const ir::Module m = compile(kReadBackOutgrows);
  ASSERT_FALSE(m.schedules.empty());
  const ir::Schedule& s = m.schedules[0];
  auto rule = [&](int64_t n, bool caps) { return ruleWithCaps(s, {{"n_tiles", n}}, caps); };
  // (session 50, helper hunt50: a read whose byte ranges all mean the same
  // lap takes that lap, docs/rules/data.stale-read.md: every byte it reads
  // was written in its own tile, ordered by the barrier, so the read is
  // fresh in every tile with the caps; the proof agrees)
  for (int64_t n = 1; n <= 4; ++n) EXPECT_EQ(rule(n, true), "") << n;
  EXPECT_EQ(rule(1, false), "");
  EXPECT_EQ(rule(2, false), "data.stale-read");
  EXPECT_TRUE(encoder::trip::restartForm(s).ok) << encoder::trip::restartForm(s).reason;
  EXPECT_EQ(restartRegistersOf(kReadBackOutgrows), "");
  EXPECT_NE(encoder::trip::restartReadBacks(s).find("writes buf[0] 2 times per tile"), std::string::npos)
      << encoder::trip::restartReadBacks(s);
  auto r = proveText(kReadBackOutgrows);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
}


// The writers each read meets (trip::ReadMeets, the last-read rule; docs/z3.md
// "The writer each read meets; read-backs once per tile"), recorded from one
// run of the one-tile system built without the caps. The reader of
// kOutgrownWriter reads buf[0] twice per tile; its first read meets w2's
// write (one per tile), its last w1's second write (two per tile): the
// last read misses w2, so the rule refuses it (from the second tile the
// first read means lap 2 * t and w2 holds lap t). The grouped GEMM's reads
// each meet one set of writers (the other warps' a_band stages of the
// slot; the other warps' epi[0] column bands): the rule holds at every K
// tried, and the proof covers every K.
std::string lastReadRuleOfOneRun(const std::string& text, std::initializer_list<std::pair<std::string, int64_t>> values) {
  const ir::Module m = compile(text);
  if (m.schedules.empty()) return "no schedule";
  const ir::Schedule& s = m.schedules[0];
  std::string err;
  const encoder::EvalHook none = [](const ir::Expr&, const ir::EvalEnv&) -> std::optional<int64_t> {
    return std::nullopt;
  };
  auto sys = encoder::buildSystemHooked(s, cake::testing::bind(s, values), ir::Target::Unspecified, none, &err,
                                        {.cap_read_generations = false});
  if (!sys) return "no system: " + err;
  encoder::trip::ReadMeets meets;
  if (auto why = encoder::trip::recordMeetsOfOneRun(*sys, meets); !why.empty()) return "the run: " + why;
  if (meets.met.empty()) return "no read recorded";
  return encoder::trip::lastReadRule(s, meets);
}

TEST(TripGrouped, TheLastReadRuleRefusesAReadThatOutgrowsItsWriter) {
  const std::string why = lastReadRuleOfOneRun(kOutgrownWriter, {{"n_tiles", 1}});
  EXPECT_NE(why.find("a last read of buf[0] by rd"), std::string::npos) << why;
  EXPECT_NE(why.find("by w2"), std::string::npos) << why;
  for (int64_t K : {32, 33, 65, 96, 97}) {
    EXPECT_EQ(lastReadRuleOfOneRun(kGrouped, {{"n_tiles", 1}, {"K", K}}), "") << K;
    EXPECT_EQ(lastReadRuleOfOneRun(withoutStaging(), {{"n_tiles", 1}, {"K", K}}), "") << K;
  }
}

// The restart argument wired into the proof (docs/z3.md "The writer each
// read meets; read-backs once per tile"): the corpus form and the form
// without staging are proved for every tile count and K, by the one-tile
// proof without the caps; the broken forms stay unproved
// (BrokenPerTileRestartsAreNotProved, BrokenFormsAimedAtTheRestartConditionsAreRefused,
// RegisterCarriedAcrossTheCutIsRefused, ReadBacksOutsideTheOncePerTileFormAreRefused,
// ReadThatOutgrowsItsWriterIsMetFromTheSecondTile,
// ReadBackThatOutgrowsItsWriterIsFreshInEveryTile), each with a reason.
// kOutgrownWriter with a loop of K global loads at the top of the reader's
// tile: fresh in barrier order as kOutgrownWriter is, and a one-tile proof
// by lap induction over K that the last-read rule still refuses.
std::string outgrownWithAKLoop() {
  std::string text = replace(kOutgrownWriter, "n_tiles: LM.i32):\n", "n_tiles: LM.i32, K: LM.i32):\n    lm.assume(K >= 1)\n");
  return replace(text,
                 "    with rd:\n        for t in lm.range(0, n_tiles):\n            lm.sync(bar)\n",
                 "    with rd:\n        for t in lm.range(0, n_tiles):\n            lm.sync(bar)\n"
                 "            for k in lm.range(0, K):\n"
                 "                lm.copy(v, A, coords=(16 * t, 32 * k))\n");
}

TEST(TripGrouped, PerTileRingRestartIsProvedForEveryTileCount) {
  // fresh in barrier order (ReadThatOutgrowsItsWriterIsMetFromTheSecondTile)
  EXPECT_EQ(firstRuleOf(outgrownWithAKLoop(), {{"n_tiles", 2}, {"K", 2}}), "");
  EXPECT_EQ(firstRuleOf(outgrownWithAKLoop(), {{"n_tiles", 1}, {"K", 2}}), "");
  for (const std::string& text : {std::string(kGrouped), withoutStaging()}) {
    const auto r = proveText(text);
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail << "\n" << text;
    EXPECT_NE(r.engine.find("restart argument"), std::string::npos) << r.engine;
  }
  const auto outgrown = proveText(kOutgrownWriter);
  EXPECT_NE(outgrown.outcome, encoder::Outcome::Proved) << outgrown.engine;
  EXPECT_NE(outgrown.detail.find("the restart argument"), std::string::npos) << outgrown.detail;
  // with a K loop in the reader's tile the one-tile proof is lap
  // induction over K and proves the tile; the last-read rule refuses it
  const auto looped = proveText(outgrownWithAKLoop());
  EXPECT_NE(looped.outcome, encoder::Outcome::Proved) << looped.engine;
  EXPECT_NE(looped.detail.find("a last read of buf[0] by rd"), std::string::npos) << looped.detail;
  EXPECT_EQ(lastReadRuleOfOneRun(outgrownWithAKLoop(), {{"n_tiles", 1}, {"K", 3}}).find("a last read"), 0u);
  // a fact on the tile count that does not hold at one tile would make the
  // one-tile proof vacuous: it is left out of that proof (which then covers
  // more values, session 53's restart53, docs/z3.md), and the correct
  // kernel is proved
  const std::string two = replace(kGrouped, "    lm.assume(K >= 32)\n", "    lm.assume(K >= 32)\n    lm.assume(n_tiles >= 2)\n");
  const auto r2 = proveText(two);
  EXPECT_EQ(r2.outcome, encoder::Outcome::Proved) << r2.detail;
  EXPECT_NE(r2.engine.find("the one-tile proof left them out"), std::string::npos) << r2.engine;
}

}  // namespace trip_grouped_test
