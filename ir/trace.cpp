#include "ir/trace.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "ir/diagnostic.h"

namespace cake::ir {

namespace {

struct KindName {
  StepKind kind;
  std::string_view name;
};
constexpr KindName kKinds[] = {
#define CAKE_STEP_KIND_ROW(e, name) {StepKind::e, name},
    CAKE_STEP_KINDS(CAKE_STEP_KIND_ROW)
#undef CAKE_STEP_KIND_ROW
};

std::string instanceOf(const TraceStep& t) {
  return t.instance >= 0 ? fmt::format("{}[{}]", t.role, t.instance) : t.role;
}

// The arrivals of a trace per (barrier slot, phase counted into), and each
// slot's completed-phase count at the end. A step records the count after
// it; the count before an arrival is the last one recorded on its slot.
struct SlotLedger {
  using Key = std::pair<std::string, int>;  // barrier, slot
  std::map<std::pair<Key, long long>, std::vector<size_t>> arrivals;
  std::map<Key, long long> completed;        // at the end of the trace

  explicit SlotLedger(const std::vector<TraceStep>& trace) {
    for (size_t i = 0; i < trace.size(); ++i) {
      const TraceStep& t = trace[i];
      if (t.barrier.empty() || t.slot < 0) continue;
      Key k{t.barrier, t.slot};
      long long& c = completed[k];
      if (countsOnSlot(t.kind)) arrivals[{k, c}].push_back(i);
      if (t.completed) c = *t.completed;
    }
  }
  const std::vector<size_t>* of(const TraceStep& t, long long phase) const {
    auto it = arrivals.find({{t.barrier, t.slot}, phase});
    return it == arrivals.end() ? nullptr : &it->second;
  }
};

bool isNamedArrival(StepKind k) { return k == StepKind::NamedArrive || k == StepKind::NamedSync; }

// For a step of instance `inst` on named barrier `b` before step `before`:
// the latest arrival of every other instance on it.
std::vector<size_t> namedArrivals(const std::vector<TraceStep>& trace, const std::string& b, const std::string& inst,
                                  size_t before) {
  std::map<std::string, size_t> latest;
  for (size_t i = 0; i < before && i < trace.size(); ++i)
    if (isNamedArrival(trace[i].kind) && trace[i].barrier == b && instanceOf(trace[i]) != inst)
      latest[instanceOf(trace[i])] = i;
  std::vector<size_t> out;
  for (auto& [_, i] : latest) out.push_back(i);
  return out;
}

// The named barrier a passing lm.sync of instance `inst` at `at` waited on:
// the barrier of its latest named-sync step.
std::optional<size_t> syncOf(const std::vector<TraceStep>& trace, const std::string& inst, size_t at) {
  for (size_t i = at; i-- > 0;)
    if (trace[i].kind == StepKind::NamedSync && instanceOf(trace[i]) == inst) return i;
  return std::nullopt;
}

}  // namespace

std::string_view stepKindName(StepKind k) {
  for (const KindName& kn : kKinds)
    if (kn.kind == k) return kn.name;
  return "other";
}

std::optional<StepKind> parseStepKind(std::string_view name) {
  for (const KindName& kn : kKinds)
    if (kn.name == name) return kn.kind;
  return std::nullopt;
}

std::vector<StepKind> allStepKinds() {
  std::vector<StepKind> out;
  for (const KindName& kn : kKinds) out.push_back(kn.kind);
  return out;
}

bool countsOnSlot(StepKind k) {
  return k == StepKind::Arrive || k == StepKind::ExpectTx || k == StepKind::TmaLand || k == StepKind::MmaComplete;
}

std::string_view handoffKindName(Handoff::Kind k) {
  switch (k) {
    case Handoff::Kind::Barrier: return "barrier";
    case Handoff::Kind::Landing: return "landing";
    case Handoff::Kind::Completion: return "completion";
  }
  return "barrier";
}

std::vector<Handoff> traceHandoffs(const std::vector<TraceStep>& trace) {
  std::vector<Handoff> out;
  // per slot: the count before each step, to find the phase a wait saw complete
  std::map<SlotLedger::Key, long long> completed;
  std::map<std::pair<SlotLedger::Key, long long>, std::vector<size_t>> arrivals;
  // issues / commits waiting for their landing / completion, per (instance, op, iteration)
  using OpKey = std::tuple<std::string, std::string, long long>;
  std::map<OpKey, std::deque<size_t>> issued, committed;
  for (size_t i = 0; i < trace.size(); ++i) {
    const TraceStep& t = trace[i];
    OpKey op{instanceOf(t), t.range.valid() ? t.range.str() : t.op, t.iteration.value_or(-1)};
    auto pairWith = [&](std::map<OpKey, std::deque<size_t>>& open, Handoff::Kind kind) {
      auto it = open.find(op);
      if (it == open.end() || it->second.empty()) return;
      out.push_back({it->second.front(), i, kind});
      it->second.pop_front();
    };
    if (t.kind == StepKind::TmaIssue) issued[op].push_back(i);
    if (t.kind == StepKind::TmaLand) pairWith(issued, Handoff::Kind::Landing);
    if (t.kind == StepKind::MmaCommit && t.slot >= 0) committed[op].push_back(i);
    if (t.kind == StepKind::MmaComplete) pairWith(committed, Handoff::Kind::Completion);
    if (t.kind == StepKind::NamedPass)
      if (auto s = syncOf(trace, instanceOf(t), i))
        for (size_t a : namedArrivals(trace, trace[*s].barrier, instanceOf(t), i))
          out.push_back({a, i, Handoff::Kind::Barrier});
    if (t.barrier.empty() || t.slot < 0) continue;
    SlotLedger::Key k{t.barrier, t.slot};
    long long& c = completed[k];
    if (countsOnSlot(t.kind)) arrivals[{k, c}].push_back(i);
    if (t.kind == StepKind::WaitPass && t.completed && *t.completed > 0)
      for (size_t a : arrivals[{k, *t.completed - 1}]) out.push_back({a, i, Handoff::Kind::Barrier});
    if (t.completed) c = *t.completed;
  }
  return out;
}

std::vector<int> relevantSteps(const std::vector<TraceStep>& trace, const std::vector<int>& anchors,
                               const std::vector<TraceStep>& blocked, int depth) {
  std::vector<std::vector<std::pair<size_t, Handoff::Kind>>> incoming(trace.size());
  for (const Handoff& h : traceHandoffs(trace)) incoming[h.to].push_back({h.from, h.kind});
  // The synchronization that ordered step `at` in its instance: its last
  // passing wait (mbarrier or named) before it.
  auto lastSync = [&](const std::string& inst, size_t at) -> std::optional<size_t> {
    for (size_t i = std::min(at, trace.size()); i-- > 0;)
      if ((trace[i].kind == StepKind::WaitPass || trace[i].kind == StepKind::NamedPass) &&
          instanceOf(trace[i]) == inst)
        return i;
    return std::nullopt;
  };
  std::deque<std::pair<size_t, int>> work;
  for (int a : anchors)
    if (a >= 0 && static_cast<size_t>(a) < trace.size()) work.push_back({static_cast<size_t>(a), 0});
  const SlotLedger ledger(trace);
  for (const TraceStep& b : blocked) {
    const std::string inst = instanceOf(b);
    if (auto s = lastSync(inst, trace.size())) work.push_back({*s, 1});
    if (b.kind == StepKind::WaitBlock && b.slot >= 0) {
      // the arrivals its phase got (and, when it waits ahead, those of the phase in progress)
      auto at = ledger.completed.find({b.barrier, b.slot});
      long long now = at == ledger.completed.end() ? 0 : at->second;
      for (long long ph : {b.phase_meant.value_or(now), now})
        if (const auto* as = ledger.of(b, ph))
          for (size_t a : *as) work.push_back({a, 1});
    }
    if (b.kind == StepKind::NamedBlock) {
      // its own arrival (lm.sync's first half) and the others' on the barrier
      if (auto s = syncOf(trace, inst, trace.size())) work.push_back({*s, 0});
      for (size_t a : namedArrivals(trace, b.barrier, inst, trace.size())) work.push_back({a, 1});
    }
  }
  std::set<size_t> chosen;
  std::map<size_t, int> best;  // the shallowest depth each step was reached at
  while (!work.empty()) {
    auto [x, d] = work.front();
    work.pop_front();
    if (auto it = best.find(x); it != best.end() && it->second <= d) continue;
    best[x] = d;
    chosen.insert(x);
    if (d >= depth) continue;
    // an issue and its landing (a commit and its completion) are one handoff
    for (auto [from, kind] : incoming[x]) work.push_back({from, kind == Handoff::Kind::Barrier ? d + 1 : d});
    if (auto s = lastSync(instanceOf(trace[x]), x)) work.push_back({*s, d + 1});
  }
  return {chosen.begin(), chosen.end()};
}

// ------------------------------------------------------------------- SVG

namespace {

// Text of the input (names, ops, messages) as XML: printable, escaped.
std::string xmlEscape(std::string_view raw) { return markupEscape(printable(raw)); }

constexpr int kLaneW = 260, kLeft = 20, kTop = 78, kRowH = 24, kLabelMax = 34;

std::string shortOp(const std::string& op) {
  return op.size() <= kLabelMax ? op : op.substr(0, kLabelMax - 3) + "...";
}

std::string_view handoffColor(Handoff::Kind k) {
  switch (k) {
    case Handoff::Kind::Barrier: return "#1f77b4";
    case Handoff::Kind::Landing: return "#2ca02c";
    case Handoff::Kind::Completion: return "#9467bd";
  }
  return "#1f77b4";
}

}  // namespace

std::string traceSvg(const Finding& f) {
  // lanes: role instances in order of first appearance (blocked ones last)
  std::vector<std::string> lanes;
  auto laneOf = [&](const TraceStep& t) {
    std::string inst = instanceOf(t);
    auto it = std::find(lanes.begin(), lanes.end(), inst);
    if (it != lanes.end()) return static_cast<int>(it - lanes.begin());
    lanes.push_back(inst);
    return static_cast<int>(lanes.size()) - 1;
  };
  std::vector<int> lane;
  for (const TraceStep& t : f.trace) lane.push_back(laneOf(t));
  std::vector<int> blocked_lane;
  for (const TraceStep& t : f.blocked) blocked_lane.push_back(laneOf(t));
  const int rows = static_cast<int>(f.trace.size() + (f.blocked.empty() ? 0 : f.blocked.size() + 1));
  // the last lane's labels run past its edge: room for them on the right
  const int width = 2 * kLeft + std::max<int>(1, static_cast<int>(lanes.size())) * kLaneW + 100;
  const int height = kTop + rows * kRowH + 20;
  auto cx = [&](int l) { return kLeft + l * kLaneW + 14; };
  auto cy = [&](int row) { return kTop + row * kRowH + kRowH / 2; };
  auto in = [](const std::vector<int>& v, int i) { return std::find(v.begin(), v.end(), i) != v.end(); };
  const bool sliced = !f.relevant.empty() || !f.blocked.empty();

  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"monospace\" font-size=\"11\" data-rule=\"{2}\" data-steps=\"{3}\">\n",
      width, height, xmlEscape(f.rule), f.trace.size());
  out += "<defs>\n";
  for (Handoff::Kind k : {Handoff::Kind::Barrier, Handoff::Kind::Landing, Handoff::Kind::Completion})
    out += fmt::format(
        "<marker id=\"arrow-{0}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
        "orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"{1}\"/></marker>\n",
        handoffKindName(k), handoffColor(k));
  out += "</defs>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  std::string title = f.rule + ": " + f.message;
  if (title.size() > 150) title = title.substr(0, 147) + "...";
  out += fmt::format("<text class=\"title\" x=\"{}\" y=\"20\" font-size=\"13\" font-weight=\"bold\">{}</text>\n", kLeft,
                     xmlEscape(title));
  out += fmt::format(
      "<text class=\"legend\" x=\"{}\" y=\"38\" fill=\"#555555\">time runs down; arrows: barrier handoff (blue), TMA "
      "landing (green), MMA completion (purple); red: the violation</text>\n",
      kLeft);
  for (size_t l = 0; l < lanes.size(); ++l) {
    int x = kLeft + static_cast<int>(l) * kLaneW;
    out += fmt::format(
        "<g class=\"lane\" data-instance=\"{0}\"><rect x=\"{1}\" y=\"{2}\" width=\"{3}\" height=\"{4}\" "
        "fill=\"{5}\"/><text x=\"{6}\" y=\"{7}\" font-weight=\"bold\">{0}</text><line x1=\"{8}\" y1=\"{2}\" "
        "x2=\"{8}\" y2=\"{9}\" stroke=\"#cccccc\"/></g>\n",
        xmlEscape(lanes[l]), x, kTop - 6, kLaneW - 6, rows * kRowH + 12, l % 2 ? "#f7f7f7" : "#fbfbfb", x + 4,
        kTop - 12, cx(static_cast<int>(l)), kTop + rows * kRowH + 6);
  }
  // arrows under the steps
  for (const Handoff& h : traceHandoffs(f.trace)) {
    int l1 = lane[h.from], l2 = lane[h.to];
    int x1 = cx(l1), y1 = cy(static_cast<int>(h.from)), x2 = cx(l2), y2 = cy(static_cast<int>(h.to));
    bool relevant = !sliced || (in(f.relevant, static_cast<int>(h.from)) && in(f.relevant, static_cast<int>(h.to)));
    std::string d = l1 == l2 ? fmt::format("M {} {} C {} {}, {} {}, {} {}", x1 - 6, y1, x1 - 30, y1, x2 - 30, y2,
                                           x2 - 6, y2)
                             : fmt::format("M {} {} L {} {}", x1 + (x2 > x1 ? 6 : -6), y1, x2 + (x2 > x1 ? -7 : 7), y2);
    out += fmt::format(
        "<path class=\"handoff {0}\" data-from=\"{1}\" data-to=\"{2}\" d=\"{3}\" fill=\"none\" stroke=\"{4}\" "
        "stroke-width=\"1.5\" opacity=\"{5}\" marker-end=\"url(#arrow-{0})\"/>\n",
        handoffKindName(h.kind), h.from, h.to, d, handoffColor(h.kind), relevant ? "0.9" : "0.25");
  }
  for (size_t i = 0; i < f.trace.size(); ++i) {
    const TraceStep& t = f.trace[i];
    const int idx = static_cast<int>(i);
    bool violating = in(f.violating, idx), relevant = !sliced || in(f.relevant, idx);
    std::string cls = std::string("step") + (relevant ? " relevant" : "") + (violating ? " violating" : "");
    std::string color = violating ? "#d62728" : relevant ? "#000000" : "#aaaaaa";
    out += fmt::format(
        "<g class=\"{0}\" data-index=\"{1}\" data-kind=\"{2}\" data-instance=\"{3}\"><title>{4}</title>"
        "<circle cx=\"{5}\" cy=\"{6}\" r=\"{7}\" fill=\"{8}\"/><text x=\"{9}\" y=\"{10}\" fill=\"{8}\"{11}>{12} {2} "
        "{13}</text></g>\n",
        cls, i, stepKindName(t.kind), xmlEscape(instanceOf(t)), xmlEscape(traceStepText(t)), cx(lane[i]), cy(idx),
        violating ? 7 : 5, color, cx(lane[i]) + 12, cy(idx) + 4, violating ? " font-weight=\"bold\"" : "", i + 1,
        xmlEscape(shortOp(t.op)));
  }
  for (size_t b = 0; b < f.blocked.size(); ++b) {
    const TraceStep& t = f.blocked[b];
    int row = static_cast<int>(f.trace.size() + 1 + b);
    out += fmt::format(
        "<g class=\"step blocked violating\" data-kind=\"{0}\" data-instance=\"{1}\"><title>{2}</title>"
        "<circle cx=\"{3}\" cy=\"{4}\" r=\"7\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\" "
        "stroke-dasharray=\"3 2\"/><text x=\"{5}\" y=\"{6}\" fill=\"#d62728\" font-weight=\"bold\">blocked {0} "
        "{7}</text></g>\n",
        stepKindName(t.kind), xmlEscape(instanceOf(t)), xmlEscape(traceStepText(t)), cx(blocked_lane[b]), cy(row),
        cx(blocked_lane[b]) + 12, cy(row) + 4, xmlEscape(shortOp(t.op)));
  }
  out += "</svg>\n";
  return out;
}

}  // namespace cake::ir
