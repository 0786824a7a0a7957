// ir/trace.h and ir/graph.h on hand-made traces and schedules: step kinds,
// handoffs, the relevant-steps slice, the text views, the SVG and the
// handoff graph with its cycle search (Boost.Graph).
#include <set>

#include <gtest/gtest.h>

#include "ir/diagnostic.h"
#include "ir/frontend.h"
#include "ir/graph.h"
#include "ir/rule_ids.h"
#include "ir/trace.h"
#include "tests/common/ring_schedule.h"

namespace cake::ir {
namespace {

TraceStep step(StepKind k, std::string role, std::string barrier = "", int slot = -1,
               std::optional<long long> completed = std::nullopt, std::optional<long long> iter = std::nullopt) {
  TraceStep t;
  t.kind = k;
  t.role = std::move(role);
  t.barrier = std::move(barrier);
  t.slot = slot;
  t.completed = completed;
  t.iteration = iter;
  t.op = std::string(stepKindName(k)) + "(...)";
  t.event = "does " + std::string(stepKindName(k));
  return t;
}

// load fills slot 0 (expect-tx, issue, landing), math waits for it, reads,
// releases slot 0; load waits for the release and refills slot 0 (iter 2),
// with an unrelated fence of math in between.
std::vector<TraceStep> ringTrace() {
  std::vector<TraceStep> t = {
      step(StepKind::ExpectTx, "load", "full", 0, 0, 0),    // 0
      step(StepKind::TmaIssue, "load", "full", 0, {}, 0),   // 1
      step(StepKind::TmaLand, "load", "full", 0, 1, 0),     // 2
      step(StepKind::WaitPass, "math", "full", 0, 1, 0),    // 3
      step(StepKind::Fence, "math"),                        // 4
      step(StepKind::MmaIssue, "math", "", -1, {}, 0),      // 5
      step(StepKind::Arrive, "math", "empty", 0, 1, 0),     // 6
      step(StepKind::WaitPass, "load", "empty", 0, 1, 0),   // 7
      step(StepKind::ExpectTx, "load", "full", 0, 1, 2),    // 8
      step(StepKind::TmaIssue, "load", "full", 0, {}, 2),   // 9
  };
  for (int i : {1, 2, 9}) t[i].op = "a.tma_load(...)";  // a landing names the op it issued
  return t;
}

TEST(TraceKinds, NamesAreUniqueAndParse) {
  std::set<std::string_view> names;
  for (StepKind k : allStepKinds()) {
    EXPECT_TRUE(names.insert(stepKindName(k)).second) << stepKindName(k);
    EXPECT_EQ(parseStepKind(stepKindName(k)), k);
  }
  EXPECT_FALSE(parseStepKind("arrives").has_value());
  EXPECT_TRUE(countsOnSlot(StepKind::TmaLand));
  EXPECT_FALSE(countsOnSlot(StepKind::TmaIssue));
}

TEST(TraceHandoffs, ArrivalsReleaseTheWaitOfTheirPhase) {
  std::vector<Handoff> hs = traceHandoffs(ringTrace());
  auto has = [&](size_t from, size_t to, Handoff::Kind k) {
    for (const Handoff& h : hs)
      if (h.from == from && h.to == to && h.kind == k) return true;
    return false;
  };
  EXPECT_TRUE(has(1, 2, Handoff::Kind::Landing));
  EXPECT_TRUE(has(0, 3, Handoff::Kind::Barrier));  // the expect-tx counted into phase 0
  EXPECT_TRUE(has(2, 3, Handoff::Kind::Barrier));  // the landing completed it
  EXPECT_TRUE(has(6, 7, Handoff::Kind::Barrier));
  EXPECT_FALSE(has(8, 3, Handoff::Kind::Barrier));  // phase 1's arrival releases no phase-0 wait
  EXPECT_EQ(hs.size(), 4u);
}

TEST(TraceSlice, KeepsTheChainBehindTheViolatingPair) {
  // the refill (9) races with math's MMA (5)
  std::vector<int> rel = relevantSteps(ringTrace(), {5, 9}, {});
  // the refill's wait (7) and its releasing arrival (6); the MMA's wait (3)
  // and the arrivals behind it (0, 2) with the landing's issue (1)
  EXPECT_EQ(rel, (std::vector<int>{0, 1, 2, 3, 5, 6, 7, 9}));
  // depth 0: the violating steps only
  EXPECT_EQ(relevantSteps(ringTrace(), {5, 9}, {}, 0), (std::vector<int>{5, 9}));
}

TEST(TraceSlice, BlockedWaitKeepsTheArrivalsItsPhaseGot) {
  std::vector<TraceStep> tr = {
      step(StepKind::Arrive, "a", "bar", 0, 0),   // counts into phase 0 (init_count 2: not complete)
      step(StepKind::Fence, "b"),
      step(StepKind::Fence, "a"),
  };
  TraceStep blocked = step(StepKind::WaitBlock, "b", "bar", 0);
  blocked.phase_meant = 0;
  EXPECT_EQ(relevantSteps(tr, {}, {blocked}), (std::vector<int>{0}));
}

TEST(TraceText, RelevantViewIsTaggedAndFullViewIsNot) {
  Finding f = makeFinding(Rule::SyncRace, {}, "race");
  f.trace = ringTrace();
  f.violating = {5, 9};
  f.relevant = relevantSteps(f.trace, f.violating, {});
  std::string relevant = renderText(f);
  EXPECT_NE(relevant.find("note: relevant steps: 8 of 10 (--full-trace shows every step)"), std::string::npos);
  EXPECT_NE(relevant.find("note: trace 10 [tma-issue, violating]: load does tma-issue a.tma_load(...)"),
            std::string::npos);
  EXPECT_NE(relevant.find("note: trace 4 [wait-pass]: math"), std::string::npos);
  EXPECT_EQ(relevant.find("trace 5 "), std::string::npos);  // the fence is not relevant
  std::string full = renderText(f, false, true);
  EXPECT_NE(full.find("note: trace 5: math does fence fence(...)"), std::string::npos);
  EXPECT_EQ(full.find("relevant steps"), std::string::npos);
  EXPECT_EQ(full.find("[tma-issue"), std::string::npos);
}

TEST(TraceJson, StepsHaveKindsAndTheSliceIsListed) {
  Finding f = makeFinding(Rule::SyncDeadlock, {}, "stuck");
  f.trace = {step(StepKind::Arrive, "a", "bar", 0, 0)};
  f.blocked = {step(StepKind::WaitBlock, "b", "bar", 0)};
  f.relevant = {0};
  nlohmann::json j = toJson(f);
  EXPECT_EQ(j["trace"][0]["kind"], "arrive");
  EXPECT_EQ(j["relevant"], nlohmann::json::array({0}));
  EXPECT_EQ(j["blocked"][0]["kind"], "wait-block");
  Finding plain = makeFinding(Rule::SyncDeadlock, {}, "no trace");
  EXPECT_FALSE(toJson(plain).contains("relevant"));
}

TEST(TraceSvg, LanesStepsArrowsAndEscaping) {
  Finding f = makeFinding(Rule::SyncRace, {}, "a <race> & \"more\"");
  f.trace = ringTrace();
  f.violating = {5, 9};
  f.relevant = relevantSteps(f.trace, f.violating, {});
  std::string svg = traceSvg(f);
  auto count = [&](std::string_view needle) {
    size_t n = 0;
    for (size_t at = svg.find(needle); at != std::string::npos; at = svg.find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("<g class=\"lane\""), 2u);
  EXPECT_EQ(count("<g class=\"step"), 10u);
  EXPECT_EQ(count("class=\"step relevant violating\""), 2u);
  EXPECT_EQ(count("<path class=\"handoff"), 4u);
  EXPECT_NE(svg.find("a &lt;race&gt; &amp; &quot;more&quot;"), std::string::npos);
  EXPECT_EQ(svg.find("<race>"), std::string::npos);
}

TEST(Graph, StrongComponentsFindCycles) {
  // 0 -> 1 -> 2 -> 0 is a cycle; 3 -> 0 leads into it; 4 loops on itself
  std::vector<bool> c = onCycle(5, {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {4, 4}});
  EXPECT_EQ(c, (std::vector<bool>{true, true, true, false, true}));
  EXPECT_EQ(onCycle(3, {{0, 1}, {1, 2}}), (std::vector<bool>{false, false, false}));
  EXPECT_TRUE(onCycle(0, {}).empty());
  Components comps = strongComponents(5, {{0, 1}, {1, 0}, {2, 3}, {3, 2}});
  EXPECT_EQ(comps.of[0], comps.of[1]);
  EXPECT_NE(comps.of[0], comps.of[2]);
}

TEST(HandoffGraph, EdgesFromProducerThroughBarrierToConsumerAndDeadlockCycle) {
  DiagnosticSink sink;
  auto m = compileModule(makeSourceFile("ring.cake", cake_test::kRingSchedule), {}, sink);
  ASSERT_TRUE(m) << (sink.findings().empty() ? "" : renderText(sink.findings().front()));
  HandoffGraph g;
  addToHandoffGraph(g, m->schedules[0], {});
  auto edge = [&](const std::string& from, const std::string& to, const std::string& kind) -> const HandoffGraph::Edge* {
    for (const auto& e : g.edges)
      if (g.nodes[e.from].name == from && g.nodes[e.to].name == to && e.kind == kind) return &e;
    return nullptr;
  };
  ASSERT_TRUE(edge("load", "full", "tma"));
  ASSERT_TRUE(edge("full", "use", "wait"));
  ASSERT_TRUE(edge("use", "empty", "arrive"));
  ASSERT_TRUE(edge("empty", "load", "wait"));
  EXPECT_EQ(g.edges.size(), 4u);
  for (const auto& e : g.edges) EXPECT_FALSE(e.cycle || e.blocked);  // a ring is no deadlock by itself
  std::string dot = handoffGraphDot(g);
  EXPECT_NE(dot.find("digraph"), std::string::npos);
  EXPECT_NE(dot.find("label=\"tma\""), std::string::npos);
  EXPECT_EQ(dot.find("cake_cycle"), std::string::npos);

  // both roles blocked, each on the barrier the other would arrive on
  Finding dl = makeFinding(Rule::SyncDeadlock, {}, "stuck");
  dl.blocked = {step(StepKind::WaitBlock, "load", "empty", 0), step(StepKind::WaitBlock, "use", "full", 0)};
  HandoffGraph d;
  addToHandoffGraph(d, m->schedules[0], {dl});
  for (const auto& e : d.edges) EXPECT_TRUE(e.cycle) << d.nodes[e.from].name << "->" << d.nodes[e.to].name;
  std::string ddot = handoffGraphDot(d);
  EXPECT_NE(ddot.find("cake_cycle=true"), std::string::npos);
  EXPECT_NE(ddot.find("cake_blocked=true"), std::string::npos);

  // only the consumer blocked: its wait is marked, there is no cycle
  Finding one = makeFinding(Rule::SyncDeadlock, {}, "stuck");
  one.blocked = {step(StepKind::WaitBlock, "use", "full", 0)};
  HandoffGraph o;
  addToHandoffGraph(o, m->schedules[0], {one});
  for (const auto& e : o.edges) {
    EXPECT_FALSE(e.cycle);
    EXPECT_EQ(e.blocked, o.nodes[e.from].name == "full" && o.nodes[e.to].name == "use");
  }
}

}  // namespace
}  // namespace cake::ir
