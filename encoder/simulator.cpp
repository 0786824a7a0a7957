// Breadth-first exploration with a visited set, static findings, and
// replay of traces from any engine.
#include "encoder/simulator.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "encoder/proof_budget.h"
#include "encoder/sim_graph.h"
#include "encoder/sim_model.h"
#include "encoder/sim_por.h"
#include "encoder/sim_symmetry.h"

namespace cake::encoder {

using sim::Async;
using sim::Model;
using sim::State;

// ================================================================ engine.h bits

std::string_view outcomeName(Outcome o) {
  switch (o) {
    case Outcome::Pass: return "pass";
    case Outcome::Proved: return "proved";
    case Outcome::Violation: return "violation";
    case Outcome::Unknown: return "unknown";
  }
  return "unknown";
}

std::string stepToString(const System& sys, const Step& st) {
  switch (st.kind) {
    case Step::Kind::Exec:
      if (st.proc >= 0 && st.proc < static_cast<int>(sys.procs.size()) && st.pc >= 0 &&
          st.pc < static_cast<int>(sys.procs[st.proc].program.size()))
        return instrToString(sys, st.proc, st.pc);
      return fmt::format("exec proc {} pc {}", st.proc, st.pc);
    case Step::Kind::Land: return fmt::format("land: TMA load of proc {} pc {}", st.proc, st.pc);
    case Step::Kind::Complete: return fmt::format("complete: MMA group of proc {} committed at pc {}", st.proc, st.pc);
  }
  return "?";
}

bool endsRun(std::string_view rule) {
  return rule != "sync.race" && rule != "data.stale-read" && rule != "proxy.missing-fence" &&
         rule != "data.uninitialized" && rule != "data.stale-accumulator" &&
         rule != "data.discarded-product";
}

static bool anyEndsRun(const std::vector<Violation>& vs) {
  return std::any_of(vs.begin(), vs.end(), [](const Violation& v) { return endsRun(v.rule); });
}

static ProofEngine& proofEngineSlot() {
  static ProofEngine engine;
  return engine;
}
void setProofEngine(ProofEngine engine) { proofEngineSlot() = std::move(engine); }
const ProofEngine& proofEngine() { return proofEngineSlot(); }

// ================================================================ static findings

namespace {

// Per (slot, meant phase): the arrivals, transaction bytes and waits the
// program means for it.
struct PhasePlan {
  int64_t arrivals = 0, expected = 0, delivered = 0;
  std::vector<Site> arrivers, expects, loads, waits;
};

std::map<std::pair<int, int64_t>, PhasePlan> phasePlans(const System& sys) {
  std::map<std::pair<int, int64_t>, PhasePlan> plans;
  for (int p = 0; p < static_cast<int>(sys.procs.size()); ++p)
    for (int pc = 0; pc < static_cast<int>(sys.procs[p].program.size()); ++pc) {
      const Instr& in = sys.procs[p].program[pc];
      if (in.slot < 0) continue;
      PhasePlan& plan = plans[{in.slot, in.phase}];
      Site site{p, pc, ""};
      switch (in.kind) {
        case InstrKind::Arrive:
        case InstrKind::MmaCommit:
          plan.arrivals += in.count;
          plan.arrivers.push_back(site);
          break;
        case InstrKind::ExpectTx:
          plan.arrivals += 1;
          plan.expected += in.bytes;
          plan.arrivers.push_back(site);
          plan.expects.push_back(site);
          break;
        case InstrKind::TmaLoad:
          plan.delivered += in.bytes;
          plan.loads.push_back(site);
          break;
        case InstrKind::Wait: plan.waits.push_back(site); break;
        default: break;
      }
    }
  return plans;
}

// Notes naming the arrivals of a phase, one per distinct op.
std::vector<Site> distinctOps(const System& sys, const std::vector<Site>& sites, const std::string& what) {
  std::vector<Site> out;
  std::vector<const ir::Stmt*> seen;
  for (const Site& s : sites) {
    const ir::Stmt* st = sys.procs[s.proc].program[s.pc].stmt;
    if (std::find(seen.begin(), seen.end(), st) != seen.end()) continue;
    seen.push_back(st);
    int n = static_cast<int>(std::count_if(sites.begin(), sites.end(), [&](const Site& o) {
      return sys.procs[o.proc].program[o.pc].stmt == st;
    }));
    out.push_back({s.proc, s.pc, fmt::format("{} ({}x)", what, n)});
  }
  return out;
}

}  // namespace

std::vector<Violation> staticViolations(const System& sys) {
  std::vector<Violation> out;
  bool over = false, under = false, tx = false;
  for (const auto& [key, plan] : phasePlans(sys)) {
    auto [slot, phase] = key;
    const BarrierSlot& bs = sys.slots[slot];
    if (!over && plan.arrivals > bs.init_count) {
      over = true;
      Violation v;
      v.rule = "sync.arrival-overflow";
      v.message = phase < 0 ? fmt::format("{} arrival(s) on {} for phase {}: a phase nobody waits for",
                                          plan.arrivals, bs.name, phase)
                            : fmt::format("phase {} of {} gets {} arrivals, but the barrier expects {} "
                                          "(init_count): the extra ones complete a phase nobody meant to complete",
                                          phase, bs.name, plan.arrivals, bs.init_count);
      v.primary = plan.arrivers.back();  // the op that tips it over
      for (const Site& a : distinctOps(sys, plan.arrivers, "arrives here"))
        if (sys.procs[a.proc].program[a.pc].stmt != sys.procs[v.primary.proc].program[v.primary.pc].stmt)
          v.others.push_back(a);
      v.slot = slot;
      v.phase = phase;
      out.push_back(std::move(v));
    }
    // A wait on a negative phase (stage= with phase=-1: the ring starts
    // empty, IR.md "Slots and phases") needs no arrivals; whether it passes
    // where it should is what the runs decide (sync.lost-phase when the slot
    // already completed a phase).
    if (!under && phase >= 0 && !plan.waits.empty() && plan.arrivals < bs.init_count) {
      under = true;
      Violation v;
      v.rule = "sync.arrival-underflow";
      v.message = fmt::format("phase {} of {} gets {} arrival{}, but the barrier expects {} (init_count): the "
                              "phase never completes as meant and its waiters hang",
                              phase, bs.name, plan.arrivals, plan.arrivals == 1 ? "" : "s", bs.init_count);
      v.primary = plan.waits.front();
      v.others = distinctOps(sys, plan.arrivers, "arrives here");
      for (const Site& w : distinctOps(sys, plan.waits, "waits here"))  // other waits than the primary
        if (sys.procs[w.proc].program[w.pc].stmt != sys.procs[v.primary.proc].program[v.primary.pc].stmt)
          v.others.push_back(w);
      v.slot = slot;
      v.phase = phase;
      out.push_back(std::move(v));
    }
    if (!tx && (!plan.expects.empty() || !plan.loads.empty()) && plan.expected != plan.delivered) {
      tx = true;
      Violation v;
      v.rule = "sync.tx-imbalance";
      bool many = plan.expected > plan.delivered;
      v.message = fmt::format("phase {} of {} expects {} transaction bytes but its TMA loads deliver {}: {}", phase,
                              bs.name, plan.expected, plan.delivered,
                              many ? "the phase never completes" : "the phase completes before all data lands");
      v.primary = !plan.expects.empty() ? plan.expects.front() : plan.loads.front();
      v.others = distinctOps(sys, plan.loads, "loads here");
      v.slot = slot;
      v.phase = phase;
      out.push_back(std::move(v));
    }
  }
  return out;
}

// ================================================================ phase annotations

namespace {

// "phase 0 of b[0] gets 0 arrivals, but the barrier expects 1 (init_count)":
// what a static finding says the annotations mean, without its consequence.
std::string annotatedClause(const Violation& v) { return v.message.substr(0, v.message.find(": ")); }

Violation mismatchWarning(const System& sys, const std::vector<Violation>& statics, const std::optional<Landing>& l) {
  Violation w;
  w.rule = "sync.phase-annotation-mismatch";
  std::string what;
  if (l) {
    const Instr& in = sys.procs[l->proc].program[l->pc];
    w.primary = {l->proc, l->pc, ""};
    w.slot = in.slot;
    w.phase = l->meant;
    w.completed = l->landed;
    what = fmt::format("{} means phase {} of {}, but it lands in phase {}, the slot's current phase (the lowered "
                       "code names only the slot)",
                       opText(*sys.schedule, *in.stmt), l->meant, sys.slots[in.slot].name, l->landed);
  } else {
    w.primary = statics.front().primary;
    w.slot = statics.front().slot;
    w.phase = statics.front().phase;
  }
  std::string annotated;
  for (const Violation& v : statics) {
    annotated += (annotated.empty() ? "" : "; ") + annotatedClause(v);
    if (v.primary.proc >= 0 && !(v.primary.proc == w.primary.proc && v.primary.pc == w.primary.pc))
      w.others.push_back({v.primary.proc, v.primary.pc, "as annotated: " + annotatedClause(v)});
  }
  if (!annotated.empty()) what += (what.empty() ? "as annotated, " : "; as annotated, ") + annotated;
  w.message = what + ". Every run completes the phases its waits mean, so the program is correct as lowered; "
                     "make iter= / phase= name the phase the arrival lands in";
  return w;
}

}  // namespace

void resolveStatics(const System& sys, const std::vector<Violation>& statics, const std::optional<Landing>& landing,
                    std::vector<Violation>& violations, std::vector<Violation>& warnings) {
  if (violations.empty()) {
    if (!statics.empty() || landing) warnings.push_back(mismatchWarning(sys, statics, landing));
    return;
  }
  // Some run went wrong: each candidate is reported as the cause, before
  // what the runs met of its rule (a run's copy of it, traced, is kept).
  std::vector<Violation> out;
  auto ofRule = [&](const std::string& rule) {
    return std::find_if(violations.begin(), violations.end(), [&](const Violation& v) { return v.rule == rule; });
  };
  for (const Violation& c : statics) {
    auto it = ofRule(c.rule);
    bool copy = it != violations.end() && it->primary.proc == c.primary.proc && it->primary.pc == c.primary.pc &&
                it->message == c.message;
    out.push_back(copy ? *it : c);
  }
  for (Violation& v : violations)
    if (std::none_of(statics.begin(), statics.end(), [&](const Violation& c) { return c.rule == v.rule; }))
      out.push_back(std::move(v));
  std::stable_sort(out.begin(), out.end(),
                   [](const Violation& x, const Violation& y) { return x.trace.size() < y.trace.size(); });
  violations = std::move(out);
}

// ================================================================ exploration

namespace {

// Keeps the first (shortest) violation per rule.
class Findings {
 public:
  bool add(Violation v, const Trace& trace) {
    if (seen_.count(v.rule)) return false;
    seen_[v.rule] = true;
    v.trace = trace;
    list_.push_back(std::move(v));
    return true;
  }
  bool any() const { return !list_.empty(); }
  std::vector<Violation>& list() { return list_; }
 private:
  std::map<std::string, bool> seen_;
  std::vector<Violation> list_;
};

// The phases each arrival (an op of one unrolled program: proc, pc) was
// seen counting into, over every explored run. An arrival whose annotation
// is wrong in a way the user can fix lands in one other phase in every run
// (`iter=t + 1` on a one-slot ring: always phase t); one that lands in the
// phase it means in some runs and elsewhere in others (a cluster CTA a lap
// ahead of its peer, docs/known-limits.md) has no annotation that names
// its phase, so it is no warning.
class LandingLog {
 public:
  explicit LandingLog(const sim::Model& m) : seen_(m.P) {
    for (int p = 0; p < m.P; ++p) seen_[p].resize(m.programSize(p));
  }
  void note(const sim::Model& m, const State& s, const Step& st) {
    auto c = sim::landingPhase(m, s, st);
    if (!c) return;
    Seen& x = seen_[st.proc][st.pc];
    if (*c == m.instr(st.proc, st.pc).phase) {
      x.meant = true;
      return;
    }
    if (!x.other) {
      x.other = *c;
      order_.push_back({st.proc, st.pc, m.instr(st.proc, st.pc).phase, *c});
    } else if (*x.other != *c) {
      x.several = true;
    }
  }
  // Each pair's two processes seen alike: a run that lands p's arrival at
  // pc in some phase has an image (the pair swapped) that lands q's there.
  void symmetrize(const sim::Model& m, const std::vector<sim::SymPair>& pairs) {
    for (const sim::SymPair& sp : pairs)
      for (size_t pc = 0; pc < seen_[sp.p].size(); ++pc) {
        Seen &a = seen_[sp.p][pc], &b = seen_[sp.q][pc];
        Seen both;
        both.meant = a.meant || b.meant;
        both.several = a.several || b.several || (a.other && b.other && *a.other != *b.other);
        both.other = a.other ? a.other : b.other;
        const int at = static_cast<int>(pc);
        for (auto [proc, x] : {std::pair{sp.p, &a}, std::pair{sp.q, &b}})
          if (!x->other && both.other) order_.push_back({proc, at, m.instr(proc, at).phase, *both.other});
        a = b = both;
      }
  }

  // The first arrival seen in another phase that every run put in that one phase.
  std::optional<Landing> fixable() const {
    for (const Landing& l : order_) {
      const Seen& x = seen_[l.proc][l.pc];
      if (!x.meant && !x.several) return l;
    }
    return std::nullopt;
  }

 private:
  struct Seen {
    std::optional<int32_t> other;  // the first other phase it counted into
    bool several = false;          // ... and another one in some run
    bool meant = false;            // it counted into the phase it means in some run
  };
  std::vector<std::vector<Seen>> seen_;
  std::vector<Landing> order_;  // arrivals in the order first seen elsewhere
};

ReplayResult replayOn(const Model& m, const std::vector<Violation>& statics, const Trace& trace);

// The bounded check's interchangeable processes (docs/z3.md
// "Interchangeable processes in the bounded check"): each visited state is
// the smaller of a state and its images, and frame[n] the swaps that take
// node n's state to the run's own (those of the path to it, composed: the
// pairs are disjoint, so a mask). A trace is the path's steps each moved
// by its source's frame; a violation found at a moved state is the one
// the moved trace meets when replayed (its messages name the run's own
// processes).
class Frames {
 public:
  Frames(const Model& m, const sim::Graph& g, std::vector<sim::SymPair> pairs)
      : m_(m), g_(g), pairs_(std::move(pairs)), frame_{0} {}
  bool on() const { return !pairs_.empty(); }
  const std::vector<sim::SymPair>& pairs() const { return pairs_; }
  // Canonicalizes a successor of node `from` (before its insertion).
  void canonical(State& next) { applied_ = sim::canonicalUnderPairs(m_, pairs_, next); }
  // After the insertion of that successor as node `id`.
  void inserted(int from, bool fresh) {
    if (fresh) frame_.push_back(frame_[from] ^ applied_);
  }
  uint32_t of(int n) const { return on() ? frame_[n] : 0; }
  Step moved(const Step& st, uint32_t frame) const {
    Step out = st;
    out.proc = sim::imageOf(pairs_, frame, st.proc);
    return out;
  }
  Trace trace(int n) const {
    if (!on()) return g_.trace(n);
    std::vector<int> path;
    for (int k = n; k > 0; k = g_.parent(k)) path.push_back(k);
    Trace t = g_.trace(n);
    for (size_t i = 0; i < t.size(); ++i) t[i] = moved(t[i], frame_[g_.parent(path[path.size() - 1 - i])]);
    return t;
  }
  // v found at a state of frame `frame`, with its trace moved: its text
  // and sites as the replay of that trace meets them.
  void restate(Violation& v, uint32_t frame, const std::vector<Violation>& statics) const {
    if (!frame) return;
    ReplayResult rr = replayOn(m_, statics, v.trace);
    const Violation* best = nullptr;
    for (const Violation& r : rr.violations)
      if (r.rule == v.rule && (!best || r.trace.size() == v.trace.size())) best = &r;
    if (!best) return;  // (report() then says the counterexample did not replay)
    Trace t = std::move(v.trace);
    v = *best;
    v.trace = std::move(t);
  }

 private:
  const Model& m_;
  const sim::Graph& g_;
  std::vector<sim::SymPair> pairs_;
  std::vector<uint32_t> frame_;
  uint32_t applied_ = 0;
};

}  // namespace

ModelCheckResult explore(const System& sys, const ExploreOptions& opts) {
  auto start = std::chrono::steady_clock::now();
  ModelCheckResult res;
  res.engine = "explicit";
  Model m(sys);
  sim::Reducer reducer(m);
  // (the every-rule guarantee costs up to twice the CPU: only when asked)
  reducer.keepEveryRule(opts.more_depth >= everyRule().more_depth && opts.more_states >= everyRule().more_states);
  Findings found;
  std::vector<Violation> statics = staticViolations(sys);
  LandingLog landings(m);

  sim::Graph g;
  State init = sim::initialState(m);
  g.insert(init, -1, {});
  // (modelled clusters only, for now: elsewhere the pairs change which of
  // two mirror-image runs a finding is reported from, docs/z3.md)
  const bool pairs = opts.symmetry && statics.empty() && sys.ctas > 1;
  Frames frames(m, g, pairs ? sim::interchangeablePairs(m, nullptr) : std::vector<sim::SymPair>{});
  std::map<std::string, uint32_t> frame_of_rule;  // the frame each kept violation was found in
  auto keep = [&](Violation v, Trace t, uint32_t frame) {
    std::string rule = v.rule;
    if (found.add(std::move(v), t)) frame_of_rule[rule] = frame;
  };
  // ~bytes per visited state: the state, its node, hash and table entries
  uint64_t per_state = init.v.size() * 4 + 64 + 48;
  uint64_t max_states = std::min<uint64_t>(opts.max_states, uint64_t{opts.memory_mb} * 1024 * 1024 / per_state);
  bool budget = false;
  std::vector<Violation> here;
  int64_t first_depth = -1;  // depth of the first dynamic violation
  size_t first_states = 0;
  auto noteFirst = [&](size_t n) {
    if (first_depth < 0) { first_depth = g.depth(static_cast<int>(n)); first_states = g.size(); }
  };
  // With a work budget: what the states expanded so far cost (the weights of
  // ProofBudget::Tally), charged every 256 states and at the end.
  uint64_t instrs = 0;  // the programs' instructions, walked per expanded state
  for (int p = 0; p < m.P; ++p) instrs += static_cast<uint64_t>(m.programSize(p));
  size_t charged = 0;
  uint64_t charged_transitions = 0;
  auto charge = [&](size_t expanded) {
    if (!opts.budget) return;
    ProofBudget::Tally t;
    t.expanded = expanded - charged;
    t.expanded_instrs = t.expanded * instrs;
    t.offered = res.transitions - charged_transitions;
    t.words = t.offered * init.v.size();
    opts.budget->add(t);
    charged = expanded;
    charged_transitions = res.transitions;
  };
  std::string cut;  // why the work budget ended the search
  // The state expanded and its successor: buffers kept from state to state
  // (a fresh copy of each, a malloc and a free per transition, was a tenth
  // of a large race search's time).
  State s, next;
  Async a;          // (s's async part, decoded into storage kept the same way)
  size_t n = 0;     // states expanded (every one before index n)
  for (; n < g.size(); ++n) {
    if (n % 256 == 0) {
      if (opts.budget) {
        charge(n);
        cut = opts.budget->exhausted();
        if (g.size() > max_states || !cut.empty()) { budget = true; break; }
      } else {
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (g.size() > max_states || ms > opts.timeout_ms) { budget = true; break; }
      }
    }
    if (first_depth >= 0 && (opts.stop_at_first || g.depth(static_cast<int>(n)) > first_depth + opts.more_depth ||
                             g.size() > first_states + opts.more_states))
      break;
    g.stateInto(static_cast<int>(n), s);
    sim::decodeAsyncInto(m, s, a);
    std::vector<Step> enabled = sim::enabledSteps(m, s, a);
    here.clear();
    sim::stateViolations(m, s, a, enabled, statics, here);
    if (!here.empty() || sim::allFinished(m, s)) {
      if (!here.empty()) noteFirst(n);
      for (Violation& v : here) keep(std::move(v), frames.trace(static_cast<int>(n)), frames.of(static_cast<int>(n)));
      continue;  // a violating state ends its path (its rules all end runs); so does the exit
    }
    std::vector<Step> steps = opts.reduce ? reducer.reduce(s, a, enabled) : enabled;
    for (const Step& st : steps) {
      landings.note(m, s, st);
      next.v.assign(s.v.begin(), s.v.end());
      here.clear();
      sim::applyStep(m, next, a, st, here, nullptr);
      ++res.transitions;
      if (!here.empty()) {
        noteFirst(n);
        const uint32_t frame = frames.of(static_cast<int>(n));
        Trace t = frames.trace(static_cast<int>(n));
        t.push_back(frames.moved(st, frame));
        bool ends = anyEndsRun(here);
        for (Violation& v : here) keep(std::move(v), t, frame);
        if (ends) continue;  // a synchronization error ends its path; a data hazard does not (endsRun)
      }
      if (!frames.on()) {
        g.insert(next, static_cast<int>(n), st);
        continue;
      }
      frames.canonical(next);
      frames.inserted(static_cast<int>(n), g.insert(next, static_cast<int>(n), st).second);
    }
  }
  charge(n);
  res.states = g.size();
  for (Violation& v : found.list()) frames.restate(v, frame_of_rule[v.rule], statics);
  if (frames.on()) landings.symmetrize(m, frames.pairs());
  res.violations = std::move(found.list());
  std::stable_sort(res.violations.begin(), res.violations.end(),
                   [](const Violation& x, const Violation& y) { return x.trace.size() < y.trace.size(); });
  // an unfinished search cannot say every run is clean: the candidates then stay errors
  if (budget && res.violations.empty() && !statics.empty()) res.violations = statics;
  else resolveStatics(sys, statics, landings.fixable(), res.violations, res.warnings);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (budget) {
    if (!cut.empty())  // no seconds: the same text at any load
      res.cut = fmt::format("{} (explicit search, after {} states)", cut, res.states);
    else if (opts.budget)
      res.cut = fmt::format("state cap exceeded ({} states; limit {} states)", res.states, max_states);
    else
      res.cut = fmt::format("state budget exceeded ({} states, {:.1f} s; limits {} states, {} ms)", res.states,
                            res.seconds, max_states, opts.timeout_ms);
  }
  if (!res.violations.empty()) res.outcome = Outcome::Violation;
  else if (budget) {
    res.outcome = Outcome::Unknown;
    res.detail = res.cut;
  } else res.outcome = Outcome::Pass;
  return res;
}

// ================================================================ replay

namespace {

// Violations are recorded up to the run's end (endsRun); the steps after
// it are still checked for being enabled. One step of a replay, as
// replay() takes it: the lost phases of the state before it, whether it is
// enabled, and what it does. `record(here)` is given each batch of
// violations (the state's, with the trace before the step; the step's,
// with the step); false: the step is not enabled (nothing applied).
template <typename Record>
bool replayStep(const Model& m, const std::vector<Violation>& statics, State& s, const Step& st, StepInfo* info,
                std::vector<Violation>& here, Record&& record) {
  Async a = sim::decodeAsync(m, s);
  here.clear();
  sim::stateViolations(m, s, a, sim::enabledSteps(m, s, a), statics, here);
  std::erase_if(here, [](const Violation& v) { return v.rule != "sync.lost-phase"; });
  record(here, false);
  if (!sim::isEnabled(m, s, a, st)) return false;
  here.clear();
  sim::applyStep(m, s, a, st, here, info);
  record(here, true);
  return true;
}

// The violations of the state a replay ends in.
void finalViolations(const Model& m, const std::vector<Violation>& statics, const State& s,
                     std::vector<Violation>& here) {
  Async a = sim::decodeAsync(m, s);
  here.clear();
  sim::stateViolations(m, s, a, sim::enabledSteps(m, s, a), statics, here);
}

ReplayResult replayOn(const Model& m, const std::vector<Violation>& statics, const Trace& trace) {
  ReplayResult r;
  State s = sim::initialState(m);
  Trace done;
  auto record = [&](std::vector<Violation>& here) {
    if (r.ended_at >= 0) return;
    for (Violation& v : here) { v.trace = done; r.violations.push_back(std::move(v)); }
    if (anyEndsRun(r.violations)) r.ended_at = static_cast<int>(done.size());
  };
  std::vector<Violation> here;
  for (size_t i = 0; i < trace.size(); ++i) {
    StepInfo info;
    const bool enabled = replayStep(m, statics, s, trace[i], &info, here, [&](std::vector<Violation>& h, bool after) {
      if (after) done.push_back(trace[i]);
      record(h);
    });
    if (!enabled) {
      r.failed_step = static_cast<int>(i);
      r.error = fmt::format("step {} ({}) is not enabled", i, stepToString(m.sys, trace[i]));
      return r;
    }
    r.steps.push_back(std::move(info));
  }
  finalViolations(m, statics, s, here);
  record(here);
  r.valid = true;
  return r;
}

}  // namespace

ReplayResult replay(const System& sys, const Trace& trace) {
  const Model m(sys);
  return replayOn(m, staticViolations(sys), trace);
}

}  // namespace cake::encoder

namespace cake::encoder {

// Traces longer than this are shortened by chunks before step by step.
static constexpr size_t kChunkedFrom = 256;

namespace {

// The greedy shortening's question, whether the current trace less the
// steps [lo, hi) ends in a violation of `rule` (replay() valid, and a
// violation of the rule recorded at the shorter trace's full length),
// answered as replay() would, but on one model and from the state after the
// prefix [0, lo), which the shorter trace shares with the current one: the
// states after the current trace's prefixes are kept (every `stride_`-th;
// a removal keeps those up to lo). Before, each try built the model again
// and replayed the whole trace: a tenth of the corpus gate's CPU.
class Shortening {
 public:
  Shortening(const System& sys, const Trace& trace, std::string rule)
      : m_(sys), statics_(staticViolations(sys)), rule_(std::move(rule)), t_(trace) {
    // (at most 2^22 words of kept states: a trace thousands of steps long
    // keeps every few steps' state)
    const size_t words = std::max<size_t>(1, sim::initialState(m_).v.size());
    stride_ = std::max<size_t>(1, trace.size() * words >> 22);
    kept_.push_back({sim::initialState(m_), false});
  }
  const Trace& trace() const { return t_; }
  // Drops the steps [lo, hi) of the current trace if what is left ends in
  // the rule; whether it did.
  bool drop(size_t lo, size_t hi) {
    if (!endsWithout(lo, hi)) return false;
    t_.erase(t_.begin() + static_cast<long>(lo), t_.begin() + static_cast<long>(hi));
    kept_.resize(std::min(kept_.size(), lo / stride_ + 1));
    return true;
  }

 private:
  struct Point {
    State s;
    bool ended = false;          // a violation that ends the run was recorded
    size_t rule_at = SIZE_MAX;   // the trace length the last violation of the rule was recorded at
  };

  // A batch of violations recorded at trace length `len` (replay()'s record).
  void note(Point& p, const std::vector<Violation>& here, size_t len) const {
    if (p.ended) return;
    for (const Violation& v : here)
      if (v.rule == rule_) p.rule_at = len;
    p.ended = anyEndsRun(here);
  }

  // Steps t_[from, to) from p, the trace before t_[from] being `at` steps
  // long. False: a step is not enabled.
  bool run(Point& p, size_t from, size_t to, size_t at) {
    for (size_t i = from; i < to; ++i, ++at)
      if (!replayStep(m_, statics_, p.s, t_[i], nullptr, here_,
                      [&](std::vector<Violation>& h, bool after) { note(p, h, after ? at + 1 : at); }))
        return false;
    return true;
  }

  // The state after the prefix t_[0, k) (false when a step is not enabled).
  bool pointAt(size_t k, Point& out) {
    while (kept_.size() * stride_ <= k) {
      Point next = kept_.back();
      const size_t from = (kept_.size() - 1) * stride_;
      if (!run(next, from, from + stride_, from)) return false;
      kept_.push_back(std::move(next));
    }
    const size_t base = k / stride_;
    out = kept_[base];
    return run(out, base * stride_, k, base * stride_);
  }

  bool endsWithout(size_t lo, size_t hi) {
    Point p;
    if (!pointAt(lo, p) || !run(p, hi, t_.size(), lo)) return false;
    const size_t total = t_.size() - (hi - lo);
    finalViolations(m_, statics_, p.s, here_);
    note(p, here_, total);
    return p.rule_at == total;
  }

  const Model m_;
  const std::vector<Violation> statics_;
  const std::string rule_;
  Trace t_;
  size_t stride_ = 1;
  std::vector<Point> kept_;  // kept_[j]: the state after t_[0, j * stride_)
  std::vector<Violation> here_;
};

}  // namespace

// The greedy shortening; `late()` ends it (the trace so far is returned),
// `replayed(n)` is told of each try, a replay of n steps (the work charged
// is that of replaying the whole candidate, as each try did before
// Shortening: the same charges, so the same trace within a work budget).
static Trace shorten(const System& sys, const Trace& trace, const std::string& rule,
                     const std::function<bool()>& late, const std::function<void(size_t)>& replayed) {
  Shortening sh(sys, trace, rule);
  auto drop = [&](size_t lo, size_t hi) {
    replayed(sh.trace().size() - (hi - lo));
    return sh.drop(lo, hi);
  };
  if (!drop(trace.size(), trace.size())) return trace;
  // Long traces (a trip count in the thousands) first drop whole chunks,
  // halving the size, so that the step-by-step pass below starts short.
  if (sh.trace().size() > kChunkedFrom)
    for (size_t chunk = sh.trace().size() / 2; chunk > 1 && !late(); chunk /= 2)
      for (size_t end = sh.trace().size(); end >= chunk && !late(); end -= chunk) {
        if (end > sh.trace().size()) end = sh.trace().size();
        if (end < chunk) break;
        drop(end - chunk, end);
      }
  for (bool changed = true; changed && !late();) {
    changed = false;
    for (size_t i = sh.trace().size(); i-- > 0 && !late();)
      changed = drop(i, i + 1) || changed;
  }
  return sh.trace();
}

Trace minimizeTrace(const System& sys, const Trace& trace, const std::string& rule, unsigned budget_ms) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(budget_ms);
  return shorten(
      sys, trace, rule, [&] { return Clock::now() > deadline; }, [](size_t) {});
}

Trace minimizeTrace(const System& sys, const Trace& trace, const std::string& rule, ProofBudget& budget) {
  uint64_t instrs = 0;
  for (const Process& p : sys.procs) instrs += p.program.size();
  return shorten(
      sys, trace, rule, [&] { return !budget.exhausted().empty(); },
      [&](size_t steps) {
        ProofBudget::Tally t;
        t.expanded = steps + 1;  // each step, and the state at the end
        t.expanded_instrs = t.expanded * instrs;
        budget.add(t);
      });
}

}  // namespace cake::encoder
