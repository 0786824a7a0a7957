// Parameters read only in sizes: trip_sizes.h says the argument.
#include "encoder/trip_sizes.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <numeric>
#include <set>

namespace cake::encoder::trip {

namespace {

bool countsTx(const Instr& in) { return in.kind == InstrKind::ExpectTx || in.kind == InstrKind::TmaLoad; }

}  // namespace

bool txOwedOnly(const System& sys) {
  // (process, pc) of every load that some expect's run covers
  std::set<std::pair<size_t, size_t>> covered;
  for (size_t p = 0; p < sys.procs.size(); ++p) {
    const std::vector<Instr>& prog = sys.procs[p].program;
    for (size_t pc = 0; pc < prog.size(); ++pc) {
      const Instr& e = prog[pc];
      if (countsTx(e) && e.bytes <= 0) return false;
      if (e.kind != InstrKind::ExpectTx) continue;
      if (!e.derived || e.slot < 0) return false;
      int64_t sum = 0;
      for (size_t l = pc + 1; l < prog.size() && prog[l].kind == InstrKind::TmaLoad; ++l) {
        if (prog[l].slot != e.slot) continue;
        // one iteration's straight-line code, the expect's phase (the
        // per-phase sums of simulator.cpp's static check stay equal)
        if (prog[l].loops != e.loops || prog[l].phase != e.phase) return false;
        sum += prog[l].bytes;
        covered.insert({p, l});
      }
      if (sum != e.bytes) return false;
    }
  }
  for (size_t p = 0; p < sys.procs.size(); ++p)
    for (size_t pc = 0; pc < sys.procs[p].program.size(); ++pc)
      if (sys.procs[p].program[pc].kind == InstrKind::TmaLoad && !covered.count({p, pc})) return false;
  return true;
}

std::vector<int64_t> sizeFreeKey(const std::vector<const System*>& systems) {
  // One order per memory space over every system of the group.
  std::map<int, std::set<int64_t>> cuts;
  int64_t gcd = 0, largest = 0;
  size_t counting = 0;  // transaction counts of the largest system
  for (const System* sys : systems) {
    size_t here = 0;
    for (const Process& p : sys->procs)
      for (const Instr& in : p.program) {
        for (const Access& a : in.accesses)
          forEachRun(a, [&](int64_t lo, int64_t hi) {
            cuts[a.space].insert(lo);
            cuts[a.space].insert(hi);
          });
        if (!countsTx(in)) continue;
        const int64_t b = std::llabs(in.bytes);
        gcd = std::gcd(gcd, b);
        largest = std::max(largest, b);
        ++here;
      }
    counting = std::max(counting, here);
  }
  // Every sum of the counts of one system's instructions fits in the slot's
  // 32-bit field, for the system as it is and for any multiple of its counts
  // below the same bound (the key's classes are compared through it).
  if (largest >= (int64_t{1} << 20) || counting >= (size_t{1} << 10)) return {};
  // Counts that are owed bytes only are read through their signs alone
  // (trip_sizes.h): written as 1, whatever the factor between them.
  const bool owed = std::all_of(systems.begin(), systems.end(), [](const System* sys) { return txOwedOnly(*sys); });
  // (sorted vectors: a strided access puts the ranks of all its runs)
  std::map<int, std::vector<int64_t>> sorted;
  for (const auto& [space, c] : cuts) sorted[space].assign(c.begin(), c.end());
  auto rank = [&](int space, int64_t x) {
    const std::vector<int64_t>& c = sorted.at(space);
    return static_cast<int64_t>(std::lower_bound(c.begin(), c.end(), x) - c.begin());
  };
  std::vector<int64_t> k;
  auto put = [&k](std::initializer_list<int64_t> xs) { k.insert(k.end(), xs.begin(), xs.end()); };
  put({-4, owed});
  for (const System* sys : systems) {
    put({-1, static_cast<int>(sys->target), sys->ctas, sys->slots_per_cta, sys->named_per_cta, sys->cluster_named,
         static_cast<int64_t>(sys->barrier_base.size()), static_cast<int64_t>(sys->slots.size()),
         static_cast<int64_t>(sys->named.size()), static_cast<int64_t>(sys->spaces.size()),
         static_cast<int64_t>(sys->procs.size())});
    for (int b : sys->barrier_base) put({b});
    for (const BarrierSlot& sl : sys->slots) put({sl.barrier, sl.slot, sl.cta, sl.init_count});
    for (const NamedBarrier& n : sys->named) put({n.index, n.expected_warps});
    for (const MemSpace& m : sys->spaces) put({static_cast<int>(m.kind), m.index, m.process, m.cta});
    for (const Process& p : sys->procs) {
      put({-2, p.role, p.instance, p.cta, p.warps, static_cast<int64_t>(p.program.size())});
      for (const Instr& in : p.program) {
        const int64_t bytes = !countsTx(in) ? in.bytes : owed ? 1 : gcd > 0 ? in.bytes / gcd : in.bytes;
        put({-3, static_cast<int>(in.kind), static_cast<int64_t>(reinterpret_cast<uintptr_t>(in.stmt)), in.derived,
             in.slot, in.phase, in.count, bytes, in.pending, in.named, in.grid_dep_early, in.iteration.has_value(),
             in.iteration.value_or(0), static_cast<int64_t>(in.loops.size()),
             static_cast<int64_t>(in.accesses.size())});
        put({-4, in.regs_hazard.regs_space, in.regs_hazard.accumulates, in.regs_hazard.stored,
             in.regs_hazard.discarded, in.regs_hazard.at_exit});  // where, not which element: sizes differ
        for (const auto& [var, v] : in.loops) put({var, v});
        for (const Access& a : in.accesses) {
          put({a.space, rank(a.space, a.lo), rank(a.space, a.hi), a.write, static_cast<int>(a.proxy), a.async, a.view,
               a.index, a.gen, a.stage_like, a.view_written, a.runs});
          if (a.runs > 1)  // a strided access: where each of its runs lies
            forEachRun(a, [&](int64_t lo, int64_t hi) { put({rank(a.space, lo), rank(a.space, hi)}); });
        }
      }
    }
  }
  return k;
}

}  // namespace cake::encoder::trip
