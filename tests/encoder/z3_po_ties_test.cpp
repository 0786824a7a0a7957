// Ties in the Z3 partial-order engine (docs/z3.md "Ties without distinct"):
// a model the simulator does not replay because two of its events share a
// clock is refined in the difference-logic pass (the tied pairs ruled
// apart, the query asked again) instead of being handed to the simplex
// solver; the verdict stays the simulator's.
#include "tests/common/build_paths.h"
#include <gtest/gtest.h>

#include <string>

#include "checks/model_check.h"
#include "encoder/simulator.h"
#include "encoder/z3_po.h"
#include "ir/frontend.h"

namespace z3_po_ties_test {

using cake::encoder::Binding;
using cake::encoder::Outcome;
using cake::encoder::PoOptions;
using cake::encoder::PoResult;

// The module of a corpus file (`rel` from the source root), or nothing. The
// systems built from its schedules point into it: it must outlive them.
std::optional<cake::ir::Module> corpusModule(const std::string& rel) {
  std::string err;
  auto file = cake::ir::readSourceFile(std::string(CAKE_SOURCE_DIR) + "/" + rel, err);
  cake::ir::DiagnosticSink sink;
  auto mod = file ? cake::ir::compileModule(file, {}, sink) : std::nullopt;
  EXPECT_TRUE(mod) << rel << ": " << err;
  return mod;
}

// The system of a schedule at the covering binding printed as `binding`.
std::optional<cake::encoder::System> systemAt(const cake::ir::Schedule& s, const std::string& binding) {
  std::string err;
  for (const Binding& b : cake::checks::coveringBindings(s))
    if (cake::encoder::bindingToString(s, b) == binding) return cake::encoder::buildSystem(s, b, s.target, &err);
  ADD_FAILURE() << "no covering binding " << binding;
  return std::nullopt;
}

// The sm100 persistent accumulator pipeline with one trip too many of its
// epilogue loop (a benign mutant): at M=513 the difference-logic solver's
// first models tie events the simulator must order, and their replays fail.
// Before, each such model sent the binding to the simplex solver, then to
// the simplex solver with every clock distinct (0.33 s CPU, 6x this); now
// the ties are ruled apart and the difference-logic pass decides.
TEST(Z3PoTies, ATieTheSimulatorCannotReplayIsRuledApartInDifferenceLogic) {
  auto mod = corpusModule("corpus/mutants/bugs/sync.race/sm100_persistent_no_acc_empty_fixed/iter-plus-1-L66.cake");
  ASSERT_TRUE(mod);
  auto sys = systemAt(mod->schedules.front(), "M=513, N=1, K=1");
  ASSERT_TRUE(sys);
  PoOptions po;
  po.limits.timeout_ms = 60000;
  po.stop_at_first = true;  // as `cake check --engine z3`
  PoResult z = cake::encoder::poCheck(*sys, po);
  EXPECT_FALSE(z.internal_error) << z.error;
  EXPECT_EQ(z.result.outcome, cake::encoder::explore(*sys, cake::encoder::everyRule()).outcome) << z.result.detail;
  EXPECT_EQ(z.result.outcome, Outcome::Pass) << z.result.detail;
  EXPECT_NE(z.profile.find("tied pairs ruled apart"), std::string::npos) << z.profile;
  EXPECT_EQ(z.profile.find("(arith 2)"), std::string::npos) << z.profile;
}

// The same refinement where the binding is broken: every rule the Z3
// engine reports is replayed and is the explicit engine's (the broken form
// of the same pipeline, every binding small enough).
TEST(Z3PoTies, RuledApartModelsStillReplayOnABrokenPipeline) {
  auto mod = corpusModule("corpus/bugs/sync.race/sm100_persistent_no_acc_empty.cake");
  ASSERT_TRUE(mod);
  std::string err;
  const auto& s = mod->schedules.front();
  int broken = 0;
  for (const Binding& b : cake::checks::coveringBindings(s)) {
    auto sys = cake::encoder::buildSystem(s, b, s.target, &err);
    if (!sys || sys->instrCount() > 80) continue;
    auto x = cake::encoder::explore(*sys, cake::encoder::everyRule());
    PoOptions po;
    po.limits.timeout_ms = 60000;
    PoResult z = cake::encoder::poCheck(*sys, po);
    ASSERT_FALSE(z.internal_error) << z.error;
    ASSERT_NE(z.result.outcome, Outcome::Unknown) << z.result.detail;
    EXPECT_EQ(z.result.outcome, x.outcome) << cake::encoder::bindingToString(s, b);
    for (const auto& v : z.result.violations) {
      EXPECT_TRUE(cake::encoder::replay(*sys, v.trace).valid) << v.rule;
      bool known = false;
      for (const auto& w : x.violations) known = known || w.rule == v.rule;
      EXPECT_TRUE(known) << v.rule << " at " << cake::encoder::bindingToString(s, b);
    }
    broken += z.result.outcome == Outcome::Violation;
  }
  EXPECT_GT(broken, 0);
}

}  // namespace z3_po_ties_test
