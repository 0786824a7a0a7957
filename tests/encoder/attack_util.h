// The attack harness shared by the trip-proof attack tests
// (trip_attacks_test.cpp, trip_attacks2_test.cpp): a broken variant of a
// clean, proved base is broken at its witness (the explicit engine finds a
// violation), not proved by the proof for every trip count under `cake
// check`'s default budget, and not said proved by `cake check`'s model
// checker (which finds it where its covering values reach the bug).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "checks/model_check.h"
#include "encoder/proof_budget.h"
#include "encoder/trip_proof.h"
#include "test_util.h"

namespace cake::testing::attacks {
struct Attack {
  std::vector<std::pair<std::string, std::string>> edits;  // from -> to, each applied once
  const char* what;
  std::vector<std::pair<std::string, int64_t>> witness;  // parameter values with a violation
  bool reached = true;  // the bounded check's covering values reach the bug
};

inline encoder::Binding bindAll(const ir::Schedule& s, const std::vector<std::pair<std::string, int64_t>>& vals) {
  encoder::Binding b;
  for (const auto& [name, v] : vals)
    for (int p = 0; p < static_cast<int>(s.params.size()); ++p)
      if (s.params[p].name == name) b.params[p] = v;
  return b;
}

inline encoder::ModelCheckResult proveDefault(const ir::Schedule& s) {
  encoder::TripProofOptions o;
  o.work = encoder::ProofBudget::unitsFor(3.0);  // `cake check`'s default
  o.rlimit = cake::testing::kQueryRlimit;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  return encoder::proveEveryTripCount(s, s.target, checks::coveringBindings(s), o);
}

// `cake check`'s model checker: whether it says proved, and the
// sync./data./proxy. rules it finds.
struct CheckAnswer {
  bool proved = false;
  std::set<std::string> rules;
  std::string detail;  // the verdicts' details
};
inline CheckAnswer modelCheck(const ir::Schedule& s, checks::SyncEngine engine = checks::SyncEngine::Explicit) {
  checks::CheckOptions opts;
  opts.target = s.target;
  opts.sync_engine = engine;
  opts.timeout_ms = cake::testing::kNoWallClockMs;
  opts.rlimit = cake::testing::kQueryRlimit;
  ir::DiagnosticSink sink;
  std::vector<checks::PropertyVerdict> verdicts;
  checks::runModelChecker(s, opts, sink, verdicts);
  CheckAnswer out;
  for (const auto& v : verdicts) {
    out.proved = out.proved || v.kind == checks::VerdictKind::Proved;
    out.detail += v.detail + "; ";
  }
  for (const ir::Finding& f : sink.findings())
    if (f.rule.rfind("sync.", 0) == 0 || f.rule.rfind("data.", 0) == 0 || f.rule.rfind("proxy.", 0) == 0)
      out.rules.insert(f.rule);
  return out;
}

// The work units a proof's engine line ends with ("... [N work units]"); 0
// where it names none.
inline uint64_t proofWorkUnits(const std::string& engine) {
  const size_t at = engine.rfind('[');
  if (at == std::string::npos) return 0;
  return std::strtoull(engine.c_str() + at + 1, nullptr, 10);
}

inline std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& r : s) out += (out.empty() ? "" : ", ") + r;
  return out;
}

// `rule` found by `cake check` (among the rules it reports) and the
// schedule not proved, neither by cake check nor by the proof itself. Returns
// the proof's result (for its reason; no schedule: an empty result).
inline encoder::ModelCheckResult expectFoundNotProved(const std::string& text, const std::string& rule,
                                                      const char* what) {
  auto mod = cake::testing::compile(text);
  EXPECT_FALSE(mod.schedules.empty()) << what;
  if (mod.schedules.empty()) return {};
  const ir::Schedule& s = mod.schedules.at(0);
  auto [proved, rules, detail] = modelCheck(s);
  EXPECT_FALSE(proved) << what << ": cake check says proved: " << detail;
  EXPECT_TRUE(rules.count(rule)) << what << ": cake check finds " << join(rules) << ": " << detail;
  encoder::ModelCheckResult r = proveDefault(s);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << what << ": UNSOUND, proved";
  return r;
}

// A correct schedule proved: `cake check` says proved and finds no
// rule, and the proof for every trip count proves it.
inline void expectCheckedAndProved(const std::string& text, const char* what) {
  auto mod = cake::testing::compile(text);
  ASSERT_FALSE(mod.schedules.empty()) << what;
  const ir::Schedule& s = mod.schedules.at(0);
  const auto answer = modelCheck(s);
  EXPECT_TRUE(answer.proved) << what << ": " << answer.detail;
  EXPECT_TRUE(answer.rules.empty()) << what << ": " << join(answer.rules);
  EXPECT_EQ(proveDefault(s).outcome, encoder::Outcome::Proved) << what;
}

// The stale-read attacks on a per-tile table row (sound37, sound38): the
// corpus folder of their pairs and the producer's store of the row on the
// first tile only.
inline const std::string kStaleReadDir = "corpus/bugs/data.stale-read/";
inline const std::string kRowStoredOnTheFirstTile = "            if t == 0:\n                lm.copy(row[0], v)\n";

// The first violation's rule with the parameter n (tiles) at `n` ("" where
// none).
inline std::string ruleAtTiles(const std::string& text, int64_t n) {
  auto mod = cake::testing::compile(text);
  if (mod.schedules.empty()) return "no schedule";
  const ir::Schedule& s = mod.schedules.at(0);
  auto r = cake::testing::exploreToFirst(s, bindAll(s, {{"n", n}}));
  return r.violations.empty() ? "" : r.violations.front().rule;
}

// Clean at one tile, stale at two, found by `cake check`, not proved.
inline void expectStaleFromTheSecondTile(const std::string& text, const char* what) {
  EXPECT_EQ(ruleAtTiles(text, 1), "") << what;
  EXPECT_EQ(ruleAtTiles(text, 2), "data.stale-read") << what;
  expectFoundNotProved(text, "data.stale-read", what);
}

// No sync./data./proxy. rule reported by `cake check`.
inline void expectNoSyncFinding(const std::string& text, const char* what) {
  auto mod = cake::testing::compile(text);
  ASSERT_FALSE(mod.schedules.empty()) << what;
  auto [proved, rules, detail] = modelCheck(mod.schedules.at(0));
  EXPECT_TRUE(rules.empty()) << what << ": a false alarm: " << join(rules) << ": " << detail;
}

// The base is clean at `clean` and proved; every attack is broken at its
// witness, not proved, and found by `cake check` where its values reach it.
inline void attack(const std::string& base, const std::vector<std::pair<std::string, int64_t>>& clean,
            const std::vector<Attack>& attacks, checks::SyncEngine engine = checks::SyncEngine::Explicit) {
  {
    auto mod = cake::testing::compile(base);
    ASSERT_FALSE(mod.schedules.empty());
    const ir::Schedule& s = mod.schedules.at(0);
    encoder::ExploreOptions eo;
    eo.timeout_ms = cake::testing::kNoWallClockMs;
    EXPECT_EQ(encoder::explore(cake::testing::build(s, bindAll(s, clean)), eo).outcome, encoder::Outcome::Pass);
    auto r = proveDefault(s);
    EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << "base: " << r.detail;
  }
  for (const Attack& a : attacks) {
    const auto start = std::chrono::steady_clock::now();
    std::string text = base;
    for (const auto& [from, to] : a.edits) text = cake::testing::replace(text, from, to);
    auto mod = cake::testing::compile(text);
    if (mod.schedules.empty()) continue;
    const ir::Schedule& s = mod.schedules.at(0);
    encoder::ExploreOptions eo;
    eo.timeout_ms = cake::testing::kNoWallClockMs;
    eo.stop_at_first = true;
    auto w = encoder::explore(cake::testing::build(s, bindAll(s, a.witness)), eo);
    EXPECT_EQ(w.outcome, encoder::Outcome::Violation) << a.what << ": not broken at its witness";
    if (w.violations.empty()) continue;
    // (where the bounded check finds nothing, cake check runs this proof itself)
    auto r = a.reached ? proveDefault(s) : encoder::ModelCheckResult{};
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << a.what << ": UNSOUND, proved: " << r.engine;
    auto [proved, rules, detail] = modelCheck(s, engine);
    EXPECT_FALSE(proved) << a.what << ": cake check says proved: " << detail;
    if (a.reached)
      EXPECT_FALSE(rules.empty()) << a.what << ": cake check finds nothing";
    else
      EXPECT_TRUE(rules.empty()) << a.what << ": now found (" << join(rules) << "): mark it reached";
    std::cout << a.what << "\n  witness: " << w.violations.front().rule << "\n  proof: " << (a.reached ? r.detail : detail)
              << "\n  cake check: " << join(rules) << "\n  (" 
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s)\n";
  }
}

// A 4-stage warp-specialized ring over K iterations, two consumers (the
// edits below name exact lines of it).
inline const std::string kRing4 = wsRingSchedule(4, {.name = "ring4", .assume_k_positive = true});

inline const std::string kProdWait = "            lm.wait(empty, iter=k - 4)\n";
inline const std::string kConsWait = "            lm.wait(full, iter=k)\n";
inline const std::string kConsArrive = "            lm.arrive(empty, iter=k)\n";

// Four warps of one role, each its own instance, a persistent tile loop
// whose K loop, bounded by `k_bound`, loads each warp's rows; the block
// barrier in the K loop or, with `sync_in_k_loop` false, after it
// (tests/encoder/trip_instance_bound_test.cpp, trip_private_loop_test.cpp).
inline std::string persistentWarpLoop(const std::string& k_bound, bool sync_in_k_loop = true) {
  return R"(@cake.schedule(target="sm_80")
def persistent_warp_loop(lm, X: LM.gmem, M: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(K > 0)
    r  = lm.regs(shape=(16, 64), dtype=lm.f32)
    sg = lm.role(warps=[0, 1, 2, 3], group=1)
    wg = lm.named_barrier(roles=[sg])
    my_tiles = lm.cdiv(max(lm.cdiv(M, 64) - lm.block_idx(0), 0), lm.grid_dim(0))
    with sg:
        for t in lm.range(0, my_tiles):
            for k in lm.range(0, )" +
         k_bound + R"():
                lm.copy(r, X, coords=(16 * lm.instance(), k * 64))
)" + (sync_in_k_loop ? "                lm.sync(wg)\n" : "            lm.sync(wg)\n");
}

}  // namespace cake::testing::attacks
