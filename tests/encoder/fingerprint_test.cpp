// The bounded check skips a binding whose system has the fingerprint of one
// it already explored (checks/model_check.cpp `fingerprint`). A field that
// an engine reads but the fingerprint leaves out makes two different
// systems look alike, and the second is never explored: a broken schedule
// exits 0 (helper attack3, session 26: register `init=` hazards, proxies,
// async flags and grid-dependency accesses were left out, and `init=(k ==
// T // 500)` was never run at T = 500).
//
// Two guards:
//  * each field the fingerprint hashes is changed in turn on a real system,
//    and the fingerprint must change;
//  * the size of every struct of encoder/system.h is pinned (on the x86-64
//    libstdc++ build CI uses). A new field changes it, and the message says
//    what to do: hash it in `fingerprint` if an engine reads it, then
//    update the size here.
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "checks/model_check.h"
#include "test_util.h"

using namespace cake;

namespace fingerprint_test {

#if defined(__x86_64__) && defined(__GLIBCXX__)
#define CAKE_FINGERPRINT_SIZE(T, N)                                                                     \
  static_assert(sizeof(encoder::T) == (N), #T " changed: if an engine reads the new field, hash it in " \
                                             "fingerprint() (checks/model_check.cpp) and change it "   \
                                             "below; then update this size")
CAKE_FINGERPRINT_SIZE(Access, 168);
CAKE_FINGERPRINT_SIZE(Instr, 200);
CAKE_FINGERPRINT_SIZE(Instr::RegsHazard, 64);
CAKE_FINGERPRINT_SIZE(Process, 80);
CAKE_FINGERPRINT_SIZE(BarrierSlot, 48);
CAKE_FINGERPRINT_SIZE(NamedBarrier, 40);
CAKE_FINGERPRINT_SIZE(MemSpace, 72);
CAKE_FINGERPRINT_SIZE(System, 432);  // regs_digests, regs_lost_at_exit: no engine reads them (a proof's true runs only)
#undef CAKE_FINGERPRINT_SIZE
#endif

using Change = std::pair<std::string, std::function<void(encoder::System&)>>;

// The first instruction of the system with an access, and its first access.
encoder::Instr& withAccess(encoder::System& sys) {
  for (auto& p : sys.procs)
    for (auto& in : p.program)
      if (!in.accesses.empty()) return in;
  throw std::logic_error("no instruction with an access");
}

std::vector<Change> changes() {
  auto proc = [](encoder::System& s) -> encoder::Process& { return s.procs.front(); };
  auto ins = [](encoder::System& s) -> encoder::Instr& { return s.procs.front().program.front(); };
  auto acc = [](encoder::System& s) -> encoder::Access& { return withAccess(s).accesses.front(); };
  auto hz = [](encoder::System& s) -> encoder::Instr::RegsHazard& { return s.procs.front().program.front().regs_hazard; };
  return {
      {"Process::role", [=](encoder::System& s) { proc(s).role += 1; }},
      {"Process::instance", [=](encoder::System& s) { proc(s).instance += 1; }},
      {"Process::cta", [=](encoder::System& s) { proc(s).cta += 1; }},
      {"Process::warps", [=](encoder::System& s) { proc(s).warps += 1; }},
      {"Process::grid_dep_wait_at", [=](encoder::System& s) { proc(s).grid_dep_wait_at += 1; }},
      {"Process::program (one more instruction)", [=](encoder::System& s) { proc(s).program.push_back({}); }},
      {"Instr::kind", [=](encoder::System& s) {
         ins(s).kind = ins(s).kind == encoder::InstrKind::Fence ? encoder::InstrKind::Generic : encoder::InstrKind::Fence;
       }},
      {"Instr::slot", [=](encoder::System& s) { ins(s).slot += 1; }},
      {"Instr::phase", [=](encoder::System& s) { ins(s).phase += 1; }},
      {"Instr::count", [=](encoder::System& s) { ins(s).count += 1; }},
      {"Instr::bytes", [=](encoder::System& s) { ins(s).bytes += 1; }},
      {"Instr::pending", [=](encoder::System& s) { ins(s).pending += 1; }},
      {"Instr::named", [=](encoder::System& s) { ins(s).named += 1; }},
      {"Instr::derived", [=](encoder::System& s) { ins(s).derived = !ins(s).derived; }},
      {"Instr::grid_dep_early", [=](encoder::System& s) { ins(s).grid_dep_early += 1; }},
      {"RegsHazard::regs_space", [=](encoder::System& s) { hz(s).regs_space += 1; }},
      {"RegsHazard::element", [=](encoder::System& s) { hz(s).element += 1; }},
      {"RegsHazard::accumulates", [=](encoder::System& s) { hz(s).accumulates = !hz(s).accumulates; }},
      {"RegsHazard::stored", [=](encoder::System& s) { hz(s).stored = !hz(s).stored; }},
      {"Instr::accesses (one more)", [=](encoder::System& s) { withAccess(s).accesses.push_back({}); }},
      {"Access::space", [=](encoder::System& s) { acc(s).space += 1; }},
      {"Access::lo", [=](encoder::System& s) { acc(s).lo += 1; }},
      {"Access::hi", [=](encoder::System& s) { acc(s).hi += 1; }},
      {"Access::runs", [=](encoder::System& s) { acc(s).runs += 1; }},
      {"Access::stride", [=](encoder::System& s) { acc(s).stride += 1; }},
      {"Access::write", [=](encoder::System& s) { acc(s).write = !acc(s).write; }},
      {"Access::proxy", [=](encoder::System& s) {
         acc(s).proxy = acc(s).proxy == encoder::Proxy::Async ? encoder::Proxy::Generic : encoder::Proxy::Async;
       }},
      {"Access::async", [=](encoder::System& s) { acc(s).async = !acc(s).async; }},
      {"Access::view", [=](encoder::System& s) { acc(s).view += 1; }},
      {"Access::index", [=](encoder::System& s) { acc(s).index += 1; }},
      {"Access::gen", [=](encoder::System& s) { acc(s).gen += 1; }},
      {"Access::stage_like", [=](encoder::System& s) { acc(s).stage_like = !acc(s).stage_like; }},
      {"Access::view_written", [=](encoder::System& s) { acc(s).view_written = !acc(s).view_written; }},
      {"BarrierSlot::barrier", [](encoder::System& s) { s.slots.front().barrier += 1; }},
      {"BarrierSlot::slot", [](encoder::System& s) { s.slots.front().slot += 1; }},
      {"BarrierSlot::cta", [](encoder::System& s) { s.slots.front().cta += 1; }},
      {"BarrierSlot::init_count", [](encoder::System& s) { s.slots.front().init_count += 1; }},
      {"System::named (one more)", [](encoder::System& s) { s.named.push_back({}); }},
      {"NamedBarrier::index", [](encoder::System& s) {
         s.named.push_back({});
         s.named.back().index += 7;
       }},
      {"NamedBarrier::expected_warps", [](encoder::System& s) {
         s.named.push_back({});
         s.named.back().expected_warps += 3;
       }},
      {"MemSpace::kind", [](encoder::System& s) {
         auto& k = s.spaces.front().kind;
         k = k == encoder::MemSpace::Kind::Tmem ? encoder::MemSpace::Kind::Smem : encoder::MemSpace::Kind::Tmem;
       }},
      {"MemSpace::index", [](encoder::System& s) { s.spaces.front().index += 1; }},
      {"MemSpace::process", [](encoder::System& s) { s.spaces.front().process += 1; }},
      {"MemSpace::cta", [](encoder::System& s) { s.spaces.front().cta += 1; }},
      {"System::ctas", [](encoder::System& s) { s.ctas += 1; }},
      {"System::slots_per_cta", [](encoder::System& s) { s.slots_per_cta += 1; }},
      {"System::named_per_cta", [](encoder::System& s) { s.named_per_cta += 1; }},
      {"System::cluster_named", [](encoder::System& s) { s.cluster_named += 1; }},
  };
}

// The NamedBarrier changes push a barrier and change it: they are compared
// with the system plus one default named barrier.
TEST(Fingerprint, EveryFieldAnEngineReadsChangesIt) {
  const ir::Module mod = cake::testing::compile(cake::testing::kMainloop);
  ASSERT_FALSE(mod.schedules.empty());
  const ir::Schedule& s = mod.schedules.front();
  const encoder::System base = cake::testing::build(s, cake::testing::bind(s, {{"K", 3}}));
  ASSERT_FALSE(base.procs.empty());
  ASSERT_FALSE(base.slots.empty());
  ASSERT_FALSE(base.spaces.empty());
  const uint64_t h0 = checks::systemFingerprint(base);
  encoder::System same = base;
  EXPECT_EQ(checks::systemFingerprint(same), h0);  // a copy hashes alike

  encoder::System one_more_named = base;
  one_more_named.named.push_back({});
  const uint64_t h_named = checks::systemFingerprint(one_more_named);
  for (const auto& [field, change] : changes()) {
    encoder::System sys = base;
    change(sys);
    const bool named_field = field.rfind("NamedBarrier::", 0) == 0;
    EXPECT_NE(checks::systemFingerprint(sys), named_field ? h_named : h0) << field << " is not in the fingerprint";
  }
}

// Texts (names, `what`), source pointers and the build-only fields do not
// change what an engine does: they stay out, so that two bindings whose
// systems differ only there are explored once.
TEST(Fingerprint, NamesAndBuildOnlyFieldsAreLeftOut) {
  const ir::Module mod = cake::testing::compile(cake::testing::kMainloop);
  ASSERT_FALSE(mod.schedules.empty());
  const ir::Schedule& s = mod.schedules.front();
  const encoder::System base = cake::testing::build(s, cake::testing::bind(s, {{"K", 3}}));
  encoder::System sys = base;
  sys.procs.front().name += "'";
  sys.slots.front().name += "'";
  withAccess(sys).accesses.front().what += "'";
  withAccess(sys).accesses.front().gen_returns += 5;
  sys.replace_hits += 1;
  EXPECT_EQ(checks::systemFingerprint(sys), checks::systemFingerprint(base));
}

}  // namespace fingerprint_test
