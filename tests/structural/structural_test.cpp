// Structural checks: struct.slot-out-of-range over constant loops (exact
// enumeration) and over symbolic loops, guards and parameters (Z3
// bit-vector proofs with a counterexample).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "checks/check.h"
#include "checks/structural.h"
#include "ir/frontend.h"

namespace cake {
namespace {

struct SlotRun {
  ir::DiagnosticSink sink;
  std::vector<checks::PropertyVerdict> verdicts;

  std::vector<const ir::Finding*> slotFindings() const {
    std::vector<const ir::Finding*> out;
    for (const auto& f : sink.findings())
      if (f.rule == "struct.slot-out-of-range") out.push_back(&f);
    return out;
  }
  const checks::PropertyVerdict* slotVerdict() const {
    for (const auto& v : verdicts)
      if (v.property == "struct.slot-out-of-range") return &v;
    return nullptr;
  }
  // The verdict's name ("proved", "counterexample", ...), "none" without one.
  std::string verdict() const {
    const auto* v = slotVerdict();
    return v ? std::string(checks::verdictName(v->kind)) : "none";
  }
  // The message of the one finding, which must be at `line`.
  std::string onlyFindingAt(int line) const {
    auto fs = slotFindings();
    EXPECT_EQ(fs.size(), 1u) << describe();
    if (fs.empty()) return "";
    EXPECT_EQ(fs[0]->range.line, line) << describe();
    return fs[0]->message;
  }
  std::string describe() const {
    std::string out;
    for (const auto& f : sink.findings())
      out += f.rule + " @" + std::to_string(f.range.line) + ": " + f.message + "\n";
    for (const auto& v : verdicts)
      out += "verdict " + v.property + " " + std::string(checks::verdictName(v.kind)) + ": " + v.detail + "\n";
    return out;
  }
};

std::optional<ir::Module> compile(const std::string& text) {
  ir::DiagnosticSink fe;
  auto mod = ir::compileModule(ir::makeSourceFile("test.cake", text), {}, fe);
  std::string errs;
  for (const auto& f : fe.findings()) errs += f.rule + ": " + f.message + "\n";
  if (!mod || mod->schedules.empty()) {
    ADD_FAILURE() << "front end rejected the schedule:\n" << errs << text;
    return std::nullopt;
  }
  return mod;
}

SlotRun check(const ir::Schedule& s) {
  SlotRun r;
  checks::runStructuralChecks(s, r.sink, {}, &r.verdicts);
  return r;
}

SlotRun check(const std::string& text) {
  auto mod = compile(text);
  return mod ? check(mod->schedules.front()) : SlotRun{};
}

// A 3-slot ring; `loop` heads the consumer's loop, `body` is its body
// (indented 12 spaces).
std::string ring(const std::string& body, const std::string& loop = "for k in lm.range(0, lm.cdiv(K, 64)):") {
  return R"(@cake.schedule(target="sm_90a")
def ring(lm, K: LM.i32):
    lm.assume(K > 0)
    producer = lm.role(warps=[0])
    consumer = lm.role(warps=[4, 5, 6, 7])
    full = lm.barrier(count=3, prod=[producer], cons=[consumer], init_count=1)
    with producer:
        for k in lm.range(0, lm.cdiv(K, 64)):
            lm.arrive(full, stage=k % 3)
    with consumer:
        )" + loop + "\n" + body;
}

constexpr int kBodyLine = 12;  // the first line of `body`

TEST(SlotRange, SymbolicLoopOutOfRangeHasWitness) {
  SlotRun r = check(ring("            lm.wait(full, stage=k % 4)\n"));
  auto fs = r.slotFindings();
  ASSERT_EQ(fs.size(), 1u) << r.describe();
  const ir::Finding& f = *fs[0];
  EXPECT_EQ(f.severity, ir::Severity::Error);
  EXPECT_EQ(f.range.line, kBodyLine);
  EXPECT_EQ(f.verdict, "counterexample");
  // The smallest witness: k = 3, and the smallest K with cdiv(K, 64) > 3.
  EXPECT_EQ(f.message, "stage=k % 4 is 3 for k = 3 (K = 193), outside the 3 slots [0, 3) of barrier 'full'")
      << f.message;
  ASSERT_TRUE(f.data.contains("counterexample")) << f.data.dump();
  EXPECT_EQ(f.data["counterexample"]["k"].get<int64_t>(), 3);
  EXPECT_EQ(f.data["counterexample"]["K"].get<int64_t>(), 193);
  EXPECT_EQ(f.subject["slot"].get<int64_t>(), 3);
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_EQ(f.notes[0].range.line, 6);  // the barrier's declaration
  EXPECT_EQ(r.verdict(), "counterexample") << r.describe();
}

TEST(SlotRange, SymbolicLoopInRangeIsProved) {
  SlotRun r = check(ring("            lm.wait(full, stage=k % 3)\n"));
  EXPECT_TRUE(r.slotFindings().empty()) << r.describe();
  ASSERT_EQ(r.verdict(), "proved") << r.describe();
  const std::string& detail = r.slotVerdict()->detail;
  EXPECT_NE(detail.find("symbolic"), std::string::npos) << detail;
  EXPECT_NE(detail.find("lm.assume(K > 0)"), std::string::npos) << detail;
}

TEST(SlotRange, GuardMakesItSafe) {
  SlotRun r = check(ring("            if k < 3:\n"
                         "                lm.wait(full, stage=k)\n"));
  EXPECT_TRUE(r.slotFindings().empty()) << r.describe();
  EXPECT_EQ(r.verdict(), "proved") << r.describe();
}

TEST(SlotRange, ElseBranchNegatesTheGuard) {
  SlotRun r = check(ring("            if k < 3:\n"
                         "                lm.wait(full, stage=k)\n"
                         "            else:\n"
                         "                lm.wait(full, stage=k - 1)\n"));
  std::string m = r.onlyFindingAt(kBodyLine + 3);
  EXPECT_NE(m.find("stage=k - 1 is 3 for k = 4 (K = 257)"), std::string::npos) << m;
}

TEST(SlotRange, LoopStepIsAPremise) {
  // k takes only even values: k % 4 is 0 or 2.
  SlotRun r = check(ring("            lm.wait(full, stage=k % 4)\n", "for k in lm.range(0, K, 2):"));
  EXPECT_TRUE(r.slotFindings().empty()) << r.describe();
  EXPECT_EQ(r.verdict(), "proved") << r.describe();
}

TEST(SlotRange, ParameterIndexOutsideLoops) {
  SlotRun r = check(ring("            lm.wait(full, stage=k % 3)\n"
                         "        lm.wait(full, stage=K - 1)\n"));
  std::string m = r.onlyFindingAt(kBodyLine + 1);
  EXPECT_NE(m.find("stage=K - 1 is 3 for K = 4,"), std::string::npos) << m;
}

TEST(SlotRange, ConstantLoopStaysExact) {
  SlotRun r = check(ring("            lm.wait(full, stage=k)\n", "for k in lm.range(0, 4):"));
  EXPECT_EQ(r.onlyFindingAt(kBodyLine), "stage=3 is outside the 3 slots [0, 3) of barrier 'full'");
  // The producer's symbolic loop needed the prover; the constant finding
  // counts in the same verdict.
  EXPECT_EQ(r.verdict(), "counterexample") << r.describe();
}

TEST(SlotRange, NoSolverVerdictWhenEverythingIsConstant) {
  SlotRun r = check(R"(@cake.schedule(target="sm_90a")
def ring(lm, K: LM.i32):
    producer = lm.role(warps=[0])
    full = lm.barrier(count=3, prod=[producer], cons=[producer], init_count=1)
    with producer:
        for k in lm.range(0, 6):
            lm.arrive(full, stage=k % 3)
            lm.wait(full, stage=k % 3)
)");
  EXPECT_TRUE(r.slotFindings().empty()) << r.describe();
  EXPECT_EQ(r.verdict(), "none") << r.describe();
}

TEST(SlotRange, ViewStageIsChecked) {
  std::string text = R"(@cake.schedule(target="sm_90a")
def ring(lm, A: LM.tma2d, K: LM.i32):
    lm.assume(K > 0)
    pool = lm.smem(49152)
    smem_a = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=3)
    producer = lm.role(warps=[0])
    full = lm.barrier(count=4, prod=[producer], cons=[producer], init_count=1)
    with producer:
        for k in lm.range(0, lm.cdiv(K, 64)):
            smem_a.tma_load(A, coords=(0, k * 64), stage=k % 4, barrier=full)
            lm.wait(full, stage=k % 4)
)";
  SlotRun r = check(text);
  std::string m = r.onlyFindingAt(10);
  EXPECT_NE(m.find("of view 'smem_a'"), std::string::npos) << m;
}

// Two consumer instances, each with two slots of a 4-slot ring, the slot
// picked by a parity of a running tile counter (a persistent kernel's store
// ring: `2 * lm.instance() + (n0 + t) % 2`, n0 a quotient of parameters).
std::string instanceSlots(const std::string& index, const std::string& trips = "lm.cdiv(M, G)") {
  return R"(@cake.schedule(target="sm_90a")
def ring(lm, M: LM.i32, G: LM.i32):
    lm.assume(M > 0)
    lm.assume(G > 0)
    producer = lm.role(warps=[0])
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)
    full = lm.barrier(count=4, prod=[producer], cons=[consumers], init_count=1)
    n0 = lm.cdiv(max(M - lm.block_idx(0), 0), G)
    with producer:
        for s in lm.range(0, 4):
            lm.arrive(full, stage=s)
    with consumers:
        for t in lm.range(0, )" + trips + "):\n            lm.wait(full, stage=" + index + ")\n";
}

TEST(SlotRange, IndexRangeFromItsSyntaxIsProved) {
  SlotRun r = check(instanceSlots("2 * lm.instance() + (n0 + t) % 2"));
  EXPECT_TRUE(r.slotFindings().empty()) << r.describe();
  EXPECT_EQ(r.verdict(), "proved") << r.describe();
}

TEST(SlotRange, IndexRangeFromItsSyntaxStillFindsAnOverflow) {
  // Instance 1 at an odd t: 3 * 1 + 1 = 4, outside [0, 4). The prover
  // decides it (a trip count M keeps its query fast; over n0 and
  // lm.cdiv(M, G) it times out, which is why the syntax is read first).
  SlotRun r = check(instanceSlots("3 * lm.instance() + t % 2", "M"));
  EXPECT_EQ(r.slotFindings().size(), 1u) << r.describe();
  EXPECT_EQ(r.verdict(), "counterexample") << r.describe();
}

TEST(SlotRange, UndecidedIndexMakesTheVerdictUnknown) {
  // An index the prover cannot translate (the front end would reject it:
  // a tensor parameter in an integer expression) is neither a finding nor
  // a pass.
  auto mod = compile(R"(@cake.schedule(target="sm_90a")
def ring(lm, A: LM.tma2d, K: LM.i32):
    producer = lm.role(warps=[0])
    full = lm.barrier(count=3, prod=[producer], cons=[producer], init_count=1)
    with producer:
        for k in lm.range(0, K):
            lm.wait(full, stage=k % 3)
)");
  ASSERT_TRUE(mod);
  ir::Schedule& s = mod->schedules.front();
  ir::Op& op = s.bodies.at(0).body.at(0).body.at(0).op;
  ASSERT_EQ(op.kind, ir::OpKind::Wait);
  auto a = std::make_shared<ir::Expr>();
  a->kind = ir::ExprKind::Param;
  a->index = 0;  // A
  op.sel.index = a;
  SlotRun r = check(s);
  EXPECT_TRUE(r.slotFindings().empty()) << r.describe();
  EXPECT_EQ(r.verdict(), "unknown") << r.describe();
  checks::CheckResult result;
  result.verdicts = r.verdicts;
  EXPECT_TRUE(result.undecided());
}

}  // namespace
}  // namespace cake
