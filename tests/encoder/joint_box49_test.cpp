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

const std::string kTwoGroupRing = R"(
@cake.schedule(target="sm_90a")
def two_group_ring(lm, X: LM.tma2d, Out: LM.gmem, n_stages: LM.i32, n_iters: LM.i32):
    lm.assume(n_stages >= 1)
    lm.assume(n_stages <= 2 * n_iters)
    pool = lm.smem(24576)
    xs   = pool.view(offset=0, shape=(4, 256), dtype=lm.f32, stages=6)
    rows = lm.regs(shape=(4, 256), dtype=lm.f32)
    red  = lm.regs(shape=(4, 1), dtype=lm.f32)
    compute = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=4)
    load    = lm.role(warps=[8])
    ring  = lm.pipeline(stages=6)
    full  = lm.barrier(prod=[load], cons=[compute], init_count=1, pipeline=ring)
    empty = lm.barrier(prod=[compute], cons=[load], init_count=1, pipeline=ring)
    with load:
        for i in lm.range(0, n_iters):
            for g in lm.range(0, 2):
                s = g + 2 * i
                if s < n_stages:
                    lm.wait(empty, iter=s - 6)
                    xs.tma_load(X, coords=(4 * s, 0), iter=s, barrier=full)
    with compute:
        g = lm.instance()
        for i in lm.range(0, n_iters):
            s = g + 2 * i
            if s < n_stages:
                lm.wait(full, iter=s)
                lm.copy(rows, xs[s])
                lm.fence_proxy()
                lm.arrive(empty, iter=s)
                lm.reduce(red, rows, op="sum", axis=1)
                lm.copy(Out, red, coords=(4 * s, 0))
)";

// The consumer's wait outside the predicate (the form before the PR).
const std::string kPredicatedWait = "            if s < n_stages:\n                lm.wait(full, iter=s)\n";
const std::string kUnpredicatedWait = "            lm.wait(full, iter=s)\n            if s < n_stages:\n";

int paramIndex(const cake::ir::Schedule& s, const std::string& name) {
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p)
    if (s.params[p].name == name) return p;
  return -1;
}

TEST(JointBox49, TiedGoalValuesStayNearTheBase) {
  auto mod = cake::testing::compile(kTwoGroupRing);
  ASSERT_FALSE(mod.schedules.empty());
  const cake::ir::Schedule& s = mod.schedules.at(0);
  const int iters = paramIndex(s, "n_iters");
  ASSERT_GE(iters, 0);
  for (const cake::encoder::Binding& b : cake::checks::coveringBindings(s))
    if (b.params.count(iters)) EXPECT_LE(b.params.at(iters), 64) << cake::encoder::bindingToString(s, b);
}

TEST(JointBox49, CorrectTwoGroupRingIsCheckedNotUnknown) {
  auto mod = cake::testing::compile(kTwoGroupRing);
  ASSERT_FALSE(mod.schedules.empty());
  const cake::ir::Schedule& s = mod.schedules.at(0);
  cake::checks::CheckOptions opts;
  opts.target = s.target;
  opts.timeout_ms = cake::testing::kNoWallClockMs;
  opts.rlimit = cake::testing::kQueryRlimit;
  cake::ir::DiagnosticSink sink;
  std::vector<cake::checks::PropertyVerdict> verdicts;
  cake::checks::runModelChecker(s, opts, sink, verdicts);
  bool sync_checked = false;
  for (const auto& v : verdicts)
    if (v.property == "sync") {
      EXPECT_EQ(v.kind, cake::checks::VerdictKind::Checked) << v.detail;
      sync_checked = v.kind == cake::checks::VerdictKind::Checked;
    }
  EXPECT_TRUE(sync_checked);
  for (const cake::ir::Finding& f : sink.findings()) EXPECT_EQ(f.rule.rfind("sync.", 0), std::string::npos) << f.rule;
}

TEST(JointBox49, UnpredicatedWaitIsFoundNotProved) {
  const std::string broken = cake::testing::replace(kTwoGroupRing, kPredicatedWait, kUnpredicatedWait);
  cake::testing::attacks::expectFoundNotProved(broken, "sync.arrival-underflow", "the stage past the end waited on");
}

}  // namespace joint_box49_test
