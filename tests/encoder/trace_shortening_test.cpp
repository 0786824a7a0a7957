// The greedy trace shortening (encoder::minimizeTrace) gives the trace of
// the plain greedy pass it replaced, which replayed every candidate whole
// (encoder::replay): the prefix states it keeps are only a shortcut.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "encoder/proof_budget.h"
#include "encoder/simulator.h"
#include "ir/frontend.h"
#include "random_schedules.h"

using namespace cake;

namespace {

// replay() says the trace ends in a violation of `rule` (at its full length).
bool shorteningEndsIn(const encoder::System& sys, const encoder::Trace& t, const std::string& rule) {
  encoder::ReplayResult r = encoder::replay(sys, t);
  return r.valid && std::any_of(r.violations.begin(), r.violations.end(), [&](const encoder::Violation& v) {
           return v.rule == rule && v.trace.size() == t.size();
         });
}

// The greedy pass step by step, each candidate replayed whole (traces here
// are shorter than the chunked pass's 256 steps).
encoder::Trace shorteningReference(const encoder::System& sys, const encoder::Trace& trace, const std::string& rule) {
  if (!shorteningEndsIn(sys, trace, rule)) return trace;
  encoder::Trace t = trace;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = t.size(); i-- > 0;) {
      encoder::Trace shorter = t;
      shorter.erase(shorter.begin() + static_cast<long>(i));
      if (shorteningEndsIn(sys, shorter, rule)) {
        t = std::move(shorter);
        changed = true;
      }
    }
  }
  return t;
}

bool shorteningSameTrace(const encoder::Trace& a, const encoder::Trace& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const encoder::Step& x, const encoder::Step& y) {
    return x.kind == y.kind && x.proc == y.proc && x.pc == y.pc;
  });
}

}  // namespace

TEST(TraceShortening, SameTraceAsReplayingEachCandidateWhole) {
  int compared = 0, shortened = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const cake::testing::RandomSchedule rs = cake::testing::randomSchedule(seed);
    ir::DiagnosticSink sink;
    auto mod = ir::compileModule(ir::makeSourceFile(fmt::format("shorten{}.cake", seed), rs.text), {}, sink);
    ASSERT_TRUE(mod) << rs.text;
    for (int64_t k = 0; k <= rs.max_k; ++k) {
      encoder::Binding b;
      b.params[2] = k;
      std::string err;
      auto sys = encoder::buildSystem(mod->schedules[0], b, ir::Target::Unspecified, &err);
      ASSERT_TRUE(sys) << err;
      const encoder::ModelCheckResult r = encoder::explore(*sys);
      for (const encoder::Violation& v : r.violations) {
        if (v.trace.empty() || v.trace.size() > 200) continue;
        encoder::ProofBudget budget(encoder::ProofBudget::unitsFor(60.0), 600000);
        const encoder::Trace got = encoder::minimizeTrace(*sys, v.trace, v.rule, budget);
        const encoder::Trace want = shorteningReference(*sys, v.trace, v.rule);
        EXPECT_TRUE(shorteningSameTrace(got, want)) << "seed " << seed << " K=" << k << " " << v.rule << ": " << got.size()
                                          << " steps, the reference " << want.size() << "\n"
                                          << rs.text;
        ++compared;
        shortened += got.size() < v.trace.size();
      }
    }
  }
  EXPECT_GT(compared, 20);
  EXPECT_GT(shortened, 5);  // (the traces compared include some the pass shortens)
}
