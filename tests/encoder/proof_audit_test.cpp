// The proofs' soundness audit (gate/proof_audit.h, docs/z3.md "Soundness
// audit"): its larger values, that it catches a wrong proof either way, and
// (the long form, label `slow`) a fixed sample of the corpus and its mutants
// with no proved schedule violating at larger values and no broken one proved.
#include "tests/common/build_paths.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>

#include "checks/model_check.h"
#include "gate/proof_audit.h"
#include "test_util.h"

namespace cake {
namespace {

namespace audit = checks::audit;

int64_t paramOf(const ir::Schedule& s, const encoder::Binding& b, const std::string& name) {
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p)
    if (s.params[p].name == name) return b.params.count(p) ? b.params.at(p) : -1;
  return -1;
}

// The bounded check leaves the sm90 conv at C=1 (nine iterations already
// pass the ring's 2S+1); the larger values reach several channel blocks,
// each inside the assumptions.
TEST(ProofAudit, LargerBindingsGrowPastTheCoveringValues) {
  ir::Module mod = cake::testing::compile(cake::testing::corpusText("corpus/conv/sm90_fprop_tma4d_ws.cake"));
  const ir::Schedule& s = mod.schedules.at(0);
  auto covering = checks::coveringBindings(s);
  ASSERT_FALSE(covering.empty());
  int64_t cmax = 0;
  for (const auto& b : covering) cmax = std::max(cmax, paramOf(s, b, "C"));
  auto larger = audit::largerBindings(s, covering);
  int64_t most = 0;
  for (const auto& b : larger) {
    EXPECT_GT(paramOf(s, b, "C"), 0);
    EXPECT_GT(paramOf(s, b, "P"), 0);
    most = std::max(most, paramOf(s, b, "C"));
  }
  EXPECT_GT(most, std::max<int64_t>(cmax, 128)) << "no binding with three channel blocks";
}

// A persistent kernel's audit joins give several tiles of several
// iterations beyond the covering values (which since session 26 also run
// each guard combination at 2S+1 trips: docs/known-limits.md "Attacks on
// the bounded check"), and larger grids.
TEST(ProofAudit, PersistentKernelsGetSeveralTilesOfSeveralIterations) {
  ir::Module mod = cake::testing::compile(cake::testing::corpusText("corpus/gemm/sm90_persistent_ws.cake"));
  const ir::Schedule& s = mod.schedules.at(0);
  auto covering = checks::coveringBindings(s);
  bool both = false, grid = false;
  for (const auto& b : audit::largerBindings(s, covering)) {
    both = both || (paramOf(s, b, "M") > 256 && paramOf(s, b, "K") > 128);
    grid = grid || b.grid_dim[0] > 2;
  }
  EXPECT_TRUE(both);
  EXPECT_TRUE(grid);
}

// A schedule broken only from the tenth K iteration on (the producer skips
// its wait there), given the covering values of trip counts up to 4: the
// deep check finds the violation past them. (The bounded check itself
// places a value at the guard's flip; the audit is checked here against a
// proof that would have stopped short.)
TEST(ProofAudit, DeepCheckFindsAViolationPastTheCoveringValues) {
  const std::string good = cake::testing::corpusText("corpus/gemm/sm90_ws_4stage.cake");
  const std::string bad = cake::testing::replace(good, "            lm.wait(empty, iter=k - 4)\n",
                                                 "            if k != 9:\n                lm.wait(empty, iter=k - 4)\n");
  for (const std::string* text : {&good, &bad}) {
    ir::Module mod = cake::testing::compile(*text);
    const ir::Schedule& s = mod.schedules.at(0);
    std::vector<encoder::Binding> small;
    for (const auto& b : checks::coveringBindings(s)) {
      const int64_t k = paramOf(s, b, "K");
      if (k >= 1 && (k + 63) / 64 <= 4) small.push_back(b);
    }
    ASSERT_FALSE(small.empty());
    audit::AuditOptions o;
    audit::ScheduleAudit a;
    a.engine = "a proof stopped short";
    audit::deepCheck(s, small, o, a);
    if (text == &good) {
      EXPECT_EQ(a.discrepancy, "");
      EXPECT_GE(a.deep_checked, 4);
    } else {
      EXPECT_EQ(a.discrepancy.rfind("proved-but-violating", 0), 0u) << a.discrepancy;
    }
  }
}

// A broken corpus file: the real proof never proves it; a proof that
// answers Proved anyway is flagged.
TEST(ProofAudit, ABrokenScheduleProvedIsFlagged) {
  const std::string text = cake::testing::corpusText("corpus/bugs/sync.race/sm90_release_before_mma_retired.cake");
  audit::AuditOptions o;
  auto real = audit::auditText("bad.cake", text, o);
  ASSERT_FALSE(real.empty());
  EXPECT_EQ(real[0].verdict, "counterexample");
  EXPECT_TRUE(real[0].bad_proof_run);
  EXPECT_NE(real[0].bad_proof, "proved");
  EXPECT_EQ(real[0].discrepancy, "");
  o.prove = [](const ir::Schedule&, const std::vector<encoder::Binding>&) {
    encoder::ModelCheckResult r;
    r.outcome = encoder::Outcome::Proved;
    r.engine = "always";
    return r;
  };
  auto wrong = audit::auditText("bad.cake", text, o);
  ASSERT_FALSE(wrong.empty());
  EXPECT_EQ(wrong[0].discrepancy.rfind("bad-but-proved", 0), 0u) << wrong[0].discrepancy;
}

// The long form: a fixed sample of the known-good originals (every second
// by the hash of its path, seed 1) and of their mutants (every 50th), each
// as `cake check` checks it (deterministic work budgets); no proved
// schedule may violate at larger values, no broken one may be proved.
// (bench/proof_audit.sh runs all of them: docs/benchmarks.md.)
TEST(ProofAudit, SlowNoProvedScheduleViolatesAtLargerValues) {
  const std::string root = std::string(CAKE_SOURCE_DIR) + "/corpus";
  auto originals = audit::knownGoodOriginals(root);
  size_t enumerated = 0;
  auto mutants = audit::sampleMutants(originals, 50, 0, 1, &enumerated);
  std::erase_if(originals, [](const auto& o) { return !audit::sampled(o.path, 2, 1); });
  audit::AuditOptions o;
  o.wall_ms = cake::testing::kNoWallClockMs;
  std::map<std::string, int> verdicts;
  int deep = 0, bad_proofs = 0;
  auto one = [&](const std::string& path, const std::string& text) {
    for (const auto& a : audit::auditText(path, text, o)) {
      ++verdicts[a.verdict];
      deep += a.deep_checked;
      bad_proofs += a.bad_proof_run;
      EXPECT_EQ(a.discrepancy, "") << audit::auditLine(a);
    }
  };
  for (const auto& g : originals) one(g.path, g.text);
  for (const auto& m : mutants) one("mutants:" + m.relativePath(), m.body);
  std::cout << "proof audit: " << originals.size() << " originals, " << mutants.size() << " of " << enumerated
            << " mutants;";
  for (const auto& [k, n] : verdicts) std::cout << " " << n << " " << k;
  std::cout << "; " << deep << " larger bindings explored; proof run on " << bad_proofs << " broken schedules\n";
  EXPECT_GT(originals.size(), 80u);
  EXPECT_GT(mutants.size(), 200u);
  EXPECT_GT(verdicts["proved"], 100);
  EXPECT_GT(deep, 400);
  EXPECT_GT(bad_proofs, 100);
}

}  // namespace
}  // namespace cake
