// Marlin's slice loop `for s: H(s) ; S ; T(s)` (vLLM PR #11493's fix):
// its cut is the slice's last top-level lm.sync, with only register and
// global-memory ops after it (encoder/trip_restart_rotate.h; docs/z3.md "The
// cut after H: a slice loop rotated onto the restart form"). These tests
// check the text conditions on Marlin's fix and the two-warp slice kernel,
// that every broken form of TripRestart.BugsFromTheSecondSliceAreNotProved
// (and one aimed at the barrier pairing before the loop) is refused, and the
// claim the argument needs about the named barrier's generation at the cut:
// it grows by a count that depends on K, and the simulator's steps and
// findings do not depend on it.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "encoder/bv_prover.h"
#include "encoder/sim_model.h"
#include "encoder/system_hook.h"
#include "encoder/trip_restart_rotate.h"
#include "restart_slices.h"
#include "test_util.h"

using namespace cake;
using cake::testing::compile;
using cake::testing::replace;

namespace trip_restart_rotate_test {

const char* kMarlinFixed = "corpus/bugs/sync.race/vllm_marlin_block_reduce_scratch_aliases_a_stages_fixed.cake";

encoder::trip::RestartReduction rotatedOf(const std::string& text) {
  const ir::Module m = compile(text);
  if (m.schedules.empty()) {
    encoder::trip::RestartReduction r;
    r.reason = "no schedule";
    return r;
  }
  return encoder::trip::rotatedRestartForm(m.schedules[0]);
}

std::string registersOfRotated(const encoder::trip::RestartReduction& r) {
  encoder::BvProver prover(r.text);
  return encoder::trip::restartRegisters(
      r.text, [&](const ir::ExprPtr& g) { return prover.prove(g).kind == encoder::BvVerdict::Holds; });
}

bool violatedWith(const std::string& text, std::initializer_list<std::pair<std::string, int64_t>> values) {
  return cake::testing::violatedAt(compile(text).schedules.at(0), values);
}

// Two warps that sync the loop's barrier unequally before the loop (warp 0
// twice) and in the slice (warp 1 twice): one slice pairs every sync and is
// clean; two slices leave warp 1 waiting (and so do none). A one-slice
// proof meets nothing; the rule that the code before the loop syncs once
// refuses it (so does a proof of the zero-slice system).
const char* kUnequalPairing = R"(@cake.schedule(target="sm_80")
def unequal_pairing(lm, A: LM.gmem, C: LM.gmem, n: LM.i32):
    r = lm.regs(shape=(16, 64), dtype=lm.f16)
    warps = lm.role(warps=[0, 1], group=1)
    bar = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        if w == 0:
            lm.sync(bar)
        lm.sync(bar)
        for s in lm.range(0, n):
            lm.copy(r, A, coords=(16 * w, 64 * s))
            if w == 1:
                lm.sync(bar)
            lm.sync(bar)
            lm.copy(C, r, coords=(16 * w, 64 * s))
)";

// --- the generation at the cut ---------------------------------------------

using encoder::sim::Model;
using encoder::sim::State;

struct RotateStateHash {
  size_t operator()(const State& s) const { return encoder::sim::hashState(s.v.data(), s.v.size()); }
};

// s with every named barrier's generation moved by c, and the generation
// every waiting process waits for with it (a process at an lm.sync's wait;
// elsewhere the field is 0 and read by nothing).
State withGenerationsMoved(const Model& m, const State& s, int32_t c) {
  State n = s;
  for (int k = 0; k < m.N; ++k) n.v[m.off_named + 2 * k] += c;
  for (int p = 0; p < m.P; ++p) {
    const int pc = encoder::sim::pcOf(m, s, p);
    if (pc < m.programSize(p) && m.instr(p, pc).kind == encoder::InstrKind::SyncWait) n.v[m.off_sgen + p] += c;
  }
  return n;
}

struct RotateAfter {
  State s;
  std::set<std::string> rules;
};

RotateAfter applyOne(const Model& m, const State& s, const encoder::Step& st) {
  RotateAfter out{s, {}};
  const encoder::sim::Async a = encoder::sim::decodeAsync(m, s);
  std::vector<encoder::Violation> v;
  encoder::sim::applyStep(m, out.s, a, st, v, nullptr);
  for (const auto& x : v) out.rules.insert(x.rule);
  return out;
}

std::set<std::string> stateRules(const Model& m, const State& s) {
  const encoder::sim::Async a = encoder::sim::decodeAsync(m, s);
  std::vector<encoder::Violation> found;
  encoder::sim::stateViolations(m, s, a, encoder::sim::enabledSteps(m, s, a), {}, found);
  std::set<std::string> rules;
  for (const auto& x : found) rules.insert(x.rule);
  return rules;
}

// The first state (breadth first, up to `cap` states of the full
// interleaving) whose steps, successors or findings change when the
// generations move by c (successors compared after moving them by c), as
// a message; "" when none. `visit` sees every state.
std::string firstGenerationDependence(const Model& m, const std::vector<int32_t>& shifts, size_t cap,
                                      const std::function<void(const State&)>& visit) {
  std::vector<State> todo{encoder::sim::initialState(m)};
  std::unordered_set<State, RotateStateHash> seen{todo[0]};
  for (size_t i = 0; i < todo.size() && i < cap; ++i) {
    const State s = todo[i];
    visit(s);
    const encoder::sim::Async a = encoder::sim::decodeAsync(m, s);
    const std::vector<encoder::Step> en = encoder::sim::enabledSteps(m, s, a);
    const std::set<std::string> here = stateRules(m, s);
    for (int32_t c : shifts) {
      const State moved = withGenerationsMoved(m, s, c);
      const encoder::sim::Async ma = encoder::sim::decodeAsync(m, moved);
      if (encoder::sim::enabledSteps(m, moved, ma) != en) return fmt::format("state {}: other steps at +{}", i, c);
      if (stateRules(m, moved) != here) return fmt::format("state {}: other findings at +{}", i, c);
      for (const encoder::Step& st : en) {
        const RotateAfter x = applyOne(m, s, st), y = applyOne(m, moved, st);
        if (y.rules != x.rules) return fmt::format("state {}: a step finds other rules at +{}", i, c);
        if (y.s != withGenerationsMoved(m, x.s, c))
          return fmt::format("state {}: a step's successor differs at +{}", i, c);
      }
    }
    if (!here.empty()) continue;
    for (const encoder::Step& st : en) {
      RotateAfter x = applyOne(m, s, st);
      if (x.rules.empty() && seen.insert(x.s).second) todo.push_back(std::move(x.s));
    }
  }
  return "";
}

// The pcs just past process p's waits on named barrier nb, in program order.
std::vector<int> pastWaits(const Model& m, int p, int nb) {
  std::vector<int> out;
  for (int pc = 0; pc < m.programSize(p); ++pc)
    if (m.instr(p, pc).kind == encoder::InstrKind::SyncWait && m.instr(p, pc).named == nb) out.push_back(pc + 1);
  return out;
}

}  // namespace trip_restart_rotate_test

// Marlin's fix has the shape (H: the prologue, the K loop, the drain and
// the reduction's first two syncs; S: the third; T: warp 0's write of the
// result) and meets the register condition once rotated; the read-back of
// `red` (warp 1 reads red[0] and writes its sum there) is what is left.
TEST(TripRestartRotate, MarlinFixHasTheRotatedRestartForm) {
  using namespace trip_restart_rotate_test;
  const auto r = rotatedOf(cake::testing::corpusText(kMarlinFixed));
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_TRUE(r.form.ok);
  EXPECT_EQ(registersOfRotated(r), "");
  // warp 1's read-back of red[0] under `if w == 1:` (read, then written
  // once per slice) is in the per-instance form since helper marlin5
  EXPECT_EQ(encoder::trip::restartReadBacks(r.text), "") << encoder::trip::restartReadBacks(r.text);
  // the rotated text starts every slice with the cut (restartForm's shape)
  ASSERT_EQ(r.text.bodies.size(), 1u);
  const ir::Stmt& loop = r.text.bodies[0].body.at(0);
  ASSERT_EQ(loop.kind, ir::Stmt::Kind::For);
  EXPECT_EQ(loop.body.at(0).op.kind, ir::OpKind::Sync);
  EXPECT_EQ(loop.body.back().kind, ir::Stmt::Kind::If);  // T: `if w == 0: lm.copy(C, acc, ...)`
}

// The two-warp slice kernel (code before the loop ending with the cut's
// barrier) has the form; each of TripRestart's broken forms, clean in one
// slice and broken from the second, is refused, for its own reason.
TEST(TripRestartRotate, BrokenSliceFormsAreRefused) {
  using namespace trip_restart_rotate_test;
  using namespace restart_slices;
  const auto ok = rotatedOf(kSlices);
  EXPECT_TRUE(ok.ok) << ok.reason;
  const std::vector<Broken> bad = brokenForms();
  ASSERT_EQ(bad.size(), 3u);
  std::vector<std::string> why;
  for (const Broken& b : bad) {
    const auto r = rotatedOf(b.text);
    EXPECT_FALSE(r.ok) << b.what;
    why.push_back(r.reason);
  }
  // 1: the closing barrier dropped: no top-level sync, no cut
  EXPECT_NE(why[0].find("no cut"), std::string::npos) << why[0];
  // 2: a group pending at the cut, drained only after the loop
  EXPECT_NE(why[1].find("after its slice loop"), std::string::npos) << why[1];
  // 3: the next slice's data written after the cut, in shared memory
  EXPECT_NE(why[2].find("shared or tensor memory"), std::string::npos) << why[2];
  // 2 without the drain after the loop: refused by the drain before the cut
  const std::string pending =
      replace(bad[1].text, std::string(kWriteBack) + "        lm.cp_async_wait(pending=0)\n", kWriteBack);
  EXPECT_NE(rotatedOf(pending).reason.find("not drained"), std::string::npos) << rotatedOf(pending).reason;
}

// Conditions of the rotation itself: a guard after the cut that reads the
// slice variable, and syncs paired unequally before the loop (clean in one
// slice, a hang with two), are refused.
TEST(TripRestartRotate, TailGuardsAndPairingBeforeTheLoopAreChecked) {
  using namespace trip_restart_rotate_test;
  using namespace restart_slices;
  const std::string guarded = replace(kSlices, kWriteBack, std::string("            if s < 1:\n    ") + kWriteBack);
  EXPECT_NE(rotatedOf(guarded).reason.find("guard after the cut"), std::string::npos) << rotatedOf(guarded).reason;

  EXPECT_FALSE(violatedWith(kUnequalPairing, {{"n", 1}}));
  EXPECT_TRUE(violatedWith(kUnequalPairing, {{"n", 2}}));
  const auto r = rotatedOf(kUnequalPairing);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("more than once"), std::string::npos) << r.reason;
  // with warp 0's extra sync gone (and warp 1's) the form holds and it is clean
  const std::string equal = replace(replace(kUnequalPairing, "        if w == 0:\n            lm.sync(bar)\n", ""),
                                    "            if w == 1:\n                lm.sync(bar)\n", "");
  EXPECT_TRUE(rotatedOf(equal).ok) << rotatedOf(equal).reason;
  for (int64_t n : {0, 1, 2, 3}) EXPECT_FALSE(violatedWith(equal, {{"n", n}})) << n;
}

// The barrier's generation at the cut (docs/z3.md item 4 of "What Marlin's
// slice loop needs"): in the two-slice system of the two-warp kernel, every
// state where both warps stand just past slice 0's cut holds the barrier
// `k_tiles + 1` generations (a count that depends on K) past the state where
// both stand just past the sync before the loop, with nothing else of the
// control state different (arrivals 0, no waiter, no async work); and from
// every reachable state the steps, their successors and their findings do
// not change when every generation moves (by 1, by the K-dependent offset,
// and by 1000), so the state at a later cut behaves as the first one's.
TEST(TripRestartRotate, GenerationOffsetAtTheCutChangesNothing) {
  using namespace trip_restart_rotate_test;
  using namespace restart_slices;
  const ir::Module mod = compile(kSlices);
  const ir::Schedule& sched = mod.schedules.at(0);
  for (int64_t K : {64, 65, 129, 193}) {
    SCOPED_TRACE(K);
    const int64_t k_tiles = (K + 63) / 64;
    const encoder::System sys = cake::testing::build(sched, cake::testing::bind(sched, {{"n", 2}, {"K", K}}));
    const Model m(sys);
    ASSERT_EQ(m.N, 1);
    std::vector<std::vector<int>> past(m.P);
    for (int p = 0; p < m.P; ++p) {
      past[p] = pastWaits(m, p, 0);
      ASSERT_EQ(past[p].size(), static_cast<size_t>(1 + 2 * (k_tiles + 1)));  // pre's, then two slices'
    }
    auto allAt = [&](const State& s, size_t wait) {
      for (int p = 0; p < m.P; ++p)
        if (encoder::sim::pcOf(m, s, p) != past[p][wait]) return false;
      return true;
    };
    std::vector<State> at_pre, at_cut;  // both warps just past the sync before the loop / slice 0's cut
    size_t states = 0;
    const auto dependence =
        firstGenerationDependence(m, {1, static_cast<int32_t>(k_tiles + 1), 1000}, 200000, [&](const State& s) {
          ++states;
          if (allAt(s, 0)) at_pre.push_back(s);
          if (allAt(s, k_tiles + 1)) at_cut.push_back(s);
        });
    EXPECT_EQ(dependence, "");
    EXPECT_LT(states, 200000u);  // the whole graph
    std::printf("two slices, K = %lld: %zu states, %zu just past slice 0's cut\n", static_cast<long long>(K), states,
                at_cut.size());
    ASSERT_FALSE(at_pre.empty());
    ASSERT_FALSE(at_cut.empty());
    auto control = [&](const State& s) {
      std::vector<int32_t> c(s.v.begin() + m.off_sgen, s.v.begin() + m.off_atom);  // sgen, observed, slots, named
      c.insert(c.end(), s.v.begin() + m.off_var, s.v.end());                       // the async part
      return c;
    };
    for (const State& cut : at_cut) {
      EXPECT_EQ(cut.v[m.off_named], at_pre[0].v[m.off_named] + k_tiles + 1);
      EXPECT_EQ(cut.v[m.off_named + 1], 0);
      EXPECT_EQ(control(withGenerationsMoved(m, cut, static_cast<int32_t>(-(k_tiles + 1)))), control(at_pre[0]));
    }
  }
}

// The same invariance on Marlin's fix (four warps, guarded syncs in the
// reduction), over every state of its one slice's full interleaving at
// K = 64 and 129.
TEST(TripRestartRotate, MarlinStepsDoNotReadTheGeneration) {
  using namespace trip_restart_rotate_test;
  const std::string text = replace(cake::testing::corpusText(kMarlinFixed), "    lm.assume(K >= 64)\n",
                                   "    lm.assume(K >= 64)\n    lm.assume(n_slices == 1)\n");
  const ir::Module mod = compile(text);
  const ir::Schedule& sched = mod.schedules.at(0);
  for (int64_t K : {64, 129}) {
    const encoder::System sys = cake::testing::build(sched, cake::testing::bind(sched, {{"n_slices", 1}, {"K", K}}));
    const Model m(sys);
    size_t states = 0;
    EXPECT_EQ(firstGenerationDependence(m, {1, static_cast<int32_t>((K + 63) / 64 + 3)}, 200000,
                                        [&](const State&) { ++states; }),
              "")
        << K;
    EXPECT_LT(states, 200000u) << K;  // the whole graph, not the cap
    std::printf("Marlin one slice, K = %lld: %zu states\n", static_cast<long long>(K), states);
  }
}

namespace trip_restart_rotate_test {

// Per warp, the generations of its reads (or writes) of red[0] in program
// order, in Marlin's system with `slices` slices built with or without the
// read caps.
std::map<std::string, std::vector<int64_t>> redZeroGenerations(int64_t slices, int64_t K, bool caps, bool writes) {
  const ir::Module mod = compile(cake::testing::corpusText(kMarlinFixed));
  const ir::Schedule& s = mod.schedules.at(0);
  int red = -1;
  for (size_t v = 0; v < s.views.size(); ++v)
    if (s.views[v].name == "red") red = static_cast<int>(v);
  std::string err;
  const encoder::EvalHook none = [](const ir::Expr&, const ir::EvalEnv&) -> std::optional<int64_t> {
    return std::nullopt;
  };
  const auto sys = encoder::buildSystemHooked(s, cake::testing::bind(s, {{"n_slices", slices}, {"K", K}}),
                                              ir::Target::Unspecified, none, &err, {.cap_read_generations = caps});
  std::map<std::string, std::vector<int64_t>> out;
  if (!sys) return out;
  for (const encoder::Process& p : sys->procs)
    for (const encoder::Instr& in : p.program)
      for (const encoder::Access& a : in.accesses)
        if (a.view == red && a.index == 0 && a.write == writes) out[p.name].push_back(a.gen);
  return out;
}

}  // namespace trip_restart_rotate_test

// What item 4 (the read-back, not built) must argue, measured: warp 1 reads
// red[0] once per slice after warp 2 wrote it once per slice; the read
// means 0, 0, 1, 2 in slices 0..3 (a read-back from slice 1 on: max(epoch,
// own_gen)), the data it meets is 0, 1, 2, 3; so the slack is 0 in slice 0
// and 1 after it: the meaning is affine only from the second slice, and
// one slice does not show the offset. Without the caps a read-back that
// covers the read means its own data since session 48 (kOwnDataOnly,
// docs/z3.md "The empty tiles' copies read without the caps"), so it
// finds warp 2's data stale there: item 4 would need the counted meaning
// back, as a build semantics of its own.
TEST(TripRestartRotate, MarlinReadBackIsAffineFromTheSecondSlice) {
  using namespace trip_restart_rotate_test;
  for (bool caps : {false, true}) {
    SCOPED_TRACE(caps);
    const auto reads = redZeroGenerations(4, 64, caps, false);
    const auto writes = redZeroGenerations(4, 64, caps, true);
    using Gens = std::vector<int64_t>;
    const int64_t back = encoder::kOwnDataOnly;
    EXPECT_EQ(reads.at("warps[1]"), caps ? (Gens{0, 0, 1, 2}) : (Gens{0, back, back, back}));  // the read-back
    EXPECT_EQ(reads.at("warps[0]"), (Gens{0, 1, 2, 3}));  // a plain read, after warp 1's write
    EXPECT_EQ(writes.at("warps[2]"), (Gens{0, 1, 2, 3}));
    EXPECT_EQ(writes.at("warps[1]"), (Gens{0, 1, 2, 3}));
  }
}
