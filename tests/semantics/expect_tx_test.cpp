// One semantics for what is verified and what is emitted: the derived
// expect_tx arrivals of the model (encoder/system.cpp) and of the lowered
// CUDA (lowering/emit_kernel.cpp) come from one plan (ir/expect_tx.h). For
// every hand-written corpus schedule that lowers, each derived
// arrive.expect_tx in the .cu announces the bytes the model's derived
// ExpectTx announces at the same source line, and the model derives one
// exactly where the .cu does.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "encoder/system.h"
#include "encoder/system_hook.h"
#include "ir/expect_tx.h"
#include "ir/frontend.h"
#include "lowering/lower.h"
#include "tests/common/corpus_files.h"

using namespace cake;
namespace fs = std::filesystem;

namespace {

using test::readText;
using test::sourceDir;

using TxByLine = std::map<int, std::set<int64_t>>;   // source line of the batch's first load -> bytes

// The derived arrive.expect_tx lines of the lowered source, keyed by the
// source line of the op they precede (the `// FILE:LINE  op` comment).
TxByLine loweredTx(const std::string& cu) {
  static const std::regex where(R"(^\s*// \S+:(\d+)  )");
  // (the barrier address may hold commas: `cake_cdiv(K, 64)` in a ring index)
  static const std::regex tx(R"(cake_mbar_arrive_expect_tx\(.*, (\d+)\);  // derived)");
  TxByLine out;
  int line = -1;
  std::istringstream in(cu);
  std::string l;
  std::smatch m;
  // Each regex only on the lines that hold its literal start: over every
  // line of the lowered corpus they were 1.7 of the test's 10.9 CPU s
  // (docs/ci.md, session 46).
  auto commentLine = [](const std::string& s) {
    const size_t first = s.find_first_not_of(" \t\r\f\v");
    return first != std::string::npos && s.compare(first, 3, "// ") == 0;
  };
  while (std::getline(in, l)) {
    if (commentLine(l) && std::regex_search(l, m, where)) line = std::stoi(m[1]);
    else if (l.find("cake_mbar_arrive_expect_tx(") != std::string::npos && std::regex_search(l, m, tx))
      out[line].insert(std::stoll(m[1]));
  }
  return out;
}

// A binding that satisfies the schedule's assumptions (every i32 parameter
// the same value), or nullopt.
std::optional<encoder::Binding> someBinding(const ir::Schedule& s) {
  return encoder::uniformBinding(s, {256, 512, 1024, 4096, 8192, 192, 128, 64});
}

TxByLine modelTx(const encoder::System& sys) {
  TxByLine out;
  for (const auto& p : sys.procs)
    for (const auto& in : p.program)
      if (in.kind == encoder::InstrKind::ExpectTx && in.derived && in.stmt) out[in.stmt->range.line].insert(in.bytes);
  return out;
}

}  // namespace

TEST(ExpectTx, LoweredDerivedBytesEqualTheModels) {
  int compared = 0, arrivals = 0;
  std::vector<std::string> failures;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(sourceDir()) / "corpus")) {
    if (e.path().extension() != ".cake" || e.path().string().find("/mutants/") != std::string::npos) continue;
    const std::string text = readText(e.path());
    ir::DiagnosticSink sink;
    auto m = ir::compileModule(ir::makeSourceFile(e.path().string(), text), {}, sink);
    if (!m) continue;
    for (const auto& s : m->schedules) {
      lowering::LowerResult lr = lowering::lowerToCuda(s, {});
      if (!lr.ok) continue;
      auto b = someBinding(s);
      if (!b) continue;
      std::string err;
      // Read caps off (BuildSemantics): the test compares arrival bytes,
      // which the reads' meaning never touches, and the caps' pairing of
      // reads with writes was two thirds of its time (docs/ci.md, session 36).
      auto sys = encoder::buildSystemHooked(s, *b, lr.target, {}, &err, encoder::BuildSemantics{false});
      if (!sys) continue;
      TxByLine low = loweredTx(lr.source), model = modelTx(*sys);
      // The model only has the arrivals the binding reaches; the .cu has
      // every one. Where the model has one, the .cu has it with the same
      // bytes; a .cu arrival the model never issued must be unreachable.
      for (const auto& [line, bytes] : model) {
        auto it = low.find(line);
        if (it == low.end() || it->second != bytes)
          failures.push_back(fmt::format("{} '{}' line {}: model announces {} bytes, the lowered code {}",
                                         e.path().string(), s.name, line, fmt::join(bytes, "/"),
                                         it == low.end() ? "nothing" : fmt::format("{}", fmt::join(it->second, "/"))));
      }
      std::set<int> loaded;   // lines of TMA loads the model's binding reaches
      for (const auto& proc : sys->procs)
        for (const auto& in : proc.program)
          if (in.kind == encoder::InstrKind::TmaLoad) loaded.insert(in.stmt->range.line);
      for (const auto& [line, bytes] : low)
        if (!model.count(line) && loaded.count(line))
          failures.push_back(fmt::format("{} '{}' line {}: the lowered code announces {} bytes, the model nothing",
                                         e.path().string(), s.name, line, fmt::join(bytes, "/")));
      ++compared;
      for (const auto& [line, bytes] : low) arrivals += static_cast<int>(bytes.size());
    }
  }
  std::printf("compared %d lowered schedules, %d derived expect_tx arrivals\n", compared, arrivals);
  EXPECT_GT(compared, 50);
  EXPECT_GT(arrivals, 50);
  for (const auto& f : failures) ADD_FAILURE() << f;
}

// The plan itself: consecutive loads with the same barrier and selector
// share one arrival; a compound statement or a wait on the barrier ends a
// batch; a role with its own lm.expect_tx on its barrier gets none.
TEST(ExpectTx, PlanBatchesStraightLineLoads) {
  const char* text = R"(@cake.schedule(target="sm_90a")
def k(lm, A: LM.tma2d, B: LM.tma2d, K: LM.i32):
    pool = lm.smem(65536)
    a = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    b = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2)
    load = lm.role(warps=[0])
    load2 = lm.role(warps=[1])
    use = lm.role(warps=[4, 5, 6, 7])
    full = lm.barrier(count=2, prod=[load], cons=[use], init_count=1)
    full2 = lm.barrier(count=2, prod=[load2], cons=[use], init_count=1)
    with load:
        for k in lm.range(0, K):
            a.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)
            b.tma_load(B, coords=(0, k * 64), iter=k, barrier=full)
            if k > 0:
                a.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)
    with load2:
        for k in lm.range(0, K):
            lm.expect_tx(full2, 8192, iter=k)
            a.tma_load(A, coords=(0, k * 64), iter=k, barrier=full2)
    with use:
        for k in lm.range(0, K):
            lm.wait(full, iter=k)
            lm.wait(full2, iter=k)
)";
  ir::DiagnosticSink sink;
  auto m = ir::compileModule(ir::makeSourceFile("plan.cake", text), {}, sink);
  ASSERT_TRUE(m.has_value());
  const ir::Schedule& s = m->schedules[0];
  ir::TxPlan plan = ir::planDerivedTx(s);
  ASSERT_EQ(plan.batches.size(), 2u);
  EXPECT_EQ(plan.batches[0].loads.size(), 2u);   // lines 13 and 14
  EXPECT_EQ(plan.batches[0].loads[0]->range.line, 13);
  EXPECT_EQ(plan.batches[1].loads.size(), 1u);   // the guarded load, line 16
  EXPECT_EQ(plan.batches[1].loads[0]->range.line, 16);
  EXPECT_TRUE(plan.derived.count({0, 0}));
  EXPECT_FALSE(plan.derived.count({1, 1}));      // load2 announces its bytes itself
}

// A barrier that any role arms with lm.expect_tx derives no arrival for any
// role: FlashMLA's decode kernel has the warpgroup that waits on a tile's
// barrier arm it, while the TMA loads come from another role
// (corpus/basics/consumer_armed_barrier.cake). Under the old per-role rule the
// loader got a derived arrival too: two arrivals on an init_count=1 barrier
// and twice the bytes announced (a false sync.arrival-overflow and
// sync.tx-imbalance).
TEST(ExpectTx, ABarrierArmedByAnotherRoleDerivesNone) {
  const char* text = R"(@cake.schedule(target="sm_90a")
def k(lm, A: LM.tma2d, K: LM.i32):
    pool = lm.smem(32768)
    a = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    load = lm.role(warps=[0])
    use = lm.role(warps=[4, 5, 6, 7])
    full = lm.barrier(count=2, prod=[load, use], cons=[use], init_count=1)
    other = lm.barrier(count=2, prod=[load], cons=[use], init_count=1)
    with load:
        for k in lm.range(0, K):
            a.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)
            a.tma_load(A, coords=(0, k * 64), iter=k, barrier=other)
    with use:
        for k in lm.range(0, K):
            lm.expect_tx(full, 8192, iter=k)
            lm.wait(full, iter=k)
            lm.wait(other, iter=k)
)";
  ir::DiagnosticSink sink;
  auto m = ir::compileModule(ir::makeSourceFile("armed.cake", text), {}, sink);
  ASSERT_TRUE(m.has_value());
  const ir::TxPlan plan = ir::planDerivedTx(m->schedules[0]);
  EXPECT_FALSE(plan.derived.count({0, 0}));   // `use` arms `full`
  EXPECT_TRUE(plan.derived.count({0, 1}));    // nobody arms `other`
  ASSERT_EQ(plan.batches.size(), 1u);
  EXPECT_EQ(plan.batches[0].barrier, 1);
}
