// The partial-order encoding of a flat System (z3_po.h says what; docs/z3.md
// "Partial-order encoding" gives the argument). The semantics encoded is
// sim_state.cpp's, quantity by quantity:
//
//  * clocks: one bit-vector t_e per event, pairwise distinct, below n (the
//    number of events); END is the cut: the run is {e : t_e < END}, in clock
//    order. Program order, landing after issue and completion after commit
//    hold for every event (executed or not), so every run prefix extends to
//    a clock assignment.
//  * barrier slot k: A(e) / Xexp(e) / Xland(e) = arrivals / expected /
//    landed bytes of the slot events up to and including e. Settling makes
//    the completed count after e the largest floor(A(f) / init) over slot
//    events f <= e after which tx == 0 (A is monotone), so phase j completes
//    at the first slot event f with tx(f) == 0 and A(f) >= init (j + 1): its
//    clock is d[k][j] (INF when none), and c(tau) = #{j : d[k][j] < tau}.
//  * named barrier: generation = floor(W / E) for the warps W arrived before
//    (exact while no instance brings more warps than E: checked).
//  * async groups: group membership, the *_wait that retires a group, and
//    the MMA waits that must see a barrier group complete are static in a
//    straight-line program; a group leaves at that wait's clock or at its
//    Complete event.
//  * bytes: per tracked atom, the write occurrences (generic ops, landings,
//    cp.async data at the retiring wait, in the simulator's order inside one
//    step); the data at tau is the last occurrence before tau; an
//    unfenced generic write is one with no later fence of its process and no
//    later async-proxy write of the atom before tau.
#include "encoder/z3_po.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "encoder/cluster_exits.h"
#include "encoder/sim_model.h"
#include "encoder/simulator.h"
#include "encoder/z3_solver.h"

namespace cake::encoder {

namespace {

using sim::Model;
using E = z3::expr;

const char* kStepRules[] = {"sync.stale-phase", "sync.arrival-overflow", "sync.race", "proxy.missing-fence",
                            "data.stale-read", "sync.tx-imbalance", "data.uninitialized",
                            "data.stale-accumulator", "data.discarded-product"};
const char* kStateRules[] = {"sync.lost-phase", "sync.deadlock", "sync.async-at-exit"};
// A deadlock whose blocked wait a static candidate explains: the simulator
// reports the candidate's rule there (not a rule of its own: it only says
// that some run goes wrong, which makes every candidate an error).
const char* kExplainedDeadlock = "explained-deadlock";
// An arrival-type step that counts into another phase than its op means
// (sim::landsElsewhere): not a violation; on a clean program, part of the
// sync.phase-annotation-mismatch warning (resolveStatics).
const char* kLandsElsewhere = "lands-elsewhere";

E all(z3::context& c, const std::vector<E>& v) {
  if (v.empty()) return c.bool_val(true);
  z3::expr_vector x(c);
  for (const auto& e : v) x.push_back(e);
  return z3::mk_and(x);
}
E any(z3::context& c, const std::vector<E>& v) {
  if (v.empty()) return c.bool_val(false);
  z3::expr_vector x(c);
  for (const auto& e : v) x.push_back(e);
  return z3::mk_or(x);
}

// A weighted sum of Boolean atoms, the atoms that are constants (decided
// statically) folded into a constant and zero weights dropped, so that the
// pseudo-Boolean constraints Z3 sees hold only the open atoms.
class PbSum {
 public:
  explicit PbSum(z3::context& c) : c_(c), atoms_(c) {}
  void add(const E& atom, int64_t w) {
    if (w == 0 || atom.is_false()) return;
    if (atom.is_true()) konst_ += w;
    else {
      atoms_.push_back(atom);
      ws_.push_back(static_cast<int>(w));
    }
  }
  // sum >= bound
  E atLeast(int64_t bound) const {
    int64_t b = bound - konst_, top = 0;
    for (int w : ws_) top += std::max(w, 0);
    if (b <= lowest()) return c_.bool_val(true);
    if (b > top) return c_.bool_val(false);
    return z3::pbge(atoms_, ws_.data(), static_cast<int>(b));
  }
  // sum == value
  E equals(int64_t value) const {
    int64_t b = value - konst_;
    if (ws_.empty()) return c_.bool_val(b == 0);
    return z3::pbeq(atoms_, ws_.data(), static_cast<int>(b));
  }

 private:
  int64_t lowest() const {
    int64_t lo = 0;
    for (int w : ws_) lo += std::min(w, 0);
    return lo;
  }
  z3::context& c_;
  z3::expr_vector atoms_;
  std::vector<int> ws_;
  int64_t konst_ = 0;
};

// What one poCheck may spend, shared by its passes (poCheckOnce runs up to
// three times) and by every query of each: the obligation's wall clock
// (`deadline`, the safety limit) and Z3's resource units (`rlimit`, the
// work cap; 0: none), counted from the thread's units at the start
// (`work0`, z3w::threadQueryWork).
struct PoBudget {
  z3w::Deadline deadline;
  uint64_t rlimit = 0;
  uint64_t work0 = 0;
  // the resource units left (rlimit > 0 only)
  uint64_t left() const {
    const uint64_t spent = z3w::threadQueryWork().rlimit - work0;
    return spent >= rlimit ? 0 : rlimit - spent;
  }
};
// Thrown by Po::poll when the wall clock runs out while the encoding is
// built (making Z3 terms is not interruptible by the watchdog).
struct PoOutOfTime {};

// The encoding's size past which it is not built at all, without a work
// cap (PoOptions::limits.rlimit == 0): about that many Z3 terms and inner
// loop steps (Po::estimate).
constexpr uint64_t kMaxEncodingSize = uint64_t(1) << 24;

// How often one pass of poCheck rules apart the ties of a model the
// simulator did not replay before it gives the model up (Po::tiesOf): each
// round excludes that model; on the mutants that needed it, at most 4
// rounds were (docs/benchmarks.md "Z3 labels after ties without distinct").
constexpr int kUntieRounds = 16;

class Po {
 public:
  Po(const System& sys, z3::context& c, bool bit_vectors, const PoBudget* budget = nullptr)
      : sys_(sys), m_(sys), c_(c), end_(c), inf_(c), ints_(!bit_vectors), budget_(budget) {}

  bool build(std::string* why);
  int events() const { return static_cast<int>(ev_.size()); }
  int width() const { return w_; }
  // build()'s estimate of the encoding's size (estimate())
  uint64_t size() const { return size_; }
  bool ints() const { return ints_; }
  // Every arithmetic term is a clock, a constant or a difference of clocks
  // (no sums of ite terms, no div / mod): the difference-logic solver takes
  // the whole formula (ask).
  bool differenceLogic() const { return ints_ && linear_; }

  // Every event before END is enabled, violates no rule that ends runs
  // (endsRun: data hazards are allowed), and no state before it has a lost
  // phase.
  E prefix() const { return prefix_; }
  // Every event before END is enabled (violations do not end the run): a
  // violation at END of such a run means a first violation somewhere on it.
  E runs() const { return runs_; }
  // Every clock distinct (runs() and prefix() only keep the ties that matter).
  E distinct() const { return distinct_; }
  // t_a != t_b as two difference constraints (no disequality: see
  // untieCounted)
  E apart(int a, int b) const { return lt(T(a), T(b)) || lt(T(b), T(a)); }
  // A violation of `rule` at the cut END (a step rule at the event whose
  // clock is END, a state rule in the state before END).
  E target(const std::string& rule) const {
    auto it = targets_.find(rule);
    return it == targets_.end() ? c_.bool_val(false) : it->second;
  }
  // The run of a model: the events before END, plus the event at END for a
  // step rule.
  Trace traceOf(const z3::model& mdl, bool with_end) const;
  // The pairs of events of a model's run (with the event at END) whose
  // clocks are equal, each group of equal clocks as consecutive pairs.
  std::vector<std::pair<int, int>> tiesOf(const z3::model& mdl) const;

 private:
  struct Event {
    Step step;
    E t;
  };
  struct SlotEv {
    int ev;
    int64_t w = 0, exp = 0, land = 0;
  };
  struct Grp {
    int kind = 0, seq = -1, commit_pc = -1, retire_pc = -1, complete_ev = -1;
    bool barrier = false;
    std::vector<int> ops;
  };
  struct WriteOcc {
    int ev = -1, sub = 0, proc = -1, pc = -1, acc = -1, fence_ev = -1;
    bool generic = false;
  };
  // A synchronous generic-proxy read of a tracked atom: it marks the atom
  // for its process until that process's next fence or the atom's next
  // async-proxy write (sim_state.cpp markGenericReads).
  struct ReadOcc {
    int ev = -1, fence_ev = -1;
  };

  const System& sys_;
  Model m_;
  z3::context& c_;
  int w_ = 8;
  const PoBudget* budget_ = nullptr;  // the wall clock and the work cap (poll, build)
  uint64_t size_ = 0;
  // Throws PoOutOfTime once the obligation's wall clock is used up: called
  // in the loops of build() whose work grows with the square of the events.
  void poll() const {
    if (budget_ && budget_->deadline.expired()) throw PoOutOfTime{};
  }
  uint64_t estimate() const;
  std::vector<Event> ev_;
  std::map<unsigned, int> event_of_;                   // Z3 id of a clock -> its event
  std::vector<std::vector<int>> exec_;                 // [p][pc] -> event
  std::map<std::pair<int, int>, int> land_;            // (p, pc) -> Land event
  std::vector<std::vector<SlotEv>> slot_ev_;           // per slot
  std::vector<std::vector<E>> d_;                      // [slot][j]
  std::vector<int64_t> init_;                          // max(1, init_count)
  std::vector<std::vector<std::pair<int, int64_t>>> named_ev_;  // per named barrier: (event, warps)
  // [named barrier][g]: the clock of the arrival that completes generation
  // g (inf when none does); empty where the generations are counted by sums
  std::vector<std::vector<E>> gd_;
  std::vector<std::vector<Grp>> groups_;               // [p * 3 + kind]
  std::vector<std::vector<int>> op_group_;             // [p][pc] -> group index (its kind's list), -1
  std::map<std::pair<int, int>, std::vector<int>> mma_wait_needs_;  // (p, wait pc) -> barrier groups
  std::map<std::pair<int, int>, std::vector<int>> retires_;         // (p, wait pc) -> groups it retires
  std::vector<std::vector<WriteOcc>> writes_;          // per tracked atom
  std::vector<std::vector<ReadOcc>> reads_;            // per tracked atom
  std::vector<Violation> statics_;
  E end_, inf_;
  E prefix_{c_}, runs_{c_}, distinct_{c_};
  std::map<std::string, E> targets_;
  std::map<int, std::map<std::string, E>> step_viol_;  // event -> rule -> formula
  // hb_[f]: events e with t_e < t_f in every model where every wait before
  // f passed at its phase (no stale phase): program order, issue -> landing,
  // commit -> completion, and arrival -> wait when the arrival must count
  // into the waited phase (hbLemmas). Such models are all that the rules at
  // f are asked about (below).
  std::vector<std::vector<uint64_t>> hb_;
  // forced_[k][i]: the first phase slot event i of slot k must count into,
  // or -1; waits_[k]: the slot's waits (event, phase) (hbOrder)
  std::vector<std::vector<int64_t>> forced_;
  std::vector<std::vector<std::pair<int, int64_t>>> waits_;
  // Named barriers (hbOrder): nforced_[nb][i], the first generation that
  // arrival i of named_ev_[nb] must count into, or -1; syncs_[nb], its
  // bar.syncs: the SyncWait event, its SyncArrive event and a lower bound
  // on the generation that arrive records (the one the wait waits for).
  struct NamedSync {
    int wait = -1, arrive = -1;
    int64_t lo = 0;
  };
  std::vector<std::vector<int64_t>> nforced_;
  std::vector<std::vector<NamedSync>> syncs_;
  mutable bool linear_ = true;  // no sum, div or mod built (differenceLogic)

  // ------------------------------------------------------------ helpers
  // Clocks and counters are integers (difference logic knows that clocks are
  // transitive; bit-blasted comparisons made Z3 rediscover it) or, with
  // PoOptions::bit_vectors, bit-vectors of width w_.
  bool ints_;
  E num(int64_t v) const { return ints_ ? c_.int_val(v) : c_.bv_val(static_cast<uint64_t>(v), w_); }
  E var(const std::string& name) const { return ints_ ? c_.int_const(name.c_str()) : c_.bv_const(name.c_str(), w_); }
  E lt(const E& a, const E& b) const { return ints_ ? a < b : z3::ult(a, b); }
  E le(const E& a, const E& b) const { return ints_ ? a <= b : z3::ule(a, b); }
  E div(const E& a, const E& b) const {
    linear_ = false;
    return ints_ ? a / b : z3::udiv(a, b);
  }
  E mod(const E& a, const E& b) const {
    linear_ = false;
    return ints_ ? z3::mod(a, b) : z3::urem(a, b);
  }
  E T(int e) const { return ev_[e].t; }
  // t_e < tau. Where tau is the clock of an event f, formulas are only
  // asked about f at or before END (the rules at f, enabledness of f before
  // END), so the static happens-before hb_ decides it where it can.
  E before(int e, const E& tau) const {
    if (e < 0) return c_.bool_val(false);
    auto f = event_of_.find(tau.id());
    if (f == event_of_.end()) return lt(T(e), tau);
    if (hbInto(e, f->second)) return c_.bool_val(true);
    if (e == f->second || hb(f->second, e)) return c_.bool_val(false);
    return precedes(e, f->second);
  }
  // t_e < t_f, decided statically where program order decides it (two Execs
  // of one process): the solver need not rediscover it in every formula
  E precedes(int e, int f) const {
    const Step& a = ev_[e].step;
    const Step& b = ev_[f].step;
    if (e == f) return c_.bool_val(false);
    if (a.kind == Step::Kind::Exec && b.kind == Step::Kind::Exec && a.proc == b.proc) return c_.bool_val(a.pc < b.pc);
    return lt(T(e), T(f));
  }
  // write occurrence b comes after a (inside one step: in the simulator's order)
  // (asked only where both precede an event at or before END)
  E laterWrite(const WriteOcc& b, const WriteOcc& a) const {
    return b.ev == a.ev ? c_.bool_val(b.sub > a.sub) : precedesBeforeEnd(a.ev, b.ev);
  }
  // t_e < t_f where f is known to be before END (the formula is a conjunct
  // beside t_f < tau, tau at or before END, or every process has finished):
  // every happens-before edge into f holds, and an edge f -> e makes
  // t_e < t_f false (e at or before END: the edge holds; after END: t_f <
  // END < t_e)
  E precedesBeforeEnd(int e, int f) const {
    if (hb(e, f)) return c_.bool_val(true);
    if (hb(f, e)) return c_.bool_val(false);
    return precedes(e, f);
  }
  // e happens at or before f (e == f counts)
  E upTo(int e, int f) const { return e == f ? c_.bool_val(true) : precedes(e, f); }
  // upTo inside a condition at a slot or named-barrier event f that only
  // matters while f is at or before END (the conditions of the completion
  // clocks): the static happens-before decides it where it orders e and f
  // (docs/z3.md "Completion conditions by happens-before").
  E upToHb(int e, int f) const { return e == f ? c_.bool_val(true) : before(e, T(f)); }
  E all(const std::vector<E>& v) const { return cake::encoder::all(c_, v); }
  E any(const std::vector<E>& v) const { return cake::encoder::any(c_, v); }
  E sum(const std::vector<E>& v) const {
    if (!v.empty()) linear_ = false;
    E s = num(0);
    for (const auto& e : v) s = s + e;
    return s;
  }
  int addEvent(Step st) {
    ev_.push_back({st, var(fmt::format("t{}", ev_.size()))});
    event_of_[ev_.back().t.id()] = static_cast<int>(ev_.size()) - 1;
    return static_cast<int>(ev_.size()) - 1;
  }
  const Instr& instr(int p, int pc) const { return m_.instr(p, pc); }
  int lastPc(int p) const { return m_.programSize(p) - 1; }

  // completed phases of slot k before tau: at least m / exactly, as numbers
  //
  // `next` (tau is END): the next event of a process that is at it in the
  // state before END -- its predecessor ran before END, it did not -- so
  // that happens-before may decide the count (completedByHb).
  E cAtLeast(int k, int64_t m, const E& tau, int next = -1) const {
    if (m <= 0) return c_.bool_val(true);
    if (m > static_cast<int64_t>(d_[k].size())) return c_.bool_val(false);
    auto f = event_of_.find(tau.id());
    std::optional<bool> known = f != event_of_.end() ? completedByHb(k, m - 1, f->second, false)
                                : next >= 0          ? completedByHb(k, m - 1, next, true)
                                                     : std::nullopt;
    if (known) return c_.bool_val(*known);
    return lt(d_[k][m - 1], tau);
  }
  // some slot event of k forced into a phase <= j is x or comes after x
  bool forcedFrom(int k, int64_t j, int x) const {
    return forcedAtOrAfter(forced_[k], j, x, [&](size_t i) { return slot_ev_[k][i].ev; });
  }
  // some event i (ev(i)) with forced[i] in [0, j] is x or comes after x
  template <class Ev>
  bool forcedAtOrAfter(const std::vector<int64_t>& forced, int64_t j, int x, Ev ev) const {
    for (size_t i = 0; i < forced.size(); ++i) {
      int a = ev(i);
      if (forced[i] >= 0 && forced[i] <= j && (a == x || hb(x, a))) return true;
    }
    return false;
  }
  // the program-order predecessor of a process's next event (the last
  // event it ran before END), -1 when there is none
  int predecessorOf(int next) const {
    const Step& st = ev_[next].step;
    if (st.kind != Step::Kind::Exec || st.pc == 0) return -1;
    return exec_[st.proc][st.pc - 1];
  }
  // d[k][j] < t_x (at_end false: x an event at or before END), or
  // d[k][j] < END where a process is at event x (at_end true: its
  // predecessor ran before END, x did not): decided by happens-before
  // where it can (roundByHb).
  std::optional<bool> completedByHb(int k, int64_t j, int x, bool at_end) const {
    if (forced_.empty()) return std::nullopt;
    return roundByHb(forcedFrom(k, j, x), j, x, at_end, waits_[k], [](const std::pair<int, int64_t>& w) { return w; });
  }
  // The closed forms' shared decision, for a slot's phase j (d[k][j]) and a
  // named barrier's generation j (g[nb][j]) alike. Before t_x for x at or
  // before END: false when an event forced into a round <= j is x or comes
  // after x (`forced_from_x`; the arrival / landing / generation lemma puts
  // it at or before the round's clock when that is before END, and x before
  // it); true when a wait for a round >= j comes before x (hbInto: it
  // passed after the round completed). Before END with a process at x: the
  // same false; true when such a wait is x's predecessor or comes before it.
  // `waits` holds the waits, `round` gives (wait event, least round it
  // waits for) of one.
  template <class Waits, class Round>
  std::optional<bool> roundByHb(bool forced_from_x, int64_t j, int x, bool at_end, const Waits& waits,
                                Round round) const {
    if (forced_from_x) return false;
    const int prev = at_end ? predecessorOf(x) : -1;
    if (at_end && prev < 0) return std::nullopt;
    for (const auto& w : waits) {
      auto [ev, r] = round(w);
      if (r >= j && (at_end ? ev == prev || hb(ev, prev) : hbInto(ev, x))) return true;
    }
    return std::nullopt;
  }
  // t_e < t_f in every model asked about f at or before END. hb(e, f)
  // except for a wait f (a slot wait or a named barrier's bar.sync): the
  // edges into a wait from the arrivals it waits for hold when it passed
  // (cleanly), which a wait at END need not have (its enabledness and its
  // stale phase are asked there); its program-order predecessor is before
  // END, where every edge into it holds.
  static bool isWaitOnCount(InstrKind k) { return k == InstrKind::Wait || k == InstrKind::SyncWait; }
  bool hbInto(int e, int f) const {
    const Step& st = ev_[f].step;
    if (st.kind != Step::Kind::Exec || !isWaitOnCount(instr(st.proc, st.pc).kind)) return hb(e, f);
    if (st.pc == 0) return false;
    int prev = exec_[st.proc][st.pc - 1];
    return e == prev || hb(e, prev);
  }
  // Phase counting in closed form: the completion clocks of a slot are
  // monotone (d[k][j] <= d[k][j+1], asserted), so "exactly m phases before
  // tau" is two difference constraints -- no sum, no parity by mod.
  E cExactly(int k, int64_t m, const E& tau, int next = -1) const {
    return m < 0 ? c_.bool_val(false) : cAtLeast(k, m, tau, next) && !cAtLeast(k, m + 1, tau, next);
  }
  E cOdd(int k, const E& tau, int next = -1) const {
    std::vector<E> xs;
    for (int64_t m = 1; m <= static_cast<int64_t>(d_[k].size()); m += 2) xs.push_back(cExactly(k, m, tau, next));
    return any(xs);
  }
  // some phase of slot k completes at a clock in [from, to)
  // (from and to are event clocks at or before END where it is asked, so
  // cAtLeast may decide d < from, d < to statically)
  E completesIn(int k, const E& from, const E& to) const {
    std::vector<E> xs;
    for (int64_t j = 0; j < static_cast<int64_t>(d_[k].size()); ++j)
      xs.push_back(!cAtLeast(k, j + 1, from) && cAtLeast(k, j + 1, to));
    return any(xs);
  }
  E genAt(int nb, const E& tau) const {
    int64_t e = sys_.named[nb].expected_warps;
    if (e <= 0) return num(0);
    return div(warpsBefore(nb, tau), num(e));
  }
  E warpsBefore(int nb, const E& tau) const {
    std::vector<E> xs;
    for (auto [ev, warps] : named_ev_[nb]) xs.push_back(z3::ite(before(ev, tau), num(warps), num(0)));
    return sum(xs);
  }
  // a generation of named barrier nb completes at a clock in [from, to)
  // (the generation count before `to` exceeds the one before `from`)
  // (from: the clock of the bar.sync's arrive; to: an event clock at or
  // before END, or END with `next` the event a process is at)
  E genCompletesIn(int nb, const E& from, const E& to, int next = -1) const {
    if (gd_[nb].empty()) return lt(genAt(nb, from), genAt(nb, to));
    std::vector<E> xs;
    for (int64_t j = 0; j < static_cast<int64_t>(gd_[nb].size()); ++j)
      xs.push_back(!genBefore(nb, j, from) && genBefore(nb, j, to, next));
    return any(xs);
  }
  // g[nb][j] < tau, decided by happens-before where it can (as cAtLeast
  // decides a slot's d[k][j] < tau): tau the clock of an event at or before
  // END, or END itself with `next` the event some process is at.
  E genBefore(int nb, int64_t j, const E& tau, int next = -1) const {
    auto f = event_of_.find(tau.id());
    std::optional<bool> known = f != event_of_.end() ? genDoneByHb(nb, j, f->second, false)
                                : next >= 0          ? genDoneByHb(nb, j, next, true)
                                                     : std::nullopt;
    if (known) return c_.bool_val(*known);
    return lt(gd_[nb][j], tau);
  }
  // an arrival of nb forced into a generation <= j is x or comes after x
  bool namedForcedFrom(int nb, int64_t j, int x) const {
    return forcedAtOrAfter(nforced_[nb], j, x, [&](size_t i) { return named_ev_[nb][i].first; });
  }
  // g[nb][j] < t_x, or g[nb][j] < END with a process at x, where
  // happens-before decides it: as completedByHb for a slot, with the
  // generation lemma's forced arrivals and the bar.syncs (waiting for a
  // generation >= lo) as the waits.
  std::optional<bool> genDoneByHb(int nb, int64_t j, int x, bool at_end) const {
    if (nforced_.empty()) return std::nullopt;
    return roundByHb(namedForcedFrom(nb, j, x), j, x, at_end, syncs_[nb],
                     [](const NamedSync& w) { return std::pair<int, int64_t>{w.wait, w.lo}; });
  }
  // a bar.sync / bar.arrive at event e of nb (w warps) overflows the
  // generation in progress: (arrived before e) mod expected + w > expected
  E namedOverflow(int nb, int e, int64_t w) const;
  void namedGenerations(std::vector<E>& base);
  E firstWhere(const std::string& name, const std::vector<std::pair<E, int>>& conds, std::vector<E>& base);
  E finishedAt(int p, const E& tau) const {
    return m_.programSize(p) == 0 ? c_.bool_val(true) : before(exec_[p][lastPc(p)], tau);
  }
  // process p is at pc (pc == size: finished) in the state before tau
  E at(int p, int pc, const E& tau) const {
    E prev = pc == 0 ? c_.bool_val(true) : before(exec_[p][pc - 1], tau);
    return pc == m_.programSize(p) ? prev : prev && !before(exec_[p][pc], tau);
  }
  const Grp& group(int p, int kind, int g) const { return groups_[p * sim::kGroupKinds + kind][g]; }
  // sim::landsElsewhere's arrival-type steps: an arrive, an expect_tx, a TMA
  // load's issue, an sm_100a group's completion (the commit's slot)
  bool arrivalType(int e) const {
    const Step& st = ev_[e].step;
    if (st.kind == Step::Kind::Land) return false;
    const Instr& in = instr(st.proc, st.pc);
    bool arrival = st.kind == Step::Kind::Complete || in.kind == InstrKind::Arrive ||
                   in.kind == InstrKind::ExpectTx || in.kind == InstrKind::TmaLoad;
    return arrival && in.slot >= 0;
  }
  int removalEvent(int p, const Grp& g) const {
    if (g.barrier) return g.complete_ev;
    return g.retire_pc >= 0 ? exec_[p][g.retire_pc] : -1;
  }

  bool hb(int e, int f) const {
    return e >= 0 && f >= 0 && !hb_.empty() && ((hb_[f][e / 64] >> (e % 64)) & 1);
  }

  // ------------------------------------------------------------ building
  void hbOrder();
  void untieCounted(std::vector<E>& base) const;
  bool namedRound();
  void hbLemmas(std::vector<E>& base);
  bool checkShape(std::string* why);
  void makeEvents();
  void makeGroups();
  void makeSlots();
  void makeWrites();
  // (next: e is a process's next event in the state before tau == END)
  E enabled(int e, const E& tau, bool next = false) const;
  E notAfterExit(int e) const;
  E live(int q, int qpc, int j, int p, const E& tau) const;
  E raceAt(int p, int pc, int i) const;
  int endOf(int q, int qpc) const;
  E unfencedWrite(int t, const E& tau) const;
  E unfencedRead(int t, const E& tau) const;
  E asyncWriteRule(int p, int pc, int i) const;
  void readRules(int p, int pc, int i, E& fence, E& stale) const;
  void stepRules();
  E doneAtExit(int e) const;
  E unobservedAtExit() const;
  void stateRules();
};

bool Po::checkShape(std::string* why) {
  if (m_.P > 30) {
    *why = "more than 30 processes (the simulator's unfenced-write bits alias)";
    return false;
  }
  if (auto no = notEncodedInZ3(sys_, /*tmem_async=*/true)) {
    *why = *no;
    return false;
  }
  for (int p = 0; p < m_.P; ++p)
    for (int pc = 0; pc < m_.programSize(p); ++pc) {
      const Instr& in = instr(p, pc);
      if (in.count < 0 || in.bytes < 0) {
        *why = "a negative arrival count or byte count";
        return false;
      }
      if (in.named >= 0 && sys_.named[in.named].expected_warps > 0 &&
          sys_.procs[p].warps > sys_.named[in.named].expected_warps) {
        *why = fmt::format("{} brings more warps to {} than it expects", sys_.procs[p].name, sys_.named[in.named].name);
        return false;
      }
    }
  return true;
}

void Po::makeEvents() {
  exec_.resize(m_.P);
  for (int p = 0; p < m_.P; ++p)
    for (int pc = 0; pc < m_.programSize(p); ++pc) exec_[p].push_back(addEvent({Step::Kind::Exec, p, pc}));
  for (int p = 0; p < m_.P; ++p)
    for (int pc = 0; pc < m_.programSize(p); ++pc)
      if (instr(p, pc).kind == InstrKind::TmaLoad) land_[{p, pc}] = addEvent({Step::Kind::Land, p, pc});
}

// Static group structure (docs/semantics.md "Async groups"): an async op
// joins the open group (a tcgen05.ld / st is a committed group by itself);
// a commit closes it (or makes an empty one); a
// *_wait(pending=n) at a point with C commits before it retires the groups
// with seq < C - n (an MMA group with a commit barrier instead leaves by its
// Complete step, and the wait blocks until then).
void Po::makeGroups() {
  groups_.assign(m_.P * sim::kGroupKinds, {});
  op_group_.assign(m_.P, {});
  for (int p = 0; p < m_.P; ++p) {
    op_group_[p].assign(m_.programSize(p), -1);
    int open[sim::kGroupKinds], commits[sim::kGroupKinds] = {};
    std::fill(std::begin(open), std::end(open), -1);
    for (int pc = 0; pc < m_.programSize(p); ++pc) {
      const Instr& in = instr(p, pc);
      int k = m_.groupKind(in.kind);
      if (k < 0) continue;
      auto& gs = groups_[p * sim::kGroupKinds + k];
      auto openGroup = [&] {
        if (open[k] < 0) {
          open[k] = static_cast<int>(gs.size());
          gs.push_back({});
          gs.back().kind = k;
        }
        return open[k];
      };
      switch (in.kind) {
        case InstrKind::TmaStore:
        case InstrKind::CpAsync:
        case InstrKind::Mma: {
          int g = openGroup();
          gs[g].ops.push_back(pc);
          op_group_[p][pc] = g;
          break;
        }
        case InstrKind::TmemLoad:   // tcgen05.ld / st: a committed group of its own
        case InstrKind::TmemStore:  // (sim::Model::selfCommits), retired by its wait
          op_group_[p][pc] = openGroup();
          gs[op_group_[p][pc]].ops.push_back(pc);
          [[fallthrough]];
        case InstrKind::StoreCommit:
        case InstrKind::CpAsyncCommit:
        case InstrKind::MmaCommit: {
          int g = openGroup();
          gs[g].commit_pc = pc;
          gs[g].seq = commits[k]++;
          gs[g].barrier = in.kind == InstrKind::MmaCommit && in.slot >= 0;
          open[k] = -1;
          break;
        }
        default: {  // the waits
          for (int g = 0; g < static_cast<int>(gs.size()); ++g) {
            Grp& grp = gs[g];
            if (grp.seq < 0 || grp.seq >= commits[k] - in.pending) continue;
            if (grp.barrier) {
              mma_wait_needs_[{p, pc}].push_back(g);
            } else if (grp.retire_pc < 0) {
              grp.retire_pc = pc;
              retires_[{p, pc}].push_back(g);
            }
          }
        }
      }
    }
    for (Grp& g : groups_[p * sim::kGroupKinds + sim::kMma])
      if (g.barrier) g.complete_ev = addEvent({Step::Kind::Complete, p, g.commit_pc});
  }
}

void Po::makeSlots() {
  slot_ev_.assign(m_.S, {});
  init_.resize(m_.S);
  for (int k = 0; k < m_.S; ++k) init_[k] = std::max(1, sys_.slots[k].init_count);
  named_ev_.assign(m_.N, {});
  for (int e = 0; e < events(); ++e) {
    const Step& st = ev_[e].step;
    const Instr& in = instr(st.proc, st.pc);
    if (st.kind == Step::Kind::Land) slot_ev_[in.slot].push_back({e, 0, 0, in.bytes});
    else if (st.kind == Step::Kind::Complete) slot_ev_[in.slot].push_back({e, 1, 0, 0});
    else if (in.kind == InstrKind::Arrive) slot_ev_[in.slot].push_back({e, in.count, 0, 0});
    else if (in.kind == InstrKind::ExpectTx) slot_ev_[in.slot].push_back({e, 1, in.bytes, 0});
    else if (in.kind == InstrKind::SyncArrive || in.kind == InstrKind::BarArrive)
      named_ev_[in.named].push_back({e, sys_.procs[st.proc].warps});
  }
}

// Write occurrences per tracked atom, in the order sim_state.cpp performs
// them inside one step (sub).
void Po::makeWrites() {
  writes_.assign(m_.tracked, {});
  int sub = 0;
  auto nextFence = [&](int p, int pc) {
    for (int x = pc + 1; x < m_.programSize(p); ++x)
      if (instr(p, x).kind == InstrKind::Fence) return exec_[p][x];
    return -1;
  };
  auto record = [&](int e, int p, int pc, int at_pc) {
    const Instr& in = instr(p, pc);
    for (size_t i = 0; i < in.accesses.size(); ++i) {
      const Access& a = in.accesses[i];
      if (!a.write) continue;
      const sim::AtomRange& r = m_.atoms_of[p][pc][i];
      for (int x = r.a0; x < r.a1; ++x) {
        int t = m_.tracked_of[x];
        if (t < 0) continue;
        WriteOcc w;
        w.ev = e;
        w.sub = sub++;
        w.proc = p;
        w.pc = pc;
        w.acc = static_cast<int>(i);
        w.generic = a.proxy == Proxy::Generic;
        if (w.generic) w.fence_ev = nextFence(p, at_pc);
        writes_[t].push_back(w);
      }
    }
  };
  reads_.assign(m_.tracked, {});
  auto recordReads = [&](int e, int p, int pc) {
    const Instr& in = instr(p, pc);
    for (size_t i = 0; i < in.accesses.size(); ++i) {
      const Access& a = in.accesses[i];
      if (a.write || a.proxy != Proxy::Generic) continue;
      const sim::AtomRange& r = m_.atoms_of[p][pc][i];
      for (int x = r.a0; x < r.a1; ++x)
        if (int t = m_.tracked_of[x]; t >= 0) reads_[t].push_back({e, nextFence(p, pc)});
    }
  };
  for (int e = 0; e < events(); ++e) {
    const Step& st = ev_[e].step;
    if (st.kind == Step::Kind::Complete) continue;
    const Instr& in = instr(st.proc, st.pc);
    if (st.kind == Step::Kind::Land) { record(e, st.proc, st.pc, st.pc); continue; }
    if (m_.isSyncAccess(st.proc, st.pc)) recordReads(e, st.proc, st.pc);
    if (in.kind == InstrKind::Generic || (in.kind == InstrKind::Mma && !m_.async_mma)) record(e, st.proc, st.pc, st.pc);
    if (in.kind == InstrKind::CpAsyncWait) {
      auto it = retires_.find({st.proc, st.pc});
      if (it != retires_.end())
        for (int g : it->second)
          for (int opc : group(st.proc, sim::kCp, g).ops) record(e, st.proc, opc, st.pc);
    }
  }
}

bool Po::build(std::string* why) {
  if (!checkShape(why)) return false;
  statics_ = staticViolations(sys_);
  // sizes first: the events, then a width that holds every clock and counter
  int64_t n = sys_.instrCount();
  int64_t total_w = 0, total_b = 0, total_warps = 0, max_init = 1, max_e = 0, bytes_gcd = 0;
  for (int p = 0; p < m_.P; ++p)
    for (int pc = 0; pc < m_.programSize(p); ++pc) {
      const Instr& in = instr(p, pc);
      if (in.kind == InstrKind::TmaLoad) ++n;
      if (in.kind == InstrKind::MmaCommit && in.slot >= 0) ++n;
      if (in.kind == InstrKind::Arrive) total_w += in.count;
      if (in.kind == InstrKind::ExpectTx || (in.kind == InstrKind::MmaCommit && in.slot >= 0)) ++total_w;
      if (in.kind == InstrKind::ExpectTx || in.kind == InstrKind::TmaLoad) {
        total_b += in.bytes;
        bytes_gcd = std::gcd(bytes_gcd, in.bytes);
      }
      if (in.named >= 0) total_warps += sys_.procs[p].warps;
    }
  for (const auto& s : sys_.slots) max_init = std::max<int64_t>(max_init, s.init_count);
  for (const auto& nb : sys_.named) max_e = std::max<int64_t>(max_e, nb.expected_warps);
  int64_t need = std::max({n + 2, total_w + 2 * max_init + 2, total_b + 1, total_warps + max_e + 2});
  w_ = z3w::bitsFor(need) + 1;
  end_ = var("END");
  inf_ = num(n + 1);

  makeEvents();
  makeGroups();
  if (events() != n) {
    *why = fmt::format("internal: {} events, {} expected", events(), n);
    return false;
  }
  makeSlots();
  makeWrites();
  // The encoding grows with the square of a slot's or named barrier's
  // events, of an atom's accesses and of the events (hbOrder, raceAt): a
  // binding with thousands of trips (tiles = 4096 of
  // flashinfer_sparse_mla_bar_arrive_runahead_fixed, 40 k events) spent
  // minutes in hbOrder alone, past any --timeout, before its first query.
  // Such an encoding is not built: under a work cap (limits.rlimit) once
  // its size is past the resource units left -- a formula costs at least
  // its size to take in -- which makes the binding the explicit engine's
  // like a query that ran out ("resource limit", checks/model_check.cpp
  // Driver::decide); without one past kMaxEncodingSize.
  size_ = estimate();
  {
    const uint64_t cap = budget_ && budget_->rlimit > 0 ? std::min(budget_->left(), kMaxEncodingSize) : kMaxEncodingSize;
    if (size_ > cap) {
      *why = fmt::format("resource limit: the encoding of {} events would have about {} terms, past the {} left",
                         events(), size_, cap);
      return false;
    }
  }
  // bytes divided by their gcd (only tx == 0 matters)
  if (bytes_gcd > 1)
    for (auto& evs : slot_ev_)
      for (SlotEv& s : evs) { s.exp /= bytes_gcd; s.land /= bytes_gcd; }

  // structure: clocks distinct and below n; program order; land after
  // issue; complete after commit
  std::vector<E> base;
  {
    z3::expr_vector ts(c_);
    for (const Event& e : ev_) {
      ts.push_back(e.t);
      base.push_back(lt(e.t, num(n)));
      if (ints_) base.push_back(le(num(0), e.t));
    }
    distinct_ = ts.size() > 1 ? z3::distinct(ts) : c_.bool_val(true);
  }
  base.push_back(le(end_, num(n)));
  if (ints_) base.push_back(le(num(0), end_));
  for (int p = 0; p < m_.P; ++p)
    for (int pc = 1; pc < m_.programSize(p); ++pc) base.push_back(lt(T(exec_[p][pc - 1]), T(exec_[p][pc])));
  for (auto [key, e] : land_) base.push_back(lt(T(exec_[key.first][key.second]), T(e)));
  for (int p = 0; p < m_.P; ++p)
    for (const Grp& g : groups_[p * sim::kGroupKinds + sim::kMma])
      if (g.barrier) base.push_back(lt(T(exec_[p][g.commit_pc]), T(g.complete_ev)));

  // Events that count into one slot or named barrier never tie (the counts
  // read "strictly before"). Other ties are left open: dropping a
  // constraint only adds models, so "no violation" stays sound, and a model
  // whose ties the simulator cannot replay is refined (untie in
  // poCheckOnce) or asked again with every clock distinct (distinct()).
  hbOrder();
  untieCounted(base);
  // completion clocks of every slot's phases
  d_.assign(m_.S, {});
  for (int k = 0; k < m_.S; ++k) {
    const auto& evs = slot_ev_[k];
    int64_t tw = 0;
    for (const SlotEv& s : evs) tw += s.w;
    // A(f) >= bound and tx(f) == 0 over the slot events g <= f: with
    // integers, pseudo-Boolean constraints over the order atoms (Z3's PB
    // theory propagates them without case splits on sums of ite terms).
    std::vector<std::function<E(int64_t)>> a_ge;
    std::vector<E> z;
    int64_t mag = 0;  // PB coefficients and bounds are ints
    for (const SlotEv& g : evs) mag += g.w + g.exp + g.land;
    const bool pb = ints_ && mag + init_[k] * 2 < (int64_t(1) << 30);
    for (const SlotEv& f : evs) {
      poll();
      PbSum arrived(c_), tx(c_);
      std::vector<E> as, xe, xl;
      for (const SlotEv& g : evs) {
        E up = upToHb(g.ev, f.ev);
        arrived.add(up, g.w);
        tx.add(up, g.exp - g.land);
        if (g.w) as.push_back(z3::ite(up, num(g.w), num(0)));
        if (g.exp) xe.push_back(z3::ite(up, num(g.exp), num(0)));
        if (g.land) xl.push_back(z3::ite(up, num(g.land), num(0)));
      }
      if (pb) {
        a_ge.push_back([arrived](int64_t bound) { return arrived.atLeast(bound); });
        z.push_back(tx.equals(0));
      } else {
        E a = sum(as);
        a_ge.push_back([this, a](int64_t bound) { return le(num(bound), a); });
        z.push_back(sum(xe) == sum(xl));
      }
    }
    for (int64_t j = 0; j < tw / init_[k]; ++j) {
      poll();
      std::vector<std::pair<E, int>> conds;
      for (size_t f = 0; f < evs.size(); ++f) conds.push_back({z[f] && a_ge[f](init_[k] * (j + 1)), evs[f].ev});
      E d = firstWhere(fmt::format("d{}_{}", k, j), conds, base);
      // implied (a later phase needs more arrivals), stated for the solver
      // and for cExactly
      if (!d_[k].empty()) base.push_back(le(d_[k].back(), d));
      d_[k].push_back(d);
    }
    for (size_t f = 0; f < evs.size(); ++f) {
      // arrival overflow at an arriving event: pending < 0 while tx != 0
      if (!evs[f].w) continue;
      std::vector<E> negs;  // pending < 0: A > init (1 + completed)
      for (int64_t m = 0; m <= static_cast<int64_t>(d_[k].size()); ++m)
        negs.push_back(cExactly(k, m, T(evs[f].ev)) && a_ge[f](init_[k] * (1 + m) + 1));
      E pending_neg = any(negs);
      step_viol_[evs[f].ev].insert_or_assign("sync.arrival-overflow", pending_neg && !z[f]);
    }
  }
  namedGenerations(base);
  hbLemmas(base);
  stepRules();
  stateRules();

  std::vector<E> pre = base;
  for (int e = 0; e < events(); ++e) base.push_back(z3::implies(lt(T(e), end_), enabled(e, T(e)) && notAfterExit(e)));
  runs_ = all(base);
  for (int e = 0; e < events(); ++e) {
    std::vector<E> bad;
    for (auto& [rule, f] : step_viol_[e])
      if (endsRun(rule)) bad.push_back(f);  // a data hazard does not end the run
    pre.push_back(z3::implies(lt(T(e), end_), enabled(e, T(e)) && notAfterExit(e) && !any(bad)));
  }
  for (int p = 0; p < m_.P; ++p)
    for (int pc = 0; pc < m_.programSize(p); ++pc) {
      const Instr& in = instr(p, pc);
      if (in.kind != InstrKind::Wait) continue;
      E t = T(exec_[p][pc]);
      pre.push_back(z3::implies(lt(t, end_), !cAtLeast(in.slot, in.phase + 2, t)));
    }
  prefix_ = all(pre);
  return true;
}

// About how many Z3 terms (and inner loop steps) build() makes: the
// quadratic parts -- per slot its events times (its events + its phases)
// (the completion clocks, the overflow rules), per named barrier the same,
// per tracked atom its writes times its accesses (the data rules), the
// accesses times the events (raceAt) and the events squared over 64 (the
// bit sets of hbOrder's closure).
uint64_t Po::estimate() const {
  const uint64_t n = static_cast<uint64_t>(events());
  uint64_t out = n * (n / 64 + 1);
  for (int k = 0; k < m_.S; ++k) {
    uint64_t tw = 0;
    for (const SlotEv& g : slot_ev_[k]) tw += static_cast<uint64_t>(std::max<int64_t>(g.w, 0));
    const uint64_t e = slot_ev_[k].size();
    out += e * (e + tw / static_cast<uint64_t>(init_[k]) + 1);
  }
  for (int nb = 0; nb < m_.N; ++nb) {
    uint64_t total = 0;
    for (auto [ev, w] : named_ev_[nb]) total += static_cast<uint64_t>(std::max<int64_t>(w, 0));
    const uint64_t ex = static_cast<uint64_t>(std::max<int64_t>(sys_.named[nb].expected_warps, 1));
    const uint64_t e = named_ev_[nb].size();
    out += e * (e + total / ex + 1);
  }
  for (size_t t = 0; t < writes_.size(); ++t)
    out += writes_[t].size() * (writes_[t].size() + (t < reads_.size() ? reads_[t].size() : 0));
  uint64_t accesses = 0;
  for (int p = 0; p < m_.P; ++p)
    for (int pc = 0; pc < m_.programSize(p); ++pc) accesses += instr(p, pc).accesses.size();
  return out + accesses * n;
}

// A fresh clock `name` equal to the clock of the first event (by clock)
// whose condition holds, inf when none does: a completion clock.
E Po::firstWhere(const std::string& name, const std::vector<std::pair<E, int>>& conds, std::vector<E>& base) {
  E d = var(name);
  std::vector<E> hits, none;
  for (const auto& [cond, ev] : conds) {
    base.push_back(z3::implies(cond, le(d, T(ev))));
    hits.push_back(cond && d == T(ev));
    none.push_back(!cond);
  }
  base.push_back(any(hits) || (all(none) && d == inf_));
  return d;
}

// The generations of every named barrier in closed form, as the phases of
// a slot: the clock g[nb][j] of the arrival that brings the barrier's count
// to expected (j + 1) warps (pseudo-Boolean constraints over the order
// atoms), monotone in j; "a generation completes in [from, to)" and "j
// generations before tau" are then difference constraints instead of
// integer division of sums of ite terms. Arrivals at one barrier never tie
// (build), so the count before an event is the count up to its predecessor.
void Po::namedGenerations(std::vector<E>& base) {
  gd_.assign(m_.N, {});
  if (!ints_) return;  // bit-vectors: the sums (genAt)
  for (int nb = 0; nb < m_.N; ++nb) {
    const int64_t ex = sys_.named[nb].expected_warps;
    const auto& evs = named_ev_[nb];
    int64_t total = 0;
    for (auto [ev, w] : evs) total += w;
    if (ex <= 0 || total + ex >= (int64_t(1) << 30)) continue;
    std::vector<z3::expr_vector> ups;
    std::vector<int> ws;
    for (auto [ev, w] : evs) ws.push_back(static_cast<int>(w));
    for (auto [f, wf] : evs) {
      poll();
      ups.emplace_back(c_);
      for (auto [g, wg] : evs) ups.back().push_back(upToHb(g, f));
    }
    for (int64_t j = 0; j < total / ex; ++j) {
      poll();
      std::vector<std::pair<E, int>> conds;
      for (size_t f = 0; f < evs.size(); ++f)
        conds.push_back({z3::pbge(ups[f], ws.data(), static_cast<int>(ex * (j + 1))), evs[f].first});
      E g = firstWhere(fmt::format("g{}_{}", nb, j), conds, base);
      if (!gd_[nb].empty()) base.push_back(le(gd_[nb].back(), g));
      gd_[nb].push_back(g);
    }
  }
}

E Po::namedOverflow(int nb, int e, int64_t w) const {
  const int64_t ex = sys_.named[nb].expected_warps;
  if (gd_[nb].empty()) return lt(num(ex), mod(warpsBefore(nb, T(e)), num(ex)) + num(w));
  // m generations complete before e and at least ex (m + 1) - w + 1 warps
  // arrived before it
  z3::expr_vector bs(c_);
  std::vector<int> ws;
  for (auto [ev, wv] : named_ev_[nb]) {
    bs.push_back(before(ev, T(e)));
    ws.push_back(static_cast<int>(wv));
  }
  const auto& gs = gd_[nb];
  std::vector<E> xs;
  for (size_t m = 0; m <= gs.size(); ++m) {
    const int64_t mi = static_cast<int64_t>(m);
    E exactly = (m == 0 ? c_.bool_val(true) : genBefore(nb, mi - 1, T(e))) &&
                (m == gs.size() ? c_.bool_val(true) : !genBefore(nb, mi, T(e)));
    xs.push_back(exactly && z3::pbge(bs, ws.data(), static_cast<int>(ex * (m + 1) - w + 1)));
  }
  return any(xs);
}

// Static happens-before, stated to the solver and used to drop race pairs.
//
//  * Arrival lemma: phase j of slot k completes at the first slot event
//    with A >= init (j + 1). An arrival a and the slot events that come
//    after it by hb_ are all missing from A at any clock before t_a; when
//    the rest weigh less than init (j + 1), phase j cannot complete before
//    a: d[k][j] < END implies t_a <= d[k][j]. (By induction over the clock
//    of an edge's target: the edges on a path from a to a slot event before
//    d[k][j] < END all end before END, where they hold.) Edges and lemmas
//    are grown to a fixpoint: a consumer's arrival for lap j is forced into
//    phase j once the other consumers' later arrivals are known to follow
//    it (through the producer's waits and the full barrier).
//  * Wait lemma: a wait for phase n before END passed with n + 1 phases
//    completed (else it is a stale phase, a violation), so d[k][n] < t_w.
//    Query (1) asks whether some run violates a rule at END; the first
//    violation of a violating run is reached by a run whose earlier waits
//    are not stale, so the lemma keeps query (1) complete; query (2) asks
//    about violation-free prefixes, where it holds anyway.
//  * Together: a < w for every arrival a forced into the phase w waits for.
//    hb_ is the transitive closure of these edges and the structural ones.
//    Every edge on a path to an event f at or before END holds in the
//    models asked about (each wait on it precedes f), so a race pair whose
//    access ended before f by hb_, or that starts after f, is dropped.
void Po::hbOrder() {
  const int n = events();
  std::vector<std::vector<int>> pred0(n);  // structural edges, into each event
  for (int p = 0; p < m_.P; ++p)
    for (int pc = 1; pc < m_.programSize(p); ++pc) pred0[exec_[p][pc]].push_back(exec_[p][pc - 1]);
  for (auto [key, e] : land_) pred0[e].push_back(exec_[key.first][key.second]);
  for (int p = 0; p < m_.P; ++p)
    for (const Grp& g : groups_[p * sim::kGroupKinds + sim::kMma])
      if (g.barrier) pred0[g.complete_ev].push_back(exec_[p][g.commit_pc]);
  auto& waits = waits_;  // per slot: (event, phase)
  waits.assign(m_.S, {});
  for (int p = 0; p < m_.P; ++p)
    for (int pc = 0; pc < m_.programSize(p); ++pc) {
      const Instr& in = instr(p, pc);
      if (in.kind == InstrKind::Wait && in.phase >= 0) waits[in.slot].push_back({exec_[p][pc], in.phase});
    }
  // forced[k][i]: the first phase slot event i of slot k must count into, or -1
  auto& forced = forced_;
  forced.assign(m_.S, {});
  for (int k = 0; k < m_.S; ++k) forced[k].assign(slot_ev_[k].size(), -1);
  // named barriers: every bar.sync with its arrive (the closest SyncArrive
  // of the barrier before it in its process, as enabled() takes it)
  nforced_.assign(m_.N, {});
  syncs_.assign(m_.N, {});
  for (int nb = 0; nb < m_.N; ++nb) nforced_[nb].assign(named_ev_[nb].size(), -1);
  for (int p = 0; p < m_.P; ++p)
    for (int pc = 0; pc < m_.programSize(p); ++pc) {
      const Instr& in = instr(p, pc);
      if (in.kind != InstrKind::SyncWait) continue;
      for (int x = pc - 1; x >= 0; --x)
        if (instr(p, x).kind == InstrKind::SyncArrive && instr(p, x).named == in.named) {
          syncs_[in.named].push_back({exec_[p][pc], exec_[p][x], 0});
          break;
        }
    }
  const size_t words = (n + 63) / 64;
  auto closure = [&] {
    std::vector<std::vector<int>> pred = pred0;
    for (int k = 0; k < m_.S; ++k)
      for (auto [w, phase] : waits[k])
        for (size_t i = 0; i < slot_ev_[k].size(); ++i)
          if (forced[k][i] >= 0 && forced[k][i] <= phase) pred[w].push_back(slot_ev_[k][i].ev);
    // arrival -> bar.sync: an arrival forced into generation <= j comes
    // before every bar.sync that waits for a generation >= j
    for (int nb = 0; nb < m_.N; ++nb)
      for (const NamedSync& sy : syncs_[nb])
        for (size_t i = 0; i < named_ev_[nb].size(); ++i)
          if (nforced_[nb][i] >= 0 && nforced_[nb][i] <= sy.lo) pred[sy.wait].push_back(named_ev_[nb][i].first);
    hb_.assign(n, std::vector<uint64_t>(words, 0));
    std::vector<int> stack;
    for (int f = 0; f < n; ++f) {
      if (f % 64 == 0) poll();
      auto& seen = hb_[f];
      stack.assign(pred[f].begin(), pred[f].end());
      while (!stack.empty()) {
        int e = stack.back();
        stack.pop_back();
        if ((seen[e / 64] >> (e % 64)) & 1) continue;
        seen[e / 64] |= uint64_t(1) << (e % 64);
        for (int x : pred[e]) stack.push_back(x);
      }
    }
  };
  for (int round = 0; round < 64; ++round) {
    closure();
    bool changed = false;
    for (int k = 0; k < m_.S; ++k) {
      poll();
      const auto& evs = slot_ev_[k];
      int64_t total_w = 0, total_land = 0;
      for (const SlotEv& g : evs) { total_w += g.w; total_land += g.land; }
      const int64_t phases = total_w / init_[k];  // as many as d_[k] has
      // expected[j]: the bytes of the slot events forced into phases <= j
      std::vector<int64_t> expected(phases, 0);
      for (size_t i = 0; i < evs.size(); ++i)
        if (forced[k][i] >= 0)
          for (int64_t j = forced[k][i]; j < phases; ++j) expected[j] += evs[i].exp;
      // waited[g]: the highest phase of a wait of the slot that comes
      // before slot event g by hb_ (-1: none)
      std::vector<int64_t> waited(evs.size(), -1);
      for (size_t g = 0; g < evs.size(); ++g)
        for (auto [w, phase] : waits[k])
          if (hb(w, evs[g].ev)) waited[g] = std::max(waited[g], phase);
      // after_j(x): x, the slot events after it by hb_, and those after a
      // wait of the slot for a phase >= j: none of them counts before
      // d[k][j] if x does not.
      auto afterSet = [&](const SlotEv& x, int64_t j, int64_t SlotEv::*what) {
        int64_t sum = 0;
        for (size_t g = 0; g < evs.size(); ++g)
          if (evs[g].ev == x.ev || hb(x.ev, evs[g].ev) || waited[g] >= j) sum += evs[g].*what;
        return sum;
      };
      for (size_t i = 0; i < evs.size(); ++i) {
        const SlotEv& x = evs[i];
        if (!x.w && !x.land) continue;
        int64_t limit = forced[k][i] >= 0 ? forced[k][i] : phases;
        for (int64_t j = 0; j < limit; ++j) {
          // phase j needs init (j + 1) arrivals and, with tx == 0, at least
          // expected[j] landed bytes
          bool arrivals = x.w && total_w - afterSet(x, j, &SlotEv::w) < init_[k] * (j + 1);
          bool bytes = x.land && total_land - afterSet(x, j, &SlotEv::land) < expected[j];
          if (!arrivals && !bytes) continue;
          forced[k][i] = j;
          changed = true;
          break;
        }
      }
    }
    if (namedRound()) changed = true;
    if (!changed) break;
  }
}

// The events of one slot or of one named barrier never tie, stated as
// "t_a < t_b or t_b < t_a" for each pair that happens-before leaves
// unordered (docs/z3.md "Ties without distinct"). Not z3::distinct: Z3
// 4.8's difference-logic solver gives up ("incomplete") on the
// disequalities distinct becomes, and the query then goes to the simplex
// solver (fa3_persistent at seqlen_q=1025, seqlen_k=193: 3.4 s to give up,
// then past 30 s; now unsat in 3.7 s). A pair ordered by hb_ needs nothing:
// by program order, issue -> landing and commit -> completion it never
// ties; by a lemma edge it is ordered whenever its later event is at or
// before END, and a tie past END changes no count before END. Dropping a
// constraint only adds models, so "no violation" stays sound either way.
void Po::untieCounted(std::vector<E>& base) const {
  auto untie = [&](const std::vector<int>& evs) {
    for (size_t i = 0; i < evs.size(); ++i)
      for (size_t j = i + 1; j < evs.size(); ++j)
        if (!hb(evs[i], evs[j]) && !hb(evs[j], evs[i])) base.push_back(apart(evs[i], evs[j]));
  };
  for (const auto& evs : slot_ev_) {
    std::vector<int> ids;
    for (const SlotEv& f : evs) ids.push_back(f.ev);
    untie(ids);
  }
  for (const auto& evs : named_ev_) {
    std::vector<int> ids;
    for (auto [e, w] : evs) ids.push_back(e);
    untie(ids);
  }
}

// One round of the named-barrier lemmas over the current hb_ (docs/z3.md
// "Named-barrier generations"); true when a bound moved. A barrier
// expecting E warps is at generation floor(W / E) after W warps (no
// instance brings more than E: checkShape), its generation j completes at
// the arrival that brings W to E (j + 1) (clock g[nb][j]), and a bar.sync
// whose arrive saw generation m passes once g[nb][m] precedes it.
//  * Lower bound (lo): the arrivals before a bar.sync's arrive `a` by hb_
//    have arrived before it, and a bar.sync before `a` by hb_ passed, so
//    the generation `a` records is at least floor(their warps / E) and at
//    least that bar.sync's bound + 1.
//  * Generation lemma: an arrival b, the arrivals after it by hb_, and the
//    arrivals after a bar.sync waiting for a generation >= j are all
//    missing from W at clocks before t_b (were g[nb][j] < t_b, the last
//    ones came after that bar.sync, which passed after g[nb][j]); when the
//    rest bring fewer than E (j + 1) warps, generation j cannot complete
//    before b: g[nb][j] < END implies t_b <= g[nb][j] (b is forced into a
//    generation <= j).
//  * Hence b -> w for every bar.sync w whose bound is >= j:
//    t_b <= g[nb][j] <= g[nb][lo] < t_w.
bool Po::namedRound() {
  bool changed = false;
  for (int nb = 0; nb < m_.N; ++nb) {
    const int64_t ex = sys_.named[nb].expected_warps;
    const auto& evs = named_ev_[nb];
    if (ex <= 0 || evs.empty()) continue;
    int64_t total = 0;
    for (auto [e, w] : evs) total += w;
    const int64_t gens = total / ex;  // generations that can complete at all
    auto& syncs = syncs_[nb];
    for (bool grew = true; grew;) {  // a bound raises the bounds after it
      grew = false;
      for (NamedSync& sy : syncs) {
        int64_t warps = 0;
        for (auto [e, w] : evs)
          if (hb(e, sy.arrive)) warps += w;
        int64_t lo = warps / ex;
        for (const NamedSync& o : syncs)
          if (&o != &sy && hb(o.wait, sy.arrive)) lo = std::max(lo, o.lo + 1);
        lo = std::min(lo, gens);
        if (lo > sy.lo) {
          sy.lo = lo;
          grew = changed = true;
        }
      }
    }
    // waited[g]: the highest bound of a bar.sync of nb before arrival g by hb_
    std::vector<int64_t> waited(evs.size(), -1);
    for (size_t g = 0; g < evs.size(); ++g)
      for (const NamedSync& sy : syncs)
        if (hb(sy.wait, evs[g].first)) waited[g] = std::max(waited[g], sy.lo);
    for (size_t i = 0; i < evs.size(); ++i) {
      const int64_t limit = nforced_[nb][i] >= 0 ? nforced_[nb][i] : gens;
      for (int64_t j = 0; j < limit; ++j) {
        int64_t missing = 0;
        for (size_t g = 0; g < evs.size(); ++g)
          if (g == i || hb(evs[i].first, evs[g].first) || waited[g] >= j) missing += evs[g].second;
        if (total - missing >= ex * (j + 1)) continue;
        nforced_[nb][i] = j;
        changed = true;
        break;
      }
    }
  }
  return changed;
}

void Po::hbLemmas(std::vector<E>& base) {
  const auto& forced = forced_;
  const auto& waits = waits_;
  for (int k = 0; k < m_.S; ++k) {
    for (size_t i = 0; i < slot_ev_[k].size(); ++i)
      if (forced[k][i] >= 0)
        base.push_back(z3::implies(lt(d_[k][forced[k][i]], end_), le(T(slot_ev_[k][i].ev), d_[k][forced[k][i]])));
    for (auto [w, phase] : waits[k]) {
      if (phase >= static_cast<int64_t>(d_[k].size())) base.push_back(!lt(T(w), end_));  // never passes cleanly
      else base.push_back(z3::implies(lt(T(w), end_), lt(d_[k][phase], T(w))));
    }
  }
  // named barriers (namedRound): with generation clocks, the generation
  // lemma and "a bar.sync before END passed after g[nb][lo]"; without
  // (bit-vectors, the sum fallback), the edges themselves
  for (int nb = 0; nb < m_.N; ++nb) {
    const auto& gs = gd_[nb];
    const auto& evs = named_ev_[nb];
    if (!gs.empty())
      for (size_t i = 0; i < evs.size(); ++i)
        if (int64_t j = nforced_[nb][i]; j >= 0 && j < static_cast<int64_t>(gs.size()))
          base.push_back(z3::implies(lt(gs[j], end_), le(T(evs[i].first), gs[j])));
    int64_t total = 0;
    for (auto [e, w] : evs) total += w;
    const int64_t ex = sys_.named[nb].expected_warps;
    const int64_t gens = ex > 0 ? total / ex : 0;
    for (const NamedSync& sy : syncs_[nb]) {
      if (sy.lo >= gens) {
        base.push_back(!lt(T(sy.wait), end_));  // waits for a generation that never completes
        continue;
      }
      if (!gs.empty()) {
        base.push_back(z3::implies(lt(T(sy.wait), end_), lt(gs[sy.lo], T(sy.wait))));
        continue;
      }
      for (size_t i = 0; i < evs.size(); ++i)
        if (nforced_[nb][i] >= 0 && nforced_[nb][i] <= sy.lo)
          base.push_back(z3::implies(lt(T(sy.wait), end_), lt(T(evs[i].first), T(sy.wait))));
    }
  }
}

// Whether event e may be taken in the state before tau (program order and
// issue/commit order are structural).
E Po::enabled(int e, const E& tau, bool next) const {
  const Step& st = ev_[e].step;
  const Instr& in = instr(st.proc, st.pc);
  if (st.kind == Step::Kind::Land) return !before(e, tau);
  if (st.kind == Step::Kind::Complete) {
    std::vector<E> xs{before(exec_[st.proc][st.pc], tau), !before(e, tau)};
    const auto& gs = groups_[st.proc * sim::kGroupKinds + sim::kMma];
    int seq = -1;
    for (const Grp& g : gs)
      if (g.commit_pc == st.pc) seq = g.seq;
    for (const Grp& g : gs)
      if (g.seq >= 0 && g.seq < seq) xs.push_back(before(removalEvent(st.proc, g), tau));
    return all(xs);
  }
  switch (in.kind) {
    case InstrKind::Wait: {
      int64_t np = ((in.phase % 2) + 2) % 2;
      E odd = cOdd(in.slot, tau, next ? e : -1);
      return np ? !odd : odd;
    }
    case InstrKind::SyncWait: {
      int a = -1;
      for (int x = st.pc - 1; x >= 0 && a < 0; --x)
        if (instr(st.proc, x).kind == InstrKind::SyncArrive && instr(st.proc, x).named == in.named) a = exec_[st.proc][x];
      if (a < 0) return c_.bool_val(false);
      return genCompletesIn(in.named, T(a), tau, next ? e : -1);
    }
    case InstrKind::MmaWait: {
      std::vector<E> xs;
      auto it = mma_wait_needs_.find({st.proc, st.pc});
      if (it != mma_wait_needs_.end())
        for (int g : it->second) xs.push_back(before(group(st.proc, sim::kMma, g).complete_ev, tau));
      return all(xs);
    }
    default: return c_.bool_val(true);
  }
}

// A landing or completion is never taken after every process has exited
// (the exit state ends a run).
E Po::notAfterExit(int e) const {
  const Step& st = ev_[e].step;
  if (st.kind == Step::Kind::Exec) return c_.bool_val(true);
  std::vector<E> xs;
  for (int p = 0; p < m_.P; ++p) xs.push_back(!finishedAt(p, T(e)));
  return any(xs);
}

// Is access j of (q, qpc) still in progress in the state before tau, as
// seen by a step of process p (sim_state.cpp checkRace: in-flight loads,
// unretired group ops, another process's current synchronous access)?
E Po::live(int q, int qpc, int j, int p, const E& tau) const {
  const Instr& qi = instr(q, qpc);
  E issued = before(exec_[q][qpc], tau);
  if (qi.kind == InstrKind::TmaLoad) return j == 0 ? issued && !before(land_.at({q, qpc}), tau) : c_.bool_val(false);
  int k = m_.groupKind(qi.kind);
  if (k >= 0 && op_group_[q][qpc] >= 0) {
    if (!qi.accesses[j].async) return c_.bool_val(false);
    return issued && !before(removalEvent(q, group(q, k, op_group_[q][qpc])), tau);
  }
  if (q == p || !m_.isSyncAccess(q, qpc)) return c_.bool_val(false);
  return qpc == lastPc(q) ? issued : issued && !before(exec_[q][qpc + 1], tau);
}

// The event after which the accesses of (q, qpc) are no longer live (the
// cases of live()), or -1 (live to the end).
int Po::endOf(int q, int qpc) const {
  const Instr& qi = instr(q, qpc);
  if (qi.kind == InstrKind::TmaLoad) return land_.at({q, qpc});
  int k = m_.groupKind(qi.kind);
  if (k >= 0 && op_group_[q][qpc] >= 0) return removalEvent(q, group(q, k, op_group_[q][qpc]));
  return qpc == lastPc(q) ? -1 : exec_[q][qpc + 1];
}

E Po::raceAt(int p, int pc, int i) const {
  const Access& acc = m_.access(p, pc, i);
  const Instr& me = instr(p, pc);
  E tau = T(exec_[p][pc]);
  std::vector<E> xs;
  for (int q = 0; q < m_.P; ++q)
    for (int qpc = 0; qpc < m_.programSize(q); ++qpc) {
      if (q == p && qpc == pc) continue;
      const Instr& qi = instr(q, qpc);
      if (q == p && me.kind == InstrKind::Mma && qi.kind == InstrKind::Mma) continue;
      // issued after this step, or retired before it, in every model asked about
      if (hb(exec_[p][pc], exec_[q][qpc]) || hb(endOf(q, qpc), exec_[p][pc])) continue;
      for (size_t j = 0; j < qi.accesses.size(); ++j) {
        if (!accessesConflict(m_.sys, acc, qi.accesses[j]) || !m_.overlap(p, pc, i, q, qpc, static_cast<int>(j))) continue;
        E l = live(q, qpc, static_cast<int>(j), p, tau);
        if (!l.is_false()) xs.push_back(l);
      }
    }
  return any(xs);
}

// Atom t carries an unfenced generic-proxy write mark in the state before
// tau: a generic write of it came before tau, its process has not fenced
// since, and no async-proxy write of the atom followed it.
E Po::unfencedWrite(int t, const E& tau) const {
  const auto& ws = writes_[t];
  std::vector<E> unf;
  for (const WriteOcc& w : ws) {
    if (!w.generic) continue;
    std::vector<E> xs{before(w.ev, tau), !before(w.fence_ev, tau)};
    for (const WriteOcc& a : ws)
      if (!a.generic) xs.push_back(!(before(a.ev, tau) && laterWrite(a, w)));
    unf.push_back(all(xs));
  }
  return any(unf);
}

// Atom t carries an unfenced generic-proxy read mark before tau: a
// synchronous generic read of it came before tau, its process has not
// fenced since, and no async-proxy write of the atom (a landing) followed.
E Po::unfencedRead(int t, const E& tau) const {
  std::vector<E> unf;
  for (const ReadOcc& r : reads_[t]) {
    std::vector<E> xs{before(r.ev, tau), !before(r.fence_ev, tau)};
    for (const WriteOcc& a : writes_[t])
      if (!a.generic) xs.push_back(!(before(a.ev, tau) && precedesBeforeEnd(r.ev, a.ev)));
    unf.push_back(all(xs));
  }
  return any(unf);
}

// Missing fence at an async-proxy write (a TMA load, at its issue) that does
// not race: some atom still marked by a generic read or write
// (sim_state.cpp checkAsyncWrite: write-after-read / write-after-write
// across proxies).
E Po::asyncWriteRule(int p, int pc, int i) const {
  const sim::AtomRange& r = m_.atoms_of[p][pc][i];
  E tau = T(exec_[p][pc]);
  std::vector<E> xs;
  for (int x = r.a0; x < r.a1; ++x) {
    int t = m_.tracked_of[x];
    if (t < 0) continue;
    xs.push_back(unfencedRead(t, tau) || unfencedWrite(t, tau));
  }
  return any(xs);
}

// Missing fence / stale data at a read that does not race: the first
// tracked atom of the read with a problem decides (sim_state.cpp checkRead).
void Po::readRules(int p, int pc, int i, E& fence, E& stale) const {
  const Access& acc = m_.access(p, pc, i);
  const sim::AtomRange& r = m_.atoms_of[p][pc][i];
  E tau = T(exec_[p][pc]);
  std::vector<E> fences, stales;
  E clean_so_far = c_.bool_val(true);
  for (int x = r.a0; x < r.a1; ++x) {
    int t = m_.tracked_of[x];
    if (t < 0) continue;
    const auto& ws = writes_[t];
    E f = acc.proxy == Proxy::Async ? unfencedWrite(t, tau) : c_.bool_val(false);
    E s = c_.bool_val(false);
    if (acc.view >= 0) {
      std::vector<E> none, bad;
      for (const WriteOcc& w : ws) {
        none.push_back(!before(w.ev, tau));
        if (!sim::staleWrite(m_, p, acc, m_.write_id[w.proc][w.pc][w.acc])) continue;
        std::vector<E> last{before(w.ev, tau)};
        for (const WriteOcc& o : ws)
          if (&o != &w) last.push_back(!(before(o.ev, tau) && laterWrite(o, w)));
        bad.push_back(all(last));
      }
      s = all(none) || any(bad);
    }
    fences.push_back(clean_so_far && f);
    stales.push_back(clean_so_far && !f && s);
    clean_so_far = clean_so_far && !f && !s;
  }
  fence = any(fences);
  stale = any(stales);
}

void Po::stepRules() {
  for (int e = 0; e < events(); ++e) {
    poll();
    const Step& st = ev_[e].step;
    const Instr& in = instr(st.proc, st.pc);
    auto& rules = step_viol_[e];
    if (st.kind == Step::Kind::Land) {
      E issue = T(exec_[st.proc][st.pc]);
      rules.insert_or_assign("sync.tx-imbalance", completesIn(in.slot, issue, T(e)));
      continue;
    }
    if (st.kind != Step::Kind::Exec) continue;
    // decided when the system was built (System: register fragments)
    if (in.regs_hazard.regs_space >= 0) rules.insert_or_assign(in.regs_hazard.rule(), c_.bool_val(true));
    switch (in.kind) {
      case InstrKind::Wait:
        rules.insert_or_assign("sync.stale-phase", !cExactly(in.slot, in.phase + 1, T(e)));
        break;
      case InstrKind::SyncArrive:
      case InstrKind::BarArrive: {
        int64_t ex = sys_.named[in.named].expected_warps;
        if (ex <= 0) break;
        rules.insert_or_assign("sync.arrival-overflow", namedOverflow(in.named, e, sys_.procs[st.proc].warps));
        break;
      }
      case InstrKind::TmaLoad:
      case InstrKind::TmaStore:
      case InstrKind::CpAsync:
      case InstrKind::Mma:
      case InstrKind::TmemLoad:
      case InstrKind::TmemStore:
      case InstrKind::Generic: {
        std::vector<E> races, fences, stales;
        for (size_t i = 0; i < in.accesses.size(); ++i) {
          E race = raceAt(st.proc, st.pc, static_cast<int>(i));
          races.push_back(race);
          if (in.accesses[i].write) {
            if (in.accesses[i].proxy == Proxy::Async)
              fences.push_back(!race && asyncWriteRule(st.proc, st.pc, static_cast<int>(i)));
            continue;
          }
          E f(c_), s(c_);
          readRules(st.proc, st.pc, static_cast<int>(i), f, s);
          fences.push_back(!race && f);
          stales.push_back(!race && s);
        }
        rules.insert_or_assign("sync.race", any(races));
        rules.insert_or_assign("proxy.missing-fence", any(fences));
        rules.insert_or_assign("data.stale-read", any(stales));
        break;
      }
      default: break;
    }
  }
}

// t_e < END in a state where every process has finished (the
// async-at-exit target, asked only there): true for an instruction, and for
// an event that comes before an instruction by happens-before (the
// instruction is before END, where every edge into it holds).
E Po::doneAtExit(int e) const {
  if (e < 0) return c_.bool_val(false);
  if (ev_[e].step.kind == Step::Kind::Exec) return c_.bool_val(true);
  for (int p = 0; p < m_.P; ++p)
    if (m_.programSize(p) > 0 && hb(e, exec_[p][lastPc(p)])) return c_.bool_val(true);
  return lt(T(e), end_);
}

// A landed load or a completed barrier MMA group that no wait has observed
// (sim_state.cpp observe / knowCompleted), in the state before END where
// every process has finished: every wait ran before END, so the order of an
// event and a wait is decided by happens-before where it orders them
// (precedesBeforeEnd: the wait is before END), and the counts at both by
// completesIn (the event precedes the wait there).
E Po::unobservedAtExit() const {
  auto observedOnSlot = [&](int k, int from) {
    std::vector<E> xs;
    for (int p = 0; p < m_.P; ++p)
      for (int pc = 0; pc < m_.programSize(p); ++pc) {
        const Instr& in = instr(p, pc);
        if (in.kind != InstrKind::Wait || in.slot != k) continue;
        int w = exec_[p][pc];
        xs.push_back(precedesBeforeEnd(from, w) && completesIn(k, T(from), T(w)));
      }
    return any(xs);
  };
  std::vector<E> un;
  for (auto [key, e] : land_) un.push_back(doneAtExit(e) && !observedOnSlot(instr(key.first, key.second).slot, e));
  for (int p = 0; p < m_.P; ++p) {
    const auto& gs = groups_[p * sim::kGroupKinds + sim::kMma];
    for (const Grp& g : gs) {
      if (!g.barrier) continue;
      std::vector<E> seen;
      for (int pc = 0; pc < m_.programSize(p); ++pc)
        if (instr(p, pc).kind == InstrKind::MmaWait) seen.push_back(precedesBeforeEnd(g.complete_ev, exec_[p][pc]));
      for (const Grp& h : gs)  // its own or a later group's completion observed on its slot
        if (h.barrier && h.seq >= g.seq) seen.push_back(observedOnSlot(instr(p, h.commit_pc).slot, h.complete_ev));
      un.push_back(doneAtExit(g.complete_ev) && !any(seen));
    }
  }
  return any(un);
}

void Po::stateRules() {
  // step rules at the event whose clock is END
  std::vector<E> lost_at_end;
  for (int p = 0; p < m_.P; ++p)
    for (int pc = 0; pc < m_.programSize(p); ++pc) {
      const Instr& in = instr(p, pc);
      if (in.kind == InstrKind::Wait)
        lost_at_end.push_back(at(p, pc, end_) && cAtLeast(in.slot, in.phase + 2, end_, exec_[p][pc]));
    }
  E lost = any(lost_at_end);
  for (const char* rule : kStepRules) {
    std::vector<E> xs;
    for (int e = 0; e < events(); ++e) {
      auto it = step_viol_[e].find(rule);
      if (it == step_viol_[e].end()) continue;
      xs.push_back(T(e) == end_ && enabled(e, T(e)) && notAfterExit(e) && it->second);
    }
    targets_.emplace(rule, !lost && any(xs));
  }
  targets_.emplace("sync.lost-phase", lost);
  {
    std::vector<E> xs;
    for (int e = 0; e < events(); ++e) {
      if (!arrivalType(e)) continue;
      const Instr& in = instr(ev_[e].step.proc, ev_[e].step.pc);
      xs.push_back(T(e) == end_ && enabled(e, T(e)) && notAfterExit(e) && !cExactly(in.slot, in.phase, T(e)));
    }
    targets_.emplace(kLandsElsewhere, !lost && any(xs));
  }

  std::vector<E> finished, inflight;
  for (int p = 0; p < m_.P; ++p) finished.push_back(finishedAt(p, end_));
  for (auto [key, e] : land_) inflight.push_back(before(exec_[key.first][key.second], end_) && !before(e, end_));
  // deadlock: some process unfinished, every next step disabled; when a
  // static candidate (an annotated underflow / tx-imbalance) explains a
  // blocked wait, the state is that candidate's witness instead
  // (sim_state.cpp deadlock)
  std::vector<E> dl{!all(finished), !any(inflight), !lost}, explained;
  for (int p = 0; p < m_.P; ++p)
    for (int pc = 0; pc < m_.programSize(p); ++pc) {
      const Instr& in = instr(p, pc);
      E here = at(p, pc, end_);
      dl.push_back(z3::implies(here, !enabled(exec_[p][pc], end_, true)));
      if (in.kind == InstrKind::Wait && std::any_of(statics_.begin(), statics_.end(), [&](const Violation& v) {
            return sim::explainsDeadlock(v, in.slot, in.phase);
          }))
        explained.push_back(here);
    }
  for (int p = 0; p < m_.P; ++p)
    for (const Grp& g : groups_[p * sim::kGroupKinds + sim::kMma])
      if (g.barrier) dl.push_back(!enabled(g.complete_ev, end_));
  targets_.emplace("sync.deadlock", all(dl) && !any(explained));
  targets_.emplace(kExplainedDeadlock, all(dl) && any(explained));

  // async work at exit: in-flight loads, unretired group ops, barrier groups
  // not completed, completions nobody observed
  // (every process finished: doneAtExit decides what happens-before does)
  std::vector<E> left;
  for (auto [key, e] : land_) left.push_back(!doneAtExit(e));
  for (int p = 0; p < m_.P; ++p)
    for (int k = 0; k < sim::kGroupKinds; ++k)
      for (const Grp& g : groups_[p * sim::kGroupKinds + k])
        if (!g.ops.empty() || g.barrier) left.push_back(!doneAtExit(removalEvent(p, g)));
  left.push_back(unobservedAtExit());
  targets_.emplace("sync.async-at-exit", all(finished) && any(left));
}

std::vector<std::pair<int, int>> Po::tiesOf(const z3::model& mdl) const {
  uint64_t end = mdl.eval(end_, true).get_numeral_uint64();
  std::map<uint64_t, std::vector<int>> at;
  for (int e = 0; e < events(); ++e) {
    uint64_t t = mdl.eval(T(e), true).get_numeral_uint64();
    if (t <= end) at[t].push_back(e);
  }
  std::vector<std::pair<int, int>> out;
  for (const auto& [t, evs] : at)
    for (size_t i = 1; i < evs.size(); ++i) out.push_back({evs[i - 1], evs[i]});
  return out;
}

Trace Po::traceOf(const z3::model& mdl, bool with_end) const {
  uint64_t end = mdl.eval(end_, true).get_numeral_uint64();
  std::vector<std::pair<uint64_t, int>> order;
  for (int e = 0; e < events(); ++e) {
    uint64_t t = mdl.eval(T(e), true).get_numeral_uint64();
    if (t < end || (with_end && t == end)) order.push_back({t, e});
  }
  std::sort(order.begin(), order.end());
  Trace tr;
  for (auto [t, e] : order) tr.push_back(ev_[e].step);  // ties: by event id
  return tr;
}

// The simulator's decision on the last step of a Z3 trace: does it count
// into another phase than its op means (sim::landsElsewhere)? nullopt when
// it does not, or the trace does not replay.
std::optional<Landing> replayLanding(const System& sys, const Trace& tr) {
  if (tr.empty()) return std::nullopt;
  sim::Model m(sys);
  sim::State s = sim::initialState(m);
  for (size_t i = 0; i < tr.size(); ++i) {
    sim::Async a = sim::decodeAsync(m, s);
    if (!sim::isEnabled(m, s, a, tr[i])) return std::nullopt;
    if (i + 1 == tr.size()) {
      auto c = sim::landsElsewhere(m, s, tr[i]);
      if (!c) return std::nullopt;
      return Landing{tr[i].proc, tr[i].pc, m.instr(tr[i].proc, tr[i].pc).phase, *c};
    }
    std::vector<Violation> ignored;
    sim::applyStep(m, s, a, tr[i], ignored, nullptr);
  }
  return std::nullopt;
}

// CPU seconds of the calling thread (Z3 runs in it)
double poThreadCpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

// distinct nodes of a formula (its size as Z3 sees it)
size_t dagSize(const E& root) {
  std::set<unsigned> seen;
  std::vector<E> stack{root};
  while (!stack.empty()) {
    E e = stack.back();
    stack.pop_back();
    if (!seen.insert(e.id()).second) continue;
    if (e.is_app())
      for (unsigned i = 0; i < e.num_args(); ++i) stack.push_back(e.arg(i));
  }
  return seen.size();
}

std::string traceText(const System& sys, const Trace& t) {
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) out += fmt::format("\n  {}: {}", i, stepToString(sys, t[i]));
  return out;
}

}  // namespace

// One solver call on `runs && goal` with the given arithmetic solver; appends
// its CPU time and Z3's counters to out.profile.
z3w::QueryResult solveOnce(z3::context& c, const Po& po, const E& runs, const E& goal, const PoBudget& budget,
                           const Limits& limits, unsigned arith_solver, std::optional<z3::model>& mdl, PoResult& out) {
  // Each query gets what is left of the check's wall clock and of its
  // resource units (all passes and queries of one poCheck together): none
  // left is a query that ran out, never asked.
  Limits lim = limits;
  if (limits.rlimit > 0) {
    lim.rlimit = budget.left();
    if (lim.rlimit == 0) return {z3w::Answer::FailedToProve, "resource limit", 0};
  }
  if (budget.deadline.expired())
    return {z3w::Answer::FailedToProve, fmt::format("timeout after {:.1f} s", limits.timeout_ms / 1000.0), 0};
  const double c0 = poThreadCpu();
  // The difference-logic pass runs the plain `smt` tactic: Z3's default
  // solver probes and preprocesses each goal first, about 10 ms per query,
  // the whole cost of a small binding's query. The simplex fallback keeps
  // the default solver, as before.
  z3::solver s = !po.ints()          ? z3::tactic(c, "qfbv").mk_solver()
                 : arith_solver == 1 ? z3::tactic(c, "smt").mk_solver()
                                     : z3::solver(c);
  if (po.ints()) {
    z3::params p(c);
    p.set("smt.arith.solver", arith_solver);
    // where it gives up, the smt tactic keeps the candidate assignment
    if (arith_solver == 1) p.set("candidate_models", true);
    // Z3's automatic configuration puts a formula that is pure difference
    // logic (no pseudo-Boolean constraint left once happens-before decided
    // their atoms) on the simplex solver whatever smt.arith.solver says
    // (smt_setup.cpp setup_QF_IDL); without it the parameter is honoured.
    if (arith_solver == 1) p.set("auto_config", false);
    s.set(p);
  }
  s.add(runs);
  s.add(goal);
  lim.timeout_ms = std::max(1u, budget.deadline.remainingMs());
  // The simplex solver spends 1-2.5 us of CPU per resource unit on these
  // queries, the difference-logic and bit-vector solvers 0.13-0.3 us
  // (docs/z3.md "The simplex pass's resource units"): a query with a
  // resource limit is cut and charged at that rate.
  if (arith_solver == 2) lim.rlimit_weight = kSimplexRlimitWeight;
  z3w::QueryResult q = z3w::check(s, lim);
  if (q.answer == z3w::Answer::Incorrect) mdl = s.get_model();
  if (arith_solver == 1 && q.answer == z3w::Answer::FailedToProve && q.reason.find("incomplete") != std::string::npos) {
    // The difference-logic solver stops at a candidate it cannot vouch for
    // (it met a term outside difference logic). The candidate is a model
    // when the formula evaluates to true on it: evaluation is exact.
    try {
      z3::model m = s.get_model();
      if (m.eval(runs && goal, true).is_true()) {
        mdl = m;
        q.answer = z3w::Answer::Incorrect;
        q.reason.clear();
      }
    } catch (const z3::exception&) {  // no candidate: the simplex solver decides
    }
  }
  const double cpu = poThreadCpu() - c0;
  out.solve_cpu += cpu;
  std::string stats;
  z3::stats st = s.statistics();
  for (unsigned i = 0; i < st.size(); ++i) {
    std::string k = st.key(i);
    if (st.is_uint(i) && (k == "conflicts" || k == "decisions" || k == "propagations" || k == "pb conflicts"))
      stats += fmt::format(" {}={}", k, st.uint_value(i));
    if (k == "rlimit count")
      stats += fmt::format(" rlimit={}", st.is_uint(i) ? st.uint_value(i) : static_cast<uint64_t>(st.double_value(i)));
  }
  const char* answer = q.answer == z3w::Answer::Correct     ? "unsat"
                       : q.answer == z3w::Answer::Incorrect ? "sat"
                                                            : "unknown";
  out.profile += fmt::format("    query {}{}: {}{} {:.3f} s CPU{}\n", out.queries + 1,
                             po.ints() ? fmt::format(" (arith {})", arith_solver) : "", answer,
                             q.reason.empty() ? "" : " (" + q.reason + ")", cpu, stats);
  return q;
}

// One query: is `goal` satisfiable with `runs`? On sat, `mdl` holds the model.
//
// With integer clocks, first Z3's difference-logic solver
// (smt.arith.solver=1, Bellman-Ford over the order atoms: every arithmetic
// atom of the encoding is a difference constraint t_e - t_f <= c or a
// bound), 2-4x less CPU than the simplex solver on the corpus's unsat
// queries (docs/benchmarks.md "Difference-logic solver"). Its "unsat" is a
// negative cycle of asserted edges, sound whatever else the formula holds
// (a term it does not understand is an opaque variable: fewer conflicts,
// never more). On a model it gives up ("incomplete") once it has met such a
// term -- Z3 turns equalities between clocks into x - y = k atoms, which it
// does not take -- so its candidate is checked by evaluating the formula
// (exact); a candidate that fails, or none, sends the query to the simplex
// solver (smt.arith.solver=2), which decides the whole formula. Either way
// a model is then replayed on the simulator as before. An encoding with
// sums, div or mod (the integer encoding's fallbacks: a named barrier whose count
// never completes a generation, PB coefficients past an int) goes to the
// simplex solver directly (Z3 would print a warning for each such term).
z3w::QueryResult ask(z3::context& c, const Po& po, const E& runs, const E& goal, const PoBudget& budget,
                     const Limits& limits, bool simplex, std::optional<z3::model>& mdl, PoResult& out) {
  if (!po.ints()) return solveOnce(c, po, runs, goal, budget, limits, 0, mdl, out);
  if (simplex || !po.differenceLogic()) return solveOnce(c, po, runs, goal, budget, limits, 2, mdl, out);
  z3w::QueryResult q = solveOnce(c, po, runs, goal, budget, limits, 1, mdl, out);
  if (q.answer != z3w::Answer::FailedToProve || q.reason.find("incomplete") == std::string::npos ||
      budget.deadline.expired())
    return q;
  mdl.reset();
  return solveOnce(c, po, runs, goal, budget, limits, 2, mdl, out);
}

bool isStepRule(const std::string& rule) {
  return std::find(std::begin(kStepRules), std::end(kStepRules), rule) != std::end(kStepRules);
}

// strict: every clock distinct; simplex: every query on the simplex solver
// (the difference-logic solver's models tie more clocks; ask)
PoResult poCheckOnce(const System& sys, const PoOptions& opts, bool strict, bool simplex, const PoBudget& budget) {
  PoResult out;
  ModelCheckResult& res = out.result;
  res.engine = "z3-po";
  const z3w::Deadline& deadline = budget.deadline;
  // The annotated per-phase counts are candidates (docs/semantics.md "Phase
  // annotations"): resolveStatics decides at the end what they become, from
  // whether some run goes wrong -- as explore() does.
  const std::vector<Violation> statics = staticViolations(sys);
  std::optional<Landing> landing;  // an arrival seen counting into another phase than it means
  auto finish = [&]() -> PoResult& {
    res.seconds = deadline.elapsedSeconds();
    if (out.internal_error) {
      res.outcome = Outcome::Unknown;
      res.detail = out.error;
    } else if (res.outcome != Outcome::Unknown) {
      resolveStatics(sys, statics, landing, res.violations, res.warnings);
      res.outcome = res.violations.empty() ? Outcome::Pass : Outcome::Violation;
      std::stable_sort(res.violations.begin(), res.violations.end(),
                       [](const Violation& x, const Violation& y) { return x.trace.size() < y.trace.size(); });
    }
    return out;
  };
  auto unknown = [&](const std::string& why) -> PoResult& {
    res.outcome = Outcome::Unknown;
    res.detail = "z3-po: " + why;
    res.violations.clear();
    return finish();
  };
  // A fresh context per check, not one per thread: in a used context Z3
  // recycles the ids of freed terms, the events' clocks no longer come in
  // creation order, and the search takes other paths; measured on
  // sm90_pingpong's 48 bindings, 3.6-4.6 s -> 5.3-6.5 s CPU, its largest
  // unsat query 0.40 -> 0.98 s (docs/benchmarks.md "Where the CPU of cake
  // check --engine z3 goes"). Making a context costs about 1 ms where freed
  // memory stays in the heap (cli/heap.h).
  z3::context c;
  Po po(sys, c, opts.bit_vectors, &budget);
  std::string why;
  const double b0 = poThreadCpu();
  try {
    if (!po.build(&why)) {
      out.profile += fmt::format("    not built: {}\n", why);
      return unknown(why);
    }
  } catch (const z3::exception& e) {
    return unknown(e.msg());
  } catch (const PoOutOfTime&) {
    return unknown(fmt::format("timeout after {:.1f} s while building the encoding of {} events (about {} terms)",
                               opts.limits.timeout_ms / 1000.0, po.events(), po.size()));
  }
  out.build_cpu = poThreadCpu() - b0;
  out.profile += fmt::format("    build {:.3f} s CPU, {} events, size {}, formula {} nodes\n", out.build_cpu,
                             po.events(), po.size(), dagSize(po.runs()));
  out.events = po.events();
  out.width = po.width();
  res.outcome = Outcome::Pass;

  std::set<std::string> found;
  std::vector<std::string> open;
  for (const char* r : kStepRules) open.push_back(r);
  for (const char* r : kStateRules) open.push_back(r);
  auto goalOf = [&](const std::vector<std::string>& rules) {
    std::vector<E> goals;
    for (const auto& r : rules) goals.push_back(po.target(r));
    return any(c, goals);
  };
  auto modelHits = [&](const z3::model& mdl, const std::vector<std::string>& rules) {
    std::vector<std::string> hit;
    for (const auto& r : rules)
      if (mdl.eval(po.target(r), true).is_true()) hit.push_back(r);
    return hit;
  };
  auto fail = [&](const std::string& what, const Trace& tr) {
    out.internal_error = true;
    out.error = fmt::format("z3-po: {}; Z3's trace:{}", what, traceText(sys, tr));
  };

  // 1. Is any rule violated at all? Runs need not stop at violations here:
  // the first violation on a violating run is reached by a violation-free
  // prefix, so this decides pass / violation, and the simulator's replay of
  // the run names the violations up to the run's end (the first one that
  // ends runs, endsRun).
  // A deadlock that a candidate explains is a violation too; a landing in
  // another phase than meant is looked for alongside (for the warning of a
  // clean program) and dropped from the goal once seen.
  std::optional<z3::model> mdl;
  E all_distinct = strict ? po.distinct() : c.bool_val(true);
  // A model the simulator does not replay because two of its events tie
  // (equal clocks, both in the run): those pairs are ruled apart and the
  // query asked again (docs/z3.md "Ties without distinct"); false when the
  // model has no such tie or the rounds are used up (then it is an
  // internal error of this pass, as before).
  int untie_rounds = 0;
  auto untie = [&](const z3::model& m) {
    std::vector<std::pair<int, int>> ties = po.tiesOf(m);
    if (ties.empty() || ++untie_rounds > kUntieRounds) return false;
    for (auto [a, b] : ties) all_distinct = all_distinct && po.apart(a, b);
    out.profile += fmt::format("    {} tied pairs ruled apart\n", ties.size());
    return true;
  };
  // Only rules outside opts.known: no first query (whether some run goes
  // wrong decides only the static candidates, of which there are none here)
  const bool skipping = !opts.known.empty() && statics.empty();
  if (!skipping) {
    std::vector<std::string> first = open;
    if (!statics.empty()) first.push_back(kExplainedDeadlock);
    first.push_back(kLandsElsewhere);
    // by_rule: one query per rule, in order, until one is sat (diagnostics:
    // the disjunction is unsat exactly when every rule's query is)
    size_t piece = 0;
    for (;;) {  // until a model that replays (or none)
      for (;;) {
        mdl.reset();
        z3w::QueryResult q;
        if (!opts.by_rule) {
          q = ask(c, po, po.runs() && all_distinct, goalOf(first), budget, opts.limits, simplex, mdl, out);
          ++out.queries;
        } else {
          q.answer = z3w::Answer::Correct;
          for (; piece < first.size(); ++piece) {
            if (po.target(first[piece]).is_false()) continue;
            out.profile += fmt::format("    rule {}:\n", first[piece]);
            q = ask(c, po, po.runs() && all_distinct, goalOf({first[piece]}), budget, opts.limits, simplex, mdl, out);
            ++out.queries;
            if (q.answer != z3w::Answer::Correct) break;
          }
        }
        if (q.answer == z3w::Answer::Correct) return finish();
        if (q.answer != z3w::Answer::Incorrect) return unknown(q.reason);
        std::vector<std::string> hit = modelHits(*mdl, first);
        if (hit != std::vector<std::string>{kLandsElsewhere}) break;
        Trace tr = po.traceOf(*mdl, true);
        landing = replayLanding(sys, tr);
        if (!landing) {
          if (untie(*mdl)) continue;
          fail("Z3 finds an arrival counting into another phase than it means, but the simulator does not", tr);
          return finish();
        }
        auto at = std::find(first.begin(), first.end(), std::string(kLandsElsewhere));
        if (static_cast<size_t>(at - first.begin()) < piece) --piece;
        first.erase(at);
      }
      {
        std::vector<std::string> hit = modelHits(*mdl, first);
        std::erase(hit, std::string(kLandsElsewhere));
        bool step = std::any_of(hit.begin(), hit.end(), isStepRule);
        Trace tr = po.traceOf(*mdl, step);
        ReplayResult rr = replay(sys, tr);
        if (!rr.valid || rr.violations.empty()) {
          if (untie(*mdl)) continue;
          fail(fmt::format("Z3 finds {} but the simulator {}", hit.empty() ? "?" : hit.front(),
                           rr.valid ? "meets no violation on the run" : "does not replay it (" + rr.error + ")"),
               tr);
          return finish();
        }
        // the replay records the run up to its end (endsRun): each rule it
        // meets is met on a run whose earlier steps end no run, as explore() reports them
        for (const Violation& v : rr.violations)
          if (found.insert(v.rule).second) res.violations.push_back(v);
      }
      break;
    }
    if (opts.stop_at_first) return finish();
  }

  // 2. Every other rule: runs that stop at their first violation that ends
  // runs (a synchronization error; data hazards before END are allowed).
  // Some run goes wrong, so every candidate is an error (resolveStatics):
  // their rules need no search.
  std::erase_if(open, [&](const std::string& r) {
    return found.count(r) > 0 || opts.known.count(r) > 0 ||
           std::any_of(statics.begin(), statics.end(), [&](const Violation& v) { return v.rule == r; });
  });
  while (!open.empty()) {
    if (deadline.expired()) return unknown(fmt::format("time budget of {} ms used up", opts.limits.timeout_ms));
    mdl.reset();
    z3w::QueryResult q = ask(c, po, po.prefix() && all_distinct, goalOf(open), budget, opts.limits, simplex, mdl, out);
    ++out.queries;
    if (q.answer == z3w::Answer::Correct) break;
    if (q.answer != z3w::Answer::Incorrect) return unknown(q.reason);
    std::vector<std::string> hit = modelHits(*mdl, open);
    if (hit.empty()) {
      fail("a model of the disjunction satisfies no rule", {});
      return finish();
    }
    bool untied = false;  // a tie the simulator did not replay, ruled apart: ask again
    for (const auto& rule : hit) {
      Trace tr = po.traceOf(*mdl, isStepRule(rule));
      ReplayResult rr = replay(sys, tr);
      const Violation* confirmed = nullptr;
      bool earlier = false;
      for (const Violation& v : rr.violations) {
        bool at_end = v.trace.size() == tr.size();
        if (v.rule == rule && (at_end || rule == "sync.lost-phase")) { if (!confirmed) confirmed = &v; }
        else if (!at_end && endsRun(v.rule)) earlier = true;
      }
      if (!rr.valid || !confirmed || earlier) {
        if ((untied = untie(*mdl))) break;
        fail(fmt::format("the {} counterexample does not replay on the simulator ({})", rule,
                         !rr.valid ? rr.error
                         : earlier ? "the simulator meets a violation before its end"
                                   : "the simulator does not meet the rule"),
             tr);
        return finish();
      }
      Violation v = *confirmed;
      v.trace = tr;
      res.violations.push_back(std::move(v));
      std::erase(open, rule);
    }
    if (untied) continue;
    if (skipping && opts.stop_at_first) break;  // a new rule: as query 1 stops at its first run
  }
  return finish();
}

// First with only the ties that matter ruled out; a model the simulator
// cannot replay is looked for again on the simplex solver, then with every
// clock distinct, and only a failure then is an internal error.
PoResult poCheck(const System& sys, const PoOptions& opts) {
  if (sys.ctas > 1 || clusterExitsMatter(sys)) {  // the cluster checks (docs/semantics.md "Clusters") are the explicit engine's only
    PoResult r;
    r.result.engine = "z3-po";
    r.result.outcome = Outcome::Unknown;
    r.result.detail = "the Z3 encoding does not model thread-block clusters (use the explicit engine)";
    return r;
  }
  // A model the simulator cannot replay (clocks tied where the simulator
  // needs an order) is asked for again of the simplex solver, as before the
  // difference-logic solver, whose models tie clocks more often; then with
  // every clock distinct (the difference-logic solver gives up on distinct:
  // simplex only).
  // One wall clock and one work cap for every pass (a pass used to start
  // its own: three times --timeout in the worst case).
  const PoBudget budget{z3w::Deadline(opts.limits.timeout_ms), opts.limits.rlimit, z3w::threadQueryWork().rlimit};
  PoResult r = poCheckOnce(sys, opts, false, false, budget);
  for (bool strict : {false, true}) {
    if (!r.internal_error) return r;
    int queries = r.queries;
    std::string profile = r.profile;
    r = poCheckOnce(sys, opts, strict, true, budget);
    r.queries += queries;
    r.profile = profile + r.profile;
  }
  return r;
}

}  // namespace cake::encoder
