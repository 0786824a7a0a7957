#include "encoder/barrier_order.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace cake::encoder {

namespace {

using At = std::pair<int, int>;  // (process, program index)

// An mbarrier slot whose arrivals are shared out among processes by
// phase: each arriving process brings `share` arrivals to every phase
// (its arrival n, counting `count` per Arrive and one per ExpectTx, is
// meant for phase n / share), and the shares sum to init_count. Per
// process, the program indices of its first and last arrival of each
// phase. An MMA commit that arrives on a slot arrives when the MMAs
// complete: such a slot is left out.
struct SharedSlot {
  struct Arrivals {
    std::vector<int> first, last;  // per phase
  };
  std::map<int, Arrivals> by_proc;
};

std::map<int, SharedSlot> sharedSlots(const System& sys) {
  std::map<int, std::map<int, std::vector<std::pair<int, const Instr*>>>> arrivals;  // slot -> proc -> (pc, instr)
  std::set<int> async_arrived;
  for (size_t p = 0; p < sys.procs.size(); ++p)
    for (size_t pc = 0; pc < sys.procs[p].program.size(); ++pc) {
      const Instr& in = sys.procs[p].program[pc];
      if (in.slot < 0) continue;
      if (in.kind == InstrKind::Arrive || in.kind == InstrKind::ExpectTx)
        arrivals[in.slot][static_cast<int>(p)].push_back({static_cast<int>(pc), &in});
      else if (in.kind == InstrKind::MmaCommit)
        async_arrived.insert(in.slot);
    }
  std::map<int, SharedSlot> out;
  for (const auto& [slot, procs] : arrivals) {
    if (async_arrived.count(slot)) continue;
    SharedSlot shared;
    int64_t shares = 0;
    bool ok = true;
    for (const auto& [proc, list] : procs) {
      auto countOf = [](const Instr* in) -> int64_t { return in->kind == InstrKind::Arrive ? in->count : 1; };
      int64_t share = 0;
      for (const auto& [pc, in] : list)
        if (in->phase == 0) share += countOf(in);
      SharedSlot::Arrivals& mine = shared.by_proc[proc];
      int64_t n = 0;
      for (const auto& [pc, in] : list) {
        const int64_t count = countOf(in);
        ok = ok && share > 0 && count > 0 && n / share == in->phase && (n + count - 1) / share == in->phase;
        if (!ok) break;
        if (static_cast<int64_t>(mine.first.size()) <= in->phase) mine.first.push_back(pc);
        mine.last.resize(mine.first.size(), pc);
        mine.last.back() = pc;
        n += count;
      }
      shares += share;
    }
    if (ok && shares == sys.slots[slot].init_count) out[slot] = std::move(shared);
  }
  return out;
}

// Whether no process can bring an arrival to a phase of a shared slot
// before every other process has brought its arrivals to the phase
// before: each process's first arrival of phase k + 1 is ordered after
// each other process's last arrival of phase k. Then the phase's
// completion (the init_count-th arrival since the last) comes after all
// the arrivals meant for it: were one missing, every other process would
// have brought at most its share, and the count would fall short.
template <class Before>
bool takesTurns(const SharedSlot& slot, Before before) {
  for (const auto& [i, mine] : slot.by_proc)
    for (const auto& [j, theirs] : slot.by_proc)
      if (i != j)
        for (size_t k = 0; k + 1 < mine.first.size() && k < theirs.last.size(); ++k)
          if (!before(j, theirs.last[k], i, mine.first[k + 1])) return false;
  return true;
}

// The named barriers whose generation k holds the k-th arrival of each
// process that arrives on them, as the processes that wait there see it:
// per barrier, the processes whose lm.sync passes are ordered after the
// k-th arrival of every other arriving process. Those processes' warps
// must be all the barrier expects, and either all of them lm.sync (each
// blocks until its generation completes, so none arrives twice in one), or
// there are two, one of which only lm.syncs: a generation it is in needs
// an arrival of the other, so the other's k-th arrival comes before its
// k-th pass (the other's own passes are left unordered: an lm.bar_arrive
// run twice may complete a generation without the first).
std::map<int, std::set<int>> orderedNamed(const System& sys) {
  std::map<int, std::set<int>> arriving, bar_arriving;
  for (size_t p = 0; p < sys.procs.size(); ++p)
    for (const Instr& in : sys.procs[p].program) {
      if (in.kind == InstrKind::SyncArrive || in.kind == InstrKind::BarArrive)
        arriving[in.named].insert(static_cast<int>(p));
      if (in.kind == InstrKind::BarArrive) bar_arriving[in.named].insert(static_cast<int>(p));
    }
  std::map<int, std::set<int>> out;
  for (const auto& [nb, procs] : arriving) {
    if (nb < 0 || nb >= static_cast<int>(sys.named.size())) continue;
    int warps = 0;
    for (int p : procs) warps += sys.procs[p].warps;
    if (warps != sys.named[nb].expected_warps || warps == 0) continue;
    const std::set<int>& bar = bar_arriving[nb];
    if (bar.empty()) out[nb] = procs;
    else if (procs.size() == 2 && bar.size() == 1)
      for (int p : procs)
        if (!bar.count(p)) out[nb] = {p};
  }
  return out;
}

// Per instruction, the instructions of other processes whose completion
// it waits for (the edges of the order other than program order).
std::vector<std::vector<std::vector<At>>> edgesInto(const System& sys, const std::set<int>& slots,
                                                    const std::map<int, std::set<int>>& named) {
  std::map<std::pair<int, int64_t>, std::vector<At>> arrivals;  // (slot, phase)
  std::map<std::pair<int, int64_t>, std::vector<At>> syncs;     // (named, generation)
  std::vector<std::vector<std::vector<At>>> into(sys.procs.size());
  std::vector<std::vector<std::pair<int, int64_t>>> sync_key(sys.procs.size());
  for (size_t p = 0; p < sys.procs.size(); ++p) {
    const auto& prog = sys.procs[p].program;
    into[p].resize(prog.size());
    sync_key[p].assign(prog.size(), {-1, -1});
    std::map<int, int64_t> generation;
    for (size_t pc = 0; pc < prog.size(); ++pc) {
      const Instr& in = prog[pc];
      const At at{static_cast<int>(p), static_cast<int>(pc)};
      if ((in.kind == InstrKind::Arrive || in.kind == InstrKind::ExpectTx) && slots.count(in.slot))
        arrivals[{in.slot, in.phase}].push_back(at);
      if ((in.kind == InstrKind::SyncArrive || in.kind == InstrKind::BarArrive) && named.count(in.named))
        syncs[{in.named, generation[in.named]++}].push_back(at);
      if (in.kind == InstrKind::SyncWait && named.count(in.named) && named.at(in.named).count(static_cast<int>(p)))
        sync_key[p][pc] = {in.named, generation[in.named] - 1};
    }
  }
  for (size_t p = 0; p < sys.procs.size(); ++p)
    for (size_t pc = 0; pc < sys.procs[p].program.size(); ++pc) {
      const Instr& in = sys.procs[p].program[pc];
      if (in.kind == InstrKind::Wait && slots.count(in.slot)) {
        auto it = arrivals.find({in.slot, in.phase});
        if (it != arrivals.end()) into[p][pc] = it->second;
      }
      if (in.kind == InstrKind::SyncWait && sync_key[p][pc].first >= 0) {
        auto it = syncs.find(sync_key[p][pc]);
        if (it != syncs.end()) into[p][pc] = it->second;
      }
    }
  return into;
}

}  // namespace

std::optional<BarrierOrder> BarrierOrder::of(const System& sys, size_t max_cells) {
  const size_t P = sys.procs.size();
  if (P == 0 || sys.instrCount() > max_cells / P) return std::nullopt;
  const std::map<int, std::set<int>> named = orderedNamed(sys);
  const std::map<int, SharedSlot> shared = sharedSlots(sys);
  // A slot one process arrives on orders its waits outright; one shared by
  // several, once the order built so far shows that they take turns
  // (takesTurns), and the larger order may show it for more slots.
  std::set<int> slots;
  for (const auto& [slot, sh] : shared)
    if (sh.by_proc.size() == 1) slots.insert(slot);
  std::optional<BarrierOrder> order = clocked(sys, edgesInto(sys, slots, named));
  for (bool grew = true; order && grew;) {
    grew = false;
    for (const auto& [slot, sh] : shared)
      if (!slots.count(slot) && takesTurns(sh, [&](int p, int pc, int q, int qc) { return order->before(p, pc, q, qc); })) {
        slots.insert(slot);
        grew = true;
      }
    if (!grew) break;
    std::optional<BarrierOrder> larger = clocked(sys, edgesInto(sys, slots, named));
    if (!larger) break;  // (a wait that never passes: the smaller order stands)
    order = std::move(larger);
  }
  return order;
}

// The clocks of an order's edges: each process advances while the
// instructions its next one waits for are done, each clock joining its
// predecessor's and its sources'.
std::optional<BarrierOrder> BarrierOrder::clocked(const System& sys, const std::vector<std::vector<std::vector<std::pair<int, int>>>>& into) {
  const size_t P = sys.procs.size();
  BarrierOrder o;
  o.procs_ = P;
  o.clock_.resize(P);
  for (size_t p = 0; p < P; ++p) o.clock_[p].assign(sys.procs[p].program.size() * P, -1);
  std::vector<size_t> cursor(P, 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t p = 0; p < P; ++p)
      for (; cursor[p] < sys.procs[p].program.size(); ++cursor[p]) {
        const size_t pc = cursor[p];
        const auto& from = into[p][pc];
        if (std::any_of(from.begin(), from.end(), [&](const At& s) { return cursor[s.first] <= static_cast<size_t>(s.second); }))
          break;
        int32_t* c = &o.clock_[p][pc * P];
        if (pc > 0) std::copy_n(&o.clock_[p][(pc - 1) * P], P, c);
        c[p] = static_cast<int32_t>(pc);
        for (const At& s : from) {
          const int32_t* sc = &o.clock_[s.first][static_cast<size_t>(s.second) * P];
          for (size_t q = 0; q < P; ++q) c[q] = std::max(c[q], sc[q]);
        }
        progress = true;
      }
  }
  for (size_t p = 0; p < P; ++p)
    if (cursor[p] < sys.procs[p].program.size()) return std::nullopt;
  return o;
}

}  // namespace cake::encoder
