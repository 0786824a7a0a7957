// Loops no barrier paces: trip_pace.h says what is held back; docs/z3.md
// "Loops no barrier paces" gives the argument.
#include "encoder/trip_pace.h"

#include <algorithm>
#include <map>
#include <utility>

namespace cake::encoder::trip {

namespace {
// The footprint tables' cap (words of all distinct footprints): past it the
// pacer is off, as the reduction is past kMaxObjects.
constexpr size_t kMaxWords = size_t{1} << 22;
}  // namespace

void Pacer::orInto(Foot& into, const Foot& from) {
  for (size_t i = 0; i < into.r.size(); ++i) {
    into.r[i] |= from.r[i];
    into.w[i] |= from.w[i];
  }
}

void Pacer::andInto(Foot& into, const Foot& from) {
  for (size_t i = 0; i < into.r.size(); ++i) {
    into.r[i] &= from.r[i];
    into.w[i] &= from.w[i];
  }
}

// Two footprints conflict where one writes an atom the other reads or
// writes (reads commute: a generic read only sets its own process's mark).
bool Pacer::conflict(const Foot& a, const Foot& b) {
  for (size_t i = 0; i < a.r.size(); ++i)
    if ((a.w[i] & (b.r[i] | b.w[i])) || (a.r[i] & b.w[i])) return true;
  return false;
}

void Pacer::addAccesses(Foot& f, int p, int pc) const {
  const Instr& in = m_.instr(p, pc);
  for (size_t i = 0; i < in.accesses.size(); ++i) {
    const sim::AtomRange& r = m_.atoms_of[p][pc][i];
    Set& set = in.accesses[i].write ? f.w : f.r;
    for (int x = r.a0; x < r.a1; ++x) set[static_cast<size_t>(x) / 64] |= uint64_t{1} << (x % 64);
  }
}

Pacer::Pacer(const sim::Model& m, std::vector<Loop> loops, bool alone)
    : m_(m), loops_(std::move(loops)), alone_(alone) {
  if (m.sys.ctas > 1 || m.P < 2 || m.P > 30 || static_cast<int>(loops_.size()) != m.P) return;
  if (std::none_of(loops_.begin(), loops_.end(), [](const Loop& l) { return l.begin < l.end; })) return;
  if (!exitsAfterLoops()) return;
  words_ = (static_cast<size_t>(m.atoms) + 63) / 64;
  const Foot empty{Set(words_, 0), Set(words_, 0)};
  feet_.push_back(empty);
  std::map<std::pair<Set, Set>, int> interned;
  interned[{empty.r, empty.w}] = 0;
  auto intern = [&](const Foot& f) {
    auto [it, fresh] = interned.emplace(std::make_pair(f.r, f.w), static_cast<int>(feet_.size()));
    if (fresh) feet_.push_back(f);
    return it->second;
  };
  future_.resize(static_cast<size_t>(m.P));
  free_tail_.resize(static_cast<size_t>(m.P));
  own_.resize(static_cast<size_t>(m.P));
  for (int p = 0; p < m.P; ++p) {
    const int n = m.programSize(p);
    const Loop& l = loops_[p];
    auto& fut = future_[p];
    auto& own = own_[p];
    fut.assign(static_cast<size_t>(n), 0);
    own.assign(static_cast<size_t>(n), 0);
    for (int pc = 0; pc < n; ++pc) {
      Foot f = empty;
      addAccesses(f, p, pc);
      own[pc] = intern(f);
    }
    // From a pc of the loop a process may run every later iteration and
    // leave for any exit path: the whole loop and every exit path, one
    // footprint for all its pcs (so a shift, which moves a pc by a period
    // within the loop and between exit paths, keeps what is held back). On
    // an exit path and before the loop: what follows the pc (the flow goes
    // forward only).
    Foot loop_and_exits = empty;
    if (l.begin < l.end)
      for (int pc = l.begin; pc < n; ++pc) orInto(loop_and_exits, feet_[own[pc]]);
    const int loop_id = intern(loop_and_exits);
    // whether every instruction from the pc on is a synchronous generic
    // access (the same for every pc of the loop: the loop and all exits)
    auto& tail = free_tail_[p];
    tail.assign(static_cast<size_t>(n), 0);
    bool loop_tail = l.begin < l.end;
    for (int pc = l.begin; loop_tail && pc < n; ++pc) loop_tail = m.isSyncAccess(p, pc);
    std::vector<Foot> after(static_cast<size_t>(n) + 1, empty);
    for (int pc = n - 1; pc >= 0; --pc) {
      if (l.begin < l.end && pc >= l.begin && pc < l.end) {
        fut[pc] = loop_id;
        after[pc] = loop_and_exits;
        tail[pc] = loop_tail;
        continue;
      }
      const int nx = m.nextPc(p, pc);
      tail[pc] = m.isSyncAccess(p, pc) && (nx >= n || tail[nx]);
      Foot f = nx < n ? after[nx] : empty;
      orInto(f, feet_[own[pc]]);
      after[pc] = f;
      fut[pc] = intern(f);
    }
    if (feet_.size() * words_ * 2 > kMaxWords) return;
  }
  precomputeCuts(empty, intern);
  if (feet_.size() * words_ * 2 > kMaxWords) return;
  active_ = true;
  others_ = empty;
  mine_ = empty;
  cut_foot_ = empty;
}

// The layout Loop describes, which precomputeCuts reads: every exit path
// of a looping process starts at or after its loop's end. LapExplorer's
// layout always is (layOut appends each exit path after the loop's pcs, or
// sends the exit to a done pc past the program); a pacer given another
// stays off rather than cut futures by a layout it does not know.
bool Pacer::exitsAfterLoops() const {
  return std::all_of(loops_.begin(), loops_.end(), [](const Loop& l) {
    return l.begin >= l.end ||
           std::all_of(l.exit_starts.begin(), l.exit_starts.end(), [&](int e) { return e >= l.end; });
  });
}

// cut_ (trip_pace.h). Backwards as future_: a wait on b ends what follows
// it; an lm.sync arrival on b before it makes that wait one the arriving
// process cannot pass while b's generation stands (it waits for that
// generation); a wait reached with no such arrival first, or a loop that
// touches b, leaves the arrivals unbounded (nothing is cut at b then).
void Pacer::precomputeCuts(const Foot& empty, const std::function<int(const Foot&)>& intern) {
  cut_.assign(static_cast<size_t>(m_.N), std::vector<std::vector<Cut>>(static_cast<size_t>(m_.P)));
  for (int b = 0; b < m_.N; ++b)
    for (int p = 0; p < m_.P; ++p) {
      const int n = m_.programSize(p);
      const Loop& l = loops_[p];
      auto on = [&](int pc, InstrKind k) { return m_.instr(p, pc).named == b && m_.instr(p, pc).kind == k; };
      auto arrives = [&](int pc) {
        return on(pc, InstrKind::SyncArrive) || on(pc, InstrKind::BarArrive) ? m_.sys.procs[p].warps : 0;
      };
      bool loop_touches = false;
      for (int pc = l.begin; pc < l.end; ++pc) loop_touches |= m_.instr(p, pc).named == b;
      std::vector<Foot> upto(static_cast<size_t>(n), empty);
      std::vector<int32_t> raw(static_cast<size_t>(n), 0);
      std::vector<char> unguarded(static_cast<size_t>(n), 0);
      auto& cuts = cut_[b][p];
      cuts.assign(static_cast<size_t>(n), Cut{});
      for (int pc = n - 1; pc >= 0; --pc) {
        if (l.begin < l.end && pc >= l.begin && pc < l.end) {
          if (pc == l.end - 1) {  // the loop's pcs share one value (as future_)
            Foot f = empty;
            for (int lpc = l.begin; lpc < l.end; ++lpc) orInto(f, feet_[own_[p][lpc]]);
            int32_t most = 0;
            bool open = loop_touches;
            for (int e : l.exit_starts) {
              if (e >= n) continue;  // (e >= l.end: exitsAfterLoops)
              orInto(f, upto[e]);
              most = std::max(most, raw[e]);
              open |= unguarded[e] != 0;
            }
            upto[pc] = f;
            raw[pc] = open ? kUnbounded : most;
            unguarded[pc] = open;
          } else {
            upto[pc] = upto[l.end - 1];
            raw[pc] = raw[l.end - 1];
            unguarded[pc] = unguarded[l.end - 1];
          }
        } else if (on(pc, InstrKind::SyncWait)) {
          unguarded[pc] = 1;  // from an earlier pc with no arrival between
        } else {
          const int nx = m_.nextPc(p, pc);
          Foot f = nx < n ? upto[nx] : empty;
          orInto(f, feet_[own_[p][pc]]);
          upto[pc] = f;
          raw[pc] = std::min(kUnbounded, arrives(pc) + (nx < n ? raw[nx] : 0));
          unguarded[pc] = !on(pc, InstrKind::SyncArrive) && nx < n && unguarded[nx];
        }
        cuts[pc] = {intern(upto[pc]), unguarded[pc] ? kUnbounded : raw[pc]};
      }
    }
}

// The warps p may still arrive with on b before its first wait on b that
// b's current generation holds (kUnbounded: none such is certain).
int32_t Pacer::arrivalsBefore(const sim::State& s, int b, int p, int pc) const {
  if (pc >= m_.programSize(p)) return 0;
  const Instr& in = m_.instr(p, pc);
  if (in.kind == InstrKind::SyncWait && in.named == b)
    return s.v[m_.off_named + 2 * b] > s.v[m_.off_sgen + p] ? kUnbounded : 0;
  return cut_[b][p][pc].arrivals;
}

std::vector<char> Pacer::blockedWithout(const sim::State& s, int q) const {
  std::vector<char> blocked(static_cast<size_t>(m_.N), 0);
  for (int b = 0; b < m_.N; ++b) {
    const int expected = m_.sys.named[b].expected_warps;
    if (expected <= 0) continue;
    int64_t total = s.v[m_.off_named + 2 * b + 1];
    for (int r = 0; r < m_.P && total < expected; ++r)
      if (r != q) total += arrivalsBefore(s, b, r, sim::pcOf(m_, s, r));
    blocked[b] = total < expected;
  }
  return blocked;
}

std::optional<int64_t> Pacer::progress(int p, int pc) const {
  const Loop& l = loops_[p];
  if (l.begin >= l.end || pc >= l.end) return std::nullopt;
  if (pc < l.begin) return kBefore;
  return l.iter[pc - l.begin];
}

bool Pacer::freeStep(const sim::State& s, int p, int pc) const {
  if (pc >= m_.programSize(p)) return false;
  const Instr& in = m_.instr(p, pc);
  if (in.kind == InstrKind::SyncWait) return s.v[m_.off_named + 2 * in.named] > s.v[m_.off_sgen + p];
  return m_.isSyncAccess(p, pc);
}

// What every agent but q may still access in s: the other processes'
// instructions from their pcs on and their current accesses, and every async
// access in flight (into others_).
void Pacer::othersOf(const sim::State& s, const sim::Async& a, int q, bool cut) const {
  std::fill(others_.r.begin(), others_.r.end(), 0);
  std::fill(others_.w.begin(), others_.w.end(), 0);
  const std::vector<char> blocked = cut ? blockedWithout(s, q) : std::vector<char>(static_cast<size_t>(m_.N), 0);
  for (int r = 0; r < m_.P; ++r) {
    if (r == q) continue;
    const int rpc = sim::pcOf(m_, s, r);
    if (rpc < m_.programSize(r)) {
      // a wait b holds ends what r can do before q's next step (each cut
      // is a prefix of r's future: their intersection holds that prefix)
      cut_foot_ = feet_[future_[r][rpc]];
      for (int b = 0; b < m_.N; ++b)
        if (blocked[b]) andInto(cut_foot_, feet_[cut_[b][r][rpc].foot]);
      orInto(others_, cut_foot_);
    }
    addCurrent(others_, r, rpc);
  }
  for (const sim::Load& l : a.loads) orInto(others_, feet_[own_[l.proc][l.pc]]);
  for (int r = 0; r < m_.P; ++r)
    for (int k = 0; k < sim::kGroupKinds; ++k)
      for (const sim::Group& g : a.of(r, k))
        for (int32_t gpc : g.pcs) orInto(others_, feet_[own_[r][gpc]]);
}

bool Pacer::commutes(const sim::State& s, const sim::Async& a, int q, int pc) const {
  mine_ = feet_[own_[q][pc]];
  addCurrent(mine_, q, pc);
  othersOf(s, a, q, alone_);
  return !conflict(mine_, others_);
}

std::optional<size_t> Pacer::aloneStep(const sim::State& s, const sim::Async& a, const std::vector<Step>& steps,
                                       const std::vector<char>& unsure) const {
  if (!active_ || !alone_) return std::nullopt;
  ++calls_;
  // each process's iteration (one before the first before its loop);
  // nullopt after its loop or with none (a finite rest: never held)
  std::vector<std::optional<int64_t>> level(static_cast<size_t>(m_.P));
  std::optional<int64_t> lowest;
  for (int p = 0; p < m_.P; ++p) {
    const auto at = progress(p, sim::pcOf(m_, s, p));
    if (!at) continue;
    level[p] = *at == kBefore ? loops_[p].iter.front() - 1 : *at;
    lowest = lowest ? std::min(*lowest, *level[p]) : *level[p];
  }
  std::optional<size_t> best;
  int64_t best_key = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& st = steps[i];
    const int q = st.proc;
    if (st.kind != Step::Kind::Exec || unsure[q]) continue;
    if (level[q] && *level[q] > *lowest + kSlack) continue;  // keeps the drift bounded
    const int64_t key = level[q] ? *level[q] : INT64_MAX;
    if (best && key >= best_key) continue;
    if (!freeStep(s, q, st.pc) || !commutes(s, a, q, st.pc)) continue;
    best = i;
    best_key = key;
  }
  return best;
}

// The synchronous access p's last step left current at pc (the
// simulator's race checks see it until p's next step).
void Pacer::addCurrent(Foot& f, int p, int pc) const {
  const int prev = m_.prevPc(p, pc);
  if (prev >= 0 && m_.isSyncAccess(p, prev)) orInto(f, feet_[own_[p][prev]]);
}

std::vector<char> Pacer::heldBack(const sim::State& s, const sim::Async& a, const std::vector<Step>& steps,
                                  const std::vector<char>& unsure) const {
  if (!active_) return {};
  ++calls_;
  std::vector<std::optional<int64_t>> at(static_cast<size_t>(m_.P));
  int64_t ahead = kBefore;  // the most advanced process in its loop
  for (int p = 0; p < m_.P; ++p) {
    at[p] = progress(p, sim::pcOf(m_, s, p));
    if (at[p] && *at[p] != kBefore) ahead = std::max(ahead, *at[p]);
  }
  if (ahead == kBefore) return {};
  std::vector<char> held(steps.size(), 0);
  // Holds back the Exec steps of the processes in their loops that `hold`
  // names; whether any is held and a step is left that every trip count
  // the state allows takes (not the entry of an unsure process's
  // iteration; the exits, always offered, do not count).
  auto holdIf = [&](auto&& hold) {
    bool any = false, left = false;
    for (size_t i = 0; i < steps.size(); ++i) {
      const Step& st = steps[i];
      const int p = st.proc;
      const bool exec = st.kind == Step::Kind::Exec;
      held[i] = exec && at[p] && *at[p] != kBefore && hold(p);
      any |= held[i] != 0;
      left |= held[i] == 0 && !(exec && unsure[p]);
    }
    return any && left;
  };
  // (1) Behind a free step: the least progress of a process whose next step
  // commutes with everything the others can still do.
  std::optional<int64_t> least;
  for (int q = 0; q < m_.P; ++q) {
    const int pc = sim::pcOf(m_, s, q);
    if (!at[q] || *at[q] >= ahead || (least && *at[q] >= *least) || unsure[q] || !freeStep(s, q, pc)) continue;
    if (commutes(s, a, q, pc)) least = at[q];
  }
  if (least && holdIf([&](int p) { return *at[p] > *least + kSlack; })) return held;
  // (2) Free tails ahead: a process whose every remaining step is a
  // synchronous generic access and commutes with everything the others can
  // still do waits while another process is behind it.
  int64_t behind = ahead;
  for (int p = 0; p < m_.P; ++p)
    if (at[p]) behind = std::min(behind, *at[p]);
  if (behind + kSlack >= ahead) return {};
  std::vector<char> tail_ahead(static_cast<size_t>(m_.P), 0);
  for (int p = 0; p < m_.P; ++p) {
    const int pc = sim::pcOf(m_, s, p);
    if (!at[p] || *at[p] == kBefore || *at[p] <= behind + kSlack || !free_tail_[p][pc]) continue;
    mine_ = feet_[future_[p][pc]];
    addCurrent(mine_, p, pc);
    othersOf(s, a, p, false);
    tail_ahead[p] = !conflict(mine_, others_);
  }
  if (holdIf([&](int p) { return tail_ahead[p] != 0; })) return held;
  return {};
}

}  // namespace cake::encoder::trip
