// Operations a tile's last K iterations may leave out although they carry
// counters (trip_tail_ops.h; docs/z3.md "Stages without data at a tile's
// end").
#include "encoder/trip_tail_ops.h"

#include <algorithm>
#include <map>
#include <optional>

namespace cake::encoder::trip {

namespace {

struct IndexRange {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  void add(int64_t i) {
    lo = std::min(lo, i);
    hi = std::max(hi, i);
  }
  bool empty() const { return lo > hi; }
};

bool isView(const Access& a) { return a.view >= 0; }

}  // namespace

// Why the checks give every run (not only the window's): the persistent
// proof's checkTileExprs has shown every expression of a K iteration to be a
// function of the ring index that moves by one amount every ring period
// beyond the warm-up. Here every access of the view moves by the same amount
// d each period within the window, and the index ranges of consecutive ring
// positions are strictly increasing there, over a window that holds the
// warm-up and a period past it; so for every ring index r >= w0g the range at
// r + Pg is the one at r moved by d, and the order of consecutive ranges
// repeats with the period: the index ranges strictly increase along the whole
// ring, and each index is accessed at one ring index of a run. With nothing
// outside the K iterations accessing the view, and no other view meeting its
// bytes (nor a caps' or re-read's comparison across views), the builder's
// per-index counters (a write's generation, a read's returns per byte, its
// re-reads) of an access count the accesses of its own K iteration alone.
std::set<int> ringPositionViews(const System& raw, const std::vector<KIteration>& iters, int64_t Wg, int64_t Pg,
                                int64_t w0g) {
  std::set<int> bad;
  if (Pg <= 0 || Wg <= w0g + Pg) return {};
  const size_t P = raw.procs.size();
  // ring position of each pc (-1: outside the K iterations)
  std::vector<std::vector<int64_t>> pos(P);
  for (size_t p = 0; p < P; ++p) pos[p].assign(raw.procs[p].program.size(), -1);
  for (const KIteration& k : iters)
    for (int pc = k.a; pc < k.b; ++pc) pos[static_cast<size_t>(k.proc)][static_cast<size_t>(pc)] = k.pos;
  std::map<int, std::vector<IndexRange>> ranges;  // view -> ring position -> indices
  std::map<int, std::pair<int, std::pair<int64_t, int64_t>>> bytes;  // view -> space, bounding bytes
  for (size_t p = 0; p < P; ++p)
    for (size_t pc = 0; pc < raw.procs[p].program.size(); ++pc)
      for (const Access& a : raw.procs[p].program[pc].accesses) {
        if (!isView(a)) continue;
        if (pos[p][pc] < 0 || a.stage_like) bad.insert(a.view);
        auto& r = ranges[a.view];
        r.resize(static_cast<size_t>(Wg));
        if (pos[p][pc] >= 0) r[static_cast<size_t>(pos[p][pc])].add(a.index);
        auto [it, fresh] = bytes.try_emplace(a.view, a.space, std::make_pair(a.lo, a.hi));
        if (!fresh) {
          if (it->second.first != a.space) bad.insert(a.view);
          it->second.second.first = std::min(it->second.second.first, a.lo);
          it->second.second.second = std::max(it->second.second.second, a.hi);
        }
      }
  // strictly increasing along the ring positions of the window
  for (auto& [v, r] : ranges) {
    std::optional<int64_t> last_hi;
    for (const IndexRange& x : r) {
      if (x.empty()) continue;
      if (last_hi && x.lo <= *last_hi) bad.insert(v);
      last_hi = x.hi;
    }
  }
  // one move per period: the same access of the iteration Pg positions on
  std::map<std::tuple<int, int64_t, int64_t>, const KIteration*> at;  // (proc, tile, pos)
  for (const KIteration& k : iters) at[{k.proc, k.tile, k.pos}] = &k;
  std::map<int, int64_t> move;
  for (const KIteration& k : iters) {
    if (k.pos < w0g || k.pos + Pg >= Wg) continue;
    auto f = at.find({k.proc, k.tile, k.pos + Pg});
    const auto& prog = raw.procs[static_cast<size_t>(k.proc)].program;
    auto viewsOf = [&](int a, int b) {
      std::set<int> vs;
      for (int pc = a; pc < b; ++pc)
        for (const Access& x : prog[static_cast<size_t>(pc)].accesses)
          if (isView(x)) vs.insert(x.view);
      return vs;
    };
    if (f == at.end() || f->second->b - f->second->a != k.b - k.a) {
      for (int v : viewsOf(k.a, k.b)) bad.insert(v);
      if (f != at.end())
        for (int v : viewsOf(f->second->a, f->second->b)) bad.insert(v);
      continue;
    }
    for (int o = 0; o < k.b - k.a; ++o) {
      const Instr& x = prog[static_cast<size_t>(k.a + o)];
      const Instr& y = prog[static_cast<size_t>(f->second->a + o)];
      if (x.accesses.size() != y.accesses.size()) {
        for (const Access& a : x.accesses) bad.insert(a.view);
        for (const Access& a : y.accesses) bad.insert(a.view);
        continue;
      }
      for (size_t i = 0; i < x.accesses.size(); ++i) {
        const Access &ax = x.accesses[i], &ay = y.accesses[i];
        if (!isView(ax) && !isView(ay)) continue;
        if (ax.view != ay.view) {
          bad.insert(ax.view);
          bad.insert(ay.view);
          continue;
        }
        auto [it, fresh] = move.try_emplace(ax.view, ay.index - ax.index);
        if (!fresh && it->second != ay.index - ax.index) bad.insert(ax.view);
      }
    }
  }
  // no other view (nor a non-view access) meets the view's bytes
  for (const Process& proc : raw.procs)
    for (const Instr& in : proc.program)
      for (const Access& a : in.accesses)
        for (const auto& [v, b] : bytes)
          if (a.view != v && a.space == b.first && a.lo < b.second.second && b.second.first < a.hi) bad.insert(v);
  std::set<int> out;
  for (const auto& [v, r] : ranges)
    if (!bad.count(v) && move.count(v)) out.insert(v);
  return out;
}

bool mmaCommitNumbersUnread(const System& sys) {
  for (const Process& p : sys.procs)
    for (const Instr& in : p.program)
      if (in.kind == InstrKind::MmaCommit && in.slot >= 0) return false;
  return true;
}

bool mmaCommitNumbersReadInOrder(const ir::Schedule& s, int role) {
  bool waits = false;
  for (const ir::RoleBody& body : s.bodies)
    if (body.role == role)
      ir::forEachOp(body.body, [&](const ir::Stmt& st) { waits |= st.op.kind == ir::OpKind::MmaWait; });
  return !waits;
}

bool mmaOnTmem(const Instr& in, const System& sys) {
  return in.kind == InstrKind::Mma && std::any_of(in.accesses.begin(), in.accesses.end(), [&](const Access& a) {
           return sys.spaces[static_cast<size_t>(a.space)].kind == MemSpace::Kind::Tmem;
         });
}

namespace {

bool slotByIterText(const Instr& in) { return in.stmt && in.stmt->op.sel.mode == ir::SlotSel::Mode::Iter; }

}  // namespace

bool leftOutReadToCheck(const Instr& in, const Access& a, const System& sys, const std::set<int>& ring_views) {
  return in.kind == InstrKind::Mma && !a.write && isView(a) && ring_views.count(a.view) == 0 &&
         sys.spaces[static_cast<size_t>(a.space)].kind == MemSpace::Kind::Smem;
}

bool leavableWithCounters(const Instr& in, const System& sys, const std::set<int>& free_regs,
                          const std::set<int>& ring_views, bool commit_numbers_free, LeftOutChecks checked) {
  switch (in.kind) {
    case InstrKind::Arrive:
    case InstrKind::ExpectTx:
    case InstrKind::TmaLoad:
    case InstrKind::Mma:
    case InstrKind::MmaWait:
    case InstrKind::Fence:
    case InstrKind::Generic: break;
    case InstrKind::MmaCommit:
      if (!commit_numbers_free) return false;
      break;
    default: return false;  // waits (their counts move later reads' markers), stores, named barriers, TMEM
  }
  if (in.named >= 0 || (in.slot >= 0 && !slotByIterText(in)) || in.grid_dep_early >= 0) return false;
  return std::all_of(in.accesses.begin(), in.accesses.end(), [&](const Access& a) {
    const MemSpace& sp = sys.spaces[static_cast<size_t>(a.space)];
    if (sp.kind == MemSpace::Kind::Regs) return free_regs.count(sp.index) > 0;
    if (sp.kind == MemSpace::Kind::Tmem) return checked.tmem_runs && in.kind == InstrKind::Mma;
    if (checked.reads && leftOutReadToCheck(in, a, sys, ring_views)) return true;
    return sp.kind == MemSpace::Kind::Smem && isView(a) && ring_views.count(a.view) > 0;
  });
}

int slotLeftOutInPart(const std::vector<Instr>& grid, int a, int b, const std::vector<char>& kept, bool tx_only) {
  auto counts = [&](const Instr& in) {
    return in.slot >= 0 && (!tx_only || in.kind == InstrKind::TmaLoad || in.kind == InstrKind::ExpectTx);
  };
  std::set<int> left, whole;  // slots with an operation left out; with one kept
  for (int q = a; q < b; ++q) {
    const Instr& in = grid[static_cast<size_t>(q)];
    if (counts(in)) (kept[static_cast<size_t>(q - a)] ? whole : left).insert(in.slot);
  }
  for (int slot : left)
    if (whole.count(slot)) return slot;
  return -1;
}

bool addableArrival(const Instr& in) {
  return in.kind == InstrKind::Arrive && in.accesses.empty() && in.named < 0 && in.slot >= 0 && slotByIterText(in);
}

}  // namespace cake::encoder::trip
