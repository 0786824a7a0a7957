// The step function of the explicit-state engine: the executable form of
// docs/semantics.md. Every rule check that happens at a step lives here.
#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "encoder/cluster_exits.h"
#include "encoder/sim_model.h"
#include "encoder/strided_split.h"
#include "ir/graph.h"

namespace cake::encoder::sim {

// ================================================================ model

namespace {

// Where one run of a split strided access lies, for the trace: its bytes in
// shared memory, TMEM or registers; its row in a global tensor, whose model
// addresses are element indices of a layout with one power-of-two extent
// per dimension (MemSpace::extents) and mean nothing to the reader as
// numbers (a 2-D tensor's second row starts at 2^31).
std::string runPlace(const MemSpace& space, int64_t lo, int64_t hi) {
  const std::vector<int64_t>& ext = space.extents;
  if (space.kind != MemSpace::Kind::Global || ext.size() < 2) return fmt::format("bytes [{}, {})", lo, hi);
  return fmt::format("row {}", (lo / ext.back()) % ext[ext.size() - 2]);
}

// Which elementary atoms of a System are one atom of the Model.
//
// An elementary atom is a byte range between two consecutive access
// boundaries of its space. Its *signature* is the list, in program order
// (process, pc, access index), of the accesses that cover it, each as
// (process, pc, the access's fields other than its byte range), with a
// repeat of the same entry in a row dropped. Two elementary atoms of one
// space with equal signatures are merged into one atom, which is sound and
// exact: every engine reads and writes memory only through an
// instruction's accesses, so a step does to every byte of such a class the
// same thing - the same reads and writes, of the same proxy, asyncness and
// data tag, in the same order (a write's id differs from run to run of a
// sliced tile, but the data tags that sim::staleWrite compares, its process
// and its pc do not). Hence in every reachable state all bytes of a class
// hold equal data and unfenced marks (by induction over the steps from the
// initial state, where all are equal), a step's footprint meets a class iff
// it meets each of its bytes, and two instructions' footprints meet in a
// class iff they share a byte of it: races, stale reads, proxy fences and
// the reductions' independence are decided as with one atom per range.
// Messages name byte ranges from the accesses themselves (Model::overlap,
// overlapText), not from the atoms.
//
// Atoms are numbered so that every access covers an interval of them (an
// AtomRange): the classes of a space in the order of their first byte, which
// works when every access meets its classes in that order (a column-sliced
// tile: the runs of each warp's band are one class, the whole tile's range
// the interval of all bands). A space where some access does not only
// merges runs of adjacent elementary atoms with equal signatures.
// Every space cut at the boundaries of all accesses (of every run of a
// strided one): the elementary atoms, numbered space by space in byte order.
struct Elementary {
  std::map<int, std::vector<int64_t>> bounds;  // space -> its cuts, in order
  std::map<int, int> base;                     // space -> its first elementary atom
  int count = 0;
  std::vector<int> space_of;                   // elementary atom -> space
  explicit Elementary(const System& sys) {
    std::map<int, std::set<int64_t>> cuts;
    for (const Process& p : sys.procs)
      for (const Instr& in : p.program)
        for (const Access& a : in.accesses)
          forEachRun(a, [&](int64_t lo, int64_t hi) {
            cuts[a.space].insert(lo);
            cuts[a.space].insert(hi);
          });
    for (auto& [space, set] : cuts) {
      bounds[space] = std::vector<int64_t>(set.begin(), set.end());
      base[space] = count;
      const int n = std::max(0, static_cast<int>(bounds[space].size()) - 1);
      count += n;
      space_of.insert(space_of.end(), static_cast<size_t>(n), space);
    }
  }
  int index(int space, int64_t x) const {
    const auto& b = bounds.at(space);
    return base.at(space) + static_cast<int>(std::lower_bound(b.begin(), b.end(), x) - b.begin());
  }
};

// Each elementary atom's class among those of its space (by first byte),
// and the spaces where some access meets its classes out of order.
struct LocalClasses {
  std::vector<int> local;
  std::vector<std::vector<std::array<int, 3>>> sig;
  std::set<int> adjacent_only;
};
struct SignatureHash {
  size_t operator()(const std::vector<std::array<int, 3>>& sig) const {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ sig.size();
    for (const auto& k : sig)
      for (int x : k) h = (h ^ static_cast<uint32_t>(x)) * 0xff51afd7ed558ccdull;
    return static_cast<size_t>(h ^ (h >> 32));
  }
};
LocalClasses localClasses(const System& sys, const Elementary& E) {
  const int elementary = E.count;
  const std::vector<int>& elem_space = E.space_of;
  auto elemIndex = [&](int space, int64_t x) { return E.index(space, x); };
  using Key = std::array<int, 3>;  // process, pc, interned fields
  std::map<std::tuple<int, bool, int, bool, int, int64_t, int64_t, bool, bool>, int> fields;
  LocalClasses out;
  auto& sig = out.sig;
  sig.resize(static_cast<size_t>(elementary));
  for (int p = 0; p < static_cast<int>(sys.procs.size()); ++p) {
    const auto& prog = sys.procs[p].program;
    for (int pc = 0; pc < static_cast<int>(prog.size()); ++pc)
      for (const Access& a : prog[pc].accesses) {
        const auto f = fields.emplace(std::make_tuple(a.space, a.write, static_cast<int>(a.proxy), a.async, a.view,
                                                      a.index, a.gen, a.stage_like, a.view_written),
                                      static_cast<int>(fields.size())).first->second;
        const Key key{p, pc, f};
        forEachRun(a, [&](int64_t lo, int64_t hi) {
          for (int e = elemIndex(a.space, lo), e1 = elemIndex(a.space, hi); e < e1; ++e)
            if (sig[e].empty() || sig[e].back() != key) sig[e].push_back(key);
        });
      }
  }
  // Per space (its elementary atoms are consecutive): classes by first byte.
  auto& local = out.local;
  local.assign(static_cast<size_t>(elementary), 0);
  for (int e = 0; e < elementary;) {
    int end = e;
    while (end < elementary && elem_space[end] == elem_space[e]) ++end;
    // (numbered in the order first met, as an ordered map did: hashed, the
    // look-ups no longer compare signatures element by element down a tree)
    std::unordered_map<std::vector<Key>, int, SignatureHash> seen;
    for (int x = e; x < end; ++x) local[x] = seen.emplace(sig[x], static_cast<int>(seen.size())).first->second;
    e = end;
  }
  auto& adjacent_only = out.adjacent_only;  // spaces where some access meets its classes out of order
  for (const Process& proc : sys.procs)
    for (const Instr& in : proc.program)
      for (const Access& a : in.accesses) {
        // (a strided access: its runs' elementary atoms, in byte order)
        if (elemIndex(a.space, a.lo) >= elemIndex(a.space, a.hi) || adjacent_only.count(a.space)) continue;
        int first = -1, next = 0;
        bool in_order = true;
        forEachRun(a, [&](int64_t lo, int64_t hi) {
          for (int e = elemIndex(a.space, lo), e1 = elemIndex(a.space, hi); e < e1 && in_order; ++e) {
            if (first < 0) {
              first = local[e];
              next = first + 1;
            } else if (local[e] == next) {
              ++next;
            } else if (local[e] < first || local[e] > next) {
              in_order = false;
            }
          }
        });
        if (!in_order) adjacent_only.insert(a.space);
      }
  return out;
}

std::vector<int> atomClasses(const System& sys, const Elementary& E) {
  const int elementary = E.count;
  const std::vector<int>& elem_space = E.space_of;
  const LocalClasses lc = localClasses(sys, E);
  const auto& sig = lc.sig;
  const auto& local = lc.local;
  const auto& adjacent_only = lc.adjacent_only;
  std::vector<int> cls(static_cast<size_t>(elementary), 0);
  int atoms = 0;
  for (int e = 0; e < elementary;) {
    int end = e;
    while (end < elementary && elem_space[end] == elem_space[e]) ++end;
    if (adjacent_only.count(elem_space[e])) {
      for (int x = e; x < end; ++x) cls[x] = x > e && sig[x] == sig[x - 1] ? cls[x - 1] : atoms++;
    } else {
      int n = 0;
      for (int x = e; x < end; ++x) {
        cls[x] = atoms + local[x];
        n = std::max(n, local[x] + 1);
      }
      atoms += n;
    }
    e = end;
  }
  return cls;
}

}  // namespace

void splitStridedAccesses(System& sys) {
  bool strided = false;
  for (const Process& p : sys.procs)
    for (const Instr& in : p.program)
      for (const Access& a : in.accesses) strided = strided || a.runs > 1;
  if (!strided) return;
  std::set<int> adjacent;
  {
    const Elementary E(sys);
    LocalClasses lc = localClasses(sys, E);
    // A space whose exact atoms would be more than kMaxExactAtoms (a
    // transpose tile written by rows and read by single columns: one atom
    // per cell) keeps its strided reads at their bounding range, as before
    // session 28: per-cell atoms made such an exploration exceed its state
    // cap (docs/known-limits.md).
    constexpr int kMaxExactAtoms = 256;
    std::map<int, int> classes;  // space -> classes
    for (int e = 0; e < E.count; ++e) classes[E.space_of[e]] = std::max(classes[E.space_of[e]], lc.local[e] + 1);
    bool coarsened = false;
    // A global tensor's bounding range would join elements no op shares (a
    // false sync.race): such a space's accesses are left out instead
    // (docs/known-limits.md "Global memory: what is left out").
    auto tooFine = [&](const Access& a) {
      return sys.spaces[a.space].kind == MemSpace::Kind::Global && classes[a.space] > kMaxExactAtoms;
    };
    for (Process& p : sys.procs)
      for (Instr& in : p.program) {
        const size_t before = in.accesses.size();
        in.accesses.erase(std::remove_if(in.accesses.begin(), in.accesses.end(), tooFine), in.accesses.end());
        coarsened = coarsened || in.accesses.size() != before;
      }
    for (Process& p : sys.procs)
      for (Instr& in : p.program)
        for (Access& a : in.accesses)
          if (a.runs > 1 && !a.write && classes[a.space] > kMaxExactAtoms) {
            a.runs = 1;
            a.stride = 0;
            coarsened = true;
          }
    adjacent = coarsened ? localClasses(sys, Elementary(sys)).adjacent_only : std::move(lc.adjacent_only);
  }
  if (adjacent.empty()) return;
  auto splits = [&](const Access& a) { return a.runs > 1 && adjacent.count(a.space) > 0; };
  for (Process& p : sys.procs)
    for (Instr& in : p.program) {
      if (std::none_of(in.accesses.begin(), in.accesses.end(), splits)) continue;
      std::vector<Access> out;
      for (Access& a : in.accesses) {
        if (!splits(a)) {
          out.push_back(std::move(a));
          continue;
        }
        // The runs share every field but their bytes and name: each is a
        // copy of one prototype whose name is empty (no string to copy).
        const int64_t runs = a.runs, first = a.lo, stride = a.stride, bytes = a.runBytes();
        std::string name = a.what.substr(0, a.what.find(" bytes ["));
        Access proto = std::move(a);
        proto.what.clear();
        proto.runs = 1;
        proto.stride = 0;
        out.reserve(out.size() + static_cast<size_t>(runs));
        const MemSpace& space = sys.spaces[proto.space];
        for (int64_t k = 0; k < runs; ++k) {
          Access& run = out.emplace_back(proto);
          run.lo = first + k * stride;
          run.hi = run.lo + bytes;
          run.what = fmt::format("{} {} (run {} of {})", name, runPlace(space, run.lo, run.hi), k + 1, runs);
        }
      }
      in.accesses = std::move(out);
    }
}

Model::Model(const System& s, const ControlFlow* f) : sys(s) {
  if (f) flow = *f;
  P = static_cast<int>(sys.procs.size());
  S = static_cast<int>(sys.slots.size());
  N = static_cast<int>(sys.named.size());
  async_mma = sys.target != ir::Target::SM80;
  cluster_exits = clusterExitsMatter(sys);

  // Cut every space into elementary atoms at the boundaries of all
  // accesses, then merge the elementary atoms that no access tells apart
  // into one atom (atomClasses above; docs/z3.md "Atoms no instruction tells
  // apart").
  const Elementary E(sys);
  const int elementary = E.count;
  auto elemIndex = [&](int space, int64_t x) { return E.index(space, x); };
  std::vector<int> cls = atomClasses(sys, E);
  atoms = elementary == 0 ? 0 : *std::max_element(cls.begin(), cls.end()) + 1;
  atom_space.assign(atoms, -1);
  atom_lo.assign(atoms, INT64_MAX);
  atom_hi.assign(atoms, INT64_MIN);
  for (const auto& [space, b] : E.bounds)
    for (size_t i = 0; i + 1 < b.size(); ++i) {
      const int x = cls[E.base.at(space) + static_cast<int>(i)];
      atom_space[x] = space;
      atom_lo[x] = std::min(atom_lo[x], b[i]);
      atom_hi[x] = std::max(atom_hi[x], b[i + 1]);
    }
  tracked_of.assign(atoms, -1);
  for (int x = 0; x < atoms; ++x)
    if (sys.spaces[atom_space[x]].kind == MemSpace::Kind::Smem) tracked_of[x] = tracked++;
  // An access's atoms: the classes of its elementary atoms (of its runs,
  // when strided), an interval (atomClasses numbers them so; a space where
  // it merges only adjacent elementary atoms has no strided access:
  // splitStridedAccesses).
  auto atomRange = [&](const Access& a) {
    int lo = INT_MAX, hi = INT_MIN;
    forEachRun(a, [&](int64_t blo, int64_t bhi) {
      for (int e = elemIndex(a.space, blo), e1 = elemIndex(a.space, bhi); e < e1; ++e) {
        lo = std::min(lo, cls[e]);
        hi = std::max(hi, cls[e]);
      }
    });
    if (lo > hi) return AtomRange{0, 0};
    return AtomRange{lo, hi + 1};
  };

  atoms_of.resize(P);
  write_id.resize(P);
  commit_seq.resize(P);
  commits_before.resize(P);
  for (int p = 0; p < P; ++p) {
    const auto& prog = sys.procs[p].program;
    atoms_of[p].resize(prog.size());
    write_id[p].resize(prog.size());
    commit_seq[p].assign(prog.size(), -1);
    commits_before[p].assign(prog.size() + 1, 0);
    for (size_t pc = 0; pc < prog.size(); ++pc) {
      const Instr& in = prog[pc];
      // commits on the path to pc (with a ControlFlow every predecessor has a smaller pc)
      const int before = prevPc(p, static_cast<int>(pc));
      commits_before[p][pc] = before < 0 ? 0 : commits_before[p][before] + (prog[before].kind == InstrKind::MmaCommit);
      if (in.kind == InstrKind::MmaCommit) commit_seq[p][pc] = commits_before[p][pc];
      for (size_t i = 0; i < in.accesses.size(); ++i) {
        const Access& a = in.accesses[i];
        atoms_of[p][pc].push_back(atomRange(a));
        int id = -1;
        if (a.write && a.view >= 0) {
          id = static_cast<int>(writes.size());
          writes.push_back({p, static_cast<int>(pc), static_cast<int>(i)});
        }
        write_id[p][pc].push_back(id);
      }
    }
  }

  off_pc = 0;
  off_sgen = P;
  off_obs = 2 * P;
  off_slot = 3 * P;
  off_named = off_slot + kSlotFields * S;
  off_atom = off_named + 2 * N;
  off_var = off_atom + kAtomFields * tracked;
}

int Model::groupKind(InstrKind k) const {
  switch (k) {
    case InstrKind::Mma: return async_mma ? kMma : -1;
    case InstrKind::MmaCommit:
    case InstrKind::MmaWait: return kMma;
    case InstrKind::TmaStore:
    case InstrKind::StoreCommit:
    case InstrKind::StoreWait: return kStore;
    case InstrKind::CpAsync:
    case InstrKind::CpAsyncCommit:
    case InstrKind::CpAsyncWait: return kCp;
    case InstrKind::TmemLoad:
    case InstrKind::TmemLoadWait: return kTmemLd;
    case InstrKind::TmemStore:
    case InstrKind::TmemStoreWait: return kTmemSt;
    default: return -1;
  }
}

bool Model::isSyncAccess(int p, int pc) const {
  InstrKind k = instr(p, pc).kind;
  return k == InstrKind::Generic || (k == InstrKind::Mma && !async_mma);
}

// ================================================================ data

// Two iteration-indexed accesses of one view compare index and generation.
// Otherwise - either side names stages (its index never reaches `stages`),
// or a second view reads bytes another view wrote - the laps compare
// (dataLap): a byte range holds one lap of its slot at a time, whatever
// view names it. A read through a view that some instance writes there
// (Access::view_written) means that view's data: another view's is stale.
bool byLaps(const Access& w, const Access& r) { return w.view != r.view || w.stage_like || r.stage_like; }

// A stage-like read's lap (its generation: its returns to the slot after
// synchronizing, capped at the laps written) is the *least* lap it can
// mean: each return means data at least as new as the last one's. A newer
// lap that it finds was written by another instance and reached the read
// without a race, so it was ordered before the synchronization the read
// follows, and that synchronization hands the reader the last write
// ordered before it: a reduction's result written over a partial's slot
// (the writer writes the slot more often than the reader reads it) is
// what the reader waited for. An older lap is stale: the reader came back
// for data newer than the slot holds. Iteration-like reads name their lap
// exactly, and its generation the same way as a stage-like read's lap:
// the least one it means (a reduction's result written over a partial
// named by iteration, docs/semantics.md "Stale data").
bool viewsDecide(const ir::Schedule& s, const Access& w, const Access& r) {
  return w.view != r.view && (ir::sameUnion(s, w.view, r.view) || r.view_written);
}

bool staleData(const ir::Schedule& s, const Access& w, const Access& r) {
  if (viewsDecide(s, w, r)) return !ir::sameUnion(s, w.view, r.view);
  if (!byLaps(w, r)) return w.index != r.index || w.gen < r.gen;
  if (r.stage_like) return dataLap(s, w) < dataLap(s, r);
  return dataLap(s, w) != dataLap(s, r);
}

bool staleWrite(const Model& m, int p, const Access& acc, int32_t d) {
  if (d < 0) return true;
  const Model::WriteRef& w = m.writes[d];
  if (w.proc == p) return false;  // its own data, ordered by program order
  return staleData(*m.sys.schedule, m.access(w.proc, w.pc, w.acc), acc);
}

// ================================================================ state

State initialState(const Model& m) {
  State s;
  s.v.assign(m.off_var, 0);
  for (int p = 0; p < m.P; ++p) s.v[m.off_obs + p] = -1;
  for (int k = 0; k < m.S; ++k) s.v[m.off_slot + kSlotFields * k + kPending] = std::max(1, m.sys.slots[k].init_count);
  for (int t = 0; t < m.tracked; ++t) s.v[atomField(m, t, kData)] = -1;
  Async a;
  a.groups.resize(m.P * kGroupKinds);
  encodeAsync(m, s, a);
  return s;
}

Async decodeAsync(const Model& m, const State& s) {
  Async a;
  decodeAsyncInto(m, s, a);
  return a;
}

// (into a's vectors as they are: a search that decodes every state it
// expands into one Async allocates only while its groups grow)
void decodeAsyncInto(const Model& m, const State& s, Async& a) {
  size_t i = m.off_var;
  const auto& v = s.v;
  int n = v[i++];
  a.loads.clear();
  for (int k = 0; k < n; ++k, i += 3) a.loads.push_back({v[i], v[i + 1], v[i + 2]});
  a.groups.resize(m.P * kGroupKinds);
  for (auto& gs : a.groups) {
    const int ng = v[i++];
    gs.resize(ng);
    for (Group& grp : gs) {
      grp.commit_pc = v[i++];
      const int np = v[i++];
      grp.pcs.assign(v.begin() + i, v.begin() + i + np);
      i += np;
    }
  }
  n = v[i++];
  a.unobserved.clear();
  for (int k = 0; k < n; ++k, i += 4) a.unobserved.push_back({v[i], v[i + 1], v[i + 2], v[i + 3]});
}

void encodeAsync(const Model& m, State& s, const Async& a) {
  auto& v = s.v;
  v.resize(m.off_var);
  // (sorted copies in buffers kept per thread: two vectors allocated per
  // step that writes the async part were a share of a search's malloc)
  thread_local std::vector<Load> loads;
  thread_local std::vector<Unobserved> u;
  loads.assign(a.loads.begin(), a.loads.end());
  std::sort(loads.begin(), loads.end());
  v.push_back(static_cast<int32_t>(loads.size()));
  for (const Load& l : loads) v.insert(v.end(), {l.proc, l.pc, l.phase});
  for (const auto& gs : a.groups) {
    v.push_back(static_cast<int32_t>(gs.size()));
    for (const Group& g : gs) {
      v.push_back(g.commit_pc);
      v.push_back(static_cast<int32_t>(g.pcs.size()));
      v.insert(v.end(), g.pcs.begin(), g.pcs.end());
    }
  }
  u.assign(a.unobserved.begin(), a.unobserved.end());
  std::sort(u.begin(), u.end());
  u.erase(std::unique(u.begin(), u.end()), u.end());
  v.push_back(static_cast<int32_t>(u.size()));
  for (const Unobserved& x : u) v.insert(v.end(), {x.slot, x.phase, x.proc, x.seq});
}

// wyhash's multiply-and-fold: 16 bytes per multiply (the hash of one int32
// per multiply before was a seventh of a large proof's time).
static inline uint64_t foldMul(uint64_t a, uint64_t b) {
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

uint64_t hashState(const int32_t* v, size_t n) {
  constexpr uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull, k2 = 0x8ebc6af09c88c6e3ull;
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    uint64_t a, b;
    std::memcpy(&a, v + i, 8);
    std::memcpy(&b, v + i + 2, 8);
    h = foldMul(a ^ k0 ^ h, b ^ k1);
  }
  uint64_t a = 0, b = 0;
  if (n - i >= 2) std::memcpy(&a, v + i, 8);
  else if (n - i == 1) a = static_cast<uint32_t>(v[i]);
  if (n - i == 3) b = static_cast<uint32_t>(v[i + 2]);
  h = foldMul(a ^ k0 ^ h, b ^ k2);
  return foldMul(h ^ k1, n ^ k2);
}

bool allFinished(const Model& m, const State& s) {
  for (int p = 0; p < m.P; ++p)
    if (!finished(m, s, p)) return false;
  return true;
}

// The oldest committed group of a kind, or null.
static const Group* oldestCommitted(const std::vector<Group>& gs) {
  for (const Group& g : gs)
    if (g.commit_pc >= 0) return &g;
  return nullptr;
}

// ================================================================ enabledness

// An MMA group committed with a barrier completes only by arriving on it:
// mma_wait cannot retire it before that (it waits for the completion).
bool mmaWaitBlocked(const Model& m, const Async& a, int p, int64_t pending) {
  const auto& gs = a.of(p, kMma);
  int64_t committed = std::count_if(gs.begin(), gs.end(), [](const Group& g) { return g.commit_pc >= 0; });
  for (const Group& g : gs) {
    if (committed <= pending) break;
    if (g.commit_pc < 0) continue;
    if (m.instr(p, g.commit_pc).slot >= 0) return true;
    --committed;
  }
  return false;
}

// The warps that have exited: barrier.cluster waits only for the
// non-exited threads of the cluster (PTX ISA, barrier.cluster), so where
// exits can matter (Model::cluster_exits) the cluster barrier's generation
// completes once every warp that has not exited arrived. When a warp exits
// is the lowering's (System::ends_with_block_barrier): a kernel that ends
// with a block barrier (TMEM's dealloc) lets no thread of a CTA exit before
// every process of that CTA finished, and then its warps without a role
// exit too; elsewhere a process's warps exit when it finishes. An exited
// process has no arrival in the current generation (its lm.cluster_sync()
// waited for the generation it joined), so the arrived and the exited
// warps are disjoint.
static int exitedWarps(const Model& m, const State& s) {
  int warps = 0;
  if (!m.sys.ends_with_block_barrier) {
    for (int p = 0; p < m.P; ++p)
      if (finished(m, s, p)) warps += m.sys.procs[p].warps;
    return warps;
  }
  // (asked only when the cluster barrier has arrivals: completedByExits)
  const int roleless = static_cast<int>(rolelessWarpsAtEnd(m.sys).size());
  for (int c = 0; c < m.sys.ctas; ++c) {
    int cta_warps = roleless;
    bool all_finished = true;
    for (int p = 0; p < m.P && all_finished; ++p)
      if (m.sys.procs[p].cta == c) {
        all_finished = finished(m, s, p);
        cta_warps += m.sys.procs[p].warps;
      }
    if (all_finished) warps += cta_warps;
  }
  return warps;
}

// The cluster barrier's current generation has arrivals and every process
// not yet finished among them: it completes (at the next pass, which
// writes the completion: Stepper::exec) although not every warp arrived.
static bool completedByExits(const Model& m, const State& s, int named) {
  if (!m.cluster_exits || named != m.sys.cluster_named) return false;
  const int32_t arrived = s.v[m.off_named + 2 * named + 1];
  return arrived > 0 && arrived + exitedWarps(m, s) >= m.sys.named[named].expected_warps;
}

bool isEnabled(const Model& m, const State& s, const Async& a, const Step& st) {
  switch (st.kind) {
    case Step::Kind::Exec: {
      if (st.proc < 0 || st.proc >= m.P || pcOf(m, s, st.proc) != st.pc || finished(m, s, st.proc)) return false;
      const Instr& in = m.instr(st.proc, st.pc);
      if (in.kind == InstrKind::Wait) return waitPasses(slotField(m, s, in.slot, kCompleted), in.phase);
      if (in.kind == InstrKind::SyncWait)
        return s.v[m.off_named + 2 * in.named] > s.v[m.off_sgen + st.proc] || completedByExits(m, s, in.named);
      if (in.kind == InstrKind::MmaWait) return !mmaWaitBlocked(m, a, st.proc, in.pending);
      return true;
    }
    case Step::Kind::Land:
      return std::any_of(a.loads.begin(), a.loads.end(),
                         [&](const Load& l) { return l.proc == st.proc && l.pc == st.pc; });
    case Step::Kind::Complete: {
      if (st.proc < 0 || st.proc >= m.P) return false;
      const Group* g = oldestCommitted(a.of(st.proc, kMma));
      return g && g->commit_pc == st.pc && m.instr(st.proc, st.pc).slot >= 0;
    }
  }
  return false;
}

std::vector<Step> enabledSteps(const Model& m, const State& s, const Async& a) {
  std::vector<Step> out;
  for (int p = 0; p < m.P; ++p) {
    Step st{Step::Kind::Exec, p, pcOf(m, s, p)};
    if (!finished(m, s, p) && isEnabled(m, s, a, st)) out.push_back(st);
  }
  for (const Load& l : a.loads) out.push_back({Step::Kind::Land, l.proc, l.pc});
  for (int p = 0; p < m.P; ++p) {
    const Group* g = oldestCommitted(a.of(p, kMma));
    if (g && m.instr(p, g->commit_pc).slot >= 0) out.push_back({Step::Kind::Complete, p, g->commit_pc});
  }
  return out;
}

// ================================================================ steps

namespace {

// Applies one step; the members are the pieces of the semantics.
class Stepper {
 public:
  Stepper(const Model& m, State& s, const Async& a, std::vector<Violation>& found, StepInfo* info, Async& scratch)
      : m_(m), s_(s), a_(a), copy_(scratch), found_(found), info_(info) {}

  void run(const Step& st) {
    if (info_) info_->step = st;
    switch (st.kind) {
      case Step::Kind::Exec: exec(st.proc, st.pc); break;
      case Step::Kind::Land: land(st.proc, st.pc); break;
      case Step::Kind::Complete: complete(st.proc, st.pc); break;
    }
    if (async_dirty_) encodeAsync(m_, s_, copy_);
  }

 private:
  const Model& m_;
  State& s_;
  // The async part: the step's own until it writes it (async() copies it
  // then, and the copy is written back): most steps leave it alone, and a
  // copy of its vectors per step was a tenth of a race search's time. The
  // copy goes into a buffer the caller keeps (applyStep: one per thread), so
  // that its vectors' storage is reused from step to step.
  const Async& a_;
  Async& copy_;
  bool async_dirty_ = false;
  const Async& cur() const { return async_dirty_ ? copy_ : a_; }
  std::vector<Violation>& found_;
  StepInfo* info_;

  int32_t& slot(int k, SlotField f) { return s_.v[m_.off_slot + kSlotFields * k + f]; }
  int32_t& data(int t) { return s_.v[atomField(m_, t, kData)]; }
  int32_t& unfenced(int t) { return s_.v[atomField(m_, t, kUnfencedWrites)]; }
  int32_t& unfencedReads(int t) { return s_.v[atomField(m_, t, kUnfencedReads)]; }
  int32_t& pc(int p) { return s_.v[m_.off_pc + p]; }
  Async& async() {
    if (!async_dirty_) copy_ = a_, async_dirty_ = true;
    return copy_;
  }

  // (a string_view: the exploration passes no StepInfo, and the steps of a
  // proof's millions must not build strings; formatted events check info_)
  void event(std::string_view e, int slot_ = -1, int64_t phase = -1) {
    if (!info_) return;
    info_->event = std::string(e);
    info_->slot = slot_;
    info_->phase = phase;
  }
  void eventDone(int slot_) {
    if (info_ && slot_ >= 0) info_->completed = s_.v[m_.off_slot + kSlotFields * slot_ + kCompleted];
  }

  Violation& report(std::string rule, std::string message, int p, int pc_) {
    Violation v;
    v.rule = std::move(rule);
    v.message = std::move(message);
    v.primary = {p, pc_, ""};
    found_.push_back(std::move(v));
    return found_.back();
  }

  std::string procName(int p) const { return m_.sys.procs[p].name; }
  std::string slotName(int k) const { return m_.sys.slots[k].name; }

  // ------------------------------------------------------------ barrier slots

  // Completes phases while the pending arrivals are used up and the
  // transaction count is zero; extra arrivals spill into the next phase.
  void settle(int k) {
    int init = std::max(1, m_.sys.slots[k].init_count);
    while (slot(k, kPending) <= 0 && slot(k, kTx) == 0) {
      ++slot(k, kCompleted);
      slot(k, kPending) += init;
    }
  }

  void arrive(int k, int64_t count, int p, int pc_) {
    slot(k, kPending) -= static_cast<int32_t>(count);
    if (slot(k, kPending) < 0 && slot(k, kTx) != 0) {
      auto& v = report("sync.arrival-overflow",
                       fmt::format("{} arrives on {} after all {} arrivals of its phase {} came (it still waits for "
                                   "{} transaction bytes)",
                                   procName(p), slotName(k), m_.sys.slots[k].init_count,
                                   slot(k, kCompleted), slot(k, kTx)),
                       p, pc_);
      v.slot = k;
      v.completed = slot(k, kCompleted);
    }
    settle(k);
  }

  // A passing wait makes every async completion counted into an earlier
  // phase of the slot known to the instances (and, through FIFO order, the
  // earlier MMA groups of the same issuer).
  void observe(int k, int64_t completed) {
    bool any = false;
    for (const Unobserved& u : cur().unobserved)
      if (u.slot == k && u.phase < completed) any = true;
    if (!any) return;
    Async& a = async();
    for (const Unobserved& u : a.unobserved)
      if (u.slot == k && u.phase < completed && u.proc >= 0)
        s_.v[m_.off_obs + u.proc] = std::max(s_.v[m_.off_obs + u.proc], u.seq);
    std::erase_if(a.unobserved, [&](const Unobserved& u) {
      return (u.slot == k && u.phase < completed) || (u.proc >= 0 && u.seq <= s_.v[m_.off_obs + u.proc]);
    });
  }

  // ------------------------------------------------------------ clusters
  // docs/semantics.md "Clusters". A peer's mbarriers are initialized by its
  // own threads; only a completed cluster barrier (every thread of every
  // CTA arrived, after the kernel's mbarrier.init and
  // fence.mbarrier_init.release.cluster) makes them visible to this CTA.
  // Returns whether the access may go on (false: a violation ended it).
  bool clusterReady(int p, int pc_, const Instr& in) {
    const int nb = m_.sys.cluster_named;
    if (nb >= 0 && s_.v[m_.off_named + 2 * nb] > 0) return true;
    const int c = m_.sys.slots[in.slot].cta;
    auto& v = report("sync.cluster-init",
                     fmt::format("{} {} {} of CTA {} before any lm.cluster_sync() completed: CTA {} may not have "
                                 "initialized its mbarriers yet (only a cluster barrier makes a peer's mbarrier.init "
                                 "visible)",
                                 procName(p), in.kind == InstrKind::Arrive ? "arrives on" : "multicasts to",
                                 slotName(in.slot), c, c),
                     p, pc_);
    v.slot = in.slot;
    return false;
  }

  bool ctaExited(int c) const {
    for (int q = 0; q < m_.P; ++q)
      if (m_.sys.procs[q].cta == c && !finished(m_, s_, q)) return false;
    return true;
  }

  // A CTA's shared memory (its mbarriers included) is released when all of
  // its threads have exited; a peer's arrival or multicast landing after
  // that writes memory that is no longer the kernel's.
  bool targetAlive(int p, int pc_, const Instr& in, bool landing) {
    const int c = m_.sys.slots[in.slot].cta;
    if (!ctaExited(c)) return true;
    auto& v = report("sync.cluster-exit",
                     landing ? fmt::format("the TMA multicast of {} lands in CTA {}'s shared memory and on {} after "
                                           "every thread of CTA {} exited",
                                           procName(p), c, slotName(in.slot), c)
                             : fmt::format("{} arrives on {} after every thread of CTA {} exited: its mbarrier is "
                                           "no longer there",
                                           procName(p), slotName(in.slot), c),
                     p, pc_);
    v.slot = in.slot;
    return false;
  }

  // ------------------------------------------------------------ exec

  void exec(int p, int pc_) {
    const Instr& in = m_.instr(p, pc_);
    pc(p) = m_.nextPc(p, pc_);
    if (in.grid_dep_early >= 0) gridDependency(p, pc_, in);
    if (in.regs_hazard.regs_space >= 0) uninitializedRead(p, pc_, in);
    switch (in.kind) {
      case InstrKind::Wait: return wait(p, pc_, in);
      case InstrKind::Arrive:
        event("arrives", in.slot, in.phase);
        if (m_.sys.remote(p, pc_) && (!clusterReady(p, pc_, in) || !targetAlive(p, pc_, in, false))) return;
        arrive(in.slot, in.count, p, pc_);
        return eventDone(in.slot);
      case InstrKind::ExpectTx:
        if (info_) event(fmt::format("expects {} bytes (one arrival)", in.bytes), in.slot, in.phase);
        slot(in.slot, kTx) += static_cast<int32_t>(in.bytes);
        arrive(in.slot, 1, p, pc_);
        return eventDone(in.slot);
      case InstrKind::TmaLoad:
        event("issues the TMA load", in.slot, in.phase);
        if (m_.sys.remote(p, pc_)) clusterReady(p, pc_, in);
        checkAccesses(p, pc_);
        async().loads.push_back({p, pc_, slot(in.slot, kCompleted)});
        return;
      case InstrKind::TmaStore:
      case InstrKind::CpAsync:
        event(in.kind == InstrKind::TmaStore ? "issues the TMA store" : "issues the cp.async");
        checkAccesses(p, pc_);
        return joinGroup(p, pc_, m_.groupKind(in.kind));
      case InstrKind::Mma:
        if (m_.async_mma) {
          event("issues the MMA");
          checkAccesses(p, pc_);
          return joinGroup(p, pc_, kMma);
        }
        event("runs the MMA");
        checkAccesses(p, pc_);
        markGenericReads(p, pc_);
        return writeData(p, pc_);
      case InstrKind::StoreCommit:
      case InstrKind::CpAsyncCommit:
      case InstrKind::MmaCommit:
        event("commits the group", in.slot, in.phase);
        return commit(p, pc_, m_.groupKind(in.kind));
      case InstrKind::StoreWait:
      case InstrKind::CpAsyncWait:
      case InstrKind::MmaWait:
        if (info_) event(fmt::format("waits until at most {} group{} pending", in.pending, in.pending == 1 ? " is" : "s are"));
        retire(p, m_.groupKind(in.kind), in.pending);
        if (in.kind == InstrKind::MmaWait) knowCompleted(p, pc_);
        return;
      case InstrKind::SyncArrive: return namedArrive(p, pc_, in, true);
      case InstrKind::BarArrive: return namedArrive(p, pc_, in, false);
      case InstrKind::SyncWait:
        event("passes the named barrier");
        if (s_.v[m_.off_named + 2 * in.named] <= s_.v[m_.off_sgen + p]) completeGeneration(in.named);  // by exits
        s_.v[m_.off_sgen + p] = 0;
        return;
      case InstrKind::Fence:
        event("fences generic against async proxy");
        for (int t = 0; t < m_.tracked; ++t) {
          unfenced(t) &= ~bit(p);
          unfencedReads(t) &= ~bit(p);
        }
        return;
      case InstrKind::Generic:
        event("runs");
        checkAccesses(p, pc_);
        markGenericReads(p, pc_);
        return writeData(p, pc_);
      case InstrKind::TmemLoad:
      case InstrKind::TmemStore:
        event(in.kind == InstrKind::TmemLoad ? "issues tcgen05.ld" : "issues tcgen05.st");
        checkAccesses(p, pc_);
        joinGroup(p, pc_, m_.groupKind(in.kind));
        return commit(p, pc_, m_.groupKind(in.kind));
      case InstrKind::TmemLoadWait:
      case InstrKind::TmemStoreWait:
        event(in.kind == InstrKind::TmemLoadWait ? "waits for its tcgen05.ld (wait::ld)"
                                                 : "waits for its tcgen05.st (wait::st)");
        return retire(p, m_.groupKind(in.kind), 0);
    }
  }

  // Programmatic dependent launch: the preceding grid in the stream may
  // still be running (or its writes not yet visible) until this process's
  // griddepcontrol.wait, so touching a tensor it accesses is a race.
  void gridDependency(int p, int pc_, const Instr& in) {
    const std::string& t = m_.sys.schedule->params[in.grid_dep_early].name;
    auto& v = report("sync.grid-dependency",
                     fmt::format("{} accesses '{}' before lm.grid_dep_wait(): with programmatic dependent launch the "
                                 "preceding grid, which accesses '{}' (lm.grid_dependency), may still be running",
                                 actor(p, pc_), t, t),
                     p, pc_);
    v.buffer = t;
  }

  // A register fragment read that is wrong whatever the interleaving
  // (decided when the system was built: the fragment is private and the
  // program runs in order).
  void uninitializedRead(int p, int pc_, const Instr& in) {
    if (in.regs_hazard.discarded) return discardedProduct(p, pc_, in);  // first: `stored` marks a lost staged tile
    if (in.regs_hazard.stored) return staleAccumulator(p, pc_, in);
    if (tmemHazard(in)) return undefinedTmem(p, pc_, in);
    const std::string& what = in.regs_hazard.what;
    auto& v = report("data.uninitialized",
                     in.regs_hazard.accumulates
                         ? fmt::format("{} accumulates into {}, which this instance has not written: init= is "
                                       "false or absent here, so the MMA adds to undefined registers",
                                       actor(p, pc_), what)
                         : fmt::format("{} reads {}, which this instance has not written: a register fragment "
                                       "holds undefined values until its own instance writes them",
                                       actor(p, pc_), what),
                     p, pc_);
    v.buffer = what;
    if (in.regs_hazard.accumulates) return;  // later MMAs write acc by adding to it: no note helps
    // an operand read: the note points at the fragment's first write after it
    const auto& prog = m_.sys.procs[p].program;
    for (size_t q = static_cast<size_t>(pc_) + 1; q < prog.size(); ++q)
      for (const Access& a : prog[q].accesses)
        if (a.write && a.space == in.regs_hazard.regs_space) {
          v.others.push_back({p, static_cast<int>(q), "the fragment is first written here, after the read"});
          return;
        }
  }

  bool tmemHazard(const Instr& in) const {
    return m_.sys.spaces[in.regs_hazard.regs_space].kind == MemSpace::Kind::Tmem;
  }

  // The process whose program[stored_at] a TMEM hazard's note points at:
  // the one whose instruction there reads the hazard's column (stale: the
  // epilogue's read) or writes it (discarded: an MMA, the lost product, or
  // with `stored` a tcgen05.st / copy, the lost staged tile;
  // encoder/tmem_values.h),
  // the hazard's own process first; -1 when none does.
  int tmemNoteProc(int p, const Instr& in) const {
    const int pc = in.regs_hazard.stored_at;
    if (pc < 0) return -1;
    for (int k = 0; k < m_.P; ++k) {
      const int q = (p + k) % m_.P;
      if (pc >= m_.programSize(q)) continue;
      const Instr& at = m_.instr(q, pc);
      for (const Access& a : at.accesses)
        if (a.space == in.regs_hazard.regs_space && a.write == in.regs_hazard.discarded &&
            (!a.write || (at.kind == InstrKind::Mma) != in.regs_hazard.stored) &&
            touches(a, in.regs_hazard.element, in.regs_hazard.element + 1))
          return q;
    }
    return -1;
  }

  // TMEM columns read or accumulated into before any write reached them on
  // this run (encoder/tmem_values.h).
  void undefinedTmem(int p, int pc_, const Instr& in) {
    const std::string& what = in.regs_hazard.what;
    registerHazard(p, pc_, in, "data.uninitialized",
                   in.regs_hazard.accumulates
                       ? fmt::format("{} accumulates into {}, which no op has written yet: init= is false or absent "
                                     "here, so the MMA adds to undefined TMEM columns (tcgen05.alloc does not clear "
                                     "them)",
                                     actor(p, pc_), what)
                       : fmt::format("{} reads {}, which no op has written yet: TMEM columns hold undefined values "
                                     "until an MMA, a tcgen05.st or a copy writes them",
                                     actor(p, pc_), what),
                   "");
  }

  std::string tmemReader(int p, const Instr& in) const {
    const int q = tmemNoteProc(p, in);
    return q >= 0 ? procName(q) : std::string("an op");
  }

  // A register hazard decided when the system was built (system.cpp): the
  // finding names the fragment element; its note points at the op the
  // hazard refers back to (regs_hazard.stored_at), where there is one.
  void registerHazard(int p, int pc_, const Instr& in, const char* rule, const std::string& message,
                      const char* note) {
    auto& v = report(rule, message, p, pc_);
    v.buffer = in.regs_hazard.what;
    const int q = tmemHazard(in) ? tmemNoteProc(p, in) : p;
    if (in.regs_hazard.stored_at >= 0 && q >= 0) v.others.push_back({q, in.regs_hazard.stored_at, note});
  }

  // An MMA accumulating into a result already stored out; the note points
  // at the last store of the fragment before it (or of what it was copied
  // into).
  void staleAccumulator(int p, int pc_, const Instr& in) {
    if (tmemHazard(in))
      return registerHazard(
          p, pc_, in, "data.stale-accumulator",
          fmt::format("{} accumulates into {}, whose value (written before this run of the MMA's loop began) {} "
                      "already read out of TMEM, and no op has overwritten since: init= is false or absent here, so the "
                      "MMA adds to the previous result (a tile loop needs its accumulator reset per tile)",
                      actor(p, pc_), in.regs_hazard.what, tmemReader(p, in)),
          "the accumulator was read out here");
    registerHazard(p, pc_, in, "data.stale-accumulator",
                   fmt::format("{} accumulates into {}, whose value this instance already stored out of registers "
                               "and has not overwritten since: init= is false or absent here, so the MMA adds "
                               "to the previous result (a tile loop needs its accumulator reset per tile)",
                               actor(p, pc_), in.regs_hazard.what),
                   "the accumulator was stored here");
  }

  // A write over an MMA product that nothing read; the note points at the
  // MMA that computed it.
  void discardedProduct(int p, int pc_, const Instr& in) {
    if (tmemHazard(in)) {
      const int q = tmemNoteProc(p, in);
      if (in.regs_hazard.stored && q >= 0)
        return registerHazard(p, pc_, in, "data.discarded-product",
                              fmt::format("{} overwrites {}, which holds the value {} wrote there and no op has read "
                                          "since: the value is lost (TMEM columns reused before the op that was to "
                                          "read them did)",
                                          actor(p, pc_), in.regs_hazard.what, procName(q)),
                              "the value was written here");
      return registerHazard(p, pc_, in, "data.discarded-product",
                            fmt::format("{} overwrites {}, which holds an MMA product that no op has read since: "
                                        "the product is lost (an accumulator cleared or overwritten before the "
                                        "result was read out of TMEM)",
                                        actor(p, pc_), in.regs_hazard.what),
                            "the product was computed here");
    }
    if (in.regs_hazard.at_exit)
      return registerHazard(p, pc_, in, "data.discarded-product",
                            fmt::format("{} is the last operation of {}, and {} still holds an MMA product that "
                                        "this instance has not read since: the product is lost (computed, then "
                                        "never used or stored before the instance exits)",
                                        actor(p, pc_), procName(p), in.regs_hazard.what),
                            "the product was computed here");
    registerHazard(p, pc_, in, "data.discarded-product",
                   fmt::format("{} overwrites {}, which holds an MMA product that this instance has not read "
                               "since: the product is lost (an accumulator cleared, by init= true or a write, "
                               "before the result was used or stored)",
                               actor(p, pc_), in.regs_hazard.what),
                   "the product was computed here");
  }

  static int32_t bit(int p) { return p < 31 ? (1 << p) : (1 << 30); }

  void wait(int p, int pc_, const Instr& in) {
    int64_t c = slot(in.slot, kCompleted);
    event("passes the wait", in.slot, in.phase);
    eventDone(in.slot);
    if (c != in.phase + 1) {
      std::string why = c < in.phase + 1
                            ? fmt::format("only {} phase{} of {} completed: the parity of phase {} matched a lap early",
                                          c, c == 1 ? "" : "s", slotName(in.slot), in.phase)
                            : fmt::format("{} phases of {} completed: phase {} was overtaken", c, slotName(in.slot),
                                          in.phase);
      auto& v = report("sync.stale-phase",
                       fmt::format("wait for phase {} of {} passes with completed count {} (expected {}): {}",
                                   in.phase, slotName(in.slot), c, in.phase + 1, why),
                       p, pc_);
      v.slot = in.slot;
      v.phase = in.phase;
      v.completed = c;
    }
    observe(in.slot, c);
  }

  void namedArrive(int p, int pc_, const Instr& in, bool waits) {
    int32_t& gen = s_.v[m_.off_named + 2 * in.named];
    int32_t& arrived = s_.v[m_.off_named + 2 * in.named + 1];
    const NamedBarrier& nb = m_.sys.named[in.named];
    if (waits) s_.v[m_.off_sgen + p] = gen;  // waits until this generation completes
    arrived += m_.sys.procs[p].warps;
    if (info_) {
      info_->named = in.named;
      info_->event = fmt::format("{} {} ({} of {} warps in generation {})", waits ? "syncs on" : "arrives on",
                                 nb.name, arrived, nb.expected_warps, gen);
    }
    if (arrived > nb.expected_warps && nb.expected_warps > 0) {
      report("sync.arrival-overflow",
             fmt::format("{} brings {} to {} warps in generation {}, more than the {} of its roles", procName(p),
                         nb.name, arrived, gen, nb.expected_warps),
             p, pc_)
          .named = in.named;
    }
    if (completedByExits(m_, s_, in.named)) return completeGeneration(in.named);
    if (nb.expected_warps > 0 && arrived >= nb.expected_warps) {
      ++gen;
      arrived = std::max(0, arrived - nb.expected_warps);
    }
  }

  // The cluster barrier's generation completed with the exited processes'
  // warps counted (completedByExits): every arrival was this generation's.
  void completeGeneration(int named) {
    ++s_.v[m_.off_named + 2 * named];
    s_.v[m_.off_named + 2 * named + 1] = 0;
  }

  // ------------------------------------------------------------ async groups

  void joinGroup(int p, int pc_, int kind) {
    auto& gs = async().of(p, kind);
    if (gs.empty() || gs.back().commit_pc >= 0) gs.push_back({});
    gs.back().pcs.push_back(pc_);
  }

  // A commit closes the open group, or makes an empty one (commit_group
  // with nothing issued still counts as a group).
  void commit(int p, int pc_, int kind) {
    auto& gs = async().of(p, kind);
    if (gs.empty() || gs.back().commit_pc >= 0) gs.push_back({});
    gs.back().commit_pc = pc_;
  }

  // *_wait(pending=n): all but the n newest committed groups are retired.
  void retire(int p, int kind, int64_t pending) {
    const auto& gs0 = cur().of(p, kind);
    int64_t committed = std::count_if(gs0.begin(), gs0.end(), [](const Group& g) { return g.commit_pc >= 0; });
    if (committed <= pending) return;
    auto& gs = async().of(p, kind);
    int64_t drop = committed - pending;
    std::vector<Group> kept;
    for (Group& g : gs) {
      if (g.commit_pc >= 0 && drop > 0) {
        --drop;
        if (kind == kCp)
          for (int32_t ipc : g.pcs) writeData(p, ipc);  // cp.async data is there once waited
        continue;
      }
      kept.push_back(std::move(g));
    }
    gs = std::move(kept);
  }

  // After mma_wait every MMA group committed before the ones still
  // outstanding is known complete, and so are the arrivals of their commits.
  void knowCompleted(int p, int pc_) {
    const auto& gs = cur().of(p, kMma);
    int64_t outstanding = std::count_if(gs.begin(), gs.end(), [](const Group& g) { return g.commit_pc >= 0; });
    int32_t known = static_cast<int32_t>(m_.commits_before[p][pc_] - 1 - outstanding);
    int32_t& obs = s_.v[m_.off_obs + p];
    if (known <= obs) return;
    obs = known;
    bool any = std::any_of(cur().unobserved.begin(), cur().unobserved.end(),
                           [&](const Unobserved& u) { return u.proc == p && u.seq <= obs; });
    if (any) std::erase_if(async().unobserved, [&](const Unobserved& u) { return u.proc == p && u.seq <= obs; });
  }

  // ------------------------------------------------------------ landings

  void land(int p, int pc_) {
    const Instr& in = m_.instr(p, pc_);
    Async& a = async();
    auto it = std::find_if(a.loads.begin(), a.loads.end(), [&](const Load& l) { return l.proc == p && l.pc == pc_; });
    int32_t meant = it->phase;
    a.loads.erase(it);
    if (info_) event(fmt::format("TMA load lands {} bytes", in.bytes), in.slot, in.phase);
    if (m_.sys.remote(p, pc_) && !targetAlive(p, pc_, in, true)) return;
    writeData(p, pc_);
    int k = in.slot;
    if (slot(k, kCompleted) > meant) {
      auto& v = report("sync.tx-imbalance",
                       fmt::format("the TMA load's {} bytes land on {} after the phase it was issued for ({}) "
                                   "completed: the expected transaction bytes were too few",
                                   in.bytes, slotName(k), meant),
                       p, pc_);
      v.slot = k;
      v.phase = meant;
      v.completed = slot(k, kCompleted);
    }
    int32_t phase_now = slot(k, kCompleted);
    slot(k, kTx) -= static_cast<int32_t>(in.bytes);
    settle(k);
    a.unobserved.push_back({k, phase_now, -1, 0});
    eventDone(k);
  }

  void complete(int p, int commit_pc) {
    const Instr& in = m_.instr(p, commit_pc);
    Async& a = async();
    auto& gs = a.of(p, kMma);
    auto it = std::find_if(gs.begin(), gs.end(), [](const Group& g) { return g.commit_pc >= 0; });
    gs.erase(it);
    event("MMA group completes and arrives", in.slot, in.phase);
    int k = in.slot;
    int32_t phase_now = slot(k, kCompleted);
    arrive(k, 1, p, commit_pc);
    a.unobserved.push_back({k, phase_now, p, m_.ordinal(p) ? nextOrdinal(a, p) : m_.commit_seq[p][commit_pc]});
    eventDone(k);
  }

  // The number of p's next completed MMA group where its commits are
  // numbered in issue order (Model::ordinal_commits): one past every number
  // p's state holds. Groups complete in commit order (FIFO), and observe
  // keeps max(observed, unobserved numbers) as it is (what it erases is at
  // most the observed number it sets), so the numbers grow in issue order
  // whatever else interleaves.
  int32_t nextOrdinal(const Async& a, int p) const {
    int32_t top = s_.v[m_.off_obs + p];
    for (const Unobserved& u : a.unobserved)
      if (u.proc == p) top = std::max(top, u.seq);
    return top + 1;
  }

  // ------------------------------------------------------------ memory

  // Effects of a completed write: the bytes hold its data; a generic write
  // is unfenced until its process fences.
  void writeData(int p, int pc_) {
    const Instr& in = m_.instr(p, pc_);
    for (size_t i = 0; i < in.accesses.size(); ++i) {
      const Access& acc = in.accesses[i];
      if (!acc.write) continue;
      const AtomRange& r = m_.atoms_of[p][pc_][i];
      for (int x = r.a0; x < r.a1; ++x) {
        int t = m_.tracked_of[x];
        if (t < 0) continue;
        data(t) = m_.write_id[p][pc_][i];
        unfenced(t) = acc.proxy == Proxy::Generic ? (unfenced(t) | bit(p)) : 0;
        if (acc.proxy == Proxy::Async) unfencedReads(t) = 0;  // the access it had to follow is over
      }
    }
  }

  // A synchronous generic-proxy read of shared memory: until its process
  // fences, an async-proxy write of the bytes (a TMA load) may overtake it.
  void markGenericReads(int p, int pc_) {
    const Instr& in = m_.instr(p, pc_);
    for (size_t i = 0; i < in.accesses.size(); ++i) {
      const Access& acc = in.accesses[i];
      if (acc.write || acc.proxy != Proxy::Generic) continue;
      const AtomRange& r = m_.atoms_of[p][pc_][i];
      for (int x = r.a0; x < r.a1; ++x)
        if (m_.tracked_of[x] >= 0) unfencedReads(m_.tracked_of[x]) |= bit(p);
    }
  }

  // "a[0] bytes [0, 8192)": the overlapping part, named through access a.
  std::string overlapText(const Access& a, const Access& b) const {
    int64_t lo = std::max(a.lo, b.lo), hi = std::min(a.hi, b.hi);
    if (a.runs > 1 || b.runs > 1) {  // strided: the first bytes they share
      lo = hi = 0;
      forEachRun(a, [&](int64_t alo, int64_t ahi) {
        forEachRun(b, [&](int64_t blo, int64_t bhi) {
          if (lo >= hi && std::max(alo, blo) < std::min(ahi, bhi)) {
            lo = std::max(alo, blo);
            hi = std::min(ahi, bhi);
          }
        });
      });
    }
    if (lo >= hi) return a.what;
    if (m_.sys.spaces[a.space].kind == MemSpace::Kind::Global) return globalElementName(m_.sys.spaces[a.space], lo);
    std::string name = a.what.substr(0, a.what.find(" bytes ["));
    name = name.substr(0, name.find(" lanes ["));
    if (m_.sys.spaces[a.space].kind == MemSpace::Kind::Tmem) {
      const int64_t q = lo / kTmemQuarterStride;
      return fmt::format("{} lanes [{}, {}) columns [{}, {})", name, 32 * q, 32 * q + 32, lo - q * kTmemQuarterStride,
                         hi - q * kTmemQuarterStride);
    }
    return fmt::format("{} bytes [{}, {})", name, lo, hi);
  }

  // "load's TMA load", "math's MMA", "consumers[1]'s lm.copy"
  std::string actor(int q, int qpc) const {
    const Instr& in = m_.instr(q, qpc);
    std::string what = in.kind == InstrKind::TmaLoad    ? "TMA load"
                       : in.kind == InstrKind::TmaStore ? "TMA store"
                       : in.kind == InstrKind::CpAsync  ? "cp.async"
                       : in.kind == InstrKind::Mma      ? "MMA"
                       : in.kind == InstrKind::TmemLoad ? "tcgen05.ld"
                       : in.kind == InstrKind::TmemStore ? "tcgen05.st"
                                                        : "lm." + std::string(ir::opName(in.stmt->op.kind));
    return procName(q) + "'s " + what;
  }

  void checkAccesses(int p, int pc_) {
    const Instr& in = m_.instr(p, pc_);
    for (size_t i = 0; i < in.accesses.size(); ++i) {
      if (checkRace(p, pc_, static_cast<int>(i))) continue;
      if (!in.accesses[i].write) checkRead(p, pc_, static_cast<int>(i));
      else if (in.accesses[i].proxy == Proxy::Async) checkAsyncWrite(p, pc_, static_cast<int>(i));
    }
  }

  // An async-proxy write (a TMA load, from its issue on) of bytes that a
  // generic-proxy access - a read (write-after-read) or a write - reached
  // before it, with no lm.fence_proxy() by that access's process in
  // between: the PTX memory model orders accesses of different proxies only
  // through a proxy fence, whatever barriers order the two.
  void checkAsyncWrite(int p, int pc_, int i) {
    const Access& acc = m_.access(p, pc_, i);
    const AtomRange& r = m_.atoms_of[p][pc_][i];
    for (int x = r.a0; x < r.a1; ++x) {
      int t = m_.tracked_of[x];
      if (t < 0 || (unfencedReads(t) | unfenced(t)) == 0) continue;
      bool read = unfencedReads(t) != 0;
      int q = __builtin_ctz(static_cast<uint32_t>(read ? unfencedReads(t) : unfenced(t)));
      auto& v = report("proxy.missing-fence",
                       fmt::format("{} writes {} through the async proxy, but {}'s generic-proxy {} of it has no "
                                   "lm.fence_proxy() after it (write-after-{} across proxies)",
                                   actor(p, pc_), acc.what, procName(q), read ? "read" : "write",
                                   read ? "read" : "write"),
                       p, pc_);
      if (int qpc = lastGenericAccess(q, x, !read); qpc >= 0)
        v.others.push_back({q, qpc, read ? "read here (generic proxy)" : "written here (generic proxy)"});
      v.buffer = acc.what;
      return;
    }
  }

  // The last instruction before q's pc with a synchronous generic-proxy
  // read (write) of atom x, or -1 (for a note).
  int lastGenericAccess(int q, int x, bool write) const {
    for (int qpc = m_.prevPc(q, pcOf(m_, s_, q)); qpc >= 0; qpc = m_.prevPc(q, qpc)) {
      const Instr& in = m_.instr(q, qpc);
      for (size_t j = 0; j < in.accesses.size(); ++j) {
        const Access& b = in.accesses[j];
        const AtomRange& rb = m_.atoms_of[q][qpc][j];
        if (b.write == write && b.proxy == Proxy::Generic && rb.a0 <= x && x < rb.a1) return qpc;
      }
    }
    return -1;
  }

  // Returns true when a race was reported.
  bool checkRace(int p, int pc_, int i) {
    const Access& acc = m_.access(p, pc_, i);
    const Instr& me = m_.instr(p, pc_);
    auto conflict = [&](int q, int qpc, int j, std::string_view how) {
      const Access& b = m_.access(q, qpc, j);
      if (!accessesConflict(m_.sys, acc, b) || !m_.overlap(p, pc_, i, q, qpc, j)) return false;
      // wgmma / tcgen05 ops of one instance are ordered among themselves
      if (q == p && me.kind == InstrKind::Mma && m_.instr(q, qpc).kind == InstrKind::Mma) return false;
      // Between two parties the writer is at fault (it overwrote data still
      // in use, or wrote what the reader did not wait for); an instance
      // racing with its own async op is at fault where it accesses too early.
      bool blame_other = q != p && b.write && !acc.write;
      std::string what = blame_other ? overlapText(b, acc) : overlapText(acc, b);
      auto side = [&](int x, int xpc, bool write, std::string_view state) {
        return fmt::format("{}{}{} {}", actor(x, xpc), state.empty() ? "" : " ", state, write ? "writes" : "reads");
      };
      std::string me_side = side(p, pc_, acc.write, ""), other_side = side(q, qpc, b.write, how);
      std::string tail = how.empty() ? ", and no barrier orders the two" : "";
      auto& v = report("sync.race",
                       blame_other ? fmt::format("{} {} while {} them{}", other_side, what, me_side, tail)
                                   : fmt::format("{} {} while {} them{}", me_side, what, other_side, tail),
                       p, pc_);
      v.others.push_back({q, qpc, fmt::format("{} here", other_side)});
      if (blame_other) {
        v.others.back() = {p, pc_, fmt::format("{} here", me_side)};
        v.primary = {q, qpc, ""};
      }
      v.buffer = what;
      return true;
    };
    // conflict()'s own first test, inline: most accesses meet none, and
    // the call (which builds the report) is only made for those that do
    auto meets = [&](int q, int qpc, int j) {
      return accessesConflict(m_.sys, acc, m_.instr(q, qpc).accesses[j]) && m_.overlap(p, pc_, i, q, qpc, j);
    };
    for (const Load& l : cur().loads)
      if (meets(l.proc, l.pc, 0) && conflict(l.proc, l.pc, 0, "(not landed yet)")) return true;
    for (int q = 0; q < m_.P; ++q)
      for (int k = 0; k < kGroupKinds; ++k)
        for (const Group& g : cur().of(q, k))
          for (int32_t qpc : g.pcs) {
            const Instr& qi = m_.instr(q, qpc);
            for (size_t j = 0; j < qi.accesses.size(); ++j)
              if (qi.accesses[j].async && meets(q, qpc, static_cast<int>(j)) &&
                  conflict(q, qpc, static_cast<int>(j), groupHow(k, g)))
                return true;
          }
    for (int q = 0; q < m_.P; ++q) {
      int qpc = m_.prevPc(q, pcOf(m_, s_, q));
      if (q == p || qpc < 0 || !m_.isSyncAccess(q, qpc)) continue;
      const Instr& qi = m_.instr(q, qpc);
      for (size_t j = 0; j < qi.accesses.size(); ++j)
        if (meets(q, qpc, static_cast<int>(j)) && conflict(q, qpc, static_cast<int>(j), "")) return true;
    }
    return false;
  }

  static std::string groupHow(int kind, const Group& g) {
    if (kind == kTmemLd) return "(no tcgen05.wait::ld after it yet)";
    if (kind == kTmemSt) return "(no tcgen05.wait::st after it yet)";
    return g.commit_pc < 0 ? "(its group is not even committed)" : "(its group is not retired)";
  }

  // Stale data and missing proxy fences, for a read that does not race.
  void checkRead(int p, int pc_, int i) {
    const Access& acc = m_.access(p, pc_, i);
    const AtomRange& r = m_.atoms_of[p][pc_][i];
    // a write whose data staleRead found fresh for this read: so are the
    // next atoms that hold it (most of a range holds one write's data)
    int32_t fresh = -2;
    for (int x = r.a0; x < r.a1; ++x) {
      int t = m_.tracked_of[x];
      if (t < 0) continue;
      if (acc.proxy == Proxy::Async && unfenced(t) != 0) {
        int w = __builtin_ctz(static_cast<uint32_t>(unfenced(t)));
        auto& v = report("proxy.missing-fence",
                         fmt::format("{} reads {} through the async proxy, but {}'s generic-proxy write of it has no "
                                     "lm.fence_proxy() after it",
                                     procName(p), acc.what, procName(w)),
                         p, pc_);
        int wd = data(t);
        if (wd >= 0) v.others.push_back({m_.writes[wd].proc, m_.writes[wd].pc, "written here (generic proxy)"});
        v.buffer = acc.what;
        return;
      }
      if (acc.view < 0 || data(t) == fresh) continue;
      if (staleRead(p, pc_, acc, data(t))) return;
      fresh = data(t);
    }
  }

  // What a read means and what a write holds, in the terms staleData
  // compares them (laps unless both ops name iterations of one view).
  std::string identity(const Access& a, bool laps) const {
    return laps ? fmt::format("lap {} of the slot (index {})", dataLap(*m_.sys.schedule, a), a.index)
                : fmt::format("index {} (generation {})", a.index, a.gen);
  }

  bool staleRead(int p, int pc_, const Access& acc, int32_t d) {
    if (d < 0) {
      auto& v = report("data.stale-read",
                       fmt::format("{} reads {} (for index {}) but nothing was written there yet", procName(p),
                                   acc.what, acc.index),
                       p, pc_);
      v.buffer = acc.what;
      return true;
    }
    if (!staleWrite(m_, p, acc, d)) return false;
    const Model::WriteRef& w = m_.writes[d];
    const Access& wa = m_.access(w.proc, w.pc, w.acc);
    const bool laps = byLaps(wa, acc);
    std::string held = identity(wa, laps);
    if (wa.view != acc.view)
      held = acc.view_written ? fmt::format("{} (another view's data)", m_.sys.schedule->views[wa.view].name)
                              : fmt::format("{}, written through {}", held, m_.sys.schedule->views[wa.view].name);
    auto& v = report("data.stale-read",
                     fmt::format("{} reads {} meaning {}, but it holds the data of {}", procName(p), acc.what,
                                 identity(acc, laps), held),
                     p, pc_);
    v.others.push_back({w.proc, w.pc, "the data it holds was written here"});
    v.buffer = acc.what;
    return true;
  }
};

}  // namespace

void applyStep(const Model& m, State& s, const Async& a, const Step& st, std::vector<Violation>& found,
               StepInfo* info) {
  // (the copy of the async part a step writes, into storage kept per
  // thread: a fresh Async's vectors were allocated and freed per such
  // step. A nested call, which none makes, would get its own.)
  thread_local Async scratch;
  thread_local bool busy = false;
  if (busy) {
    Async own;
    Stepper(m, s, a, found, info, own).run(st);
    return;
  }
  struct Busy {
    bool& b;
    explicit Busy(bool& x) : b(x) { b = true; }
    ~Busy() { b = false; }
  } guard(busy);
  Stepper(m, s, a, found, info, scratch).run(st);
}

// ================================================================ state checks

static void lostPhase(const Model& m, const State& s, std::vector<Violation>& found) {
  for (int p = 0; p < m.P; ++p) {
    if (finished(m, s, p)) continue;
    int pc = pcOf(m, s, p);
    const Instr& in = m.instr(p, pc);
    if (in.kind != InstrKind::Wait) continue;
    int64_t c = slotField(m, s, in.slot, kCompleted);
    if (c < in.phase + 2) continue;
    Violation v;
    v.rule = "sync.lost-phase";
    int64_t behind = c - in.phase - 1;
    v.message = fmt::format("{} waits for phase {} of {}, but the slot already completed phase {}: the waiter is {} "
                            "phase{} behind (with parity waits it now blocks for a lap or passes on the wrong one)",
                            m.sys.procs[p].name, in.phase, m.sys.slots[in.slot].name, c - 1, behind,
                            behind == 1 ? "" : "s");
    v.primary = {p, pc, ""};
    v.slot = in.slot;
    v.phase = in.phase;
    v.completed = c;
    found.push_back(std::move(v));
  }
}

// Where an unobserved completion came from, for the report's location: a
// TMA load into its slot, or its process's MMA commit by number (by barrier
// where the numbers are ordinals, Model::ordinal_commits); the first pc of
// its process (of process 0 for a load) where none matches (an explorer's
// renumbered or shifted number may match no pc: the violation stands).
static std::pair<int, int> completedInto(const Model& m, const Unobserved& u) {
  for (int p = 0; p < m.P; ++p) {
    if (u.proc >= 0 && p != u.proc) continue;
    for (int pc = 0; pc < m.programSize(p); ++pc) {
      const Instr& in = m.instr(p, pc);
      const bool match = u.proc < 0      ? in.kind == InstrKind::TmaLoad && in.slot == u.slot
                         : m.ordinal(p) ? in.kind == InstrKind::MmaCommit && in.slot == u.slot
                                         : m.commit_seq[p][pc] == u.seq;
      if (match) return {p, pc};
    }
  }
  return {std::max(u.proc, 0), 0};
}

static void asyncAtExit(const Model& m, const State& s, const Async& a, std::vector<Violation>& found) {
  auto report = [&](int p, int pc, std::string msg) {
    Violation v;
    v.rule = "sync.async-at-exit";
    v.message = std::move(msg);
    v.primary = {p, pc, ""};
    const Instr& in = m.instr(p, pc);
    if (!in.accesses.empty()) v.buffer = in.accesses[0].what;
    v.slot = in.slot;
    found.push_back(std::move(v));
  };
  for (const Load& l : a.loads) {
    report(l.proc, l.pc,
           fmt::format("every role has exited while the TMA load into {} has not landed",
                       m.instr(l.proc, l.pc).accesses[0].what));
    return;
  }
  static const char* kWhat[] = {"MMA", "TMA store", "cp.async", "tcgen05.ld", "tcgen05.st"};
  static const char* kFix[] = {"lm.mma_wait(pending=0) or a commit barrier that is waited",
                               "lm.tma_store_wait(pending=0)", "lm.cp_async_wait(pending=0)", "lm.tmem_load_wait()",
                               "lm.tmem_store_wait()"};
  static_assert(std::size(kWhat) == kGroupKinds && std::size(kFix) == kGroupKinds);
  // A group still touches memory if it has ops; an MMA commit with a
  // barrier still has its arrival (an mbarrier write) to come.
  for (int p = 0; p < m.P; ++p)
    for (int k = 0; k < kGroupKinds; ++k)
      for (const Group& g : a.of(p, k)) {
        if (g.pcs.empty() && k == kMma && g.commit_pc >= 0 && m.instr(p, g.commit_pc).slot >= 0) {
          report(p, g.commit_pc,
                 fmt::format("every role has exited before the MMA group committed here arrived on {}",
                             m.sys.slots[m.instr(p, g.commit_pc).slot].name));
          return;
        }
        if (!g.pcs.empty()) {
          report(p, g.pcs.front(),
                 fmt::format("{} exits while its {}{} still accesses {} memory ({}: no {} before exit)",
                             m.sys.procs[p].name, kWhat[k],
                             k >= kTmemLd ? "" : g.commit_pc < 0 ? " (never committed)" : " group",
                             k >= kTmemLd ? "tensor" : "shared",
                             m.instr(p, g.pcs.front()).accesses.empty() ? "" : m.instr(p, g.pcs.front()).accesses[0].what,
                             kFix[k]));
          return;
        }
      }
  for (const Unobserved& u : a.unobserved) {
    const auto [at_p, at_pc] = completedInto(m, u);
    report(at_p, at_pc,
           fmt::format("every role has exited, but no instance waited for phase {} of {}: the {} counted into "
                       "it may still be in flight",
                       u.phase, m.sys.slots[u.slot].name, u.proc < 0 ? "TMA load" : "MMA group"));
    found.back().slot = u.slot;
    return;
  }
}

bool explainsDeadlock(const Violation& v, int slot, int64_t phase) {
  return v.slot == slot && (v.phase == phase || v.phase < 0) &&
         (v.rule == "sync.arrival-underflow" || v.rule == "sync.tx-imbalance");
}

std::optional<int32_t> landingPhase(const Model& m, const State& s, const Step& st) {
  if (st.kind == Step::Kind::Land || st.proc < 0 || st.pc < 0) return std::nullopt;
  const Instr& in = m.instr(st.proc, st.pc);
  bool arrival = st.kind == Step::Kind::Complete || in.kind == InstrKind::Arrive || in.kind == InstrKind::ExpectTx ||
                 in.kind == InstrKind::TmaLoad;
  if (!arrival || in.slot < 0) return std::nullopt;
  return slotField(m, s, in.slot, kCompleted);
}

std::optional<int32_t> landsElsewhere(const Model& m, const State& s, const Step& st) {
  auto c = landingPhase(m, s, st);
  if (!c || *c == m.instr(st.proc, st.pc).phase) return std::nullopt;
  return c;
}

// Processes (other than p) that could still contribute to what p waits for.
static bool provides(const Model& m, const State& s, int y, const Instr& w) {
  for (int pc = pcOf(m, s, y); pc < m.programSize(y); ++pc) {
    const Instr& in = m.instr(y, pc);
    if (w.kind == InstrKind::Wait && in.slot == w.slot && in.kind != InstrKind::Wait) return true;
    if (w.kind == InstrKind::SyncWait && in.named == w.named &&
        (in.kind == InstrKind::SyncArrive || in.kind == InstrKind::BarArrive))
      return true;
  }
  return false;
}

// Blocked processes in wait-for order: those on a cycle of the wait-for
// graph first (the heart of the deadlock), then the rest. The cycle search
// is the one of ir/graph.h (Boost.Graph strong components).
static std::vector<int> deadlockOrder(const Model& m, const State& s) {
  std::vector<int> blocked;
  for (int p = 0; p < m.P; ++p)
    if (!finished(m, s, p)) blocked.push_back(p);
  auto waitsOn = [&](int x, int y) { return x != y && provides(m, s, y, m.instr(x, pcOf(m, s, x))); };
  ir::EdgeList edges;
  for (size_t i = 0; i < blocked.size(); ++i)
    for (size_t j = 0; j < blocked.size(); ++j)
      if (waitsOn(blocked[i], blocked[j])) edges.push_back({static_cast<int>(i), static_cast<int>(j)});
  std::vector<bool> cyclic = ir::onCycle(static_cast<int>(blocked.size()), edges);
  std::vector<int> order, rest;
  for (size_t i = 0; i < blocked.size(); ++i) (cyclic[i] ? order : rest).push_back(blocked[i]);
  order.insert(order.end(), rest.begin(), rest.end());
  return order;
}

static void deadlock(const Model& m, const State& s, const std::vector<Violation>& statics,
                     std::vector<Violation>& found) {
  auto explained = [&](int slot, int64_t phase) -> const Violation* {
    for (const Violation& v : statics)
      if (explainsDeadlock(v, slot, phase)) return &v;
    return nullptr;
  };
  Violation v;
  v.rule = "sync.deadlock";
  for (int p : deadlockOrder(m, s)) {
    int pc = pcOf(m, s, p);
    const Instr& in = m.instr(p, pc);
    std::string what;
    if (in.kind == InstrKind::Wait) {
      if (const Violation* cause = explained(in.slot, in.phase)) {
        // the count is the cause: reported as such, with this run as its trace
        found.push_back(*cause);
        return;
      }
      what = fmt::format("{} waits for phase {} of {} (completed: {})", m.sys.procs[p].name, in.phase,
                         m.sys.slots[in.slot].name, slotField(m, s, in.slot, kCompleted));
    } else {
      what = fmt::format("{} waits on {} (generation {})", m.sys.procs[p].name, m.sys.named[in.named].name,
                         s.v[m.off_named + 2 * in.named]);
    }
    if (v.primary.proc < 0) {
      v.primary = {p, pc, ""};
      v.message = "no instance can make progress: " + what;
      v.slot = in.slot;
      v.phase = in.kind == InstrKind::Wait ? in.phase : -1;
      v.named = in.named;
      if (in.slot >= 0) v.completed = slotField(m, s, in.slot, kCompleted);
    } else {
      v.others.push_back({p, pc, what});
      v.message += "; " + what;
    }
  }
  if (v.primary.proc >= 0) found.push_back(std::move(v));
}

void stateViolations(const Model& m, const State& s, const Async& a, const std::vector<Step>& enabled,
                     const std::vector<Violation>& statics, std::vector<Violation>& found) {
  size_t before = found.size();
  lostPhase(m, s, found);
  if (found.size() > before) return;  // a lost phase explains whatever blocks here
  if (allFinished(m, s)) {
    asyncAtExit(m, s, a, found);
    return;
  }
  if (enabled.empty()) deadlock(m, s, statics, found);
}

}  // namespace cake::encoder::sim
