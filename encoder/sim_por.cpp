// Persistent-set reduction for the explicit-state engine; see sim_por.h for
// the method and docs/semantics.md for why it keeps every rule's violations
// reachable.
#include "encoder/sim_por.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <span>
#include <tuple>
#include <unordered_map>

namespace cake::encoder::sim {


Reducer::Reducer(const Model& m, const ExitLayout* exits) : m_(m), exits_(exits) {
  obj_named_ = m.S;
  obj_atom_ = m.S + m.N;
  obj_cta_ = obj_atom_ + m.atoms;  // per modelled CTA: whether it has exited
  obj_trip_ = obj_cta_ + m.sys.ctas;  // the trip count (with an ExitLayout)
  if (m.sys.ctas > 1) obj_ready_ = obj_trip_ + 1;
  // a clustered system's exits: only with the exit paths laid out
  precise_exits_ = exits_ && m.sys.ctas > 1;
  // (a cluster barrier that exits complete, Model::cluster_exits: a wait's
  // passing depends on every process's exit, which no footprint here reads)
  active_ = obj_trip_ + 2 <= kMaxObjects && !(precise_exits_ && exits_->exit_starts.size() != static_cast<size_t>(m.P)) &&
            !m.cluster_exits;
  setWords(obj_trip_ + 2);
  if (active_) precomputeAccessFeet();
  if (active_) precompute();
  if (active_) precomputeSyncOnly();
  if (active_ && precise_exits_) precomputeExitSegs();
}

// A process that arrives on a named barrier by lm.sync blocks until that
// generation completes, so it arrives at most once in each generation. If
// every arrival on the barrier is of that kind and the other processes'
// warps cannot complete a generation without the seed's, no generation
// after the current one completes while the seed stands still: a window
// passes at most one wait of the barrier that has not completed yet
// (windows()). The arrivals are checked here; the count per seed there.
void Reducer::precomputeSyncOnly() {
  sync_warps_.assign(static_cast<size_t>(m_.N), 0);
  syncs_on_.assign(static_cast<size_t>(m_.P), std::vector<char>(static_cast<size_t>(m_.N), 0));
  for (int p = 0; p < m_.P; ++p) {
    const int n = m_.programSize(p);
    for (int pc = 0; pc < n; ++pc) {
      const Instr& in = m_.instr(p, pc);
      if (in.named < 0 || in.named >= m_.N) continue;
      if (in.kind == InstrKind::SyncWait) {
        // reached only from its own arrival (each pc has one predecessor),
        // so it waits for the generation that arrival joined
        const int prev = m_.prevPc(p, pc);
        if (prev < 0 || prev >= n || m_.instr(p, prev).kind != InstrKind::SyncArrive ||
            m_.instr(p, prev).named != in.named)
          sync_warps_[in.named] = -1;
        continue;
      }
      if (in.kind != InstrKind::SyncArrive && in.kind != InstrKind::BarArrive) continue;
      const int next = m_.nextPc(p, pc);
      const bool blocking = in.kind == InstrKind::SyncArrive && next >= 0 && next < n &&
                            m_.instr(p, next).kind == InstrKind::SyncWait && m_.instr(p, next).named == in.named;
      if (!blocking) sync_warps_[in.named] = -1;
      syncs_on_[p][in.named] = 1;
    }
  }
  for (int nb = 0; nb < m_.N; ++nb) {
    if (sync_warps_[nb] < 0) continue;
    for (int p = 0; p < m_.P; ++p)
      if (syncs_on_[p][nb]) sync_warps_[nb] += m_.sys.procs[p].warps;
    if (sync_warps_[nb] > m_.sys.named[nb].expected_warps) sync_warps_[nb] = -1;
  }
}

Reducer::Reducer(const Model& m, const BranchLayout& branches) : m_(m), branches_(&branches) {
  obj_named_ = m.S;
  obj_atom_ = m.S + m.N;
  obj_cta_ = obj_atom_ + m.atoms;
  obj_trip_ = obj_cta_ + m.sys.ctas;  // the unknowns, one object each
  if (m.sys.ctas > 1) obj_ready_ = obj_trip_ + branches.unknowns;
  // clustered systems: the CTA objects and the cluster barrier's completion
  // as in the one-loop reduction (clusterFoot, readyMask; docs/z3.md "A
  // reduction for persistent cluster proofs")
  active_ = obj_trip_ + branches.unknowns + 1 <= kMaxObjects && !m.cluster_exits;  // (as above)
  setWords(obj_trip_ + branches.unknowns + 1);
  for (int u = 0; u < branches.unknowns && obj_trip_ + u < kMaxObjects; ++u) trip_mask_.set(obj_trip_ + u);
  cluster_phases_ = m.sys.ctas > 1;
  phase_windows_ = true;
  if (active_) precomputeAccessFeet();
  if (active_) precomputeBranches();
  if (active_) precomputePrivate();
}

// Per process, the atoms no other process accesses (its async ops count as
// its own): a step whose footprint lies within them is a *local* step.
void Reducer::precomputePrivate() {
  std::vector<int> owner(static_cast<size_t>(m_.atoms), -1);  // -2: several
  for (int p = 0; p < m_.P; ++p)
    for (int pc = 0; pc < m_.programSize(p); ++pc)
      for (const AtomRange& r : m_.atoms_of[p][pc])
        for (int x = r.a0; x < r.a1; ++x) owner[x] = owner[x] == -1 || owner[x] == p ? p : -2;
  private_.assign(m_.P, Bits{});
  for (int x = 0; x < m_.atoms; ++x)
    if (owner[x] >= 0) private_[owner[x]].set(obj_atom_ + x);
}

bool Reducer::localStep(const Agent& ag) const {
  if (ag.kind != Agent::Kind::Proc || !ag.exec_enabled || ag.leaves || private_.empty()) return false;
  const Bits out = ~private_[ag.proc];
  const Foot& f = ag.trans;
  return !((f.r | f.w | f.l | f.a | f.f | f.ar) & out).any();
}

// The footprints of every pc's accesses and current access, as indices into access_feet_
// (-1: empty), so that agents() and windows() combine them without
// building a footprint each time (docs/benchmarks.md "The 4-stage proof's
// reducer").
void Reducer::precomputeAccessFeet() {
  access_id_.assign(m_.P, {});
  current_id_.assign(m_.P, {});
  // (with a BranchLayout each distinct footprint once: the same accesses
  // repeat in every tile and copy of a combined program, and a Foot is 384
  // bytes; the smaller programs of the other explorations, whose reducers
  // are made often, keep one per pc: hashing cost more there)
  std::unordered_map<uint64_t, std::vector<int>> interned;
  for (int p = 0; p < m_.P; ++p) {
    const int n = m_.programSize(p);
    access_id_[p].assign(n, -1);
    for (int pc = 0; pc < n; ++pc) {
      if (m_.instr(p, pc).accesses.empty()) continue;
      if (branches_) {
        access_id_[p][pc] = internInto(access_feet_, accessFoot(p, pc), interned);
        continue;
      }
      access_id_[p][pc] = static_cast<int>(access_feet_.size());
      access_feet_.push_back(accessFoot(p, pc));
    }
    // A synchronous access stays current until the process's next step, so
    // that step (whatever it is) ends it: it is part of the step's footprint.
    current_id_[p].assign(n, -1);
    for (int pc = 0; pc < n; ++pc) {
      const int last = m_.prevPc(p, pc);
      if (last >= 0 && last < n && m_.isSyncAccess(p, last)) current_id_[p][pc] = access_id_[p][last];
    }
  }
}

// R/W on the atoms of an instruction's accesses.
Foot Reducer::accessFoot(int p, int pc) const {
  Foot f;
  const Instr& in = m_.instr(p, pc);
  for (size_t i = 0; i < in.accesses.size(); ++i) {
    const AtomRange& r = m_.atoms_of[p][pc][i];
    const Access& acc = in.accesses[i];
    for (int x = r.a0; x < r.a1; ++x) {
      (acc.write ? f.w : f.r).set(obj_atom_ + x);
      if (acc.proxy == Proxy::Async) f.ar.set(obj_atom_ + x);  // checks the unfenced marks
    }
  }
  return f;
}

// What a process's exit paths can give, for windows that cover them whole.
// A run takes one exit path: per slot and named barrier, the most that one
// path gives (as the precise exits' stretches, precomputeExitSegs). A sum
// over the paths let a window pass a barrier that needs the other agents:
// a lap window's exit paths hold the loop's last iterations, one barrier
// each, for every trip count the window leaves at (docs/z3.md "Exit paths
// give what one path gives"). Without the paths' starts: every exit pc.
std::vector<Reducer::Contribution> Reducer::exitGives(int p, int exits_begin) const {
  const int n = m_.programSize(p);
  std::vector<Contribution> out;
  if (!exits_ || static_cast<size_t>(p) >= exits_->exit_starts.size()) {
    for (int pc = exits_begin; pc < n; ++pc)
      if (const Contribution c = contribution(p, pc); c.slot >= 0 || c.named >= 0) out.push_back(c);
    return out;
  }
  std::map<int, Contribution> most;
  for (int start : exits_->exit_starts[p]) {
    std::map<int, Contribution> path;
    for (int pc = start; pc < n; pc = m_.nextPc(p, pc)) {
      const Contribution c = contribution(p, pc);
      if (c.slot < 0 && c.named < 0) continue;
      Contribution& sum =
          path.try_emplace(c.slot >= 0 ? c.slot : -1 - c.named, Contribution{c.slot, c.named}).first->second;
      sum.arrivals += c.arrivals;
      sum.landed += c.landed;
      sum.expected += c.expected;
    }
    for (const auto& [key, c] : path) {
      Contribution& m = most.try_emplace(key, Contribution{c.slot, c.named}).first->second;
      m.arrivals = std::max(m.arrivals, c.arrivals);
      m.landed = std::max(m.landed, c.landed);
      m.expected = std::max(m.expected, c.expected);
    }
  }
  for (const auto& [key, c] : most) out.push_back(c);
  return out;
}

void Reducer::precompute() {
  own_.resize(m_.P);
  spawn_.resize(m_.P);
  ends_.resize(m_.P);
  onto_wait_.resize(m_.P);
  head_win_.resize(m_.P);
  next_block_.resize(m_.P);
  blocks_.resize(m_.P);
  block_rec_.resize(m_.P);
  seg_win_.resize(m_.P);
  exit_foot_.resize(m_.P);
  exit_gives_.resize(m_.P);
  heads_before_.resize(m_.P);
  for (int p = 0; p < m_.P; ++p) {
    int n = m_.programSize(p);
    own_[p].resize(n);
    spawn_[p].resize(n);
    ends_[p].resize(n);
    onto_wait_[p].assign(n, -1);
    const int exits_begin = exits_ ? exits_->exits_begin[p] : n;
    auto isHead = [&](int pc) { return exits_ && pc < n && exits_->is_head[p][pc]; };
    Foot all_async;  // every async access of the process (what an exit path's waits may retire)
    for (int pc = 0; pc < n; ++pc) {
      const Instr& in = m_.instr(p, pc);
      for (size_t i = 0; i < in.accesses.size(); ++i) {
        if (!in.accesses[i].async) continue;
        const AtomRange& r = m_.atoms_of[p][pc][i];
        for (int x = r.a0; x < r.a1; ++x) (in.accesses[i].write ? all_async.w : all_async.r).set(obj_atom_ + x);
      }
    }
    Bits generic_accesses;  // atoms it wrote or read through the generic proxy so far (its fences clear their marks)
    // The async groups of the process, simulated statically: a *_wait
    // retires exactly the groups that are older than its `pending` newest,
    // so its footprint is theirs (not every group ever issued).
    struct Rec { Bits r, w; };  // the accesses a group's records stand for
    std::vector<Rec> groups[kGroupKinds];
    Rec open[kGroupKinds];
    for (int pc = 0; pc < n; ++pc) {
      const Instr& in = m_.instr(p, pc);
      Foot& f = own_[p][pc];
      f |= accessFoot(p, pc);
      int kind = m_.groupKind(in.kind);
      switch (in.kind) {
        case InstrKind::Wait: f.r.set(in.slot); break;
        case InstrKind::SyncWait: f.r.set(obj_named_ + in.named); break;
        case InstrKind::Arrive:
          f.a.set(in.slot);
          if (exits_) f.r.set(in.slot);  // the proof checks the phase it lands in
          break;
        case InstrKind::ExpectTx: f.w.set(in.slot); break;
        case InstrKind::SyncArrive:
        case InstrKind::BarArrive:
          f.w.set(obj_named_ + in.named);
          if (obj_ready_ >= 0 && in.named == m_.sys.cluster_named) f.w.set(obj_ready_);
          break;
        case InstrKind::StoreWait:
        case InstrKind::CpAsyncWait:
        case InstrKind::MmaWait:
        case InstrKind::TmemLoadWait:
        case InstrKind::TmemStoreWait: {
          auto& gs = groups[kind];
          // ending a read record matters to writers only, a write record to all
          while (static_cast<int64_t>(gs.size()) > in.pending) {
            f.r |= gs.front().r;
            f.w |= gs.front().w;
            gs.erase(gs.begin());
          }
          break;
        }
        case InstrKind::StoreCommit:
        case InstrKind::CpAsyncCommit:
        case InstrKind::MmaCommit:
          groups[kind].push_back(open[kind]);
          if (in.slot >= 0) {  // its completion arrives and ends the MMAs' accesses
            spawn_[p][pc].a.set(in.slot);
            spawn_[p][pc].r |= open[kind].r;
            spawn_[p][pc].w |= open[kind].w;
            spawn_[p][pc].r.set(in.slot);  // (agents(): the phase it counts into)
            if (pc >= exits_begin) spawn_[p][pc] |= all_async;
          }
          open[kind] = {};
          break;
        case InstrKind::Fence: f.f |= generic_accesses; break;
        case InstrKind::TmaLoad:
          spawn_[p][pc].l.set(in.slot);
          if (exits_) f.r.set(in.slot);
          break;
        default: break;
      }
      if (m_.sys.ctas > 1) clusterFoot(p, pc, f, spawn_[p][pc]);
      if (!exits_) {
        endsFoot(p, pc, ends_[p][pc], spawn_[p][pc]);
        const int next = m_.nextPc(p, pc);
        if (next < n && m_.instr(p, next).kind == InstrKind::Wait) onto_wait_[p][pc] = next;
      }
      // an exit path starts from any iteration: its waits may retire any group
      if (pc >= exits_begin && Model::isGroupWait(in.kind)) f |= all_async;
      for (size_t i = 0; i < in.accesses.size(); ++i) {
        const Access& a = in.accesses[i];
        const AtomRange& r = m_.atoms_of[p][pc][i];
        for (int x = r.a0; x < r.a1; ++x) {
          if (a.async && kind >= 0) (a.write ? open[kind].w : open[kind].r).set(obj_atom_ + x);
          if (a.proxy == Proxy::Generic && m_.tracked_of[x] >= 0) generic_accesses.set(obj_atom_ + x);
        }
      }
      if (Model::selfCommits(in.kind)) {  // tcgen05.ld / st: a committed group of its own
        groups[kind].push_back(open[kind]);
        open[kind] = {};
      }
      if (in.kind == InstrKind::Wait || in.kind == InstrKind::SyncWait) {
        blocks_[p].push_back(pc);
        block_rec_[p].push_back(waitRecOf(in));
      }
    }
    give_pcs_.resize(m_.P);
    give_of_.resize(m_.P);
    for (int pc = 0; pc < n; ++pc) {
      Contribution c = contribution(p, pc);
      if (c.slot < 0 && c.named < 0) continue;  // gives nothing (Supply::give ignores it)
      give_pcs_[p].push_back(pc);
      give_of_[p].push_back(c);
    }
    give_from_.resize(m_.P);
    give_from_[p].resize(n + 1);
    for (int pc = n, k = static_cast<int>(give_pcs_[p].size()); pc >= 0; --pc) {
      while (k > 0 && give_pcs_[p][k - 1] >= pc) --k;
      give_from_[p][pc] = k;
    }
    for (int pc = exits_begin; pc < n; ++pc) {
      exit_foot_[p] |= own_[p][pc];
      exit_foot_[p] |= spawn_[p][pc];
    }
    exit_gives_[p] = exitGives(p, exits_begin);
    exit_foot_[p].w.set(obj_trip_);
    // Entering an iteration may raise the trip count's lower bound: that
    // commutes with other entries (a max), not with leaving (a write). Only
    // at a head where the process may still leave (leave_from) does it:
    // agents() and windows() add the trip count there, not own_ (docs/z3.md
    // "Heads below the trip count's lower bound").
    heads_before_[p].assign(n + 1, 0);
    for (int pc = 0; pc < n; ++pc) heads_before_[p][pc + 1] = heads_before_[p][pc] + (isHead(pc) ? 1 : 0);
    head_win_[p].assign(n + 1, Foot{});
    for (int pc = n - 1; pc >= 0; --pc) {
      InstrKind k = m_.instr(p, pc).kind;
      if (k != InstrKind::Wait && k != InstrKind::SyncWait) {  // a window stops before a wait
        head_win_[p][pc] = own_[p][pc];
        head_win_[p][pc] |= spawn_[p][pc];
        head_win_[p][pc] |= head_win_[p][pc + 1];
      }
      // (leaving the loop, which comes before the head's op, and the exit
      // paths: windows(), where the range holds a head the process may
      // still leave at)
    }
    next_block_[p].assign(n + 1, static_cast<int>(blocks_[p].size()));
    for (int pc = n - 1, b = static_cast<int>(blocks_[p].size()); pc >= 0; --pc) {
      if (b > 0 && blocks_[p][b - 1] == pc) --b;
      next_block_[p][pc] = b;
    }
    for (int bpc : blocks_[p]) {
      Foot f = own_[p][bpc];
      f |= head_win_[p][bpc + 1];
      seg_win_[p].push_back(f);
    }
    precomputeOntoWaits(p);
  }
}

// The slots of the waits that the steps of a window's stretch bring their
// process onto (windows(): ontoWaits), per stretch start, as head_win_ and
// seg_win_ hold their footprints: a walk over the stretch's pcs per window
// before (docs/benchmarks.md "Session 33 (h-perf33)").
void Reducer::precomputeOntoWaits(int p) {
  const int n = m_.programSize(p);
  auto ontoSlot = [&](int pc, Bits& into) {
    if (const int wpc = onto_wait_[p][pc]; wpc >= 0) {
      into.set(m_.instr(p, wpc).slot);
      any_onto_ = true;
    }
  };
  onto_head_.resize(m_.P);
  onto_seg_.resize(m_.P);
  onto_head_[p].assign(n + 1, Bits{});
  for (int pc = n - 1; pc >= 0; --pc) {
    const InstrKind k = m_.instr(p, pc).kind;
    if (k == InstrKind::Wait || k == InstrKind::SyncWait) continue;  // a stretch from pc stops before it: empty
    onto_head_[p][pc] = onto_head_[p][pc + 1];
    ontoSlot(pc, onto_head_[p][pc]);
  }
  onto_seg_[p].clear();
  for (int bpc : blocks_[p]) {
    Bits b = onto_head_[p][bpc + 1];
    ontoSlot(bpc, b);
    onto_seg_[p].push_back(b);
  }
}

// docs/semantics.md "Clusters": a remote access reads whether the cluster
// barrier has completed and whether its target CTA has exited (a landing
// does so when it lands: the spawned agent's footprint); a process's last
// instruction may end its CTA.
//
// Whether a CTA has exited depends only on which of its processes are
// done, so the steps that end processes commute with each other on it (an
// arrival, mode a). With an ExitLayout every step whose next pc is a done
// pc ends its process (each exit path has its own), and so may a step onto
// a head when some exit path of the process is empty (the explorer leaves a
// finished loop at once: leaveEagerly); a leaving step may end any such
// process (it fixes the trip count): leave_foot_. The cluster barrier's
// completion is an object of its own (obj_ready_, readyMask()).
void Reducer::clusterFoot(int p, int pc, Foot& own, Foot& spawn) const {
  const Instr& in = m_.instr(p, pc);
  const int cta = obj_cta_ + m_.sys.procs[p].cta;
  if (branches_) {
    // a branch program: a process is done on a done pc (>= its size), which
    // only its own step reaches (the next pc, or a branch of a block end's
    // resolution, every branch with the unknowns open)
    const int n = m_.programSize(p);
    for (int s : successors(p, pc))
      if (s >= n) own.a.set(cta);
  } else if (!exits_) {
    if (pc == m_.programSize(p) - 1) own.w.set(cta);
  } else {
    const int n = m_.programSize(p);
    const int next = m_.nextPc(p, pc);
    if (next >= n) own.a.set(cta);
    const bool empty_exit = std::any_of(exits_->exit_starts[p].begin(), exits_->exit_starts[p].end(),
                                        [&](int x) { return x >= n; });
    if (empty_exit && next < n && exits_->is_head[p][next]) own.a.set(cta);
  }
  if (!m_.sys.remote(p, pc)) return;
  if (m_.sys.cluster_named >= 0) own.r.set(obj_ready_);
  (in.kind == InstrKind::TmaLoad ? spawn : own).r.set(obj_cta_ + m_.sys.slots[in.slot].cta);
}

// Once the cluster barrier has completed a generation it stays completed on
// every run from s (generations only grow; a shift keeps the answer:
// clusterBarrierKept in trip_proof.cpp), so no remote access reads
// anything its arrivals change any more.
void Reducer::readyMask(const State& s, Foot& f) const {
  const int nb = m_.sys.cluster_named;
  if (obj_ready_ < 0 || nb < 0 || s.v[m_.off_named + 2 * nb] <= 0) return;
  f.r.reset(obj_ready_);
  f.w.reset(obj_ready_);
}

// Precise exits (clustered systems): stretch j of a process's exit paths is
// the union over its paths of the instructions from the path's j-th wait
// (its start for j = 0) up to the next wait; a window that reaches a head
// where the process may leave takes stretch 0, and stretch j + 1 once one
// of the j-th waits can pass (windows()). Each path's reach is within it.
void Reducer::precomputeExitSegs() {
  exit_segs_.assign(m_.P, {});
  leave_foot_.assign(m_.P, Foot{});
  std::vector<int> empty_ctas;
  for (int p = 0; p < m_.P; ++p) {
    const int n = m_.programSize(p);
    auto& segs = exit_segs_[p];
    segs.emplace_back();
    // A run takes one exit path: what stretch j gives is, per slot and named
    // barrier, the most that one path's stretch j gives (a sum over the
    // paths would let one window pass a barrier that needs other agents).
    std::vector<std::map<int, Contribution>> most(1);
    for (int start : exits_->exit_starts[p]) {
      if (start >= n) {
        empty_ctas.push_back(m_.sys.procs[p].cta);
        continue;
      }
      std::vector<std::map<int, Contribution>> path(1);
      size_t j = 0;
      for (int pc = start; pc < n; pc = m_.nextPc(p, pc)) {
        const InstrKind k = m_.instr(p, pc).kind;
        if (k == InstrKind::Wait || k == InstrKind::SyncWait) {
          segs[j].waits.push_back(pc);
          if (++j == segs.size()) segs.emplace_back();
          if (j == path.size()) path.emplace_back();
        }
        segs[j].foot |= own_[p][pc];
        segs[j].foot |= spawn_[p][pc];
        const Contribution c = contribution(p, pc);
        if (c.slot < 0 && c.named < 0) continue;
        Contribution& sum = path[j].try_emplace(c.slot >= 0 ? c.slot : -1 - c.named, Contribution{c.slot, c.named})
                                .first->second;
        sum.arrivals += c.arrivals;
        sum.landed += c.landed;
        sum.expected += c.expected;
      }
      if (most.size() < path.size()) most.resize(path.size());
      for (size_t i = 0; i < path.size(); ++i)
        for (const auto& [key, c] : path[i]) {
          Contribution& m = most[i].try_emplace(key, Contribution{c.slot, c.named}).first->second;
          m.arrivals = std::max(m.arrivals, c.arrivals);
          m.landed = std::max(m.landed, c.landed);
          m.expected = std::max(m.expected, c.expected);
        }
    }
    for (size_t i = 0; i < most.size() && i < segs.size(); ++i)
      for (const auto& [key, c] : most[i]) segs[i].gives.push_back(c);
  }
  for (int p = 0; p < m_.P; ++p) {
    leave_foot_[p].w.set(obj_trip_);
    for (int c : empty_ctas) leave_foot_[p].a.set(obj_cta_ + c);
  }
}

bool Reducer::mayLeaveIn(int p, int a, int b) const {
  const int n = m_.programSize(p);
  const int from = std::max(a, leave_from_ && exits_from_bound_ ? (*leave_from_)[p] : 0);
  const int hi = std::min(b + 1, n);  // the op the window stops at may be a head: leaving comes first
  return from < hi && heads_before_[p][hi] > heads_before_[p][from];
}

// docs/semantics.md "Runs that end": the last step of the last process
// ends the run, where work still in flight is async work at exit (the
// exit: an object that last steps arrive on, commuting with each other,
// and that landings and completions read). (The lost-phase check at a wait
// a step brings its process onto: closure().)
void Reducer::endsFoot(int p, int pc, Foot& own, Foot& spawn) const {
  if (spawn.l.any() || spawn.a.any()) spawn.r.set(obj_trip_);  // a landing or a completion
  if (m_.nextPc(p, pc) >= m_.programSize(p)) own.a.set(obj_trip_);
}

Reducer::Contribution Reducer::contribution(int p, int pc) const {
  const Instr& in = m_.instr(p, pc);
  Contribution c;
  switch (in.kind) {
    case InstrKind::Arrive: c.slot = in.slot; c.arrivals = in.count; break;
    case InstrKind::ExpectTx: c.slot = in.slot; c.arrivals = 1; c.expected = in.bytes; break;
    case InstrKind::TmaLoad: c.slot = in.slot; c.landed = in.bytes; break;
    case InstrKind::MmaCommit: if (in.slot >= 0) { c.slot = in.slot; c.arrivals = 1; } break;
    case InstrKind::SyncArrive:
    case InstrKind::BarArrive: c.named = in.named; c.arrivals = m_.sys.procs[p].warps; break;
    default: break;
  }
  return c;
}

// (In a buffer kept from call to call, as the result: its agents are
// reset in place, an Agent being two footprints and a vector.)
const std::vector<Reducer::Agent>& Reducer::agents(const State& s, const Async& a,
                                                   const std::vector<char>* leaving) const {
  std::vector<Agent>& out = plain_agents_;
  size_t used = 0;
  auto next = [&]() -> Agent& {
    if (used == out.size()) out.emplace_back();
    Agent& ag = out[used++];
    ag.kind = Agent::Kind::Proc;
    ag.proc = ag.load = -1;
    ag.enabled = ag.exec_enabled = ag.leaves = false;
    ag.step = Step{};
    ag.trans.clearWords(words_);
    ag.win.clearWords(words_);
    ag.gives.clear();
    return ag;
  };
  for (int p = 0; p < m_.P; ++p) {
    Agent& ag = next();
    ag.kind = Agent::Kind::Proc;
    ag.proc = p;
    if (!finished(m_, s, p)) {
      int pc = pcOf(m_, s, p);
      ag.step = {Step::Kind::Exec, p, pc};
      ag.enabled = ag.exec_enabled = isEnabled(m_, s, a, ag.step);
      ag.trans.assignWords(ownFoot(p, pc), words_);
      if (const int c = current_id_[p][pc]; c >= 0) ag.trans.orWords(access_feet_[c], words_);
      if (every_rule_ && !ends_.empty()) ag.trans.orWords(ends_[p][pc], words_);
      // entering an iteration at a head where the process may leave raises
      // the trip count's lower bound (a max; below leave_from it is at most
      // the bound already: docs/z3.md "Heads below the trip count's lower bound")
      if (exits_ && exits_->is_head[p][pc] && mayLeaveIn(p, pc, pc)) ag.trans.a.set(obj_trip_);
      // An enabled lm.sync / cluster wait (its generation completed) reads
      // nothing another step changes: arrivals only raise the generation,
      // so it stays enabled, and passing sets only its own process's
      // generation (sim_state.cpp, SyncWait). It commutes with every
      // arrival on the barrier (docs/z3.md "A reduction for persistent
      // cluster proofs"; docs/z3.md "Enabled lm.sync waits in every
      // reduction": every system, since session 26).
      if (ag.exec_enabled && m_.instr(p, pc).kind == InstrKind::SyncWait)
        ag.trans.r.reset(obj_named_ + m_.instr(p, pc).named);
      // A settled resolution (settledResolutions): its outcome is the same
      // whatever the others do first, and it writes no unknown.
      if (settledAt(p, pc)) {
        ag.trans.r &= ~trip_mask_;
        ag.trans.w &= ~trip_mask_;
      }
      if (leaving && (*leaving)[p]) {  // leaving the loop: a transition of this agent too
        ag.leaves = true;
        ag.enabled = true;
        ag.trans.orWords(precise_exits_ ? leave_foot_[p] : exit_foot_[p], words_);
      }
      readyMask(s, ag.trans);
    }
  }
  for (size_t i = 0; i < a.loads.size(); ++i) {
    const Load& l = a.loads[i];
    const Instr& in = m_.instr(l.proc, l.pc);
    Agent& ag = next();
    ag.kind = Agent::Kind::Load;
    ag.proc = l.proc;
    ag.load = static_cast<int>(i);
    ag.enabled = true;
    ag.step = {Step::Kind::Land, l.proc, l.pc};
    if (const int c = access_id_[l.proc][l.pc]; c >= 0) ag.trans.assignWords(access_feet_[c], words_);
    ag.trans.l.set(in.slot);
    if (m_.sys.remote(l.proc, l.pc)) ag.trans.r.set(obj_cta_ + m_.sys.slots[in.slot].cta);
    if (!exits_ && !branches_) ag.trans.r.set(obj_trip_);  // (endsFoot)
    ag.win.assignWords(ag.trans, words_);
    ag.gives.push_back({in.slot, -1, 0, in.bytes, 0});
  }
  for (int p = 0; p < m_.P; ++p) {
    Agent& ag = next();
    ag.kind = Agent::Kind::Comp;
    ag.proc = p;
    bool head = true;
    for (const Group& g : a.of(p, kMma)) {
      if (g.commit_pc < 0) continue;
      int slot = m_.instr(p, g.commit_pc).slot;
      if (slot < 0) break;  // never completes, nor do the groups behind it
      Foot& f = scratch_group_.clearWords(words_);  // one plain arrival; the group's accesses end
      f.a.set(slot);
      f.r.set(slot);  // it records the phase it counts into (Unobserved)
      if (!exits_ && !branches_) f.r.set(obj_trip_);  // (endsFoot)
      for (int32_t ipc : g.pcs)
        if (const int c = access_id_[p][ipc]; c >= 0) {
          f.r.orWords(access_feet_[c].r, words_);
          f.w.orWords(access_feet_[c].w, words_);
        }
      if (head) {
        ag.enabled = true;
        ag.step = {Step::Kind::Complete, p, g.commit_pc};
        ag.trans.assignWords(f, words_);
        head = false;
      }
      ag.win.orWords(f, words_);
      ag.gives.push_back({slot, -1, 1, 0, 0});
    }
    if (head) --used;
  }
  // (agents past `used` are dropped; the others keep their storage)
  out.resize(used);
  return out;
}

// What the windows can give, per slot and named barrier, and whether a
// wait can pass with it.
struct Reducer::Supply {
  std::vector<int64_t> arrivals, landed, expected, named;
  Supply(const Model& m) : arrivals(m.S, 0), landed(m.S, 0), expected(m.S, 0), named(m.N, 0) {}
  void clear() {
    std::fill(arrivals.begin(), arrivals.end(), 0);
    std::fill(landed.begin(), landed.end(), 0);
    std::fill(expected.begin(), expected.end(), 0);
    std::fill(named.begin(), named.end(), 0);
  }
  void give(const Reducer& r, Window& w, const Contribution& c) {
    if (c.slot >= 0) {
      arrivals[c.slot] += c.arrivals;
      landed[c.slot] += c.landed;
      expected[c.slot] += c.expected;
      w.enables.set(c.slot);
    } else if (c.named >= 0) {
      named[c.named] += c.arrivals;
      w.enables.set(r.obj_named_ + c.named);
    }
  }
  static WaitRec waitOf(const Instr& in) { return waitRecOf(in); }
  bool passable(const Model& m, const State& s, int p, int bpc) const {
    return passable(m, s, p, bpc, waitOf(m.instr(p, bpc)));
  }
  bool passable(const Model& m, const State& s, int p, int bpc, const WaitRec& w) const {
    if (w.slot >= 0) {
      int k = w.slot;
      int64_t c = slotField(m, s, k, kCompleted), pending = slotField(m, s, k, kPending), tx = slotField(m, s, k, kTx);
      if (waitPasses(c, w.phase)) return true;
      return arrivals[k] >= pending && landed[k] >= tx && (tx >= 0 || expected[k] >= -tx);
    }
    int nb = w.named;
    if (bpc == pcOf(m, s, p) && s.v[m.off_named + 2 * nb] > s.v[m.off_sgen + p]) return true;
    return s.v[m.off_named + 2 * nb + 1] + named[nb] >= m.sys.named[nb].expected_warps;
  }
  // (a passable wait) Can its process go on after it? A wait for phase ph
  // passes by parity, but a run goes on only when it passes with ph + 1
  // phases completed (else sync.stale-phase ends the run there): from c
  // completed phases that takes the current phase's pending arrivals and
  // bytes and init_count arrivals for each phase after it up to ph.
  // The arrivals a wait that failed its test needs before the test can
  // succeed: passable() (`cont` false) of a wait that did not pass by its
  // parity or, for a named barrier, by a generation completed at its
  // process's pc (both read only the state, fixed in one window
  // computation), or continues() (`cont` true) of a wait with at most
  // ph + 1 completed phases. With the slot's bytes (holds()) that is all
  // the test reads of the supply.
  int64_t need(const Model& m, const State& s, const WaitRec& w, bool cont) const {
    if (w.slot < 0) return m.sys.named[w.named].expected_warps - s.v[m.off_named + 2 * w.named + 1];
    const int k = w.slot;
    const int64_t pending = slotField(m, s, k, kPending);
    if (!cont) return pending;
    return pending + (w.phase - slotField(m, s, k, kCompleted)) * std::max(1, m.sys.slots[k].init_count);
  }
  bool holds(const Model& m, const State& s, int slot, int named_barrier, int64_t need) const {
    if (slot < 0) return named[named_barrier] >= need;
    const int64_t tx = slotField(m, s, slot, kTx);
    return arrivals[slot] >= need && landed[slot] >= tx && (tx >= 0 || expected[slot] >= -tx);
  }
  bool continues(const Model& m, const State& s, int p, int bpc) const {
    return continues(m, s, waitOf(m.instr(p, bpc)));
  }
  bool continues(const Model& m, const State& s, const WaitRec& w) const {
    if (w.slot < 0) return true;  // not a Wait (an lm.sync barrier's wait has no phase)
    const int k = w.slot;
    const int64_t c = slotField(m, s, k, kCompleted), pending = slotField(m, s, k, kPending), tx = slotField(m, s, k, kTx);
    if (c == w.phase + 1) return true;
    if (c > w.phase + 1) return false;
    return arrivals[k] >= pending + (w.phase - c) * std::max(1, m.sys.slots[k].init_count) && landed[k] >= tx &&
           (tx >= 0 || expected[k] >= -tx);
  }
};

template <class Give>
void Reducer::giveRange(int p, int a, int b, Give&& give) const {
  const std::vector<int>& pcs = give_pcs_[p];
  for (size_t k = give_from_[p][a]; k < pcs.size() && pcs[k] < b; ++k) give(give_of_[p][k]);
  if (!exits_ || precise_exits_) return;
  // (the op the window stops at may be a head: leaving comes first; only a
  // head where the process may still leave leads onto the exit paths)
  if (mayLeaveIn(p, a, b))
    for (const Contribution& c : exit_gives_[p]) give(c);
}

// n empty windows in `win`, a buffer that holds only this system's objects
// (Bits): only their words are cleared.
void Reducer::clearWindows(std::vector<Window>& win, size_t n) const {
  win.resize(n);
  for (Window& w : win) {
    w.foot.clearWords(words_);
    Foot::eachWord(words_, [&](int k) { w.enables.w[k] = 0; });
  }
}

// Windows of every agent while `frozen` stands still (least fixpoint).
// (In buffers kept from call to call, as the result: a fresh vector of
// windows per seed was most of the reduction's heap traffic, blocks too
// large for malloc's per-thread cache.)
const std::vector<Reducer::Window>& Reducer::windows(const State& s, const std::vector<Agent>& ag, int frozen) const {
  std::vector<Window>& win = plain_win_;
  clearWindows(win, ag.size());
  // (the work, counted as branchWindows' is: one operation per agent, then
  // one per contribution given, wait tested and stretch footprint added)
  work_.ops += ag.size();
  if (!plain_supply_) plain_supply_ = std::make_shared<Supply>(m_);
  Supply& supply = *plain_supply_;
  supply.clear();
  std::vector<int>& block = plain_block_;  // Proc: index of the blocking wait its window stops at
  block.assign(ag.size(), -1);
  std::vector<int>& seg = plain_seg_;      // precise exits: the exit stretch its window has reached
  seg.assign(ag.size(), -1);
  // Barriers whose next generation needs the seed (precomputeSyncOnly):
  // the others' warps, each arriving once a generation, are fewer than a
  // generation takes. A window passes at most one wait of such a barrier
  // that has not completed in s (the current generation's); the next one
  // waits for a generation that completes only once the seed arrives.
  std::vector<char>& capped = plain_capped_;
  capped.assign(static_cast<size_t>(m_.N), 0);
  bool any_capped = false;
  if (!sync_warps_.empty() && m_.N <= 64 && frozen >= 0 && static_cast<size_t>(frozen) < ag.size()) {
    const Agent& x = ag[frozen];
    for (int nb = 0; nb < m_.N; ++nb) {
      if (sync_warps_[nb] < 0) continue;
      const int64_t seed_warps = x.kind == Agent::Kind::Proc && syncs_on_[x.proc][nb] ? m_.sys.procs[x.proc].warps : 0;
      if (sync_warps_[nb] - seed_warps < m_.sys.named[nb].expected_warps) capped[nb] = 1, any_capped = true;
    }
  }
  std::vector<uint64_t>& gen_used = plain_gen_used_;
  gen_used.assign(ag.size(), 0);
  // A process arrives on an lm.sync barrier once a generation (it blocks
  // until the generation completes), and of a capped barrier only the
  // current generation can complete while the seed stands still: a window
  // gives a capped barrier its process's warps once, however many of its
  // arrivals it covers (the next iteration's and an exit path's, of which a
  // run takes one; the next generation's, which cannot count towards the
  // current one). Counted twice, the others' windows passed the current
  // generation's wait without the seed (docs/z3.md "One arrival per window
  // on an lm.sync barrier").
  std::vector<uint64_t>& named_given = plain_named_given_;
  named_given.assign(ag.size(), 0);
  auto give = [&](Window& w, const Contribution& c) {
    ++work_.ops;
    if (any_capped && c.named >= 0 && capped[c.named]) {
      uint64_t& given = named_given[static_cast<size_t>(&w - win.data())];
      if (given >> c.named & 1) {
        w.enables.set(obj_named_ + c.named);
        return;
      }
      given |= uint64_t{1} << c.named;
    }
    supply.give(*this, w, c);
  };
  // The capped barrier whose generation p's b-th blocking wait waits for,
  // or -1 (not such a wait, or one whose generation completed in s). (The
  // waits are read from block_rec_, not the programs: an Instr is 200
  // bytes, and waiting on its loads held about a tenth of windows()'
  // samples, docs/benchmarks.md "Session 50 (helper gate50)".)
  auto cappedWait = [&](int p, int b) {
    if (!any_capped) return -1;
    const int nb = block_rec_[p][b].named;  // -1 unless an lm.sync wait (SyncWait)
    if (nb < 0 || !capped[nb]) return -1;
    if (blocks_[p][b] == pcOf(m_, s, p) && s.v[m_.off_named + 2 * nb] > s.v[m_.off_sgen + p]) return -1;
    return nb;
  };
  // (a wait a window may not pass: a capped barrier's second such wait)
  auto secondGeneration = [&](size_t i, int p, int b) {
    const int nb = cappedWait(p, b);
    return nb >= 0 && (gen_used[i] >> nb & 1) != 0;
  };
  auto useGeneration = [&](size_t i, int p, int b) {
    if (const int nb = cappedWait(p, b); nb >= 0) gen_used[i] |= uint64_t{1} << nb;
  };
  auto enterExits = [&](size_t i, int p) {
    seg[i] = 0;
    win[i].foot.orWords(leave_foot_[p], words_);  // the leaving step itself
    win[i].foot.orWords(exit_segs_[p][0].foot, words_);
    for (const Contribution& c : exit_segs_[p][0].gives) give(win[i], c);
  };
  // A step of a window that brings its process onto a wait reads the wait's
  // slot: arrivals of the set taken first can make that wait a lost phase,
  // which ends the run there (docs/semantics.md section 5, "the other
  // direction"). Looking for every rule only, as the closure's own-step read.
  // (the slots of the stretch's waits: precomputeOntoWaits)
  auto ontoWaits = [&](Window& w, const Bits& slots) {
    if (every_rule_ && any_onto_) w.foot.r.orWords(slots, words_);
  };
  for (size_t i = 0; i < ag.size(); ++i) {
    const Agent& a = ag[i];
    if (static_cast<int>(i) == frozen) continue;
    if (a.kind != Agent::Kind::Proc) {
      win[i].foot.assignWords(a.win, words_);
      for (const Contribution& c : a.gives) give(win[i], c);
      continue;
    }
    int p = a.proc;
    if (finished(m_, s, p)) continue;
    int pc = pcOf(m_, s, p);
    win[i].foot.assignWords(head_win_[p][pc], words_);
    if (const int c = current_id_[p][pc]; c >= 0) win[i].foot.orWords(access_feet_[c], words_);
    block[i] = next_block_[p][pc];
    int end = block[i] < static_cast<int>(blocks_[p].size()) ? blocks_[p][block[i]] : m_.programSize(p);
    giveRange(p, pc, end, [&](const Contribution& c) { give(win[i], c); });
    ontoWaits(win[i], onto_head_[p][pc]);
    if (exits_ && mayLeaveIn(p, pc, end)) {
      if (precise_exits_) enterExits(i, p);
      else win[i].foot.orWords(exit_foot_[p], words_);
    }
  }
  auto passable = [&](int p, int bpc) {
    ++work_.ops;
    return supply.passable(m_, s, p, bpc);
  };
  auto blockPassable = [&](int p, int b) {
    ++work_.ops;
    return supply.passable(m_, s, p, blocks_[p][b], block_rec_[p][b]);
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < ag.size(); ++i) {
      if (block[i] < 0) continue;
      int p = ag[i].proc;
      while (block[i] < static_cast<int>(blocks_[p].size()) && !secondGeneration(i, p, block[i]) &&
             blockPassable(p, block[i])) {
        if (precise_exits_ && !supply.continues(m_, s, block_rec_[p][block[i]])) {
          win[i].foot.orWords(own_[p][blocks_[p][block[i]]], words_);  // the wait's own step (a violation ends its run)
          break;
        }
        useGeneration(i, p, block[i]);
        int b = block[i]++;
        ++work_.ops;
        win[i].foot.orWords(seg_win_[p][b], words_);
        int end = block[i] < static_cast<int>(blocks_[p].size()) ? blocks_[p][block[i]] : m_.programSize(p);
        giveRange(p, blocks_[p][b], end, [&](const Contribution& c) { give(win[i], c); });
        ontoWaits(win[i], onto_seg_[p][b]);
        if (exits_ && mayLeaveIn(p, blocks_[p][b], end)) {
          if (!precise_exits_) win[i].foot.orWords(exit_foot_[p], words_);
          else if (seg[i] < 0) enterExits(i, p);
        }
        changed = true;
      }
      // the exit paths' stretches: the next one once any path's wait can pass
      // (a wait that passes only into a violation: its own step, no further)
      auto goesOn = [&](int w) {
        if (!passable(p, w)) return false;
        if (supply.continues(m_, s, p, w)) return true;
        win[i].foot.orWords(own_[p][w], words_);
        return false;
      };
      while (seg[i] >= 0 && static_cast<size_t>(seg[i]) + 1 < exit_segs_[p].size()) {
        bool any = false;
        for (int w : exit_segs_[p][seg[i]].waits) any |= goesOn(w);
        if (!any) break;
        const ExitSeg& x = exit_segs_[p][++seg[i]];
        ++work_.ops;
        win[i].foot.orWords(x.foot, words_);
        for (const Contribution& c : x.gives) give(win[i], c);
        changed = true;
      }
    }
  }
  for (Window& w : win) readyMask(s, w.foot);
  window_arrivals_ = supply.arrivals;  // for closure()
  return win;
}


// Stubborn-set closure from `seed`: the agents whose current transitions
// form a persistent set.
const std::vector<int>& Reducer::closure(const State& s, const std::vector<Agent>& ag,
                                         const std::vector<Window>& win, int seed) const {
  std::vector<char>& in = scratch_in_;
  in.assign(ag.size(), 0);
  std::vector<int>& list = scratch_list_;
  list.assign(1, seed);
  in[seed] = 1;
  // (clustered systems with branches) Slots whose current phase nothing
  // outside the set can complete: what every other agent's window can give
  // (branchWindows' supply, an over-approximation of any run of theirs while
  // the seed stands still) and the seed's own step together do not cover the
  // pending arrivals or the owed bytes. On such a slot no run from s outside
  // the set changes the completed count, so a landing only lowers the owed
  // bytes (a counter) and commutes with every other step on the slot
  // (arrivals, expect_tx, waits and TMA issues, which read the completed
  // count): the landing mode (l) of the slot is dropped from both sides of
  // each comparison (docs/z3.md "A reduction for persistent cluster proofs").
  Bits stuck;
  if (cluster_phases_ && branches_) {
    const Supply& sup = *scratch_supply_;
    const Agent& sd = ag[seed];
    Contribution extra;
    if (sd.kind != Agent::Kind::Proc) {
      if (!sd.gives.empty()) extra = sd.gives.front();
    } else if (sd.exec_enabled) {
      extra = contrib_[sd.proc][pcOf(m_, s, sd.proc)];
    }
    for (int k = 0; k < m_.S; ++k) {
      const int64_t arr = sup.arrivals[k] + (extra.slot == k ? extra.arrivals : 0);
      const int64_t land = sup.landed[k] + (extra.slot == k ? extra.landed : 0);
      if (!(arr >= slotField(m_, s, k, kPending) && land >= slotField(m_, s, k, kTx))) stuck.set(k);
    }
  }
  const bool masked = stuck.any();
  // (masked) copies; a member's step onto a wait: buffers kept from call to
  // call, only their first words_ words ever written (their zeroing, 1,152
  // bytes a seed, was a tenth of the closure's time)
  Foot& mz = scratch_mz_;
  Foot& my = scratch_my_;
  Foot& onto = scratch_onto_;
  for (size_t k = 0; k < list.size(); ++k) {
    const Agent& z = ag[list[k]];
    Bits needs;  // a blocked member needs whoever can enable it
    bool needs_comp = false;  // an mma_wait needs its process's MMA completions
    if (!z.enabled) {
      const Instr& ins = m_.instr(z.proc, pcOf(m_, s, z.proc));
      if (ins.kind == InstrKind::Wait) needs.set(ins.slot);
      else if (ins.kind == InstrKind::SyncWait) needs.set(obj_named_ + ins.named);
      else needs_comp = true;
    }
    // A step that brings its process onto a wait reads the wait's slot when
    // steps outside the set could complete the phases that make the wait
    // a lost phase (the state check there ends the run): fewer arrivals
    // than those phases need cannot (settle(): pending, then init_count a phase).
    const Foot* trans = &z.trans;
    if (every_rule_ && z.enabled && z.kind == Agent::Kind::Proc && !onto_wait_.empty()) {
      const int w = onto_wait_[z.proc][pcOf(m_, s, z.proc)];
      if (w >= 0) {
        const Instr& wi = m_.instr(z.proc, w);
        const int64_t phases = wi.phase + 2 - slotField(m_, s, wi.slot, kCompleted);  // >= 1: else visible()
        const int64_t need = slotField(m_, s, wi.slot, kPending) +
                             (phases - 1) * std::max(1, m_.sys.slots[wi.slot].init_count);
        if (window_arrivals_[wi.slot] >= need) {
          onto.assignWords(z.trans, words_);
          onto.r.set(wi.slot);
          trans = &onto;
        }
      }
    }
    for (size_t y = 0; y < ag.size(); ++y) {
      if (in[y]) continue;
      ++work_.ops;
      bool add = z.enabled ? (masked ? (mz.assignWords(*trans, words_), mz.l &= ~stuck, my.assignWords(win[y].foot, words_),
                                        my.l &= ~stuck, mz.conflictsWords(my, words_))
                                     : trans->conflictsWords(win[y].foot, words_))
                           : win[y].enables.intersectsWords(needs, words_) ||
                                 (needs_comp && ag[y].kind == Agent::Kind::Comp && ag[y].proc == z.proc);
      if (add) {
        in[y] = 1;
        list.push_back(static_cast<int>(y));
      }
    }
  }
  return list;
}

// A run ends at its first synchronization error (a violating step or a
// state with a lost phase), so a step that ends the run there disables
// every other step. A reduced set that is smaller than `enabled` must not
// contain one (the visibility condition of ample sets): else the runs that
// take another step first, and meet another rule, would be cut off. The
// exploration applies the steps of the set anyway; this applies them once
// more. (A data hazard does not end its run; it counts all the same.)
bool Reducer::visible(const State& s, const Async& a, const Step& st) const {
  State n = s;
  std::vector<Violation> found;
  applyStep(m_, n, a, st, found, nullptr);
  if (!found.empty() || allFinished(m_, n)) return true;
  for (int p = 0; p < m_.P; ++p) {  // sync.lost-phase (stateViolations): a waiter its slot has passed
    if (finished(m_, n, p)) continue;
    const Instr& in = m_.instr(p, pcOf(m_, n, p));
    if (in.kind == InstrKind::Wait && slotField(m_, n, in.slot, kCompleted) >= in.phase + 2) return true;
  }
  return false;
}

std::vector<Step> Reducer::reduce(const State& s, const Async& a, const std::vector<Step>& enabled) {
  if (!active_ || enabled.size() <= 1) return enabled;
  std::vector<std::pair<Step, bool>> seen;  // visible(), per step asked
  auto invisible = [&](const std::vector<Step>& steps) {
    return !every_rule_ || std::none_of(steps.begin(), steps.end(), [&](const Step& st) {
      for (const auto& [x, v] : seen)
        if (x == st) return v;
      seen.emplace_back(st, visible(s, a, st));
      return seen.back().second;
    });
  };
  const std::function<bool(const std::vector<Step>&)> enough = [&](const std::vector<Step>& steps) {
    return steps.size() == 1 && invisible(steps);
  };
  std::vector<Step> best = enabled;
  for (std::vector<Step>& steps : persistentSets(s, agents(s, a), &enough))
    if (steps.size() < best.size() && invisible(steps)) best = std::move(steps);
  return best;
}

std::vector<Step> Reducer::reduce(const State& s, const Async& a, const std::vector<Step>& enabled,
                                  const std::function<bool(const Step&)>& allowed,
                                  const std::function<bool(const Step&)>& preferred) {
  if (!active_ || enabled.size() <= 1) return enabled;
  // (clustered systems: no preference; a process in its prefix waits at the
  // cluster barrier, a block end whose resolution conflicts with every
  // other process's, so sets with its step were the largest ones. Which
  // persistent set is taken does not matter to soundness: docs/z3.md "A
  // reduction for persistent cluster proofs")
  const bool any_preferred = !cluster_phases_ && std::any_of(enabled.begin(), enabled.end(), preferred);
  // (without a preferred step, size only; else sets with one first)
  auto cost = [&](const std::vector<Step>& steps) {
    const bool pref = !any_preferred || std::any_of(steps.begin(), steps.end(), preferred);
    return std::make_pair(pref ? 0 : 1, steps.size());
  };
  const std::function<bool(const std::vector<Step>&)> enough = [&](const std::vector<Step>& steps) {
    return cost(steps) == std::make_pair(0, size_t{1}) && allowed(steps.front());
  };
  std::vector<Step> best = enabled;
  for (std::vector<Step>& steps : persistentSets(s, agents(s, a), &enough, &a))
    if (steps.size() < enabled.size() && cost(steps) < cost(best) && std::all_of(steps.begin(), steps.end(), allowed))
      best = std::move(steps);
  return best;
}

std::optional<std::vector<Step>> Reducer::reduceWithExits(const State& s, const Async& a,
                                                          const std::vector<Step>& enabled,
                                                          const std::vector<char>& leaving,
                                                          const std::vector<int>* leave_from) {
  if (!active_ || !exits_) return std::nullopt;
  const size_t all = enabled.size() + static_cast<size_t>(std::count(leaving.begin(), leaving.end(), 1));
  leave_from_ = leave_from;
  std::optional<std::vector<Step>> best;
  for (std::vector<Step>& steps : persistentSets(s, agents(s, a, &leaving))) {
    if (steps.size() < (best ? best->size() : all)) best = std::move(steps);
    if (best && best->size() == 1) break;
  }
  leave_from_ = nullptr;
  return best;
}

// One persistent set per enabled seed agent (up to the first of one step).
// A leaving agent contributes
// Step{Exec, p, -1} besides its Exec step (when that is enabled).
void Reducer::memoKey(const State& s, const Async& a, const std::vector<Agent>& ag, std::vector<int32_t>& key) const {
  key.clear();
  for (int p = 0; p < m_.P; ++p) key.push_back(s.v[m_.off_pc + p]), key.push_back(s.v[m_.off_sgen + p]);
  key.insert(key.end(), s.v.begin() + m_.off_slot, s.v.begin() + m_.off_slot + kSlotFields * m_.S);
  key.insert(key.end(), s.v.begin() + m_.off_named, s.v.begin() + m_.off_named + 2 * m_.N);
  for (const Agent& g : ag) {
    const bool settled = g.kind == Agent::Kind::Proc && !finished(m_, s, g.proc) && settledAt(g.proc, pcOf(m_, s, g.proc));
    key.push_back(static_cast<int32_t>(g.kind) | (g.enabled ? 8 : 0) | (g.exec_enabled ? 16 : 0) | (g.leaves ? 32 : 0) |
                  (settled ? 64 : 0));
    key.push_back(g.proc);
    key.push_back(g.step.pc);
    if (g.kind != Agent::Kind::Comp) continue;
    for (const Group& gr : a.of(g.proc, kMma)) {
      key.push_back(gr.commit_pc);
      key.push_back(static_cast<int32_t>(gr.pcs.size()));
      key.insert(key.end(), gr.pcs.begin(), gr.pcs.end());
    }
    key.push_back(-2);
  }
}

std::vector<std::optional<std::vector<Step>>>* Reducer::memoSets(const std::vector<int32_t>& key,
                                                               size_t agents) const {
  uint64_t h0 = 0x9e3779b97f4a7c15ull ^ key.size(), h1 = 0xc2b2ae3d27d4eb4full;
  size_t i = 0;
  for (; i + 1 < key.size(); i += 2) {  // two lanes: shorter dependency chains
    h0 = (h0 ^ static_cast<uint32_t>(key[i])) * 0xff51afd7ed558ccdull;
    h1 = (h1 ^ static_cast<uint32_t>(key[i + 1])) * 0xc4ceb9fe1a85ec53ull;
  }
  if (i < key.size()) h0 = (h0 ^ static_cast<uint32_t>(key[i])) * 0xff51afd7ed558ccdull;
  uint64_t h = h0 ^ (h1 >> 29) ^ (h1 << 35);
  h ^= h >> 31;
  auto matches = [&](const MemoEntry& e) {
    return e.hash == h && e.len == key.size() && std::equal(key.begin(), key.end(), memo_arena_.begin() + e.at);
  };
  if (!memo_every_key_) {  // the last key only
    if (memo_entries_.size() == 1 && matches(memo_entries_[0])) return &memo_entries_[0].sets;
    memo_entries_.clear();
    memo_arena_.assign(key.begin(), key.end());
    memo_entries_.push_back({h, 0, static_cast<uint32_t>(key.size()), std::vector<std::optional<std::vector<Step>>>(agents)});
    return &memo_entries_[0].sets;
  }
  if (memo_slots_.empty()) {
    memo_slots_.assign(size_t{1} << 12, 0);
    // (address space only until written: no copy of the arena as it grows)
    memo_arena_.reserve(kMemoBytes / 4);
    memo_entries_.reserve(kMemoBytes / 256);
  }
  size_t mask = memo_slots_.size() - 1, at = h & mask;
  for (; memo_slots_[at]; at = (at + 1) & mask)
    if (matches(memo_entries_[memo_slots_[at] - 1])) return &memo_entries_[memo_slots_[at] - 1].sets;
  const size_t bytes = 4 * (memo_arena_.size() + key.size()) + (sizeof(MemoEntry) + 48 * agents) * memo_entries_.size() +
                       4 * memo_slots_.size();
  if (bytes > kMemoBytes) {
    memo_arena_.clear();
    memo_entries_.clear();
    memo_slots_.assign(size_t{1} << 12, 0);
    mask = memo_slots_.size() - 1;
    at = h & mask;
  }
  memo_entries_.push_back({h, static_cast<uint32_t>(memo_arena_.size()), static_cast<uint32_t>(key.size()),
                           std::vector<std::optional<std::vector<Step>>>(agents)});
  memo_arena_.insert(memo_arena_.end(), key.begin(), key.end());
  memo_slots_[at] = static_cast<uint32_t>(memo_entries_.size());
  if (2 * memo_entries_.size() > memo_slots_.size()) {  // grow: every entry again by its hash
    memo_slots_.assign(2 * memo_slots_.size(), 0);
    mask = memo_slots_.size() - 1;
    for (size_t e = 0; e < memo_entries_.size(); ++e) {
      size_t j = memo_entries_[e].hash & mask;
      while (memo_slots_[j]) j = (j + 1) & mask;
      memo_slots_[j] = static_cast<uint32_t>(e + 1);
    }
  }
  return &memo_entries_.back().sets;
}

std::vector<std::vector<Step>> Reducer::persistentSets(const State& s, const std::vector<Agent>& ag,
                                                       const std::function<bool(const std::vector<Step>&)>* enough,
                                                       const Async* a) const {
  // The persistent explorer asks twice for one state when the first
  // answer is every step (with and without its shift preference): each
  // seed's set is a function of memoKey, kept for the last key.
  std::vector<std::optional<std::vector<Step>>>* memo = nullptr;
  if (branches_ && a) {
    memoKey(s, *a, ag, key_scratch_);
    // (the look-up hashes and compares the key and misses the cache a few
    // times: charged one operation per 4 of its words, about its CPU)
    work_.ops += 1 + key_scratch_.size() / 4;
    memo = memoSets(key_scratch_, ag.size());
  }
  std::vector<std::vector<Step>> sets;
  // (precise exits: landings and completions first, whose sets are most
  // often one step, which ends the search)
  std::vector<size_t>& order = scratch_order_;  // (a buffer kept from call to call)
  order.resize(ag.size());
  for (size_t x = 0; x < ag.size(); ++x) order[x] = x;
  if (precise_exits_)
    std::stable_partition(order.begin(), order.end(), [&](size_t x) { return ag[x].kind != Agent::Kind::Proc; });
  if (branches_ && local_first_)
    std::stable_partition(order.begin(), order.end(), [&](size_t x) { return localStep(ag[x]); });
  // (clustered systems with branches: a block end's step, whose resolution
  // conflicts with every other process's, is the last seed tried; a seed's
  // set is found the sooner, the same sets either way)
  if (cluster_phases_ && branches_)
    std::stable_partition(order.begin(), order.end(), [&](size_t x) {
      return ag[x].kind != Agent::Kind::Proc || finished(m_, s, ag[x].proc) ||
             branches_->trip[ag[x].proc][pcOf(m_, s, ag[x].proc)].empty();
    });
  for (size_t x : order) {
    if (!ag[x].enabled) continue;
    if (memo && (*memo)[x]) {
      ++work_.memo_hits;
      sets.push_back(*(*memo)[x]);
      const bool single = enough ? (*enough)(sets.back()) : sets.back().size() == 1;
      if (single) break;
      continue;
    }
    ++work_.computed;
    const std::vector<Window>& win =
        branches_ ? branchWindows(s, ag, static_cast<int>(x)) : windows(s, ag, static_cast<int>(x));
    std::vector<Step> steps;
    for (int y : closure(s, ag, win, static_cast<int>(x))) {
      if (!ag[y].enabled) continue;
      if (!ag[y].leaves || ag[y].exec_enabled) steps.push_back(ag[y].step);
      if (ag[y].leaves) steps.push_back({Step::Kind::Exec, ag[y].proc, -1});
    }
    if (memo) (*memo)[x] = steps;
    const bool single = enough ? (*enough)(steps) : steps.size() == 1;
    sets.push_back(std::move(steps));
    if (single) break;  // nothing better
  }
  return sets;
}

// ---------------------------------------------------------------- programs with branches

namespace {

// The accesses of a group (or of the groups at one position of the queue).
struct PorGroupRec {
  Bits r, w;
  bool operator==(const PorGroupRec& o) const { return r == o.r && w == o.w; }
  void operator|=(const PorGroupRec& o) {
    r |= o.r;
    w |= o.w;
  }
};

// A may-analysis of one process's async groups before a pc: per kind the
// open group and the committed, unretired ones newest first (position i:
// every group that is the i-th newest on some path reaching the pc), and
// the atoms it accessed through the generic proxy. The queue is cut at
// kPorQueue positions, the last standing for it and every older one.
constexpr size_t kPorQueue = 16;
struct PorGroupFlow {
  std::vector<PorGroupRec> pend[kGroupKinds];
  PorGroupRec open[kGroupKinds];
  Bits generic;
  bool reached = false;

  bool merge(const PorGroupFlow& o) {
    bool changed = !reached;
    reached = true;
    for (int k = 0; k < kGroupKinds; ++k) {
      auto& q = pend[k];
      if (q.size() < o.pend[k].size()) {
        q.resize(o.pend[k].size());
        changed = true;
      }
      for (size_t i = 0; i < o.pend[k].size(); ++i) {
        PorGroupRec u = q[i];
        u |= o.pend[k][i];
        if (!(u == q[i])) q[i] = u, changed = true;
      }
      PorGroupRec u = open[k];
      u |= o.open[k];
      if (!(u == open[k])) open[k] = u, changed = true;
    }
    Bits g = generic | o.generic;
    if (g != generic) generic = g, changed = true;
    return changed;
  }
  void commit(int kind) {
    auto& q = pend[kind];
    q.insert(q.begin(), open[kind]);
    open[kind] = {};
    if (q.size() > kPorQueue) {
      q[kPorQueue - 1] |= q[kPorQueue];
      q.resize(kPorQueue);
    }
  }
  // A *_wait(pending=n): what it may retire; the queue keeps n.
  PorGroupRec retire(int kind, int64_t n) {
    auto& q = pend[kind];
    size_t from = static_cast<size_t>(std::max<int64_t>(0, n));
    if (q.size() == kPorQueue) from = std::min(from, kPorQueue - 1);  // the last may hold older ones
    PorGroupRec out;
    for (size_t i = from; i < q.size(); ++i) out |= q[i];
    if (from < q.size() && !(q.size() == kPorQueue && from == kPorQueue - 1)) q.resize(from);
    return out;
  }
};

void addSorted(std::vector<int>& into, const std::vector<int>& from) {
  std::vector<int> out;
  out.reserve(into.size() + from.size());
  std::set_union(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(out));
  into = std::move(out);
}

}  // namespace

std::vector<int> Reducer::successors(int p, int pc) const {
  const auto& s = branches_->succ[p][pc];
  if (!s.empty()) return s;
  return {m_.nextPc(p, pc)};
}

// The id of f in feet_ (added if new): the footprints of stretches repeat
// (the same text in every tile and copy), and a window adds each distinct
// one once.
int Reducer::internFoot(const Foot& f, std::unordered_map<uint64_t, std::vector<int>>& interned) {
  return internInto(feet_, f, interned);
}

int Reducer::internInto(std::vector<Foot>& table, const Foot& f, std::unordered_map<uint64_t, std::vector<int>>& interned) {
  uint64_t key = 0;
  for (const Bits* b : {&f.r, &f.w, &f.l, &f.a, &f.f, &f.ar}) key = key * 0x9E3779B97F4A7C15ull ^ b->hash();
  std::vector<int>& ids = interned[key];
  for (int id : ids) {
    const Foot& g = table[id];
    if (g.r == f.r && g.w == f.w && g.l == f.l && g.a == f.a && g.f == f.f && g.ar == f.ar) return id;
  }
  table.push_back(f);
  ids.push_back(static_cast<int>(table.size()) - 1);
  return ids.back();
}

// The records of the pcs `gives` (ascending) in give_recs_: one per key,
// its largest contribution in each field. branchWindows gives a window each
// key's largest amount, so this is what the pcs give together.
std::pair<uint32_t, uint32_t> Reducer::giveRecs(int p, const std::vector<int>& gives) {
  const uint32_t begin = static_cast<uint32_t>(give_recs_.size());
  for (int pc : gives) {
    const int key = give_key_[p][pc];
    const Contribution& c = contrib_[p][pc];
    auto it = std::find_if(give_recs_.begin() + begin, give_recs_.end(), [&](const GiveRec& r) { return r.key == key; });
    if (it == give_recs_.end()) {
      give_recs_.push_back({key, c});
      continue;
    }
    it->c.arrivals = std::max(it->c.arrivals, c.arrivals);
    it->c.landed = std::max(it->c.landed, c.landed);
    it->c.expected = std::max(it->c.expected, c.expected);
  }
  return {begin, static_cast<uint32_t>(give_recs_.size())};
}

// As precompute(), over the branches: the groups a wait retires and a
// commit's completion ends come from the may-analysis above; the stretch
// after a pc (footprint, contributions, the waits that end it) is the
// union over its successors.
void Reducer::precomputeBranches() {
  own_foot_id_.resize(m_.P);
  own_feet_.clear();
  after_id_.resize(m_.P);
  feet_.clear();
  std::unordered_map<uint64_t, std::vector<int>> interned;  // hash of a Foot -> its ids in feet_
  std::unordered_map<uint64_t, std::vector<int>> own_interned;  // ... in own_feet_
  std::unordered_map<uint64_t, std::vector<int>> spawn_interned;  // ... in spawn_feet
  std::vector<Foot> spawn_feet;  // the distinct footprints of the async ops a pc spawns
  std::vector<int> spawn_id;     // per pc of the process: its spawn footprint in spawn_feet
  gives_after_.resize(m_.P);
  give_id_.resize(m_.P);
  std::map<std::vector<int64_t>, int32_t> give_ids;  // a range's records -> its content id
  wait_rec_.resize(m_.P);
  give_recs_.clear();
  waits_after_.resize(m_.P);
  wait_list_.clear();
  give_key_.resize(m_.P);
  contrib_.resize(m_.P);
  wait_stamp_.resize(m_.P);
  own_id_.resize(m_.P);
  settled_after_id_.resize(m_.P);
  scratch_supply_ = std::make_shared<Supply>(m_);
  std::map<std::tuple<int, int, int>, int> keys;  // (process, position, slot or -1 - named)
  constexpr size_t kMaxList = 4096;               // longer stretches: no reduction (sound, slower)
  for (int p = 0; p < m_.P; ++p) {
    const int n = m_.programSize(p);
    own_foot_id_[p].assign(n, -1);
    spawn_id.assign(n, -1);
    wait_stamp_[p].assign(n, 0);
    own_id_[p].assign(n, -1);
    give_key_[p].assign(n, -1);
    contrib_[p].assign(n, Contribution{});
    // the may-analysis, to a fixpoint
    std::vector<PorGroupFlow> in(static_cast<size_t>(n));
    std::vector<int> work;
    PorGroupFlow empty;
    empty.reached = true;
    for (int s : branches_->start[p])
      if (s < n && in[s].merge(empty)) work.push_back(s);
    auto transfer = [&](int pc, PorGroupFlow st, Foot* f, Foot* spawn) {
      const Instr& in_ = m_.instr(p, pc);
      const int kind = m_.groupKind(in_.kind);
      if (Model::isGroupWait(in_.kind) && kind >= 0) {
        PorGroupRec gone = st.retire(kind, in_.pending);
        if (f) f->r |= gone.r, f->w |= gone.w;
      }
      switch (in_.kind) {
        case InstrKind::StoreCommit:
        case InstrKind::CpAsyncCommit:
        case InstrKind::MmaCommit:
          if (in_.slot >= 0 && spawn) {
            spawn->a.set(in_.slot);
            spawn->r.set(in_.slot);
            spawn->r |= st.open[kind].r;
            spawn->w |= st.open[kind].w;
          }
          st.commit(kind);
          break;
        case InstrKind::Fence:
          if (f) f->f |= st.generic;
          break;
        default: break;
      }
      for (size_t i = 0; i < in_.accesses.size(); ++i) {
        const Access& a = in_.accesses[i];
        const AtomRange& r = m_.atoms_of[p][pc][i];
        for (int x = r.a0; x < r.a1; ++x) {
          if (a.async && kind >= 0) (a.write ? st.open[kind].w : st.open[kind].r).set(obj_atom_ + x);
          if (a.proxy == Proxy::Generic && m_.tracked_of[x] >= 0) st.generic.set(obj_atom_ + x);
        }
      }
      if (Model::selfCommits(in_.kind)) st.commit(kind);
      return st;
    };
    while (!work.empty()) {
      const int pc = work.back();
      work.pop_back();
      PorGroupFlow out = transfer(pc, in[pc], nullptr, nullptr);
      for (int s : successors(p, pc))
        if (s < n && in[s].merge(out)) work.push_back(s);
    }
    for (int pc = 0; pc < n; ++pc) {
      const Instr& ins = m_.instr(p, pc);
      Foot f = accessFoot(p, pc), spawn;
      switch (ins.kind) {
        case InstrKind::Wait: f.r.set(ins.slot); break;
        case InstrKind::SyncWait: f.r.set(obj_named_ + ins.named); break;
        case InstrKind::Arrive: f.a.set(ins.slot), f.r.set(ins.slot); break;  // the proof checks the phase it lands in
        case InstrKind::ExpectTx: f.w.set(ins.slot); break;
        case InstrKind::SyncArrive:
        case InstrKind::BarArrive:
          f.w.set(obj_named_ + ins.named);
          if (obj_ready_ >= 0 && ins.named == m_.sys.cluster_named) f.w.set(obj_ready_);
          break;
        case InstrKind::TmaLoad:
          spawn.l.set(ins.slot);
          f.r.set(ins.slot);
          break;
        default: break;
      }
      if (m_.sys.ctas > 1) clusterFoot(p, pc, f, spawn);
      transfer(pc, in[pc], &f, &spawn);
      for (int u : branches_->trip[p][pc]) f.w.set(obj_trip_ + u);
      own_foot_id_[p][pc] = internInto(own_feet_, f, own_interned);
      spawn_id[pc] = internInto(spawn_feet, spawn, spawn_interned);
      const Contribution c = contribution(p, pc);
      contrib_[p][pc] = c;
      if (c.slot >= 0 || c.named >= 0) {
        auto key = std::make_tuple(p, branches_->position[p][pc], c.slot >= 0 ? c.slot : -1 - c.named);
        auto it = keys.emplace(key, static_cast<int>(keys.size())).first;
        give_key_[p][pc] = it->second;
      }
    }
    // the stretches, successors first (the program is acyclic: else no reduction)
    std::vector<int> indeg(static_cast<size_t>(n), 0), order;
    for (int pc = 0; pc < n; ++pc)
      for (int s : successors(p, pc))
        if (s < n) ++indeg[s];
    for (int pc = 0; pc < n; ++pc)
      if (indeg[pc] == 0) order.push_back(pc);
    for (size_t i = 0; i < order.size(); ++i)
      for (int s : successors(p, order[i]))
        if (s < n && --indeg[s] == 0) order.push_back(s);
    if (static_cast<int>(order.size()) != n) {
      active_ = false;
      return;
    }
    after_id_[p].assign(n, -1);
    settled_after_id_[p].assign(n, -1);
    gives_after_[p].assign(n, {0, 0});
    give_id_[p].assign(n, -1);
    wait_rec_[p].assign(n, WaitRec{});
    for (int pc = 0; pc < n; ++pc) {
      const Instr& ins = m_.instr(p, pc);
      if (ins.kind == InstrKind::Wait || ins.kind == InstrKind::SyncWait) wait_rec_[p][pc] = Supply::waitOf(ins);
    }
    waits_after_[p].assign(n, {0, 0});
    std::vector<std::vector<int>> gives_head(static_cast<size_t>(n)), waits_head(static_cast<size_t>(n));
    auto isWait = [&](int pc) {
      const InstrKind k = m_.instr(p, pc).kind;
      return k == InstrKind::Wait || k == InstrKind::SyncWait;
    };
    // the window's footprint from pc on to the waits it reaches (feet_ holds
    // it interned, after_id_): empty at a wait
    auto headWin = [&](int pc) -> const Foot& {
      static const Foot none;
      return isWait(pc) ? none : feet_[after_id_[p][pc]];
    };
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const int pc = *it;
      Foot a = ownFoot(p, pc);
      a |= spawn_feet[spawn_id[pc]];
      std::vector<int> gives, waits;
      if (give_key_[p][pc] >= 0) gives.push_back(pc);
      for (int s : successors(p, pc)) {
        if (s >= n) continue;
        a |= headWin(s);
        addSorted(gives, gives_head[s]);
        addSorted(waits, waits_head[s]);
      }
      if (gives.size() > kMaxList || waits.size() > kMaxList) {
        active_ = false;
        return;
      }
      const bool wait = isWait(pc);
      if (wait) {
        waits_head[pc] = {pc};
      } else {
        gives_head[pc] = gives;
        waits_head[pc] = waits;
      }
      after_id_[p][pc] = internFoot(a, interned);
      if (!wait && !branches_->trip[p][pc].empty()) {  // (settledResolutions) without its own unknowns
        Foot b = ownFoot(p, pc);
        b.r &= ~trip_mask_;
        b.w &= ~trip_mask_;
        b |= spawn_feet[spawn_id[pc]];
        for (int s : successors(p, pc))
          if (s < n) b |= headWin(s);
        settled_after_id_[p][pc] = internFoot(b, interned);
      }
      if (wait) {
        Foot slot_read;  // (a slot wait's own footprint is most often this alone: own_id_ -1)
        if (wait_rec_[p][pc].slot >= 0) slot_read.r.set(wait_rec_[p][pc].slot);
        const Foot& o = ownFoot(p, pc);
        const bool bit = wait_rec_[p][pc].slot >= 0 && o.r == slot_read.r && o.w.none() && o.l.none() &&
                         o.a.none() && o.f.none() && o.ar.none();
        own_id_[p][pc] = bit ? -1 : internFoot(o, interned);
      }
      gives_after_[p][pc] = giveRecs(p, gives);
      {
        const auto [g0, g1] = gives_after_[p][pc];
        std::vector<int64_t> content;
        for (uint32_t g = g0; g < g1; ++g) {
          const GiveRec& r = give_recs_[g];
          content.insert(content.end(), {r.key, r.c.slot, r.c.named, r.c.arrivals, r.c.landed, r.c.expected});
        }
        give_id_[p][pc] = give_ids.emplace(std::move(content), static_cast<int32_t>(give_ids.size())).first->second;
      }
      const uint32_t w0 = static_cast<uint32_t>(wait_list_.size());
      wait_list_.insert(wait_list_.end(), waits.begin(), waits.end());
      waits_after_[p][pc] = {w0, static_cast<uint32_t>(wait_list_.size())};
    }
  }
  foot_stamp_.assign(feet_.size(), 0);
  give_stamp_.assign(give_ids.size(), 0);
  keys_ = static_cast<int>(keys.size());
  key_stamp_.assign(static_cast<size_t>(keys_), 0);
  key_given_.assign(static_cast<size_t>(keys_), Contribution{});
}

// windows() over the branches: a window is the set of stretches its
// agent can run while `frozen` stands still, each wait passed when the
// others' windows can complete what it waits for. A window gives each
// (position, slot) once, the largest amount among its pcs: a run passes a
// position at most once, so no run of the agent gives more.
const std::vector<Reducer::Window>& Reducer::branchWindows(const State& s, const std::vector<Agent>& ag,
                                                           int frozen) const {
  // (scratch buffers are members: this runs once per seed of every state,
  // and its allocations were a fifth of its time)
  std::vector<Window>& win = scratch_win_;
  clearWindows(win, ag.size());
  work_.ops += ag.size();
  Supply& supply = *scratch_supply_;
  supply.clear();
  auto add = [&](Window& w, const Contribution& c) { supply.give(*this, w, c); };
  std::vector<uint32_t>& stamp = scratch_stamp_;
  stamp.assign(ag.size(), 0);
  // what is new in a key's contribution (its largest so far)
  auto give = [&](size_t i, const GiveRec& r) {
    const int key = r.key;
    const Contribution& c = r.c;
    Contribution& had = key_given_[key];
    if (key_stamp_[key] != stamp[i]) {
      key_stamp_[key] = stamp[i];
      had = Contribution{c.slot, c.named, 0, 0, 0};
    }
    ++work_.ops;
    Contribution more = c;
    more.arrivals = std::max<int64_t>(0, c.arrivals - had.arrivals);
    more.landed = std::max<int64_t>(0, c.landed - had.landed);
    more.expected = std::max<int64_t>(0, c.expected - had.expected);
    had.arrivals = std::max(had.arrivals, c.arrivals);
    had.landed = std::max(had.landed, c.landed);
    had.expected = std::max(had.expected, c.expected);
    add(win[i], more);
    return more.arrivals > 0 || more.landed > 0 || more.expected > 0;
  };
  std::vector<std::vector<int>>& front = scratch_front_;  // Proc: the waits its window stops at
  if (front.size() < ag.size()) front.resize(ag.size());
  for (size_t i = 0; i < ag.size(); ++i) front[i].clear();
  for (size_t i = 0; i < ag.size(); ++i) {
    const Agent& a = ag[i];
    if (static_cast<int>(i) == frozen) continue;
    if (a.kind != Agent::Kind::Proc) {
      win[i].foot.assignWords(a.win, words_);
      for (const Contribution& c : a.gives) add(win[i], c);
      continue;
    }
    const int p = a.proc;
    if (finished(m_, s, p)) continue;
    stamp[i] = ++stamp_;
    const int pc = pcOf(m_, s, p);
    if (const int c = current_id_[p][pc]; c >= 0) win[i].foot.assignWords(access_feet_[c], words_);
    else win[i].foot.clearWords(words_);
    const InstrKind k = m_.instr(p, pc).kind;
    if (k == InstrKind::Wait || k == InstrKind::SyncWait) {
      front[i].push_back(pc);
    } else {
      win[i].foot.orWords(feet_[settledAt(p, pc) ? settled_after_id_[p][pc] : after_id_[p][pc]], words_);
      give_stamp_[give_id_[p][pc]] = stamp[i];
      const auto [g0, g1] = gives_after_[p][pc];
      for (uint32_t g = g0; g < g1; ++g) give(i, give_recs_[g]);
      const auto [w0, w1] = waits_after_[p][pc];
      front[i].assign(wait_list_.begin() + w0, wait_list_.begin() + w1);
    }
    for (int w : front[i]) wait_stamp_[p][w] = stamp[i];
  }
  auto passable = [&](int p, int bpc) { return supply.passable(m_, s, p, bpc, wait_rec_[p][bpc]); };
  // The least fixpoint by a worklist: a wait that cannot pass is parked on
  // its slot or named barrier and tested again only when a window gives
  // that one more (passable() reads the state, fixed here, and that
  // object's supply, which only grows). The fixpoint is unique (supply and
  // windows only grow, passable() is monotone in the supply), so the
  // windows are those of testing every blocked wait again each round until
  // none passes, as before, with fewer tests. A parked wait keeps the
  // arrivals its test needs (Supply::need: the rest of what it reads is the
  // fixed state and, for a slot, its bytes, the same for every wait on the
  // slot), least first, and is tested again only once the supply holds
  // them: a test before would fail again (docs/z3.md "Windows that stop at
  // a wait's own phase").
  std::vector<std::pair<int, int>>& queue = scratch_queue_;
  queue.clear();
  for (size_t i = 0; i < ag.size(); ++i)
    for (int w : front[i]) queue.emplace_back(static_cast<int>(i), w);
  const size_t nkeys = static_cast<size_t>(m_.S + m_.N);
  std::vector<std::vector<Parked>>& parked = scratch_parked_;
  if (parked.size() < nkeys) parked.resize(nkeys);
  for (size_t k = 0; k < nkeys; ++k) parked[k].clear();
  auto later = [](const Parked& a, const Parked& b) { return a.need > b.need; };  // (a min-heap)
  auto park = [&](int i, int p, int w, bool cont) {
    const WaitRec& r = wait_rec_[p][w];
    auto& heap = parked[r.slot >= 0 ? r.slot : m_.S + r.named];
    heap.push_back({supply.need(m_, s, r, cont), i, w});
    std::push_heap(heap.begin(), heap.end(), later);
  };
  auto wake = [&](const Contribution& c) {
    const int k = c.slot >= 0 ? c.slot : c.named >= 0 ? m_.S + c.named : -1;
    if (k < 0) return;
    auto& heap = parked[k];
    while (!heap.empty() && supply.holds(m_, s, c.slot, c.named, heap.front().need)) {
      queue.emplace_back(heap.front().agent, heap.front().pc);
      std::pop_heap(heap.begin(), heap.end(), later);
      heap.pop_back();
    }
  };
  for (size_t q = 0; q < queue.size(); ++q) {
    const auto [i, w] = queue[q];
    const int p = ag[i].proc;
    ++work_.ops;
    if (!passable(p, w)) {
      park(i, p, w, false);
      continue;
    }
    // (docs/z3.md "A reduction for cluster proofs", part 4, and "Windows
    // that stop at a wait's own phase") past a wait only at its own phase;
    // a pass that violates is the wait's own step, no further (it stays at
    // the front: parked, as continues() reads the same supply fields as
    // passable(); not where the slot has completed past the phase already,
    // which no supply undoes)
    if (phase_windows_ && !supply.continues(m_, s, p, w)) {
      // (a wait's own footprint: most often its slot's read alone, one
      // bit set, part of the test; else interned, added once per window
      // and charged as a stretch's below)
      if (const int oid = own_id_[p][w]; oid < 0) {
        win[i].foot.r.set(wait_rec_[p][w].slot);
      } else if (foot_stamp_[oid] != stamp[i]) {
        foot_stamp_[oid] = stamp[i];
        ++work_.ops;
        win[i].foot.orWords(feet_[oid], words_);
      }
      const WaitRec& r = wait_rec_[p][w];
      if (r.slot < 0 || slotField(m_, s, r.slot, kCompleted) <= r.phase + 1) park(i, p, w, true);
      continue;
    }
    // many stretches have one footprint (the same text in another tile
    // or copy): each distinct one is added once per window
    const int fid = after_id_[p][w];
    if (foot_stamp_[fid] != stamp[i]) {
      foot_stamp_[fid] = stamp[i];
      ++work_.ops;
      win[i].foot.orWords(feet_[fid], words_);
    }
    // (a range whose records this window has given already gives nothing
    // new: skipped, one operation)
    const int32_t gid = give_id_[p][w];
    if (give_stamp_[gid] != stamp[i]) {
      give_stamp_[gid] = stamp[i];
      const auto [g0, g1] = gives_after_[p][w];
      for (uint32_t g = g0; g < g1; ++g)
        if (give(i, give_recs_[g])) wake(give_recs_[g].c);
    } else {
      ++work_.ops;
    }
    // (the stamps' row and the window's stamp loaded once: queue's growth
    // may alias neither, but the compiler cannot know it)
    uint32_t* const wstamp = wait_stamp_[p].data();
    const uint32_t st = stamp[i];
    const auto [w0, w1] = waits_after_[p][w];
    for (const int v : std::span(wait_list_.data() + w0, w1 - w0))
      if (wstamp[v] != st) {
        wstamp[v] = st;
        queue.emplace_back(i, v);
      }
  }
  for (Window& w : win) readyMask(s, w.foot);
  return win;
}

}  // namespace cake::encoder::sim
