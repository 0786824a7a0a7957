// A jointly solved covering value near the base (helper hunt49b, session
// 49; docs/known-limits.md "A tied goal's value placed far from the base").
// nvFuser's two compute warp groups each take every other stage of a
// 6-slot ring, `n_iters` rounds of two stages of which the first
// `n_stages <= 2 * n_iters` hold rows (NVIDIA/Fuser PR #4524, the fixed
// form: the consumer's wait carries the load's predicate). The fact ties
// the two parameters, so the goal `2 * n_iters - n_stages == 28` is solved
// jointly by Z3 within a box around the base; with one box of 2^12 the
// model was n_iters = 1037, n_stages = 2046, whose thousand-round pipeline
// used up the bounded check's budget: the correct kernel was *unknown*. The
// boxes now grow from 2^4, so the value stays near the base (n_iters = 15
// satisfies the goal) and the kernel is *checked* in a fraction of a second.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attack_util.h"
#include "checks/model_check.h"

namespace joint_box49_test {

// The corpus's fixed two-parameter form (its wait predicated).
std::string twoGroupRing() {
  return cake::testing::corpusText(
      "corpus/bugs/sync.arrival-underflow/nvfuser_ws_two_wg_wait_parity_unpredicated_tail_two_params_fixed.cake");
}

// The consumer's wait outside the predicate (the form before the PR).
const std::string kPredicatedWait =
    "            if s < n_stages:                                         # the fix: the wait is predicated too\n"
    "                lm.wait(full, iter=s)\n";
const std::string kUnpredicatedWait = "            lm.wait(full, iter=s)\n            if s < n_stages:\n";

int paramIndex(const cake::ir::Schedule& s, const std::string& name) {
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p)
    if (s.params[p].name == name) return p;
  return -1;
}

TEST(JointBox49, TiedGoalValuesStayNearTheBase) {
  auto mod = cake::testing::compile(twoGroupRing());
  ASSERT_FALSE(mod.schedules.empty());
  const cake::ir::Schedule& s = mod.schedules.at(0);
  const int iters = paramIndex(s, "n_iters");
  ASSERT_GE(iters, 0);
  for (const cake::encoder::Binding& b : cake::checks::coveringBindings(s))
    if (b.params.count(iters)) EXPECT_LE(b.params.at(iters), 64) << cake::encoder::bindingToString(s, b);
}

TEST(JointBox49, CorrectTwoGroupRingIsCheckedNotUnknown) {
  auto mod = cake::testing::compile(twoGroupRing());
  ASSERT_FALSE(mod.schedules.empty());
  const cake::ir::Schedule& s = mod.schedules.at(0);
  cake::checks::CheckOptions opts;
  opts.target = s.target;
  opts.timeout_ms = cake::testing::kNoWallClockMs;
  opts.rlimit = cake::testing::kQueryRlimit;
  cake::ir::DiagnosticSink sink;
  std::vector<cake::checks::PropertyVerdict> verdicts;
  cake::checks::runModelChecker(s, opts, sink, verdicts);
  // (proved since session 50: the loops' dead tails cut, tail_cut50_test.cpp;
  // the bounded check before the proof still explores the covering values)
  bool sync_proved = false;
  for (const auto& v : verdicts)
    if (v.property == "sync") {
      EXPECT_EQ(v.kind, cake::checks::VerdictKind::Proved) << v.detail;
      sync_proved = v.kind == cake::checks::VerdictKind::Proved;
    }
  EXPECT_TRUE(sync_proved);
  for (const cake::ir::Finding& f : sink.findings()) EXPECT_EQ(f.rule.rfind("sync.", 0), std::string::npos) << f.rule;
}

TEST(JointBox49, UnpredicatedWaitIsFoundNotProved) {
  const std::string broken = cake::testing::replace(twoGroupRing(), kPredicatedWait, kUnpredicatedWait);
  cake::testing::attacks::expectFoundNotProved(broken, "sync.arrival-underflow", "the stage past the end waited on");
}

}  // namespace joint_box49_test
